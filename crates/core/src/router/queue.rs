//! A link's outbound queue: control frames (hello, heartbeats, interest, registry routes
//! and requests) in a lane of their own that leaves first, so liveness and interest never
//! wait behind megabytes of data; reliable data in one bounded FIFO; best-effort data in one
//! FIFO per priority so that overflow can shed the least urgent first and, within a
//! priority, the oldest: a newer update of simulation state is worth more than an older one.
//!
//! **Keep-latest frames are replaced, not appended.** A data frame with a keep-latest key
//! (`wire::LatestKey`) takes the place of a frame still queued in the same lane with the
//! same federation, source, key and attribute mask, so a consumer that falls behind gets
//! the newest state of each key instead of a backlog, and its queue holds at most one frame
//! per (source, key, mask) of such traffic. Why this loses nothing it should not:
//!
//! - only a frame of the *same source* replaces, so "newer" is decided by the source's own
//!   sequence number, never across clocks; one with a sequence number at or below the
//!   queued one's (a best-effort copy that UDP reordered, a second copy from a cache) is
//!   the stale one and is discarded instead;
//! - only a frame with the *same mask* replaces, so every attribute the queued frame
//!   carried is carried, newer, by the frame that takes its place;
//! - the newer frame takes the *place* of the older one (it leaves earlier than it would
//!   have), so a queue's length never grows with replacement and nothing waits twice.
//!   Frames of the same source queued between the two are overtaken: other keys, or other
//!   masks of the same key. The federate library drops a value older than one it already
//!   reflected (per instance and attribute, by the source's sequence number), so an
//!   overtaken frame with an overlapping mask cannot roll an attribute back. Keep-latest
//!   frames are never time-stamped (the federate library does not mark those), so
//!   time-stamp order is untouched;
//! - a removal (mask 0) neither replaces nor is replaced.
//!
//! Finding the frame to replace is one hash lookup: each lane numbers its frames (a
//! ticket, the position since the lane began), and an index maps (federation, source, key,
//! mask, lane) to the ticket of the queued frame. An entry goes when its frame leaves the
//! queue, so the index never holds more entries than the queue holds frames.

use super::session::ResendBuffer;
use crate::time::Time;
use crate::wire::{DataFrame, FederationId, LatestKey, NodeId};
use bytes::Bytes;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

pub(crate) const PRIORITIES: usize = 8;
/// The lane number of the reliable FIFO in the replacement index (best effort: priority).
const RELIABLE_LANE: u8 = PRIORITIES as u8;

/// What happened to a best-effort frame offered to a full queue.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Shed {
    /// Queued frames of lower priority thrown out to make room.
    pub evicted: u32,
    /// The offered frame itself was dropped: nothing of lower priority was left to evict.
    pub dropped: bool,
    /// How a keep-latest frame met the frame it replaces, if one was queued.
    pub latest: Option<Replacement>,
}

/// A keep-latest frame met a queued frame of the same source, key, mask and lane.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Replacement {
    /// The offered frame is newer and took the queued one's place.
    Replaced,
    /// The queued frame is as new or newer: the offered one was discarded.
    Stale,
}

/// Frames with stable positions: `front` is the ticket of the first, tickets count up.
#[derive(Debug, Default)]
struct Fifo {
    frames: VecDeque<Bytes>,
    bytes: usize,
    front: u64,
}

impl Fifo {
    fn push(&mut self, frame: Bytes) -> u64 {
        self.bytes += frame.len();
        self.frames.push_back(frame);
        self.front + self.frames.len() as u64 - 1
    }

    fn pop_front(&mut self) -> Option<(u64, Bytes)> {
        let frame = self.frames.pop_front()?;
        self.bytes -= frame.len();
        let ticket = self.front;
        self.front += 1;
        Some((ticket, frame))
    }

    fn get_mut(&mut self, ticket: u64) -> Option<&mut Bytes> {
        let at = usize::try_from(ticket.checked_sub(self.front)?).ok()?;
        self.frames.get_mut(at)
    }

    /// Drop everything, keeping the tickets counting up.
    fn clear(&mut self) -> usize {
        let n = self.frames.len();
        self.front += n as u64;
        self.frames.clear();
        self.bytes = 0;
        n
    }
}

