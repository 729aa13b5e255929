//! Synchronization points (announced once, synchronized when all achieved, late joiners
//! and dead members) and time switches in order with their epochs.

use super::super::*;

fn events(r: &mut Registry) -> Vec<FederationEvent> {
    std::iter::from_fn(|| r.poll_event())
        .map(|(_, payload)| FederationEvent::decode(&payload).unwrap().1)
        .collect()
}

/// The node federate `federate` joined from in [`setup`]: only it may act for it.
fn node_of(federate: u32) -> NodeId {
    NodeId(u64::from(federate) + 1)
}

fn setup() -> Registry {
    let mut r = Registry::new();
    super::create_timed(&mut r, "F", 1, "HLAfloat64Time");
    for (node, name) in [(2, "a"), (3, "b"), (4, "c")] {
        super::join(&mut r, node, "F", name, 1);
    }
    events(&mut r);
    r
}

fn register(r: &mut Registry, label: &str, members: Vec<u32>) -> Response {
    r.handle(
        NodeId(2),
        Request::RegisterSync {
            federation: "F".into(),
            federate: 1,
            label: label.into(),
            tag: Bytes::from_static(b"tag"),
            members,
        },
    )
}

fn achieve(r: &mut Registry, federate: u32, label: &str, success: bool) -> Response {
    r.handle(
        node_of(federate),
        Request::AchieveSync {
            federation: "F".into(),
            federate,
            label: label.into(),
            success,
        },
    )
}

#[test]
fn a_point_is_announced_once_and_synchronized_when_all_achieved() {
    let mut r = setup();
    assert_eq!(
        register(&mut r, "ReadyToRun", vec![]),
        Response::SyncRegistered {
            label: "ReadyToRun".into()
        }
    );
    assert_eq!(
        register(&mut r, "ReadyToRun", vec![]),
        Response::SyncRefused {
            label: "ReadyToRun".into(),
            reason: SyncFailure::LabelNotUnique
        }
    );
    assert_eq!(
        register(&mut r, "Other", vec![1, 9]),
        Response::SyncRefused {
            label: "Other".into(),
            reason: SyncFailure::MemberNotJoined
        }
    );
    assert!(
        matches!(&events(&mut r)[..], [FederationEvent::SyncAnnounced { label, .. }] if label == "ReadyToRun")
    );
    achieve(&mut r, 1, "ReadyToRun", true);
    achieve(&mut r, 2, "ReadyToRun", false);
    assert!(events(&mut r).is_empty(), "c has not achieved yet");
    // A federate that resigns counts as achieved.
    r.handle(
        NodeId(4),
        Request::Resign {
            federation: "F".into(),
            federate: 3,
        },
    );
    assert_eq!(
        events(&mut r),
        vec![
            FederationEvent::FederateLeft {
                federate: 3,
                how: Departure::Resigned
            },
            FederationEvent::FederationSynchronized {
                label: "ReadyToRun".into(),
                failed: vec![2]
            }
        ]
    );
    assert!(matches!(
        achieve(&mut r, 1, "ReadyToRun", true),
        Response::Error {
            kind: ErrorKind::SyncPointUnknown,
            ..
        }
    ));
}

#[test]
fn late_joiners_get_pending_points_and_a_dead_member_counts_as_achieved() {
    let mut r = setup();
    register(&mut r, "All", vec![]);
    register(&mut r, "Pair", vec![1, 2]);
    let Response::Joined { federate, snapshot } = super::join(&mut r, 5, "F", "late", 1) else {
        panic!("join refused")
    };
    assert_eq!(federate, 4);
    let labels: Vec<&str> = snapshot
        .sync_points
        .iter()
        .map(|(l, _)| l.as_str())
        .collect();
    assert_eq!(
        labels,
        ["All"],
        "the late joiner is a member of the federation-wide point only"
    );
    assert_eq!(snapshot.time_representation, "HLAfloat64Time");
    assert_eq!(snapshot.federates.len(), 4);
    events(&mut r);
    for f in [1, 3, 4] {
        achieve(&mut r, f, "All", true);
    }
    achieve(&mut r, 1, "Pair", true);
    assert!(events(&mut r).is_empty());
    r.handle(
        NodeId(9),
        Request::NodeGone {
            node: NodeId(3),
            how: Departure::Died,
        },
    );
    let after = events(&mut r);
    assert_eq!(after.len(), 3, "{after:?}");
    assert!(after.contains(&FederationEvent::FederationSynchronized {
        label: "All".into(),
        failed: vec![]
    }));
    assert!(after.contains(&FederationEvent::FederationSynchronized {
        label: "Pair".into(),
        failed: vec![]
    }));
}

#[test]
fn time_switches_are_ordered_with_their_epochs() {
    let mut r = setup();
    let switch = |r: &mut Registry, federate, switch| {
        r.handle(
            node_of(federate),
            Request::Time {
                federation: "F".into(),
                federate,
                switch,
            },
        )
    };
    assert_eq!(switch(&mut r, 1, TimeSwitch::RegulationOn), Response::Ack);
    switch(&mut r, 2, TimeSwitch::ConstrainedOn);
    let Response::Joined { snapshot, .. } = super::join(&mut r, 5, "F", "late", 1) else {
        panic!("join refused")
    };
    let epoch = snapshot.regulating[0].1;
    assert_eq!(snapshot.regulating, vec![(1, epoch)]);
    assert_eq!(snapshot.constrained, vec![2]);
    assert!(matches!(
        switch(&mut r, 42, TimeSwitch::RegulationOn),
        Response::Error {
            kind: ErrorKind::FederateUnknown,
            ..
        }
    ));
}
