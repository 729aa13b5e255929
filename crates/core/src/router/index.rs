//! The inverted interest index of one federation: interest id → the links that declared it.
//!
//! Many ids share the same set of links (a subscriber's region covers thousands of cells), so
//! link sets are interned and each set keeps the ids routed to it as a compressed bitmap.
//! Ids come in dense runs (cells, classes, instances), so a million ids on one link cost a few
//! hundred kilobytes at most, not a hash entry each (`tests/interest_memory.rs` holds the
//! router to 1 MiB for that). A lookup finds the id's chunk (its high 16 bits) and tests the
//! few sets with ids in that chunk: usually one. A chunk that more sets share (federates with
//! overlapping regions over one class's cells) keeps, in addition, the set of each of its ids
//! (256 KiB), so a lookup stays one probe however many sets there are; at most
//! [`MAX_MAPPED_CHUNKS`] chunks of an index keep one.
//!
//! Like NATS's sublist, the index counts itself ([`IndexStats`]: what it holds, lookups and
//! how many the last-lookup memo answered, updates) and is benchmarked on its own
//! (`cargo run --release -p trellis-core --example interest_index`).

use crate::interest::InterestId;
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;
use std::cell::Cell;

/// Index of a link in the router's link table.
pub type Slot = u32;

type SetNumber = u32;

/// Ids whose high 16 bits are equal: the unit a lookup starts from.
type ChunkKey = u32;

#[derive(Default)]
struct LinkSet {
    links: Box<[Slot]>,
    /// The ids routed to exactly these links. Never empty while the set is live.
    ids: RoaringBitmap,
}

/// What one interest index holds and has done ([`InterestIndex::stats`]); a router's is the
/// sum over its federations ([`crate::router::Router::interest_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexStats {
    /// Ids declared by at least one link.
    pub ids: u64,
    /// Distinct sets of links that ids route to (interned; one per sharing pattern).
    pub link_sets: u64,
    /// Chunks of 65,536 ids holding any, and those of them that keep a map of each id.
    pub chunks: u64,
    /// Of those chunks, the ones keeping a map of each id (the rest use one set for all).
    pub mapped_chunks: u64,
    /// Lookups of one id, and those answered by the memo of the previous lookup without
    /// touching the index (consecutive frames mostly carry the same ids).
    pub lookups: u64,
    /// Of those lookups, the ones answered by the memo.
    pub repeated_lookups: u64,
    /// Calls that added or removed a link's ids.
    pub updates: u64,
}

impl IndexStats {
    /// Add `other`'s counts to these (a router sums its federations' indexes).
    pub fn add(&mut self, other: &IndexStats) {
        self.ids += other.ids;
        self.link_sets += other.link_sets;
        self.chunks += other.chunks;
        self.mapped_chunks += other.mapped_chunks;
        self.lookups += other.lookups;
        self.repeated_lookups += other.repeated_lookups;
        self.updates += other.updates;
    }
}

/// For one federation: which links declared interest in each interest id, so forwarding finds a
/// frame's links without allocating.
#[derive(Default)]
pub struct InterestIndex {
    sets: Vec<LinkSet>,
    free: Vec<SetNumber>,
    interned: FxHashMap<Box<[Slot]>, SetNumber>,
    /// For each chunk holding indexed ids, the sets with ids in it.
    chunks: FxHashMap<ChunkKey, Chunk>,
    /// Chunks that keep the set of each id: at most `MAX_MAPPED_CHUNKS`.
    mapped_chunks: usize,
    /// The last id looked up and its set: consecutive frames mostly carry the same ids, and
    /// a repeated lookup then costs one comparison. Cleared by every update.
    last_lookup: Cell<Option<(InterestId, Option<SetNumber>)>>,
    /// Counted in `links(&self)`, hence cells.
    lookups: Cell<u64>,
    repeated_lookups: Cell<u64>,
    updates: u64,
}

