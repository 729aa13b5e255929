//! The inverted interest index of one federation: interest id → the links that declared it.
//!
//! Many ids share the same set of links (a subscriber's region covers thousands of cells), so
//! link sets are interned and each id maps to a small set number. That keeps an indexed id at
//! about ten bytes however many links share it, and a lookup is one hash probe.

use crate::interest::InterestId;
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;

/// Index of a link in the router's link table.
pub(crate) type Slot = u32;

type SetNumber = u32;

#[derive(Default)]
struct LinkSet {
    links: Box<[Slot]>,
    refs: usize,
}

#[derive(Default)]
pub(crate) struct InterestIndex {
    by_id: FxHashMap<InterestId, SetNumber>,
    sets: Vec<LinkSet>,
    free: Vec<SetNumber>,
    interned: FxHashMap<Box<[Slot]>, SetNumber>,
}

static NO_LINKS: [Slot; 0] = [];

impl InterestIndex {
    /// The links that declared `id`, in slot order.
    pub(crate) fn links(&self, id: InterestId) -> &[Slot] {
        match self.by_id.get(&id) {
            Some(&set) => &self.sets[set as usize].links,
            None => &NO_LINKS,
        }
    }

    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.by_id.is_empty()
    }

    /// Record that `link` declared every id in `ids`.
    pub(crate) fn add(&mut self, ids: &RoaringBitmap, link: Slot) {
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
    pub(crate) fn remove(&mut self, ids: &RoaringBitmap, link: Slot) {
        self.update(ids, |links| match links.binary_search(&link) {
            Ok(at) => {
                let mut next = links.to_vec();
                next.remove(at);
                Some(next)
            }
            Err(_) => None,
        });
    }

    /// Move each id to the set `change` derives from its current one. Ids that start from the
    /// same set end in the same set, so the derivation runs once per distinct set. `change`
    /// is idempotent (adding a present link or removing an absent one yields `None`), so a
    /// set reached in this update is never released by it and the cache stays valid.
    fn update(&mut self, ids: &RoaringBitmap, change: impl Fn(&[Slot]) -> Option<Vec<Slot>>) {
        // Transition cache: current set (None = no links) → next set (None = no links).
        let mut transitions: FxHashMap<Option<SetNumber>, Option<Option<SetNumber>>> =
            FxHashMap::default();
        for id in ids {
            let current = self.by_id.get(&id).copied();
            let next = match transitions.get(&current) {
                Some(&next) => next,
                None => {
                    let links: &[Slot] = match current {
                        Some(set) => &self.sets[set as usize].links,
                        None => &NO_LINKS,
                    };
                    let next = change(links).map(|links| self.intern(links));
                    transitions.insert(current, next);
                    next
                }
            };
            let Some(next) = next else { continue };
            if let Some(set) = next {
                self.sets[set as usize].refs += 1;
                self.by_id.insert(id, set);
            } else {
                self.by_id.remove(&id);
            }
            if let Some(old) = current {
                self.release(old);
            }
        }
    }

    /// The number of the set holding exactly `links`, creating it with no references if new.
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
            refs: 0,
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

    fn release(&mut self, set: SetNumber) {
        let entry = &mut self.sets[set as usize];
        entry.refs -= 1;
        if entry.refs == 0 {
            self.free_set(set);
        }
    }

    fn free_set(&mut self, set: SetNumber) {
        let entry = std::mem::take(&mut self.sets[set as usize]);
        self.interned.remove(&entry.links);
        self.free.push(set);
    }

    #[cfg(test)]
    fn live_sets(&self) -> usize {
        self.interned.len()
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
        assert_eq!(index.live_sets(), 3);

        index.remove(&set(0..100), 3);
        assert_eq!(index.links(10), &[] as &[u32]);
        assert_eq!(index.links(60), &[1]);
        assert_eq!(index.live_sets(), 1);

        index.remove(&set(50..150), 1);
        assert!(index.is_empty());
        assert_eq!(index.live_sets(), 0);
    }

    #[test]
    fn adding_twice_and_removing_absent_ids_change_nothing() {
        let mut index = InterestIndex::default();
        index.add(&set([7]), 2);
        index.add(&set([7]), 2);
        index.remove(&set([8]), 2);
        index.remove(&set([7]), 5);
        assert_eq!(index.links(7), &[2]);
        assert_eq!(index.live_sets(), 1);
    }
}
