//! A registry restarted empty, rebuilt from the reclaims of the federates that remain.

use super::super::*;
use bytes::Bytes;

const OLD: u64 = 0xA;
const NEW: u64 = 0xB;

fn registry() -> Registry {
    let mut r = Registry::new();
    r.start_epoch(NEW);
    r
}

/// What federate `federate` ("a", "b", … by handle) of a two-member federation knows.
fn reclaim(federate: u32, seq: u64) -> Reclaim {
    Reclaim {
        federation: "F".into(),
        fingerprint: 7,
        modules: vec!["demo.xml".into()],
        time_representation: "HLAinteger64Time".into(),
        epoch: OLD,
        seq,
        federate,
        name: name(federate),
        kind: "sim".into(),
        federates: vec![(1, name(1), "sim".into()), (2, name(2), "sim".into())],
        ..Reclaim::default()
    }
}

fn name(handle: u32) -> String {
    ((b'a' + handle as u8 - 1) as char).to_string()
}

fn ask(r: &mut Registry, node: u64, request: Reclaim) -> Response {
    r.handle(NodeId(node), Request::Reclaim(Box::new(request)))
}

fn snapshot(response: Response) -> Snapshot {
    match response {
        Response::Reclaimed { snapshot, .. } => snapshot,
        other => panic!("reclaim refused: {other:?}"),
    }
}

