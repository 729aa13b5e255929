//! Region handles (IEEE 1516.1-2010 §9): each service and each refusal, and commits that
//! change what subscribers receive over the simulated router network.

use super::*;
use crate::federate::region::RegionError;
use crate::federate::regions::enclosing;

fn dimensions(fed: &Federate) -> (DimensionHandle, DimensionHandle) {
    (fed.dimension("X").unwrap(), fed.dimension("Y").unwrap())
}

/// A region over X alone, `[lower, upper)`, committed.
fn x_region(fed: &mut Federate, lower: u64, upper: u64) -> RegionHandle {
    let (x, _) = dimensions(fed);
    let region = fed.create_region(&[x]).unwrap();
    fed.set_range_bounds(region, x, Range::new(lower, upper))
        .unwrap();
    fed.commit_region_modifications(&[region]).unwrap();
    region
}

fn reflected_times(callbacks: &[Callback]) -> Vec<u64> {
    callbacks
        .iter()
        .filter_map(|c| match c {
            Callback::ReflectAttributeValues { time, .. } => Some(*time),
            _ => None,
        })
        .collect()
}

#[test]
fn region_services_answer_and_refuse_as_the_standard_says() {
    let mut w = World::new(11, 2);
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    let f = &mut w.feds[0];
    let (x, y) = dimensions(f);
    let nowhere = DimensionHandle(99);
    assert_eq!(
        f.create_region(&[x, nowhere]),
        Err(FederateError::InvalidDimensionHandle(99))
    );
    assert_eq!(f.dimension_upper_bound(x), Ok(1000));
    assert_eq!(
        f.dimension_upper_bound(nowhere),
        Err(FederateError::InvalidDimensionHandle(99))
    );
    assert_eq!(
        f.available_dimensions_for_class_attribute(vehicle, position),
        Ok(vec![x, y])
    );

    let region = f.create_region(&[x]).unwrap();
    assert_eq!(region.federate(), f.handle());
    assert_eq!(f.dimension_handle_set(region), Ok(vec![x]));
    assert_eq!(
        f.range_bounds(region, x),
        Ok(Range::new(0, 1000)),
        "a new region spans its dimensions"
    );
    let not_in_region = FederateError::RegionDoesNotContainSpecifiedDimension {
        region,
        dimension: y.0,
    };
    assert_eq!(f.range_bounds(region, y), Err(not_in_region.clone()));
    assert_eq!(
        f.set_range_bounds(region, y, Range::new(0, 10)),
        Err(not_in_region)
    );
    assert!(matches!(
        f.set_range_bounds(region, x, Range::new(10, 10)),
        Err(FederateError::InvalidRangeBound(
            RegionError::EmptyRange { .. }
        ))
    ));
    assert!(matches!(
        f.set_range_bounds(region, x, Range::new(10, 1001)),
        Err(FederateError::InvalidRangeBound(RegionError::OutOfBounds {
            bound: 1000,
            ..
        }))
    ));

    // Bounds change only at commit; the specification shows them at once.
    f.set_range_bounds(region, x, Range::new(10, 20)).unwrap();
    assert_eq!(f.range_bounds(region, x), Ok(Range::new(10, 20)));
    assert_eq!(
        f.region_value(region).unwrap().range(x.0),
        Some(Range::new(0, 1000))
    );
    f.commit_region_modifications(&[region]).unwrap();
    assert_eq!(
        f.region_value(region).unwrap().range(x.0),
        Some(Range::new(10, 20))
    );

    let foreign = RegionHandle::new(f.handle() + 1, 1);
    let not_ours = FederateError::RegionNotCreatedByThisFederate(foreign);
    assert_eq!(
        f.commit_region_modifications(&[region, foreign]),
        Err(not_ours.clone())
    );
    assert_eq!(f.delete_region(foreign), Err(not_ours.clone()));
    assert_eq!(f.dimension_handle_set(foreign), Err(not_ours));

    // Name is distributed in no dimension: a region over X is no context for it.
    assert!(matches!(
        f.subscribe_object_class_attributes_with_regions(vehicle, &[(vec![name], vec![region])]),
        Err(FederateError::InvalidRegionContext { region: r, ref dimension, .. }) if r == region && dimension == "X"
    ));
    f.subscribe_object_class_attributes_with_regions(vehicle, &[(vec![position], vec![region])])
        .unwrap();
    assert_eq!(
        f.delete_region(region),
        Err(FederateError::RegionInUseForUpdateOrSubscription(region))
    );
    f.unsubscribe_object_class_attributes_with_regions(vehicle, &[(vec![position], vec![region])])
        .unwrap();

    // An update association holds a region too.
    f.publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    assert!(matches!(
        f.associate_regions_for_updates(ObjectId::new(7, 7), &[(vec![position], vec![region])]),
        Err(FederateError::ObjectInstanceNotKnown(_))
    ));
    let car = f
        .register_object_instance_with_regions(vehicle, &[(vec![position], vec![region])], None, 0)
        .unwrap();
    assert_eq!(
        f.delete_region(region),
        Err(FederateError::RegionInUseForUpdateOrSubscription(region))
    );
    f.unassociate_regions_for_updates(car, &[(vec![position], vec![region])])
        .unwrap();
    f.delete_region(region).unwrap();
    let gone = FederateError::InvalidRegion(RegionError::Unknown(region));
    assert_eq!(f.dimension_handle_set(region), Err(gone.clone()));
    assert_eq!(
        f.set_range_bounds(region, x, Range::new(1, 2)),
        Err(gone.clone())
    );
    assert_eq!(f.commit_region_modifications(&[region]), Err(gone));

    // Registering with regions needs the attributes published.
    let ground = f.object_class("Vehicle.GroundVehicle").unwrap();
    let other = f.create_region(&[x]).unwrap();
    f.publish_object_class_attributes(ground, &[name]).unwrap();
    assert!(matches!(
        f.register_object_instance_with_regions(ground, &[(vec![position], vec![other])], None, 0),
        Err(FederateError::AttributeNotPublished { .. })
    ));
    let radio = f.interaction_class("Radio").unwrap();
    assert!(matches!(
        f.send_interaction_with_regions(
            radio,
            &[] as &[(ParameterHandle, &[u8])],
            &[other],
            b"",
            0,
            None
        ),
        Err(FederateError::InteractionClassNotPublished(_))
    ));
}

