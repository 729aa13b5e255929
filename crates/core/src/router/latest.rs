//! Latest-value caching (TENA's publication state caching, DDS's KEEP_LAST with
//! TRANSIENT_LOCAL durability): a federate that subscribes late gets, at once, the newest
//! state of every keyed instance in its interest, without the owners being asked.
//!
//! **Where the cache lives: in every router, keyed by the data header only.** A keep-latest
//! data frame carries a `wire::LatestKey` (the instance, and a mask of the attributes it
//! carries) beside its source and sequence number, so a router keeps, per (federation,
//! source, key), the newest frame of each mask it routed, and never reads a payload. Every
//! router on the way holds what passed it, so the copy a late joiner needs is one hop away:
//!
//! - When a link declares interest it did not have (an interest frame from a neighbour, or
//!   the local application subscribing), the router queues toward that link, at once, every
//!   cached frame that carries one of the newly added ids and none it held before (it had
//!   that one), unless the frame came from the link's own block (split horizon: the far
//!   side saw it first). The replay is queued in the same call that adds the link to the
//!   interest index, so every frame routed afterwards, the next update of the same
//!   instance included, is queued behind it: the late joiner gets each instance's latest
//!   values before any newer update.
//! - A router whose own interest grows because of the new link declares that upstream;
//!   the routers there replay their caches toward it, and it routes those frames on (and
//!   caches them). Copies that arrive twice (one from each cache on the way) are harmless:
//!   queues discard a frame not newer than one they hold for the same source, key and
//!   mask, the node drops a keyed frame not newer than the one it delivered for the same
//!   source, key and mask (`Delivered`), and the federate library drops a value older than
//!   the one it reflected per instance and attribute. Sequence numbers are per source, so
//!   "newer" never compares two clocks.
//! - The publisher's own node caches what it publishes, so state that no subscriber wanted
//!   yet is still there for the first one: its interest reaches that node and the node's
//!   router (not its application) replays it.
//! - Discovery comes with the values: an update message names its instance's class and
//!   name, and the federate library discovers an instance on its first reflected update,
//!   so the late joiner sees `discoverObjectInstance` then `reflectAttributeValues` for
//!   each instance, in that order. A deleted instance is sent as a keyed removal (mask 0),
//!   which empties its entry here, so a late joiner never discovers an instance that is
//!   gone; the federate library also ignores keyed values whose sender is no longer a
//!   member (a federate that died while its values sat in a cache).
//!
//! **What an entry holds.** Per (federation, source, key) up to `MAX_MASKS` frames, one per
//! mask; a new frame removes the entries whose mask its own covers (every attribute they
//! carry is carried, newer, by it), so a publisher that always updates the same attribute
//! set costs one frame per instance. A frame not newer than the entry of its mask is a copy
//! and changes nothing.
//!
//! **Bounds.** `RouterConfig::latest_cache_bytes` across federations, each frame counted
//! with `ENTRY_OVERHEAD_BYTES` for its bookkeeping. Past it the least recently updated
//! instances go first (counted in `LatestStats::evicted`): a value still changing is worth
//! more than one that stopped. The recency log holds one record per update and is compacted
//! when it holds twice as many records as there are instances, so it stays within a
//! constant of the cache. A replay costs one pass over the cached instances of the
//! federation, on an interest change only, never on the forwarding path; on the
//! forwarding path a keep-latest frame costs one hash lookup and at most `MAX_MASKS` mask
//! comparisons, and any other frame one flag test.
//!
//! **Reliable streams.** Keep-latest frames carry no stream numbers (`wire::data`), so
//! neither a replaced frame nor a replayed copy is a gap or a step back in a stream: the
//! reliable-loss reports cover every other reliable frame as before. What a keep-latest
//! frame lost in a crash costs is healed, not reported: the restarted router declares its
//! interest again, and its neighbours replay the latest state to it.

use super::index::Slot;
use super::link::FedIndex;
use super::{LinkId, Router};
use crate::time::Time;
use crate::wire::{DataFrame, FederationId, LatestKey, NodeId};
use bytes::Bytes;
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;

/// Bookkeeping counted per cached frame beside its bytes (maps, recency record).
pub const ENTRY_OVERHEAD_BYTES: usize = 128;
/// Distinct attribute masks kept per instance; past it the oldest mask's frame goes.
pub const MAX_MASKS: usize = 16;
/// (source, key, mask) triples whose last delivered sequence number a node remembers;
/// past it, keyed deliveries of new triples go unchecked (`Delivered`).
pub const MAX_TRACKED_DELIVERIES: usize = 1 << 18;

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
struct InstanceKey {
    federation: FederationId,
    source: NodeId,
    key: u64,
}

