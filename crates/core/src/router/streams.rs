//! Reliable streams, end to end: a federate's reliable frames are numbered per interest id
//! as they are published (`Outgoing`), and checked per (source, id) as they are delivered to
//! the application (`Incoming`).
//!
//! Links are reliable hop by hop, but a router that crashes loses what it held, a link that
//! fails loses what was queued on it, and interest re-declared after a restart takes a
//! moment to reach the publishers. None of that may pass in silence. A receiver interested
//! in an id gets every frame that carries it from every source (the union rule), so within
//! one stream a jump is a loss and a step back a duplicate. Losses are reported to the
//! application naming the source and the count (as the JADS tests counted MISSING by
//! serial); duplicates are dropped.
//!
//! What this cannot see: a loss is found when the next frame of the same stream arrives
//! (messages lost at the end of a stream are reported only if it goes on); a stream starts
//! at the first frame received after the id was subscribed (frames sent before the
//! subscription reached the publisher were never owed); and a lost frame that carried
//! several of the receiver's ids counts once for each.

use crate::wire::{DataFrame, NodeId, TransportClass};
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;

/// Streams a receiver follows at most (source × id pairs). Past it, new streams go
/// unchecked and are counted, rather than memory growing with every source ever heard.
pub const MAX_FOLLOWED_STREAMS: usize = 1 << 20;

/// The publishing side: the next number of each id's stream.
#[derive(Default)]
pub(super) struct Outgoing {
    next: FxHashMap<u32, u32>,
}

impl Outgoing {
    /// This frame's number in the stream of `id` (streams start at 1; 0 means unnumbered).
    pub(super) fn next(&mut self, id: u32) -> u32 {
        let next = self.next.entry(id).or_insert(1);
        let this = *next;
        *next = next.wrapping_add(1).max(1);
        this
    }
}

/// What the delivery check found for one frame.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    Deliver,
    /// Deliver, after telling the application that this many messages of the source
    /// were lost before it.
    DeliverAfterLoss(u64),
    /// Already delivered: drop it.
    Duplicate,
}

/// One followed stream: the number expected next, and whether the application dropped the
/// id since (then the next frame at or past `expected` starts the stream again without a
/// loss: nothing was owed meanwhile; one before it is still a duplicate).
#[derive(Copy, Clone, Debug)]
struct Stream {
    expected: u32,
    resync: bool,
}

impl Stream {
    /// Whether the stream has passed `number` (serial-number arithmetic: streams wrap).
    fn is_ahead_of(&self, number: u32) -> bool {
        (number.wrapping_sub(self.expected) as i32) < 0
    }
}

/// The receiving side: per id the application holds, per source, the stream number
/// expected next.
#[derive(Default)]
pub(super) struct Incoming {
    expected: FxHashMap<u32, FxHashMap<NodeId, Stream>>,
    followed: usize,
    /// Streams not followed because `MAX_FOLLOWED_STREAMS` was reached.
    pub(super) unfollowed: u64,
}

impl Incoming {
    /// Check a frame about to be delivered to an application interested in `interest`.
    pub(super) fn check(
        &mut self,
        frame: &DataFrame,
        interest: &RoaringBitmap,
        me: NodeId,
    ) -> Verdict {
        let source = frame.source();
        if frame.class() != TransportClass::Reliable || source == me {
            return Verdict::Deliver;
        }
        // A frame dropped as a duplicate (or as too late) must not start or move a stream.
        // With one stream (most frames carry one id) that is checked as it moves, in one
        // look-up; with more, every stream is checked before any moves.
        let held = frame
            .ids()
            .zip(frame.streams())
            .filter(|&(id, number)| number != 0 && interest.contains(id));
        if frame.id_count() > 1 && held.clone().any(|(id, n)| self.is_behind(source, id, n)) {
            return Verdict::Duplicate;
        }
        let mut lost = 0u64;
        for (id, number) in held {
            match self.advance(source, id, number) {
                Some(count) => lost += count,
                None => return Verdict::Duplicate,
            }
        }
        match lost {
            0 => Verdict::Deliver,
            lost => Verdict::DeliverAfterLoss(lost),
        }
    }

    /// Whether `number` is behind `source`'s stream of `id`: a frame delivered already.
    fn is_behind(&self, source: NodeId, id: u32, number: u32) -> bool {
        self.expected
            .get(&id)
            .and_then(|streams| streams.get(&source))
            .is_some_and(|stream| stream.is_ahead_of(number))
    }

    /// Move `source`'s stream of `id` past `number`, starting it if it is new; the frames
    /// found lost before it. `None`, moving nothing, when `number` is behind the stream.
    fn advance(&mut self, source: NodeId, id: u32, number: u32) -> Option<u64> {
        let streams = self.expected.entry(id).or_default();
        let next = Stream {
            expected: next_number(number),
            resync: false,
        };
        match streams.get_mut(&source) {
            Some(stream) if stream.is_ahead_of(number) => return None,
            // Serial-number arithmetic: streams wrap after 2^32 - 1 frames.
            Some(stream) => {
                let lost = if stream.resync {
                    0
                } else {
                    u64::from(number.wrapping_sub(stream.expected))
                };
                *stream = next;
                return Some(lost);
            }
            None if self.followed < MAX_FOLLOWED_STREAMS => {
                streams.insert(source, next);
                self.followed += 1;
            }
            None => self.unfollowed += 1,
        }
        Some(0)
    }