fn refusal(response: Response) -> (ErrorKind, String) {
    match response {
        Response::Error { kind, message } => (kind, message),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

fn events(r: &mut Registry) -> Vec<FederationEvent> {
    std::iter::from_fn(|| r.poll_event())
        .map(|(_, payload)| FederationEvent::decode(&payload).unwrap().1)
        .collect()
}

fn join(r: &mut Registry, name: &str) -> Response {
    r.handle(
        NodeId(9),
        Request::Join {
            federation: "F".into(),
            federate_name: name.into(),
            federate_type: "sim".into(),
            fingerprint: 7,
            modules: vec![],
        },
    )
}

#[test]
fn the_first_reclaim_recreates_the_federation_and_seeds_its_members() {
    let mut r = registry();
    let mut a = reclaim(1, 40);
    a.reserved = vec!["Tank-1".into()];
    let snap = snapshot(ask(&mut r, 1, a));
    assert_eq!(snap.epoch, NEW);
    assert_eq!(
        snap.federates,
        vec![(1, "a".into(), "sim".into()), (2, "b".into(), "sim".into())],
        "b is a member under its old handle before it reclaims"
    );
    assert!(
        snap.seq > 40,
        "numbering continues above the old incarnation's"
    );
    let stamped = std::iter::from_fn(|| r.poll_event())
        .map(|(_, p)| FederationEvent::decode_stamped(&p).unwrap())
        .collect::<Vec<_>>();
    assert!(stamped.iter().all(|(epoch, _, _)| *epoch == NEW));
    // Nobody takes b's handle or name meanwhile; a newcomer gets a fresh handle.
    assert_eq!(refusal(join(&mut r, "b")).0, ErrorKind::FederateNameInUse);
    assert!(matches!(
        join(&mut r, "c"),
        Response::Joined { federate: 3, .. }
    ));
    // The name a reserved is still its own.
    let reserve = |federate| Request::ReserveName {
        federation: "F".into(),
        federate,
        name: "Tank-1".into(),
    };
    assert!(matches!(
        r.handle(NodeId(9), reserve(3)),
        Response::NameRefused { .. }
    ));
    // b reclaims: confirmed, and its vouches now count.
    let snap = snapshot(ask(&mut r, 2, reclaim(2, 40)));
    assert_eq!(snap.federates.len(), 3);
    assert_eq!(
        r.handle(
            NodeId(5),
            Request::Vouch {
                nodes: vec![NodeId(1), NodeId(2)]
            }
        ),
        Response::Vouched { unknown: vec![] }
    );
    // Reclaiming again (an answer lost on the way) is harmless, and so is a reclaim in this
    // incarnation's own epoch from the member itself (a late "not a member" notice).
    snapshot(ask(&mut r, 2, reclaim(2, 40)));
    let mut late = reclaim(2, snap.seq);
    late.epoch = NEW;
    assert_eq!(snapshot(ask(&mut r, 2, late)).federates.len(), 3);
    assert!(events(&mut r)
        .iter()
        .all(|e| matches!(e, FederationEvent::FederateJoined { .. })));
    // Resign and destroy work as ever, each federate resigned by its own node (a and b
    // reclaimed from nodes 1 and 2, c joined from 9).
    for (federate, node) in [(1, 1), (2, 2), (3, 9)] {
        let resign = Request::Resign {
            federation: "F".into(),
            federate,
        };
        assert_eq!(r.handle(NodeId(node), resign), Response::Resigned);
    }
    let destroy = Request::Destroy {
        federation: "F".into(),
    };
    assert_eq!(r.handle(NodeId(1), destroy), Response::Destroyed);
}

#[test]
fn handle_and_name_conflicts_and_the_registrys_own_resignations_are_refused() {
    let mut r = registry();
    snapshot(ask(&mut r, 1, reclaim(1, 10)));
    // Someone else claims b's handle under another name.
    let mut impostor = reclaim(2, 10);
    impostor.name = "z".into();
    let (kind, message) = refusal(ask(&mut r, 7, impostor));
    assert_eq!(kind, ErrorKind::FederateNameInUse);
    assert!(message.contains("held by \"b\""), "{message}");
    // a's name under another handle.
    let mut twin = reclaim(4, 10);
    twin.name = "a".into();
    assert_eq!(
        refusal(ask(&mut r, 8, twin)).0,
        ErrorKind::FederateNameInUse
    );
    // a's handle, reclaimed already, from another node.
    assert!(refusal(ask(&mut r, 8, reclaim(1, 10)))
        .1
        .contains("another node"));
    // A member the first reclaimer had not heard of, whose handle a newcomer took.
    assert!(matches!(
        join(&mut r, "newcomer"),
        Response::Joined { federate: 3, .. }
    ));
    let mut unheard = reclaim(3, 10);
    unheard.name = "late".into();
    assert!(refusal(ask(&mut r, 6, unheard))
        .1
        .contains("held by \"newcomer\""));
    // A federate this very registry resigned as died comes back: refused.
    let mut resigned = reclaim(2, 10);
    resigned.epoch = NEW;
    let (kind, message) = refusal(ask(&mut r, 2, resigned));
    assert_eq!(kind, ErrorKind::FederateUnknown);
    assert!(message.contains("resigned federate 2"), "{message}");
}

#[test]
fn a_reclaim_with_another_object_model_is_refused_naming_both() {
    let mut r = registry();
    snapshot(ask(&mut r, 1, reclaim(1, 10)));
    let mut other = reclaim(2, 10);
    other.fingerprint = 8;
    other.modules = vec!["other.xml".into()];
    let (kind, message) = refusal(ask(&mut r, 2, other));
    assert_eq!(kind, ErrorKind::InconsistentFom);
    assert!(
        message.contains("other.xml") && message.contains("demo.xml"),
        "{message}"
    );
}

fn point(label: &str, announced: u64, achieved: Option<bool>) -> ReclaimedSync {
    ReclaimedSync {
        label: label.into(),
        tag: Bytes::from_static(b"tag"),
        members: vec![],
        announced,
        achieved,
    }
}

#[test]
fn sync_points_are_merged_and_synchronized_once_every_member_achieved() {
    let mut r = registry();
    let mut a = reclaim(1, 20);
    a.sync_points = vec![
        point("Pending", 12, Some(true)),
        point("EndedForB", 15, Some(true)),
        point("UnheardByB", 18, None),
    ];
    snapshot(ask(&mut r, 1, a));
    assert!(
        !events(&mut r)
            .iter()
            .any(|e| matches!(e, FederationEvent::FederationSynchronized { .. })),
        "b has not reclaimed: nothing is synchronized yet"
    );
    // b saw EndedForB synchronized (its last event is after the announcement), never heard
    // of UnheardByB (announced after its last event), and has not achieved Pending.
    let mut b = reclaim(2, 17);
    b.sync_points = vec![point("Pending", 12, None)];
    let snap = snapshot(ask(&mut r, 2, b));
    let labels: Vec<&str> = snap.sync_points.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(
        labels,
        ["Pending", "UnheardByB"],
        "announced to b as needed"
    );
    assert!(
        events(&mut r).contains(&FederationEvent::FederationSynchronized {
            label: "EndedForB".into(),
            failed: vec![]
        })
    );
    let achieve = |federate, label: &str| Request::AchieveSync {
        federation: "F".into(),
        federate,
        label: label.into(),
        success: true,
    };
    assert_eq!(r.handle(NodeId(2), achieve(2, "Pending")), Response::Ack);
    r.handle(NodeId(2), achieve(2, "UnheardByB"));
    assert!(events(&mut r).iter().any(
        |e| matches!(e, FederationEvent::FederationSynchronized { label, .. } if label == "Pending")
    ));
    r.handle(NodeId(1), achieve(1, "UnheardByB"));
    assert!(events(&mut r)
        .iter()
        .any(|e| matches!(e, FederationEvent::FederationSynchronized { label, .. } if label == "UnheardByB")));
}

#[test]
fn time_state_is_rebuilt_with_the_old_regulation_epochs_and_each_member_speaks_for_itself() {
    let mut r = registry();
    let mut a = reclaim(1, 30);
    a.regulating = vec![(1, 5), (2, 9)];
    a.constrained = vec![1];
    snapshot(ask(&mut r, 1, a));
    let Response::Joined {
        snapshot: joined, ..
    } = join(&mut r, "c")
    else {
        panic!("join refused")
    };
    assert_eq!(joined.regulating, vec![(1, 5), (2, 9)]);
    assert_eq!(joined.constrained, vec![1]);
    // b had switched regulation off and constraint on by the time it reclaims.
    let mut b = reclaim(2, 31);
    b.regulating = vec![(1, 5)];
    b.constrained = vec![1, 2];
    let snap = snapshot(ask(&mut r, 2, b));
    assert_eq!(snap.regulating, vec![(1, 5)]);
    assert_eq!(snap.constrained, vec![1, 2]);
    // A later switch-on gets an epoch above every old one.
    r.handle(
        NodeId(9),
        Request::Time {
            federation: "F".into(),
            federate: 3,
            switch: TimeSwitch::RegulationOn,
        },
    );
    let epoch = r.federations["F"].regulating[&3];
    assert!(epoch > 31, "{epoch}");
}

#[test]
fn a_member_that_never_reclaims_is_resigned_as_died_after_a_lease() {
    let lease = Duration::from_secs(10);
    let mut r = Registry::with_lease(lease);
    r.start_epoch(NEW);
    let start = Time::ZERO + Duration::from_secs(100);
    r.tick(start);
    let mut a = reclaim(1, 3);
    a.regulating = vec![(2, 2)];
    snapshot(ask(&mut r, 1, a));
    events(&mut r);
    for step in 1..=6u64 {
        r.handle(
            NodeId(5),
            Request::Vouch {
                nodes: vec![NodeId(1)],
            },
        );
        r.tick(start + Duration::from_secs(2 * step));
    }
    assert_eq!(
        events(&mut r),
        vec![FederationEvent::FederateLeft {
            federate: 2,
            how: Departure::Died
        }]
    );
    assert!(r.federations["F"].regulating.is_empty());
}

#[test]
fn a_replay_asked_in_an_earlier_incarnations_numbering_is_answered_restarted() {
    let mut r = registry();
    snapshot(ask(&mut r, 1, reclaim(1, 3)));
    let events = |epoch| Request::Events {
        federation: "F".into(),
        epoch,
        after: 3,
    };
    assert_eq!(
        refusal(r.handle(NodeId(1), events(OLD))).0,
        ErrorKind::RegistryRestarted
    );
    assert!(matches!(
        r.handle(NodeId(1), events(NEW)),
        Response::Events(_)
    ));
}
