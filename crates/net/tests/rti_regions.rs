//! Regions and advisories end to end: federates on a router over loopback sockets.

mod common;

use common::*;

use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, ObjectId, Range};
use trellis_core::wire::TransportClass;
use trellis_net::rti::{Driver, RtiAmbassador, RtiConfig, SendOptions};
use trellis_net::{Endpoint, NodeConfig};

/// Federates of one federation, the first creating it.
fn join(at: &Endpoint, federation: &str, names: &[(&str, Driver)]) -> Vec<RtiAmbassador> {
    let model = model();
    let mut out = Vec::new();
    for (i, (name, driver)) in names.iter().enumerate() {
        let mut config = RtiConfig::new(NodeConfig::child_of(*name, federation, at.clone()));
        config.driver = *driver;
        let mut rti = RtiAmbassador::connect(config).unwrap();
        if i == 0 {
            rti.create_federation_execution(&model).unwrap();
        }
        rti.join_federation_execution(name, "test", model.clone())
            .unwrap();
        out.push(rti);
    }
    out
}

fn reflected_object(callback: &Callback) -> Option<ObjectId> {
    match callback {
        Callback::ReflectAttributeValues { object, .. } => Some(*object),
        _ => None,
    }
}

#[test]
fn a_region_commit_changes_what_a_subscriber_receives_over_sockets() {
    let (_router, at) = registry_router();
    let mut feds = join(
        &at,
        "Regions",
        &[("pub", Driver::Direct), ("sub", Driver::Direct)],
    );
    let (publisher, rest) = feds.split_first_mut().unwrap();
    let subscriber = &mut rest[0];
    let vehicle = publisher.object_class_handle("Vehicle").unwrap();
    let position = publisher.attribute_handle(vehicle, "Position").unwrap();
    let x = publisher.dimension_handle("X").unwrap();
    assert_eq!(publisher.get_dimension_upper_bound(x).unwrap(), 1000);

    let region = |rti: &mut RtiAmbassador, lower, upper| {
        let r = rti.create_region(&[x]).unwrap();
        rti.set_range_bounds(r, x, Range::new(lower, upper))
            .unwrap();
        rti.commit_region_modifications(&[r]).unwrap();
        r
    };
    let view = region(subscriber, 0, 500);
    subscriber
        .subscribe_object_class_attributes_with_region_handles(
            vehicle,
            &[(vec![position], vec![view])],
        )
        .unwrap();
    publisher
        .publish_object_class_attributes(vehicle, &[position])
        .unwrap();
    let west = region(publisher, 100, 101);
    let east = region(publisher, 700, 701);
    let walker = publisher
        .register_object_instance_with_regions(vehicle, &[(vec![position], vec![west])])
        .unwrap();
    let watcher = publisher
        .register_object_instance_with_regions(vehicle, &[(vec![position], vec![east])])
        .unwrap();
    let reliable = SendOptions {
        transport: Some(TransportClass::Reliable),
        ..Default::default()
    };
    // Updates go out in each instance's associated region; the subscriber reflects until
    // `wanted` says it has what it waits for, and hands back everything reflected.
    let exchange = |publisher: &mut RtiAmbassador,
                    subscriber: &mut RtiAmbassador,
                    wanted: &dyn Fn(&[ObjectId]) -> bool| {
        let deadline = Instant::now() + WAIT;
        let mut got = Vec::new();
        while !wanted(&got) {
            assert!(Instant::now() < deadline, "not reflected in time: {got:?}");
            for object in [walker, watcher] {
                publisher
                    .update_attribute_values_with(
                        object,
                        &[(position, b"p".as_slice())],
                        b"",
                        &reliable,
                    )
                    .unwrap();
            }
            let callbacks = subscriber
                .evoke_multiple_callbacks(Duration::from_millis(20), 100)
                .unwrap();
            got.extend(callbacks.iter().filter_map(reflected_object));
        }
        got
    };
    let first = exchange(publisher, subscriber, &|got| got.contains(&walker));
    assert!(
        first.iter().all(|o| *o == walker),
        "the east is out of view"
    );

    // The view moves east; committed, the subscriber reflects only the east instance.
    subscriber
        .set_range_bounds(view, x, Range::new(500, 1000))
        .unwrap();
    subscriber.commit_region_modifications(&[view]).unwrap();
    let after = exchange(publisher, subscriber, &|got| got.contains(&watcher));
    assert!(
        after.iter().all(|o| *o == watcher),
        "the west is out of view now"
    );

    // The walker's own region moves east too: its updates reach the subscriber again.
    publisher
        .set_range_bounds(west, x, Range::new(900, 901))
        .unwrap();
    publisher.commit_region_modifications(&[west]).unwrap();
    exchange(publisher, subscriber, &|got| got.contains(&walker));
}

