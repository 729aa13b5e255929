//! A link's outbound queue: control frames (hello, heartbeats, interest, registry routes
//! and requests) in a lane of their own that leaves first, so liveness and interest never
//! wait behind megabytes of data; reliable data in one bounded FIFO; best-effort data in one
//! FIFO per priority so that overflow can shed the least urgent first and, within a
//! priority, the oldest: a newer update of simulation state is worth more than an older one.

use super::session::ResendBuffer;
use crate::time::Time;
use bytes::Bytes;
use std::collections::VecDeque;

pub(crate) const PRIORITIES: usize = 8;

/// What happened to a best-effort frame offered to a full queue.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Shed {
    /// Queued frames of lower priority thrown out to make room.
    pub evicted: u32,
    /// The offered frame itself was dropped: nothing of lower priority was left to evict.
    pub dropped: bool,
}

/// The best-effort frames of one priority.
#[derive(Debug, Default)]
struct Lane {
    frames: VecDeque<Bytes>,
    bytes: usize,
}

impl Lane {
    fn pop_front(&mut self) -> Option<Bytes> {
        let frame = self.frames.pop_front()?;
        self.bytes -= frame.len();
        Some(frame)
    }
}

#[derive(Debug, Default)]
pub(crate) struct OutQueue {
    control: VecDeque<Bytes>,
    control_bytes: usize,
    reliable: VecDeque<Bytes>,
    reliable_bytes: usize,
    best_effort: [Lane; PRIORITIES],
    /// When the oldest frame still queued arrived; drives the bundling delay.
    pub(crate) oldest: Option<Time>,
    /// Alternates which class leads a batch so neither can starve the other.
    best_effort_leads: bool,
}

