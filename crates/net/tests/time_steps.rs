//! Time management over real sockets: three federates meet at a synchronization point,
//! then run 1,000 time steps with lookahead, sending time-stamped updates and interactions.
//! On one router, on a three-level tree and on a mesh of routers, every federate must be
//! handed the same time-stamp-ordered sequence.

mod common;

use common::topology::start_shape;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, Interval, LogicalTime, ObjectId};
use trellis_core::fom::{ObjectModel, Order};
use trellis_core::topology::{NodeKind, Shape};
use trellis_net::rti::{Driver, ResignAction, RtiAmbassador, RtiConfig};
use trellis_net::NodeConfig;

const DEMO: &str = include_str!("../../../foms/trellis-demo.xml");
const FEDERATION: &str = "Stepped";
const STEPS: i64 = 1000;
const LOOKAHEAD: i64 = 1;
const WAIT: Duration = Duration::from_secs(30);

/// What a federate was handed in time-stamp order: (time stamp, what).
type Sequence = Vec<(i64, String)>;

/// Evoke until a callback `done` accepts arrives (or was already kept back), recording
/// time-stamped deliveries; other callbacks are kept back for later waits.
fn evoke_until(
    rti: &mut RtiAmbassador,
    seen: &mut Sequence,
    kept: &mut Vec<Callback>,
    mut done: impl FnMut(&Callback) -> bool,
) {
    if let Some(at) = kept.iter().position(&mut done) {
        kept.remove(at);
        return;
    }
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "no awaited callback within {WAIT:?}");
        let Some(callback) = rti.evoke_callback(left).unwrap() else {
            continue;
        };
        if order_of(&callback) == Some(Order::Receive) {
            let f = rti.federate().unwrap();
            panic!(
                "{} at {} (regulating {}, constrained {}, {:?}) got {callback:?} in receive order",
                rti.federate_name().unwrap_or("?"),
                f.query_logical_time().as_i64(),
                f.is_time_regulating(),
                f.is_time_constrained(),
                f.time_stats()
            );
        }
        if record(&callback, seen) {
            continue;
        }
        if done(&callback) {
            return;
        }
        kept.push(callback);
    }
}

fn order_of(callback: &Callback) -> Option<Order> {
    match callback {
        Callback::ReflectAttributeValues { received_order, .. }
        | Callback::ReceiveInteraction { received_order, .. } => Some(*received_order),
        _ => None,
    }
}

/// Keep what arrived in time-stamp order (true); anything else time-stamped is a failure.
fn record(callback: &Callback, seen: &mut Sequence) -> bool {
    let (time, what, order) = match callback {
        Callback::ReflectAttributeValues {
            time,
            values,
            received_order,
            ..
        } => (*time, &values[0].1, *received_order),
        Callback::ReceiveInteraction {
            time,
            parameters,
            received_order,
            ..
        } => (*time, &parameters[0].1, *received_order),
        _ => return false,
    };
    assert_eq!(
        order,
        Order::TimeStamp,
        "{callback:?} arrived in receive order"
    );
    let time = LogicalTime::from_key(time).as_i64();
    seen.push((time, String::from_utf8_lossy(what).into_owned()));
    true
}

