//! The registry's services, answered as the standard says.

use super::*;

fn create(r: &mut Registry, name: &str, fingerprint: u64) -> Response {
    create_timed(r, name, fingerprint, "HLAinteger64Time")
}

fn create_timed(
    r: &mut Registry,
    name: &str,
    fingerprint: u64,
    time_representation: &str,
) -> Response {
    r.handle(
        NodeId(1),
        Request::Create {
            federation: name.into(),
            fingerprint,
            modules: vec!["demo.xml".into()],
            time_representation: time_representation.into(),
        },
    )
}

fn join(r: &mut Registry, node: u64, federation: &str, name: &str, fingerprint: u64) -> Response {
    r.handle(
        NodeId(node),
        Request::Join {
            federation: federation.into(),
            federate_name: name.into(),
            federate_type: "sim".into(),
            fingerprint,
            modules: vec![],
        },
    )
}

fn kind(response: Response) -> ErrorKind {
    match response {
        Response::Error { kind, .. } => kind,
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn the_federation_lifecycle_with_its_failures() {
    let mut r = Registry::new();
    assert_eq!(create(&mut r, "F", 7), Response::Created);
    assert_eq!(kind(create(&mut r, "F", 7)), ErrorKind::FederationExists);
    assert_eq!(
        kind(join(&mut r, 2, "G", "a", 7)),
        ErrorKind::FederationUnknown
    );
    assert_eq!(
        kind(join(&mut r, 2, "F", "a", 8)),
        ErrorKind::InconsistentFom
    );
    assert!(matches!(
        join(&mut r, 2, "F", "a", 7),
        Response::Joined { federate: 1, .. }
    ));
    assert!(matches!(
        join(&mut r, 3, "F", "b", 7),
        Response::Joined { federate: 2, .. }
    ));
    assert_eq!(
        kind(join(&mut r, 4, "F", "a", 7)),
        ErrorKind::FederateNameInUse
    );
    let destroy = Request::Destroy {
        federation: "F".into(),
    };
    assert_eq!(
        kind(r.handle(NodeId(1), destroy.clone())),
        ErrorKind::FederatesJoined
    );
    let resign = Request::Resign {
        federation: "F".into(),
        federate: 1,
    };
    assert_eq!(r.handle(NodeId(2), resign.clone()), Response::Resigned);
    assert_eq!(
        kind(r.handle(NodeId(2), resign)),
        ErrorKind::FederateUnknown
    );
    // The node of federate 2 drops off the network: it is resigned for it.
    assert_eq!(
        r.handle(
            NodeId(9),
            Request::NodeGone {
                node: NodeId(3),
                how: Departure::Died,
            }
        ),
        Response::Ack
    );
    assert_eq!(r.handle(NodeId(1), destroy.clone()), Response::Destroyed);
    assert_eq!(
        kind(r.handle(NodeId(1), destroy)),
        ErrorKind::FederationUnknown
    );
}

#[test]
fn names_are_reserved_once_and_freed_by_resigning() {
    let mut r = Registry::new();
    create(&mut r, "F", 1);
    join(&mut r, 2, "F", "a", 1);
    join(&mut r, 3, "F", "b", 1);
    let reserve = |federate: u32| Request::ReserveName {
        federation: "F".into(),
        federate,
        name: "Tank-1".into(),
    };
    assert_eq!(
        r.handle(NodeId(2), reserve(1)),
        Response::NameReserved {
            name: "Tank-1".into()
        }
    );
    assert_eq!(
        r.handle(NodeId(3), reserve(2)),
        Response::NameRefused {
            name: "Tank-1".into()
        }
    );
    r.handle(
        NodeId(2),
        Request::Resign {
            federation: "F".into(),
            federate: 1,
        },
    );
    assert_eq!(
        r.handle(NodeId(3), reserve(2)),
        Response::NameReserved {
            name: "Tank-1".into()
        }
    );
}

mod lease;
mod quota;
mod replay;
mod save;
mod sync;

fn join_with(r: &mut Registry, name: &str, fingerprint: u64, modules: &[&str]) -> Response {
    r.handle(
        NodeId(5),
        Request::Join {
            federation: "F".into(),
            federate_name: name.into(),
            federate_type: "sim".into(),
            fingerprint,
            modules: modules.iter().map(|m| m.to_string()).collect(),
        },
    )
}

/// Additional FOM modules at join (1516.1-2010 §4.9): a joiner whose modules extend the
/// federation's makes the extended model the federation's, announced to the members before
/// the joiner itself; anything else that differs is refused.
#[test]
fn a_joiner_with_additional_modules_extends_the_federation_model() {
    let mut r = Registry::new();
    assert_eq!(create(&mut r, "F", 7), Response::Created);
    assert!(matches!(
        join(&mut r, 2, "F", "early", 7),
        Response::Joined { .. }
    ));
    while r.poll_event().is_some() {}
    assert!(matches!(
        join_with(&mut r, "tanks", 8, &["demo.xml", "tanks.xml"]),
        Response::Joined { federate: 2, .. }
    ));
    let events: Vec<FederationEvent> = std::iter::from_fn(|| r.poll_event())
        .map(|(_, payload)| FederationEvent::decode(&payload).unwrap().1)
        .collect();
    assert!(
        matches!(
            &events[..],
            [FederationEvent::ModulesAdded { modules, fingerprint: 8 }, FederationEvent::FederateJoined { federate: 2, .. }]
                if modules == &["demo.xml".to_string(), "tanks.xml".to_string()]
        ),
        "{events:?}"
    );
    // Later joiners load the extended model; the old one no longer matches.
    let modules = r.handle(
        NodeId(6),
        Request::Modules {
            federation: "F".into(),
        },
    );
    assert_eq!(
        modules,
        Response::Modules(vec!["demo.xml".into(), "tanks.xml".into()])
    );
    assert!(matches!(
        join(&mut r, 6, "F", "late", 8),
        Response::Joined { .. }
    ));
    assert_eq!(
        kind(join(&mut r, 7, "F", "stale", 7)),
        ErrorKind::InconsistentFom
    );
    // Modules that do not start with the federation's are not an extension of it.
    assert_eq!(
        kind(join_with(&mut r, "other", 9, &["demo.xml", "ships.xml"])),
        ErrorKind::InconsistentFom
    );
    assert_eq!(
        kind(join_with(&mut r, "fewer", 9, &["demo.xml"])),
        ErrorKind::InconsistentFom
    );
}

/// The attack of issue 33: a raw client resigned other federates by writing their handles
/// into requests. A federate is acted for by its own node alone.
#[test]
fn only_a_federates_own_node_acts_for_it() {
    let mut r = Registry::new();
    assert_eq!(create(&mut r, "F", 7), Response::Created);
    let Response::Joined { federate, .. } = join(&mut r, 2, "F", "victim", 7) else {
        panic!("join")
    };
    let acts_for_victim = [
        Request::Resign {
            federation: "F".into(),
            federate,
        },
        Request::ReserveName {
            federation: "F".into(),
            federate,
            name: "n".into(),
        },
        Request::AchieveSync {
            federation: "F".into(),
            federate,
            label: "l".into(),
            success: true,
        },
    ];
    for request in acts_for_victim {
        let response = r.handle(NodeId(66), request.clone());
        let Response::Error { kind, message } = response else {
            panic!("{request:?} from another node: {response:?}")
        };
        assert_eq!(kind, ErrorKind::NotPermitted, "{message}");
        assert!(
            message.contains("victim") && message.contains("own node"),
            "{message}"
        );
    }
    assert_eq!(
        kind(r.handle(
            NodeId(66),
            Request::Destroy {
                federation: "F".into()
            }
        )),
        ErrorKind::FederatesJoined,
        "the victim is still joined"
    );
    let own = Request::Resign {
        federation: "F".into(),
        federate,
    };
    assert_eq!(r.handle(NodeId(2), own), Response::Resigned);
}