/// The newest frame of one mask of an instance.
struct Part {
    attributes: u64,
    seq: u64,
    frame: Bytes,
    /// The link it arrived on, so a replay does not send it back into that block.
    origin: LinkId,
    /// When it was kept (the cache's tick): a replay goes out in the order frames came.
    arrival: u64,
}

#[derive(Default)]
struct Instance {
    /// Moves with every update: matches the instance's newest recency record.
    tick: u64,
    parts: Vec<Part>,
}

/// What storing one frame did.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Remembered {
    /// Frames let go to stay within the budget (or the mask limit of their instance).
    pub evicted: u64,
    /// The frame alone was larger than the budget: not kept.
    pub refused: bool,
}

pub(crate) struct LatestCache {
    instances: FxHashMap<InstanceKey, Instance>,
    /// (instance, tick) per update, oldest first; a record whose tick is not its
    /// instance's any more is stale and skipped.
    recency: VecDeque<(InstanceKey, u64)>,
    bytes: usize,
    frames: usize,
    budget_bytes: usize,
    tick: u64,
}

fn cost(frame: &Bytes) -> usize {
    frame.len() + ENTRY_OVERHEAD_BYTES
}

impl LatestCache {
    pub(crate) fn new(budget_bytes: usize) -> LatestCache {
        LatestCache {
            instances: FxHashMap::default(),
            recency: VecDeque::new(),
            bytes: 0,
            frames: 0,
            budget_bytes,
            tick: 0,
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    pub(crate) fn frames(&self) -> usize {
        self.frames
    }

    /// Keep `frame`, a keep-latest frame that arrived on `origin`, as the newest of its
    /// instance and mask; a removal forgets the instance.
    pub(crate) fn remember(
        &mut self,
        frame: &DataFrame,
        latest: LatestKey,
        origin: LinkId,
    ) -> Remembered {
        let key = InstanceKey {
            federation: frame.federation(),
            source: frame.source(),
            key: latest.key,
        };
        let seq = frame.seq();
        let mut done = Remembered::default();
        if latest.is_removal() {
            self.forget(&key);
            return done;
        }
        let bytes = frame.as_bytes();
        let instance = self.instances.entry(key).or_default();
        if instance
            .parts
            .iter()
            .any(|p| p.attributes == latest.attributes && p.seq >= seq)
        {
            // A copy (a neighbour's replay passing through), or older: nothing new.
            return done;
        }
        // Parts whose attributes the new frame all carries, newer, are superseded.
        let mut freed = 0;
        let mut removed = 0;
        instance.parts.retain(|p| {
            let superseded = p.attributes & !latest.attributes == 0 && p.seq < seq;
            if superseded {
                freed += cost(&p.frame);
                removed += 1;
            }
            !superseded
        });
        if instance.parts.len() >= MAX_MASKS {
            let oldest = (0..instance.parts.len())
                .min_by_key(|&i| instance.parts[i].seq)
                .expect("the instance has parts");
            freed += cost(&instance.parts.swap_remove(oldest).frame);
            removed += 1;
            done.evicted += 1;
        }
        self.bytes -= freed;
        self.frames -= removed;
        if cost(bytes) > self.budget_bytes {
            done.refused = true;
            if instance.parts.is_empty() {
                self.instances.remove(&key);
            }
            return done;
        }
        self.tick += 1;
        instance.tick = self.tick;
        instance.parts.push(Part {
            attributes: latest.attributes,
            seq,
            frame: bytes.clone(),
            origin,
            arrival: self.tick,
        });
        self.bytes += cost(bytes);
        self.frames += 1;
        self.recency.push_back((key, self.tick));
        done.evicted += self.evict_over_budget();
        self.compact_recency();
        debug_assert!(
            self.bytes <= self.budget_bytes,
            "the cache stays within its budget"
        );
        done
    }

    fn forget(&mut self, key: &InstanceKey) -> u64 {
        let Some(instance) = self.instances.remove(key) else {
            return 0;
        };
        for part in &instance.parts {
            self.bytes -= cost(&part.frame);
        }
        self.frames -= instance.parts.len();
        instance.parts.len() as u64
    }

    /// Let the least recently updated instances go until the cache is within its budget.
    fn evict_over_budget(&mut self) -> u64 {
        let mut evicted = 0;
        while self.bytes > self.budget_bytes {
            let Some((key, tick)) = self.recency.pop_front() else {
                break;
            };
            if self.instances.get(&key).is_some_and(|i| i.tick == tick) {
                evicted += self.forget(&key);
            }
        }
        evicted
    }

    /// Drop stale recency records once they outnumber the instances: amortized O(1).
    fn compact_recency(&mut self) {
        if self.recency.len() > 2 * self.instances.len() + 1024 {
            let instances = &self.instances;
            self.recency
                .retain(|(key, tick)| instances.get(key).is_some_and(|i| i.tick == *tick));
        }
    }

    /// Every cached frame of `federation`, with the link it came from.
    fn frames_of(&self, federation: FederationId) -> impl Iterator<Item = (&Part, NodeId)> + '_ {
        self.instances
            .iter()
            .filter(move |(key, _)| key.federation == federation)
            .flat_map(|(key, instance)| instance.parts.iter().map(|p| (p, key.source)))
    }
}

/// On a node: the newest keyed frame delivered to the application per (source, key, mask),
/// so copies from several caches reach it once.
#[derive(Default)]
pub(crate) struct Delivered {
    last: FxHashMap<(NodeId, LatestKey), u64>,
    /// Keyed deliveries not checked because `MAX_TRACKED_DELIVERIES` was reached.
    pub(crate) untracked: u64,
}

impl Delivered {
    /// Whether `frame` (keyed) is newer than what the application has of its key and mask.
    pub(crate) fn is_fresh(&mut self, frame: &DataFrame, latest: LatestKey) -> bool {
        if latest.is_removal() {
            return true;
        }
        let seq = frame.seq();
        let at = (frame.source(), latest);
        let tracked = self.last.len();
        match self.last.get_mut(&at) {
            Some(last) if *last >= seq => false,
            Some(last) => {
                *last = seq;
                true
            }
            None if tracked < MAX_TRACKED_DELIVERIES => {
                self.last.insert(at, seq);
                true
            }
            None => {
                self.untracked += 1;
                true
            }
        }
    }
}

impl Router {
    /// Keep a keep-latest frame routed from `origin` for later subscribers. Any other frame
    /// costs one flag test.
    #[inline]
    pub(super) fn remember_latest(&mut self, origin: Slot, frame: &DataFrame) {
        let Some(latest) = frame.latest() else {
            return;
        };
        let origin = self.link(origin).id;
        let done = self.latest.remember(frame, latest, origin);
        let stats = &mut self.stats.latest;
        stats.evicted += done.evicted;
        stats.refused += u64::from(done.refused);
        stats.cached_entries = self.latest.frames() as u64;
        stats.cached_bytes = self.latest.bytes() as u64;
    }

