//! Services federates written for other RTIs expect (issue 31), end to end over a router
//! holding the registry: released names, local deletes, order and transportation changes.

mod common;

use common::*;

use trellis_core::federate::{Callback, FederateError};
use trellis_net::rti::{Driver, ResignAction, RtiAmbassador, RtiError};

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

fn not_reserved(result: Result<(), RtiError>, expected: &str) -> bool {
    matches!(result, Err(RtiError::Federate(FederateError::ObjectInstanceNameNotReserved(n))) if n == expected)
}

#[test]
fn a_released_name_can_be_reserved_by_another_federate() {
    let (_router, at) = registry_router();
    let (mut a, mut b) = pair(&at, "Release");
    a.reserve_object_instance_name("Tank-1").unwrap();
    assert!(matches!(
        b.reserve_object_instance_name("Tank-1"),
        Err(RtiError::ObjectInstanceNameInUse(_))
    ));
    assert!(
        not_reserved(b.release_object_instance_name("Tank-1"), "Tank-1"),
        "only the federate that reserved a name releases it"
    );
    a.release_object_instance_name("Tank-1").unwrap();
    assert!(not_reserved(
        a.release_object_instance_name("Tank-1"),
        "Tank-1"
    ));
    b.reserve_object_instance_name("Tank-1").unwrap();
    let ground = b.object_class_handle("GroundVehicle").unwrap();
    let name = b.attribute_handle(ground, "Name").unwrap();
    b.publish_object_class_attributes(ground, &[name]).unwrap();
    b.register_object_instance_with_name(ground, "Tank-1")
        .unwrap();
    a.resign_federation_execution(ResignAction::default())
        .unwrap();
    b.resign_federation_execution(ResignAction::default())
        .unwrap();
}

#[test]
fn releasing_several_names_releases_all_or_none() {
    let (_router, at) = registry_router();
    let (mut a, mut b) = pair(&at, "ReleaseMany");
    a.reserve_object_instance_name("X").unwrap();
    a.reserve_object_instance_name("Y").unwrap();
    assert!(not_reserved(
        a.release_multiple_object_instance_names(&["X", "Z"]),
        "Z"
    ));
    assert!(
        matches!(
            b.reserve_object_instance_name("X"),
            Err(RtiError::ObjectInstanceNameInUse(_))
        ),
        "X stayed reserved: the release failed as a whole"
    );
    a.release_multiple_object_instance_names(&["X", "Y"])
        .unwrap();
    b.reserve_object_instance_name("X").unwrap();
    b.reserve_object_instance_name("Y").unwrap();
}

#[test]
fn a_locally_deleted_instance_is_discovered_again_over_the_network() {
    let (_router, at) = registry_router();
    let (mut a, mut b) = pair(&at, "LocalDelete");
    let vehicle = a.object_class_handle("Vehicle").unwrap();
    let name = a.attribute_handle(vehicle, "Name").unwrap();
    a.publish_object_class_attributes(vehicle, &[name]).unwrap();
    b.subscribe_object_class_attributes(vehicle, &[name])
        .unwrap();
    let car = a.register_object_instance(vehicle).unwrap();
    discover_by_updates(&mut a, &mut b, car, name);
    assert!(matches!(
        a.local_delete_object_instance(car),
        Err(RtiError::Federate(
            FederateError::FederateOwnsAttributes { .. }
        ))
    ));
    b.local_delete_object_instance(car).unwrap();
    assert!(matches!(
        b.local_delete_object_instance(car),
        Err(RtiError::Federate(FederateError::ObjectInstanceNotKnown(o))) if o == car
    ));
    let callbacks = discover_by_updates(&mut a, &mut b, car, name);
    assert!(
        matches!(callbacks.get(1), Some(Callback::ReflectAttributeValues { object, .. }) if *object == car),
        "the update that discovered it again is reflected: {callbacks:#?}"
    );
}

/// Update `car` until `b` discovers it (its subscription reaches the router meanwhile);
/// the callbacks from the discovery on.
fn discover_by_updates(
    a: &mut RtiAmbassador,
    b: &mut RtiAmbassador,
    car: trellis_core::federate::ObjectId,
    name: trellis_core::fom::AttributeHandle,
) -> Vec<Callback> {
    let deadline = std::time::Instant::now() + WAIT;
    while std::time::Instant::now() < deadline {
        a.update_attribute_values(car, &[(name, b"car".as_slice())], b"")
            .unwrap();
        a.evoke_callback(std::time::Duration::ZERO).unwrap();
        let callbacks = b
            .evoke_multiple_callbacks(std::time::Duration::from_millis(50), 100)
            .unwrap();
        let discovered = callbacks.iter().position(
            |c| matches!(c, Callback::DiscoverObjectInstance { object, .. } if *object == car),
        );
        if let Some(at) = discovered {
            return callbacks[at..].to_vec();
        }
    }
    panic!("{car} was not discovered in time");
}