/// The sets with ids in one chunk, and, while there are many, the set of each id.
#[derive(Default)]
struct Chunk {
    sets: Vec<SetNumber>,
    /// Set number + 1 (0: none) of each id of the chunk, by its low 16 bits: kept while more
    /// than `CROWDED_SETS / 2` sets share the chunk (made past `CROWDED_SETS`).
    by_low: Option<Box<[SetNumber]>>,
}

/// Past this many sets in a chunk, a lookup probes the chunk's own map instead of testing
/// each set's bitmap. Testing three or four bitmaps (a binary search each) was about 7 % of
/// all CPU in a 700,000-entity clutter run; with the map it is half that, and 900,000
/// entities recover from the start's discoveries in 2 s instead of 6.
const CROWDED_SETS: usize = 2;

/// Chunks of one index that may keep a map of their ids (16 MiB); past that, crowded chunks
/// test each set. One under test, so the property test exercises both ways.
const MAX_MAPPED_CHUNKS: usize = if cfg!(test) { 1 } else { 64 };

static NO_LINKS: [Slot; 0] = [];

fn chunk_of(id: InterestId) -> ChunkKey {
    id >> 16
}

/// The chunks `ids` has ids in, in order, one range query each.
fn chunks_of(ids: &RoaringBitmap) -> impl Iterator<Item = ChunkKey> + '_ {
    let mut next_start = Some(0u32);
    std::iter::from_fn(move || {
        let id = ids.range(next_start?..).next()?;
        let key = chunk_of(id);
        next_start = key.checked_add(1).and_then(|k| k.checked_mul(1 << 16));
        Some(key)
    })
}

fn chunk_range(key: ChunkKey) -> std::ops::RangeInclusive<u32> {
    (key << 16)..=((key << 16) | 0xffff)
}

/// The set of each id of chunk `key`, from the bitmaps of the `sets` there.
fn map_of_chunk(key: ChunkKey, sets: &[SetNumber], all: &[LinkSet]) -> Box<[SetNumber]> {
    let mut by_low = vec![0; 1 << 16].into_boxed_slice();
    for &set in sets {
        for id in all[set as usize].ids.range(chunk_range(key)) {
            by_low[(id & 0xffff) as usize] = set + 1;
        }
    }
    by_low
}

impl InterestIndex {
    /// The links that declared `id`, in slot order.
    pub fn links(&self, id: InterestId) -> &[Slot] {
        self.lookups.set(self.lookups.get() + 1);
        let set = match self.last_lookup.get() {
            Some((last, set)) if last == id => {
                self.repeated_lookups.set(self.repeated_lookups.get() + 1);
                set
            }
            _ => {
                let set = self.find(id);
                self.last_lookup.set(Some((id, set)));
                set
            }
        };
        set.map_or(&NO_LINKS[..], |set| &self.sets[set as usize].links)
    }

