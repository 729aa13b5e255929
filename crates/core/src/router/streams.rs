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
use std::collections::hash_map::Entry;

/// Streams a receiver follows at most (source × id pairs). Past it, new streams go
/// unchecked and are counted, rather than memory growing with every source ever heard.
pub const MAX_FOLLOWED_STREAMS: usize = 1 << 20;

/// Sources whose best-effort frames a receiver checks for copies at most (each window is
/// 136 bytes: 2.2 MB in all). Past it, frames of new sources go unchecked and are counted.
pub const MAX_BEST_EFFORT_SOURCES: usize = 1 << 14;

/// A source's best-effort frames behind its newest one that are still delivered (once):
/// its frame numbers count its reliable frames too, so the window is wide.
type BestEffortWindow = super::replay::ReplayWindow<16>;

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

/// The receiving side: per (id the application holds, source), the stream number expected
/// next.
///
/// One flat map, so checking a frame costs one hash look-up of a small entry per id (a
/// map per id, then one per source, cost two dependent look-ups, each a cache miss at
/// hundreds of thousands of streams). `sources` finds an id's streams when the application
/// drops it; it changes only when a stream starts.
#[derive(Default)]
pub(super) struct Incoming {
    streams: FxHashMap<StreamKey, Stream>,
    sources: FxHashMap<u32, Sources>,
    /// Streams not followed because `MAX_FOLLOWED_STREAMS` was reached, and best-effort
    /// frames not checked because `MAX_BEST_EFFORT_SOURCES` was.
    pub(super) unfollowed: u64,
    /// Per source, which of its newest best-effort frames were delivered (see
    /// `router::replay`).
    best_effort: FxHashMap<NodeId, BestEffortWindow>,
}

/// A stream: (interest id, source).
type StreamKey = (u32, NodeId);

/// The sources of one id's followed streams: mostly one (an id is an object instance or a
/// cell that one federate publishes).
enum Sources {
    One(NodeId),
    Many(Vec<NodeId>),
}

impl Sources {
    fn push(&mut self, source: NodeId) {
        match self {
            Sources::One(first) => *self = Sources::Many(vec![*first, source]),
            Sources::Many(all) => all.push(source),
        }
    }

