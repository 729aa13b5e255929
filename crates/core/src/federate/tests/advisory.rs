//! Relevance advisories (IEEE 1516.1-2010 §5.10-5.13) driven by a real router's interest:
//! subscribers appearing and leaving turn a publisher's advice on and off, exactly on
//! changes, and not at all while its switches are off.

use super::*;

impl World {
    /// `pump`, then hand each federate what its router says the rest of the network wants,
    /// as the node does whenever that changes.
    fn pump_advised(&mut self) {
        self.pump();
        for (i, fed) in self.feds.iter_mut().enumerate() {
            let router = &self.sim.nodes[self.nodes[i]].router;
            fed.set_network_interest(&router.network_interest());
        }
    }

    /// The advisory callbacks federate `fed` has, in order.
    fn advisories(&mut self, fed: usize) -> Vec<Callback> {
        (self.callbacks(fed).into_iter())
            .filter(|c| {
                matches!(
                    c,
                    Callback::StartRegistrationForObjectClass { .. }
                        | Callback::StopRegistrationForObjectClass { .. }
                        | Callback::TurnInteractionsOn { .. }
                        | Callback::TurnInteractionsOff { .. }
                        | Callback::TurnUpdatesOnForObjectInstance { .. }
                        | Callback::TurnUpdatesOffForObjectInstance { .. }
                )
            })
            .collect()
    }
}

fn enable_all(fed: &mut Federate) {
    fed.enable_object_class_relevance_advisory_switch().unwrap();
    fed.enable_attribute_relevance_advisory_switch().unwrap();
    fed.enable_interaction_relevance_advisory_switch().unwrap();
}

#[test]
fn a_subscriber_coming_and_going_starts_and_stops_the_publisher_exactly_on_changes() {
    // 0 publishes with its switches on, 1 subscribes, 2 publishes the same with them off.
    let mut w = World::new(21, 3);
    let (vehicle, ground, name, position, _) = handles(&w.feds[0]);
    let radio = w.feds[0].interaction_class("Radio").unwrap();
    assert_eq!(w.feds[0].advisory_switches(), AdvisorySwitches::default());
    enable_all(&mut w.feds[0]);
    let mut tanks = Vec::new();
    for p in [0, 2] {
        let f = &mut w.feds[p];
        f.publish_object_class_attributes(ground, &[name, position])
            .unwrap();
        f.publish_interaction_class(radio).unwrap();
        tanks.push(f.register_object_instance(ground, None, 0).unwrap());
    }
    let tank = tanks[0];
    w.pump_advised();
    assert_eq!(w.advisories(0), vec![], "nobody subscribes yet");

    // A subscriber of the superclass makes the subclass relevant.
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name], &[])
        .unwrap();
    w.pump_advised();
    assert_eq!(
        w.advisories(0),
        vec![
            Callback::StartRegistrationForObjectClass { class: ground },
            Callback::TurnUpdatesOnForObjectInstance {
                object: tank,
                attributes: vec![name, position]
            },
        ]
    );
    w.pump_advised();
    assert_eq!(w.advisories(0), vec![], "no change, no advice");

    w.feds[1].subscribe_interaction_class(radio, &[]).unwrap();
    w.pump_advised();
    assert_eq!(
        w.advisories(0),
        vec![Callback::TurnInteractionsOn { class: radio }]
    );

    // An instance registered while someone listens is turned on at once.
    let second = w.feds[0].register_object_instance(ground, None, 0).unwrap();
    assert_eq!(
        w.advisories(0),
        vec![Callback::TurnUpdatesOnForObjectInstance {
            object: second,
            attributes: vec![name, position]
        }]
    );
    w.feds[0].delete_object_instance(second, b"", 0).unwrap();

    w.feds[1].unsubscribe_object_class(vehicle);
    w.feds[1].unsubscribe_interaction_class(radio);
    w.pump_advised();
    assert_eq!(
        w.advisories(0),
        vec![
            Callback::StopRegistrationForObjectClass { class: ground },
            Callback::TurnInteractionsOff { class: radio },
            Callback::TurnUpdatesOffForObjectInstance {
                object: tank,
                attributes: vec![name, position]
            },
        ]
    );
    assert_eq!(w.advisories(2), vec![], "switches off: no advice at all");
}

