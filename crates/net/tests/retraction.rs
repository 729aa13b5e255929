//! retract and requestRetraction† (IEEE 1516.1-2010 §8.21, §8.22) over real sockets: a
//! regulating sender, a constrained receiver that must never see a retracted message, and an
//! unconstrained one that was handed it at once and is asked to retract it.

mod common;

use common::*;

use std::time::{Duration, Instant};
use trellis_core::federate::{
    Callback, FederateError, Interval, LogicalTime, MessageRetractionHandle, ObjectId, TimeError,
};
use trellis_core::fom::{AttributeHandle, InteractionClassHandle, ParameterHandle};
use trellis_net::rti::{Driver, RtiAmbassador, RtiError};

struct Federation {
    /// Regulating sender.
    a: RtiAmbassador,
    /// Constrained receiver.
    b: RtiAmbassador,
    /// Neither: time-stamped messages reach it in receive order.
    c: RtiAmbassador,
    car: ObjectId,
    name: AttributeHandle,
    radio: InteractionClassHandle,
    text: ParameterHandle,
}

/// Three federates joined; `a` registered a car that `b` and `c` discovered, and sends the
/// Radio interaction both subscribe to.
fn federation(at: &trellis_net::Endpoint) -> Federation {
    let model = model();
    let join = |name: &str| {
        let mut rti = connect(at, "Retract", name, Driver::Direct);
        if name == "a" {
            rti.create_federation_execution(&model).unwrap();
        }
        rti.join_federation_execution(name, "sim", model.clone())
            .unwrap();
        rti
    };
    let (mut a, mut b, mut c) = (join("a"), join("b"), join("c"));
    let vehicle = a.object_class_handle("Vehicle").unwrap();
    let name = a.attribute_handle(vehicle, "Name").unwrap();
    let radio = a.interaction_class_handle("Radio").unwrap();
    let text = a.parameter_handle(radio, "Text").unwrap();
    a.publish_object_class_attributes(vehicle, &[name]).unwrap();
    a.publish_interaction_class(radio).unwrap();
    for receiver in [&mut b, &mut c] {
        receiver
            .subscribe_object_class_attributes(vehicle, &[name])
            .unwrap();
        receiver.subscribe_interaction_class(radio).unwrap();
    }
    let car = a.register_object_instance(vehicle).unwrap();
    let mut f = Federation {
        a,
        b,
        c,
        car,
        name,
        radio,
        text,
    };
    f.until_both_reflect();
    f
}

impl Federation {
    /// Update the car in receive order until `b` and `c` reflect it: their subscriptions
    /// reached the router.
    fn until_both_reflect(&mut self) {
        let deadline = Instant::now() + WAIT;
        let (mut b_seen, mut c_seen) = (false, false);
        let reflected = |got: Vec<Callback>| {
            (got.iter()).any(|c| matches!(c, Callback::ReflectAttributeValues { .. }))
        };
        while !(b_seen && c_seen) {
            assert!(Instant::now() < deadline, "no reflections in time");
            (self.a)
                .update_attribute_values(self.car, &[(self.name, b"ro".as_slice())], b"")
                .unwrap();
            let wait = Duration::from_millis(20);
            b_seen |= reflected(self.b.evoke_multiple_callbacks(wait, 100).unwrap());
            c_seen |= reflected(self.c.evoke_multiple_callbacks(wait, 100).unwrap());
        }
    }

    /// `a` regulates (lookahead 1), `b` is constrained.
    fn switch_time_on(&mut self) {
        self.a.enable_time_regulation(Interval::Integer(1)).unwrap();
        wait_for(&mut self.a, |c| {
            matches!(c, Callback::TimeRegulationEnabled { .. })
        });
        self.b.enable_time_constrained().unwrap();
        let deadline = Instant::now() + WAIT;
        loop {
            assert!(Instant::now() < deadline, "b was not constrained in time");
            self.a.evoke_callback(Duration::ZERO).unwrap();
            let got = (self.b.evoke_callback(Duration::from_millis(20))).unwrap();
            if matches!(got, Some(Callback::TimeConstrainedEnabled { .. })) {
                return;
            }
        }
    }

    fn update_at(&mut self, value: &str, at: i64) -> MessageRetractionHandle {
        let values = [(self.name, value.as_bytes())];
        (self.a)
            .update_attribute_values_at(self.car, &values, b"", LogicalTime::from_i64(at), None)
            .unwrap()
            .expect("time-stamp order: a retraction handle")
    }

    fn send_at(&mut self, value: &str, at: i64) -> MessageRetractionHandle {
        let parameters = [(self.text, value.as_bytes())];
        (self.a)
            .send_interaction_at(
                self.radio,
                &parameters,
                b"",
                LogicalTime::from_i64(at),
                None,
            )
            .unwrap()
            .expect("time-stamp order: a retraction handle")
    }

