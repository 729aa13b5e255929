//! The ambassador from connect to disconnect (`rti::Session`), as the standard orders it:
//! connect before naming a federation, FOM modules named by path, the answers of services
//! as callbacks, callbacks switched off and on, and the automatic resign directive. The C
//! ABI only translates to it; these pin the behaviour for Rust federates too.

mod common;

use common::*;

use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, OwnershipCallback, TimeRepresentation};
use trellis_core::wire::TransportClass;
use trellis_net::rti::{LocalSettings, ResignAction, RtiError, Session};
use trellis_net::Endpoint;

const DEMO_FOM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../foms/trellis-demo.xml");

fn connect(at: &Endpoint) -> Session {
    let settings = LocalSettings::parse(Some(&at.to_string())).unwrap();
    Session::connect(settings).unwrap()
}

/// A session joined to `federation` (created by the first).
fn joined(at: &Endpoint, federation: &str, name: &str) -> Session {
    let mut session = connect(at);
    match session.create_federation_execution(federation, &[DEMO_FOM], None, None) {
        Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
        Err(e) => panic!("create: {e}"),
    }
    let no_modules: [&str; 0] = [];
    (session.join_federation_execution(Some(name), "sim", federation, &no_modules)).unwrap();
    session
}

/// Evoke `session` until a callback matches, driving `other` between looks, within the
/// bound.
fn wait_for_driving(session: &mut Session, other: &mut Session, what: impl Fn(&Callback) -> bool) {
    let deadline = Instant::now() + WAIT;
    let slice = Duration::from_millis(5);
    while Instant::now() < deadline {
        other.evoke_callback(slice).unwrap();
        if let Some(callback) = session.evoke_callback(slice).unwrap() {
            if what(&callback) {
                return;
            }
        }
    }
    panic!("no matching callback in time");
}

/// The next callback, which must be there already.
fn next(session: &mut Session) -> Callback {
    match session.evoke_callback(Duration::ZERO).unwrap() {
        Some(callback) => callback,
        None => panic!("no callback queued"),
    }
}

#[test]
fn a_federate_connects_before_it_names_a_federation_and_leaves_in_the_standards_order() {
    let (_router, at) = registry_router();
    let mut session = connect(&at);
    assert!(matches!(
        session.joined(),
        Err(RtiError::FederateNotExecutionMember)
    ));
    let float = Some("HLAfloat64Time");
    (session.create_federation_execution("Order", &[DEMO_FOM], None, float)).unwrap();
    let listed = session.list_federation_executions().unwrap();
    assert!(listed.contains(&("Order".to_owned(), "HLAfloat64Time".to_owned())));
    assert_eq!(
        next(&mut session),
        Callback::ReportFederationExecutions {
            federations: listed
        }
    );
    let no_modules: [&str; 0] = [];
    let handle = session
        .join_federation_execution(None, "sim", "Order", &no_modules)
        .unwrap();
    assert_eq!(
        session.joined().unwrap().federate().unwrap().handle(),
        handle
    );
    assert_eq!(
        session.time_representation(),
        Some(TimeRepresentation::Float64)
    );
    assert!(matches!(
        session.disconnect(),
        Err(RtiError::FederateIsExecutionMember(f)) if f == "Order"
    ));
    (session.resign_federation_execution(ResignAction::default())).unwrap();
    session.destroy_federation_execution("Order").unwrap();
    session.disconnect().unwrap();
    assert!(matches!(
        session.list_federation_executions(),
        Err(RtiError::NotConnected)
    ));
}

#[test]
fn bad_designators_and_object_models_are_named_as_the_standard_names_them() {
    let (_router, at) = registry_router();
    let mut session = connect(&at);
    let missing = session.create_federation_execution("Bad", &["/nonexistent/x.xml"], None, None);
    assert!(
        matches!(&missing, Err(RtiError::ObjectModel(e)) if e.to_string().contains("/nonexistent/x.xml")),
        "{missing:?}"
    );
    let standard_mim = Some("HLAstandardMIM");
    assert!(matches!(
        session.create_federation_execution("Bad", &[DEMO_FOM], standard_mim, None),
        Err(RtiError::DesignatorIsHlaStandardMim)
    ));
    assert!(matches!(
        session.create_federation_execution("Bad", &[DEMO_FOM], None, Some("HLAwallClock")),
        Err(RtiError::CouldNotCreateLogicalTimeFactory(name)) if name == "HLAwallClock"
    ));
    assert!(matches!(
        LocalSettings::parse(Some("udp://127.0.0.1:9")),
        Err(RtiError::InvalidLocalSettingsDesignator(_))
    ));
}

