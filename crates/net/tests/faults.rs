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

/// The first byte of the updates the test counts; warm-up updates carry another.
const MEASURED: u8 = 7;

/// Reflections of measured updates among the callbacks ready now.
fn count_reflections(rti: &mut RtiAmbassador) -> usize {
    rti.evoke_multiple_callbacks(Duration::ZERO, usize::MAX)
        .unwrap()
        .iter()
        .filter(|c| measured(c))
        .count()
}

fn measured(callback: &Callback) -> bool {
    matches!(callback, Callback::ReflectAttributeValues { values, .. }
        if values.first().and_then(|(_, v)| v.first()) == Some(&MEASURED))
}

/// Update with a warm-up value until the subscriber reflects one: then its interest has
/// reached the publisher and it knows the instance.
fn warm_up(
    publisher: &mut RtiAmbassador,
    subscriber: &mut RtiAmbassador,
    object: trellis_core::federate::ObjectId,
    attribute: trellis_core::fom::AttributeHandle,
) {
    let deadline = Instant::now() + WAIT;
    loop {
        assert!(
            Instant::now() < deadline,
            "no warm-up update reflected in time"
        );
        publisher
            .update_attribute_values(object, &[(attribute, [0u8].as_slice())], b"")
            .unwrap();
        publisher.evoke_callback(Duration::ZERO).unwrap();
        let reflected = subscriber
            .evoke_multiple_callbacks(Duration::from_millis(10), 100)
            .unwrap()
            .iter()
            .any(|c| matches!(c, Callback::ReflectAttributeValues { .. }));
        if reflected {
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
        warm_up(&mut publisher, subscriber, tank, position);
    }
    // From here the stalled subscriber reads nothing while 60 MB are published: far more
    // than its router queue and socket buffers hold.
    let value = vec![MEASURED; 1000];
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
        reflected += usize::from(next.as_ref().is_some_and(measured));
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