    /// Both `a` and `b` advance to `time`; what `b` was handed up to its grant.
    fn advance(&mut self, time: i64) -> Vec<Callback> {
        self.a
            .time_advance_request(LogicalTime::from_i64(time))
            .unwrap();
        self.b
            .time_advance_request(LogicalTime::from_i64(time))
            .unwrap();
        let deadline = Instant::now() + WAIT;
        let (mut a_granted, mut handed) = (false, Vec::new());
        let granted =
            |h: &Vec<Callback>| matches!(h.last(), Some(Callback::TimeAdvanceGrant { .. }));
        while !a_granted || !granted(&handed) {
            assert!(Instant::now() < deadline, "no grants in time: {handed:#?}");
            let got = self.a.evoke_callback(Duration::ZERO).unwrap();
            a_granted |= matches!(got, Some(Callback::TimeAdvanceGrant { .. }));
            if !granted(&handed) {
                handed.extend(self.b.evoke_callback(Duration::from_millis(20)).unwrap());
            }
        }
        handed
    }
}

/// The values (of reflections and interactions) in `handed`, with their retraction handles.
fn carried(handed: &[Callback]) -> Vec<(String, Option<MessageRetractionHandle>)> {
    (handed.iter())
        .filter_map(|c| match c {
            Callback::ReflectAttributeValues {
                values, retraction, ..
            } => Some((&values[0].1, *retraction)),
            Callback::ReceiveInteraction {
                parameters,
                retraction,
                ..
            } => Some((&parameters[0].1, *retraction)),
            _ => None,
        })
        .map(|(v, r)| (String::from_utf8_lossy(v).into_owned(), r))
        .collect()
}

fn time_error(result: Result<(), RtiError>) -> TimeError {
    match result {
        Err(RtiError::Federate(FederateError::Time(e))) => e,
        other => panic!("expected a time error, got {other:?}"),
    }
}

#[test]
fn retracted_messages_are_dropped_where_queued_and_asked_back_where_delivered() {
    let (_router, at) = registry_router();
    let mut f = federation(&at);
    f.switch_time_on();
    let update = f.update_at("retracted update", 5);
    let interaction = f.send_at("retracted interaction", 6);
    let kept = f.update_at("kept", 7);
    // c is handed each message as it comes, with the handle a got (past the receive-order
    // updates that found the subscriptions).
    let time_stamped = |c: &Callback| {
        carried(std::slice::from_ref(c))
            .iter()
            .any(|(_, r)| r.is_some())
    };
    let mut seen = Vec::new();
    while seen.len() < 3 {
        seen.extend(carried(&[wait_for(&mut f.c, time_stamped)]));
    }
    assert_eq!(
        seen,
        vec![
            ("retracted update".to_owned(), Some(update)),
            ("retracted interaction".to_owned(), Some(interaction)),
            ("kept".to_owned(), Some(kept)),
        ]
    );
    f.a.retract(update).unwrap();
    f.a.retract(interaction).unwrap();
    for handle in [update, interaction] {
        let asked = wait_for(&mut f.c, |c| {
            matches!(c, Callback::RequestRetraction { .. })
        });
        assert_eq!(asked, Callback::RequestRetraction { handle });
    }
    let handed = f.advance(10);
    assert_eq!(
        carried(&handed),
        vec![("kept".to_owned(), Some(kept))],
        "the constrained federate never sees a retracted message: {handed:#?}"
    );
    assert!(!handed
        .iter()
        .any(|c| matches!(c, Callback::RequestRetraction { .. })));
}

#[test]
fn a_retracted_time_stamped_delete_does_not_remove_the_instance() {
    let (_router, at) = registry_router();
    let mut f = federation(&at);
    f.switch_time_on();
    let car = f.car;
    let delete = (f.a)
        .delete_object_instance_at(car, b"", LogicalTime::from_i64(5))
        .unwrap()
        .expect("a handle");
    f.a.retract(delete).unwrap();
    let handed = f.advance(10);
    assert!(
        !handed
            .iter()
            .any(|c| matches!(c, Callback::RemoveObjectInstance { .. })),
        "{handed:#?}"
    );
    // c removed it in receive order, then is asked to retract the removal.
    let removed = wait_for(&mut f.c, |c| {
        matches!(c, Callback::RemoveObjectInstance { .. })
    });
    assert_eq!(removed.retraction(), Some(delete));
    assert_eq!(
        wait_for(&mut f.c, |c| matches!(
            c,
            Callback::RequestRetraction { .. }
        )),
        Callback::RequestRetraction { handle: delete }
    );
}

#[test]
fn retract_throws_the_standard_exceptions() {
    let (_router, at) = registry_router();
    let mut f = federation(&at);
    f.switch_time_on();
    let early = f.update_at("early", 5);
    let late = f.update_at("late", 20);
    assert_eq!(
        time_error(f.b.retract(early)),
        TimeError::TimeRegulationIsNotEnabled
    );
    let never = MessageRetractionHandle {
        serial: 99,
        ..early
    };
    assert!(matches!(
        time_error(f.a.retract(never)),
        TimeError::InvalidMessageRetractionHandle(_)
    ));
    f.advance(10);
    assert!(matches!(
        time_error(f.a.retract(early)),
        TimeError::MessageCanNoLongerBeRetracted(_)
    ));
    f.a.retract(late).unwrap();
    assert!(matches!(
        time_error(f.a.retract(late)),
        TimeError::InvalidMessageRetractionHandle(_)
    ));
    f.a.resign_federation_execution(Default::default()).unwrap();
    assert!(matches!(
        f.a.retract(late),
        Err(RtiError::FederateNotExecutionMember)
    ));
}
