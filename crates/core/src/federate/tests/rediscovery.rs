//! Discovery when a subscription and a registration cross in the network: each federate's
//! node forwards only what the rest of the network declared interest in, so a registration
//! sent before the subscriber's interest reached the registrant's node, and the
//! subscriber's discovery request sent before the publisher's interest reached its own,
//! are both dropped on the way out. The federates learn of the interest that arrived late
//! from their node and announce or ask again.

use super::*;

impl World {
    /// Hand each federate what its node says the rest of the network wants.
    fn tell_network_interest(&mut self) {
        for i in 0..self.feds.len() {
            self.tell_network_interest_to(i);
        }
    }

    fn tell_network_interest_to(&mut self, fed: usize) {
        let router = &self.sim.nodes[self.nodes[fed]].router;
        self.feds[fed].set_network_interest(&router.network_interest());
    }

    fn discoveries(&mut self, fed: usize) -> Vec<ObjectId> {
        (self.callbacks(fed).into_iter())
            .filter_map(|c| match c {
                Callback::DiscoverObjectInstance { object, .. } => Some(object),
                _ => None,
            })
            .collect()
    }
}

/// 0 subscribes to Vehicle while 1 publishes GroundVehicle and registers a tank, in the
/// same instant: neither node knows the other's interest when the messages leave.
fn crossed(seed: u64) -> (World, ObjectId) {
    let mut w = World::new(seed, 2);
    let (vehicle, ground, name, position, _) = handles(&w.feds[0]);
    w.feds[0]
        .subscribe_object_class_attributes(vehicle, &[name], &[])
        .unwrap();
    w.feds[1]
        .publish_object_class_attributes(ground, &[name, position])
        .unwrap();
    let tank = w.feds[1].register_object_instance(ground, None, 0).unwrap();
    w.pump();
    (w, tank)
}

#[test]
fn crossing_messages_are_dropped_by_the_nodes_that_did_not_know_yet() {
    // Without the late interest told, nothing is discovered: the race the rest of this
    // file is about is real.
    let (mut w, _) = crossed(31);
    w.pump();
    assert_eq!(w.discoveries(0), vec![]);
}

#[test]
fn a_subscription_crossing_a_registration_still_discovers_it_once() {
    let (mut w, tank) = crossed(32);
    w.tell_network_interest();
    // Both sides try again (the answer to the request is a second announcement): the
    // subscriber discovers the tank once.
    w.pump();
    w.pump();
    assert_eq!(w.discoveries(0), vec![tank]);
    // Nothing new appears: nothing is announced or asked again.
    w.tell_network_interest();
    let actions: Vec<_> = w.feds.iter_mut().filter_map(|f| f.poll_action()).collect();
    assert!(actions.is_empty(), "{actions:?}");
}

#[test]
fn either_side_alone_makes_the_discovery_good() {
    // The registrant announcing again on the subscriber's interest, and the subscriber
    // asking again on the publisher's: each suffices (in a larger network only one of the
    // two may see a first appearance).
    for (side, seed) in [(1, 33), (0, 34)] {
        let (mut w, tank) = crossed(seed);
        w.tell_network_interest_to(side);
        w.pump();
        w.pump();
        assert_eq!(w.discoveries(0), vec![tank], "told only federate {side}");
    }
}
