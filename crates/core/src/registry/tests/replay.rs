//! Replaying a federation's events to routers that missed them.

use super::super::*;

fn setup() -> Registry {
    let mut r = Registry::new();
    // One node joins more federates here than its default limit allows, to fill the log.
    r.set_limits(RegistryLimits {
        federates_per_node: usize::MAX,
        ..RegistryLimits::default()
    });
    super::create(&mut r, "F", 1);
    r
}

fn join(r: &mut Registry, name: &str) {
    super::join(r, 2, "F", name, 1);
}

fn replay(r: &mut Registry, after: u64) -> Response {
    r.handle(
        NodeId(2),
        Request::Events {
            federation: "F".into(),
            epoch: r.epoch(),
            after,
        },
    )
}

fn seqs(response: &Response) -> Vec<u64> {
    let Response::Events(events) = response else {
        panic!("expected events, got {response:?}")
    };
    events
        .iter()
        .map(|e| FederationEvent::decode(e).unwrap().0)
        .collect()
}

#[test]
fn missed_events_are_replayed_exactly_as_broadcast() {
    let mut r = setup();
    for name in ["a", "b", "c"] {
        join(&mut r, name);
    }
    let broadcast: Vec<Bytes> = std::iter::from_fn(|| r.poll_event())
        .map(|(_, p)| p)
        .collect();
    assert_eq!(replay(&mut r, 1), Response::Events(broadcast[1..].to_vec()));
    assert_eq!(seqs(&replay(&mut r, 0)), vec![1, 2, 3]);
    assert_eq!(
        replay(&mut r, 3),
        Response::Events(Vec::new()),
        "up to date"
    );
    assert_eq!(replay(&mut r, 99), Response::Events(Vec::new()));
    assert!(matches!(
        r.handle(
            NodeId(2),
            Request::Events {
                federation: "G".into(),
                epoch: 0,
                after: 0
            }
        ),
        Response::Error {
            kind: ErrorKind::FederationUnknown,
            ..
        }
    ));
}

#[test]
fn the_log_is_bounded_in_count_and_bytes_and_says_when_it_no_longer_reaches_back() {
    let mut r = setup();
    let total = EVENT_LOG_EVENTS as u64 + 10;
    for i in 0..total {
        join(&mut r, &format!("f{i}"));
    }
    std::iter::from_fn(|| r.poll_event()).count();
    assert_eq!(
        replay(&mut r, 5),
        Response::EventsTooOld {
            replayable_after: 10
        }
    );
    let kept = seqs(&replay(&mut r, 10));
    assert_eq!(kept.len(), EVENT_LOG_EVENTS);
    assert_eq!(kept.last(), Some(&total));
    // Large events: the byte bound drops the oldest first.
    let tag = Bytes::from(vec![7u8; 60_000]);
    for i in 0..8 {
        r.handle(
            NodeId(2),
            Request::RegisterSync {
                federation: "F".into(),
                federate: 1,
                label: format!("p{i}"),
                tag: tag.clone(),
                members: vec![],
            },
        );
    }
    let record = &r.federations["F"];
    assert!(record.log_bytes <= EVENT_LOG_BYTES);
    assert_eq!(
        record.log_bytes,
        record.log.iter().map(|(_, p)| p.len()).sum::<usize>()
    );
    let Response::EventsTooOld { replayable_after } = replay(&mut r, total) else {
        panic!("the large events pushed the joins out")
    };
    let kept = seqs(&replay(&mut r, replayable_after));
    assert_eq!(kept.first(), Some(&(replayable_after + 1)));
    assert_eq!(kept.last(), Some(&(total + 8)));
}