#[test]
fn name_reservations_are_answered_by_callbacks_and_several_names_all_or_none() {
    let (_router, at) = registry_router();
    let mut a = joined(&at, "Names", "a");
    let mut b = joined(&at, "Names", "b");
    let a_rti = a.joined().unwrap();
    a_rti.reserve_object_instance_name("Tank-1").unwrap();
    assert_eq!(
        next(&mut a),
        Callback::ObjectInstanceNameReservationSucceeded {
            name: "Tank-1".into()
        }
    );
    let b_rti = b.joined().unwrap();
    assert!(b_rti.reserve_object_instance_name("Tank-1").is_err());
    let refused = b_rti.reserve_multiple_object_instance_names(&["Tank-2", "Tank-1"]);
    assert!(matches!(refused, Err(RtiError::ObjectInstanceNameInUse(n)) if n == "Tank-1"));
    assert_eq!(
        next(&mut b),
        Callback::ObjectInstanceNameReservationFailed {
            name: "Tank-1".into()
        }
    );
    assert_eq!(
        next(&mut b),
        Callback::MultipleObjectInstanceNameReservationFailed {
            names: vec!["Tank-2".into(), "Tank-1".into()]
        }
    );
    // All or none: Tank-2, reserved before Tank-1 was refused, was given back.
    let a_rti = a.joined().unwrap();
    (a_rti.reserve_multiple_object_instance_names(&["Tank-2", "Tank-3"])).unwrap();
    assert_eq!(
        next(&mut a),
        Callback::MultipleObjectInstanceNameReservationSucceeded {
            names: vec!["Tank-2".into(), "Tank-3".into()]
        }
    );
    assert!(matches!(
        a.joined()
            .unwrap()
            .reserve_multiple_object_instance_names(&[]),
        Err(RtiError::Federate(
            trellis_core::federate::FederateError::NameSetWasEmpty
        ))
    ));
}

#[test]
fn transportation_changes_and_queries_are_confirmed_by_callbacks() {
    let (_router, at) = registry_router();
    let mut a = joined(&at, "Transport", "a");
    let rti = a.joined().unwrap();
    let ground = rti.object_class_handle("GroundVehicle").unwrap();
    let name = rti.attribute_handle(ground, "Name").unwrap();
    rti.publish_object_class_attributes(ground, &[name])
        .unwrap();
    let tank = rti.register_object_instance(ground).unwrap();
    let best_effort = TransportClass::BestEffort;
    (rti.request_attribute_transportation_type_change(tank, &[name], best_effort)).unwrap();
    assert_eq!(
        rti.query_attribute_transportation_type(tank, name).unwrap(),
        best_effort
    );
    assert_eq!(
        next(&mut a),
        Callback::ConfirmAttributeTransportationTypeChange {
            object: tank,
            attributes: vec![name],
            transport: best_effort
        }
    );
    assert_eq!(
        next(&mut a),
        Callback::ReportAttributeTransportationType {
            object: tank,
            attribute: name,
            transport: best_effort
        }
    );
}

#[test]
fn disabled_callbacks_wait_until_enabled_again() {
    let (_router, at) = registry_router();
    let mut a = joined(&at, "Switch", "a");
    a.enable_callbacks(false).unwrap();
    a.joined()
        .unwrap()
        .reserve_object_instance_name("X")
        .unwrap();
    assert!(!a.callbacks_pending());
    assert_eq!(a.evoke_callback(Duration::from_millis(10)).unwrap(), None);
    a.enable_callbacks(true).unwrap();
    assert!(a.callbacks_pending());
    assert_eq!(
        next(&mut a),
        Callback::ObjectInstanceNameReservationSucceeded { name: "X".into() }
    );
}

