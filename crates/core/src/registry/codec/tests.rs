use super::*;

#[test]
fn requests_and_responses_round_trip() {
    let requests = [
        Request::SyncPoints {
            federation: "F".into(),
            members: true,
        },
        Request::Create {
            federation: "F".into(),
            fingerprint: 9,
            modules: vec!["a.xml".into(), "b.xml".into()],
            time_representation: "HLAfloat64Time".into(),
        },
        Request::RegisterSync {
            federation: "F".into(),
            federate: 2,
            label: "ReadyToRun".into(),
            tag: Bytes::from_static(b"go"),
            members: vec![1, 2],
        },
        Request::Time {
            federation: "F".into(),
            federate: 2,
            switch: TimeSwitch::RegulationOn,
        },
        Request::ListFederations,
        Request::Save {
            federation: "F".into(),
            federate: 2,
            op: SaveOp::Request {
                label: "s".into(),
                time: Some(7),
            },
        },
        Request::Save {
            federation: "F".into(),
            federate: 2,
            op: SaveOp::Complete { success: false },
        },
        Request::Save {
            federation: "F".into(),
            federate: 3,
            op: SaveOp::RequestRestore { label: "s".into() },
        },
        Request::ResignFederate {
            federation: "F".into(),
            manager: 1,
            federate: 3,
        },
        Request::NodeGone {
            node: NodeId(78),
            how: Departure::ByManager,
        },
        Request::Modules {
            federation: "F".into(),
        },
        Request::ClassRights {
            federation: "F".into(),
        },
        Request::Join {
            federation: "F".into(),
            federate_name: "tank".into(),
            federate_type: "sim".into(),
            fingerprint: 9,
            modules: vec![],
        },
        Request::NodeGone {
            node: NodeId(77),
            how: Departure::SlowConsumer,
        },
        Request::Vouch {
            nodes: vec![NodeId(3), NodeId(u64::MAX)],
        },
        Request::Events {
            federation: "F".into(),
            epoch: 7,
            after: 41,
        },
        Request::Reclaim(Box::new(Reclaim {
            federation: "F".into(),
            fingerprint: 9,
            modules: vec!["a.xml".into()],
            time_representation: "HLAfloat64Time".into(),
            epoch: 5,
            seq: 40,
            federate: 2,
            name: "tank".into(),
            kind: "sim".into(),
            federates: vec![
                (1, "a".into(), "t".into()),
                (2, "tank".into(), "sim".into()),
            ],
            reserved: vec!["Tank-1".into()],
            sync_points: vec![ReclaimedSync {
                label: "ReadyToRun".into(),
                tag: Bytes::from_static(b"go"),
                members: vec![1, 2],
                announced: 12,
                achieved: Some(false),
            }],
            regulating: vec![(1, 4)],
            constrained: vec![2],
        })),
    ];
    for request in requests {
        assert_eq!(Request::decode(&request.encode()).unwrap(), request);
    }
    let responses = [
        Response::Joined {
            federate: 3,
            snapshot: Snapshot {
                epoch: 77,
                seq: 9,
                time_representation: "HLAinteger64Time".into(),
                federates: vec![(3, "a".into(), "t".into())],
                regulating: vec![(1, 4)],
                constrained: vec![1, 3],
                sync_points: vec![("ReadyToRun".into(), Bytes::from_static(b"x"))],
            },
        },
        Response::SyncRefused {
            label: "x".into(),
            reason: SyncFailure::LabelNotUnique,
        },
        Response::Federations(vec![("F".into(), "HLAfloat64Time".into())]),
        Response::Modules(vec!["/foms/a.xml".into(), "HLAstandardMIM".into()]),
        Response::ClassRights(ClassRights {
            publish: Some(ClassGrant {
                patterns: vec!["BaseEntity.*".into(), "WeaponFire".into()],
                rules: vec![2, 5],
            }),
            subscribe: None,
        }),
        Response::ClassRights(Default::default()),
        Response::SaveStatus(vec![
            (1, SaveStatus::FederateSaving),
            (3, SaveStatus::NoSaveInProgress),
        ]),
        Response::RestoreStatus(vec![(
            2,
            RestoreStatus::FederateWaitingForFederationToRestore,
        )]),
        Response::RestoreRequest {
            label: "s".into(),
            accepted: true,
        },
        Response::SyncPoints(vec![
            SyncPointStatus {
                label: "ReadyToRun".into(),
                members: vec![(1, true), (2, false)],
            },
            SyncPointStatus {
                label: "empty".into(),
                members: Vec::new(),
            },
        ]),
        Response::SyncPoints(Vec::new()),
        Response::Error {
            kind: ErrorKind::SaveInProgress,
            message: "saving".into(),
        },
        Response::Federates(vec![(1, "a".into(), "t".into())]),
        Response::Vouched {
            unknown: vec![NodeId(5)],
        },
        Response::Error {
            kind: ErrorKind::InconsistentFom,
            message: "different".into(),
        },
        Response::Events(vec![
            Bytes::from_static(b"\x40one"),
            Bytes::new(),
            Bytes::from_static(b"two"),
        ]),
        Response::Events(Vec::new()),
        Response::EventsTooOld {
            replayable_after: 12,
        },
        Response::Reclaimed {
            snapshot: Snapshot::default(),
            names_lost: vec!["Tank-1".into()],
        },
        Response::Error {
            kind: ErrorKind::RegistryRestarted,
            message: "restarted".into(),
        },
    ];
    for response in responses {
        assert_eq!(Response::decode(&response.encode()).unwrap(), response);
    }
    assert!(Request::decode(&[99]).is_err());
    assert!(Response::decode(&[8, 255, 255, 255, 255]).is_err());
    // A replay whose event runs past the end, or whose count lies, is refused.
    assert!(Response::decode(&[15, 1, 0, 0, 0, 9, 0, 0, 0, 1]).is_err());
    assert!(Response::decode(&[15, 255, 255, 255, 255, 0, 0, 0, 0]).is_err());
    // More synchronization points than a federation holds are refused before reading them.
    assert!(Response::decode(&[22, 255, 255, 255, 255]).is_err());
}
