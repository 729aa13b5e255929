//! Router tests without sockets: direct byte-level tests of one router, and small networks
//! in the simulator.

use super::*;
use crate::sim::{Sim, SimConfig};
use crate::wire::{
    decode_frame, DataFrame, DataHeader, Frame, Goodbye, InterestFrame, InterestOp, NodeId,
    TransportClass,
};
use std::time::Duration;

const FED: &str = "Exercise";

mod claims;
mod deadline;
mod input;
mod output;
mod registry;
mod rights;

fn ids(list: &[u32]) -> RoaringBitmap {
    list.iter().copied().collect()
}

fn quiet(sim: &mut Sim) {
    sim.run_until_quiet(Duration::from_secs(30)).unwrap();
}

/// A peer driven by hand: encodes frames into bytes and decodes what the router sends.
struct Peer {
    link: LinkId,
    inbox: BytesMut,
}

impl Peer {
    /// Connect a hand-driven federate to `router` and complete the handshake.
    fn federate(router: &mut Router, now: Time, name: &str, federation: &str) -> Peer {
        let link = router.add_link(now, LinkSpec::accepted(name));
        let hello = Hello {
            node_id: NodeId(100 + link.slot as u64),
            node_name: name.into(),
            role: Role::Child,
            flags: LinkFlags::source_sink(),
            federation: federation.into(),
            clique: String::new(),
            udp: None,
        };
        let mut buf = BytesMut::new();
        hello.encode(&mut buf);
        router.handle_bytes(now, link, &buf);
        let mut peer = Peer {
            link,
            inbox: BytesMut::new(),
        };
        let frames = peer.receive(router, now);
        assert!(
            matches!(frames.first(), Some(Frame::Hello(_))),
            "router answers hello"
        );
        peer
    }

    fn send(&self, router: &mut Router, now: Time, bytes: &[u8]) {
        router.handle_bytes(now, self.link, bytes);
    }

    fn declare(
        &self,
        router: &mut Router,
        now: Time,
        federation: &str,
        op: InterestOp,
        ranges: &[(u32, u32)],
    ) {
        let mut buf = BytesMut::new();
        InterestFrame::encode(&mut buf, FederationId::of(federation), op, ranges, 1 << 20);
        self.send(router, now, &buf);
    }

    #[allow(clippy::too_many_arguments)] // mirrors every field of a data frame
    fn publish(
        &self,
        router: &mut Router,
        now: Time,
        seq: u64,
        class: TransportClass,
        priority: u8,
        ids: &[u32],
        size: usize,
    ) {
        let mut buf = BytesMut::new();
        let header = DataHeader {
            federation: FederationId::of(FED),
            source: NodeId(100 + self.link.slot as u64),
            seq,
            priority,
            class,
        };
        DataFrame::encode(&mut buf, &header, ids, &vec![0u8; size]);
        self.send(router, now, &buf);
    }

    /// Everything the router has for us now, decoded.
    fn receive(&mut self, router: &mut Router, now: Time) -> Vec<Frame> {
        let mut out = Vec::new();
        while router.poll_transmit(now, self.link, &mut out) > 0 {}
        self.inbox.extend_from_slice(&out);
        let mut frames = Vec::new();
        while let Some(frame) = decode_frame(&mut self.inbox, 1 << 20).unwrap() {
            frames.push(frame);
        }
        frames
    }

    fn data_seqs(&mut self, router: &mut Router, now: Time) -> Vec<u64> {
        self.receive(router, now)
            .into_iter()
            .filter_map(|f| match f {
                Frame::Data(d) => Some(d.seq()),
                _ => None,
            })
            .collect()
    }
}

/// What a driver does after each call: run the router's timers once due (paused links
/// resume there), then take its events.
fn events(router: &mut Router, now: Time) -> Vec<Event> {
    if router.poll_timeout() <= now {
        router.handle_timeout(now);
    }
    std::iter::from_fn(|| router.poll_event()).collect()
}

fn small_router(queue_limit: usize) -> Router {
    let mut config = RouterConfig::new("r", NodeId(1));
    config.link_defaults.queue_limit_bytes = queue_limit;
    Router::new(config, Time::ZERO)
}

