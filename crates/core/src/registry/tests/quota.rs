//! No single node can exhaust the registry, and a full registry says so.

use super::*;

fn create_as(r: &mut Registry, node: u64, name: &str) -> Response {
    r.handle(
        NodeId(node),
        Request::Create {
            federation: name.into(),
            fingerprint: 7,
            modules: vec!["demo.xml".into()],
            time_representation: "HLAinteger64Time".into(),
        },
    )
}

fn message(response: Response) -> (ErrorKind, String) {
    match response {
        Response::Error { kind, message } => (kind, message),
        other => panic!("expected an error, got {other:?}"),
    }
}

#[test]
fn one_node_creating_federations_meets_its_own_limit_and_another_still_creates() {
    let mut r = Registry::new();
    let limit = r.limits().federations_per_creator;
    for i in 0..limit {
        assert_eq!(create_as(&mut r, 1, &format!("F{i}")), Response::Created);
    }
    let (kind, text) = message(create_as(&mut r, 1, "one-too-many"));
    assert_eq!(kind, ErrorKind::LimitReached);
    assert!(
        text.contains(&format!(
            "node {} already created {limit} federations (the per-creator limit is {limit})",
            NodeId(1)
        )),
        "{text}"
    );
    // An existing name is still refused as existing, not for the limit.
    assert_eq!(
        kind_of(create_as(&mut r, 1, "F0")),
        ErrorKind::FederationExists
    );
    assert_eq!(create_as(&mut r, 2, "other"), Response::Created);
    // Destroying one gives its creator room again.
    assert_eq!(
        r.handle(
            NodeId(1),
            Request::Destroy {
                federation: "F0".into()
            }
        ),
        Response::Destroyed
    );
    assert_eq!(create_as(&mut r, 1, "one-too-many"), Response::Created);
}

fn kind_of(response: Response) -> ErrorKind {
    message(response).0
}

#[test]
fn a_full_registry_says_it_is_full() {
    let mut r = Registry::new();
    r.set_limits(RegistryLimits {
        federations_per_creator: usize::MAX,
        ..RegistryLimits::default()
    });
    for i in 0..MAX_FEDERATIONS {
        assert_eq!(
            create_as(&mut r, 1 + i as u64 % 8, &format!("F{i}")),
            Response::Created
        );
    }
    let (kind, text) = message(create_as(&mut r, 99, "late"));
    assert_eq!(kind, ErrorKind::LimitReached);
    assert!(
        text.contains(&format!(
            "the registry holds {MAX_FEDERATIONS} federations, its limit"
        )),
        "{text}"
    );
}

#[test]
fn one_node_joining_federates_meets_its_limit_across_federations_and_others_still_join() {
    let mut r = Registry::new();
    r.set_limits(RegistryLimits {
        federates_per_node: 5,
        ..RegistryLimits::default()
    });
    assert_eq!(create_as(&mut r, 1, "A"), Response::Created);
    assert_eq!(create_as(&mut r, 1, "B"), Response::Created);
    for i in 0..5 {
        let federation = if i % 2 == 0 { "A" } else { "B" };
        assert!(matches!(
            join(&mut r, 3, federation, &format!("flood-{i}"), 7),
            Response::Joined { .. }
        ));
    }
    let (kind, text) = message(join(&mut r, 3, "A", "flood-5", 7));
    assert_eq!(kind, ErrorKind::LimitReached);
    assert!(
        text.contains(&format!(
            "node {} already has 5 federates joined (the per-node limit is 5)",
            NodeId(3)
        )),
        "{text}"
    );
    // An unknown federation is refused as unknown.
    assert_eq!(
        kind_of(join(&mut r, 3, "C", "x", 7)),
        ErrorKind::FederationUnknown
    );
    assert!(matches!(
        join(&mut r, 4, "A", "legit", 7),
        Response::Joined { .. }
    ));
    // A node whose federates leave has room again.
    assert_eq!(
        r.handle(
            NodeId(3),
            Request::NodeGone {
                node: NodeId(3),
                how: Departure::Died
            }
        ),
        Response::Ack
    );
    assert!(matches!(
        join(&mut r, 3, "A", "back", 7),
        Response::Joined { .. }
    ));
}

#[test]
fn the_nodes_of_one_proven_identity_share_one_allowance() {
    let mut r = Registry::new();
    r.set_limits(RegistryLimits {
        federations_per_creator: 2,
        federates_per_node: 3,
    });
    let create = |r: &mut Registry, node: u64, asker: Option<&str>, name: &str| {
        let request = Request::Create {
            federation: name.into(),
            fingerprint: 7,
            modules: vec![],
            time_representation: "HLAinteger64Time".into(),
        };
        r.handle_as(NodeId(node), asker, request)
    };
    assert_eq!(create(&mut r, 1, Some("ops"), "A"), Response::Created);
    assert_eq!(create(&mut r, 2, Some("ops"), "B"), Response::Created);
    let (kind, text) = message(create(&mut r, 3, Some("ops"), "C"));
    assert_eq!(kind, ErrorKind::LimitReached);
    assert!(
        text.contains("\"ops\" already created 2 federations"),
        "{text}"
    );
    // Another identity, and a node without one, have their own.
    assert_eq!(create(&mut r, 3, Some("tank"), "C"), Response::Created);
    assert_eq!(create(&mut r, 1, None, "D"), Response::Created);
    let join = |r: &mut Registry, node: u64, name: &str| {
        let request = Request::Join {
            federation: "A".into(),
            federate_name: name.into(),
            federate_type: "sim".into(),
            fingerprint: 7,
            modules: vec![],
        };
        r.handle_as(NodeId(node), Some("tank"), request)
    };
    for (node, name) in [(10, "a"), (11, "b"), (12, "c")] {
        assert!(matches!(join(&mut r, node, name), Response::Joined { .. }));
    }
    let (kind, text) = message(join(&mut r, 13, "d"));
    assert_eq!(kind, ErrorKind::LimitReached);
    assert!(
        text.contains("\"tank\" already has 3 federates joined"),
        "{text}"
    );
}
