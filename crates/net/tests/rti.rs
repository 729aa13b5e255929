//! The RTI services end to end: a router holding the registry on loopback, federates
//! joining through real sockets.

#[path = "common/block_on.rs"]
mod block_on;
mod common;
use block_on::block_on;

use common::*;

use std::sync::Arc;
use std::time::Duration;
use trellis_core::federate::{Callback, FederateError, Range, Region};
use trellis_core::fom::ObjectModel;
use trellis_net::rti::{Driver, RtiAmbassador, RtiError};

#[test]
fn federation_management_fails_each_way_with_its_own_error() {
    let (_router, at) = registry_router();
    let mut a = connect(&at, "Exercise", "a", Driver::Direct);
    let model = model();
    assert!(matches!(
        a.join_federation_execution("a", "sim", model.clone()),
        Err(RtiError::FederationExecutionDoesNotExist(f)) if f == "Exercise"
    ));
    a.create_federation_execution(&model).unwrap();
    assert!(matches!(
        a.create_federation_execution(&model),
        Err(RtiError::FederationExecutionAlreadyExists(_))
    ));
    assert_eq!(
        a.join_federation_execution("a", "sim", model.clone())
            .unwrap(),
        1
    );
    let mut b = connect(&at, "Exercise", "b", Driver::Direct);
    let other = Arc::new(
        ObjectModel::from_sources(&[(
            "other.xml",
            &DEMO.replace("<upperBound>1000", "<upperBound>2000"),
        )])
        .unwrap(),
    );
    assert!(matches!(
        b.join_federation_execution("b", "sim", other),
        Err(RtiError::InconsistentFdd(message)) if message.contains("trellis-demo.xml")
    ));
    // The same modules with other routing bins: the message says which is likelier.
    let mut config = trellis_net::rti::RtiConfig::new(trellis_net::NodeConfig::child_of(
        "c",
        "Exercise",
        at.clone(),
    ));
    config.bins = 1000;
    let mut c = RtiAmbassador::connect(config).unwrap();
    let refused = c.join_federation_execution("c", "sim", model.clone());
    assert!(
        matches!(&refused, Err(RtiError::InconsistentFdd(message)) if message.contains("other routing bins")),
        "{refused:?}"
    );
    assert!(matches!(
        b.join_federation_execution("a", "sim", model.clone()),
        Err(RtiError::FederateNameAlreadyInUse(_))
    ));
    assert!(matches!(
        b.register_object_instance(trellis_core::fom::ObjectClassHandle(0)),
        Err(RtiError::FederateNotExecutionMember)
    ));
    assert_eq!(b.join_federation_execution("b", "sim", model).unwrap(), 2);
    b.reserve_object_instance_name("Tank-1").unwrap();
    assert!(matches!(
        a.reserve_object_instance_name("Tank-1"),
        Err(RtiError::ObjectInstanceNameInUse(_))
    ));
    // The RTI's own names, default ones among them, are never reserved (1516.1-2010 §6.2).
    for illegal in ["HLAobject_1_1", "HLAx", ""] {
        assert!(matches!(
            a.reserve_object_instance_name(illegal),
            Err(RtiError::Federate(FederateError::IllegalName(name))) if name == illegal
        ));
    }
    assert!(matches!(
        a.destroy_federation_execution(),
        Err(RtiError::FederatesCurrentlyJoined(_))
    ));
    a.resign_federation_execution(trellis_net::rti::ResignAction::default())
        .unwrap();
    b.resign_federation_execution(trellis_net::rti::ResignAction::default())
        .unwrap();
    a.destroy_federation_execution().unwrap();
    assert!(matches!(
        a.destroy_federation_execution(),
        Err(RtiError::FederationExecutionDoesNotExist(_))
    ));
}

