//! A number per instance, looked up by the instance's registering federate and number:
//! a vector per registering federate instead of a hash map over all instances.
//!
//! With hundreds of thousands of instances, a hash map's entries are scattered over tens
//! of megabytes, and each look-up misses the cache twice (the control bytes, then the
//! entry): about a sixth of all CPU in a 400,000-entity clutter run on the reflect path,
//! and as much again on the update path. Instance numbers count up from 1 per registering
//! federate, so a vector per federate of 4 bytes per instance holds the same answers in a
//! few megabytes, and a federate that updates its instances in the order it registered
//! them reads the vector front to back.
//!
//! Numbers from the network may be anything, so a vector grows only to numbers just past
//! its end, and all vectors together hold at most [`MAX_SLOTS`] slots. Past either bound
//! [`IdSlots::hold`] refuses, and the caller keeps that instance elsewhere.

use super::ObjectId;
use rustc_hash::FxHashMap;

/// How far past a vector's end a number may be and still grow it: numbers count up, so a
/// federate's new instances land at or near the end.
const GROWTH_SLACK: usize = 4096;

/// Slots held at most over all federates (64 MiB).
pub(super) const MAX_SLOTS: usize = 16 << 20;

#[derive(Clone, Default)]
pub(super) struct IdSlots {
    /// Per registering federate, by instance number: the value + 1, or 0 for none.
    by_federate: FxHashMap<u32, Vec<u32>>,
    slots: usize,
}

impl IdSlots {
    /// The value held for `object`, if any.
    pub(super) fn get(&self, object: ObjectId) -> Option<u32> {
        let slots = self.by_federate.get(&object.federate())?;
        let slot = *slots.get(object.number() as usize)?;
        slot.checked_sub(1)
    }

    /// Hold `value` for `object`. False when it could not be held: past the bounds, or
    /// `u32::MAX`.
    #[must_use = "a refused value must be kept elsewhere"]
    pub(super) fn hold(&mut self, object: ObjectId, value: u32) -> bool {
        let Some(slot_value) = value.checked_add(1) else {
            return false;
        };
        if let Some(slot) = self.slot_mut(object) {
            *slot = slot_value;
            return true;
        }
        let number = object.number() as usize;
        let len = self.by_federate.get(&object.federate()).map_or(0, Vec::len);
        let growth = number + 1 - len;
        if growth > GROWTH_SLACK || self.slots + growth > MAX_SLOTS {
            return false;
        }
        let slots = self.by_federate.entry(object.federate()).or_default();
        slots.resize(number + 1, 0);
        slots[number] = slot_value;
        self.slots += growth;
        debug_assert!(self.slots <= MAX_SLOTS);
        true
    }

    /// Hold nothing for `object`.
    pub(super) fn forget(&mut self, object: ObjectId) {
        if let Some(slot) = self.slot_mut(object) {
            *slot = 0;
        }
    }

    fn slot_mut(&mut self, object: ObjectId) -> Option<&mut u32> {
        let slots = self.by_federate.get_mut(&object.federate())?;
        slots.get_mut(object.number() as usize)
    }

    #[cfg(test)]
    pub(super) fn slots(&self) -> usize {
        self.slots
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_set_is_found_changed_and_forgotten() {
        let mut slots = IdSlots::default();
        let object = ObjectId::new(3, 7);
        assert_eq!(slots.get(object), None);
        assert!(slots.hold(object, 0));
        assert_eq!(slots.get(object), Some(0), "0 is a value, not a blank");
        assert!(slots.hold(object, 5));
        assert_eq!(slots.get(object), Some(5));
        assert_eq!(
            slots.get(ObjectId::new(3, 6)),
            None,
            "a neighbour is not held"
        );
        assert_eq!(
            slots.get(ObjectId::new(4, 7)),
            None,
            "nor another federate's 7"
        );
        slots.forget(object);
        assert_eq!(slots.get(object), None);
        assert!(!slots.hold(object, u32::MAX), "u32::MAX has no slot value");
        assert_eq!(slots.get(object), None);
    }

    #[test]
    fn numbers_far_past_the_end_are_refused_and_cost_nothing() {
        let mut slots = IdSlots::default();
        assert!(!slots.hold(ObjectId::new(1, u32::MAX), 2));
        assert!(!slots.hold(ObjectId::new(1, GROWTH_SLACK as u32 + 1), 2));
        slots.forget(ObjectId::new(1, u32::MAX));
        assert_eq!(slots.get(ObjectId::new(1, u32::MAX)), None);
        assert_eq!(slots.slots(), 0);
        assert!(slots.hold(ObjectId::new(1, GROWTH_SLACK as u32 - 1), 2));
        assert_eq!(
            slots.get(ObjectId::new(1, GROWTH_SLACK as u32 - 1)),
            Some(2)
        );
        assert_eq!(slots.slots(), GROWTH_SLACK);
    }

    #[test]
    fn all_federates_together_stay_within_the_slot_bound() {
        let mut slots = IdSlots::default();
        let federates = (MAX_SLOTS / GROWTH_SLACK + 10) as u32;
        let held = (0..federates)
            .filter(|&f| slots.hold(ObjectId::new(f, GROWTH_SLACK as u32 - 1), 1))
            .count();
        assert_eq!(held, MAX_SLOTS / GROWTH_SLACK);
        assert_eq!(slots.slots(), MAX_SLOTS);
        let last = ObjectId::new(federates - 1, GROWTH_SLACK as u32 - 1);
        assert_eq!(slots.get(last), None, "past the bound, not held");
    }
}