/// Names a keep-latest frame's place in one lane of the queue.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
struct ReplaceKey {
    federation: FederationId,
    source: NodeId,
    latest: LatestKey,
    lane: u8,
}

impl ReplaceKey {
    /// The key of a frame in `lane`, for a keep-latest data frame that may replace or be
    /// replaced (a removal may not).
    fn of(frame: &[u8], lane: u8) -> Option<ReplaceKey> {
        let latest = DataFrame::latest_of(frame).filter(|l| !l.is_removal())?;
        Some(ReplaceKey {
            federation: DataFrame::federation_of(frame),
            source: DataFrame::source_seq_of(frame).0,
            latest,
            lane,
        })
    }
}

#[derive(Debug, Default)]
pub(crate) struct OutQueue {
    control: VecDeque<Bytes>,
    control_bytes: usize,
    reliable: Fifo,
    best_effort: [Fifo; PRIORITIES],
    /// The ticket of each replaceable keep-latest frame queued, by its key and lane.
    replaceable: FxHashMap<ReplaceKey, u64>,
    /// When the oldest frame still queued arrived; drives the bundling delay.
    pub(crate) oldest: Option<Time>,
    /// Alternates which class leads a batch so neither can starve the other.
    best_effort_leads: bool,
}

impl OutQueue {
    pub(crate) fn reliable_bytes(&self) -> usize {
        self.reliable.bytes
    }

    pub(crate) fn control_bytes(&self) -> usize {
        self.control_bytes
    }

    pub(crate) fn has_control(&self) -> bool {
        !self.control.is_empty()
    }

    pub(crate) fn best_effort_bytes(&self) -> usize {
        self.best_effort.iter().map(|l| l.bytes).sum()
    }

    pub(crate) fn reliable_frames(&self) -> usize {
        self.reliable.frames.len()
    }

    pub(crate) fn best_effort_frames(&self) -> usize {
        self.best_effort.iter().map(|l| l.frames.len()).sum()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.control.is_empty() && self.reliable.frames.is_empty() && !self.has_best_effort()
    }

    /// Control or reliable frames queued: what the link's stream must carry.
    pub(crate) fn has_stream_output(&self) -> bool {
        !self.control.is_empty() || !self.reliable.frames.is_empty()
    }

    pub(crate) fn has_best_effort(&self) -> bool {
        self.best_effort.iter().any(|l| l.bytes > 0)
    }

    /// Keep-latest frames queued that a newer one could replace (at most one per source,
    /// key, mask and lane).
    #[cfg(test)]
    pub(crate) fn replaceable_frames(&self) -> usize {
        self.replaceable.len()
    }

    fn touch(&mut self, now: Time) {
        if self.oldest.is_none() {
            self.oldest = Some(now);
        }
    }

    fn lane_mut(&mut self, lane: u8) -> &mut Fifo {
        if lane == RELIABLE_LANE {
            &mut self.reliable
        } else {
            &mut self.best_effort[usize::from(lane)]
        }
    }

    /// Take the frame at the front of `lane`, forgetting its place in the index.
    fn pop_lane(&mut self, lane: u8) -> Option<Bytes> {
        let (ticket, frame) = self.lane_mut(lane).pop_front()?;
        // Most traffic is not keep-latest: with nothing indexed there is no key to look at.
        if self.replaceable.is_empty() {
            return Some(frame);
        }
        if let Some(key) = ReplaceKey::of(&frame, lane) {
            if self.replaceable.get(&key) == Some(&ticket) {
                self.replaceable.remove(&key);
            }
        }
        Some(frame)
    }

    /// Put a keep-latest `frame` in the place of the queued frame it replaces, if one is
    /// queued in `lane`; `None` when there is none (the caller appends it).
    fn replace(&mut self, lane: u8, frame: &Bytes) -> Option<Replacement> {
        if self.replaceable.is_empty() {
            return None;
        }
        let key = ReplaceKey::of(frame, lane)?;
        let ticket = *self.replaceable.get(&key)?;
        let fifo = self.lane_mut(lane);
        let queued = fifo
            .get_mut(ticket)
            .expect("an indexed ticket is still queued: entries go when their frame leaves");
        let (_, queued_seq) = DataFrame::source_seq_of(queued);
        let (_, offered_seq) = DataFrame::source_seq_of(frame);
        if offered_seq <= queued_seq {
            return Some(Replacement::Stale);
        }
        let old_len = queued.len();
        *queued = frame.clone();
        fifo.bytes = fifo.bytes - old_len + frame.len();
        Some(Replacement::Replaced)
    }

