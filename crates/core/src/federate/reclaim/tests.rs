//! Two federates outlive their registry: it restarts empty, and they rebuild it. The
//! registry-and-federates harness here serves the save tests too.

use super::super::{Action, Callback, Federate, DEFAULT_BINS};
use crate::fom::ObjectModel;
use crate::registry::{Registry, Request, Response};
use crate::wire::NodeId;
use std::sync::Arc;

const FOM: &str = include_str!("../../../../../foms/trellis-demo.xml");

pub(in crate::federate) fn model() -> Arc<ObjectModel> {
    Arc::new(ObjectModel::from_sources(&[("demo.xml", FOM)]).unwrap())
}

pub(in crate::federate) fn registry(epoch: u64, fingerprint: u64) -> Registry {
    let mut r = Registry::new();
    r.start_epoch(epoch);
    r.handle(
        NodeId(100),
        Request::Create {
            federation: "F".into(),
            fingerprint,
            modules: vec!["demo.xml".into()],
            time_representation: "HLAinteger64Time".into(),
        },
    );
    r
}

pub(in crate::federate) fn join(r: &mut Registry, node: u64, name: &str) -> Federate {
    let model = model();
    let fingerprint = Federate::fingerprint(&model, DEFAULT_BINS);
    let Response::Joined { federate, snapshot } = r.handle(
        NodeId(node),
        Request::Join {
            federation: "F".into(),
            federate_name: name.into(),
            federate_type: "sim".into(),
            fingerprint,
            modules: vec![],
        },
    ) else {
        panic!("join refused")
    };
    let mut fed = Federate::new(model, federate, DEFAULT_BINS).unwrap();
    fed.apply_join("F", &snapshot);
    fed
}

/// Carry every request of `fed` (on node `node`) to the registry and its answer back.
pub(in crate::federate) fn pump(r: &mut Registry, node: u64, fed: &mut Federate) {
    while let Some(action) = fed.poll_action() {
        if let Action::Ask(request) = action {
            let response = r.handle(NodeId(node), request.clone());
            fed.handle_reply(&request, response);
        }
    }
}

/// Deliver the registry's broadcast events to every federate, and their requests back.
pub(in crate::federate) fn deliver(r: &mut Registry, feds: &mut [(u64, &mut Federate)]) {
    loop {
        let events: Vec<_> = std::iter::from_fn(|| r.poll_event()).collect();
        if events.is_empty() {
            return;
        }
        for (node, fed) in feds.iter_mut() {
            for (_, payload) in &events {
                fed.on_registry_payload(payload);
            }
            pump(r, *node, fed);
        }
    }
}

fn callbacks(fed: &mut Federate) -> Vec<Callback> {
    std::iter::from_fn(|| fed.poll_callback()).collect()
}

fn names(fed: &Federate) -> Vec<(u32, &str)> {
    fed.federates().map(|(h, name, _)| (h, name)).collect()
}

#[test]
fn federates_rebuild_a_restarted_registry_keeping_handles_and_sync_points() {
    let fingerprint = Federate::fingerprint(&model(), DEFAULT_BINS);
    let mut old = registry(0xA, fingerprint);
    let mut a = join(&mut old, 1, "a");
    let mut b = join(&mut old, 2, "b");
    a.register_synchronization_point("Before", b"t", &[]);
    pump(&mut old, 1, &mut a);
    deliver(&mut old, &mut [(1, &mut a), (2, &mut b)]);
    a.synchronization_point_achieved("Before", true).unwrap();
    pump(&mut old, 1, &mut a);
    callbacks(&mut a);
    callbacks(&mut b);

    // The registry's host dies and comes back empty, under another epoch.
    let mut new = Registry::new();
    new.start_epoch(0xB);
    b.register_synchronization_point("After", b"u", &[]);
    pump(&mut new, 2, &mut b);
    assert!(
        !b.reclaiming(),
        "b reclaimed on the refusal, then asked again"
    );
    assert_eq!(b.registry_epoch(), 0xB);
    // a hears of the new incarnation from its events and reclaims too.
    deliver(&mut new, &mut [(1, &mut a), (2, &mut b)]);
    assert_eq!(a.registry_epoch(), 0xB);
    assert_eq!((a.handle(), b.handle()), (1, 2));
    assert_eq!(names(&a), [(1, "a"), (2, "b")]);
    assert_eq!(names(&b), [(1, "a"), (2, "b")]);
    for fed in [&mut a, &mut b] {
        let got = callbacks(fed);
        assert!(
            got.iter().any(|c| matches!(c,
                Callback::AnnounceSynchronizationPoint { label, .. } if label == "After")),
            "{got:?}"
        );
        assert!(!got
            .iter()
            .any(|c| matches!(c, Callback::ConnectionLost { .. })));
    }
    // "Before" survived with a's achievement: b's completes it.
    b.synchronization_point_achieved("Before", true).unwrap();
    pump(&mut new, 2, &mut b);
    deliver(&mut new, &mut [(1, &mut a), (2, &mut b)]);
    for fed in [&mut a, &mut b] {
        assert!(callbacks(fed).iter().any(|c| matches!(c,
            Callback::FederationSynchronized { label, .. } if label == "Before")));
    }
    // Late events of the dead incarnation change nothing.
    old.handle(
        NodeId(9),
        Request::Join {
            federation: "F".into(),
            federate_name: "ghost".into(),
            federate_type: "sim".into(),
            fingerprint,
            modules: vec![],
        },
    );
    deliver(&mut old, &mut [(1, &mut a)]);
    assert_eq!(names(&a), [(1, "a"), (2, "b")]);
    assert!(!a.reclaiming());
}

#[test]
fn a_refused_reclaim_is_connection_lost_naming_why() {
    let fingerprint = Federate::fingerprint(&model(), DEFAULT_BINS);
    let mut old = registry(0xA, fingerprint);
    let mut a = join(&mut old, 1, "a");
    // The registry came back, and another federation of the same name with another object
    // model was created there first.
    let mut new = registry(0xB, fingerprint ^ 1);
    a.reclaim();
    pump(&mut new, 1, &mut a);
    let lost: Vec<String> = callbacks(&mut a)
        .into_iter()
        .filter_map(|c| match c {
            Callback::ConnectionLost { fault } => Some(fault),
            _ => None,
        })
        .collect();
    assert!(
        matches!(&lost[..], [f] if f.contains("refused its reclaim") && f.contains("object model")),
        "{lost:?}"
    );
}

#[test]
fn a_reclaim_with_no_registry_reachable_is_asked_again_on_resync() {
    let fingerprint = Federate::fingerprint(&model(), DEFAULT_BINS);
    let mut old = registry(0xA, fingerprint);
    let mut a = join(&mut old, 1, "a");
    a.reclaim();
    let Some(Action::Ask(request)) = a.poll_action() else {
        panic!("no reclaim asked")
    };
    a.handle_reply(
        &request,
        Response::Error {
            kind: crate::registry::ErrorKind::NoRegistry,
            message: "no federation registry is reachable".into(),
        },
    );
    assert!(a.reclaiming());
    a.resync();
    let mut new = Registry::new();
    new.start_epoch(0xB);
    pump(&mut new, 1, &mut a);
    assert!(!a.reclaiming());
    assert_eq!(a.registry_epoch(), 0xB);
}
