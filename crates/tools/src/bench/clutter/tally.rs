//! A receiver's account of what it reflected, checked against its interest.
//!
//! A receiver with interest `R` (its subscription region) must reflect update (entity e,
//! tick k) iff e is not its own and e's position at tick k lies in `R`: the update's region
//! is that one-unit cell, and a subscription gets an update exactly when the two regions
//! overlap at the time it is sent. Entities of simulators whose area does not meet `R` can
//! never be expected; for the others one bit per (entity, tick) records what arrived, so
//! a second arrival is a duplicate and an arrival outside `R` is unexpected.

use super::geometry::{Geometry, Rect};
use super::payload::EntityState;

pub struct Tally {
    interest: Rect,
    own: Option<u32>,
    /// First slot of each simulator's entities in `seen`, for the simulators that can
    /// enter the interest.
    base: Vec<Option<u64>>,
    ticks: u64,
    /// One bit per (candidate entity, tick).
    seen: Vec<u64>,
    pub reflects: u64,
    pub in_interest: u64,
    pub unexpected: u64,
    pub duplicates: u64,
    pub corrupt: u64,
}

impl Tally {
    /// `ticks`: the most ticks any simulator can send in the run.
    pub fn new(geometry: &Geometry, interest: Rect, own: Option<u32>, ticks: u64) -> Tally {
        let mut base = vec![None; geometry.simulators as usize];
        let mut slots = 0u64;
        for s in geometry.sources(&interest) {
            if Some(s) == own {
                continue;
            }
            base[s as usize] = Some(slots);
            slots += geometry.owned(s).1;
        }
        let words = (slots * ticks).div_ceil(64) as usize;
        Tally {
            interest,
            own,
            base,
            ticks,
            seen: vec![0; words],
            reflects: 0,
            in_interest: 0,
            unexpected: 0,
            duplicates: 0,
            corrupt: 0,
        }
    }

    /// Count one reflected update.
    pub fn reflect(&mut self, geometry: &Geometry, state: Option<EntityState>) {
        self.reflects += 1;
        let Some(state) = state.filter(|s| s.entity < geometry.entities) else {
            self.corrupt += 1;
            return;
        };
        if geometry.position(state.entity, state.tick) != state.position {
            self.corrupt += 1;
            return;
        }
        let (owner, j) = geometry.owner(state.entity);
        let slot = self.base[owner as usize].map(|b| b + j);
        let (Some(slot), true) = (slot, self.interest.contains(state.position)) else {
            self.unexpected += 1;
            return;
        };
        if state.tick >= self.ticks || Some(owner) == self.own {
            self.unexpected += 1;
            return;
        }
        let bit = slot * self.ticks + state.tick;
        let (word, mask) = ((bit / 64) as usize, 1u64 << (bit % 64));
        if self.seen[word] & mask != 0 {
            self.duplicates += 1;
        } else {
            self.seen[word] |= mask;
            self.in_interest += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::clutter::payload::EntityState;

    #[test]
    fn arrivals_are_sorted_into_expected_duplicate_unexpected_and_corrupt() {
        let geometry = Geometry {
            entities: 40,
            simulators: 4,
            viewers: 1,
            area_units: 20,
            margin_units: 5,
            viewer_window_units: 40,
            max_step_units: 2,
            seed: 3,
        };
        let interest = geometry.subscription(0);
        let mut tally = Tally::new(&geometry, interest, Some(0), 5);
        let state = |entity, tick| EntityState {
            entity,
            tick,
            position: geometry.position(entity, tick),
        };
        // Some entity of simulator 1 at a tick where it is inside the interest.
        let (entity, tick) = (10..20u64)
            .flat_map(|e| (0..5).map(move |k| (e, k)))
            .find(|&(e, k)| interest.contains(geometry.position(e, k)))
            .expect("a neighbour's entity comes into the margin");
        tally.reflect(&geometry, Some(state(entity, tick)));
        tally.reflect(&geometry, Some(state(entity, tick)));
        assert_eq!((tally.in_interest, tally.duplicates), (1, 1));
        // Simulator 3's entities are never in simulator 0's interest... unless they reach
        // the corner band: pick one outside.
        let (far, far_tick) = (30..40u64)
            .flat_map(|e| (0..5).map(move |k| (e, k)))
            .find(|&(e, k)| !interest.contains(geometry.position(e, k)))
            .expect("an entity outside");
        tally.reflect(&geometry, Some(state(far, far_tick)));
        // Its own entity, and a position that is not where the entity was.
        tally.reflect(&geometry, Some(state(0, 0)));
        let mut moved = state(entity, tick);
        moved.position.0 += 1;
        tally.reflect(&geometry, Some(moved));
        tally.reflect(&geometry, None);
        assert_eq!(tally.unexpected, 2);
        assert_eq!(tally.corrupt, 2);
        assert_eq!(tally.reflects, 6);
    }
}