    /// Append `frame` to `lane`, indexing it when it is a replaceable keep-latest frame.
    fn append(&mut self, lane: u8, frame: Bytes) {
        let key = ReplaceKey::of(&frame, lane);
        let ticket = self.lane_mut(lane).push(frame);
        if let Some(key) = key {
            self.replaceable.insert(key, ticket);
        }
    }

    /// Whether a reliable `frame` would take the place of a queued one (and so needs no room).
    pub(crate) fn replaces_reliable(&self, frame: &Bytes) -> bool {
        ReplaceKey::of(frame, RELIABLE_LANE).is_some_and(|key| self.replaceable.contains_key(&key))
    }

    /// Control frames leave before any data queued so far. The caller bounds them (they
    /// count toward the link's hard limit).
    pub(crate) fn push_control(&mut self, now: Time, frame: Bytes) {
        self.touch(now);
        self.control_bytes += frame.len();
        self.control.push_back(frame);
    }

    /// Reliable frames are never dropped here (a keep-latest one is replaced, or discarded
    /// as stale, see the module notes); the caller enforces the bound by pausing senders
    /// before it offers more.
    pub(crate) fn push_reliable(&mut self, now: Time, frame: Bytes) -> Option<Replacement> {
        self.touch(now);
        if let Some(replacement) = self.replace(RELIABLE_LANE, &frame) {
            return Some(replacement);
        }
        self.append(RELIABLE_LANE, frame);
        None
    }

    /// Queue a best-effort frame within `limit` bytes. A keep-latest frame first takes the
    /// place of the one it replaces. When full, it evicts queued frames of its own or lower
    /// priority, lowest priority first and oldest first within one; it is dropped itself
    /// only when those could not make room (nothing queued is evicted then).
    pub(crate) fn push_best_effort(
        &mut self,
        now: Time,
        frame: Bytes,
        priority: u8,
        limit: usize,
    ) -> Shed {
        let priority = usize::from(priority).min(PRIORITIES - 1);
        let mut shed = Shed {
            latest: self.replace(priority as u8, &frame),
            ..Shed::default()
        };
        let appending = shed.latest.is_none();
        let offered = if appending { frame.len() } else { 0 };
        let mut over = (self.best_effort_bytes() + offered).saturating_sub(limit);
        let evictable: usize = self.best_effort[..=priority].iter().map(|l| l.bytes).sum();
        if over > evictable {
            // Only an appended frame can find no room: a replacement is in the queue already
            // and the frame it replaced is evictable.
            shed.dropped = true;
            return shed;
        }
        while over > 0 {
            let lane = self.best_effort[..=priority]
                .iter()
                .position(|l| !l.frames.is_empty())
                .expect("evictable bytes cover the excess");
            let victim = self.pop_lane(lane as u8).expect("lane is non-empty");
            over = over.saturating_sub(victim.len());
            shed.evicted += 1;
        }
        if appending {
            self.touch(now);
            self.append(priority as u8, frame);
        }
        shed
    }

    /// Move whole frames into `out` until `limit` bytes (at least one frame, however large).
    /// Best-effort frames leave most urgent first. Returns the bytes moved.
    /// Reliable frames drained are kept in `resend`, when given, until acknowledged.
    pub(crate) fn drain_into(
        &mut self,
        out: &mut Vec<u8>,
        limit: usize,
        include_best_effort: bool,
        now: Time,
        resend: Option<&mut ResendBuffer>,
    ) -> usize {
        let start = out.len();
        self.drain_control(out, start, limit);
        let best_effort_first = include_best_effort && self.best_effort_leads;
        if best_effort_first {
            self.drain_best_effort(out, start, limit);
            self.drain_reliable(out, start, limit, resend);
        } else {
            self.drain_reliable(out, start, limit, resend);
            if include_best_effort {
                self.drain_best_effort(out, start, limit);
            }
        }
        self.best_effort_leads = !self.best_effort_leads;
        if self.is_empty() || (!include_best_effort && !self.has_stream_output()) {
            self.oldest = None;
        } else if out.len() > start {
            // What is left waited for a full batch, not for the bundling delay.
            self.oldest = Some(now);
        }
        out.len() - start
    }

