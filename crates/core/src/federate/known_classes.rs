//! The class each known instance is known as, looked up by its registering federate and
//! number: the one look-up every reflect makes, kept out of the instance map.
//!
//! With hundreds of thousands of instances known, the instance map's entries are scattered
//! over tens of megabytes and each reflect's look-up missed the cache twice (the map's
//! control bytes, then the entry): about a sixth of all CPU in a 400,000-entity clutter run.
//! Instance numbers count up from 1 per registering federate, so a vector per federate of
//! 4 bytes per instance holds the same answer in a few megabytes.
//!
//! It is a cache: a slot holds the class or nothing, and nothing sends the reader to the
//! instance map, which stays the truth. Every change to an instance's known class goes
//! through [`KnownClasses::set`]. Numbers from the network may be anything, so a vector
//! grows only to numbers just past its end, and all vectors together hold at most
//! [`MAX_SLOTS`] slots; past either bound an instance is simply not cached.

use super::ObjectId;
use crate::fom::ObjectClassHandle;
use rustc_hash::FxHashMap;

/// How far past a vector's end a number may be and still grow it: numbers count up, so a
/// federate's new instances land at or near the end.
const GROWTH_SLACK: usize = 4096;

/// Slots held at most over all federates (64 MiB).
pub(super) const MAX_SLOTS: usize = 16 << 20;

#[derive(Default)]
pub(super) struct KnownClasses {
    /// Per registering federate, by instance number: the known class's handle + 1, or 0.
    by_federate: FxHashMap<u32, Vec<u32>>,
    slots: usize,
}

impl KnownClasses {
    /// The class `object` is known as, if cached.
    pub(super) fn get(&self, object: ObjectId) -> Option<ObjectClassHandle> {
        let slots = self.by_federate.get(&object.federate())?;
        let slot = *slots.get(object.number() as usize)?;
        slot.checked_sub(1).map(ObjectClassHandle)
    }

    /// `object` is now known as `class` (`None`: not known, or gone).
    pub(super) fn set(&mut self, object: ObjectId, class: Option<ObjectClassHandle>) {
        let number = object.number() as usize;
        let value = class.and_then(|c| c.0.checked_add(1)).unwrap_or(0);
        if let Some(slot) =
            (self.by_federate.get_mut(&object.federate())).and_then(|slots| slots.get_mut(number))
        {
            *slot = value;
            return;
        }
        if value == 0 {
            return; // not cached, so nothing to forget
        }
        let len = self.by_federate.get(&object.federate()).map_or(0, Vec::len);
        let growth = number + 1 - len;
        if growth > GROWTH_SLACK || self.slots + growth > MAX_SLOTS {
            return; // readers find it in the instance map
        }
        let slots = self.by_federate.entry(object.federate()).or_default();
        slots.resize(number + 1, 0);
        slots[number] = value;
        self.slots += growth;
        debug_assert!(self.slots <= MAX_SLOTS);
    }

    #[cfg(test)]
    pub(super) fn slots(&self) -> usize {
        self.slots
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(n: u32) -> Option<ObjectClassHandle> {
        Some(ObjectClassHandle(n))
    }

    #[test]
    fn a_class_set_is_found_changed_and_forgotten() {
        let mut known = KnownClasses::default();
        let object = ObjectId::new(3, 7);
        assert_eq!(known.get(object), None);
        known.set(object, class(0));
        assert_eq!(
            known.get(object),
            class(0),
            "handle 0 is a class, not a blank"
        );
        known.set(object, class(5));
        assert_eq!(known.get(object), class(5));
        assert_eq!(
            known.get(ObjectId::new(3, 6)),
            None,
            "a neighbour is not known"
        );
        assert_eq!(
            known.get(ObjectId::new(4, 7)),
            None,
            "nor another federate's 7"
        );
        known.set(object, None);
        assert_eq!(known.get(object), None);
    }

    #[test]
    fn numbers_far_past_the_end_are_not_cached_and_cost_nothing() {
        let mut known = KnownClasses::default();
        known.set(ObjectId::new(1, u32::MAX), class(2));
        known.set(ObjectId::new(1, GROWTH_SLACK as u32 + 1), class(2));
        assert_eq!(known.get(ObjectId::new(1, u32::MAX)), None);
        assert_eq!(known.slots(), 0);
        known.set(ObjectId::new(1, GROWTH_SLACK as u32 - 1), class(2));
        assert_eq!(
            known.get(ObjectId::new(1, GROWTH_SLACK as u32 - 1)),
            class(2)
        );
        assert_eq!(known.slots(), GROWTH_SLACK);
    }

    #[test]
    fn all_federates_together_stay_within_the_slot_bound() {
        let mut known = KnownClasses::default();
        let federates = (MAX_SLOTS / GROWTH_SLACK + 10) as u32;
        for federate in 0..federates {
            known.set(ObjectId::new(federate, GROWTH_SLACK as u32 - 1), class(1));
        }
        assert_eq!(known.slots(), MAX_SLOTS);
        let last = ObjectId::new(federates - 1, GROWTH_SLACK as u32 - 1);
        assert_eq!(known.get(last), None, "past the bound, not cached");
    }
}
