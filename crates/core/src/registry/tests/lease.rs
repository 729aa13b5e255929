//! Leases: a federate no router vouches for is resigned as died when its lease runs out.

use super::super::*;

fn join(r: &mut Registry, node: u64, name: &str) -> u32 {
    match super::join(r, node, "F", name, 1) {
        Response::Joined { federate, .. } => federate,
        other => panic!("{other:?}"),
    }
}

fn left(r: &mut Registry) -> Vec<(u32, bool)> {
    std::iter::from_fn(|| r.poll_event())
        .filter_map(|(_, payload)| match FederationEvent::decode(&payload) {
            Ok((_, FederationEvent::FederateLeft { federate, how })) => {
                Some((federate, how.died()))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn a_federate_nobody_vouches_for_is_resigned_as_died_when_its_lease_runs_out() {
    let lease = Duration::from_secs(10);
    let mut r = Registry::with_lease(lease);
    let start = Time::ZERO + Duration::from_secs(100);
    r.tick(start);
    assert_eq!(super::create(&mut r, "F", 1), Response::Created);
    let vouched = join(&mut r, 7, "vouched");
    let forgotten = join(&mut r, 8, "forgotten");
    left(&mut r);
    for step in 1..=6u64 {
        let now = start + Duration::from_secs(2 * step);
        r.handle(
            NodeId(3),
            Request::Vouch {
                nodes: vec![NodeId(7)],
            },
        );
        r.tick(now);
        let gone = left(&mut r);
        if now.since(start) <= lease {
            assert!(gone.is_empty(), "nobody expires within the lease: {gone:?}");
        } else {
            assert_eq!(gone, vec![(forgotten, true)], "at {:?}", now.since(start));
            break;
        }
    }
    r.tick(start + Duration::from_secs(60));
    assert_eq!(
        left(&mut r),
        vec![(vouched, true)],
        "once nobody vouches, it goes too"
    );
}
