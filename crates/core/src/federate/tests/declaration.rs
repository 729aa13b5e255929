//! Withdrawing some attributes of a declaration (IEEE 1516.1-2010 §5.5, §5.7): the class
//! stays declared with the others. The C ABI did this as withdraw-all-then-declare-again,
//! which dropped a passive subscription's regions; now the federate does it.

use super::*;

#[test]
fn unsubscribing_some_attributes_keeps_reflecting_the_others() {
    let mut w = World::new(33, 2);
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    w.feds[1]
        .subscribe_object_class_attributes_passively(vehicle, &[name, position], &[])
        .unwrap();
    w.pump();
    let car = (w.feds[0].register_object_instance(vehicle, None, 0)).unwrap();
    w.pump();
    w.callbacks(1);
    w.feds[1]
        .unsubscribe_object_class_attributes(vehicle, &[position])
        .unwrap();
    assert_eq!(w.feds[1].subscribed_attributes(vehicle), vec![name]);
    assert!(
        w.feds[1].subscribes_object_class_passively(vehicle),
        "still passive"
    );
    let values = [(name, b"tank".as_slice()), (position, b"1,2".as_slice())];
    (w.feds[0].update_attribute_values(car, &values, b"", 0, None, None)).unwrap();
    w.pump();
    let callbacks = w.callbacks(1);
    assert!(
        matches!(&callbacks[..], [Callback::ReflectAttributeValues { values, .. }] if values.len() == 1 && values[0].0 == name),
        "{callbacks:#?}"
    );
    // The last attribute withdrawn withdraws the class.
    w.feds[1]
        .unsubscribe_object_class_attributes(vehicle, &[name])
        .unwrap();
    assert!(w.feds[1].subscribed_attributes(vehicle).is_empty());
}

#[test]
fn unpublishing_some_attributes_keeps_the_class_published_with_the_others() {
    let mut w = World::new(34, 1);
    let (vehicle, _, name, position, fuel) = handles(&w.feds[0]);
    let fed = &mut w.feds[0];
    fed.publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    fed.unpublish_object_class_attributes(vehicle, &[position])
        .unwrap();
    assert_eq!(fed.published_attributes(vehicle), vec![name]);
    // Fuel belongs to a subclass: not an attribute of the class.
    assert!(fed
        .unpublish_object_class_attributes(vehicle, &[fuel])
        .is_err());
    fed.unpublish_object_class_attributes(vehicle, &[name])
        .unwrap();
    assert!(fed.published_attributes(vehicle).is_empty());
}
