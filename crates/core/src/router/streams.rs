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

/// The receiving side: per id the application holds, per source, the stream number
/// expected next.
#[derive(Default)]
pub(super) struct Incoming {
    expected: FxHashMap<u32, FxHashMap<NodeId, u32>>,
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
        let mut lost = 0u64;
        let mut duplicate = false;
        for (id, number) in frame.ids().zip(frame.streams()) {
            if number == 0 || !interest.contains(id) {
                continue;
            }
            let streams = self.expected.entry(id).or_default();
            let Some(expected) = streams.get_mut(&source) else {
                if self.followed < MAX_FOLLOWED_STREAMS {
                    streams.insert(source, next_number(number));
                    self.followed += 1;
                } else {
                    self.unfollowed += 1;
                }
                continue;
            };
            // Serial-number arithmetic: streams wrap after 2^32 - 1 frames.
            let ahead = number.wrapping_sub(*expected) as i32;
            if ahead < 0 {
                duplicate = true;
                continue;
            }
            lost += ahead as u64;
            *expected = next_number(number);
        }
        match (duplicate, lost) {
            (true, _) => Verdict::Duplicate,
            (false, 0) => Verdict::Deliver,
            (false, lost) => Verdict::DeliverAfterLoss(lost),
        }
    }

    /// The application dropped interest in `ids`: their streams end here. If it subscribes
    /// again, they start afresh at the first frame it receives.
    pub(super) fn forget(&mut self, ids: &RoaringBitmap) {
        if ids.len() as usize > self.expected.len() {
            let followed = &mut self.followed;
            self.expected.retain(|id, streams| {
                let keep = !ids.contains(*id);
                if !keep {
                    *followed -= streams.len();
                }
                keep
            });
            return;
        }
        for id in ids {
            if let Some(streams) = self.expected.remove(&id) {
                self.followed -= streams.len();
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
    fn a_forgotten_id_starts_afresh() {
        let mut inc = Incoming::default();
        let all = interest(&[1]);
        let me = NodeId(99);
        assert_eq!(inc.check(&frame(7, &[1], &[1]), &all, me), Verdict::Deliver);
        inc.forget(&all);
        assert_eq!(inc.followed, 0);
        assert_eq!(
            inc.check(&frame(7, &[1], &[40]), &all, me),
            Verdict::Deliver
        );
        assert_eq!(
            inc.check(&frame(7, &[1], &[41]), &all, me),
            Verdict::Deliver
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