    fn find(&self, id: InterestId) -> Option<SetNumber> {
        let chunk = self.chunks.get(&chunk_of(id))?;
        if let Some(by_low) = &chunk.by_low {
            return by_low[(id & 0xffff) as usize].checked_sub(1);
        }
        chunk
            .sets
            .iter()
            .copied()
            .find(|&set| self.sets[set as usize].ids.contains(id))
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// What the index holds and has done. Counting the ids takes a pass over the sets'
    /// bitmaps (cheap: roaring keeps each container's size), so call it per report, not per
    /// frame.
    pub fn stats(&self) -> IndexStats {
        IndexStats {
            // Each id is in exactly one set; freed sets are empty.
            ids: self.sets.iter().map(|s| s.ids.len()).sum(),
            link_sets: self.interned.len() as u64,
            chunks: self.chunks.len() as u64,
            mapped_chunks: self.mapped_chunks as u64,
            lookups: self.lookups.get(),
            repeated_lookups: self.repeated_lookups.get(),
            updates: self.updates,
        }
    }

    /// Record that `link` declared every id in `ids`.
    pub fn add(&mut self, ids: &RoaringBitmap, link: Slot) {
        self.update(ids, |links| match links.binary_search(&link) {
            Ok(_) => None,
            Err(at) => {
                let mut next = links.to_vec();
                next.insert(at, link);
                Some(next)
            }
        });
    }

    /// Record that `link` withdrew every id in `ids`.
    pub fn remove(&mut self, ids: &RoaringBitmap, link: Slot) {
        self.update(ids, |links| match links.binary_search(&link) {
            Ok(at) => {
                let mut next = links.to_vec();
                next.remove(at);
                Some(next)
            }
            Err(_) => None,
        });
    }

    /// Move the ids of `ids` from each set they are in (or none) to the set `change` derives
    /// from it. The parts are cut before anything moves, and they are disjoint, so a set that
    /// receives ids in this update is never one whose part is still to move.
    fn update(&mut self, ids: &RoaringBitmap, change: impl Fn(&[Slot]) -> Option<Vec<Slot>>) {
        self.last_lookup.set(None);
        self.updates += 1;
        for (from, part) in self.parts(ids) {
            let links = from.map_or(&NO_LINKS[..], |set| &self.sets[set as usize].links);
            let Some(next) = change(links) else { continue };
            let to = self.intern(next);
            if let Some(from) = from {
                self.sets[from as usize].ids -= &part;
            }
            if let Some(to) = to {
                self.sets[to as usize].ids |= &part;
            }
            self.recount_chunks(&part, from, to);
        }
    }

    /// `ids` cut by the set each id is in now (`None`: in no set).
    fn parts(&self, ids: &RoaringBitmap) -> Vec<(Option<SetNumber>, RoaringBitmap)> {
        let mut candidates: Vec<SetNumber> = chunks_of(ids)
            .filter_map(|key| self.chunks.get(&key))
            .flat_map(|chunk| &chunk.sets)
            .copied()
            .collect();
        candidates.sort_unstable();
        candidates.dedup();
        let mut unindexed = ids.clone();
        let mut parts = Vec::new();
        for set in candidates {
            let part = &self.sets[set as usize].ids & ids;
            if !part.is_empty() {
                unindexed -= &part;
                parts.push((Some(set), part));
            }
        }
        if !unindexed.is_empty() {
            parts.push((None, unindexed));
        }
        parts
    }

    /// After `part` moved from `from` to `to`: keep each chunk's list of sets (and map of
    /// ids, where it has one) exact, and free `from` once it holds nothing.
    fn recount_chunks(
        &mut self,
        part: &RoaringBitmap,
        from: Option<SetNumber>,
        to: Option<SetNumber>,
    ) {
        for key in chunks_of(part) {
            let chunk = self.chunks.entry(key).or_default();
            if let Some(from) = from {
                if self.sets[from as usize]
                    .ids
                    .range_cardinality(chunk_range(key))
                    == 0
                {
                    chunk.sets.retain(|&s| s != from);
                }
            }
            if let Some(to) = to {
                if !chunk.sets.contains(&to) {
                    chunk.sets.push(to);
                }
            }
            if chunk.sets.len() <= CROWDED_SETS / 2 && chunk.by_low.take().is_some() {
                self.mapped_chunks -= 1;
            }
            match &mut chunk.by_low {
                Some(by_low) => {
                    for id in part.range(chunk_range(key)) {
                        by_low[(id & 0xffff) as usize] = to.map_or(0, |t| t + 1);
                    }
                }
                None if chunk.sets.len() > CROWDED_SETS
                    && self.mapped_chunks < MAX_MAPPED_CHUNKS =>
                {
                    chunk.by_low = Some(map_of_chunk(key, &chunk.sets, &self.sets));
                    self.mapped_chunks += 1;
                }
                None => {}
            }
            debug_assert!(self.mapped_chunks <= MAX_MAPPED_CHUNKS);
            if chunk.sets.is_empty() {
                self.chunks.remove(&key);
            }
        }
        if let Some(from) = from {
            if self.sets[from as usize].ids.is_empty() {
                self.free_set(from);
            }
        }
    }

    /// The number of the set holding exactly `links`, creating it (with no ids) if new.
    /// Returns `None` for the empty set.
    fn intern(&mut self, links: Vec<Slot>) -> Option<SetNumber> {
        if links.is_empty() {
            return None;
        }
        if let Some(&set) = self.interned.get(links.as_slice()) {
            return Some(set);
        }
        let links: Box<[Slot]> = links.into_boxed_slice();
        let entry = LinkSet {
            links: links.clone(),
            ids: RoaringBitmap::new(),
        };
        let set = match self.free.pop() {
            Some(set) => {
                self.sets[set as usize] = entry;
                set
            }
            None => {
                self.sets.push(entry);
                (self.sets.len() - 1) as SetNumber
            }
        };
        self.interned.insert(links, set);
        Some(set)
    }

    fn free_set(&mut self, set: SetNumber) {
        let entry = std::mem::take(&mut self.sets[set as usize]);
        debug_assert!(
            entry.ids.is_empty(),
            "a set is freed only once it holds no ids"
        );
        self.interned.remove(&entry.links);
        self.free.push(set);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(ids: impl IntoIterator<Item = u32>) -> RoaringBitmap {
        ids.into_iter().collect()
    }

    #[test]
    fn ids_map_to_the_links_that_declared_them() {
        let mut index = InterestIndex::default();
        index.add(&set(0..100), 3);
        index.add(&set(50..150), 1);
        assert_eq!(index.links(10), &[3]);
        assert_eq!(index.links(60), &[1, 3]);
        assert_eq!(index.links(120), &[1]);
        assert_eq!(index.links(200), &[] as &[u32]);
        assert_eq!(index.stats().link_sets, 3);

        index.remove(&set(0..100), 3);
        assert_eq!(index.links(10), &[] as &[u32]);
        assert_eq!(index.links(60), &[1]);
        assert_eq!(index.stats().link_sets, 1);

        index.remove(&set(50..150), 1);
        assert!(index.is_empty());
        assert_eq!(index.stats().link_sets, 0);
    }

    #[test]
    fn the_index_counts_what_it_holds_and_its_lookups() {
        let mut index = InterestIndex::default();
        index.add(&set(0..100), 3);
        index.add(&set((1 << 16)..(1 << 16) + 10), 1);
        index.links(5);
        index.links(5);
        index.links(6);
        index.links(5);
        let stats = index.stats();
        assert_eq!(
            (
                stats.ids,
                stats.link_sets,
                stats.chunks,
                stats.mapped_chunks
            ),
            (110, 2, 2, 0)
        );
        assert_eq!((stats.lookups, stats.repeated_lookups), (4, 1));
        assert_eq!(stats.updates, 2);
        // An update forgets the memo: the same id again is not a repeat.
        index.remove(&set(0..50), 3);
        index.links(5);
        let stats = index.stats();
        assert_eq!(
            (stats.ids, stats.lookups, stats.repeated_lookups),
            (60, 5, 1)
        );
        let mut sum = stats;
        sum.add(&stats);
        assert_eq!((sum.ids, sum.lookups, sum.updates), (120, 10, 6));
    }

    #[test]
    fn adding_twice_and_removing_absent_ids_change_nothing() {
        let mut index = InterestIndex::default();
        index.add(&set([7]), 2);
        index.add(&set([7]), 2);
        index.remove(&set([8]), 2);
        index.remove(&set([7]), 5);
        assert_eq!(index.links(7), &[2]);
        assert_eq!(index.stats().link_sets, 1);
    }

    #[test]
    fn a_crowded_chunk_maps_each_id_and_lets_the_map_go_when_it_thins_out() {
        let mut index = InterestIndex::default();
        // Staggered ranges in one chunk: every link adds a set.
        for link in 0..5u32 {
            index.add(&set(link * 10..link * 10 + 25), link);
        }
        assert!(index.chunks[&0].sets.len() > CROWDED_SETS);
        assert!(index.chunks[&0].by_low.is_some());
        assert_eq!(index.links(22), &[0, 1, 2]);
        assert_eq!(index.links(45), &[3, 4]);
        assert_eq!(index.links(70), &[] as &[u32]);
        for link in 1..5u32 {
            index.remove(&set(link * 10..link * 10 + 25), link);
        }
        assert!(index.chunks[&0].by_low.is_none());
        assert_eq!(index.mapped_chunks, 0);
        assert_eq!(index.links(22), &[0]);
        assert_eq!(index.links(30), &[] as &[u32]);
    }

    #[test]
    fn crowded_chunks_past_the_bound_keep_no_map_and_still_answer() {
        let mut index = InterestIndex::default();
        // Chunks 0 and 1, each crowded by the same staggered ranges.
        for chunk in 0..2u32 {
            for link in 0..5u32 {
                let start = (chunk << 16) + link * 10;
                index.add(&set(start..start + 25), link);
            }
        }
        assert_eq!(index.mapped_chunks, MAX_MAPPED_CHUNKS);
        assert!(
            index.chunks[&0].by_low.is_some(),
            "the first crowded chunk has a map"
        );
        assert!(index.chunks[&1].by_low.is_none(), "past the bound, none");
        assert_eq!(index.links((1 << 16) + 22), &[0, 1, 2]);
        assert_eq!(index.links((1 << 16) + 45), &[3, 4]);
        for link in 1..5u32 {
            index.remove(&set(link * 10..link * 10 + 25), link);
        }
        assert_eq!(index.mapped_chunks, 0, "the map let go counts");
    }

    /// Ids drawn from three chunks, so moves cross chunk boundaries and sets share chunks.
    fn id_strategy() -> impl proptest::strategy::Strategy<Value = u32> {
        use proptest::prelude::*;
        prop_oneof![0u32..40, 65_530u32..65_550, (7u32 << 16)..((7 << 16) + 20)]
    }

    proptest::proptest! {
        #[test]
        fn lookups_match_a_plain_map_after_any_adds_and_removes(
            ops in proptest::collection::vec(
                (proptest::bool::ANY, 0u32..6, proptest::collection::vec(id_strategy(), 1..30)),
                1..40,
            )
        ) {
            let mut index = InterestIndex::default();
            let mut model: std::collections::BTreeMap<u32, std::collections::BTreeSet<u32>> =
                Default::default();
            for (adding, link, ids) in &ops {
                let bitmap: RoaringBitmap = ids.iter().copied().collect();
                if *adding {
                    index.add(&bitmap, *link);
                    for &id in ids {
                        model.entry(id).or_default().insert(*link);
                    }
                } else {
                    index.remove(&bitmap, *link);
                    for &id in ids {
                        if let Some(links) = model.get_mut(&id) {
                            links.remove(link);
                        }
                    }
                }
                for (&id, links) in &model {
                    let expected: Vec<u32> = links.iter().copied().collect();
                    proptest::prop_assert_eq!(index.links(id), expected.as_slice(), "id {}", id);
                }
            }
            model.retain(|_, links| !links.is_empty());
            let distinct: std::collections::BTreeSet<_> = model.values().collect();
            let stats = index.stats();
            proptest::prop_assert_eq!(stats.link_sets, distinct.len() as u64);
            proptest::prop_assert_eq!(stats.ids, model.len() as u64);
            proptest::prop_assert_eq!(stats.updates, ops.len() as u64);
            proptest::prop_assert_eq!(index.is_empty(), model.is_empty());
        }
    }
}
