//! Data out: choosing the links a frame goes to, queueing it there, and handing batches to
//! the transport.

use super::event::Event;
use super::index::Slot;
use super::link::FedIndex;
use super::{LinkId, Router};
use crate::time::Time;
use crate::wire::{DataFrame, TransportClass};

impl Router {
    /// Forward `frame`, which arrived on `origin`, to every matching link outside the origin's
    /// block. Returns false if a reliable frame found a full queue: the frame is then held on
    /// the origin, which reads nothing more until the queue drains.
    pub(super) fn route(
        &mut self,
        now: Time,
        origin: Slot,
        fed: FedIndex,
        frame: DataFrame,
    ) -> bool {
        let origin_block = self.link(origin).block;
        let mut targets = std::mem::take(&mut self.targets);
        targets.clear();
        self.stamp += 1;
        let stamp = self.stamp;
        if frame
            .ids()
            .next()
            .is_some_and(crate::interest::is_broadcast)
        {
            self.broadcast_targets(origin_block, fed, &mut targets);
        }
        let index = &self.feds[fed as usize]
            .as_ref()
            .expect("federation index is live")
            .index;
        for id in frame.ids().filter(|&id| !crate::interest::is_broadcast(id)) {
            for &slot in index.links(id) {
                let link = self.links[slot as usize]
                    .as_mut()
                    .expect("indexed link is live");
                if link.block != origin_block && link.stamp != stamp {
                    link.stamp = stamp;
                    targets.push(slot);
                }
            }
        }
        let class = frame.class();
        if class == TransportClass::Reliable {
            // A keep-latest frame that takes a queued frame's place needs no room.
            let full = |t: Slot| {
                let link = self.link(t);
                !link.has_room_for_reliable() && !link.out.replaces_reliable(frame.as_bytes())
            };
            if let Some(&full) = targets.iter().find(|&&t| full(t)) {
                let origin_id = self.link(origin).id;
                let waiters = &mut self.link_mut(full).waiters;
                if !waiters.contains(&origin_id) {
                    waiters.push(origin_id);
                }
                let link = self.link_mut(origin);
                link.stats.paused += 1;
                link.stalled = Some((fed, frame));
                self.targets = targets;
                return false;
            }
        }
        if targets.is_empty() {
            self.stats.data_unrouted += 1;
        }
        self.remember_latest(origin, &frame);
        let priority = frame.priority();
        self.enqueue_all(now, &targets, frame.into_bytes(), class, priority);
        self.targets = targets;
        true
    }

    /// Every up link of `fed` outside `origin_block`: where a broadcast frame goes
    /// (`crate::interest::BROADCAST_IDS`). Marks them with the current stamp.
    fn broadcast_targets(
        &mut self,
        origin_block: Option<super::link::BlockId>,
        fed: FedIndex,
        targets: &mut Vec<Slot>,
    ) {
        let stamp = self.stamp;
        for link in self.links.iter_mut().flatten() {
            if link.is_up() && link.carries(fed) && link.block != origin_block {
                link.stamp = stamp;
                targets.push(link.id.slot);
            }
        }
    }

    /// Send a frame the registry on this router originates (an event of federation `fed`)
    /// to every link of the federation, the local application included. Registry events
    /// are few (at most one per registry request, and requests are bounded by
    /// `manage::MAX_PENDING` per router), so they are queued even past a full queue's
    /// limit; they count toward its bytes, so the stuck-consumer rule still applies.
    pub(super) fn originate_broadcast(&mut self, now: Time, fed: FedIndex, frame: DataFrame) {
        let mut targets = std::mem::take(&mut self.targets);
        targets.clear();
        self.stamp += 1;
        self.broadcast_targets(None, fed, &mut targets);
        self.next_seq += 1;
        self.enqueue_all(
            now,
            &targets,
            frame.into_bytes(),
            TransportClass::Reliable,
            7,
        );
        self.targets = targets;
    }

    /// Queue `frame` on every target: a reference each, the last one taking the caller's
    /// (one reference-count increment and decrement less per frame).
    fn enqueue_all(
        &mut self,
        now: Time,
        targets: &[Slot],
        frame: bytes::Bytes,
        class: TransportClass,
        priority: u8,
    ) {
        let Some((&last, others)) = targets.split_last() else {
            return;
        };
        for &target in others {
            self.enqueue(now, target, frame.clone(), class, priority);
        }
        self.enqueue(now, last, frame, class, priority);
    }