/// A federate that goes away joined is resigned by its directive. Here it divests: the
/// instance it registered stays, kept by the other member, who owns one of its attributes
/// and then acquires the rest. (Resigned by the default directive, the instance would be
/// deleted; vanished, it would be removed.)
#[test]
fn a_federate_dropped_while_joined_is_resigned_by_its_automatic_resign_directive() {
    let (_router, at) = registry_router();
    let mut a = joined(&at, "Leave", "a");
    let mut b = joined(&at, "Leave", "b");
    let rti = b.joined().unwrap();
    let ground = rti.object_class_handle("GroundVehicle").unwrap();
    let name = rti.attribute_handle(ground, "Name").unwrap();
    let position = rti.attribute_handle(ground, "Position").unwrap();
    let both = [name, position];
    rti.subscribe_object_class_attributes(ground, &both)
        .unwrap();
    rti.publish_object_class_attributes(ground, &both).unwrap();
    let divest = ResignAction::UnconditionallyDivestAttributes;
    a.set_automatic_resign_directive(divest).unwrap();
    assert_eq!(a.automatic_resign_directive().unwrap(), divest);
    let rti = a.joined().unwrap();
    rti.publish_object_class_attributes(ground, &both).unwrap();
    let tank = rti.register_object_instance(ground).unwrap();
    // The registrar is driven too: a subscription it had not heard of when it registered
    // makes it announce the instance again.
    let discovered = |c: &Callback| matches!(c, Callback::DiscoverObjectInstance { object, .. } if *object == tank);
    wait_for_driving(&mut b, &mut a, discovered);
    let rti = a.joined().unwrap();
    (rti.unconditional_attribute_ownership_divestiture(tank, &[position])).unwrap();
    acquire(&mut b, tank, position, Some(&mut a));
    drop(a);
    acquire(&mut b, tank, name, None);
}

/// Acquire `attribute` of `object` if available, asking again while its owner has not let
/// it go yet, within the bound. `keeper`: the federate that answers, driven here too.
fn acquire(
    session: &mut Session,
    object: trellis_core::federate::ObjectId,
    attribute: trellis_core::fom::AttributeHandle,
    mut keeper: Option<&mut Session>,
) {
    let deadline = Instant::now() + WAIT;
    let slice = Duration::from_millis(5);
    let mut asked = false;
    while Instant::now() < deadline {
        if !asked {
            let rti = session.joined().unwrap();
            (rti.attribute_ownership_acquisition_if_available(object, &[attribute])).unwrap();
            asked = true;
        }
        if let Some(keeper) = keeper.as_deref_mut() {
            keeper.evoke_callback(slice).unwrap();
        }
        let Some(answer) = session.evoke_callback(slice).unwrap() else {
            continue;
        };
        match answer {
            Callback::Ownership(OwnershipCallback::AttributeOwnershipAcquisitionNotification {
                ref attributes,
                ..
            }) if attributes.contains(&attribute) => return,
            Callback::Ownership(OwnershipCallback::AttributeOwnershipUnavailable { .. }) => {
                asked = false
            }
            Callback::RemoveObjectInstance { .. } => panic!("{answer:?}: the instance is gone"),
            _ => {}
        }
    }
    panic!("the attribute was not acquired in time");
}

/// Whether `callback` is a radio message saying `word`.
fn radio_says(callback: &Callback, word: &[u8]) -> bool {
    matches!(callback, Callback::ReceiveInteraction { parameters, .. }
        if parameters.iter().any(|(_, value)| value.as_ref() == word))
}

/// Say `word` on the radio.
fn say(session: &mut Session, word: &[u8]) {
    let rti = session.joined().unwrap();
    let radio = rti.interaction_class_handle("Radio").unwrap();
    let text = rti.parameter_handle(radio, "Text").unwrap();
    rti.send_interaction(radio, &[(text, word)], b"").unwrap();
}

/// Both publish and subscribe the radio, and each has heard the other.
fn talking(a: &mut Session, b: &mut Session) {
    for session in [&mut *a, &mut *b] {
        let rti = session.joined().unwrap();
        let radio = rti.interaction_class_handle("Radio").unwrap();
        rti.publish_interaction_class(radio).unwrap();
        rti.subscribe_interaction_class(radio).unwrap();
    }
    until_heard(a, b);
    until_heard(b, a);
}

