//! Federation save and restore over real sockets (IEEE 1516.1-2010 §4.16–4.31): three
//! time-stepped federates on a tree of routers save at a time, go on and change things
//! (an object registered, one deleted, a subscription dropped), then restore. After the
//! restore each federate's RTI state equals the state at the save (objects and owners,
//! logical time, subscriptions), and the run that continues from there hands every federate
//! the same time-stamped updates as a run that never saved. A federate that dies during a
//! save ends it with federationNotSaved(FederateResignedDuringSave), never a hang.

mod common;

use common::topology::start_shape;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, Interval, LogicalTime, ObjectId, SaveCallback};
use trellis_core::fom::{AttributeHandle, InteractionClassHandle, ObjectClassHandle, ObjectModel};
use trellis_core::registry::SaveFailureReason;
use trellis_core::topology::{NodeKind, Shape, Topology};
use trellis_net::rti::{Driver, ResignAction, RtiAmbassador, RtiConfig, RtiError};
use trellis_net::{NodeConfig, Runtime};

const DEMO: &str = include_str!("../../../foms/trellis-demo.xml");
const SAVE_AT: i64 = 10;
const CHANGE_UNTIL: i64 = 15;
const END: i64 = 20;
const WAIT: Duration = Duration::from_secs(30);
/// The application's object after it deleted it.
const DELETED: ObjectId = ObjectId(0);

/// What a federate was handed in time-stamp order: (time stamp, what).
type Sequence = Vec<(i64, String)>;

fn start_tree() -> (Topology, Runtime) {
    start_shape(&Shape::Tree {
        fanout: 2,
        levels: 3,
        federates: 1,
    })
}

/// Three federates joined to `federation` on different leaves of the tree.
fn join_three(topology: &Topology, federation: &str) -> Vec<(String, RtiAmbassador)> {
    let attachments: Vec<String> = (topology.nodes().iter())
        .filter(|n| n.kind == NodeKind::Federate)
        .map(|n| n.name.clone())
        .collect();
    let step = (attachments.len() / 3).max(1);
    let model = Arc::new(ObjectModel::from_sources(&[("trellis-demo.xml", DEMO)]).unwrap());
    let mut joined = Vec::new();
    for (i, place) in attachments.iter().step_by(step).take(3).enumerate() {
        let plan = topology.plan(place).unwrap();
        let mut config = RtiConfig::new(NodeConfig::from_plan(&plan, federation).unwrap());
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
    joined
}

/// A federate's application: what it was handed, and its handles.
struct App {
    rti: RtiAmbassador,
    name: String,
    seen: Sequence,
    kept: Vec<Callback>,
    object: ObjectId,
    vehicle: ObjectClassHandle,
    position: AttributeHandle,
    radio: InteractionClassHandle,
    text: trellis_core::fom::ParameterHandle,
}

/// The RTI's part of a federate's state, as a test can read it.
#[derive(Debug, PartialEq)]
struct RtiState {
    time: i64,
    regulating: bool,
    constrained: bool,
    lookahead: Option<Interval>,
    known: Vec<(ObjectId, ObjectClassHandle)>,
    owned: Vec<ObjectId>,
    object_subscriptions: Vec<(ObjectClassHandle, Vec<AttributeHandle>)>,
    interaction_subscriptions: Vec<InteractionClassHandle>,
}

impl App {
    fn new(mut rti: RtiAmbassador, name: String) -> App {
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
        let object = rti.register_object_instance(vehicle).unwrap();
        App {
            rti,
            name,
            seen: Sequence::new(),
            kept: Vec::new(),
            object,
            vehicle,
            position,
            radio,
            text,
        }
    }

    fn rti_state(&self) -> RtiState {
        let f = self.rti.federate().unwrap();
        let mut known: Vec<_> = f.known_objects().collect();
        known.sort();
        let mut owned: Vec<_> = f.owned_objects().collect();
        owned.sort();
        RtiState {
            time: f.query_logical_time().as_i64(),
            regulating: f.is_time_regulating(),
            constrained: f.is_time_constrained(),
            lookahead: f.query_lookahead().ok(),
            known,
            owned,
            object_subscriptions: f.subscribed_object_classes(),
            interaction_subscriptions: f.subscribed_interaction_classes(),
        }
    }

    /// Evoke until a callback `done` accepts arrives (or was kept back before), recording
    /// time-stamped deliveries and keeping the rest back.
    fn evoke_until(&mut self, mut done: impl FnMut(&Callback) -> bool) -> Callback {
        if let Some(at) = self.kept.iter().position(&mut done) {
            return self.kept.remove(at);
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "{}: no awaited callback within {WAIT:?}",
                self.name
            );
            let Some(callback) = self.rti.evoke_callback(left).unwrap() else {
                continue;
            };
            if record(&callback, &mut self.seen) {
                continue;
            }
            if done(&callback) {
                return callback;
            }
            self.kept.push(callback);
        }
    }

    fn save_callback(&mut self, want: impl Fn(&SaveCallback) -> bool) -> SaveCallback {
        match self.evoke_until(|c| matches!(c, Callback::Save(s) if want(s))) {
            Callback::Save(save) => save,
            _ => unreachable!(),
        }
    }

    fn time_stepped(&mut self, leader: bool) {
        self.rti
            .enable_time_regulation(Interval::Integer(1))
            .unwrap();
        self.evoke_until(|c| matches!(c, Callback::TimeRegulationEnabled { .. }));
        self.rti.enable_time_constrained().unwrap();
        self.evoke_until(|c| matches!(c, Callback::TimeConstrainedEnabled { .. }));
        self.meet(leader, "ReadyToRun");
    }

    /// A synchronization point as a barrier (a thread barrier would not do: a federate that
    /// does not evoke answers no one).
    fn meet(&mut self, leader: bool, label: &str) {
        if leader {
            self.rti
                .register_federation_synchronization_point(label, b"", &[])
                .unwrap();
        }
        self.evoke_until(
            |c| matches!(c, Callback::AnnounceSynchronizationPoint { label: l, .. } if l == label),
        );
        self.rti
            .synchronization_point_achieved(label, true)
            .unwrap();
        self.evoke_until(
            |c| matches!(c, Callback::FederationSynchronized { label: l, .. } if l == label),
        );
    }

    /// Steps from logical time `from` to `to`: an update stamped a step on, an interaction
    /// two, then an advance.
    fn step(&mut self, from: i64, to: i64, mut change: impl FnMut(&mut App, i64)) {
        for step in from..to {
            change(self, step);
            let value = format!("{} position {step}", self.name);
            let stamp = LogicalTime::from_i64(step + 1);
            if self.object != DELETED {
                (self.rti)
                    .update_attribute_values_at(
                        self.object,
                        &[(self.position, value)],
                        b"",
                        stamp,
                        None,
                    )
                    .unwrap();
            }
            let value = format!("{} radio {step}", self.name);
            let later = LogicalTime::from_i64(step + 2);
            (self.rti)
                .send_interaction_at(self.radio, &[(self.text, value)], b"", later, None)
                .unwrap();
            let next = LogicalTime::from_i64(step + 1);
            self.rti.time_advance_request(next).unwrap();
            self.evoke_until(|c| matches!(c, Callback::TimeAdvanceGrant { time } if *time == next));
        }
    }
}