    pub(super) fn enqueue(
        &mut self,
        now: Time,
        slot: Slot,
        frame: bytes::Bytes,
        class: TransportClass,
        priority: u8,
    ) {
        let link = self.links[slot as usize]
            .as_mut()
            .expect("target link is live");
        let replacement = match class {
            TransportClass::Reliable => {
                let replacement = link.out.push_reliable(now, frame);
                if !link.has_room_for_reliable() && link.full_since.is_none() {
                    link.full_since = Some(now);
                    link.bytes_out_at_full = link.stats.bytes_out;
                    self.filling.push(slot);
                }
                replacement
            }
            // Best effort is not held for a suspended link: it would be stale by the resume.
            TransportClass::BestEffort if link.is_suspended() => {
                link.stats.drops.link_closed += 1;
                self.stats.drops.link_closed += 1;
                return;
            }
            TransportClass::BestEffort => {
                let limit = link.config.queue_limit_bytes;
                let shed = link.out.push_best_effort(now, frame, priority, limit);
                let evicted = u64::from(shed.evicted);
                link.stats.drops.evicted += evicted;
                self.stats.drops.evicted += evicted;
                if shed.dropped {
                    link.stats.drops.queue_full += 1;
                    self.stats.drops.queue_full += 1;
                    return;
                }
                shed.latest
            }
        };
        if let Some(replacement) = replacement {
            link.stats.latest_replaced += 1;
            self.stats.latest.replaced += 1;
            if replacement == super::queue::Replacement::Stale {
                return;
            }
        }
        link.stats.data_out += 1;
        if link.is_app() {
            self.stats.data_delivered += 1;
        } else {
            self.stats.data_forwarded += 1;
            self.mark_ready(slot);
        }
    }

    /// Move the next batch for `link`'s stream into `out` (appending) and return its length;
    /// 0 when nothing is due. Frames leave whole, up to the batch limit (a single larger frame
    /// leaves alone). With a bundling delay, output waits until the oldest queued frame is
    /// that old or a full batch is queued.
    ///
    /// Call after `poll_ready` names `link`, and whenever its transport can take more, until
    /// it returns 0.
    #[must_use]
    pub fn poll_transmit(&mut self, now: Time, id: LinkId, out: &mut Vec<u8>) -> usize {
        let Some(slot) = self.live(id) else { return 0 };
        let link = self.link_mut(slot);
        if link.is_app() || link.is_suspended() {
            return 0;
        }
        let include_best_effort = link.udp_peer.is_none();
        let queued = link.out.control_bytes()
            + link.out.reliable_bytes()
            + if include_best_effort {
                link.out.best_effort_bytes()
            } else {
                0
            };
        if queued == 0 {
            return 0;
        }
        let delay = link.config.bundling_delay;
        // Control frames do not wait for the bundling delay.
        let bundle = !delay.is_zero() && !link.is_closing() && !link.out.has_control();
        if bundle && queued < link.config.batch_limit_bytes {
            let due = link.out.oldest.map(|t| t + delay).unwrap_or(now);
            if now < due {
                if !self.bundling.contains(&slot) {
                    self.bundling.push(slot);
                }
                return 0;
            }
        }
        let limit = link.config.batch_limit_bytes;
        // Kept for resending once the far side speaks sessions (it acknowledges).
        let kept_before = link.resend.bytes();
        let resend = (link.peer_session.is_some() && !link.config.resume_grace.is_zero())
            .then_some(&mut link.resend);
        let n = link
            .out
            .drain_into(out, limit, include_best_effort, now, resend);
        link.stats.bytes_out += n as u64;
        link.last_sent = now;
        self.kept_for_resend(slot, kept_before);
        self.after_drain(slot);
        // With the goodbye out, a link whose peer speaks sessions stays until the peer
        // closes (or the close deadline): the peer acknowledges what it reads, and a socket
        // closed under its acks would answer with a reset that destroys the goodbye unread.
        let link = self.link(slot);
        if link.is_closing() && link.out.is_empty() && link.peer_session.is_none() {
            self.finish_close(slot);
        }
        n
    }

    /// After frames left `slot`'s queue: once it is down to half its limit, wake the links
    /// waiting for room and clear the full mark. Both at the same level: a queue parked
    /// between half and full (a frozen reader whose socket buffer took a little more) still
    /// pauses its publishers, so it must still count toward the slow-consumer bound.
    pub(super) fn after_drain(&mut self, slot: Slot) {
        let link = self.link_mut(slot);
        let limit = link.config.queue_limit_bytes;
        if link.out.reliable_bytes() > limit / 2 {
            return;
        }
        link.full_since = None;
        if !link.waiters.is_empty() {
            let waiters = std::mem::take(&mut link.waiters);
            self.resumable.extend(waiters);
        }
    }

    /// Retry a paused link's held frame, then the rest of its input.
    pub(super) fn resume(&mut self, now: Time, slot: Slot) {
        if self.link(slot).stalled.is_none() {
            return;
        }
        let frames_before = self.link(slot).stats.frames_in;
        self.process_input(now, slot);
        self.note_input_progress(now, slot, frames_before);
        self.recount_input(slot);
        if let Some(link) = self.links[slot as usize].as_mut() {
            if link.stalled.is_none() && !link.is_closing() {
                // Its silence while paused was ours: the heartbeat clock starts again.
                link.last_received = now;
                self.events.push_back(Event::ReadResumed { link: link.id });
            }
        }
    }
}
