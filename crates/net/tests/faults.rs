//! Faults a federate must hear of, over real sockets: its router going away, and being cut
//! as a slow consumer while the others carry on.

mod common;

use common::*;

use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_core::wire::TransportClass;
use trellis_net::rti::{Driver, RtiAmbassador, RtiError, SendOptions};

fn lost(callback: &Callback) -> bool {
    matches!(callback, Callback::ConnectionLost { .. })
}

#[test]
fn a_federate_whose_router_stops_hears_connection_lost_and_is_no_longer_joined() {
    let (router, at) = registry_router();
    let model = model();
    let mut federate = connect(&at, "Lost", "a", Driver::Direct);
    federate.create_federation_execution(&model).unwrap();
    federate
        .join_federation_execution("a", "sim", model)
        .unwrap();
    drop(router);
    let Callback::ConnectionLost { fault } = wait_for(&mut federate, lost) else {
        unreachable!()
    };
    assert!(fault.contains("shutting down"), "{fault}");
    let vehicle = federate.object_class_handle("Vehicle");
    assert!(
        matches!(vehicle, Err(RtiError::FederateNotExecutionMember)),
        "services after the loss: {vehicle:?}"
    );
}

/// Reflections among the callbacks ready now.
fn count_reflections(rti: &mut RtiAmbassador) -> usize {
    rti.evoke_multiple_callbacks(Duration::ZERO, usize::MAX)
        .unwrap()
        .iter()
        .filter(|c| matches!(c, Callback::ReflectAttributeValues { .. }))
        .count()
}

/// Evoke both until the subscriber discovers an instance: the publisher answers the
/// discovery request of a subscriber whose interest reached it after the registration.
fn discover(publisher: &mut RtiAmbassador, subscriber: &mut RtiAmbassador) {
    let deadline = Instant::now() + WAIT;
    loop {
        assert!(Instant::now() < deadline, "no discovery in time");
        publisher.evoke_callback(Duration::ZERO).unwrap();
        let next = subscriber
            .evoke_callback(Duration::from_millis(10))
            .unwrap();
        if matches!(next, Some(Callback::DiscoverObjectInstance { .. })) {
            return;
        }
    }
}

#[test]
fn a_subscriber_that_stops_reading_is_cut_and_told_while_the_others_get_everything() {
    let (_router, at) = registry_router();
    let model = model();
    let mut publisher = connect(&at, "Stall", "pub", Driver::Thread);
    publisher.create_federation_execution(&model).unwrap();
    publisher
        .join_federation_execution("pub", "sim", model.clone())
        .unwrap();
    let mut healthy = connect(&at, "Stall", "healthy", Driver::Thread);
    healthy
        .join_federation_execution("healthy", "viewer", model.clone())
        .unwrap();
    let mut stalled = connect(&at, "Stall", "stalled", Driver::Direct);
    stalled
        .join_federation_execution("stalled", "viewer", model)
        .unwrap();
    let vehicle = publisher.object_class_handle("Vehicle").unwrap();
    let position = publisher.attribute_handle(vehicle, "Position").unwrap();
    publisher
        .publish_object_class_attributes(vehicle, &[position])
        .unwrap();
    for subscriber in [&mut healthy, &mut stalled] {
        subscriber
            .subscribe_object_class_attributes(vehicle, &[position])
            .unwrap();
    }
    let tank = publisher.register_object_instance(vehicle).unwrap();
    for subscriber in [&mut healthy, &mut stalled] {
        discover(&mut publisher, subscriber);
    }
    // From here the stalled subscriber reads nothing while 60 MB are published: far more
    // than its router queue and socket buffers hold.
    let value = vec![7u8; 1000];
    let options = SendOptions {
        transport: Some(TransportClass::Reliable),
        ..Default::default()
    };
    let sent = 60_000;
    let mut reflected = 0;
    for _ in 0..sent {
        publisher
            .update_attribute_values_with(tank, &[(position, &value)], b"", &options)
            .unwrap();
        reflected += count_reflections(&mut healthy);
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    while reflected < sent && Instant::now() < deadline {
        let next = healthy.evoke_callback(Duration::from_millis(10)).unwrap();
        reflected += usize::from(matches!(
            next,
            Some(Callback::ReflectAttributeValues { .. })
        ));
        reflected += count_reflections(&mut healthy);
    }
    assert_eq!(
        reflected, sent,
        "the healthy subscriber gets every update, once"
    );
    // The stalled one reads again: what was in its socket, then why it was cut.
    let Callback::ConnectionLost { fault } = wait_for(&mut stalled, lost) else {
        unreachable!()
    };
    assert!(fault.contains("slow consumer"), "{fault}");
    assert!(
        fault.contains("bytes queued"),
        "the figures are given: {fault}"
    );
    assert!(stalled
        .evoke_callback(Duration::from_millis(200))
        .unwrap()
        .is_none());
}