    /// The application dropped interest in `ids`: their streams pause. If it subscribes
    /// again, each starts afresh at the first frame it receives past where it stopped, and
    /// a frame from before is still a duplicate (a copy may come the long way round, after
    /// a failover, long after the first).
    pub(super) fn forget(&mut self, ids: &RoaringBitmap) {
        let pause = |streams: &mut FxHashMap<NodeId, Stream>| {
            for stream in streams.values_mut() {
                stream.resync = true;
            }
        };
        if ids.len() as usize > self.expected.len() {
            for (_, streams) in self
                .expected
                .iter_mut()
                .filter(|(id, _)| ids.contains(**id))
            {
                pause(streams);
            }
            return;
        }
        for id in ids {
            if let Some(streams) = self.expected.get_mut(&id) {
                pause(streams);
            }
        }
    }
}

/// The number after `number`, skipping 0 (which means unnumbered).
fn next_number(number: u32) -> u32 {
    number.wrapping_add(1).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{DataHeader, FederationId};
    use bytes::BytesMut;

    fn frame(source: u64, ids: &[u32], numbers: &[u32]) -> DataFrame {
        let header = DataHeader {
            federation: FederationId::of("f"),
            source: NodeId(source),
            seq: 0,
            priority: 4,
            class: TransportClass::Reliable,
        };
        let mut out = BytesMut::new();
        DataFrame::encode(&mut out, &header, ids, b"x");
        let mut numbers = numbers.iter();
        DataFrame::stamp_streams(&mut out, |_| *numbers.next().unwrap());
        DataFrame::from_validated(out.freeze())
    }

    fn interest(ids: &[u32]) -> RoaringBitmap {
        ids.iter().copied().collect()
    }

    #[test]
    fn outgoing_streams_count_per_id_from_one() {
        let mut out = Outgoing::default();
        assert_eq!(
            [out.next(5), out.next(5), out.next(9), out.next(5)],
            [1, 2, 1, 3]
        );
    }

    #[test]
    fn a_jump_is_a_loss_a_step_back_a_duplicate() {
        let mut inc = Incoming::default();
        let all = interest(&[1, 2]);
        let me = NodeId(99);
        assert_eq!(inc.check(&frame(7, &[1], &[4]), &all, me), Verdict::Deliver);
        assert_eq!(inc.check(&frame(7, &[1], &[5]), &all, me), Verdict::Deliver);
        assert_eq!(
            inc.check(&frame(7, &[1], &[9]), &all, me),
            Verdict::DeliverAfterLoss(3)
        );
        assert_eq!(
            inc.check(&frame(7, &[1], &[9]), &all, me),
            Verdict::Duplicate
        );
        // Another source's stream on the same id is its own.
        assert_eq!(
            inc.check(&frame(8, &[1], &[100]), &all, me),
            Verdict::Deliver
        );
        // Ids the application does not hold are not checked.
        assert_eq!(
            inc.check(&frame(7, &[3], &[50]), &all, me),
            Verdict::Deliver
        );
        assert_eq!(inc.check(&frame(7, &[3], &[1]), &all, me), Verdict::Deliver);
    }

    #[test]
    fn a_frame_with_several_held_ids_counts_each_streams_gap() {
        let mut inc = Incoming::default();
        let all = interest(&[1, 2]);
        let me = NodeId(99);
        assert_eq!(
            inc.check(&frame(7, &[1, 2], &[1, 1]), &all, me),
            Verdict::Deliver
        );
        assert_eq!(
            inc.check(&frame(7, &[1, 2], &[3, 4]), &all, me),
            Verdict::DeliverAfterLoss(3)
        );
    }

    #[test]
    fn a_duplicate_moves_no_stream() {
        let mut inc = Incoming::default();
        let me = NodeId(99);
        assert_eq!(
            inc.check(&frame(7, &[1], &[5]), &interest(&[1]), me),
            Verdict::Deliver
        );
        // A late copy of frame 4 also carrying id 2: dropped, and id 2 is not followed.
        assert_eq!(
            inc.check(&frame(7, &[1, 2], &[4, 9]), &interest(&[1, 2]), me),
            Verdict::Duplicate
        );
        assert_eq!(
            inc.check(&frame(7, &[2], &[20]), &interest(&[1, 2]), me),
            Verdict::Deliver
        );
    }

    #[test]
    fn a_forgotten_id_starts_afresh_but_still_drops_what_came_before() {
        let mut inc = Incoming::default();
        let all = interest(&[1]);
        let me = NodeId(99);
        assert_eq!(inc.check(&frame(7, &[1], &[5]), &all, me), Verdict::Deliver);
        inc.forget(&all);
        assert_eq!(
            inc.check(&frame(7, &[1], &[40]), &all, me),
            Verdict::Deliver
        );
        assert_eq!(
            inc.check(&frame(7, &[1], &[41]), &all, me),
            Verdict::Deliver
        );
        inc.forget(&all);
        assert_eq!(
            inc.check(&frame(7, &[1], &[5]), &all, me),
            Verdict::Duplicate
        );
    }

    #[test]
    fn streams_wrap_without_a_false_loss() {
        let mut inc = Incoming::default();
        let all = interest(&[1]);
        let me = NodeId(99);
        assert_eq!(
            inc.check(&frame(7, &[1], &[u32::MAX]), &all, me),
            Verdict::Deliver
        );
        assert_eq!(inc.check(&frame(7, &[1], &[1]), &all, me), Verdict::Deliver);
    }

    #[test]
    fn best_effort_and_own_frames_are_not_checked() {
        let mut inc = Incoming::default();
        let all = interest(&[1]);
        assert_eq!(
            inc.check(&frame(99, &[1], &[1]), &all, NodeId(99)),
            Verdict::Deliver
        );
        assert_eq!(
            inc.check(&frame(99, &[1], &[7]), &all, NodeId(99)),
            Verdict::Deliver
        );
        assert_eq!(inc.followed, 0);
    }
}
