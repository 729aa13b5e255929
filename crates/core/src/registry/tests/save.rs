//! Federation save and restore as the registry orders them: every member's statuses, the
//! outcome once all said complete, the standard's failure reasons (a member that reports
//! failure, leaves or dies; an abort), restore refused for unknown labels or other members,
//! and the federation-level state a restore puts back.

use super::super::*;

fn events(r: &mut Registry) -> Vec<FederationEvent> {
    std::iter::from_fn(|| r.poll_event())
        .map(|(_, payload)| FederationEvent::decode(&payload).unwrap().1)
        .collect()
}

fn node_of(federate: u32) -> NodeId {
    NodeId(u64::from(federate) + 1)
}

fn setup() -> Registry {
    let mut r = Registry::new();
    super::create_timed(&mut r, "F", 1, "HLAinteger64Time");
    for (node, name) in [(2, "a"), (3, "b"), (4, "c")] {
        super::join(&mut r, node, "F", name, 1);
    }
    events(&mut r);
    r
}

fn op(r: &mut Registry, federate: u32, op: SaveOp) -> Response {
    r.handle(
        node_of(federate),
        Request::Save {
            federation: "F".into(),
            federate,
            op,
        },
    )
}

fn save_event(event: SaveEvent) -> FederationEvent {
    FederationEvent::Save(event)
}

fn request(r: &mut Registry, label: &str) -> Response {
    let label = label.into();
    op(r, 1, SaveOp::Request { label, time: None })
}

fn complete_all(r: &mut Registry, success: impl Fn(u32) -> bool) {
    for f in 1..=3 {
        assert_eq!(op(r, f, SaveOp::Begun), Response::Ack);
        assert_eq!(
            op(
                r,
                f,
                SaveOp::Complete {
                    success: success(f)
                }
            ),
            Response::Ack
        );
    }
}

