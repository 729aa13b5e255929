//! The federate library over a simulated network of real routers.

use super::*;
use crate::sim::{NodeIndex, Sim, SimConfig};
use std::time::Duration;

const FOM: &str = include_str!("../../../../foms/trellis-demo.xml");
const FED: &str = "Demo";

fn model() -> Arc<ObjectModel> {
    Arc::new(ObjectModel::from_sources(&[("trellis-demo.xml", FOM)]).unwrap())
}

/// Federates on sim nodes, all children of one router.
struct World {
    sim: Sim,
    nodes: Vec<NodeIndex>,
    feds: Vec<Federate>,
    seen: Vec<usize>,
}

impl World {
    fn new(seed: u64, count: usize) -> World {
        World::with_model(seed, count, model())
    }

    fn with_model(seed: u64, count: usize, model: Arc<ObjectModel>) -> World {
        let mut sim = Sim::new(seed, SimConfig::default());
        let router = sim.add_router("router");
        let mut nodes = Vec::new();
        let mut feds = Vec::new();
        for i in 0..count {
            let node = sim.add_federate(&format!("f{i}"), FED);
            sim.connect_parent(node, router, FED);
            nodes.push(node);
            feds.push(Federate::new(model.clone(), i as u32 + 1, DEFAULT_BINS).unwrap());
        }
        World {
            sim,
            nodes,
            feds,
            seen: vec![0; count],
        }
    }

    /// Hand every federate's actions to its node, let the network settle, and hand what
    /// arrived to the federates.
    fn pump(&mut self) {
        for (i, fed) in self.feds.iter_mut().enumerate() {
            while let Some(action) = fed.poll_action() {
                let now = self.sim.now();
                let router = &mut self.sim.nodes[self.nodes[i]].router;
                match action {
                    Action::SetInterest(ids) => router.set_interest(now, &ids),
                    Action::Publish {
                        ids,
                        class,
                        payload,
                        latest,
                    } => {
                        router
                            .publish_with(now, &ids, class, 0, latest, &payload)
                            .unwrap();
                    }
                    // Through the node's own path: the federate's frame passes the router's
                    // checks as it is.
                    Action::PublishFrame(mut frame) => {
                        frame.set_federation(crate::wire::FederationId::of(FED));
                        router.publish_encoded(now, frame.into_bytes()).unwrap();
                    }
                    Action::Ask(request) => {
                        panic!("these tests make no registry requests, got {request:?}")
                    }
                    Action::ExtendModel { modules, .. } => {
                        panic!("these tests add no modules, got {modules:?}")
                    }
                }
            }
        }
        self.sim.run_until_quiet(Duration::from_secs(30)).unwrap();
        for (i, fed) in self.feds.iter_mut().enumerate() {
            let received = &self.sim.nodes[self.nodes[i]].received;
            for r in &received[self.seen[i]..] {
                fed.handle_message(&r.payload, r.class);
            }
            self.seen[i] = received.len();
        }
    }

    fn callbacks(&mut self, fed: usize) -> Vec<Callback> {
        std::iter::from_fn(|| self.feds[fed].poll_callback()).collect()
    }
}

fn handles(
    fed: &Federate,
) -> (
    ObjectClassHandle,
    ObjectClassHandle,
    AttributeHandle,
    AttributeHandle,
    AttributeHandle,
) {
    let vehicle = fed.object_class("Vehicle").unwrap();
    let ground = fed.object_class("Vehicle.GroundVehicle").unwrap();
    (
        vehicle,
        ground,
        fed.attribute(vehicle, "Name").unwrap(),
        fed.attribute(vehicle, "Position").unwrap(),
        fed.attribute(ground, "Fuel").unwrap(),
    )
}

/// Federate 0 publishes Vehicle's Name and Position and federate 1 subscribes to them, and
/// each has heard the other: (Vehicle, Name, Position).
fn vehicles_published_and_subscribed(
    w: &mut World,
) -> (ObjectClassHandle, AttributeHandle, AttributeHandle) {
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name, position], &[])
        .unwrap();
    w.pump();
    (vehicle, name, position)
}

