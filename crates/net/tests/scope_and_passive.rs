//! Passive subscriptions and the attribute scope advisory over a real router (issue 31):
//! a passive subscriber gets reflections and interactions but advises no publisher; a
//! subscriber with the scope switch on is told when attributes come into and leave scope.

mod common;

use common::*;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, ObjectId};
use trellis_core::fom::AttributeHandle;
use trellis_net::rti::{Driver, RtiAmbassador};

/// Two federates joined to `federation`.
fn pair(at: &trellis_net::Endpoint, federation: &str) -> (RtiAmbassador, RtiAmbassador) {
    let model = model();
    let mut a = connect(at, federation, "a", Driver::Direct);
    a.create_federation_execution(&model).unwrap();
    a.join_federation_execution("a", "sim", model.clone())
        .unwrap();
    let mut b = connect(at, federation, "b", Driver::Direct);
    b.join_federation_execution("b", "sim", model).unwrap();
    (a, b)
}

/// Let `a` act (update or send) until `b` has a callback matching `what`; every callback
/// `a` had meanwhile.
fn act_until(
    a: &mut RtiAmbassador,
    b: &mut RtiAmbassador,
    act: impl Fn(&mut RtiAmbassador),
    what: impl Fn(&Callback) -> bool,
) -> Vec<Callback> {
    let deadline = Instant::now() + WAIT;
    let mut at_a = Vec::new();
    while Instant::now() < deadline {
        act(a);
        at_a.extend(a.evoke_multiple_callbacks(Duration::ZERO, 100).unwrap());
        let callbacks = b
            .evoke_multiple_callbacks(Duration::from_millis(50), 100)
            .unwrap();
        if callbacks.iter().any(&what) {
            return at_a;
        }
    }
    panic!("the awaited callback did not come in time");
}

fn is_advice(callback: &Callback) -> bool {
    matches!(
        callback,
        Callback::StartRegistrationForObjectClass { .. }
            | Callback::TurnUpdatesOnForObjectInstance { .. }
            | Callback::TurnInteractionsOn { .. }
    )
}

#[test]
fn a_passive_subscriber_is_served_but_advises_no_publisher_until_it_turns_active() {
    let (_router, at) = registry_router();
    let (mut a, mut b) = pair(&at, "Passive");
    let vehicle = a.object_class_handle("Vehicle").unwrap();
    let aircraft = a.object_class_handle("Vehicle.Aircraft").unwrap();
    let name = a.attribute_handle(vehicle, "Name").unwrap();
    let radio = a.interaction_class_handle("Radio").unwrap();
    a.enable_object_class_relevance_advisory_switch().unwrap();
    a.enable_attribute_relevance_advisory_switch().unwrap();
    a.enable_interaction_relevance_advisory_switch().unwrap();
    a.publish_object_class_attributes(vehicle, &[name]).unwrap();
    a.publish_object_class_attributes(aircraft, &[name])
        .unwrap();
    a.publish_interaction_class(radio).unwrap();
    let car = a.register_object_instance(vehicle).unwrap();
    b.subscribe_object_class_attributes_passively(vehicle, &[name], &[])
        .unwrap();
    b.subscribe_interaction_class_passively(radio).unwrap();

    let update = |a: &mut RtiAmbassador| {
        a.update_attribute_values(car, &[(name, b"car".as_slice())], b"")
            .unwrap()
    };
    let mut at_a = act_until(
        &mut a,
        &mut b,
        update,
        |c| matches!(c, Callback::ReflectAttributeValues { object, .. } if *object == car),
    );
    let no_parameters: &[(trellis_core::fom::ParameterHandle, &[u8])] = &[];
    let send = |a: &mut RtiAmbassador| a.send_interaction(radio, no_parameters, b"").unwrap();
    at_a.extend(act_until(
        &mut a,
        &mut b,
        send,
        |c| matches!(c, Callback::ReceiveInteraction { class, .. } if *class == radio),
    ));
    // An active subscription declared after the passive ones: once `a` is advised of it,
    // it has seen everything `b` declared before.
    b.subscribe_object_class_attributes(aircraft, &[name])
        .unwrap();
    let marker = Callback::StartRegistrationForObjectClass { class: aircraft };
    let deadline = Instant::now() + WAIT;
    while !at_a.contains(&marker) {
        assert!(
            Instant::now() < deadline,
            "the active subscription was not advised"
        );
        at_a.extend(
            a.evoke_multiple_callbacks(Duration::from_millis(20), 100)
                .unwrap(),
        );
    }
    let advice: Vec<&Callback> = at_a.iter().filter(|c| is_advice(c)).collect();
    assert_eq!(
        advice,
        vec![&marker],
        "only the active subscription advised"
    );

    // Subscribing the vehicle actively replaces the passive subscription: advice starts.
    b.subscribe_object_class_attributes(vehicle, &[name])
        .unwrap();
    b.subscribe_interaction_class(radio).unwrap();
    wait_for(&mut a, |c| {
        *c == Callback::StartRegistrationForObjectClass { class: vehicle }
    });
    wait_for(&mut a, |c| {
        *c == Callback::TurnInteractionsOn { class: radio }
    });
}