#[test]
fn messages_go_to_exactly_the_links_whose_interest_matches() {
    let now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let mut a = Peer::federate(&mut router, now, "a", FED);
    let mut b = Peer::federate(&mut router, now, "b", FED);
    let mut c = Peer::federate(&mut router, now, "c", FED);
    b.declare(&mut router, now, FED, InterestOp::Add, &[(10, 19)]);
    c.declare(&mut router, now, FED, InterestOp::Add, &[(15, 25)]);
    // a learns the union of b and c; b learns only c's; c learns only b's.
    let interest_of = |frames: Vec<Frame>| -> RoaringBitmap {
        let mut set = RoaringBitmap::new();
        for f in frames {
            if let Frame::Interest(i) = f {
                assert_eq!(i.op, InterestOp::Add);
                set |= crate::interest::set_of(&i.ranges);
            }
        }
        set
    };
    assert_eq!(
        interest_of(a.receive(&mut router, now)),
        ids(&(10..=25).collect::<Vec<_>>())
    );
    assert_eq!(
        interest_of(b.receive(&mut router, now)),
        ids(&(15..=25).collect::<Vec<_>>())
    );
    assert_eq!(
        interest_of(c.receive(&mut router, now)),
        ids(&(10..=19).collect::<Vec<_>>())
    );

    a.publish(&mut router, now, 1, TransportClass::Reliable, 0, &[12], 8); // b only
    a.publish(&mut router, now, 2, TransportClass::Reliable, 0, &[16], 8); // b and c
    a.publish(&mut router, now, 3, TransportClass::Reliable, 0, &[22], 8); // c only
    a.publish(&mut router, now, 4, TransportClass::Reliable, 0, &[99], 8); // nobody
    a.publish(
        &mut router,
        now,
        5,
        TransportClass::Reliable,
        0,
        &[11, 16, 21],
        8,
    ); // both, once each
    b.publish(&mut router, now, 6, TransportClass::Reliable, 0, &[12], 8); // not back to b
    assert_eq!(b.data_seqs(&mut router, now), vec![1, 2, 5]);
    assert_eq!(c.data_seqs(&mut router, now), vec![2, 3, 5]);
    assert_eq!(a.data_seqs(&mut router, now), Vec::<u64>::new());
    assert_eq!(router.stats().data_unrouted, 2);
    assert_eq!(router.stats().data_forwarded, 6);
}

#[test]
fn withdrawn_interest_is_withdrawn_upstream_only_when_nobody_else_holds_it() {
    let now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let mut a = Peer::federate(&mut router, now, "a", FED);
    let b = Peer::federate(&mut router, now, "b", FED);
    let c = Peer::federate(&mut router, now, "c", FED);
    b.declare(&mut router, now, FED, InterestOp::Add, &[(1, 3)]);
    c.declare(&mut router, now, FED, InterestOp::Add, &[(3, 4)]);
    a.receive(&mut router, now);
    b.declare(&mut router, now, FED, InterestOp::Remove, &[(1, 3)]);
    let frames = a.receive(&mut router, now);
    let removed: Vec<_> = frames
        .iter()
        .filter_map(|f| match f {
            Frame::Interest(i) if i.op == InterestOp::Remove => Some(i.ranges.clone()),
            _ => None,
        })
        .collect();
    // 3 is still held by c, so only 1 and 2 are withdrawn toward a.
    assert_eq!(removed, vec![vec![(1, 2)]]);
    assert_eq!(router.declared_interest(a.link, FED), ids(&[3, 4]));
}

#[test]
fn traffic_and_interest_never_cross_federations() {
    let now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let a = Peer::federate(&mut router, now, "a", FED);
    let mut b = Peer::federate(&mut router, now, "b", "Other");
    let mut c = Peer::federate(&mut router, now, "c", FED);
    b.declare(&mut router, now, "Other", InterestOp::Add, &[(1, 1)]);
    c.declare(&mut router, now, FED, InterestOp::Add, &[(1, 1)]);
    assert_eq!(
        router.declared_interest(b.link, "Other"),
        RoaringBitmap::new()
    );
    assert_eq!(router.declared_interest(a.link, FED), ids(&[1]));
    a.publish(&mut router, now, 1, TransportClass::Reliable, 0, &[1], 10);
    assert_eq!(c.data_seqs(&mut router, now), vec![1]);
    assert_eq!(b.data_seqs(&mut router, now), Vec::<u64>::new());
    // b may not speak for a federation it is not bound to.
    b.declare(&mut router, now, FED, InterestOp::Add, &[(2, 2)]);
    b.receive(&mut router, now);
    let evs = events(&mut router, now);
    assert!(
        evs.iter().any(|e| matches!(e, Event::LinkClosed { link, reason: CloseReason::Violation(why) } if *link == b.link && why.contains("bound to federation \"Other\""))),
        "{evs:?}"
    );
}