#[test]
fn a_subclass_instance_is_discovered_and_reflected_as_the_subscribed_class() {
    let mut w = World::new(1, 2);
    let (vehicle, ground, name, position, fuel) = handles(&w.feds[0]);
    w.feds[0]
        .publish_object_class_attributes(ground, &[name, position, fuel])
        .unwrap();
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name, position], &[])
        .unwrap();
    w.pump();
    let tank = w.feds[0].register_object_instance(ground, None, 1).unwrap();
    w.feds[0]
        .update_attribute_values(
            tank,
            &[(position, b"12,34".as_slice()), (fuel, b"full".as_slice())],
            b"tag",
            2,
            None,
            None,
        )
        .unwrap();
    w.pump();
    let callbacks = w.callbacks(1);
    assert_eq!(callbacks.len(), 2, "{callbacks:#?}");
    assert!(matches!(
        &callbacks[0],
        Callback::DiscoverObjectInstance { object, class, name } if *object == tank && *class == vehicle && name == "HLAobject_1_1"
    ));
    let Callback::ReflectAttributeValues {
        object,
        class,
        values,
        tag,
        time,
        sender,
        transport,
        ..
    } = &callbacks[1]
    else {
        panic!("{:?}", callbacks[1]);
    };
    assert_eq!((*object, *class, *time, *sender), (tank, vehicle, 2, 1));
    assert_eq!(&tag[..], b"tag");
    // Fuel is a GroundVehicle attribute the subscriber did not ask for: it is not shown.
    assert_eq!(values, &vec![(position, Bytes::from_static(b"12,34"))]);
    assert_eq!(
        *transport,
        TransportClass::BestEffort,
        "Position is best effort in the model"
    );

    w.feds[0].delete_object_instance(tank, b"bye", 3).unwrap();
    w.pump();
    assert!(
        matches!(&w.callbacks(1)[..], [Callback::RemoveObjectInstance { object, .. }] if *object == tank)
    );
}

#[test]
fn reliable_and_best_effort_attributes_travel_apart() {
    let mut w = World::new(2, 2);
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name, position], &[])
        .unwrap();
    w.pump();
    let car = w.feds[0]
        .register_object_instance(vehicle, None, 0)
        .unwrap();
    w.feds[0]
        .update_attribute_values(
            car,
            &[(name, b"car".as_slice()), (position, b"1,1".as_slice())],
            b"",
            0,
            None,
            None,
        )
        .unwrap();
    w.pump();
    let transports: Vec<(TransportClass, usize)> = w
        .callbacks(1)
        .into_iter()
        .filter_map(|c| match c {
            Callback::ReflectAttributeValues {
                transport, values, ..
            } => Some((transport, values.len())),
            _ => None,
        })
        .collect();
    assert_eq!(
        transports,
        vec![
            (TransportClass::Reliable, 1),
            (TransportClass::BestEffort, 1)
        ]
    );
    // Overridden: one message, reliable.
    w.feds[0]
        .update_attribute_values(
            car,
            &[(name, b"car".as_slice()), (position, b"2,2".as_slice())],
            b"",
            0,
            None,
            Some(TransportClass::Reliable),
        )
        .unwrap();
    w.pump();
    let reflections: Vec<_> = w.callbacks(1);
    assert!(matches!(
        &reflections[..],
        [Callback::ReflectAttributeValues { transport: TransportClass::Reliable, values, .. }] if values.len() == 2
    ));
}