#[test]
fn objects_and_interactions_flow_between_federates() {
    let (_router, at) = registry_router();
    let model = model();
    let mut publisher = connect(&at, "Flow", "pub", Driver::Direct);
    publisher.create_federation_execution(&model).unwrap();
    publisher
        .join_federation_execution("pub", "sim", model.clone())
        .unwrap();
    let mut subscriber = connect(&at, "Flow", "sub", Driver::Direct);
    subscriber
        .join_federation_execution("sub", "viewer", model)
        .unwrap();

    let ground = publisher.object_class_handle("GroundVehicle").unwrap();
    let vehicle = subscriber.object_class_handle("Vehicle").unwrap();
    let name = publisher.attribute_handle(ground, "Name").unwrap();
    let position = publisher.attribute_handle(ground, "Position").unwrap();
    let radio = publisher.interaction_class_handle("Radio").unwrap();
    let text = publisher.parameter_handle(radio, "Text").unwrap();
    let x = subscriber.dimension_handle("X").unwrap();
    publisher
        .publish_object_class_attributes(ground, &[name, position])
        .unwrap();
    publisher.publish_interaction_class(radio).unwrap();
    // Interactions first: the object subscription sent after them on the same stream
    // proves they arrived once reflections flow.
    subscriber.subscribe_interaction_class(radio).unwrap();
    // The subscriber watches the west half of the map only.
    let west = Region::new().with(x.0, Range::new(0, 500));
    subscriber
        .subscribe_object_class_attributes_with_regions(vehicle, &[name, position], &[west])
        .unwrap();

    publisher.reserve_object_instance_name("Tank-1").unwrap();
    let tank = publisher
        .register_object_instance_with_name(ground, "Tank-1")
        .unwrap();
    let east = Region::new().with(x.0, Range::new(700, 701));
    let west_point = Region::new().with(x.0, Range::new(100, 101));
    let send = |rti: &mut RtiAmbassador, region: &Region, value: &[u8]| {
        let options = trellis_net::rti::SendOptions {
            region: Some(region),
            transport: Some(trellis_core::wire::TransportClass::Reliable),
            ..Default::default()
        };
        rti.update_attribute_values_with(tank, &[(position, value)], b"", &options)
            .unwrap();
    };
    let deadline = std::time::Instant::now() + WAIT;
    let reflected = loop {
        assert!(
            std::time::Instant::now() < deadline,
            "no reflection arrived"
        );
        send(&mut publisher, &east, b"east");
        send(&mut publisher, &west_point, b"west");
        if let Some(Callback::ReflectAttributeValues {
            values,
            object,
            class,
            ..
        }) = subscriber
            .evoke_multiple_callbacks(Duration::from_millis(100), 100)
            .unwrap()
            .into_iter()
            .find(|c| matches!(c, Callback::ReflectAttributeValues { .. }))
        {
            assert_eq!((object, class), (tank, vehicle));
            break values;
        }
    };
    assert_eq!(
        &reflected[0].1[..],
        b"west",
        "the east update is outside the region"
    );
    publisher
        .send_interaction(radio, &[(text, b"over".as_slice())], b"")
        .unwrap();
    let got = wait_for(&mut subscriber, |c| {
        matches!(c, Callback::ReceiveInteraction { .. })
    });
    assert!(
        matches!(got, Callback::ReceiveInteraction { parameters, .. } if &parameters[0].1[..] == b"over")
    );
    publisher.delete_object_instance(tank, b"gone").unwrap();
    let removed = wait_for(&mut subscriber, |c| {
        matches!(c, Callback::RemoveObjectInstance { .. })
    });
    assert!(matches!(removed, Callback::RemoveObjectInstance { object, .. } if object == tank));
}

#[test]
fn callbacks_can_be_awaited_with_the_thread_driver() {
    let (_router, at) = registry_router();
    let model = model();
    let mut a = connect(&at, "Async", "a", Driver::Thread);
    a.create_federation_execution(&model).unwrap();
    a.join_federation_execution("a", "sim", model.clone())
        .unwrap();
    let mut b = connect(&at, "Async", "b", Driver::Thread);
    b.join_federation_execution("b", "sim", model).unwrap();
    let radio = a.interaction_class_handle("Radio").unwrap();
    let text = a.parameter_handle(radio, "Text").unwrap();
    a.publish_interaction_class(radio).unwrap();
    b.subscribe_interaction_class(radio).unwrap();
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        assert!(std::time::Instant::now() < deadline);
        a.send_interaction(radio, &[(text, b"async".as_slice())], b"")
            .unwrap();
        if let Some(Callback::ReceiveInteraction { parameters, .. }) =
            b.evoke_callback(Duration::from_millis(50)).unwrap()
        {
            assert_eq!(&parameters[0].1[..], b"async");
            break;
        }
    }
    a.send_interaction(radio, &[(text, b"awaited".as_slice())], b"")
        .unwrap();
    let callback = block_on(b.next_callback()).unwrap();
    assert!(
        matches!(callback, Callback::ReceiveInteraction { parameters, .. } if &parameters[0].1[..] == b"awaited")
    );
    // A burst arrives in batches: awaited one by one, every message comes, in order.
    let burst: Vec<Vec<u8>> = (0..200u32).map(|i| i.to_le_bytes().to_vec()).collect();
    for text_value in &burst {
        a.send_interaction(radio, &[(text, text_value.as_slice())], b"")
            .unwrap();
    }
    let mut heard = Vec::new();
    while heard.len() < burst.len() {
        match block_on(b.next_callback()).unwrap() {
            Callback::ReceiveInteraction { parameters, .. } if parameters[0].1.len() == 4 => {
                heard.push(parameters[0].1.to_vec())
            }
            _ => {}
        }
    }
    assert_eq!(heard, burst);
}

/// A wait breaker ends an evoke waiting on another thread at once, for both drivers: the
/// C ABI breaks the wait so a service called meanwhile need not wait for it.
#[test]
fn a_wait_breaker_ends_an_evoke_waiting_on_another_thread() {
    let (_router, at) = registry_router();
    let model = model();
    for (driver, federation) in [
        (Driver::Direct, "BreakDirect"),
        (Driver::Thread, "BreakThread"),
    ] {
        let mut a = connect(&at, federation, "a", driver);
        a.create_federation_execution(&model).unwrap();
        a.join_federation_execution("a", "sim", model.clone())
            .unwrap();
        let breaker = a.wait_breaker();
        let evoke_wait = Duration::from_secs(30);
        let waited = std::thread::scope(|scope| {
            let waiting = scope.spawn(|| {
                let started = std::time::Instant::now();
                // Nothing arrives for a: only the breaker ends this wait before 30 s.
                while a.evoke_callback(evoke_wait).unwrap().is_some() {}
                started.elapsed()
            });
            // Broken again and again until the wait ends: a break before the wait began
            // ends the wait at its start, which is as good.
            while !waiting.is_finished() {
                breaker.interrupt();
                std::thread::yield_now();
            }
            waiting.join().unwrap()
        });
        assert!(waited < WAIT, "{driver:?}: the broken wait took {waited:?}");
        a.resign_federation_execution(trellis_net::rti::ResignAction::NoAction)
            .unwrap();
    }
}
