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

/// `a` regulating, `b` constrained, both at time 0.
fn regulating_and_constrained(a: &mut RtiAmbassador, b: &mut RtiAmbassador) {
    use trellis_core::federate::Interval;
    a.enable_time_regulation(Interval::Integer(1)).unwrap();
    wait_for(a, |c| matches!(c, Callback::TimeRegulationEnabled { .. }));
    b.enable_time_constrained().unwrap();
    // a's time reports enable b: both are evoked.
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        assert!(
            std::time::Instant::now() < deadline,
            "b was not constrained in time"
        );
        a.evoke_callback(std::time::Duration::ZERO).unwrap();
        let got = b
            .evoke_callback(std::time::Duration::from_millis(20))
            .unwrap();
        if matches!(got, Some(Callback::TimeConstrainedEnabled { .. })) {
            return;
        }
    }
}

/// Both advance to `time`; what `b` was handed on the way, up to its grant.
fn advance_both(a: &mut RtiAmbassador, b: &mut RtiAmbassador, time: i64) -> Vec<Callback> {
    use trellis_core::federate::LogicalTime;
    a.time_advance_request(LogicalTime::from_i64(time)).unwrap();
    b.time_advance_request(LogicalTime::from_i64(time)).unwrap();
    let deadline = std::time::Instant::now() + WAIT;
    let (mut a_granted, mut handed) = (false, Vec::new());
    while !a_granted || !matches!(handed.last(), Some(Callback::TimeAdvanceGrant { .. })) {
        assert!(
            std::time::Instant::now() < deadline,
            "no grants in time: {handed:#?}"
        );
        let got = a.evoke_callback(std::time::Duration::ZERO).unwrap();
        a_granted |= matches!(got, Some(Callback::TimeAdvanceGrant { .. }));
        if !matches!(handed.last(), Some(Callback::TimeAdvanceGrant { .. })) {
            handed.extend(
                b.evoke_callback(std::time::Duration::from_millis(20))
                    .unwrap(),
            );
        }
    }
    handed
}

/// What the order and transportation tests exchange: `a`'s car (Name, Position), which `b`
/// has discovered, and the Radio interaction (Text) `a` publishes and `b` subscribes.
struct Car {
    car: trellis_core::federate::ObjectId,
    name: trellis_core::fom::AttributeHandle,
    position: trellis_core::fom::AttributeHandle,
    radio: trellis_core::fom::InteractionClassHandle,
    text: trellis_core::fom::ParameterHandle,
}

fn car_and_radio(a: &mut RtiAmbassador, b: &mut RtiAmbassador) -> Car {
    let vehicle = a.object_class_handle("Vehicle").unwrap();
    let name = a.attribute_handle(vehicle, "Name").unwrap();
    let position = a.attribute_handle(vehicle, "Position").unwrap();
    let radio = a.interaction_class_handle("Radio").unwrap();
    let text = a.parameter_handle(radio, "Text").unwrap();
    a.publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    a.publish_interaction_class(radio).unwrap();
    b.subscribe_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    b.subscribe_interaction_class(radio).unwrap();
    let car = a.register_object_instance(vehicle).unwrap();
    discover_by_updates(a, b, car, name);
    Car {
        car,
        name,
        position,
        radio,
        text,
    }
}

