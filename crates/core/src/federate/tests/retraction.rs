//! retract and requestRetraction† (IEEE 1516.1-2010 §8.21, §8.22) over a simulated network
//! with a registry, so that time switches are ordered as in a real federation.

use super::*;
use crate::registry::{Request, Response};
use crate::router::RouterConfig;
use crate::wire::NodeId;

/// Federates on sim nodes under one router that hosts the registry; time switches work.
/// The MOM's tests (`mom.rs`) use it too.
pub(super) struct Timed {
    sim: Sim,
    nodes: Vec<NodeIndex>,
    pub(super) feds: Vec<Federate>,
    radio: InteractionClassHandle,
    text: ParameterHandle,
}

impl Timed {
    pub(super) fn new(count: usize) -> Timed {
        let mut sim = Sim::new(17, SimConfig::default());
        let mut config = RouterConfig::new("root", NodeId(1000));
        config.hosts_registry = true;
        let root = sim.add_node(config);
        let nodes: Vec<NodeIndex> = (0..count)
            .map(|i| {
                let node = sim.add_federate(&format!("f{i}"), FED);
                sim.connect_parent(node, root, FED);
                node
            })
            .collect();
        sim.run_until_quiet(Duration::from_secs(30)).unwrap();
        let model = model();
        let create = Request::Create {
            federation: FED.into(),
            fingerprint: Federate::fingerprint(&model, DEFAULT_BINS),
            modules: vec![],
            time_representation: "HLAinteger64Time".into(),
        };
        let mut world = Timed {
            radio: model.find_interaction_class("Radio").unwrap(),
            text: ParameterHandle(0),
            sim,
            nodes,
            feds: Vec::new(),
        };
        world.text = model.find_parameter(world.radio, "Text").unwrap();
        assert_eq!(world.ask(0, &create), Response::Created);
        for i in 0..count {
            let join = Request::Join {
                federation: FED.into(),
                federate_name: format!("f{i}"),
                federate_type: "test".into(),
                fingerprint: Federate::fingerprint(&model, DEFAULT_BINS),
                modules: vec![],
            };
            let Response::Joined { federate, snapshot } = world.ask(i, &join) else {
                panic!("f{i} did not join");
            };
            let mut fed = Federate::new(model.clone(), federate, DEFAULT_BINS).unwrap();
            fed.apply_join(FED, &snapshot);
            fed.publish_interaction_class(world.radio).unwrap();
            fed.subscribe_interaction_class(world.radio, &[]).unwrap();
            world.feds.push(fed);
        }
        world.pump();
        world
    }

    pub(super) fn ask(&mut self, i: usize, request: &Request) -> Response {
        let now = self.sim.now();
        let id = self.sim.nodes[self.nodes[i]].router.manage(now, request);
        self.sim.run_until_quiet(Duration::from_secs(30)).unwrap();
        let (answered, response) = (self.sim.nodes[self.nodes[i]].router)
            .poll_manage_reply()
            .expect("an answer");
        assert_eq!(answered, id);
        response
    }