#[test]
fn update_relevance_follows_the_regions_updates_are_sent_in() {
    let mut w = World::new(22, 2);
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    let x = w.feds[0].dimension("X").unwrap();
    w.feds[0]
        .enable_attribute_relevance_advisory_switch()
        .unwrap();
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    let spot = w.feds[0].create_region(&[x]).unwrap();
    w.feds[0]
        .set_range_bounds(spot, x, Range::new(100, 101))
        .unwrap();
    w.feds[0].commit_region_modifications(&[spot]).unwrap();
    let car = w.feds[0]
        .register_object_instance_with_regions(vehicle, &[(vec![position], vec![spot])], None, 0)
        .unwrap();
    // The subscriber watches the east: the car's position (sent at x = 100) is wanted by
    // nobody, its name (sent without a region) is.
    let view = w.feds[1].create_region(&[x]).unwrap();
    w.feds[1]
        .set_range_bounds(view, x, Range::new(500, 1000))
        .unwrap();
    w.feds[1].commit_region_modifications(&[view]).unwrap();
    // Interest is per class and cell: a subscriber of name everywhere would make every
    // cell of the class wanted, so this one subscribes position in its view only.
    w.feds[1]
        .subscribe_object_class_attributes_with_regions(vehicle, &[(vec![position], vec![view])])
        .unwrap();
    w.pump_advised();
    assert_eq!(
        w.advisories(0),
        vec![Callback::TurnUpdatesOnForObjectInstance {
            object: car,
            attributes: vec![name]
        }]
    );
    // The subscriber's view widens to the west: position is wanted.
    w.feds[1]
        .set_range_bounds(view, x, Range::new(0, 1000))
        .unwrap();
    w.feds[1].commit_region_modifications(&[view]).unwrap();
    w.pump_advised();
    assert_eq!(
        w.advisories(0),
        vec![Callback::TurnUpdatesOnForObjectInstance {
            object: car,
            attributes: vec![position]
        }]
    );
    // The car's own region moves; still in view, so nothing changes.
    w.feds[0]
        .set_range_bounds(spot, x, Range::new(900, 901))
        .unwrap();
    w.feds[0].commit_region_modifications(&[spot]).unwrap();
    w.pump_advised();
    assert_eq!(w.advisories(0), vec![]);
}

#[test]
fn switches_refuse_a_second_turn_the_same_way_and_re_advise_when_turned_back_on() {
    let mut w = World::new(23, 2);
    let (vehicle, _, name, _, _) = handles(&w.feds[0]);
    let f = &mut w.feds[0];
    assert_eq!(
        f.disable_object_class_relevance_advisory_switch(),
        Err(FederateError::ObjectClassRelevanceAdvisorySwitchIsOff)
    );
    assert_eq!(
        f.disable_attribute_relevance_advisory_switch(),
        Err(FederateError::AttributeRelevanceAdvisorySwitchIsOff)
    );
    assert_eq!(
        f.disable_interaction_relevance_advisory_switch(),
        Err(FederateError::InteractionRelevanceAdvisorySwitchIsOff)
    );
    enable_all(f);
    assert_eq!(
        f.enable_object_class_relevance_advisory_switch(),
        Err(FederateError::ObjectClassRelevanceAdvisorySwitchIsOn)
    );
    assert_eq!(
        f.enable_attribute_relevance_advisory_switch(),
        Err(FederateError::AttributeRelevanceAdvisorySwitchIsOn)
    );
    assert_eq!(
        f.enable_interaction_relevance_advisory_switch(),
        Err(FederateError::InteractionRelevanceAdvisorySwitchIsOn)
    );
    f.publish_object_class_attributes(vehicle, &[name]).unwrap();
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name], &[])
        .unwrap();
    w.pump_advised();
    let start = vec![Callback::StartRegistrationForObjectClass { class: vehicle }];
    assert_eq!(w.advisories(0), start);
    w.feds[0]
        .disable_object_class_relevance_advisory_switch()
        .unwrap();
    w.feds[1].unsubscribe_object_class(vehicle);
    w.pump_advised();
    assert_eq!(
        w.advisories(0),
        vec![],
        "off: the leaving subscriber is not told"
    );
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name], &[])
        .unwrap();
    w.pump_advised();
    w.feds[0]
        .enable_object_class_relevance_advisory_switch()
        .unwrap();
    assert_eq!(w.advisories(0), start, "on again: advised afresh");
}

