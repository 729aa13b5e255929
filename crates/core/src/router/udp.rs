//! Best-effort frames over UDP: batching into datagrams, fragmenting frames larger than one,
//! reassembling them with a deadline, and refusing datagrams of unknown sessions.
//!
//! ```text
//! datagram: magic 'T' | version: u8 | kind: u8 | 0: u8 | session token: u64 (the receiver's)
//!           | sequence: u64 (per link, from 1)
//!   kind 1 (frames):   whole frames, each with its own length prefix
//!   kind 2 (fragment): frame number: u32 | index: u16 | count: u16 | part of one frame
//! ```
//!
//! The session token is the one the receiver offered in its hello, so a datagram maps to its
//! link in one lookup and stray or stale datagrams are dropped and counted. The sequence
//! number lets the receiver drop a datagram the network duplicated (or one older than its
//! window of the last 64), so best-effort traffic is delivered at most once; reordering
//! within the window is accepted.

use super::event::CloseReason;
use super::index::Slot;
use super::{LinkId, Router};
use crate::time::Time;
use crate::wire::{decode_frame, Frame, TransportClass, PROTOCOL_VERSION};
use bytes::{Bytes, BytesMut};
use rustc_hash::FxHashMap;

const MAGIC: u8 = b'T';
const KIND_FRAMES: u8 = 1;
const KIND_FRAGMENT: u8 = 2;
/// Bytes before the frames of a datagram.
pub const DATAGRAM_HEADER_LEN: usize = 20;
const FRAGMENT_HEADER_LEN: usize = DATAGRAM_HEADER_LEN + 8;
/// Default datagram limit: an Ethernet MTU less IP and UDP headers.
pub const DEFAULT_MAX_DATAGRAM: usize = 1472;

/// A frame being sent in fragments.
pub(crate) struct Fragmenting {
    frame: Bytes,
    number: u32,
    next_index: u16,
    count: u16,
}

struct Partial {
    parts: Vec<Option<Bytes>>,
    received: usize,
    bytes: usize,
    expires: Time,
}

/// Fragments received but not yet whole, per link and frame number.
#[derive(Default)]
pub(crate) struct Reassembly {
    partial: FxHashMap<(LinkId, u32), Partial>,
}

impl Reassembly {
    pub(crate) fn forget(&mut self, link: LinkId) {
        self.partial.retain(|(l, _), _| *l != link);
    }

    pub(crate) fn next_expiry(&self) -> Option<Time> {
        self.partial.values().map(|p| p.expires).min()
    }

    fn count_for(&self, link: LinkId) -> usize {
        self.partial.keys().filter(|(l, _)| *l == link).count()
    }
}

fn header(out: &mut Vec<u8>, kind: u8, token: u64, seq: u64) {
    out.extend_from_slice(&[MAGIC, PROTOCOL_VERSION, kind, 0]);
    out.extend_from_slice(&token.to_le_bytes());
    out.extend_from_slice(&seq.to_le_bytes());
}

/// Datagrams behind the newest one of a link that are still accepted once (reordering
/// tolerated).
pub(crate) type DatagramWindow = super::replay::ReplayWindow<1>;

impl Router {
    fn max_datagram(&self) -> usize {
        self.config.max_datagram_size.max(FRAGMENT_HEADER_LEN + 64)
    }