#[test]
fn changed_order_types_decide_how_time_stamped_messages_go() {
    use trellis_core::federate::LogicalTime;
    use trellis_core::fom::Order;
    let (_router, at) = registry_router();
    let (mut a, mut b) = pair(&at, "OrderTypes");
    let Car {
        car,
        name,
        position,
        radio,
        text,
    } = car_and_radio(&mut a, &mut b);
    // Name travels reliably, in order: once "synced" is reflected, no earlier update of the
    // discovery is still on the way to be mistaken for one of those below.
    a.update_attribute_values(car, &[(name, b"synced".as_slice())], b"")
        .unwrap();
    wait_for(
        &mut b,
        |c| matches!(c, Callback::ReflectAttributeValues { values, .. } if &values[0].1[..] == b"synced"),
    );
    assert!(matches!(
        b.change_attribute_order_type(car, &[name], Order::Receive),
        Err(RtiError::Federate(FederateError::AttributeNotOwned { .. }))
    ));
    assert!(matches!(
        b.change_interaction_order_type(radio, Order::Receive),
        Err(RtiError::Federate(
            FederateError::InteractionClassNotPublished(_)
        ))
    ));
    let stranger = trellis_core::federate::ObjectId::new(9, 9);
    assert!(matches!(
        a.change_attribute_order_type(stranger, &[name], Order::Receive),
        Err(RtiError::Federate(FederateError::ObjectInstanceNotKnown(o))) if o == stranger
    ));
    regulating_and_constrained(&mut a, &mut b);
    a.change_attribute_order_type(car, &[name], Order::Receive)
        .unwrap();
    a.change_interaction_order_type(radio, Order::Receive)
        .unwrap();
    let values = [(name, b"n".as_slice()), (position, b"p".as_slice())];
    let at5 = LogicalTime::from_i64(5);
    a.update_attribute_values_at(car, &values, b"", at5, None)
        .unwrap();
    a.send_interaction_at(radio, &[(text, b"t".as_slice())], b"", at5, None)
        .unwrap();
    let handed = advance_both(&mut a, &mut b, 10);
    assert_eq!(
        sent_orders(&handed),
        vec![
            ("reflect Name".to_owned(), Order::Receive),
            ("interaction".to_owned(), Order::Receive),
            ("reflect Position".to_owned(), Order::TimeStamp),
        ],
        "receive order first, as they come; time-stamp order at the grant"
    );
    a.change_attribute_order_type(car, &[name], Order::TimeStamp)
        .unwrap();
    a.change_interaction_order_type(radio, Order::TimeStamp)
        .unwrap();
    let at15 = LogicalTime::from_i64(15);
    a.update_attribute_values_at(car, &values[..1], b"", at15, None)
        .unwrap();
    a.send_interaction_at(radio, &[(text, b"t".as_slice())], b"", at15, None)
        .unwrap();
    let handed = advance_both(&mut a, &mut b, 20);
    assert_eq!(
        sent_orders(&handed),
        vec![
            ("reflect Name".to_owned(), Order::TimeStamp),
            ("interaction".to_owned(), Order::TimeStamp),
        ]
    );
}

/// The reflections (by attribute: Name or Position) and interactions in `handed`, with
/// their sent order.
fn sent_orders(handed: &[Callback]) -> Vec<(String, trellis_core::fom::Order)> {
    handed
        .iter()
        .filter_map(|c| match c {
            Callback::ReflectAttributeValues {
                values, sent_order, ..
            } => {
                let named = if values.iter().any(|(_, v)| &v[..] == b"n") {
                    "reflect Name"
                } else {
                    "reflect Position"
                };
                Some((named.to_owned(), *sent_order))
            }
            Callback::ReceiveInteraction { sent_order, .. } => {
                Some(("interaction".to_owned(), *sent_order))
            }
            _ => None,
        })
        .collect()
}

/// Update `car`'s `attribute` with `value` until `b` reflects it (best effort may drop
/// one); the transport it arrived over.
fn reflected_transport(
    a: &mut RtiAmbassador,
    b: &mut RtiAmbassador,
    car: trellis_core::federate::ObjectId,
    attribute: trellis_core::fom::AttributeHandle,
    value: &[u8],
) -> trellis_core::wire::TransportClass {
    let deadline = std::time::Instant::now() + WAIT;
    while std::time::Instant::now() < deadline {
        a.update_attribute_values(car, &[(attribute, value)], b"")
            .unwrap();
        let callbacks = b
            .evoke_multiple_callbacks(std::time::Duration::from_millis(50), 100)
            .unwrap();
        let found = callbacks.into_iter().find_map(|c| match c {
            Callback::ReflectAttributeValues {
                values, transport, ..
            } if values.iter().any(|(_, v)| &v[..] == value) => Some(transport),
            _ => None,
        });
        if let Some(transport) = found {
            return transport;
        }
    }
    panic!("{value:?} was not reflected in time");
}