#[test]
fn a_commit_changes_what_a_subscriber_receives() {
    let mut w = World::new(12, 2);
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    let (x, _) = dimensions(&w.feds[0]);
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    let here = x_region(&mut w.feds[0], 100, 101);
    let car = w.feds[0]
        .register_object_instance_with_regions(vehicle, &[(vec![position], vec![here])], None, 0)
        .unwrap();
    let view = x_region(&mut w.feds[1], 0, 500);
    w.feds[1]
        .subscribe_object_class_attributes_with_regions(vehicle, &[(vec![position], vec![view])])
        .unwrap();
    w.pump();
    let update = |w: &mut World, time: u64| {
        w.feds[0]
            .update_attribute_values_in_regions(
                car,
                &[(position, b"p".as_slice())],
                b"",
                time,
                None,
                Some(TransportClass::Reliable),
            )
            .unwrap();
        w.pump();
        w.callbacks(1)
    };
    let first = update(&mut w, 1);
    assert_eq!(reflected_times(&first), vec![1]);
    assert!(first.iter().any(|c| matches!(c,
        Callback::ReflectAttributeValues { region: Some(r), .. } if r.range(x.0) == Some(Range::new(100, 101)))));

    // Set but not committed: nothing changes.
    w.feds[1]
        .set_range_bounds(view, x, Range::new(500, 1000))
        .unwrap();
    assert_eq!(reflected_times(&update(&mut w, 2)), vec![2]);
    w.feds[1].commit_region_modifications(&[view]).unwrap();
    w.pump();
    assert_eq!(reflected_times(&update(&mut w, 3)), Vec::<u64>::new());

    // The publisher's region moves into view: its updates go out in the new bounds.
    w.feds[0]
        .set_range_bounds(here, x, Range::new(700, 701))
        .unwrap();
    w.feds[0].commit_region_modifications(&[here]).unwrap();
    let moved = update(&mut w, 4);
    assert_eq!(reflected_times(&moved), vec![4]);
    assert!(moved.iter().any(|c| matches!(c,
        Callback::ReflectAttributeValues { region: Some(r), .. } if r.range(x.0) == Some(Range::new(700, 701)))));
}