    /// Carry actions, registry answers and messages until nothing moves.
    pub(super) fn pump(&mut self) {
        for _ in 0..50 {
            let mut moved = false;
            for i in 0..self.feds.len() {
                while let Some(action) = self.feds[i].poll_action() {
                    moved = true;
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
                        Action::PublishFrame(mut frame) => {
                            frame.set_federation(crate::wire::FederationId::of(FED));
                            router.publish_encoded(now, frame.into_bytes()).unwrap();
                        }
                        Action::Ask(request) => {
                            let response = self.ask(i, &request);
                            self.feds[i].handle_reply(&request, response);
                        }
                        Action::ExtendModel { .. } => panic!("no modules are added here"),
                    }
                }
            }
            self.sim.run_until_quiet(Duration::from_secs(30)).unwrap();
            for i in 0..self.feds.len() {
                let node = &self.sim.nodes[self.nodes[i]];
                self.feds[i].set_network_interest(&node.router.network_interest());
                let received = std::mem::take(&mut self.sim.nodes[self.nodes[i]].received);
                moved |= !received.is_empty();
                for r in received {
                    self.feds[i].handle_message(&r.payload, r.class);
                }
            }
            if !moved {
                return;
            }
        }
        panic!("the federation did not settle");
    }

    pub(super) fn callbacks(&mut self, i: usize) -> Vec<Callback> {
        std::iter::from_fn(|| self.feds[i].poll_callback()).collect()
    }

    /// Switch regulation (lookahead 1) or constraint on for federate `i`, and wait for it.
    pub(super) fn enable(&mut self, i: usize, regulating: bool) {
        if regulating {
            self.feds[i]
                .enable_time_regulation(Interval::Integer(1))
                .unwrap();
        } else {
            self.feds[i].enable_time_constrained().unwrap();
        }
        self.pump();
        let enabled = self.callbacks(i).into_iter().any(|c| {
            matches!(
                c,
                Callback::TimeRegulationEnabled { .. } | Callback::TimeConstrainedEnabled { .. }
            )
        });
        assert!(enabled, "f{i}: the switch took effect");
    }

    fn send(&mut self, i: usize, text: &str, at: i64) -> Option<MessageRetractionHandle> {
        let parameters = [(self.text, text.as_bytes())];
        (self.feds[i])
            .send_interaction_at(
                self.radio,
                &parameters,
                b"",
                LogicalTime::from_i64(at),
                None,
            )
            .unwrap()
    }

    fn advance(&mut self, i: usize, to: i64) {
        self.feds[i]
            .request_time_advance(AdvanceKind::Tar, LogicalTime::from_i64(to))
            .unwrap();
    }
}

/// The texts of the interactions in `callbacks`, with their retraction handles.
fn texts(callbacks: &[Callback]) -> Vec<(String, Option<MessageRetractionHandle>)> {
    (callbacks.iter())
        .filter_map(|c| match c {
            Callback::ReceiveInteraction {
                parameters,
                retraction,
                ..
            } => Some((
                String::from_utf8_lossy(&parameters[0].1).into_owned(),
                *retraction,
            )),
            _ => None,
        })
        .collect()
}

fn granted(callbacks: &[Callback], to: i64) -> bool {
    (callbacks.iter()).any(
        |c| matches!(c, Callback::TimeAdvanceGrant { time } if *time == LogicalTime::from_i64(to)),
    )
}

/// f0 regulates, f1 is constrained, f2 neither (it gets time-stamped messages in receive
/// order).
fn regulator_and_receivers() -> Timed {
    let mut w = Timed::new(3);
    w.enable(0, true);
    w.enable(1, false);
    w
}

#[test]
fn a_retracted_message_still_queued_is_dropped_and_a_delivered_one_is_asked_back() {
    let mut w = regulator_and_receivers();
    let kept = w.send(0, "kept", 12).expect("time-stamp order: a handle");
    let retracted = w.send(0, "retracted", 10).expect("a handle");
    assert_ne!(kept, retracted);
    assert_eq!(retracted.federate, w.feds[0].handle());
    w.pump();
    // The unconstrained federate was handed both at once, with their handles.
    let early = w.callbacks(2);
    assert_eq!(
        texts(&early),
        vec![
            ("kept".to_owned(), Some(kept)),
            ("retracted".to_owned(), Some(retracted))
        ]
    );
    assert!(
        w.callbacks(1).is_empty(),
        "the constrained federate holds both"
    );
    w.feds[0].retract(retracted).unwrap();
    w.pump();
    assert_eq!(
        w.callbacks(2),
        vec![Callback::RequestRetraction { handle: retracted }],
        "delivered already: the application is asked to retract it"
    );
    w.advance(0, 30);
    w.advance(1, 20);
    w.pump();
    let late = w.callbacks(1);
    assert_eq!(
        texts(&late),
        vec![("kept".to_owned(), Some(kept))],
        "the retracted message never reaches the constrained federate: {late:#?}"
    );
    assert!(granted(&late, 20), "{late:#?}");
    assert!(
        !late
            .iter()
            .any(|c| matches!(c, Callback::RequestRetraction { .. })),
        "a dropped message needs no requestRetraction"
    );
}