/// Keep what arrived in time-stamp order (true).
fn record(callback: &Callback, seen: &mut Sequence) -> bool {
    let (time, what) = match callback {
        Callback::ReflectAttributeValues { time, values, .. } => (*time, &values[0].1),
        Callback::ReceiveInteraction {
            time, parameters, ..
        } => (*time, &parameters[0].1),
        _ => return false,
    };
    let time = LogicalTime::from_key(time).as_i64();
    seen.push((time, String::from_utf8_lossy(what).into_owned()));
    true
}

/// Equal time stamps may come in any order between senders; fix one to compare.
fn canonical(mut sequence: Sequence) -> Sequence {
    for pair in sequence.windows(2) {
        assert!(pair[0].0 <= pair[1].0, "out of time-stamp order: {pair:?}");
    }
    sequence.sort();
    sequence
}

/// What a federate hands back: its sequence, and its RTI state at the save and after the
/// restore.
type Outcome = (String, Sequence, Option<(RtiState, RtiState)>);

/// Save at `SAVE_AT`, change things until `CHANGE_UNTIL`, restore, run on to `END`.
fn saving_federate(mut app: App, index: usize) -> Outcome {
    let leader = index == 0;
    app.time_stepped(leader);
    if leader {
        let at = LogicalTime::from_i64(SAVE_AT);
        app.rti.request_federation_save("s1", Some(at)).unwrap();
    }
    app.step(0, SAVE_AT, |_, _| {});
    let initiated = app.save_callback(|s| matches!(s, SaveCallback::InitiateFederateSave { .. }));
    let at = Some(LogicalTime::from_i64(SAVE_AT));
    assert_eq!(
        initiated,
        SaveCallback::InitiateFederateSave {
            label: "s1".into(),
            time: at
        }
    );
    // Instructed to save: the services the standard forbids raise SaveInProgress.
    let refused = app
        .rti
        .time_advance_request(LogicalTime::from_i64(SAVE_AT + 1));
    assert!(
        matches!(refused, Err(RtiError::Federate(ref e)) if e.to_string().contains("SaveInProgress")),
        "{refused:?}"
    );
    app.rti.federate_save_begun().unwrap();
    let saved_app = (app.seen.clone(), app.object);
    let at_save = app.rti_state();
    app.rti.federate_save_complete(true).unwrap();
    app.save_callback(|s| *s == SaveCallback::FederationSaved);

    // After the save: change objects, owners and subscriptions.
    app.step(SAVE_AT, CHANGE_UNTIL, |app, step| match (index, step) {
        (0, 11) => {
            app.rti.register_object_instance(app.vehicle).unwrap();
        }
        (1, 12) => app.rti.unsubscribe_interaction_class(app.radio).unwrap(),
        (2, 13) => {
            app.rti.delete_object_instance(app.object, b"gone").unwrap();
            app.rti.unpublish_object_class(app.vehicle).unwrap();
            app.object = DELETED;
        }
        _ => {}
    });
    assert_ne!(
        app.rti_state(),
        at_save,
        "{}: the changes changed nothing",
        app.name
    );
    app.meet(leader, "Changed");

    if leader {
        app.rti.request_federation_restore("s1").unwrap();
        app.save_callback(|s| {
            *s == SaveCallback::RequestFederationRestoreSucceeded { label: "s1".into() }
        });
    }
    app.save_callback(|s| *s == SaveCallback::FederationRestoreBegun);
    let initiated =
        app.save_callback(|s| matches!(s, SaveCallback::InitiateFederateRestore { .. }));
    let SaveCallback::InitiateFederateRestore { label, name, .. } = initiated else {
        unreachable!()
    };
    assert_eq!((label.as_str(), name.as_str()), ("s1", app.name.as_str()));
    // The application puts its own part back; the RTI has put back its own.
    (app.seen, app.object) = saved_app;
    app.kept.retain(|c| {
        !matches!(
            c,
            Callback::DiscoverObjectInstance { .. } | Callback::RemoveObjectInstance { .. }
        )
    });
    let after_restore = app.rti_state();
    app.rti.federate_restore_complete(true).unwrap();
    app.save_callback(|s| *s == SaveCallback::FederationRestored);

    app.step(SAVE_AT, END, |_, _| {});
    app.rti
        .resign_federation_execution(ResignAction::default())
        .unwrap();
    (app.name, app.seen, Some((at_save, after_restore)))
}