#[test]
fn split_horizon_in_a_mesh_delivers_once_across_three_links() {
    let mut sim = Sim::new(1, SimConfig::default());
    let routers: Vec<_> = (0..3).map(|i| sim.add_router(&format!("r{i}"))).collect();
    sim.clique(&routers, "", "mesh");
    let feds: Vec<_> = (0..3)
        .map(|i| sim.add_federate(&format!("f{i}"), FED))
        .collect();
    for i in 0..3 {
        sim.connect_parent(feds[i], routers[i], FED);
    }
    quiet(&mut sim);
    sim.subscribe(feds[1], &ids(&[7]));
    sim.subscribe(feds[2], &ids(&[7, 8]));
    quiet(&mut sim);
    sim.check_interest(&[FED]).unwrap();
    let seq = sim
        .publish(feds[0], &[7], TransportClass::Reliable, b"hi")
        .unwrap();
    let only_f2 = sim
        .publish(feds[0], &[8], TransportClass::Reliable, b"hi")
        .unwrap();
    quiet(&mut sim);
    let source = sim.node_id(feds[0]);
    assert_eq!(sim.times_received(feds[1], source, seq), 1);
    assert_eq!(sim.times_received(feds[2], source, seq), 1);
    // f0→r0, r0→r1, r0→r2, r1→f1, r2→f2: r1 and r2 never relay to each other.
    assert_eq!(sim.crossings(source, seq), 5);
    // A single receiver across the mesh: 3 links.
    assert_eq!(sim.crossings(source, only_f2), 3);
}

#[test]
fn a_tree_delivers_along_the_path_and_withdraws_interest() {
    let mut sim = Sim::new(2, SimConfig::default());
    let root = sim.add_router("root");
    let left = sim.add_router("left");
    let right = sim.add_router("right");
    sim.connect_parent(left, root, "");
    sim.connect_parent(right, root, "");
    let f = [
        sim.add_federate("f0", FED),
        sim.add_federate("f1", FED),
        sim.add_federate("f2", FED),
    ];
    sim.connect_parent(f[0], left, FED);
    sim.connect_parent(f[1], left, FED);
    sim.connect_parent(f[2], right, FED);
    quiet(&mut sim);
    sim.subscribe(f[1], &ids(&[1]));
    sim.subscribe(f[2], &ids(&[2]));
    quiet(&mut sim);
    sim.check_interest(&[FED]).unwrap();
    let near = sim
        .publish(f[0], &[1], TransportClass::Reliable, b"x")
        .unwrap();
    let far = sim
        .publish(f[0], &[2], TransportClass::Reliable, b"x")
        .unwrap();
    quiet(&mut sim);
    let source = sim.node_id(f[0]);
    assert_eq!(sim.crossings(source, near), 2, "same leaf router: 2 links");
    assert_eq!(sim.crossings(source, far), 4, "one level up: 2 + 2 links");
    sim.unsubscribe(f[2], &ids(&[2]));
    quiet(&mut sim);
    sim.check_interest(&[FED]).unwrap();
    let unheard = sim
        .publish(f[0], &[2], TransportClass::Reliable, b"x")
        .unwrap();
    quiet(&mut sim);
    assert_eq!(sim.crossings(source, unheard), 0, "squelched at the sender");
}

#[test]
fn a_reconnected_link_gets_the_full_interest_again() {
    let mut sim = Sim::new(3, SimConfig::default());
    let root = sim.add_router("root");
    let leaf = sim.add_router("leaf");
    let trunk = sim.connect_parent(leaf, root, "");
    let a = sim.add_federate("a", FED);
    let b = sim.add_federate("b", FED);
    sim.connect_parent(a, leaf, FED);
    sim.connect_parent(b, root, FED);
    quiet(&mut sim);
    sim.subscribe(a, &ids(&[1, 2, 3]));
    quiet(&mut sim);
    sim.sever(trunk);
    quiet(&mut sim);
    assert!(sim.nodes[root]
        .router
        .declared_interest(sim.pipe_links(trunk).1, FED)
        .is_empty());
    sim.connect_parent(leaf, root, "");
    quiet(&mut sim);
    sim.check_interest(&[FED]).unwrap();
    let seq = sim
        .publish(b, &[2], TransportClass::Reliable, b"again")
        .unwrap();
    quiet(&mut sim);
    assert_eq!(sim.times_received(a, sim.node_id(b), seq), 1);
}