#[test]
fn each_attribute_is_reflected_only_in_its_own_regions() {
    let mut w = World::new(13, 2);
    let (vehicle, _, _, position, _) = handles(&w.feds[0]);
    let velocity = w.feds[0].attribute(vehicle, "Velocity").unwrap();
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[position, velocity])
        .unwrap();
    let west = x_region(&mut w.feds[1], 0, 500);
    let east = x_region(&mut w.feds[1], 500, 1000);
    w.feds[1]
        .subscribe_object_class_attributes_with_regions(
            vehicle,
            &[(vec![position], vec![west]), (vec![velocity], vec![east])],
        )
        .unwrap();
    w.pump();
    let spot = x_region(&mut w.feds[0], 100, 101);
    let car = w.feds[0]
        .register_object_instance_with_regions(
            vehicle,
            &[(vec![position, velocity], vec![spot])],
            None,
            0,
        )
        .unwrap();
    let values = [(position, b"p".as_slice()), (velocity, b"v".as_slice())];
    w.feds[0]
        .update_attribute_values_in_regions(
            car,
            &values,
            b"",
            1,
            None,
            Some(TransportClass::Reliable),
        )
        .unwrap();
    w.pump();
    let got: Vec<Vec<AttributeHandle>> = w
        .callbacks(1)
        .into_iter()
        .filter_map(|c| match c {
            Callback::ReflectAttributeValues { values, .. } => {
                Some(values.into_iter().map(|(a, _)| a).collect())
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        got,
        vec![vec![position]],
        "velocity is subscribed in the east only"
    );

    // Leaving the west region unsubscribes position; velocity's east region stays.
    w.feds[1]
        .unsubscribe_object_class_attributes_with_regions(vehicle, &[(vec![position], vec![west])])
        .unwrap();
    w.feds[1].delete_region(west).unwrap();
    let far = x_region(&mut w.feds[0], 800, 801);
    w.feds[0]
        .associate_regions_for_updates(car, &[(vec![position, velocity], vec![far])])
        .unwrap();
    w.feds[0]
        .unassociate_regions_for_updates(car, &[(vec![position, velocity], vec![spot])])
        .unwrap();
    w.feds[0]
        .update_attribute_values_in_regions(
            car,
            &values,
            b"",
            2,
            None,
            Some(TransportClass::Reliable),
        )
        .unwrap();
    w.pump();
    let got: Vec<(u64, Vec<AttributeHandle>)> = w
        .callbacks(1)
        .into_iter()
        .filter_map(|c| match c {
            Callback::ReflectAttributeValues { values, time, .. } => {
                Some((time, values.into_iter().map(|(a, _)| a).collect()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(got, vec![(2, vec![velocity])]);
}

#[test]
fn interactions_are_received_only_in_subscribed_regions() {
    let mut w = World::new(14, 2);
    let radio = w.feds[0].interaction_class("Radio").unwrap();
    let text = w.feds[0].parameter(radio, "Text").unwrap();
    w.feds[0].publish_interaction_class(radio).unwrap();
    let near = x_region(&mut w.feds[1], 0, 100);
    w.feds[1]
        .subscribe_interaction_class_with_regions(radio, &[near])
        .unwrap();
    w.pump();
    let inside = x_region(&mut w.feds[0], 50, 60);
    let outside = x_region(&mut w.feds[0], 600, 700);
    for (time, region) in [(1, inside), (2, outside)] {
        w.feds[0]
            .send_interaction_with_regions(
                radio,
                &[(text, b"hi".as_slice())],
                &[region],
                b"",
                time,
                None,
            )
            .unwrap();
    }
    w.pump();
    let times: Vec<u64> = w
        .callbacks(1)
        .into_iter()
        .filter_map(|c| match c {
            Callback::ReceiveInteraction { time, .. } => Some(time),
            _ => None,
        })
        .collect();
    assert_eq!(times, vec![1]);
    assert_eq!(
        w.feds[1].delete_region(near),
        Err(FederateError::RegionInUseForUpdateOrSubscription(near))
    );
    w.feds[1]
        .unsubscribe_interaction_class_with_regions(radio, &[near])
        .unwrap();
    w.pump();
    w.feds[0]
        .send_interaction_with_regions(radio, &[(text, b"hi".as_slice())], &[inside], b"", 3, None)
        .unwrap();
    w.pump();
    assert!(w.callbacks(1).is_empty(), "unsubscribed");
    w.feds[1].delete_region(near).unwrap();
}

#[test]
fn several_regions_enclose_into_one() {
    let a = Region::new()
        .with(1, Range::new(10, 20))
        .with(2, Range::new(5, 6));
    let b = Region::new().with(1, Range::new(50, 60));
    let both = enclosing(&[&a, &b]).unwrap();
    assert_eq!(both.range(1), Some(Range::new(10, 60)));
    assert_eq!(both.range(2), None, "b spans all of dimension 2");
    assert_eq!(enclosing(&[]), None);
}

#[test]
fn plain_and_region_subscriptions_add_up_and_requests_name_regions() {
    let mut w = World::new(15, 2);
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    // Name everywhere (plain), then position in the west only: both hold.
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name], &[])
        .unwrap();
    let west = x_region(&mut w.feds[1], 0, 500);
    w.feds[1]
        .subscribe_object_class_attributes_with_regions(vehicle, &[(vec![position], vec![west])])
        .unwrap();
    w.pump();
    let east = x_region(&mut w.feds[0], 700, 701);
    let car = w.feds[0]
        .register_object_instance_with_regions(vehicle, &[(vec![position], vec![east])], None, 0)
        .unwrap();
    let values = [(name, b"n".as_slice()), (position, b"p".as_slice())];
    w.feds[0]
        .update_attribute_values_in_regions(
            car,
            &values,
            b"",
            1,
            None,
            Some(TransportClass::Reliable),
        )
        .unwrap();
    w.pump();
    let reflected: Vec<Vec<AttributeHandle>> = w
        .callbacks(1)
        .into_iter()
        .filter_map(|c| match c {
            Callback::ReflectAttributeValues { values, .. } => {
                Some(values.into_iter().map(|(a, _)| a).collect())
            }
            _ => None,
        })
        .collect();
    assert_eq!(reflected, vec![vec![name]], "position went out in the east");

    // A refused update sends nothing, not even the attributes that were fine.
    let velocity = w.feds[0].attribute(vehicle, "Velocity").unwrap();
    let with_unpublished = [(name, b"n".as_slice()), (velocity, b"v".as_slice())];
    assert!(matches!(
        w.feds[0].update_attribute_values_in_regions(car, &with_unpublished, b"", 2, None, None),
        Err(FederateError::AttributeNotPublished { .. })
    ));
    assert_eq!(w.feds[0].poll_action(), None);

    // Requests with regions are checked like subscriptions and reach the owner.
    assert!(matches!(
        w.feds[1].request_attribute_value_update_with_regions(
            vehicle,
            &[(vec![name], vec![west])],
            b"r"
        ),
        Err(FederateError::InvalidRegionContext { .. })
    ));
    w.feds[1]
        .request_attribute_value_update_with_regions(vehicle, &[(vec![position], vec![west])], b"r")
        .unwrap();
    w.pump();
    assert!(w.callbacks(0).iter().any(|c| matches!(c,
        Callback::ProvideAttributeValueUpdate { object, attributes, .. }
            if *object == car && attributes == &vec![position])));
}
