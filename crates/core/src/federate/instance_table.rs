//! Every instance a federate registered or discovered, stored side by side in the order
//! they came, and found through a vector per registering federate ([`IdSlots`]).
//!
//! A hash map scatters its entries, so a simulator updating 100,000 instances one after
//! another missed the cache (and the TLB) on each: the update path's instance look-up was
//! about 15 % of all CPU in a 700,000-entity clutter run. Here a simulator's own instances
//! sit in the order it registered them, and it updates them in that order, so the slots
//! and the entries are read front to back.

use super::id_slots::IdSlots;
use super::ObjectId;
use rustc_hash::FxHashMap;
use std::ops::Index;

#[derive(Clone)]
pub(super) struct InstanceTable<V> {
    /// The instances in the order they came; a removal moves the last into the gap.
    entries: Vec<(ObjectId, V)>,
    /// Each instance's position in `entries`.
    positions: IdSlots,
    /// Positions of the instances `positions` refused (numbers far from the others').
    /// An instance is in exactly one of the two.
    overflow: FxHashMap<ObjectId, u32>,
}

impl<V> Default for InstanceTable<V> {
    fn default() -> Self {
        InstanceTable {
            entries: Vec::new(),
            positions: IdSlots::default(),
            overflow: FxHashMap::default(),
        }
    }
}

impl<V> InstanceTable<V> {
    fn position(&self, object: ObjectId) -> Option<usize> {
        let position = match self.positions.get(object) {
            Some(position) => position,
            None if self.overflow.is_empty() => return None,
            None => *self.overflow.get(&object)?,
        };
        let position = position as usize;
        debug_assert_eq!(self.entries[position].0, object, "positions match entries");
        Some(position)
    }

    /// Note where `object` now is, where its position is already kept if it is.
    fn place(&mut self, object: ObjectId, position: usize) {
        let position = u32::try_from(position).unwrap_or(u32::MAX);
        if let Some(kept) = self.overflow.get_mut(&object) {
            *kept = position;
        } else if !self.positions.hold(object, position) {
            self.overflow.insert(object, position);
        }
    }

    fn unplace(&mut self, object: ObjectId) {
        if self.overflow.remove(&object).is_none() {
            self.positions.forget(object);
        }
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.entries.len()
    }

    pub(super) fn contains_key(&self, object: ObjectId) -> bool {
        self.position(object).is_some()
    }

    pub(super) fn get(&self, object: ObjectId) -> Option<&V> {
        self.position(object).map(|p| &self.entries[p].1)
    }

    pub(super) fn get_mut(&mut self, object: ObjectId) -> Option<&mut V> {
        self.position(object).map(|p| &mut self.entries[p].1)
    }

    /// Add or replace `object`'s entry; the replaced one is returned.
    pub(super) fn insert(&mut self, object: ObjectId, value: V) -> Option<V> {
        if let Some(position) = self.position(object) {
            return Some(std::mem::replace(&mut self.entries[position].1, value));
        }
        self.push(object, value);
        None
    }

    /// Add `object`, which is not in the table, at the end; its position.
    fn push(&mut self, object: ObjectId, value: V) -> usize {
        self.entries.push((object, value));
        let position = self.entries.len() - 1;
        self.place(object, position);
        position
    }

    /// `object`'s entry, added by `make` if there is none.
    pub(super) fn get_or_insert_with(
        &mut self,
        object: ObjectId,
        make: impl FnOnce() -> V,
    ) -> &mut V {
        let position = match self.position(object) {
            Some(position) => position,
            None => self.push(object, make()),
        };
        &mut self.entries[position].1
    }

    pub(super) fn remove(&mut self, object: ObjectId) -> Option<V> {
        let position = self.position(object)?;
        self.unplace(object);
        let (_, value) = self.entries.swap_remove(position);
        if let Some(&(moved, _)) = self.entries.get(position) {
            self.place(moved, position);
        }
        Some(value)
    }

    pub(super) fn iter(&self) -> impl Iterator<Item = (ObjectId, &V)> + '_ {
        self.entries.iter().map(|(object, value)| (*object, value))
    }

    pub(super) fn keys(&self) -> impl Iterator<Item = ObjectId> + '_ {
        self.entries.iter().map(|(object, _)| *object)
    }
}

impl<V> Index<ObjectId> for InstanceTable<V> {
    type Output = V;

    /// Panics if `object` is not in the table: for callers that checked.
    fn index(&self, object: ObjectId) -> &V {
        self.get(object).expect("the instance is in the table")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Debug, Clone)]
    enum Op {
        Insert(ObjectId, u32),
        Remove(ObjectId),
    }

    /// Ids from a few federates: mostly small numbers, some far past any vector's end
    /// (kept in the overflow), and some that a vector later grows over.
    fn object() -> impl Strategy<Value = ObjectId> {
        let number = prop_oneof![
            6 => 1u32..64,
            1 => 4_000u32..4_200,
            1 => Just(u32::MAX),
        ];
        (0u32..3, number).prop_map(|(federate, number)| ObjectId::new(federate, number))
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (object(), any::<u32>()).prop_map(|(o, v)| Op::Insert(o, v)),
            2 => object().prop_map(Op::Remove),
        ]
    }

    proptest! {
        #[test]
        fn behaves_as_a_map(ops in proptest::collection::vec(op(), 0..300)) {
            let mut table = InstanceTable::default();
            let mut model = FxHashMap::default();
            for op in ops {
                match op {
                    Op::Insert(o, v) => prop_assert_eq!(table.insert(o, v), model.insert(o, v)),
                    Op::Remove(o) => prop_assert_eq!(table.remove(o), model.remove(&o)),
                }
                prop_assert_eq!(table.len(), model.len());
            }
            for (object, value) in &model {
                prop_assert_eq!(table.get(*object), Some(value));
            }
            let mut listed: Vec<(ObjectId, u32)> = table.iter().map(|(o, v)| (o, *v)).collect();
            listed.sort();
            let mut expected: Vec<(ObjectId, u32)> = model.into_iter().collect();
            expected.sort();
            prop_assert_eq!(listed, expected);
        }
    }

    #[test]
    fn one_federates_instances_sit_in_the_order_they_came() {
        let mut table = InstanceTable::default();
        for number in 1..=1000 {
            assert_eq!(table.insert(ObjectId::new(7, number), number), None);
        }
        let numbers: Vec<u32> = table.keys().map(ObjectId::number).collect();
        assert_eq!(numbers, (1..=1000).collect::<Vec<_>>());
        assert!(table.overflow.is_empty(), "every position in the slots");
    }

    #[test]
    fn an_instance_in_the_overflow_stays_there_when_the_slots_grow_over_it() {
        let mut table = InstanceTable::default();
        let far = ObjectId::new(1, 5000);
        table.insert(far, 0);
        assert_eq!(table.overflow.len(), 1);
        for number in 1..=6000 {
            *table.get_or_insert_with(ObjectId::new(1, number), || number) += 0;
        }
        assert_eq!(table[far], 0, "kept, not replaced");
        assert_eq!(table.remove(ObjectId::new(1, 1)), Some(1));
        assert_eq!(table[far], 0, "found after the last entry moved");
        assert_eq!(table.remove(far), Some(0));
        assert!(table.overflow.is_empty());
        assert!(!table.contains_key(far));
        assert_eq!(table.len(), 5998);
    }
}