/// Until interest has spread, what is said may be dropped: `speaker` says it until
/// `listener` hears it.
fn until_heard(speaker: &mut Session, listener: &mut Session) {
    let deadline = Instant::now() + WAIT;
    loop {
        assert!(Instant::now() < deadline, "the radio was never heard");
        say(speaker, b"warm");
        while let Some(callback) = listener.evoke_callback(Duration::from_millis(5)).unwrap() {
            if radio_says(&callback, b"warm") {
                return;
            }
        }
    }
}

/// A session shared by two threads (`SharedSession`): services called on one while the
/// other evokes with a 30 s timeout are served at once, and what a peer says meanwhile still
/// reaches the evoking thread. Without the break-in each call waits for the evoke to end.
#[test]
fn a_service_called_while_another_thread_evokes_is_served_at_once() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use trellis_net::rti::SharedSession;
    let (_router, at) = registry_router();
    let mut a = joined(&at, "SharedByThreads", "a");
    let mut peer = joined(&at, "SharedByThreads", "peer");
    talking(&mut a, &mut peer);
    let breaker = a.evoke_breaker();
    let a = SharedSession::new(a, breaker);
    let stop = AtomicBool::new(false);
    const CALLS: usize = 100;
    let peer_says = |i: usize| format!("peer {i}").into_bytes();
    std::thread::scope(|scope| {
        let evoking = scope.spawn(|| {
            let mut heard = 0;
            while heard < CALLS / 10 && !stop.load(Ordering::SeqCst) {
                let until = Instant::now() + Duration::from_secs(30);
                let idle = |s: &Session| s.is_idle();
                let taken = a
                    .evoke(until, idle, |s, wait| s.evoke_callback(wait))
                    .unwrap();
                heard += usize::from(taken.is_some_and(|c| radio_says(&c, &peer_says(heard))));
            }
            heard
        });
        let mut slow = None;
        for call in 0..CALLS {
            let started = Instant::now();
            say(&mut a.lock(), format!("a {call}").as_bytes());
            let waited = started.elapsed();
            if waited >= Duration::from_secs(2) {
                // Checked after the evoking thread is stopped: a panic here would wait for it.
                slow = Some((call, waited));
                break;
            }
            if call % 10 == 0 {
                say(&mut peer, &peer_says(call / 10));
            }
            while peer.evoke_callback(Duration::ZERO).unwrap().is_some() {}
        }
        let deadline = Instant::now() + WAIT;
        while !evoking.is_finished() && Instant::now() < deadline {
            peer.evoke_callback(Duration::from_millis(5)).unwrap();
        }
        stop.store(true, Ordering::SeqCst);
        a.interrupt();
        let heard = evoking.join().unwrap();
        assert_eq!(slow, None, "a call (number, wait) waited for the evoke");
        assert_eq!(
            heard,
            CALLS / 10,
            "what the peer said reaches the evoking thread"
        );
    });
}

/// A router that writes each frame on its own (`--bundling off`) sends its hello and its
/// route to the registry in two writes: a federate that asks the registry as soon as its
/// link is up (every program's first create or join) must wait for the route, not fail
/// with "no federation registry is reachable". Before the wait, 5 of 6 such connects failed.
#[test]
fn a_federate_asking_the_registry_as_its_link_comes_up_waits_for_the_route() {
    use trellis_core::router::{LinkConfig, RouterConfig};
    use trellis_core::wire::NodeId;
    use trellis_net::{HostConfig, Runtime};
    let runtime = Runtime::start("unbundled-router").unwrap();
    let mut router = RouterConfig::new("router", NodeId(1));
    router.hosts_registry = true;
    // A batch carries at least one frame: a one-byte limit writes them one by one.
    router.link_defaults = LinkConfig {
        batch_limit_bytes: 1,
        ..LinkConfig::default()
    };
    let mut config = HostConfig::new(router);
    config.listen.push("tcp://127.0.0.1:0".parse().unwrap());
    let at = runtime.add_host(config).unwrap().listening()[0].clone();
    for attempt in 0..20 {
        let mut session = connect(&at);
        let listed = session.list_federation_executions();
        assert!(listed.is_ok(), "connect {attempt}: {listed:?}");
    }
}
