//! Update rates enforced: a subscription with an update rate designator gets each
//! instance's reflections at most at that rate, the newest value of every attribute held
//! until the interval has passed, never lost.

use super::*;

/// The demo model with a 10 Hz update rate "Slow".
fn rated_model() -> Arc<ObjectModel> {
    let rates = "<objectModel><updateRates><updateRate><name>Slow</name><rate>10</rate>\
                 </updateRate></updateRates></objectModel>";
    Arc::new(ObjectModel::from_sources(&[("trellis-demo.xml", FOM), ("rates.xml", rates)]).unwrap())
}

/// The values of the reflections `fed` has, as (attribute, text) lists.
fn reflected(w: &mut World, fed: usize) -> Vec<Vec<(AttributeHandle, String)>> {
    (w.callbacks(fed).into_iter())
        .filter_map(|c| match c {
            Callback::ReflectAttributeValues { values, .. } => Some(
                (values.into_iter())
                    .map(|(a, v)| (a, String::from_utf8_lossy(&v).into_owned()))
                    .collect(),
            ),
            _ => None,
        })
        .collect()
}

fn ms(millis: u64) -> Duration {
    Duration::from_millis(millis)
}

#[test]
fn reflections_are_thinned_to_the_rate_and_the_newest_values_wait_for_it() {
    let mut w = World::with_model(51, 2, rated_model());
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name, position], &[])
        .unwrap();
    assert_eq!(
        w.feds[1].set_object_class_update_rate(vehicle, Some("Never")),
        Err(FederateError::InvalidUpdateRateDesignator("Never".into()))
    );
    assert!(!w.feds[1].needs_clock());
    w.feds[1]
        .set_object_class_update_rate(vehicle, Some("Slow"))
        .unwrap();
    assert!(w.feds[1].needs_clock());
    assert_eq!(
        w.feds[1].object_class_update_rate(vehicle),
        Some(("Slow", ms(100)))
    );
    w.pump();
    let car = w.feds[0]
        .register_object_instance(vehicle, None, 0)
        .unwrap();
    let update = |w: &mut World, attribute: AttributeHandle, value: &str| {
        w.feds[0]
            .update_attribute_values(car, &[(attribute, value.as_bytes())], b"", 0, None, None)
            .unwrap();
        w.pump();
    };
    w.feds[1].set_now(ms(1000));
    update(&mut w, name, "a");
    assert_eq!(reflected(&mut w, 1), vec![vec![(name, "a".to_owned())]]);

    // Three updates within the interval: held, merged, newest value per attribute.
    w.feds[1].set_now(ms(1010));
    update(&mut w, name, "b");
    update(&mut w, position, "p");
    update(&mut w, name, "c");
    assert_eq!(reflected(&mut w, 1), Vec::<Vec<_>>::new());
    assert_eq!(w.feds[1].next_release(), Some(ms(1100)));
    w.feds[1].set_now(ms(1099));
    assert!(!w.feds[1].has_callbacks());
    w.feds[1].set_now(ms(1100));
    assert!(w.feds[1].has_callbacks());
    assert_eq!(
        reflected(&mut w, 1),
        vec![vec![(name, "c".to_owned()), (position, "p".to_owned())]]
    );
    assert_eq!(w.feds[1].next_release(), None);

    // An interval after the last reflection, an update goes through at once.
    w.feds[1].set_now(ms(1200));
    update(&mut w, name, "d");
    assert_eq!(reflected(&mut w, 1), vec![vec![(name, "d".to_owned())]]);

    // Subscribed again without a rate: every update is reflected.
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name, position], &[])
        .unwrap();
    update(&mut w, name, "e");
    update(&mut w, name, "f");
    assert_eq!(
        reflected(&mut w, 1),
        vec![vec![(name, "e".to_owned())], vec![(name, "f".to_owned())]]
    );
}

#[test]
fn a_held_reflection_goes_with_its_instance() {
    let mut w = World::with_model(52, 2, rated_model());
    let (vehicle, _, name, _, _) = handles(&w.feds[0]);
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name])
        .unwrap();
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name], &[])
        .unwrap();
    w.feds[1]
        .set_object_class_update_rate(vehicle, Some("Slow"))
        .unwrap();
    w.pump();
    let car = w.feds[0]
        .register_object_instance(vehicle, None, 0)
        .unwrap();
    for value in ["a", "b"] {
        w.feds[0]
            .update_attribute_values(car, &[(name, value.as_bytes())], b"", 0, None, None)
            .unwrap();
    }
    w.pump();
    assert_eq!(reflected(&mut w, 1).len(), 1);
    assert!(w.feds[1].next_release().is_some(), "the second is held");
    w.feds[0].delete_object_instance(car, b"", 0).unwrap();
    w.pump();
    w.feds[1].set_now(ms(10_000));
    assert_eq!(reflected(&mut w, 1), Vec::<Vec<_>>::new());
    assert_eq!(w.feds[1].next_release(), None);
}