    /// Build the next datagram of best-effort frames for `link` into `out` (cleared first);
    /// returns its length, 0 when nothing is queued or the link has no UDP peer.
    ///
    /// Call after `poll_ready` names a link with a UDP peer, until it returns 0.
    #[must_use]
    pub fn poll_datagram(&mut self, now: Time, id: LinkId, out: &mut Vec<u8>) -> usize {
        out.clear();
        let max = self.max_datagram();
        let Some(slot) = self.live(id) else { return 0 };
        let link = self.link_mut(slot);
        let Some(peer) = link.udp_peer else { return 0 };
        if link.fragmenting.is_none() {
            let Some(first) = link.out.peek_best_effort() else {
                return 0;
            };
            if DATAGRAM_HEADER_LEN + first.len() > max {
                let frame = link.out.pop_best_effort().expect("peeked frame is there");
                let per = max - FRAGMENT_HEADER_LEN;
                let count = frame.len().div_ceil(per);
                let Ok(count) = u16::try_from(count) else {
                    // Cannot happen under the frame limit, but a frame we cannot fragment is
                    // a drop, not a panic.
                    link.stats.drops.bad_datagram += 1;
                    self.stats.drops.bad_datagram += 1;
                    return 0;
                };
                link.fragmenting = Some(Fragmenting {
                    frame,
                    number: link.next_fragmented,
                    next_index: 0,
                    count,
                });
                link.next_fragmented = link.next_fragmented.wrapping_add(1);
            }
        }
        if let Some(frag) = link.fragmenting.as_mut() {
            let per = max - FRAGMENT_HEADER_LEN;
            let start = usize::from(frag.next_index) * per;
            let end = (start + per).min(frag.frame.len());
            link.datagrams_sent += 1;
            header(out, KIND_FRAGMENT, peer.token, link.datagrams_sent);
            out.extend_from_slice(&frag.number.to_le_bytes());
            out.extend_from_slice(&frag.next_index.to_le_bytes());
            out.extend_from_slice(&frag.count.to_le_bytes());
            out.extend_from_slice(&frag.frame[start..end]);
            frag.next_index += 1;
            if frag.next_index == frag.count {
                link.fragmenting = None;
            }
        } else {
            link.datagrams_sent += 1;
            header(out, KIND_FRAMES, peer.token, link.datagrams_sent);
            while let Some(next) = link.out.peek_best_effort() {
                if out.len() + next.len() > max {
                    break;
                }
                let frame = link.out.pop_best_effort().expect("peeked frame is there");
                out.extend_from_slice(&frame);
            }
        }
        link.stats.datagrams_out += 1;
        link.stats.bytes_out += out.len() as u64;
        link.last_sent = now;
        out.len()
    }

    /// Whether `link` has best-effort frames waiting for `poll_datagram`.
    pub fn has_datagrams(&self, id: LinkId) -> bool {
        self.live(id).is_some_and(|slot| {
            let link = self.link(slot);
            link.udp_peer.is_some() && (link.fragmenting.is_some() || link.out.has_best_effort())
        })
    }

    /// A datagram arrived on the node's UDP socket.
    pub fn handle_datagram(&mut self, now: Time, datagram: &[u8]) {
        if datagram.len() < DATAGRAM_HEADER_LEN
            || datagram[0] != MAGIC
            || datagram[1] != PROTOCOL_VERSION
        {
            self.stats.drops.bad_datagram += 1;
            return;
        }
        let field = |at: usize| {
            let mut bytes = [0u8; 8];
            bytes.copy_from_slice(&datagram[at..at + 8]);
            u64::from_le_bytes(bytes)
        };
        let (token, seq) = (field(4), field(12));
        let slot = match self.udp_sessions.get(&token) {
            Some(&slot) if self.link(slot).is_connected() && self.link(slot).udp_peer.is_some() => {
                slot
            }
            _ => {
                self.stats.drops.unknown_session += 1;
                return;
            }
        };
        let link = self.link_mut(slot);
        link.last_received = now;
        if !link.datagrams_seen.accept(seq) {
            link.stats.drops.duplicate_datagram += 1;
            self.stats.drops.duplicate_datagram += 1;
            return;
        }
        link.stats.datagrams_in += 1;
        link.stats.bytes_in += datagram.len() as u64;
        match datagram[2] {
            KIND_FRAMES => {
                let mut frames = BytesMut::from(&datagram[DATAGRAM_HEADER_LEN..]);
                while !frames.is_empty() {
                    if !self.datagram_frame(now, slot, &mut frames) {
                        return;
                    }
                }
            }
            KIND_FRAGMENT => self.fragment(now, slot, &datagram[DATAGRAM_HEADER_LEN..]),
            _ => self.bad_datagram(slot),
        }
    }

    fn bad_datagram(&mut self, slot: Slot) {
        self.link_mut(slot).stats.drops.bad_datagram += 1;
        self.stats.drops.bad_datagram += 1;
    }

