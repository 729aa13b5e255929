//! When a federate that left is gone for ownership: the registry's `FederateLeft` and the
//! federate's own last messages travel different paths, and the first may overtake the
//! second.
//!
//! A federate that resigns says `Departing` on the time channel behind its last messages
//! (its hand-overs of attributes kept in trust, its deletions), on the same FIFO path. The
//! registry's event travels at a higher priority and, through the registry's router,
//! another way: seen first, it would orphan and remove an instance whose privilege the
//! resigner had just handed to this federate. So one that resigned is gone only once both
//! its `FederateLeft` and its `Departing` are in, in either order. One resigned behind its
//! back (died, cut as a slow consumer) says nothing more: it is gone at once.

use crate::registry::Departure;
use std::collections::VecDeque;

/// Federates waiting for the other half of their departure, each way. A federate is in
/// one list only while it resigns, so a few suffice; past this many, the oldest is
/// forgotten (a `FederateLeft` seen then counts at once, as a death does).
const MAX_HALF_DEPARTED: usize = 256;

#[derive(Default)]
pub(super) struct Departures {
    /// `Departing` heard, `FederateLeft` not yet.
    said_departing: VecDeque<u32>,
    /// `FederateLeft` (resigned) heard, `Departing` not yet.
    left_unsaid: VecDeque<u32>,
}

impl Departures {
    /// The registry reports that `federate` left: whether it is gone now.
    pub fn left(&mut self, federate: u32, how: Departure) -> bool {
        let said = take(&mut self.said_departing, federate);
        if how.died() || said {
            return true;
        }
        if self.left_unsaid.len() == MAX_HALF_DEPARTED {
            return true;
        }
        self.left_unsaid.push_back(federate);
        false
    }

    /// `federate` said on the time channel that it departs: whether it is gone now.
    pub fn departing(&mut self, federate: u32) -> bool {
        if take(&mut self.left_unsaid, federate) {
            return true;
        }
        if self.said_departing.len() == MAX_HALF_DEPARTED {
            self.said_departing.pop_front();
        }
        self.said_departing.push_back(federate);
        debug_assert!(self.said_departing.len() <= MAX_HALF_DEPARTED);
        false
    }
}

/// Remove `federate` from `list`: whether it was there.
fn take(list: &mut VecDeque<u32>, federate: u32) -> bool {
    match list.iter().position(|f| *f == federate) {
        Some(at) => list.remove(at).is_some(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resigner_is_gone_once_both_halves_are_in_in_either_order() {
        let mut departures = Departures::default();
        assert!(!departures.left(2, Departure::Resigned));
        assert!(departures.departing(2));
        assert!(!departures.departing(3));
        assert!(departures.left(3, Departure::Resigned));
        // Each pair is used up: a later departure of the same handle starts again.
        assert!(!departures.left(2, Departure::Resigned));
    }

    #[test]
    fn one_resigned_behind_its_back_is_gone_at_once() {
        let mut departures = Departures::default();
        assert!(departures.left(4, Departure::Died));
        assert!(departures.left(5, Departure::SlowConsumer));
        assert!(departures.left_unsaid.is_empty());
    }

    #[test]
    fn the_lists_are_bounded() {
        let mut departures = Departures::default();
        for federate in 0..(MAX_HALF_DEPARTED as u32 + 10) {
            assert!(!departures.departing(federate));
        }
        assert_eq!(departures.said_departing.len(), MAX_HALF_DEPARTED);
        for federate in 1000..(1000 + MAX_HALF_DEPARTED as u32) {
            assert!(!departures.left(federate, Departure::Resigned));
        }
        assert!(departures.left(9999, Departure::Resigned), "full: at once");
    }
}
