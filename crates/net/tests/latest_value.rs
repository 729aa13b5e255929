//! Latest-value caching over real sockets (issue 12, item 2): a router on loopback and
//! federates on the direct driver, which read their sockets only while the application
//! calls in, so a federate that stops calling is a subscriber that stops reading.

mod common;

use common::*;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, ObjectId};
use trellis_core::fom::{AttributeHandle, ObjectClassHandle};
use trellis_core::router::RouterConfig;
use trellis_core::wire::{NodeId, TransportClass};
use trellis_net::rti::{Driver, RtiAmbassador, SendOptions};
use trellis_net::{Endpoint, Host, HostConfig, Runtime};

/// A registry router on a free loopback port, with its host kept for its counters.
fn router() -> (Runtime, Host, Endpoint) {
    let runtime = Runtime::start("latest-router").unwrap();
    let mut router = RouterConfig::new("router", NodeId(1));
    router.hosts_registry = true;
    let mut config = HostConfig::new(router);
    config.listen.push("tcp://127.0.0.1:0".parse().unwrap());
    let host = runtime.add_host(config).unwrap();
    let endpoint = host.listening()[0].clone();
    (runtime, host, endpoint)
}

struct Vehicle {
    class: ObjectClassHandle,
    position: AttributeHandle,
}

/// A publisher whose Vehicle.Position updates are keep-latest (the Trellis extension
/// call, over a stock object model) and reliable, so every update either arrives or is
/// counted as replaced.
fn publisher(at: &Endpoint, federation: &str) -> (RtiAmbassador, Vehicle) {
    let model = model();
    let mut rti = connect(at, federation, "publisher", Driver::Direct);
    rti.create_federation_execution(&model).unwrap();
    rti.join_federation_execution("publisher", "sim", model)
        .unwrap();
    let class = rti.object_class_handle("Vehicle").unwrap();
    let position = rti.attribute_handle(class, "Position").unwrap();
    rti.publish_object_class_attributes(class, &[position])
        .unwrap();
    rti.set_keep_latest(class, &[position], true).unwrap();
    (rti, Vehicle { class, position })
}

fn subscriber(at: &Endpoint, federation: &str, name: &str, vehicle: &Vehicle) -> RtiAmbassador {
    let mut rti = connect(at, federation, name, Driver::Direct);
    rti.join_federation_execution(name, "viewer", model())
        .unwrap();
    rti.subscribe_object_class_attributes(vehicle.class, &[vehicle.position])
        .unwrap();
    rti
}

fn update(rti: &mut RtiAmbassador, vehicle: &Vehicle, object: ObjectId, round: u32) {
    let options = SendOptions {
        transport: Some(TransportClass::Reliable),
        ..SendOptions::default()
    };
    rti.update_attribute_values_with(
        object,
        &[(vehicle.position, round.to_le_bytes())],
        b"",
        &options,
    )
    .unwrap();
}

/// Evoke until `done` holds for what was reflected so far (rounds per instance, in order),
/// within the bound; fails on a lost connection. `also` (the publisher) is called in
/// meanwhile when given: a direct-driver node reads the subscriptions that reach it, and
/// replays its cache for them, only while its application calls in.
fn reflect_until(
    rti: &mut RtiAmbassador,
    mut also: Option<&mut RtiAmbassador>,
    reflected: &mut std::collections::HashMap<ObjectId, Vec<u32>>,
    done: impl Fn(&std::collections::HashMap<ObjectId, Vec<u32>>) -> bool,
) {
    let deadline = Instant::now() + WAIT;
    while !done(reflected) {
        assert!(Instant::now() < deadline, "not done in time: {reflected:?}");
        if let Some(other) = also.as_deref_mut() {
            other.evoke_callback(Duration::ZERO).unwrap();
        }
        match rti.evoke_callback(Duration::from_millis(20)).unwrap() {
            Some(Callback::ReflectAttributeValues { object, values, .. }) => {
                for (_, value) in values {
                    let round = u32::from_le_bytes(value[..4].try_into().unwrap());
                    reflected.entry(object).or_default().push(round);
                }
            }
            Some(Callback::ConnectionLost { fault }) => panic!("connection lost: {fault}"),
            _ => {}
        }
    }
}

