//! Ownership services end to end: two federates over real sockets hand an attribute over.

mod common;

use common::*;

use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, FederateError, OwnershipCallback};
use trellis_core::fom::ObjectModel;
use trellis_core::wire::TransportClass;
use trellis_net::rti::{Driver, ResignAction, RtiError, SendOptions};

#[test]
fn an_attribute_changes_hands_between_federates_over_sockets() {
    let (_router, at) = registry_router();
    let model = Arc::new(ObjectModel::from_sources(&[("trellis-demo.xml", DEMO)]).unwrap());
    let mut a = connect(&at, "Ownership", "a", Driver::Direct);
    a.create_federation_execution(&model).unwrap();
    a.join_federation_execution("a", "sim", model.clone())
        .unwrap();
    let mut b = connect(&at, "Ownership", "b", Driver::Direct);
    b.join_federation_execution("b", "sim", model).unwrap();
    let vehicle = a.object_class_handle("Vehicle").unwrap();
    let name = a.attribute_handle(vehicle, "Name").unwrap();
    let position = a.attribute_handle(vehicle, "Position").unwrap();
    for rti in [&mut a, &mut b] {
        rti.publish_object_class_attributes(vehicle, &[name, position])
            .unwrap();
        rti.subscribe_object_class_attributes(vehicle, &[name, position])
            .unwrap();
    }
    // b's interest reaches the router in its own time: update until b discovers the car.
    let car = a.register_object_instance(vehicle).unwrap();
    let deadline = Instant::now() + WAIT;
    'discover: loop {
        assert!(Instant::now() < deadline, "b never discovered the car");
        a.update_attribute_values(car, &[(name, b"car".as_slice())], b"")
            .unwrap();
        while let Some(c) = b.evoke_callback(Duration::from_millis(20)).unwrap() {
            if matches!(c, Callback::DiscoverObjectInstance { object, .. } if object == car) {
                break 'discover;
            }
        }
    }

    a.unconditional_attribute_ownership_divestiture(car, &[position])
        .unwrap();
    b.attribute_ownership_acquisition_if_available(car, &[position])
        .unwrap();
    // a keeps the unowned attribute and must do the network's work to grant it.
    let deadline = Instant::now() + WAIT;
    let mut b_saw = Vec::new();
    while !b.is_attribute_owned_by_federate(car, position).unwrap() {
        assert!(
            Instant::now() < deadline,
            "never granted: a {:?} b {:?}",
            a.stats(),
            b.stats()
        );
        a.evoke_callback(Duration::from_millis(5)).unwrap();
        b_saw.extend(b.evoke_callback(Duration::from_millis(5)).unwrap());
    }
    // Position is best effort in the model; reliable here, so the test cannot lose it.
    let reliable = SendOptions {
        transport: Some(TransportClass::Reliable),
        ..SendOptions::default()
    };
    b.update_attribute_values_with(car, &[(position, b"1,2".as_slice())], b"", &reliable)
        .unwrap();
    wait_for(
        &mut a,
        |c| matches!(c, Callback::ReflectAttributeValues { object, sender: 2, .. } if *object == car),
    );
    assert!(matches!(
        a.update_attribute_values(car, &[(position, b"3,4".as_slice())], b""),
        Err(RtiError::Federate(FederateError::AttributeNotOwned { .. }))
    ));
    assert!(b_saw.iter().any(|c| matches!(
        c,
        Callback::Ownership(OwnershipCallback::AttributeOwnershipAcquisitionNotification {
            object, attributes, ..
        }) if *object == car && attributes == &vec![position]
    )));

    assert!(matches!(
        b.resign_federation_execution(ResignAction::NoAction),
        Err(RtiError::Federate(
            FederateError::FederateOwnsAttributes { .. }
        ))
    ));
    b.resign_federation_execution(ResignAction::UnconditionallyDivestAttributes)
        .unwrap();
    a.resign_federation_execution(ResignAction::DeleteObjects)
        .unwrap();
    a.destroy_federation_execution().unwrap();
}