    /// Decode and act on one frame from a datagram; false when the rest must be dropped.
    fn datagram_frame(&mut self, now: Time, slot: Slot, frames: &mut BytesMut) -> bool {
        let frame = match decode_frame(frames, self.max_frame_size) {
            Ok(Some(Frame::Data(data))) if data.class() == TransportClass::BestEffort => data,
            _ => {
                self.bad_datagram(slot);
                return false;
            }
        };
        self.link_mut(slot).stats.frames_in += 1;
        self.on_datagram_data(now, slot, frame);
        self.links[slot as usize]
            .as_ref()
            .is_some_and(|l| l.is_connected())
    }

    fn on_datagram_data(&mut self, now: Time, slot: Slot, frame: crate::wire::DataFrame) {
        let fed = match self.fed_for_link(slot, frame.federation()) {
            Ok(fed) => fed,
            Err(why) => return self.fail(now, slot, CloseReason::Violation(why)),
        };
        let link = self.link_mut(slot);
        link.stats.data_in += 1;
        self.stats.data_received += 1;
        if self.refuse_data(now, slot, fed, &frame) {
            return;
        }
        // Best-effort frames never stall, so there is nothing to hold.
        self.route(now, slot, fed, frame);
    }

    fn fragment(&mut self, now: Time, slot: Slot, body: &[u8]) {
        if body.len() < 8 {
            return self.bad_datagram(slot);
        }
        let number = u32::from_le_bytes([body[0], body[1], body[2], body[3]]);
        let index = usize::from(u16::from_le_bytes([body[4], body[5]]));
        let count = usize::from(u16::from_le_bytes([body[6], body[7]]));
        let part = &body[8..];
        // The sender puts at least 64 bytes in every fragment but the last.
        let max_count = self.max_frame_size.div_ceil(64);
        if count < 2 || index >= count || count > max_count || part.is_empty() {
            return self.bad_datagram(slot);
        }
        let id = self.link(slot).id;
        let key = (id, number);
        if !self.reassembly.partial.contains_key(&key) {
            if self.reassembly.count_for(id) >= self.config.max_partial_frames {
                self.evict_oldest_partial(slot, id);
            }
            self.reassembly.partial.insert(
                key,
                Partial {
                    parts: vec![None; count],
                    received: 0,
                    bytes: 0,
                    expires: now + self.config.reassembly_timeout,
                },
            );
        }
        let partial = self
            .reassembly
            .partial
            .get_mut(&key)
            .expect("just inserted");
        if partial.parts.len() != count || partial.bytes + part.len() > self.max_frame_size {
            self.reassembly.partial.remove(&key);
            return self.bad_datagram(slot);
        }
        if partial.parts[index].is_none() {
            partial.bytes += part.len();
            partial.received += 1;
            partial.parts[index] = Some(Bytes::copy_from_slice(part));
        }
        if partial.received < count {
            return;
        }
        let partial = self.reassembly.partial.remove(&key).expect("present");
        let mut whole = BytesMut::with_capacity(partial.bytes);
        for part in partial.parts.into_iter().flatten() {
            whole.extend_from_slice(&part);
        }
        let frame = match decode_frame(&mut whole, self.max_frame_size) {
            Ok(Some(Frame::Data(data)))
                if whole.is_empty() && data.class() == TransportClass::BestEffort =>
            {
                data
            }
            _ => return self.bad_datagram(slot),
        };
        self.link_mut(slot).stats.frames_in += 1;
        self.on_datagram_data(now, slot, frame);
    }

    fn evict_oldest_partial(&mut self, slot: Slot, id: LinkId) {
        let oldest = self
            .reassembly
            .partial
            .iter()
            .filter(|((l, _), _)| *l == id)
            .min_by_key(|(_, p)| p.expires)
            .map(|(k, _)| *k);
        if let Some(key) = oldest {
            self.reassembly.partial.remove(&key);
            self.link_mut(slot).stats.drops.reassembly_expired += 1;
            self.stats.drops.reassembly_expired += 1;
        }
    }

    pub(super) fn expire_reassembly(&mut self, now: Time) {
        let mut expired = Vec::new();
        self.reassembly.partial.retain(|(link, _), p| {
            let keep = p.expires > now;
            if !keep {
                expired.push(*link);
            }
            keep
        });
        for link in expired {
            self.stats.drops.reassembly_expired += 1;
            if let Some(slot) = self.live(link) {
                self.link_mut(slot).stats.drops.reassembly_expired += 1;
            }
        }
    }
}