    fn drain_control(&mut self, out: &mut Vec<u8>, start: usize, limit: usize) {
        while let Some(frame) = self.control.front() {
            if out.len() > start && out.len() - start + frame.len() > limit {
                break;
            }
            out.extend_from_slice(frame);
            self.control_bytes -= frame.len();
            self.control.pop_front();
        }
    }

    fn drain_reliable(
        &mut self,
        out: &mut Vec<u8>,
        start: usize,
        limit: usize,
        mut resend: Option<&mut ResendBuffer>,
    ) {
        while let Some(frame) = self.reliable.frames.front() {
            if out.len() > start && out.len() - start + frame.len() > limit {
                break;
            }
            out.extend_from_slice(frame);
            let frame = self.pop_lane(RELIABLE_LANE).expect("front exists");
            if let Some(keep) = resend.as_deref_mut() {
                keep.push(frame);
            }
        }
    }

    fn drain_best_effort(&mut self, out: &mut Vec<u8>, start: usize, limit: usize) {
        for lane in (0..PRIORITIES).rev() {
            while let Some(frame) = self.best_effort[lane].frames.front() {
                if out.len() > start && out.len() - start + frame.len() > limit {
                    return;
                }
                out.extend_from_slice(frame);
                self.pop_lane(lane as u8);
            }
        }
    }

    /// Take the next best-effort frame, most urgent first (for datagram packing).
    pub(crate) fn pop_best_effort(&mut self) -> Option<Bytes> {
        let lane = (0..PRIORITIES)
            .rev()
            .find(|&l| !self.best_effort[l].frames.is_empty())?;
        let frame = self.pop_lane(lane as u8);
        if self.is_empty() {
            self.oldest = None;
        }
        frame
    }

    /// Look at the next best-effort frame without taking it.
    pub(crate) fn peek_best_effort(&self) -> Option<&Bytes> {
        self.best_effort.iter().rev().find_map(|l| l.frames.front())
    }

    /// Take the next frame for a local application: reliable first, then most urgent.
    pub(crate) fn pop_any(&mut self) -> Option<Bytes> {
        if let Some(frame) = self.pop_lane(RELIABLE_LANE) {
            if self.is_empty() {
                self.oldest = None;
            }
            return Some(frame);
        }
        self.pop_best_effort()
    }

    /// Keep only reliable data (a suspended link: its control frames belong to the old
    /// connection, best effort is not worth holding). Returns how many frames went.
    pub(crate) fn keep_reliable_only(&mut self) -> usize {
        let mut dropped = self.control.len();
        self.control.clear();
        self.control_bytes = 0;
        for lane in &mut self.best_effort {
            dropped += lane.clear();
        }
        self.replaceable.retain(|key, _| key.lane == RELIABLE_LANE);
        if self.reliable.frames.is_empty() {
            self.oldest = None;
        }
        dropped
    }

    /// Take every queued reliable frame, oldest first.
    pub(crate) fn take_reliable(&mut self) -> VecDeque<Bytes> {
        let frames = std::mem::take(&mut self.reliable.frames);
        self.reliable.front += frames.len() as u64;
        self.reliable.bytes = 0;
        self.replaceable.retain(|key, _| key.lane != RELIABLE_LANE);
        if self.is_empty() {
            self.oldest = None;
        }
        frames
    }