#[test]
fn every_service_refuses_what_it_must_with_its_own_error() {
    let mut w = World::new(3, 2);
    let (vehicle, ground, name, position, fuel) = handles(&w.feds[0]);
    let f = &mut w.feds[0];
    assert_eq!(
        f.object_class("Boat").unwrap_err(),
        FederateError::ObjectClassNotDefined("Boat".into())
    );
    assert!(matches!(
        f.attribute(vehicle, "Fuel"),
        Err(FederateError::AttributeNotDefined { .. })
    ));
    assert!(matches!(
        f.interaction_class("Telegram"),
        Err(FederateError::InteractionClassNotDefined(_))
    ));
    assert!(matches!(
        f.dimension("Z"),
        Err(FederateError::DimensionNotDefined(_))
    ));
    // Fuel belongs to GroundVehicle, not to Vehicle.
    assert!(matches!(
        f.publish_object_class_attributes(vehicle, &[fuel]),
        Err(FederateError::AttributeNotDefined { .. })
    ));
    assert!(matches!(
        f.register_object_instance(vehicle, None, 0),
        Err(FederateError::ObjectClassNotPublished(_))
    ));
    f.publish_object_class_attributes(ground, &[name]).unwrap();
    assert!(matches!(
        f.register_object_instance(ground, Some("Tank-1"), 0),
        Err(FederateError::ObjectInstanceNameNotReserved(_))
    ));
    f.name_reserved("Tank-1");
    let tank = f
        .register_object_instance(ground, Some("Tank-1"), 0)
        .unwrap();
    assert!(matches!(
        f.register_object_instance(ground, Some("Tank-1"), 0),
        Err(FederateError::ObjectInstanceNameInUse(_))
    ));
    assert!(matches!(
        f.update_attribute_values(tank, &[(position, b"x".as_slice())], b"", 0, None, None),
        Err(FederateError::AttributeNotPublished { .. })
    ));
    assert!(matches!(
        f.update_attribute_values(
            ObjectId::new(9, 9),
            &[(name, b"x".as_slice())],
            b"",
            0,
            None,
            None
        ),
        Err(FederateError::ObjectInstanceNotKnown(_))
    ));
    let x = f.dimension("X").unwrap();
    let outside = Region::new().with(x.0, Range::new(10, 2000));
    assert!(matches!(
        f.update_attribute_values(
            tank,
            &[(name, b"x".as_slice())],
            b"",
            0,
            Some(&outside),
            None
        ),
        Err(FederateError::InvalidRegion(_))
    ));
    let radio = f.interaction_class("Radio").unwrap();
    assert!(matches!(
        f.send_interaction(
            radio,
            &[] as &[(ParameterHandle, &[u8])],
            b"",
            0,
            None,
            None
        ),
        Err(FederateError::InteractionClassNotPublished(_))
    ));
    // Another federate's object, once discovered, is known but not owned.
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name], &[])
        .unwrap();
    w.pump();
    w.feds[0].register_object_instance(ground, None, 0).unwrap();
    w.pump();
    let discovered = w.feds[1].known_objects().next().unwrap().0;
    let f1 = &mut w.feds[1];
    f1.publish_object_class_attributes(vehicle, &[name])
        .unwrap();
    assert!(matches!(
        f1.update_attribute_values(
            discovered,
            &[(name, b"mine".as_slice())],
            b"",
            0,
            None,
            None
        ),
        Err(FederateError::AttributeNotOwned { .. })
    ));
}

#[test]
fn interactions_and_update_requests_reach_their_targets() {
    let mut w = World::new(4, 2);
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    let radio = w.feds[0].interaction_class("Radio").unwrap();
    let text = w.feds[0].parameter(radio, "Text").unwrap();
    w.feds[0].publish_interaction_class(radio).unwrap();
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    w.feds[1].subscribe_interaction_class(radio, &[]).unwrap();
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[name], &[])
        .unwrap();
    w.pump();
    let car = w.feds[0]
        .register_object_instance(vehicle, None, 0)
        .unwrap();
    w.feds[0]
        .send_interaction(radio, &[(text, b"hello".as_slice())], b"t", 5, None, None)
        .unwrap();
    w.pump();
    let callbacks = w.callbacks(1);
    assert!(callbacks.iter().any(|c| matches!(c,
        Callback::ReceiveInteraction { class, parameters, time: 5, sender: 1, .. }
            if *class == radio && parameters == &vec![(text, Bytes::from_static(b"hello"))])));
    w.feds[1]
        .request_object_attribute_value_update(car, &[name], b"please")
        .unwrap();
    w.pump();
    assert!(matches!(
        &w.callbacks(0)[..],
        [Callback::ProvideAttributeValueUpdate { object, attributes, tag }]
            if *object == car && attributes == &vec![name] && &tag[..] == b"please"
    ));
}