/// The subscriber stops calling in (its node reads nothing) while 40 instances are updated
/// 500 times each: 20,000 reliable updates, about 2.4 MB, more than its socket buffers
/// hold. Without replacement all of them would wait for it, a backlog it would work
/// through when it calls in again. Here its router's queue holds at most one frame per
/// instance (what its socket buffers took before it filled is replaced again on the
/// viewer's own node as it reads), and the viewer reflects, per instance, values that only
/// move forward and end at the newest: a small fraction of what was published, the rest
/// counted as replaced.
#[test]
fn a_subscriber_that_stops_reading_gets_the_newest_values_not_a_backlog() {
    let (_runtime, host, at) = router();
    let (mut publisher, vehicle) = publisher(&at, "LatestStall");
    let mut viewer = subscriber(&at, "LatestStall", "viewer", &vehicle);
    let objects: Vec<ObjectId> = (0..40)
        .map(|_| publisher.register_object_instance(vehicle.class).unwrap())
        .collect();
    let mut reflected = std::collections::HashMap::new();
    for &object in &objects {
        update(&mut publisher, &vehicle, object, 0);
    }
    reflect_until(&mut viewer, Some(&mut publisher), &mut reflected, |r| {
        r.len() == objects.len()
    });

    // The viewer stops calling in: from here its node reads nothing.
    let rounds = 500u32;
    let started = Instant::now();
    for round in 1..=rounds {
        for &object in &objects {
            update(&mut publisher, &vehicle, object, round);
        }
    }
    let published = u64::from(rounds) * objects.len() as u64;
    // Wait (bounded) until the router has routed all of it, the publisher calling in.
    let deadline = Instant::now() + WAIT;
    let stats = loop {
        publisher.evoke_callback(Duration::from_millis(10)).unwrap();
        let stats = host.stats().unwrap();
        if stats.router.data_received >= published {
            break stats;
        }
        assert!(
            Instant::now() < deadline,
            "the router did not route everything"
        );
    };
    let stalled_for = started.elapsed();
    let toward_viewer = stats
        .links
        .iter()
        .find(|l| l.peer.as_ref().is_some_and(|p| p.node_name == "viewer"))
        .expect("the router's link to the viewer");
    let one_frame = 200;
    assert!(
        toward_viewer.reliable_queued <= objects.len() * one_frame,
        "{} bytes queued toward the stalled viewer for {} instances",
        toward_viewer.reliable_queued,
        objects.len()
    );
    let replaced = stats.router.latest.replaced;
    assert!(replaced > 0, "{:?}", stats.router.latest);
    assert_eq!(stats.router.drops.total(), 0, "{:?}", stats.router.drops);

    reflect_until(&mut viewer, None, &mut reflected, |r| {
        r.values()
            .all(|rounds_seen| rounds_seen.last() == Some(&rounds))
    });
    for (object, seen) in &reflected {
        assert!(
            seen.windows(2).all(|w| w[0] < w[1]),
            "{object}: values went back in time: {seen:?}"
        );
    }
    let total: usize = reflected.values().map(Vec::len).sum();
    eprintln!(
        "stalled {stalled_for:?}: {published} updates published, {total} reflected, \
         {replaced} replaced at the router, {} stale copies dropped by the viewer's federate",
        viewer.stats().unwrap().stale_values
    );
    assert!(
        (total as u64) < published / 4,
        "a backlog was delivered: {total} of {published}"
    );
}

/// A federate that joins after 30 instances were updated 20 times each, while the
/// publisher does not call in at all (its node reads nothing, so it cannot be asked),
/// discovers every instance and reflects its newest value from the router's cache; the
/// publisher's next update arrives after it.
#[test]
fn a_late_joiner_gets_every_instances_newest_value_from_the_router_without_the_owner() {
    let (_runtime, host, at) = router();
    let (mut publisher, vehicle) = publisher(&at, "LatestLate");
    // An early viewer makes the router route (and so cache) the updates.
    let mut early = subscriber(&at, "LatestLate", "early", &vehicle);
    let objects: Vec<ObjectId> = (0..30)
        .map(|_| publisher.register_object_instance(vehicle.class).unwrap())
        .collect();
    for round in 0..20 {
        for &object in &objects {
            update(&mut publisher, &vehicle, object, round);
        }
    }
    let mut early_seen = std::collections::HashMap::new();
    reflect_until(&mut early, Some(&mut publisher), &mut early_seen, |r| {
        r.len() == objects.len() && r.values().all(|v| v.last() == Some(&19))
    });
    assert!(host.stats().unwrap().router.latest.cached_entries >= objects.len() as u64);

    // From here the publisher does not call in until the late joiner has everything.
    let mut late = subscriber(&at, "LatestLate", "late", &vehicle);
    let mut discovered = Vec::new();
    let mut late_seen: std::collections::HashMap<ObjectId, Vec<u32>> =
        std::collections::HashMap::new();
    let deadline = Instant::now() + WAIT;
    while late_seen.len() < objects.len() || late_seen.values().any(|v| v.last() != Some(&19)) {
        assert!(Instant::now() < deadline, "late joiner: {late_seen:?}");
        match late.evoke_callback(Duration::from_millis(50)).unwrap() {
            Some(Callback::DiscoverObjectInstance { object, .. }) => discovered.push(object),
            Some(Callback::ReflectAttributeValues { object, values, .. }) => {
                assert!(discovered.contains(&object), "reflected before discovered");
                for (_, value) in values {
                    let round = u32::from_le_bytes(value[..4].try_into().unwrap());
                    late_seen.entry(object).or_default().push(round);
                }
            }
            Some(Callback::ConnectionLost { fault }) => panic!("connection lost: {fault}"),
            _ => {}
        }
    }
    for (object, seen) in &late_seen {
        assert_eq!(seen, &vec![19], "{object}: the newest value, once");
    }
    assert!(host.stats().unwrap().router.latest.replayed >= objects.len() as u64);

    // The publisher calls in again and moves on: the late joiner gets the newer value next.
    update(&mut publisher, &vehicle, objects[0], 20);
    reflect_until(&mut late, Some(&mut publisher), &mut late_seen, |r| {
        r[&objects[0]] == vec![19, 20]
    });
}
