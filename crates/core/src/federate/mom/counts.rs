//! The per-class counts the MOM's reports need and the federate's own statistics do not
//! keep (those are totals): updates sent and reflections received by registered class,
//! interactions sent and received by sent class, each per transportation type.
//!
//! Counting sits on the update and reflect paths, so it costs a vector index per message and
//! nothing more. Distinct instances updated and reflected are not counted: that would take
//! a set probe per message (or a flag in each instance's entry, which the reflect path does
//! not read), and the MOM must cost the throughput path nothing measurable.

use super::Federate;
use crate::fom::{InteractionClassHandle, ObjectClassHandle};
use crate::wire::TransportClass;

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
}

impl Federate {
    /// updateAttributeValues of an instance registered as `class` succeeded, sending on the
    /// transports marked in `sent_on` (indexed as [`TRANSPORTS`]).
    pub(in crate::federate) fn mom_count_update(
        &mut self,
        class: ObjectClassHandle,
        sent_on: [bool; 2],
    ) {
        let Some(mom) = &mut self.mom else { return };
        for (counts, sent) in mom.counts.updates_sent.iter_mut().zip(sent_on) {
            if sent {
                counts.add(class.0);
            }
        }
    }

    /// A reflection of an instance registered as `class` is delivered.
    pub(in crate::federate) fn mom_count_reflection(
        &mut self,
        class: ObjectClassHandle,
        transport: TransportClass,
    ) {
        let Some(mom) = &mut self.mom else { return };
        mom.counts.reflections_received[transport_index(transport)].add(class.0);
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
    fn classes_with_no_count_are_left_out() {
        let mut counts = PerClass::default();
        for _ in 0..3 {
            counts.add(4);
        }
        counts.add(2);
        assert_eq!(counts.positive(), vec![(2, 1), (4, 3)]);
    }
}