fn scope_callback(callback: &Callback, car: ObjectId) -> Option<(bool, Vec<AttributeHandle>)> {
    match callback {
        Callback::AttributesInScope { object, attributes } if *object == car => {
            Some((true, attributes.clone()))
        }
        Callback::AttributesOutOfScope { object, attributes } if *object == car => {
            Some((false, attributes.clone()))
        }
        _ => None,
    }
}

#[test]
fn attributes_come_into_scope_and_leave_it_with_their_owner() {
    let (_router, at) = registry_router();
    let (mut a, mut b) = pair(&at, "Scope");
    let vehicle = a.object_class_handle("Vehicle").unwrap();
    let name = a.attribute_handle(vehicle, "Name").unwrap();
    let position = a.attribute_handle(vehicle, "Position").unwrap();
    b.enable_attribute_scope_advisory_switch().unwrap();
    assert!(b.attribute_scope_advisory_switch().unwrap());
    a.publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    b.subscribe_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    let car = a.register_object_instance(vehicle).unwrap();
    let update = |a: &mut RtiAmbassador| {
        a.update_attribute_values(car, &[(name, b"car".as_slice())], b"")
            .unwrap()
    };
    act_until(&mut a, &mut b, update, |c| {
        scope_callback(c, car) == Some((true, vec![name, position]))
    });
    a.unconditional_attribute_ownership_divestiture(car, &[position])
        .unwrap();
    let left = wait_for(&mut b, |c| scope_callback(c, car).is_some());
    assert_eq!(scope_callback(&left, car), Some((false, vec![position])));
    b.disable_attribute_scope_advisory_switch().unwrap();
    assert!(!b.attribute_scope_advisory_switch().unwrap());
}

/// The demo model with a 10 Hz update rate "Slow".
fn rated_model() -> std::sync::Arc<trellis_core::fom::ObjectModel> {
    let rates = "<objectModel><updateRates><updateRate><name>Slow</name><rate>10</rate>\
                 </updateRate></updateRates></objectModel>";
    let sources = [("trellis-demo.xml", DEMO), ("rates.xml", rates)];
    std::sync::Arc::new(trellis_core::fom::ObjectModel::from_sources(&sources).unwrap())
}

#[test]
fn a_rated_subscription_gets_reflections_at_most_at_its_rate_and_the_last_value() {
    let (_router, at) = registry_router();
    let model = rated_model();
    let mut a = connect(&at, "Rates", "a", Driver::Direct);
    a.create_federation_execution(&model).unwrap();
    a.join_federation_execution("a", "sim", model.clone())
        .unwrap();
    let mut b = connect(&at, "Rates", "b", Driver::Direct);
    b.join_federation_execution("b", "sim", model).unwrap();
    let vehicle = a.object_class_handle("Vehicle").unwrap();
    let name = a.attribute_handle(vehicle, "Name").unwrap();
    a.publish_object_class_attributes(vehicle, &[name]).unwrap();
    b.subscribe_object_class_attributes(vehicle, &[name])
        .unwrap();
    b.set_object_class_update_rate(vehicle, Some("Slow"))
        .unwrap();
    let car = a.register_object_instance(vehicle).unwrap();
    let first = |a: &mut RtiAmbassador| {
        a.update_attribute_values(car, &[(name, b"first".as_slice())], b"")
            .unwrap()
    };
    act_until(
        &mut a,
        &mut b,
        first,
        |c| matches!(c, Callback::ReflectAttributeValues { object, .. } if *object == car),
    );
    // A burst, then every reflection until the burst's last value: at most one per 100 ms.
    let started = Instant::now();
    for i in 0..200 {
        let value = format!("v{i}");
        a.update_attribute_values(car, &[(name, value.as_bytes())], b"")
            .unwrap();
    }
    let mut values = Vec::new();
    let deadline = Instant::now() + WAIT;
    while values.last().map(String::as_str) != Some("v199") {
        assert!(
            Instant::now() < deadline,
            "the last value never came: {values:?}"
        );
        a.evoke_callback(Duration::ZERO).unwrap();
        if let Some(Callback::ReflectAttributeValues { values: v, .. }) =
            b.evoke_callback(Duration::from_millis(20)).unwrap()
        {
            values.push(String::from_utf8_lossy(&v[0].1).into_owned());
        }
    }
    let allowed = started.elapsed().as_millis() / 100 + 2;
    assert!(
        values.len() as u128 <= allowed,
        "{} reflections in {:?}: {values:?}",
        values.len(),
        started.elapsed()
    );
}