    /// Empty the queue; returns how many frames were thrown away.
    pub(crate) fn clear(&mut self) -> usize {
        let mut n = self.control.len() + self.reliable.clear();
        for lane in &mut self.best_effort {
            n += lane.clear();
        }
        self.control.clear();
        self.control_bytes = 0;
        self.replaceable.clear();
        self.oldest = None;
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(len: usize, tag: u8) -> Bytes {
        Bytes::from(vec![tag; len])
    }

    #[test]
    fn overflow_evicts_lowest_priority_oldest_first() {
        let mut q = OutQueue::default();
        let t = Time::ZERO;
        assert_eq!(q.push_best_effort(t, frame(10, 1), 1, 30), Shed::default());
        assert_eq!(q.push_best_effort(t, frame(10, 2), 1, 30), Shed::default());
        assert_eq!(q.push_best_effort(t, frame(10, 3), 5, 30), Shed::default());
        // Full: a priority-7 frame evicts the oldest priority-1 frame.
        let shed = q.push_best_effort(t, frame(10, 4), 7, 30);
        assert_eq!(
            shed,
            Shed {
                evicted: 1,
                dropped: false,
                latest: None
            }
        );
        // A priority-1 frame evicts the older priority-1 frame: the newer update is kept.
        let shed = q.push_best_effort(t, frame(10, 5), 1, 30);
        assert_eq!(
            shed,
            Shed {
                evicted: 1,
                dropped: false,
                latest: None
            }
        );
        // A priority-0 frame finds nothing of its priority or lower and is dropped itself.
        let shed = q.push_best_effort(t, frame(10, 6), 0, 30);
        assert_eq!(
            shed,
            Shed {
                evicted: 0,
                dropped: true,
                latest: None
            }
        );
        // A frame that higher priorities leave no room for evicts nothing on its way out.
        let shed = q.push_best_effort(t, frame(20, 7), 1, 30);
        assert_eq!(
            shed,
            Shed {
                evicted: 0,
                dropped: true,
                latest: None
            }
        );
        let order: Vec<u8> = std::iter::from_fn(|| q.pop_best_effort())
            .map(|f| f[0])
            .collect();
        assert_eq!(order, vec![4, 3, 5]);
        assert_eq!(q.best_effort_bytes(), 0);
    }

    /// A keep-latest data frame of source 7 for `key` with `mask`, sequence `seq`.
    fn latest(key: u64, mask: u64, seq: u64, class: crate::wire::TransportClass) -> Bytes {
        use crate::wire::{DataHeader, FederationId, LatestKey};
        let header = DataHeader {
            federation: FederationId::of("f"),
            source: NodeId(7),
            seq,
            priority: 3,
            class,
        };
        let mut out = bytes::BytesMut::new();
        let key = LatestKey {
            key,
            attributes: mask,
        };
        DataFrame::encode_with(&mut out, &header, Some(key), &[1], &seq.to_le_bytes());
        out.freeze()
    }

    fn seq_of(frame: &Bytes) -> u64 {
        DataFrame::source_seq_of(frame).1
    }

    #[test]
    fn a_newer_keep_latest_frame_takes_the_queued_ones_place() {
        use crate::wire::TransportClass::Reliable;
        let mut q = OutQueue::default();
        let t = Time::ZERO;
        assert_eq!(q.push_reliable(t, latest(1, 0b11, 1, Reliable)), None);
        assert_eq!(q.push_reliable(t, frame(40, 9)), None);
        assert_eq!(q.push_reliable(t, latest(2, 0b11, 2, Reliable)), None);
        // Same key, another mask: appended, it carries other attributes.
        assert_eq!(q.push_reliable(t, latest(1, 0b01, 3, Reliable)), None);
        let before = q.reliable_bytes();
        assert_eq!(
            q.push_reliable(t, latest(1, 0b11, 4, Reliable)),
            Some(Replacement::Replaced)
        );
        assert_eq!(
            q.reliable_bytes(),
            before,
            "same size, same bytes: one frame per key"
        );
        // An older copy (a cache's, a reordered datagram's) is discarded, not queued.
        assert_eq!(
            q.push_reliable(t, latest(1, 0b11, 2, Reliable)),
            Some(Replacement::Stale)
        );
        assert_eq!(q.replaceable_frames(), 3);
        let mut order = Vec::new();
        while let Some(f) = q.pop_any() {
            order.push(if f.len() == 40 { 0 } else { seq_of(&f) });
        }
        // The newest of key 1 / mask 0b11 left from the place of the first.
        assert_eq!(order, vec![4, 0, 2, 3]);
        assert_eq!(
            q.replaceable_frames(),
            0,
            "the index empties with the queue"
        );
        // Once the frame left, a newer one is queued again, not replaced.
        assert_eq!(q.push_reliable(t, latest(1, 0b11, 5, Reliable)), None);
    }

    #[test]
    fn a_removal_neither_replaces_nor_is_replaced() {
        use crate::wire::TransportClass::Reliable;
        let mut q = OutQueue::default();
        let t = Time::ZERO;
        assert_eq!(q.push_reliable(t, latest(1, 0, 1, Reliable)), None);
        assert_eq!(q.push_reliable(t, latest(1, 0, 2, Reliable)), None);
        assert_eq!(q.replaceable_frames(), 0);
    }

    #[test]
    fn best_effort_keep_latest_frames_replace_within_their_priority() {
        use crate::wire::TransportClass::BestEffort;
        let mut q = OutQueue::default();
        let t = Time::ZERO;
        let one = latest(1, 1, 1, BestEffort);
        let limit = one.len() * 2;
        assert_eq!(q.push_best_effort(t, one, 3, limit), Shed::default());
        for seq in 2..100 {
            let shed = q.push_best_effort(t, latest(1, 1, seq, BestEffort), 3, limit);
            assert_eq!(shed.latest, Some(Replacement::Replaced));
            assert_eq!((shed.evicted, shed.dropped), (0, false));
        }
        // Another key still fits: the queue holds one frame per key, not a backlog.
        let shed = q.push_best_effort(t, latest(2, 1, 100, BestEffort), 3, limit);
        assert_eq!(shed, Shed::default());
        let seqs: Vec<u64> = std::iter::from_fn(|| q.pop_best_effort())
            .map(|f| seq_of(&f))
            .collect();
        assert_eq!(seqs, vec![99, 100]);
        assert_eq!(q.replaceable_frames(), 0);
    }

    #[test]
    fn clearing_and_taking_forget_the_index() {
        use crate::wire::TransportClass::{BestEffort, Reliable};
        let mut q = OutQueue::default();
        let t = Time::ZERO;
        q.push_reliable(t, latest(1, 1, 1, Reliable));
        q.push_best_effort(t, latest(1, 1, 2, BestEffort), 3, 1 << 20);
        assert_eq!(q.keep_reliable_only(), 1);
        assert_eq!(q.replaceable_frames(), 1);
        let taken = q.take_reliable();
        assert_eq!(taken.len(), 1);
        assert_eq!(q.replaceable_frames(), 0);
        // The moved frames are queued again elsewhere (a resumed link) and indexed there.
        assert_eq!(q.push_reliable(t, latest(1, 1, 3, Reliable)), None);
        assert_eq!(q.clear(), 1);
        assert_eq!(q.replaceable_frames(), 0);
    }

    #[test]
    fn control_frames_overtake_queued_data() {
        let mut q = OutQueue::default();
        let t = Time::ZERO;
        for i in 0..3 {
            q.push_reliable(t, frame(40, i));
        }
        q.push_best_effort(t, frame(40, 5), 3, 1 << 20);
        q.push_control(t, frame(8, 9));
        assert_eq!(q.control_bytes(), 8);
        let mut out = Vec::new();
        q.drain_into(&mut out, 50, true, t, None);
        assert_eq!(out[..8], [9; 8], "the control frame leads the next batch");
        assert_eq!(out.len(), 48, "data fills the rest of the batch");
        assert!(!q.has_control());
        out.clear();
        q.drain_into(&mut out, 1 << 20, true, t, None);
        assert_eq!(out.len(), 120);
        assert!(q.is_empty());
    }

    #[test]
    fn batches_respect_the_limit_but_always_carry_one_frame() {
        let mut q = OutQueue::default();
        let t = Time::ZERO;
        for i in 0..5 {
            q.push_reliable(t, frame(40, i));
        }
        q.push_reliable(t, frame(500, 9));
        let mut out = Vec::new();
        assert_eq!(q.drain_into(&mut out, 100, true, t, None), 80);
        out.clear();
        assert_eq!(q.drain_into(&mut out, 100, true, t, None), 80);
        out.clear();
        assert_eq!(q.drain_into(&mut out, 100, true, t, None), 40);
        out.clear();
        assert_eq!(q.drain_into(&mut out, 100, true, t, None), 500);
        assert!(q.is_empty());
        assert_eq!(q.reliable_bytes(), 0);
    }
}
