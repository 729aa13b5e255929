//! The per-class counts the MOM's reports need and the federate's own statistics do not
//! keep (those are totals): updates sent and reflections received by registered class,
//! interactions sent and received by sent class, each per transportation type, and the
//! distinct instances updated and reflected.
//!
//! Counting sits on the update and reflect paths, so it costs a vector index per message
//! and, for the distinct instances, one hash-set probe: no ordering is needed, as reports
//! read the per-class counts, never the set.

use super::{Federate, ObjectId};
use crate::fom::{InteractionClassHandle, ObjectClassHandle};
use crate::wire::TransportClass;
use rustc_hash::FxHashSet;

/// Distinct instances remembered per kind (updated, reflected). Past it, further new
/// instances go uncounted: memory stays bounded when instances come and go for ever. It
/// is above the largest runs measured (700,000 entities).
pub const MAX_COUNTED_INSTANCES: usize = 4_000_000;

/// A count per class handle (object or interaction), grown on demand.
#[derive(Default)]
pub(in crate::federate) struct PerClass(Vec<u64>);

impl PerClass {
    fn add(&mut self, class: u32) {
        let index = class as usize;
        if index >= self.0.len() {
            self.0.resize(index + 1, 0);
        }
        self.0[index] += 1;
    }

    /// The classes with a positive count, in handle order (the MIM's counts arrays hold
    /// no zero elements).
    pub fn positive(&self) -> Vec<(u64, u64)> {
        (self.0.iter().enumerate())
            .filter(|(_, &n)| n > 0)
            .map(|(class, &n)| (class as u64, n))
            .collect()
    }

    fn total(&self) -> u64 {
        self.0.iter().sum()
    }
}

/// Instances counted once each, per registered class.
#[derive(Default)]
pub(in crate::federate) struct DistinctInstances {
    seen: FxHashSet<ObjectId>,
    pub per_class: PerClass,
}

impl DistinctInstances {
    fn note(&mut self, object: ObjectId, class: ObjectClassHandle) {
        if self.seen.len() < MAX_COUNTED_INSTANCES && self.seen.insert(object) {
            self.per_class.add(class.0);
        }
    }

    pub fn total(&self) -> u64 {
        self.per_class.total()
    }
}

/// The transports in the order the counts are kept, and each one's HLAtransportationName.
pub const TRANSPORTS: [TransportClass; 2] = [TransportClass::Reliable, TransportClass::BestEffort];
pub const TRANSPORTATION_NAMES: [&str; 2] = ["HLAreliable", "HLAbestEffort"];

fn transport_index(transport: TransportClass) -> usize {
    match transport {
        TransportClass::Reliable => 0,
        TransportClass::BestEffort => 1,
    }
}

/// What the MOM counts, kept from join on.
#[derive(Default)]
pub(in crate::federate) struct MomCounts {
    /// Per transport (indexed as [`TRANSPORTS`]).
    pub updates_sent: [PerClass; 2],
    pub reflections_received: [PerClass; 2],
    pub interactions_sent: [PerClass; 2],
    pub interactions_received: [PerClass; 2],
    pub instances_updated: DistinctInstances,
    pub instances_reflected: DistinctInstances,
}

impl Federate {
    /// updateAttributeValues of `object` (registered as `class`) succeeded, sending on the
    /// transports marked in `sent_on` (indexed as [`TRANSPORTS`]).
    pub(in crate::federate) fn mom_count_update(
        &mut self,
        object: ObjectId,
        class: ObjectClassHandle,
        sent_on: [bool; 2],
    ) {
        let Some(mom) = &mut self.mom else { return };
        for (counts, sent) in mom.counts.updates_sent.iter_mut().zip(sent_on) {
            if sent {
                counts.add(class.0);
            }
        }
        mom.counts.instances_updated.note(object, class);
    }

    /// A reflection of `object` (registered as `class`) is delivered.
    pub(in crate::federate) fn mom_count_reflection(
        &mut self,
        object: ObjectId,
        class: ObjectClassHandle,
        transport: TransportClass,
    ) {
        let Some(mom) = &mut self.mom else { return };
        mom.counts.reflections_received[transport_index(transport)].add(class.0);
        mom.counts.instances_reflected.note(object, class);
    }

    /// An interaction of `class` was sent (`sent`) or is delivered.
    pub(in crate::federate) fn mom_count_interaction(
        &mut self,
        class: InteractionClassHandle,
        transport: TransportClass,
        sent: bool,
    ) {
        let Some(mom) = &mut self.mom else { return };
        let counts = if sent {
            &mut mom.counts.interactions_sent
        } else {
            &mut mom.counts.interactions_received
        };
        counts[transport_index(transport)].add(class.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_count_once_and_classes_with_none_are_left_out() {
        let mut distinct = DistinctInstances::default();
        for _ in 0..3 {
            distinct.note(ObjectId(7), ObjectClassHandle(4));
        }
        distinct.note(ObjectId(8), ObjectClassHandle(4));
        distinct.note(ObjectId(9), ObjectClassHandle(2));
        assert_eq!(distinct.per_class.positive(), vec![(2, 1), (4, 2)]);
        assert_eq!(distinct.total(), 3);
    }
}