    fn as_slice(&self) -> &[NodeId] {
        match self {
            Sources::One(one) => std::slice::from_ref(one),
            Sources::Many(all) => all,
        }
    }
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
        if source == me {
            return Verdict::Deliver;
        }
        if frame.class() != TransportClass::Reliable {
            return self.check_best_effort(source, frame.seq());
        }
        // A frame dropped as a duplicate (or as too late) must not start or move a stream.
        // With one stream (most frames carry one id) that is checked as it moves, in one
        // look-up; with more, every stream is checked before any moves. Only streams of ids
        // the application holds count (see `Incoming::holds`).
        let numbered = frame
            .ids()
            .zip(frame.streams())
            .filter(|&(_, number)| number != 0);
        if frame.id_count() > 1
            && numbered
                .clone()
                .any(|(id, n)| self.is_behind(source, id, n, interest))
        {
            return Verdict::Duplicate;
        }
        let mut lost = 0u64;
        for (id, number) in numbered {
            match self.advance(source, id, number, interest) {
                Some(count) => lost += count,
                None => return Verdict::Duplicate,
            }
        }
        match lost {
            0 => Verdict::Deliver,
            lost => Verdict::DeliverAfterLoss(lost),
        }
    }

    /// A best-effort frame is delivered once: a copy of one delivered already (it came by a
    /// second path) or one older than its source's window is dropped. Unnumbered frames
    /// (0) pass.
    fn check_best_effort(&mut self, source: NodeId, seq: u64) -> Verdict {
        let full = self.best_effort.len() >= MAX_BEST_EFFORT_SOURCES;
        let window = match self.best_effort.entry(source) {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(_) if full || seq == 0 => {
                self.unfollowed += u64::from(seq != 0);
                return Verdict::Deliver;
            }
            Entry::Vacant(entry) => entry.insert(BestEffortWindow::default()),
        };
        match seq == 0 || window.accept(seq) {
            true => Verdict::Deliver,
            false => Verdict::Duplicate,
        }
    }

    /// Streams followed now.
    #[cfg(test)]
    fn followed(&self) -> usize {
        self.streams.len()
    }

    /// Whether the application holds `id`, of which `stream` (if any) is a stream. A
    /// running stream answers without a look at the interest, which was a binary search
    /// per frame (a third of a clutter receiver's node thread): a stream runs only from a
    /// frame of an id held, and dropping the id pauses it (`Incoming::forget`).
    fn holds(stream: Option<&Stream>, id: u32, interest: &RoaringBitmap) -> bool {
        match stream {
            Some(stream) if !stream.resync => {
                debug_assert!(interest.contains(id), "a running stream's id is held");
                true
            }
            _ => interest.contains(id),
        }
    }

    /// Whether `number` is behind `source`'s stream of `id`, an id held: a frame delivered
    /// already.
    fn is_behind(&self, source: NodeId, id: u32, number: u32, interest: &RoaringBitmap) -> bool {
        self.streams.get(&(id, source)).is_some_and(|stream| {
            stream.is_ahead_of(number) && Incoming::holds(Some(stream), id, interest)
        })
    }

    /// Move `source`'s stream of `id` past `number`, starting it if it is new; the frames
    /// found lost before it. `None`, moving nothing, when `number` is behind the stream.
    /// An id the application does not hold moves nothing.
    fn advance(
        &mut self,
        source: NodeId,
        id: u32,
        number: u32,
        interest: &RoaringBitmap,
    ) -> Option<u64> {
        let next = Stream {
            expected: next_number(number),
            resync: false,
        };
        let full = self.streams.len() >= MAX_FOLLOWED_STREAMS;
        match self.streams.entry((id, source)) {
            Entry::Occupied(entry) if !Incoming::holds(Some(entry.get()), id, interest) => Some(0),
            Entry::Vacant(_) if !Incoming::holds(None, id, interest) => Some(0),
            Entry::Occupied(entry) => {
                let stream = entry.into_mut();
                if stream.is_ahead_of(number) {
                    return None;
                }
                // Serial-number arithmetic: streams wrap after 2^32 - 1 frames.
                let lost = if stream.resync {
                    0
                } else {
                    u64::from(number.wrapping_sub(stream.expected))
                };
                *stream = next;
                Some(lost)
            }
            Entry::Vacant(_) if full => {
                self.unfollowed += 1;
                Some(0)
            }
            Entry::Vacant(entry) => {
                entry.insert(next);
                match self.sources.entry(id) {
                    Entry::Occupied(mut sources) => sources.get_mut().push(source),
                    Entry::Vacant(sources) => {
                        sources.insert(Sources::One(source));
                    }
                }
                Some(0)
            }
        }
    }

    /// The application dropped interest in `ids`: their streams pause. If it subscribes
    /// again, each starts afresh at the first frame it receives past where it stopped, and
    /// a frame from before is still a duplicate (a copy may come the long way round, after
    /// a failover, long after the first).
    pub(super) fn forget(&mut self, ids: &RoaringBitmap) {
        let streams = &mut self.streams;
        let mut pause = |id: u32, sources: &Sources| {
            for &source in sources.as_slice() {
                if let Some(stream) = streams.get_mut(&(id, source)) {
                    stream.resync = true;
                }
            }
        };
        if ids.len() as usize > self.sources.len() {
            for (&id, sources) in self.sources.iter().filter(|(id, _)| ids.contains(**id)) {
                pause(id, sources);
            }
            return;
        }
        for id in ids {
            if let Some(sources) = self.sources.get(&id) {
                pause(id, sources);
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

    fn best_effort(source: u64, seq: u64) -> DataFrame {
        let header = DataHeader {
            federation: FederationId::of("f"),
            source: NodeId(source),
            seq,
            priority: 4,
            class: TransportClass::BestEffort,
        };
        let mut out = BytesMut::new();
        DataFrame::encode(&mut out, &header, &[1], b"x");
        DataFrame::from_validated(out.freeze())
    }

    /// Seed 274 of the fault simulation: a best-effort frame held 3 s on a partitioned link
    /// reached its receiver a second time through the parent it had failed over to.
    #[test]
    fn a_best_effort_frame_is_delivered_once_per_source_however_many_paths_bring_it() {
        let mut inc = Incoming::default();
        let (all, me) = (interest(&[1]), NodeId(99));
        for seq in [12, 14, 13] {
            assert_eq!(inc.check(&best_effort(7, seq), &all, me), Verdict::Deliver);
        }
        assert_eq!(
            inc.check(&best_effort(8, 12), &all, me),
            Verdict::Deliver,
            "another source"
        );
        assert_eq!(
            inc.check(&best_effort(7, 12), &all, me),
            Verdict::Duplicate,
            "a second copy"
        );
        let far = 14 + BestEffortWindow::SPAN;
        assert_eq!(inc.check(&best_effort(7, far), &all, me), Verdict::Deliver);
        assert_eq!(
            inc.check(&best_effort(7, 11), &all, me),
            Verdict::Duplicate,
            "older than the window: it cannot be told from a copy"
        );
        assert_eq!(
            inc.check(&best_effort(9, 0), &all, me),
            Verdict::Deliver,
            "unnumbered"
        );
        assert_eq!(inc.check(&best_effort(9, 0), &all, me), Verdict::Deliver);
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
        assert_eq!(inc.followed(), 0);
    }

    /// The rule stated plainly, per (id, source): every held stream is checked before any
    /// moves; a jump counts the gap unless the stream was paused; `forget` pauses.
    #[derive(Default)]
    struct Model {
        streams: std::collections::BTreeMap<(u32, u64), (u32, bool)>,
    }

    impl Model {
        fn check(&mut self, source: u64, held: &[(u32, u32)]) -> Verdict {
            let behind =
                |(expected, _): &(u32, bool), n: u32| (n.wrapping_sub(*expected) as i32) < 0;
            let stream_of = |id| self.streams.get(&(id, source));
            if held
                .iter()
                .any(|&(id, n)| stream_of(id).is_some_and(|s| behind(s, n)))
            {
                return Verdict::Duplicate;
            }
            // (A frame carrying an id twice finds, the second time, the first one's move.)
            let mut lost = 0u64;
            for &(id, n) in held {
                let next = (next_number(n), false);
                match self.streams.get_mut(&(id, source)) {
                    Some(s) if behind(s, n) => return Verdict::Duplicate,
                    Some(s) => {
                        if !s.1 {
                            lost += u64::from(n.wrapping_sub(s.0));
                        }
                        *s = next;
                    }
                    None => {
                        self.streams.insert((id, source), next);
                    }
                }
            }
            match lost {
                0 => Verdict::Deliver,
                lost => Verdict::DeliverAfterLoss(lost),
            }
        }

        fn forget(&mut self, ids: &RoaringBitmap) {
            for ((id, _), stream) in self.streams.iter_mut() {
                if ids.contains(*id) {
                    stream.1 = true;
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn checks_match_the_plain_rule_per_id_and_source(
            ops in proptest::collection::vec(
                (
                    0u8..8,
                    0u64..3,
                    proptest::collection::vec(
                        (0u32..4, proptest::prop_oneof![1u32..12, (u32::MAX - 3)..=u32::MAX, 0u32..1]),
                        1..4,
                    ),
                    proptest::collection::vec(0u32..4, 0..4),
                ),
                1..80,
            )
        ) {
            let mut inc = Incoming::default();
            let mut model = Model::default();
            let me = NodeId(99);
            let mut held_ids = interest(&[0, 1, 2]);
            for (op, source, carried, other) in ops {
                match op {
                    0 => {
                        let ids = interest(&other);
                        inc.forget(&ids);
                        model.forget(&ids);
                    }
                    1 => {
                        let removed = &held_ids - &interest(&other);
                        inc.forget(&removed);
                        model.forget(&removed);
                        held_ids = interest(&other);
                    }
                    _ => {
                        let ids: Vec<u32> = carried.iter().map(|c| c.0).collect();
                        let numbers: Vec<u32> = carried.iter().map(|c| c.1).collect();
                        let held: Vec<(u32, u32)> = carried
                            .iter()
                            .copied()
                            .filter(|&(id, n)| n != 0 && held_ids.contains(id))
                            .collect();
                        let got = inc.check(&frame(source, &ids, &numbers), &held_ids, me);
                        proptest::prop_assert_eq!(got, model.check(source, &held));
                    }
                }
            }
            proptest::prop_assert_eq!(inc.followed(), model.streams.len());
        }
    }
}