/// Random subscription regions and random updates: every update handed to a subscriber
/// overlaps one of its regions (exactness), every update that overlaps is handed over
/// (completeness), and what the routers' cells let through beyond that is counted.
#[test]
fn routing_regions_are_exact_and_complete() {
    let seeds: Vec<u64> = match std::env::var("TRELLIS_SEED") {
        Ok(seed) => vec![seed.parse().expect("TRELLIS_SEED is a number")],
        Err(_) => (1..=8).collect(),
    };
    for seed in seeds {
        regions_run(seed);
    }
}

fn regions_run(seed: u64) {
    let subscribers = 4;
    let mut w = World::new(seed, subscribers + 1);
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    let x = w.feds[0].dimension("X").unwrap().0;
    let y = w.feds[0].dimension("Y").unwrap().0;
    let random_range = |sim: &mut Sim, max_len: u64| {
        let len = sim.rng().between(1, max_len);
        let lower = sim.rng().below(1000 - len + 1);
        Range::new(lower, lower + len)
    };
    let mut regions = Vec::new();
    for s in 1..=subscribers {
        let mut mine = Vec::new();
        for _ in 0..w.sim.rng().between(1, 3) {
            let region = Region::new()
                .with(x, random_range(&mut w.sim, 300))
                .with(y, random_range(&mut w.sim, 300));
            mine.push(region);
        }
        w.feds[s]
            .subscribe_object_class_attributes(vehicle, &[position], &mine)
            .unwrap();
        regions.push(mine);
    }
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    w.pump();
    let car = w.feds[0]
        .register_object_instance(vehicle, None, 0)
        .unwrap();
    let mut sent = Vec::new();
    for i in 0..400u64 {
        let region = Region::new()
            .with(x, random_range(&mut w.sim, 40))
            .with(y, random_range(&mut w.sim, 40));
        w.feds[0]
            .update_attribute_values(
                car,
                &[(position, i.to_le_bytes().as_slice())],
                b"",
                i,
                Some(&region),
                Some(TransportClass::Reliable),
            )
            .unwrap();
        sent.push(region);
        if i % 50 == 0 {
            w.pump();
        }
    }
    w.pump();
    let mut over_delivered = 0;
    for s in 1..=subscribers {
        let got: BTreeSet<u64> = w
            .callbacks(s)
            .into_iter()
            .filter_map(|c| match c {
                Callback::ReflectAttributeValues { time, .. } => Some(time),
                _ => None,
            })
            .collect();
        for (i, region) in sent.iter().enumerate() {
            let overlaps = regions[s - 1].iter().any(|r| r.overlaps(region));
            assert_eq!(
                got.contains(&(i as u64)),
                overlaps,
                "seed {seed}: subscriber {s}, update {i}: delivered must equal overlaps"
            );
        }
        over_delivered += w.feds[s].stats().over_delivered;
    }
    assert!(
        over_delivered > 0,
        "seed {seed}: cells are coarser than regions, so some over-delivery is expected"
    );
    println!(
        "seed {seed}: over-delivered at cell level: {over_delivered} of {} updates x {subscribers}",
        sent.len()
    );
}