/// The same run without saving.
fn plain_federate(mut app: App, index: usize) -> Outcome {
    app.time_stepped(index == 0);
    app.step(0, END, |_, _| {});
    app.rti
        .resign_federation_execution(ResignAction::default())
        .unwrap();
    (app.name, app.seen, None)
}

fn run(federation: &str, federate: fn(App, usize) -> Outcome) -> Vec<Outcome> {
    let (topology, _routers) = start_tree();
    let threads: Vec<_> = join_three(&topology, federation)
        .into_iter()
        .enumerate()
        .map(|(i, (name, rti))| thread::spawn(move || federate(App::new(rti, name), i)))
        .collect();
    let mut outcomes: Vec<Outcome> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    outcomes.sort_by(|a, b| a.0.cmp(&b.0));
    outcomes
}

#[test]
fn a_restored_federation_is_as_saved_and_runs_on_as_if_it_never_saved() {
    let saved = run("SaveRestore", saving_federate);
    let plain = run("NeverSaved", plain_federate);
    for ((name, seen, states), (_, reference, _)) in saved.into_iter().zip(plain) {
        let (at_save, after_restore) = states.unwrap();
        assert_eq!(at_save.time, SAVE_AT);
        assert_eq!(
            at_save.known.len(),
            2,
            "{name} discovered the others' vehicles"
        );
        assert_eq!(at_save.owned.len(), 1, "{name} owns its own");
        assert_eq!(
            after_restore, at_save,
            "{name}: the RTI state after restore"
        );
        // From each of the two others: an update every step, an interaction every step
        // but the last.
        assert_eq!(seen.len() as i64, 2 * (2 * END - 1), "{name}");
        assert_eq!(canonical(seen), canonical(reference), "{name}");
    }
}

#[test]
fn a_federate_that_dies_during_a_save_ends_it_with_the_reason() {
    let (topology, _routers) = start_tree();
    let mut apps: Vec<App> = join_three(&topology, "Dying")
        .into_iter()
        .map(|(name, rti)| App::new(rti, name))
        .collect();
    apps[0].rti.request_federation_save("s1", None).unwrap();
    for app in &mut apps {
        app.save_callback(|s| matches!(s, SaveCallback::InitiateFederateSave { .. }));
    }
    for app in &mut apps[..2] {
        app.rti.federate_save_begun().unwrap();
        app.rti.federate_save_complete(true).unwrap();
    }
    // The third dies: its process closes its link without a word.
    drop(apps.pop());
    let reason = SaveFailureReason::FederateResignedDuringSave;
    for app in &mut apps {
        app.save_callback(|s| *s == SaveCallback::FederationNotSaved { reason });
        // Saving is over: the services work again.
        app.rti.query_federation_save_status().unwrap();
        let answer =
            app.save_callback(|s| matches!(s, SaveCallback::FederationSaveStatusResponse { .. }));
        let SaveCallback::FederationSaveStatusResponse { statuses } = answer else {
            unreachable!()
        };
        assert_eq!(statuses.len(), 2);
        assert!(statuses
            .iter()
            .all(|(_, s)| *s == trellis_core::registry::SaveStatus::NoSaveInProgress));
    }
    // Nothing was saved under the label.
    apps[0].rti.request_federation_restore("s1").unwrap();
    apps[0].save_callback(|s| {
        *s == SaveCallback::RequestFederationRestoreFailed { label: "s1".into() }
    });
}
