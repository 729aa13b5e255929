//! The attribute scope advisory (IEEE 1516.1-2010 §6 attributesInScope† and
//! attributesOutOfScope†): told on changes of discovery, subscription, ownership and update
//! region, only while the switch is on, and never of an instance no longer known.

use super::*;

impl World {
    /// The scope callbacks federate `fed` has, in order.
    fn scope(&mut self, fed: usize) -> Vec<Callback> {
        (self.callbacks(fed).into_iter())
            .filter(|c| {
                matches!(
                    c,
                    Callback::AttributesInScope { .. } | Callback::AttributesOutOfScope { .. }
                )
            })
            .collect()
    }
}

fn in_scope(object: ObjectId, attributes: &[AttributeHandle]) -> Callback {
    Callback::AttributesInScope {
        object,
        attributes: attributes.to_vec(),
    }
}

fn out_of_scope(object: ObjectId, attributes: &[AttributeHandle]) -> Callback {
    Callback::AttributesOutOfScope {
        object,
        attributes: attributes.to_vec(),
    }
}

#[test]
fn scope_follows_discovery_subscription_and_ownership_and_ends_silently_with_the_instance() {
    // 0 registers, 1 subscribes with the switch on, 2 subscribes with it off.
    let mut w = World::new(41, 3);
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    assert!(!w.feds[1].attribute_scope_advisory_switch());
    w.feds[1].enable_attribute_scope_advisory_switch().unwrap();
    assert_eq!(
        w.feds[1].enable_attribute_scope_advisory_switch(),
        Err(FederateError::AttributeScopeAdvisorySwitchIsOn)
    );
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    for f in [1, 2] {
        w.feds[f]
            .subscribe_object_class_attributes(vehicle, &[name, position], &[])
            .unwrap();
    }
    w.pump();
    let car = w.feds[0]
        .register_object_instance(vehicle, None, 0)
        .unwrap();
    w.pump();
    let callbacks = w.callbacks(1);
    assert!(
        matches!(&callbacks[..], [Callback::DiscoverObjectInstance { object, .. }, scope] if *object == car && *scope == in_scope(car, &[name, position])),
        "discovery first, then its subscribed attributes come into scope: {callbacks:#?}"
    );

    // Fewer attributes subscribed: one leaves scope.
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name], &[])
        .unwrap();
    w.pump();
    assert_eq!(w.scope(1), vec![out_of_scope(car, &[position])]);

    // Nobody owns the name any more: it leaves scope too.
    w.feds[0]
        .unconditional_attribute_ownership_divestiture(car, &[name])
        .unwrap();
    w.pump();
    assert_eq!(w.scope(1), vec![out_of_scope(car, &[name])]);

    // Subscribed again: only the attribute someone owns comes back.
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name, position], &[])
        .unwrap();
    w.pump();
    assert_eq!(w.scope(1), vec![in_scope(car, &[position])]);

    // Owned here, an attribute is not in scope (another federate must own it).
    w.feds[1]
        .publish_object_class_attributes(vehicle, &[name])
        .unwrap();
    w.feds[1]
        .attribute_ownership_acquisition_if_available(car, &[name])
        .unwrap();
    w.pump();
    w.pump();
    assert!(w.feds[1].is_attribute_owned_by_federate(car, name).unwrap());
    assert_eq!(w.scope(1), vec![], "owned here: still out of scope");

    // The instance goes: removal says it all, no out-of-scope for an unknown instance.
    w.feds[0].delete_object_instance(car, b"", 0).unwrap();
    w.pump();
    assert_eq!(w.scope(1), vec![]);
    assert_eq!(w.scope(2), vec![], "switch off: nothing told");
}

#[test]
fn turning_the_switch_on_tells_what_is_in_scope_and_off_forgets_it() {
    let mut w = World::new(42, 2);
    let (vehicle, _, name, _, _) = handles(&w.feds[0]);
    assert_eq!(
        w.feds[1].disable_attribute_scope_advisory_switch(),
        Err(FederateError::AttributeScopeAdvisorySwitchIsOff)
    );
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name])
        .unwrap();
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name], &[])
        .unwrap();
    w.pump();
    let car = w.feds[0]
        .register_object_instance(vehicle, None, 0)
        .unwrap();
    w.pump();
    assert_eq!(w.scope(1), vec![]);
    w.feds[1].enable_attribute_scope_advisory_switch().unwrap();
    assert_eq!(w.scope(1), vec![in_scope(car, &[name])]);
    w.feds[1].disable_attribute_scope_advisory_switch().unwrap();
    w.feds[1].enable_attribute_scope_advisory_switch().unwrap();
    assert_eq!(w.scope(1), vec![in_scope(car, &[name])], "told afresh");
    // A local delete forgets the instance without a word; its next update brings it back.
    w.feds[1].local_delete_object_instance(car).unwrap();
    assert_eq!(w.scope(1), vec![]);
    w.feds[0]
        .update_attribute_values(car, &[(name, b"car")], b"", 0, None, None)
        .unwrap();
    w.pump();
    assert_eq!(w.scope(1), vec![in_scope(car, &[name])]);
}

#[test]
fn with_regions_scope_follows_the_region_updates_are_heard_in() {
    let mut w = World::new(43, 2);
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    let x = w.feds[0].dimension("X").unwrap();
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    let spot = w.feds[0].create_region(&[x]).unwrap();
    w.feds[0]
        .set_range_bounds(spot, x, Range::new(100, 101))
        .unwrap();
    w.feds[0].commit_region_modifications(&[spot]).unwrap();
    // 1 takes the name everywhere (so every update reaches it) and the position in the
    // east only.
    w.feds[1].enable_attribute_scope_advisory_switch().unwrap();
    let east = w.feds[1].create_region(&[x]).unwrap();
    w.feds[1]
        .set_range_bounds(east, x, Range::new(500, 1000))
        .unwrap();
    w.feds[1].commit_region_modifications(&[east]).unwrap();
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name], &[])
        .unwrap();
    w.feds[1]
        .subscribe_object_class_attributes_with_regions(vehicle, &[(vec![position], vec![east])])
        .unwrap();
    w.pump();
    let car = w.feds[0]
        .register_object_instance_with_regions(vehicle, &[(vec![position], vec![spot])], None, 0)
        .unwrap();
    w.pump();
    assert_eq!(
        w.scope(1),
        vec![in_scope(car, &[name])],
        "the position's update region is not known yet"
    );
    let update = |w: &mut World| {
        w.feds[0]
            .update_attribute_values_in_regions(car, &[(position, b"p")], b"", 0, None, None)
            .unwrap();
        w.pump();
    };
    update(&mut w);
    assert_eq!(w.scope(1), vec![], "updated in the west: out of scope");
    w.feds[0]
        .set_range_bounds(spot, x, Range::new(900, 901))
        .unwrap();
    w.feds[0].commit_region_modifications(&[spot]).unwrap();
    update(&mut w);
    assert_eq!(w.scope(1), vec![in_scope(car, &[position])]);
    w.feds[0]
        .set_range_bounds(spot, x, Range::new(100, 101))
        .unwrap();
    w.feds[0].commit_region_modifications(&[spot]).unwrap();
    update(&mut w);
    assert_eq!(w.scope(1), vec![out_of_scope(car, &[position])]);
}