fn statuses(r: &mut Registry) -> Vec<SaveStatus> {
    match op(r, 2, SaveOp::QueryStatus) {
        Response::SaveStatus(list) => list.into_iter().map(|(_, s)| s).collect(),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_save_is_initiated_everywhere_and_saved_when_every_member_completed() {
    let mut r = setup();
    assert_eq!(statuses(&mut r), [SaveStatus::NoSaveInProgress; 3]);
    let timed = SaveOp::Request {
        label: "s1".into(),
        time: Some(40),
    };
    assert_eq!(op(&mut r, 2, timed), Response::Ack);
    assert_eq!(
        events(&mut r),
        [save_event(SaveEvent::Initiated {
            label: "s1".into(),
            time: Some(40)
        })]
    );
    let kind = |response| match response {
        Response::Error { kind, .. } => kind,
        other => panic!("{other:?}"),
    };
    assert_eq!(kind(request(&mut r, "s2")), ErrorKind::SaveInProgress);
    assert_eq!(
        kind(super::join(&mut r, 5, "F", "late", 1)),
        ErrorKind::SaveInProgress,
        "joining is refused while saving"
    );
    op(&mut r, 1, SaveOp::Begun);
    op(&mut r, 2, SaveOp::Begun);
    op(&mut r, 2, SaveOp::Complete { success: true });
    assert_eq!(
        statuses(&mut r),
        [
            SaveStatus::FederateSaving,
            SaveStatus::FederateWaitingForFederationToSave,
            SaveStatus::FederateInstructedToSave
        ]
    );
    assert!(events(&mut r).is_empty(), "not every member completed");
    op(&mut r, 1, SaveOp::Complete { success: true });
    op(&mut r, 3, SaveOp::Begun);
    op(&mut r, 3, SaveOp::Complete { success: true });
    assert_eq!(events(&mut r), [save_event(SaveEvent::Saved)]);
    assert_eq!(statuses(&mut r), [SaveStatus::NoSaveInProgress; 3]);
    assert_eq!(
        kind(op(&mut r, 1, SaveOp::Begun)),
        ErrorKind::SaveNotInitiated
    );
}

#[test]
fn a_save_fails_with_the_standard_reason() {
    let mut r = setup();
    request(&mut r, "s1");
    complete_all(&mut r, |f| f != 2);
    let not_saved = |reason| save_event(SaveEvent::NotSaved { reason });
    let reported = SaveFailureReason::FederateReportedFailureDuringSave;
    assert_eq!(events(&mut r)[1..], [not_saved(reported)]);
    // Nothing was saved under the label: restoring it is refused.
    let restore = op(&mut r, 1, SaveOp::RequestRestore { label: "s1".into() });
    assert_eq!(
        restore,
        Response::RestoreRequest {
            label: "s1".into(),
            accepted: false
        }
    );

    request(&mut r, "s2");
    assert_eq!(op(&mut r, 3, SaveOp::Abort), Response::Ack);
    let aborted = not_saved(SaveFailureReason::SaveAborted);
    assert_eq!(events(&mut r)[1..], [aborted]);

    // A member that dies while the others wait never hangs the save.
    request(&mut r, "s3");
    op(&mut r, 1, SaveOp::Begun);
    op(&mut r, 1, SaveOp::Complete { success: true });
    let gone = Request::NodeGone {
        node: node_of(2),
        how: Departure::Died,
    };
    r.handle(NodeId(9), gone);
    let after = events(&mut r);
    let resigned = not_saved(SaveFailureReason::FederateResignedDuringSave);
    assert_eq!(after.last(), Some(&resigned), "{after:?}");
}

#[test]
fn a_restore_puts_back_the_federation_state_of_its_save() {
    let mut r = setup();
    let switch = |r: &mut Registry, federate, switch| {
        let time = Request::Time {
            federation: "F".into(),
            federate,
            switch,
        };
        r.handle(node_of(federate), time)
    };
    switch(&mut r, 1, TimeSwitch::RegulationOn);
    switch(&mut r, 2, TimeSwitch::ConstrainedOn);
    request(&mut r, "s1");
    complete_all(&mut r, |_| true);
    events(&mut r);
    // After the save: regulation changes hands.
    switch(&mut r, 1, TimeSwitch::RegulationOff);
    switch(&mut r, 3, TimeSwitch::RegulationOn);
    let unknown = op(
        &mut r,
        2,
        SaveOp::RequestRestore {
            label: "nope".into(),
        },
    );
    assert!(matches!(
        unknown,
        Response::RestoreRequest {
            accepted: false,
            ..
        }
    ));
    let restore = op(&mut r, 2, SaveOp::RequestRestore { label: "s1".into() });
    assert_eq!(
        restore,
        Response::RestoreRequest {
            label: "s1".into(),
            accepted: true
        }
    );
    let begun = events(&mut r).pop().unwrap();
    assert_eq!(
        begun,
        save_event(SaveEvent::RestoreBegun { label: "s1".into() })
    );
    // The joiner's snapshot shows the saved switches, under the restore's epoch.
    let record = &r.federations["F"];
    let epoch = record.seq;
    assert_eq!(record.regulating.iter().collect::<Vec<_>>(), [(&1, &epoch)]);
    assert_eq!(record.constrained.iter().collect::<Vec<_>>(), [&2]);
    assert!(matches!(
        op(
            &mut r,
            1,
            SaveOp::Request {
                label: "x".into(),
                time: None
            }
        ),
        Response::Error {
            kind: ErrorKind::RestoreInProgress,
            ..
        }
    ));
    for f in 1..=3 {
        op(&mut r, f, SaveOp::RestoreComplete { success: true });
    }
    assert_eq!(events(&mut r), [save_event(SaveEvent::Restored)]);
}

#[test]
fn a_restore_needs_the_members_of_its_save_and_fails_when_one_leaves() {
    let mut r = setup();
    request(&mut r, "s1");
    complete_all(&mut r, |_| true);
    let resign = Request::Resign {
        federation: "F".into(),
        federate: 3,
    };
    r.handle(node_of(3), resign);
    let restore = op(&mut r, 1, SaveOp::RequestRestore { label: "s1".into() });
    assert!(matches!(
        restore,
        Response::RestoreRequest {
            accepted: false,
            ..
        }
    ));
    super::join(&mut r, 4, "F", "c2", 1);
    events(&mut r);

    let mut r = setup();
    request(&mut r, "s1");
    complete_all(&mut r, |_| true);
    op(&mut r, 1, SaveOp::RequestRestore { label: "s1".into() });
    op(&mut r, 1, SaveOp::RestoreComplete { success: true });
    events(&mut r);
    let gone = Request::NodeGone {
        node: node_of(3),
        how: Departure::Died,
    };
    r.handle(NodeId(9), gone);
    let reason = RestoreFailureReason::FederateResignedDuringRestore;
    assert_eq!(
        events(&mut r).last(),
        Some(&save_event(SaveEvent::NotRestored { reason }))
    );
}

#[test]
fn save_requests_act_for_their_own_federate_only() {
    let mut r = setup();
    let forged = r.handle(
        node_of(2),
        Request::Save {
            federation: "F".into(),
            federate: 1,
            op: SaveOp::Abort,
        },
    );
    assert!(matches!(
        forged,
        Response::Error {
            kind: ErrorKind::NotPermitted,
            ..
        }
    ));
}