/// Passive subscriptions (IEEE 1516.1-2010 §5.6, §5.8) receive what active ones do but
/// advise no publisher; a later subscribe of the class replaces the earlier one, whichever
/// kind each is.
#[test]
fn passive_subscribers_receive_everything_and_advise_nothing_until_they_turn_active() {
    let mut w = World::new(24, 2);
    let (vehicle, ground, name, position, _) = handles(&w.feds[0]);
    let radio = w.feds[0].interaction_class("Radio").unwrap();
    enable_all(&mut w.feds[0]);
    let f = &mut w.feds[0];
    f.publish_object_class_attributes(ground, &[name, position])
        .unwrap();
    f.publish_interaction_class(radio).unwrap();
    let tank = f.register_object_instance(ground, None, 0).unwrap();
    w.feds[1]
        .subscribe_object_class_attributes_passively(vehicle, &[name], &[])
        .unwrap();
    w.feds[1]
        .subscribe_interaction_class_passively(radio, &[])
        .unwrap();
    w.pump_advised();
    assert_eq!(
        w.advisories(0),
        vec![],
        "passive subscribers advise nothing"
    );

    // ... and still get the instance, its values and the interactions.
    w.feds[0]
        .update_attribute_values(tank, &[(name, b"tiger")], b"", 0, None, None)
        .unwrap();
    let no_parameters: &[(ParameterHandle, &[u8])] = &[];
    w.feds[0]
        .send_interaction(radio, no_parameters, b"", 0, None, None)
        .unwrap();
    w.pump_advised();
    let received = w.callbacks(1);
    assert!(received
        .iter()
        .any(|c| matches!(c, Callback::DiscoverObjectInstance { object, .. } if *object == tank)));
    assert!(received.iter().any(|c| matches!(
        c,
        Callback::ReflectAttributeValues { object, values, .. }
            if *object == tank && values[0] == (name, Bytes::from_static(b"tiger"))
    )));
    assert!(received
        .iter()
        .any(|c| matches!(c, Callback::ReceiveInteraction { class, .. } if *class == radio)));

    // Subscribing actively replaces the passive subscription: advice starts.
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name], &[])
        .unwrap();
    w.feds[1].subscribe_interaction_class(radio, &[]).unwrap();
    w.pump_advised();
    assert_eq!(
        w.advisories(0),
        vec![
            Callback::StartRegistrationForObjectClass { class: ground },
            Callback::TurnInteractionsOn { class: radio },
            Callback::TurnUpdatesOnForObjectInstance {
                object: tank,
                attributes: vec![name, position]
            },
        ]
    );

    // And passively again: it stops, though the data still flows.
    w.feds[1]
        .subscribe_object_class_attributes_passively(vehicle, &[name], &[])
        .unwrap();
    w.feds[1]
        .subscribe_interaction_class_passively(radio, &[])
        .unwrap();
    w.pump_advised();
    assert_eq!(
        w.advisories(0),
        vec![
            Callback::StopRegistrationForObjectClass { class: ground },
            Callback::TurnInteractionsOff { class: radio },
            Callback::TurnUpdatesOffForObjectInstance {
                object: tank,
                attributes: vec![name, position]
            },
        ]
    );
}

/// The region services have their passive form too, and a passive subscriber in the
/// update's region does not turn updates on.
#[test]
fn a_passive_subscriber_with_regions_turns_no_updates_on() {
    let mut w = World::new(25, 2);
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    let x = w.feds[0].dimension("X").unwrap();
    w.feds[0]
        .enable_attribute_relevance_advisory_switch()
        .unwrap();
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    let car = w.feds[0]
        .register_object_instance(vehicle, None, 0)
        .unwrap();
    let view = w.feds[1].create_region(&[x]).unwrap();
    w.feds[1].commit_region_modifications(&[view]).unwrap();
    w.feds[1]
        .subscribe_object_class_attributes_with_regions_passively(
            vehicle,
            &[(vec![position], vec![view])],
        )
        .unwrap();
    w.pump_advised();
    assert_eq!(w.advisories(0), vec![]);
    w.feds[1]
        .subscribe_object_class_attributes_with_regions(vehicle, &[(vec![position], vec![view])])
        .unwrap();
    w.pump_advised();
    assert_eq!(
        w.advisories(0),
        vec![Callback::TurnUpdatesOnForObjectInstance {
            object: car,
            attributes: vec![name, position]
        }]
    );
}