impl OutQueue {
    pub(crate) fn reliable_bytes(&self) -> usize {
        self.reliable_bytes
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

    pub(crate) fn is_empty(&self) -> bool {
        self.control.is_empty() && self.reliable.is_empty() && !self.has_best_effort()
    }

    /// Control or reliable frames queued: what the link's stream must carry.
    pub(crate) fn has_stream_output(&self) -> bool {
        !self.control.is_empty() || !self.reliable.is_empty()
    }

    pub(crate) fn has_best_effort(&self) -> bool {
        self.best_effort.iter().any(|l| l.bytes > 0)
    }

    fn touch(&mut self, now: Time) {
        if self.oldest.is_none() {
            self.oldest = Some(now);
        }
    }

    /// Control frames leave before any data queued so far. The caller bounds them (they
    /// count toward the link's hard limit).
    pub(crate) fn push_control(&mut self, now: Time, frame: Bytes) {
        self.touch(now);
        self.control_bytes += frame.len();
        self.control.push_back(frame);
    }

    /// Reliable frames are never dropped here; the caller enforces the bound by
    /// pausing senders before it offers more.
    pub(crate) fn push_reliable(&mut self, now: Time, frame: Bytes) {
        self.touch(now);
        self.reliable_bytes += frame.len();
        self.reliable.push_back(frame);
    }

    /// Queue a best-effort frame within `limit` bytes. When full, it evicts queued frames of
    /// its own or lower priority, lowest priority first and oldest first within one; it is
    /// dropped itself only when those could not make room (nothing queued is evicted then).
    pub(crate) fn push_best_effort(
        &mut self,
        now: Time,
        frame: Bytes,
        priority: u8,
        limit: usize,
    ) -> Shed {
        let priority = usize::from(priority).min(PRIORITIES - 1);
        let mut shed = Shed::default();
        let mut over = (self.best_effort_bytes() + frame.len()).saturating_sub(limit);
        let evictable: usize = self.best_effort[..=priority].iter().map(|l| l.bytes).sum();
        if over > evictable {
            shed.dropped = true;
            return shed;
        }
        while over > 0 {
            let lane = self.best_effort[..=priority]
                .iter_mut()
                .find(|l| !l.frames.is_empty())
                .expect("evictable bytes cover the excess");
            let victim = lane.pop_front().expect("lane is non-empty");
            over = over.saturating_sub(victim.len());
            shed.evicted += 1;
        }
        self.touch(now);
        let lane = &mut self.best_effort[priority];
        lane.bytes += frame.len();
        lane.frames.push_back(frame);
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
        drain_fifo(
            &mut self.control,
            &mut self.control_bytes,
            out,
            start,
            limit,
            None,
        );
    }

    fn drain_reliable(
        &mut self,
        out: &mut Vec<u8>,
        start: usize,
        limit: usize,
        resend: Option<&mut ResendBuffer>,
    ) {
        drain_fifo(
            &mut self.reliable,
            &mut self.reliable_bytes,
            out,
            start,
            limit,
            resend,
        );
    }

    fn drain_best_effort(&mut self, out: &mut Vec<u8>, start: usize, limit: usize) {
        for lane in self.best_effort.iter_mut().rev() {
            while let Some(frame) = lane.frames.front() {
                if out.len() > start && out.len() - start + frame.len() > limit {
                    return;
                }
                out.extend_from_slice(frame);
                lane.pop_front();
            }
        }
    }

    /// Take the next best-effort frame, most urgent first (for datagram packing).
    pub(crate) fn pop_best_effort(&mut self) -> Option<Bytes> {
        for lane in self.best_effort.iter_mut().rev() {
            if let Some(frame) = lane.pop_front() {
                if self.is_empty() {
                    self.oldest = None;
                }
                return Some(frame);
            }
        }
        None
    }

    /// Look at the next best-effort frame without taking it.
    pub(crate) fn peek_best_effort(&self) -> Option<&Bytes> {
        self.best_effort.iter().rev().find_map(|l| l.frames.front())
    }

    /// Take the next frame for a local application: reliable first, then most urgent.
    pub(crate) fn pop_any(&mut self) -> Option<Bytes> {
        if let Some(frame) = self.reliable.pop_front() {
            self.reliable_bytes -= frame.len();
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
        let reliable = std::mem::take(&mut self.reliable);
        let reliable_bytes = self.reliable_bytes;
        let dropped = self.clear();
        self.reliable = reliable;
        self.reliable_bytes = reliable_bytes;
        dropped
    }

    /// Take every queued reliable frame, oldest first.
    pub(crate) fn take_reliable(&mut self) -> VecDeque<Bytes> {
        self.reliable_bytes = 0;
        let frames = std::mem::take(&mut self.reliable);
        if self.is_empty() {
            self.oldest = None;
        }
        frames
    }

    /// Empty the queue; returns how many frames were thrown away.
    pub(crate) fn clear(&mut self) -> usize {
        let n = self.control.len()
            + self.reliable.len()
            + self
                .best_effort
                .iter()
                .map(|l| l.frames.len())
                .sum::<usize>();
        self.control.clear();
        self.control_bytes = 0;
        self.reliable.clear();
        self.best_effort = Default::default();
        self.reliable_bytes = 0;
        self.oldest = None;
        n
    }
}

/// Move whole frames from the front of `frames` into `out` while the batch begun at `start`
/// stays within `limit` (its first frame goes whatever its size).
fn drain_fifo(
    frames: &mut VecDeque<Bytes>,
    bytes: &mut usize,
    out: &mut Vec<u8>,
    start: usize,
    limit: usize,
    mut keep: Option<&mut ResendBuffer>,
) {
    while let Some(frame) = frames.front() {
        if out.len() > start && out.len() - start + frame.len() > limit {
            break;
        }
        out.extend_from_slice(frame);
        *bytes -= frame.len();
        let frame = frames.pop_front().expect("front exists");
        if let Some(keep) = keep.as_deref_mut() {
            keep.push(frame);
        }
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
                dropped: false
            }
        );
        // A priority-1 frame evicts the older priority-1 frame: the newer update is kept.
        let shed = q.push_best_effort(t, frame(10, 5), 1, 30);
        assert_eq!(
            shed,
            Shed {
                evicted: 1,
                dropped: false
            }
        );
        // A priority-0 frame finds nothing of its priority or lower and is dropped itself.
        let shed = q.push_best_effort(t, frame(10, 6), 0, 30);
        assert_eq!(
            shed,
            Shed {
                evicted: 0,
                dropped: true
            }
        );
        // A frame that higher priorities leave no room for evicts nothing on its way out.
        let shed = q.push_best_effort(t, frame(20, 7), 1, 30);
        assert_eq!(
            shed,
            Shed {
                evicted: 0,
                dropped: true
            }
        );
        let order: Vec<u8> = std::iter::from_fn(|| q.pop_best_effort())
            .map(|f| f[0])
            .collect();
        assert_eq!(order, vec![4, 3, 5]);
        assert_eq!(q.best_effort_bytes(), 0);
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