#[test]
fn a_dropped_message_no_longer_holds_a_next_message_request() {
    let mut w = regulator_and_receivers();
    let early = w.send(0, "early", 5).unwrap();
    w.send(0, "late", 8);
    w.pump();
    w.feds[0].retract(early).unwrap();
    w.advance(0, 20);
    w.feds[1]
        .request_time_advance(AdvanceKind::Nmr, LogicalTime::from_i64(20))
        .unwrap();
    w.pump();
    let callbacks = w.callbacks(1);
    assert_eq!(
        texts(&callbacks),
        vec![("late".to_owned(), w_handle(&w, 2))]
    );
    assert!(
        granted(&callbacks, 8),
        "granted to the next message left: {callbacks:#?}"
    );
}

/// The handle of f0's `serial`th time-stamped message.
fn w_handle(w: &Timed, serial: u32) -> Option<MessageRetractionHandle> {
    Some(MessageRetractionHandle {
        federate: w.feds[0].handle(),
        serial,
    })
}

#[test]
fn retract_refuses_what_the_standard_says_with_its_exceptions() {
    let mut w = regulator_and_receivers();
    let time_error = |r: Result<(), FederateError>| match r {
        Err(FederateError::Time(e)) => e,
        other => panic!("expected a time error, got {other:?}"),
    };
    let handle = w.send(0, "m", 10).unwrap();
    // Not regulating: f2 sends in receive order, with no handle, and may not retract.
    assert_eq!(w.send(2, "ro", 10), None);
    assert_eq!(
        time_error(w.feds[2].retract(handle)),
        TimeError::TimeRegulationIsNotEnabled
    );
    let foreign = MessageRetractionHandle {
        federate: w.feds[1].handle(),
        serial: 1,
    };
    assert!(matches!(
        time_error(w.feds[0].retract(foreign)),
        TimeError::InvalidMessageRetractionHandle(m) if m.contains("issued to federate")
    ));
    let unissued = MessageRetractionHandle {
        serial: 9,
        ..handle
    };
    assert!(matches!(
        time_error(w.feds[0].retract(unissued)),
        TimeError::InvalidMessageRetractionHandle(m) if m.contains("never issued")
    ));
    w.feds[0].retract(handle).unwrap();
    assert!(matches!(
        time_error(w.feds[0].retract(handle)),
        TimeError::InvalidMessageRetractionHandle(m) if m.contains("retracted already")
    ));
    // Once logical time reaches a message's time stamp it can no longer be retracted.
    let at_ten = w.send(0, "at ten", 10).unwrap();
    let at_eleven = w.send(0, "at eleven", 11).unwrap();
    w.advance(0, 10);
    w.advance(1, 10);
    w.pump();
    assert!(granted(&w.callbacks(0), 10));
    assert!(matches!(
        time_error(w.feds[0].retract(at_ten)),
        TimeError::MessageCanNoLongerBeRetracted(m) if m.contains("logical time 10")
    ));
    assert_eq!(
        w.feds[0].retractable_messages(),
        1,
        "only the one at 11 is left"
    );
    w.feds[0].retract(at_eleven).unwrap();
}

#[test]
fn the_table_of_retractable_messages_is_bounded_and_says_so() {
    let mut w = Timed::new(1);
    w.enable(0, true);
    let first = w.send(0, "first", 10).unwrap();
    let mut last = first;
    for _ in 0..MAX_RETRACTABLE {
        last = w.send(0, "more", 10).unwrap();
        while w.feds[0].poll_action().is_some() {}
    }
    assert_eq!(w.feds[0].retractable_messages(), MAX_RETRACTABLE);
    assert!(matches!(
        w.feds[0].retract(first),
        Err(FederateError::Time(TimeError::MessageCanNoLongerBeRetracted(m)))
            if m.contains(&format!("keeps the latest {MAX_RETRACTABLE}"))
    ));
    w.feds[0].retract(last).unwrap();
}