/// Registrations reach the subscribers without regions only: one with regions would drop
/// them (it discovers by updates), so sending them there costs frames for nothing.
#[test]
fn registrations_skip_region_subscribers_who_discover_by_update() {
    let mut w = World::new(3, 3);
    let (vehicle, _, name, position, _) = handles(&w.feds[0]);
    let x = w.feds[0].dimension("X").unwrap().0;
    let y = w.feds[0].dimension("Y").unwrap().0;
    let corner = Region::new()
        .with(x, Range::new(0, 100))
        .with(y, Range::new(0, 100));
    w.feds[0]
        .publish_object_class_attributes(vehicle, &[name, position])
        .unwrap();
    w.feds[1]
        .subscribe_object_class_attributes(vehicle, &[position], &[])
        .unwrap();
    w.feds[2]
        .subscribe_object_class_attributes(vehicle, &[position], std::slice::from_ref(&corner))
        .unwrap();
    w.pump();
    let received_before = w.sim.nodes[w.nodes[2]].received.len();
    let cars: Vec<ObjectId> = (0..10)
        .map(|_| {
            w.feds[0]
                .register_object_instance(vehicle, None, 0)
                .unwrap()
        })
        .collect();
    w.pump();
    let discovered = |callbacks: &[Callback]| {
        callbacks
            .iter()
            .filter(|c| matches!(c, Callback::DiscoverObjectInstance { .. }))
            .count()
    };
    assert_eq!(discovered(&w.callbacks(1)), cars.len());
    assert_eq!(
        w.sim.nodes[w.nodes[2]].received.len(),
        received_before,
        "a region subscriber was sent registrations"
    );
    assert_eq!(discovered(&w.callbacks(2)), 0);

    let inside = Region::new()
        .with(x, Range::new(10, 11))
        .with(y, Range::new(10, 11));
    w.feds[0]
        .update_attribute_values(
            cars[3],
            &[(position, b"10,10".as_slice())],
            b"",
            1,
            Some(&inside),
            None,
        )
        .unwrap();
    w.pump();
    let callbacks = w.callbacks(2);
    assert!(
        matches!(&callbacks[..], [Callback::DiscoverObjectInstance { object, .. }, Callback::ReflectAttributeValues { .. }] if *object == cars[3]),
        "{callbacks:#?}"
    );
    assert_eq!(w.feds[2].stats().over_delivered, 0);
}

mod advisory;
mod class_rights;
mod declaration;
mod instance_names;
mod limits;
mod local_delete;
mod mom;
mod mom_service;
mod rediscovery;
mod regions;
mod retraction;
mod scope;
mod update_rate;

/// A federate joined at event 5 of a two-federate federation.
fn joined_at_five() -> Federate {
    let mut fed = Federate::new(model(), 2, DEFAULT_BINS).unwrap();
    let snapshot = crate::registry::Snapshot {
        epoch: 0,
        seq: 5,
        time_representation: "HLAinteger64Time".into(),
        federates: vec![(1, "a".into(), "sim".into()), (2, "b".into(), "sim".into())],
        regulating: Vec::new(),
        constrained: Vec::new(),
        sync_points: Vec::new(),
    };
    fed.apply_join(FED, &snapshot);
    fed
}

fn lost(fed: &mut Federate) -> Vec<String> {
    std::iter::from_fn(|| fed.poll_callback())
        .filter_map(|c| match c {
            Callback::ConnectionLost { fault } => Some(fault),
            _ => None,
        })
        .collect()
}

// A gap in the federation's events is caught up from the registry's log:
// `federation::catch_up_tests`.

#[test]
fn a_federate_resigned_behind_its_back_hears_connection_lost_naming_why() {
    use crate::registry::{Departure, FederationEvent};
    let mut fed = joined_at_five();
    let left = |how| FederationEvent::FederateLeft { federate: 2, how };
    fed.on_registry_payload(&left(Departure::Resigned).encode(0, 6));
    assert!(
        lost(&mut fed).is_empty(),
        "its own resignation needs no notice"
    );
    for (how, said) in [
        (Departure::Died, "resigned this federate as died"),
        (
            Departure::SlowConsumer,
            "resigned this federate as a slow consumer",
        ),
    ] {
        let mut fed = joined_at_five();
        fed.on_registry_payload(&left(how).encode(0, 6));
        let faults = lost(&mut fed);
        assert!(
            matches!(&faults[..], [f] if f.contains(said)),
            "{how:?}: {faults:?}"
        );
    }
}