#[test]
fn large_best_effort_frames_cross_udp_in_fragments() {
    let config = SimConfig {
        udp: true,
        ..SimConfig::default()
    };
    let mut sim = Sim::new(4, config);
    let r = sim.add_router("r");
    let a = sim.add_federate("a", FED);
    let b = sim.add_federate("b", FED);
    sim.connect_parent(a, r, FED);
    sim.connect_parent(b, r, FED);
    quiet(&mut sim);
    sim.subscribe(b, &ids(&[5]));
    quiet(&mut sim);
    let payload: Vec<u8> = (0..10_000u32).map(|i| i as u8).collect();
    let seq = sim
        .publish(a, &[5], TransportClass::BestEffort, &payload)
        .unwrap();
    let small = sim
        .publish(a, &[5], TransportClass::BestEffort, b"small")
        .unwrap();
    quiet(&mut sim);
    let got: Vec<_> = sim.nodes[b]
        .received
        .iter()
        .map(|r| (r.seq, r.payload.len()))
        .collect();
    assert!(
        got.contains(&(seq, 10_000)) && got.contains(&(small, 5)),
        "{got:?}"
    );
    let big = sim.nodes[b].received.iter().find(|r| r.seq == seq).unwrap();
    assert_eq!(&big.payload[..], &payload[..]);
    let info = sim.nodes[r]
        .router
        .link_info(sim.nodes[r].router.link_ids()[0])
        .unwrap();
    assert!(info.stats.datagrams_in > 7, "10 kB in 1472-byte datagrams");
}

#[test]
fn datagrams_of_unknown_sessions_are_dropped_and_counted() {
    let mut router = small_router(1 << 20);
    let mut datagram = vec![b'T', crate::wire::PROTOCOL_VERSION, 1, 0];
    datagram.extend_from_slice(&12345u64.to_le_bytes());
    datagram.extend_from_slice(&1u64.to_le_bytes());
    router.handle_datagram(Time::ZERO, &datagram);
    router.handle_datagram(Time::ZERO, b"junk");
    assert_eq!(router.stats().drops.unknown_session, 1);
    assert_eq!(router.stats().drops.bad_datagram, 1);
}

#[test]
fn a_silent_peer_times_out() {
    let mut now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let a = Peer::federate(&mut router, now, "a", FED);
    events(&mut router, now);
    let timeout = router.config().link_defaults.heartbeat_timeout;
    let mut reason = None;
    while reason.is_none() && now.since(Time::ZERO) < timeout * 2 {
        now = now + Duration::from_millis(100);
        router.handle_timeout(now);
        let mut out = Vec::new();
        while router.poll_transmit(now, a.link, &mut out) > 0 {}
        for e in events(&mut router, now) {
            if let Event::LinkClosed { reason: r, .. } = e {
                reason = Some(r);
            }
        }
    }
    assert!(matches!(reason, Some(CloseReason::HeartbeatTimeout(d)) if d >= timeout));
}

#[test]
fn a_version_mismatch_is_refused_with_a_goodbye() {
    let now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let link = router.add_link(now, LinkSpec::accepted("old"));
    let mut buf = BytesMut::new();
    Hello {
        node_id: NodeId(9),
        node_name: "old".into(),
        role: Role::Child,
        flags: LinkFlags::source_sink(),
        federation: FED.into(),
        clique: String::new(),
        udp: None,
    }
    .encode(&mut buf);
    buf[4] = crate::wire::PROTOCOL_VERSION + 1;
    router.handle_bytes(now, link, &buf);
    let mut out = Vec::new();
    assert!(
        router.poll_transmit(now, link, &mut out) > 0,
        "the goodbye goes out"
    );
    let mut inbox = BytesMut::from(&out[..]);
    let Some(Frame::Goodbye(goodbye)) = decode_frame(&mut inbox, 1 << 20).unwrap() else {
        panic!("expected a goodbye");
    };
    assert!(
        goodbye.reason.contains("unsupported protocol version"),
        "{}",
        goodbye.reason
    );
}

#[test]
fn the_application_publishes_and_receives_through_its_router() {
    let mut sim = Sim::new(5, SimConfig::default());
    let a = sim.add_federate("a", FED);
    let b = sim.add_federate("b", FED);
    let c = sim.add_federate("c", FED);
    sim.clique(&[a, b, c], FED, "direct");
    quiet(&mut sim);
    sim.subscribe(b, &ids(&[1]));
    sim.subscribe(c, &ids(&[1]));
    quiet(&mut sim);
    sim.check_interest(&[FED]).unwrap();
    let seq = sim
        .publish(a, &[1], TransportClass::Reliable, b"direct")
        .unwrap();
    quiet(&mut sim);
    let source = sim.node_id(a);
    assert_eq!(sim.times_received(b, source, seq), 1);
    assert_eq!(sim.times_received(c, source, seq), 1);
    assert_eq!(
        sim.crossings(source, seq),
        2,
        "a clique of federates: one link each"
    );
    let now = sim.now();
    assert_eq!(
        sim.nodes[a]
            .router
            .publish(now, &[], TransportClass::Reliable, 0, b""),
        Err(PublishError::NoIds)
    );
    assert_eq!(
        sim.nodes[a]
            .router
            .publish(now, &[1], TransportClass::Reliable, 9, b""),
        Err(PublishError::BadPriority(9))
    );
}