    /// `slot` now declares `added` in `fed` (already in the index): queue toward it every
    /// cached frame that carries an added id and no id it held before, unless it came from
    /// the link's own block. In the order the frames reached this router, so each source's
    /// order is kept, and across sources the order this router saw (after an attribute's
    /// ownership moved, the old owner's last value goes before the new owner's).
    pub(super) fn replay_latest(
        &mut self,
        now: Time,
        fed: FedIndex,
        slot: Slot,
        added: &RoaringBitmap,
    ) {
        if added.is_empty() || self.latest.frames() == 0 {
            return;
        }
        let link = self.link(slot);
        let block = link.block;
        let held_before = link
            .interest(fed)
            .map(|now_held| now_held - added)
            .unwrap_or_default();
        let federation = self.fed(fed).id;
        let mut replay: Vec<(u64, Bytes)> = self
            .latest
            .frames_of(federation)
            .filter(|(part, _)| {
                let from_block = self.live(part.origin).map(|o| self.link(o).block);
                from_block != Some(block)
            })
            .filter(|(part, _)| {
                let frame = DataFrame::from_validated(part.frame.clone());
                frame.ids().any(|id| added.contains(id))
                    && !frame.ids().any(|id| held_before.contains(id))
            })
            .map(|(part, _)| (part.arrival, part.frame.clone()))
            .collect();
        replay.sort_unstable_by_key(|(arrival, _)| *arrival);
        self.stats.latest.replayed += replay.len() as u64;
        for (_, bytes) in replay {
            let frame = DataFrame::from_validated(bytes);
            let (class, priority) = (frame.class(), frame.priority());
            self.enqueue(now, slot, frame.as_bytes().clone(), class, priority);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::{DataHeader, TransportClass};
    use bytes::BytesMut;

    fn frame(source: u64, seq: u64, key: u64, mask: u64, payload_len: usize) -> DataFrame {
        let header = DataHeader {
            federation: FederationId::of("f"),
            source: NodeId(source),
            seq,
            priority: 0,
            class: TransportClass::Reliable,
        };
        let mut out = BytesMut::new();
        let latest = LatestKey {
            key,
            attributes: mask,
        };
        DataFrame::encode_with(&mut out, &header, Some(latest), &[1], &vec![0; payload_len]);
        DataFrame::from_validated(out.freeze())
    }

    fn origin() -> LinkId {
        LinkId {
            slot: 0,
            generation: 0,
        }
    }

    fn keep(cache: &mut LatestCache, frame: &DataFrame) -> Remembered {
        cache.remember(frame, frame.latest().unwrap(), origin())
    }

    fn seqs(cache: &LatestCache) -> Vec<u64> {
        let mut seqs: Vec<u64> = cache
            .frames_of(FederationId::of("f"))
            .map(|(p, _)| p.seq)
            .collect();
        seqs.sort_unstable();
        seqs
    }

    #[test]
    fn a_covering_newer_frame_supersedes_and_copies_change_nothing() {
        let mut cache = LatestCache::new(1 << 20);
        keep(&mut cache, &frame(1, 1, 9, 0b01, 10));
        keep(&mut cache, &frame(1, 2, 9, 0b10, 10));
        keep(&mut cache, &frame(1, 3, 9, 0b01, 10));
        assert_eq!(seqs(&cache), vec![2, 3]);
        // A copy of an older frame, as a neighbour's replay brings it: nothing changes.
        keep(&mut cache, &frame(1, 1, 9, 0b01, 10));
        assert_eq!(seqs(&cache), vec![2, 3]);
        // Both attributes, newer: one frame holds the instance.
        keep(&mut cache, &frame(1, 4, 9, 0b11, 10));
        assert_eq!(seqs(&cache), vec![4]);
        // A narrower newer frame does not supersede the wider one: it lacks attribute 2.
        keep(&mut cache, &frame(1, 5, 9, 0b01, 10));
        assert_eq!(seqs(&cache), vec![4, 5]);
        // Another source's key 9 is another instance's state.
        keep(&mut cache, &frame(2, 1, 9, 0b11, 10));
        assert_eq!(seqs(&cache), vec![1, 4, 5]);
        // A removal forgets the instance.
        keep(&mut cache, &frame(1, 6, 9, 0, 0));
        assert_eq!(seqs(&cache), vec![1]);
        assert_eq!(cache.frames(), 1);
        assert_eq!(cache.bytes(), cost(frame(2, 1, 9, 0b11, 10).as_bytes()));
    }

    #[test]
    fn the_budget_holds_and_the_least_recently_updated_go_first() {
        let one = cost(frame(1, 1, 0, 1, 100).as_bytes());
        let mut cache = LatestCache::new(one * 10);
        let mut evicted = 0;
        for seq in 1..=1000u64 {
            // Instance 0 is updated every time; instances 1.. once each.
            let key = if seq % 2 == 0 { 0 } else { seq };
            evicted += keep(&mut cache, &frame(1, seq, key, 1, 100)).evicted;
            assert!(cache.bytes() <= one * 10);
            assert!(cache.recency.len() <= 2 * cache.instances.len() + 1024 + 1);
        }
        assert_eq!(cache.frames(), 10);
        assert_eq!(
            evicted,
            500 - 9,
            "every once-updated instance but the last 9 went"
        );
        assert!(seqs(&cache).contains(&1000), "the busy instance stays");
        // Larger than the whole budget: refused, counted.
        let huge = frame(1, 1001, 77, 1, one * 10);
        assert!(keep(&mut cache, &huge).refused);
        assert!(cache.bytes() <= one * 10);
    }

    #[test]
    fn an_instance_keeps_at_most_max_masks_frames() {
        let mut cache = LatestCache::new(1 << 20);
        let mut evicted = 0;
        for bit in 0..40u64 {
            evicted += keep(&mut cache, &frame(1, bit + 1, 5, 1 << bit, 10)).evicted;
        }
        assert_eq!(cache.frames(), MAX_MASKS);
        assert_eq!(evicted, 40 - MAX_MASKS as u64);
        assert_eq!(
            seqs(&cache)[0],
            40 - MAX_MASKS as u64 + 1,
            "the oldest masks went"
        );
    }

    #[test]
    fn deliveries_are_fresh_once_per_source_key_and_mask() {
        let mut delivered = Delivered::default();
        let fresh = |d: &mut Delivered, f: DataFrame| d.is_fresh(&f, f.latest().unwrap());
        assert!(fresh(&mut delivered, frame(1, 5, 9, 1, 0)));
        assert!(!fresh(&mut delivered, frame(1, 5, 9, 1, 0)), "a copy");
        assert!(!fresh(&mut delivered, frame(1, 4, 9, 1, 0)), "older");
        assert!(fresh(&mut delivered, frame(1, 4, 9, 2, 0)), "another mask");
        assert!(
            fresh(&mut delivered, frame(2, 1, 9, 1, 0)),
            "another source"
        );
        assert!(fresh(&mut delivered, frame(1, 6, 9, 1, 0)));
    }
}
