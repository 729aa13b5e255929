//! The local application's side of a router: publishing (encoded here or by the
//! application's thread), its interest, and the frames delivered to it.

use super::link::{Binding, FedIndex};
use super::{streams, Event, InterestOpRequest, PublishError, Router, Slot, ENCODE_CHUNK};
use crate::interest::InterestId;
use crate::time::Time;
use crate::wire::{DataFrame, DataHeader, LatestKey, TransportClass, WireError, MAX_IDS_PER_FRAME};
use bytes::BytesMut;
use roaring::RoaringBitmap;

impl Router {
    fn app_slot(&self) -> Result<Slot, PublishError> {
        self.app.ok_or(PublishError::NoApplication)
    }

    /// Publish from the local application. Returns the frame's sequence number.
    ///
    /// A reliable frame that finds a full queue is held and sent as soon as there is room;
    /// until then (`ReadResumed` on the application link) further publishes return
    /// `WouldBlock`.
    pub fn publish(
        &mut self,
        now: Time,
        ids: &[InterestId],
        class: TransportClass,
        priority: u8,
        payload: &[u8],
    ) -> Result<u64, PublishError> {
        self.publish_with(now, ids, class, priority, None, payload)
    }

    /// [`Router::publish`], as a keep-latest frame when `latest` is given: queues on the
    /// way replace an older frame of this node with the same key and mask by it, and
    /// routers keep the newest for subscribers that come later (`latest`).
    pub fn publish_with(
        &mut self,
        now: Time,
        ids: &[InterestId],
        class: TransportClass,
        priority: u8,
        latest: Option<LatestKey>,
        payload: &[u8],
    ) -> Result<u64, PublishError> {
        let slot = self.app_slot()?;
        if ids.is_empty() {
            return Err(PublishError::NoIds);
        }
        if ids.len() > MAX_IDS_PER_FRAME {
            return Err(PublishError::TooManyIds(ids.len()));
        }
        if priority > 7 {
            return Err(PublishError::BadPriority(priority));
        }
        let size = DataFrame::encoded_len_with(ids.len(), payload.len(), latest.is_some());
        if size > self.max_frame_size {
            return Err(PublishError::TooLarge {
                size,
                max: self.max_frame_size,
            });
        }
        if self.link(slot).stalled.is_some() {
            return Err(PublishError::WouldBlock);
        }
        let Binding::Federation(fed) = self.link(slot).binding else {
            unreachable!("the application link is bound to its federation at start")
        };
        let header = DataHeader {
            federation: self.fed(fed).id,
            source: self.config.node_id,
            seq: self.next_seq,
            priority,
            class,
        };
        if self.encode_buf.capacity() - self.encode_buf.len() < size {
            self.encode_buf.reserve(size.max(ENCODE_CHUNK));
        }
        let mut streams = std::mem::take(&mut self.outgoing_streams);
        let frame = self.encode(|out| {
            let start = out.len();
            DataFrame::encode_with(out, &header, latest, ids, payload);
            if class == TransportClass::Reliable {
                DataFrame::stamp_streams(&mut out[start..], |id| streams.next(id));
            }
        });
        self.outgoing_streams = streams;
        let frame = DataFrame::from_validated(frame);
        Ok(self.publish_frame(now, slot, fed, frame))
    }

    /// Publish a frame the application encoded itself (see [`DataFrame::encode`]); the router
    /// stamps its source and sequence number.
    pub fn publish_encoded(&mut self, now: Time, frame: BytesMut) -> Result<u64, PublishError> {
        let slot = self.app_slot()?;
        if frame.len() > self.max_frame_size {
            return Err(PublishError::TooLarge {
                size: frame.len(),
                max: self.max_frame_size,
            });
        }
        if self.link(slot).stalled.is_some() {
            return Err(PublishError::WouldBlock);
        }
        let streams = &mut self.outgoing_streams;
        let frame = DataFrame::from_encoded(frame, self.config.node_id, self.next_seq, |id| {
            streams.next(id)
        })
        .map_err(PublishError::Malformed)?;
        let Binding::Federation(fed) = self.link(slot).binding else {
            unreachable!("the application link is bound to its federation at start")
        };
        if frame.federation() != self.fed(fed).id {
            return Err(PublishError::Malformed(WireError::Malformed {
                kind: "data",
                what: "federation differs from the application's",
            }));
        }
        Ok(self.publish_frame(now, slot, fed, frame))
    }