fn is_advisory(c: &Callback) -> bool {
    matches!(
        c,
        Callback::StartRegistrationForObjectClass { .. }
            | Callback::StopRegistrationForObjectClass { .. }
            | Callback::TurnInteractionsOn { .. }
            | Callback::TurnInteractionsOff { .. }
            | Callback::TurnUpdatesOnForObjectInstance { .. }
            | Callback::TurnUpdatesOffForObjectInstance { .. }
    )
}

/// Evoke until as many advisories arrived as `expected` holds, and check they are those
/// (in any order: two subscriptions may reach the publisher in one change or in two).
fn expect_advisories(rti: &mut RtiAmbassador, expected: &[Callback]) {
    let count = expected.len();
    let deadline = Instant::now() + WAIT;
    let mut out = Vec::new();
    while out.len() < count {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "advisories so far: {out:?}");
        if let Some(c) = rti.evoke_callback(left).unwrap() {
            if is_advisory(&c) {
                out.push(c);
            }
        }
    }
    assert!(
        expected.iter().all(|e| out.contains(e)),
        "expected {expected:?}, got {out:?}"
    );
}

#[test]
fn a_subscriber_coming_and_going_advises_the_publisher_over_sockets() {
    let (_router, at) = registry_router();
    let mut feds = join(
        &at,
        "Advised",
        &[
            ("pub", Driver::Thread),
            ("quiet", Driver::Direct),
            ("sub", Driver::Direct),
        ],
    );
    let vehicle = feds[0].object_class_handle("Vehicle").unwrap();
    let name = feds[0].attribute_handle(vehicle, "Name").unwrap();
    let radio = feds[0].interaction_class_handle("Radio").unwrap();
    feds[0]
        .enable_object_class_relevance_advisory_switch()
        .unwrap();
    feds[0]
        .enable_attribute_relevance_advisory_switch()
        .unwrap();
    feds[0]
        .enable_interaction_relevance_advisory_switch()
        .unwrap();
    let mut cars = Vec::new();
    for p in [0, 1] {
        feds[p]
            .publish_object_class_attributes(vehicle, &[name])
            .unwrap();
        feds[p].publish_interaction_class(radio).unwrap();
        cars.push(feds[p].register_object_instance(vehicle).unwrap());
    }
    feds[2]
        .subscribe_object_class_attributes(vehicle, &[name])
        .unwrap();
    feds[2].subscribe_interaction_class(radio).unwrap();
    expect_advisories(
        &mut feds[0],
        &[
            Callback::StartRegistrationForObjectClass { class: vehicle },
            Callback::TurnInteractionsOn { class: radio },
            Callback::TurnUpdatesOnForObjectInstance {
                object: cars[0],
                attributes: vec![name],
            },
        ],
    );
    feds[2].unsubscribe_object_class(vehicle).unwrap();
    feds[2].unsubscribe_interaction_class(radio).unwrap();
    expect_advisories(
        &mut feds[0],
        &[
            Callback::StopRegistrationForObjectClass { class: vehicle },
            Callback::TurnInteractionsOff { class: radio },
            Callback::TurnUpdatesOffForObjectInstance {
                object: cars[0],
                attributes: vec![name],
            },
        ],
    );
    let quiet = feds[1]
        .evoke_multiple_callbacks(Duration::ZERO, 1000)
        .unwrap();
    assert!(
        !quiet.iter().any(is_advisory),
        "switches off by default: {quiet:?}"
    );
}
