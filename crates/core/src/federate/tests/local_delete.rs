//! localDeleteObjectInstance (IEEE 1516.1-2010 §6.15): the subscriber forgets an instance
//! as if never discovered, and its next update discovers it again.

use super::*;

/// Federate 0 registers a vehicle and updates it; federate 1 has discovered it.
fn discovered() -> (World, ObjectId, AttributeHandle) {
    let mut w = World::new(31, 2);
    let (vehicle, name, _) = vehicles_published_and_subscribed(&mut w);
    let car = w.feds[0]
        .register_object_instance(vehicle, None, 0)
        .unwrap();
    w.pump();
    let callbacks = w.callbacks(1);
    assert!(
        matches!(&callbacks[..], [Callback::DiscoverObjectInstance { object, .. }] if *object == car),
        "{callbacks:#?}"
    );
    (w, car, name)
}

fn update(w: &mut World, car: ObjectId, name: AttributeHandle, value: &[u8]) {
    w.feds[0]
        .update_attribute_values(car, &[(name, value)], b"", 0, None, None)
        .unwrap();
    w.pump();
}

#[test]
fn a_locally_deleted_instance_is_discovered_again_by_its_next_update() {
    let (mut w, car, name) = discovered();
    w.feds[1].local_delete_object_instance(car).unwrap();
    assert_eq!(w.feds[1].known_object_count(), 0);
    assert!(w.callbacks(1).is_empty(), "no removal: it was local");
    update(&mut w, car, name, b"car");
    let callbacks = w.callbacks(1);
    assert!(
        matches!(&callbacks[..], [Callback::DiscoverObjectInstance { object, .. }, Callback::ReflectAttributeValues { object: reflected, .. }] if *object == car && *reflected == car),
        "{callbacks:#?}"
    );
    assert_eq!(w.feds[1].known_object_count(), 1);
}

#[test]
fn reflections_queued_before_a_local_delete_are_not_delivered() {
    let (mut w, car, name) = discovered();
    update(&mut w, car, name, b"before");
    w.feds[1].local_delete_object_instance(car).unwrap();
    assert!(w.callbacks(1).is_empty());
    update(&mut w, car, name, b"after");
    let reflected: Vec<Bytes> = (w.callbacks(1).into_iter())
        .filter_map(|c| match c {
            Callback::ReflectAttributeValues { mut values, .. } => values.pop().map(|(_, v)| v),
            _ => None,
        })
        .collect();
    assert_eq!(reflected, vec![Bytes::from_static(b"after")]);
}

#[test]
fn local_delete_refuses_an_unknown_instance_and_one_with_owned_attributes() {
    let (mut w, car, _) = discovered();
    let stranger = ObjectId::new(7, 7);
    assert_eq!(
        w.feds[1].local_delete_object_instance(stranger),
        Err(FederateError::ObjectInstanceNotKnown(stranger))
    );
    assert!(matches!(
        w.feds[0].local_delete_object_instance(car),
        Err(FederateError::FederateOwnsAttributes { object, .. }) if object == car
    ));
    assert_eq!(w.feds[0].owned_object_count(), 1, "the registrar kept it");
    w.feds[1].local_delete_object_instance(car).unwrap();
    assert_eq!(
        w.feds[1].local_delete_object_instance(car),
        Err(FederateError::ObjectInstanceNotKnown(car)),
        "forgotten already"
    );
}