    fn publish_frame(&mut self, now: Time, slot: Slot, fed: FedIndex, frame: DataFrame) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.stats.data_received += 1;
        self.link_mut(slot).stats.data_in += 1;
        self.route(now, slot, fed, frame);
        seq
    }

    /// Whether `publish` would accept a frame now.
    pub fn can_publish(&self) -> bool {
        self.app
            .is_some_and(|slot| self.link(slot).stalled.is_none())
    }

    /// Add interest ids for the local application.
    pub fn subscribe(&mut self, now: Time, ids: &RoaringBitmap) {
        self.change_app_interest(now, InterestOpRequest::Add(ids));
    }

    /// Withdraw interest ids of the local application.
    pub fn unsubscribe(&mut self, now: Time, ids: &RoaringBitmap) {
        self.change_app_interest(now, InterestOpRequest::Remove(ids));
    }

    /// Replace the local application's interest.
    pub fn set_interest(&mut self, now: Time, ids: &RoaringBitmap) {
        self.change_app_interest(now, InterestOpRequest::Replace(ids));
    }

    fn change_app_interest(&mut self, now: Time, request: InterestOpRequest<'_>) {
        let Some(slot) = self.app else { return };
        let Binding::Federation(fed) = self.link(slot).binding else {
            return;
        };
        let current = self.link(slot).interest(fed).cloned().unwrap_or_default();
        let (added, removed) = request.delta(&current);
        self.incoming_streams.forget(&removed);
        *self.link_mut(slot).interest_mut(fed) = request.apply(current);
        self.propagate(now, fed, slot, &added, &removed);
        self.replay_latest(now, fed, slot, &added);
    }

    /// The local application's current interest.
    pub fn interest(&self) -> RoaringBitmap {
        self.app_interest().cloned().unwrap_or_default()
    }

    /// Whether the local application's current interest holds `id`, without a copy of it
    /// (the simulator asks for every frame it delivers).
    pub fn app_wants(&self, id: InterestId) -> bool {
        self.app_interest().is_some_and(|ids| ids.contains(id))
    }

    fn app_interest(&self) -> Option<&RoaringBitmap> {
        let slot = self.app?;
        let Binding::Federation(fed) = self.link(slot).binding else {
            return None;
        };
        self.link(slot).interest(fed)
    }

    /// What the rest of the network wants from the local application: the union of the
    /// interest every other link declared in its federation. A publisher can wait for this
    /// to cover its ids before it starts.
    pub fn network_interest(&self) -> RoaringBitmap {
        let Some(slot) = self.app else {
            return RoaringBitmap::new();
        };
        let Binding::Federation(fed) = self.link(slot).binding else {
            return RoaringBitmap::new();
        };
        let mut union = RoaringBitmap::new();
        for link in self.links.iter().flatten() {
            if !link.is_app() && link.is_up() {
                if let Some(set) = link.interest(fed) {
                    union |= set;
                }
            }
        }
        union
    }

    /// The next message for the local application. A reliable message it already received
    /// is dropped here; one that follows a gap in its source's stream is preceded by an
    /// [`Event::ReliableLost`] (see `streams`).
    ///
    /// Call after every `handle_*` call and `publish` (the application's own router
    /// delivers what it routes to it), until `None`.
    #[must_use]
    pub fn poll_delivery(&mut self) -> Option<DataFrame> {
        let slot = self.app?;
        loop {
            let frame = DataFrame::from_validated(self.link_mut(slot).out.pop_any()?);
            self.after_drain(slot);
            if let Some(latest) = frame.latest() {
                if !self.latest_delivered.is_fresh(&frame, latest) {
                    self.stats.latest.stale_deliveries += 1;
                    continue;
                }
            }
            let link = self.links[slot as usize]
                .as_ref()
                .expect("app link is live");
            let Binding::Federation(fed) = link.binding else {
                return Some(frame);
            };
            let Some(interest) = link.interest(fed) else {
                return Some(frame);
            };
            let verdict = self
                .incoming_streams
                .check(&frame, interest, self.config.node_id);
            self.stats.unfollowed_streams = self.incoming_streams.unfollowed;
            match verdict {
                streams::Verdict::Deliver => return Some(frame),
                streams::Verdict::DeliverAfterLoss(count) => {
                    self.stats.reliable_lost += count;
                    self.events.push_back(Event::ReliableLost {
                        source: frame.source(),
                        count,
                    });
                    return Some(frame);
                }
                streams::Verdict::Duplicate => {
                    self.stats.drops.count_duplicate(frame.class());
                    self.link_mut(slot)
                        .stats
                        .drops
                        .count_duplicate(frame.class());
                }
            }
        }
    }

    /// Bytes waiting for the local application.
    pub fn pending_delivery_bytes(&self) -> usize {
        self.app
            .map(|slot| {
                let out = &self.link(slot).out;
                out.reliable_bytes() + out.best_effort_bytes()
            })
            .unwrap_or(0)
    }
}