/// One federate's life: switch on, meet at the point, step, resign.
fn run_federate(mut rti: RtiAmbassador, name: String, leader: bool) -> Sequence {
    let model = rti.federate().unwrap().model().clone();
    let vehicle = model.find_object_class("Vehicle").unwrap();
    let position = model.find_attribute(vehicle, "Position").unwrap();
    let radio = model.find_interaction_class("Radio").unwrap();
    let text = model.find_parameter(radio, "Text").unwrap();
    rti.publish_object_class_attributes(vehicle, &[position])
        .unwrap();
    rti.subscribe_object_class_attributes(vehicle, &[position])
        .unwrap();
    rti.publish_interaction_class(radio).unwrap();
    rti.subscribe_interaction_class(radio).unwrap();
    let object: ObjectId = rti.register_object_instance(vehicle).unwrap();
    let mut seen = Sequence::new();
    let mut kept = Vec::new();
    rti.enable_time_regulation(Interval::Integer(LOOKAHEAD))
        .unwrap();
    evoke_until(&mut rti, &mut seen, &mut kept, |c| {
        matches!(c, Callback::TimeRegulationEnabled { .. })
    });
    rti.enable_time_constrained().unwrap();
    evoke_until(&mut rti, &mut seen, &mut kept, |c| {
        matches!(c, Callback::TimeConstrainedEnabled { .. })
    });
    // The synchronization point is the barrier: nobody steps before all are switched on.
    // (A thread barrier would not do: a federate that does not evoke answers no one.)
    if leader {
        rti.register_federation_synchronization_point("ReadyToRun", b"", &[])
            .unwrap();
    }
    evoke_until(
        &mut rti,
        &mut seen,
        &mut kept,
        |c| matches!(c, Callback::AnnounceSynchronizationPoint { label, .. } if label == "ReadyToRun"),
    );
    rti.synchronization_point_achieved("ReadyToRun", true)
        .unwrap();
    evoke_until(
        &mut rti,
        &mut seen,
        &mut kept,
        |c| matches!(c, Callback::FederationSynchronized { label, failed } if label == "ReadyToRun" && failed.is_empty()),
    );
    for step in 0..STEPS {
        let stamp = LogicalTime::from_i64(step + LOOKAHEAD);
        rti.update_attribute_values_at(
            object,
            &[(position, format!("{name} position {step}"))],
            b"",
            stamp,
            None,
        )
        .unwrap();
        // Interactions a step further on, so that a grant must hold some back.
        let later = LogicalTime::from_i64(step + LOOKAHEAD + 1);
        rti.send_interaction_at(
            radio,
            &[(text, format!("{name} radio {step}"))],
            b"",
            later,
            None,
        )
        .unwrap();
        let next = LogicalTime::from_i64(step + 1);
        rti.time_advance_request(next).unwrap();
        evoke_until(
            &mut rti,
            &mut seen,
            &mut kept,
            |c| matches!(c, Callback::TimeAdvanceGrant { time } if *time == next),
        );
    }
    rti.resign_federation_execution(ResignAction::default())
        .unwrap();
    seen
}

/// Run the exercise on `shape` and return each federate's sequence, by federate name.
fn exercise(shape: &Shape) -> Vec<(String, Sequence)> {
    let (topology, _routers) = start_shape(shape);
    let attachments: Vec<String> = topology
        .nodes()
        .iter()
        .filter(|n| n.kind == NodeKind::Federate)
        .map(|n| n.name.clone())
        .collect();
    // Spread the three over the attachment points: different leaves of a tree.
    let step = (attachments.len() / 3).max(1);
    let places: Vec<&String> = attachments.iter().step_by(step).take(3).collect();
    assert_eq!(places.len(), 3, "{shape:?} has too few attachment points");
    let model = Arc::new(ObjectModel::from_sources(&[("trellis-demo.xml", DEMO)]).unwrap());
    // All join before any starts: the point must count every one of them.
    let mut joined = Vec::new();
    for (i, place) in places.iter().enumerate() {
        let plan = topology.plan(place).unwrap();
        let mut config = RtiConfig::new(NodeConfig::from_plan(&plan, FEDERATION).unwrap());
        config.driver = Driver::Direct;
        let mut rti = RtiAmbassador::connect(config).unwrap();
        if i == 0 {
            rti.create_federation_execution(&model).unwrap();
        }
        let name = format!("fed{i}");
        rti.join_federation_execution(&name, "stepped", model.clone())
            .unwrap();
        joined.push((name, rti));
    }
    let threads: Vec<_> = joined
        .into_iter()
        .enumerate()
        .map(|(i, (name, rti))| {
            thread::spawn(move || {
                let seen = run_federate(rti, name.clone(), i == 0);
                (name, seen)
            })
        })
        .collect();
    threads.into_iter().map(|t| t.join().unwrap()).collect()
}

/// Equal time stamps may come in any order between senders; fix one to compare.
fn canonical(mut sequence: Sequence) -> Sequence {
    for pair in sequence.windows(2) {
        assert!(pair[0].0 <= pair[1].0, "out of time-stamp order: {pair:?}");
    }
    sequence.sort();
    sequence
}

#[test]
fn a_time_stepped_exchange_is_the_same_on_one_router_a_tree_and_a_mesh() {
    let shapes = [
        Shape::Centralized { federates: 3 },
        Shape::Tree {
            fanout: 2,
            levels: 3,
            federates: 1,
        },
        Shape::Mesh {
            routers: 3,
            federates: 1,
        },
    ];
    let mut reference: Option<Vec<(String, Sequence)>> = None;
    for shape in &shapes {
        let mut result: Vec<(String, Sequence)> = exercise(shape)
            .into_iter()
            .map(|(name, seen)| (name, canonical(seen)))
            .collect();
        result.sort();
        for (name, seen) in &result {
            // From each of the two others: an update every step, and an interaction every
            // step but the last (stamped past the final grant).
            assert_eq!(
                seen.len() as i64,
                2 * (2 * STEPS - 1),
                "{name} on {shape:?}"
            );
        }
        match &reference {
            None => reference = Some(result),
            Some(reference) => assert!(*reference == result, "{shape:?} differs from one router"),
        }
    }
}