#[test]
fn a_transportation_change_changes_how_updates_and_interactions_travel() {
    use trellis_core::wire::TransportClass::{BestEffort, Reliable};
    let (_router, at) = registry_router();
    let (mut a, mut b) = pair(&at, "Transportation");
    let Car {
        car,
        name,
        position,
        radio,
        text,
    } = car_and_radio(&mut a, &mut b);
    // The object model: Name reliable, Position best effort, Radio reliable.
    assert_eq!(
        a.query_attribute_transportation_type(car, name).unwrap(),
        Reliable
    );
    assert_eq!(
        b.query_attribute_transportation_type(car, position)
            .unwrap(),
        BestEffort
    );
    assert_eq!(
        reflected_transport(&mut a, &mut b, car, position, b"p1"),
        BestEffort
    );
    assert!(matches!(
        b.request_attribute_transportation_type_change(car, &[name], BestEffort),
        Err(RtiError::Federate(FederateError::AttributeNotOwned { .. }))
    ));
    a.request_attribute_transportation_type_change(car, &[name], BestEffort)
        .unwrap();
    a.request_attribute_transportation_type_change(car, &[position], Reliable)
        .unwrap();
    assert_eq!(
        a.query_attribute_transportation_type(car, name).unwrap(),
        BestEffort
    );
    assert_eq!(
        a.query_attribute_transportation_type(car, position)
            .unwrap(),
        Reliable
    );
    assert_eq!(
        reflected_transport(&mut a, &mut b, car, position, b"p2"),
        Reliable
    );
    assert_eq!(
        reflected_transport(&mut a, &mut b, car, name, b"n2"),
        BestEffort
    );

    assert!(matches!(
        b.request_interaction_transportation_type_change(radio, BestEffort),
        Err(RtiError::Federate(
            FederateError::InteractionClassNotPublished(_)
        ))
    ));
    let me = a.federate().unwrap().handle();
    assert_eq!(
        a.query_interaction_transportation_type(me, radio).unwrap(),
        Reliable
    );
    a.request_interaction_transportation_type_change(radio, BestEffort)
        .unwrap();
    assert_eq!(
        a.query_interaction_transportation_type(me, radio).unwrap(),
        BestEffort
    );
    let deadline = std::time::Instant::now() + WAIT;
    let transport = loop {
        assert!(
            std::time::Instant::now() < deadline,
            "no interaction arrived"
        );
        a.send_interaction(radio, &[(text, b"t".as_slice())], b"")
            .unwrap();
        let got = b
            .evoke_multiple_callbacks(std::time::Duration::from_millis(50), 100)
            .unwrap();
        if let Some(transport) = got.into_iter().find_map(|c| match c {
            Callback::ReceiveInteraction { transport, .. } => Some(transport),
            _ => None,
        }) {
            break transport;
        }
    };
    assert_eq!(transport, BestEffort);
}

/// A committed region of `rti` on dimension X over `[low, high)`.
fn region_on_x(
    rti: &mut RtiAmbassador,
    low: u64,
    high: u64,
) -> trellis_core::federate::RegionHandle {
    use trellis_core::federate::Range;
    let x = rti.dimension_handle("X").unwrap();
    let region = rti.create_region(&[x]).unwrap();
    rti.set_range_bounds(region, x, Range::new(low, high))
        .unwrap();
    rti.commit_region_modifications(&[region]).unwrap();
    region
}

#[test]
fn a_time_stamped_interaction_with_regions_goes_time_stamp_order_within_its_regions() {
    use trellis_core::federate::LogicalTime;
    use trellis_core::fom::Order;
    let (_router, at) = registry_router();
    let (mut a, mut b) = pair(&at, "TimedRegions");
    let radio = a.interaction_class_handle("Radio").unwrap();
    let text = a.parameter_handle(radio, "Text").unwrap();
    a.publish_interaction_class(radio).unwrap();
    let west = region_on_x(&mut b, 0, 500);
    b.subscribe_interaction_class_with_region_handles(radio, &[west])
        .unwrap();
    let (inside, outside) = (region_on_x(&mut a, 100, 101), region_on_x(&mut a, 700, 701));
    // Untimed sends until b's subscription is in: the region filter works before time does.
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        assert!(
            std::time::Instant::now() < deadline,
            "no interaction arrived"
        );
        a.send_interaction_with_regions(
            radio,
            &[(text, b"warm-up".as_slice())],
            &[inside],
            b"",
            None,
        )
        .unwrap();
        let got = b
            .evoke_multiple_callbacks(std::time::Duration::from_millis(50), 100)
            .unwrap();
        if got
            .iter()
            .any(|c| matches!(c, Callback::ReceiveInteraction { .. }))
        {
            break;
        }
    }
    regulating_and_constrained(&mut a, &mut b);
    let at5 = LogicalTime::from_i64(5);
    for (region, value) in [(outside, b"east".as_slice()), (inside, b"west".as_slice())] {
        a.send_interaction_with_regions_at(radio, &[(text, value)], &[region], b"", at5)
            .unwrap();
    }
    let handed = advance_both(&mut a, &mut b, 10);
    let timed: Vec<(Vec<u8>, Order, i64)> = handed
        .iter()
        .filter_map(|c| match c {
            Callback::ReceiveInteraction {
                parameters,
                sent_order,
                time,
                ..
            } if &parameters[0].1[..] != b"warm-up" => Some((
                parameters[0].1.to_vec(),
                *sent_order,
                LogicalTime::from_key(*time).as_i64(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(timed, vec![(b"west".to_vec(), Order::TimeStamp, 5)]);
}
