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
fn best_effort_overflow_sheds_lowest_priority_and_counts_each_drop() {
    let now = Time::ZERO;
    let frame_len = DataFrame::encoded_len(1, 100);
    let mut router = small_router(frame_len * 4);
    let a = Peer::federate(&mut router, now, "a", FED);
    let mut b = Peer::federate(&mut router, now, "b", FED);
    b.declare(&mut router, now, FED, InterestOp::Add, &[(1, 1)]);
    b.receive(&mut router, now);
    // b never drains while a sends 4 frames at priority 1, then 2 at priority 6, then 1 at 0.
    for seq in 1..=4 {
        a.publish(
            &mut router,
            now,
            seq,
            TransportClass::BestEffort,
            1,
            &[1],
            100,
        );
    }
    for seq in 5..=6 {
        a.publish(
            &mut router,
            now,
            seq,
            TransportClass::BestEffort,
            6,
            &[1],
            100,
        );
    }
    a.publish(
        &mut router,
        now,
        7,
        TransportClass::BestEffort,
        0,
        &[1],
        100,
    );
    let info = router.link_info(b.link).unwrap();
    assert!(
        info.best_effort_queued <= frame_len * 4,
        "queue bound holds"
    );
    assert_eq!(
        info.stats.drops.evicted, 2,
        "two priority-1 frames made room"
    );
    assert_eq!(
        info.stats.drops.queue_full, 1,
        "the priority-0 frame found no room"
    );
    assert_eq!(router.stats().drops.total(), 3);
    // Most urgent first, then the surviving priority-1 frames in order.
    assert_eq!(b.data_seqs(&mut router, now), vec![5, 6, 3, 4]);
}

#[test]
fn a_full_reliable_queue_pauses_the_sender_until_it_drains() {
    let mut now = Time::ZERO;
    let frame_len = DataFrame::encoded_len(1, 100);
    let mut router = small_router(frame_len * 3);
    let a = Peer::federate(&mut router, now, "a", FED);
    let mut b = Peer::federate(&mut router, now, "b", FED);
    b.declare(&mut router, now, FED, InterestOp::Add, &[(1, 1)]);
    b.receive(&mut router, now);
    events(&mut router, now);
    for seq in 1..=10 {
        a.publish(
            &mut router,
            now,
            seq,
            TransportClass::Reliable,
            0,
            &[1],
            100,
        );
    }
    assert!(!router.wants_read(a.link), "a is paused");
    let info = router.link_info(b.link).unwrap();
    assert_eq!(
        info.reliable_queued,
        frame_len * 3,
        "queue holds its limit, not more"
    );
    assert_eq!(
        info.stats.drops.total(),
        0,
        "reliable frames are never dropped"
    );

    let mut delivered = Vec::new();
    let mut resumed = false;
    for _ in 0..20 {
        now = now + Duration::from_millis(1);
        delivered.extend(b.data_seqs(&mut router, now));
        let evs = events(&mut router, now);
        // a is reported readable only once everything it sent has been routed.
        resumed |= evs
            .iter()
            .any(|e| matches!(e, Event::ReadResumed { link } if *link == a.link));
        assert_eq!(resumed, router.wants_read(a.link));
        assert!(router.link_info(b.link).unwrap().reliable_queued <= frame_len * 3);
    }
    assert!(resumed);
    assert_eq!(
        delivered,
        (1..=10).collect::<Vec<_>>(),
        "in order, exactly once"
    );
    assert!(router.wants_read(a.link));
}

#[test]
fn a_consumer_stuck_past_the_bound_is_disconnected_as_slow() {
    let mut now = Time::ZERO;
    let frame_len = DataFrame::encoded_len(1, 100);
    let mut router = small_router(frame_len * 2);
    let a = Peer::federate(&mut router, now, "a", FED);
    let mut b = Peer::federate(&mut router, now, "b", FED);
    b.declare(&mut router, now, FED, InterestOp::Add, &[(1, 1)]);
    b.receive(&mut router, now);
    events(&mut router, now);
    for seq in 1..=5 {
        a.publish(
            &mut router,
            now,
            seq,
            TransportClass::Reliable,
            0,
            &[1],
            100,
        );
    }
    assert!(!router.wants_read(a.link));
    let timeout = router.config().link_defaults.slow_consumer_timeout;
    // Heartbeats from b keep it alive; it just never reads.
    let step = Duration::from_millis(500);
    let mut closed = None;
    let close_timeout = router.config().link_defaults.slow_consumer_goodbye_timeout;
    while now.since(Time::ZERO) < timeout + close_timeout + Duration::from_secs(1) {
        now = now + step;
        let mut hb = BytesMut::new();
        crate::wire::encode_heartbeat(&mut hb);
        b.send(&mut router, now, &hb);
        a.send(&mut router, now, &hb);
        router.handle_timeout(now);
        for e in events(&mut router, now) {
            if let Event::LinkClosed { link, reason } = e {
                closed = Some((link, reason));
            }
        }
        if closed.is_some() {
            break;
        }
    }
    let (link, reason) = closed.expect("b was disconnected");
    assert_eq!(link, b.link);
    assert!(
        matches!(reason, CloseReason::SlowConsumer { .. }),
        "{reason}"
    );
    assert!(reason.to_string().starts_with("slow consumer"));
    assert!(now.since(Time::ZERO) >= timeout);
    assert!(
        router.wants_read(a.link),
        "a runs again once the stuck consumer is gone"
    );
}

#[test]
fn polls_only_drain_and_a_paused_link_resumes_in_the_timeout_the_router_asks_for_at_once() {
    let now = Time::ZERO + Duration::from_millis(1);
    let mut router = patient_router();
    let a = Peer::federate(&mut router, now, "a", FED);
    let mut b = Peer::federate(&mut router, now, "b", FED);
    stall_behind(&mut router, now, &a, &mut b);
    assert!(
        router.poll_timeout() > now,
        "nothing is due while b is full"
    );
    let mut delivered = b.data_seqs(&mut router, now);
    let mut resumed = false;
    for _ in 0..5 {
        assert_eq!(
            router.poll_timeout(),
            Time::ZERO,
            "b drained: the router asks for its timeout at once"
        );
        while router.poll_event().is_some() {}
        assert!(
            b.data_seqs(&mut router, now).is_empty(),
            "draining events routed nothing"
        );
        router.handle_timeout(now);
        resumed = std::iter::from_fn(|| router.poll_event())
            .any(|e| matches!(e, Event::ReadResumed { link } if link == a.link));
        delivered.extend(b.data_seqs(&mut router, now));
        if resumed {
            break;
        }
    }
    assert!(resumed, "a resumed once b had room for all it held");
    assert!(router.wants_read(a.link));
    assert_eq!(delivered, vec![1, 2, 3, 4, 5], "in order, none lost");
    assert!(router.poll_timeout() > now, "nothing left to resume");
}

/// Fill b's reliable queue from a: a is paused (the router stops reading it).
fn stall_behind(router: &mut Router, now: Time, a: &Peer, b: &mut Peer) {
    b.declare(router, now, FED, InterestOp::Add, &[(1, 1)]);
    b.receive(router, now);
    events(router, now);
    for seq in 1..=5 {
        a.publish(router, now, seq, TransportClass::Reliable, 0, &[1], 100);
    }
    assert!(!router.wants_read(a.link), "a is paused behind b");
}

/// Room for two 100-byte frames, and a slow-consumer bound longer than any test runs.
fn patient_router() -> Router {
    let mut config = RouterConfig::new("r", NodeId(1));
    config.link_defaults.queue_limit_bytes = DataFrame::encoded_len(1, 100) * 2;
    config.link_defaults.slow_consumer_timeout = Duration::from_secs(60);
    Router::new(config, Time::ZERO)
}

fn heartbeat_bytes() -> BytesMut {
    let mut hb = BytesMut::new();
    crate::wire::encode_heartbeat(&mut hb);
    hb
}

#[test]
fn a_stalled_federate_is_cut_within_the_bound_and_the_reason_gives_the_figures() {
    let mut now = Time::ZERO;
    let mut router = small_router(DataFrame::encoded_len(1, 100) * 2);
    let a = Peer::federate(&mut router, now, "a", FED);
    let mut b = Peer::federate(&mut router, now, "b", FED);
    stall_behind(&mut router, now, &a, &mut b);
    let bound = router.config().link_defaults.slow_consumer_timeout;
    assert!(
        bound <= Duration::from_secs(1),
        "the default bound is at most 1 s"
    );
    let housekeeping = router.config().housekeeping_interval;
    let mut closed = None;
    while closed.is_none() && now.since(Time::ZERO) <= bound + housekeeping {
        now = now + Duration::from_millis(10);
        router.handle_timeout(now);
        closed = events(&mut router, now).into_iter().find_map(|e| match e {
            Event::LinkClosed { link, reason } => Some((link, reason)),
            _ => None,
        });
        // The goodbye cannot be written to a consumer that reads nothing: the link is
        // dropped after the close timeout, but data stopped going to it at the cut.
        if router.wants_read(a.link) && closed.is_none() {
            break;
        }
    }
    assert!(router.wants_read(a.link), "a runs again within the bound");
    assert!(now.since(Time::ZERO) <= bound + housekeeping);
    let goodbye = b.receive(&mut router, now);
    let Some(Frame::Goodbye(Goodbye { reason })) = goodbye.first() else {
        panic!("the goodbye leads what b is sent: {goodbye:?}");
    };
    assert!(
        reason.starts_with("slow consumer: its reliable queue was full for"),
        "{reason}"
    );
    assert!(reason.contains("bytes queued, limit"), "{reason}");
}

#[test]
fn a_link_paused_by_back_pressure_does_not_time_out_for_silence() {
    let mut now = Time::ZERO;
    let mut router = patient_router();
    let a = Peer::federate(&mut router, now, "a", FED);
    let mut b = Peer::federate(&mut router, now, "b", FED);
    stall_behind(&mut router, now, &a, &mut b);
    let silence = router.config().link_defaults.heartbeat_timeout * 2;
    while now.since(Time::ZERO) < silence {
        now = now + Duration::from_millis(500);
        b.send(&mut router, now, &heartbeat_bytes());
        router.handle_timeout(now);
    }
    assert!(
        !events(&mut router, now)
            .iter()
            .any(|e| matches!(e, Event::LinkClosed { .. })),
        "a was not read by choice; it is not silent"
    );
    assert!(router.link_info(a.link).is_some_and(|l| l.up));
}

#[test]
fn heartbeats_overtake_a_full_data_queue() {
    let mut now = Time::ZERO;
    let mut router = patient_router();
    let a = Peer::federate(&mut router, now, "a", FED);
    let mut b = Peer::federate(&mut router, now, "b", FED);
    stall_behind(&mut router, now, &a, &mut b);
    now = now + router.config().link_defaults.heartbeat_interval;
    b.send(&mut router, now, &heartbeat_bytes());
    router.handle_timeout(now);
    let frames = b.receive(&mut router, now);
    assert!(
        matches!(frames.first(), Some(Frame::Heartbeat)),
        "{frames:?}"
    );
    assert!(frames.iter().any(|f| matches!(f, Frame::Data(_))));
}

#[test]
fn a_federate_throttles_its_application_instead_of_cutting_its_router() {
    let mut now = Time::ZERO;
    let mut config = RouterConfig::federate("fed", NodeId(7), FED);
    config.link_defaults.queue_limit_bytes = 1024;
    let mut node = Router::new(config, now);
    let up = node.add_link(now, LinkSpec::dialed(Role::Parent, FED, "", "router"));
    let mut hello = BytesMut::new();
    Hello {
        node_id: NodeId(1),
        node_name: "router".into(),
        role: Role::Parent,
        flags: LinkFlags::source_sink(),
        federation: FED.into(),
        clique: String::new(),
        udp: None,
    }
    .encode(&mut hello);
    InterestFrame::encode(
        &mut hello,
        FederationId::of(FED),
        InterestOp::Add,
        &[(1, 1)],
        1 << 20,
    );
    node.handle_bytes(now, up, &hello);
    // The router reads nothing: the node's queue fills and publish pushes back.
    let mut blocked = false;
    for _ in 0..100 {
        if node.publish(now, &[1], TransportClass::Reliable, 4, &[0; 100])
            == Err(PublishError::WouldBlock)
        {
            blocked = true;
            break;
        }
    }
    assert!(blocked, "the application is throttled");
    while now.since(Time::ZERO) < Duration::from_secs(8) {
        now = now + Duration::from_millis(500);
        node.handle_bytes(now, up, &heartbeat_bytes());
        node.handle_timeout(now);
    }
    assert!(
        !events(&mut node, now)
            .iter()
            .any(|e| matches!(e, Event::LinkClosed { .. })),
        "the router decides about slow consumers, not the federate it paused"
    );
}

fn closes(router: &mut Router, now: Time) -> Vec<(LinkId, CloseReason)> {
    let ids = router.link_ids();
    for id in ids {
        let mut out = Vec::new();
        while router.poll_transmit(now, id, &mut out) > 0 {}
    }
    events(router, now)
        .into_iter()
        .filter_map(|e| match e {
            Event::LinkClosed { link, reason } => Some((link, reason)),
            _ => None,
        })
        .collect()
}

/// The first bytes of a data frame that declares `len` bytes in all.
fn frame_prefix(len: u32) -> Vec<u8> {
    let mut bytes = (len - 4).to_le_bytes().to_vec();
    bytes.extend_from_slice(&[crate::wire::PROTOCOL_VERSION, 3]);
    bytes
}

#[test]
fn input_before_the_hello_is_bounded() {
    let now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let stranger = router.add_link(now, LinkSpec::accepted("stranger"));
    let limit = router.config().handshake_input_limit_bytes;
    router.handle_bytes(now, stranger, &frame_prefix(512 << 10));
    router.handle_bytes(now, stranger, &vec![0; limit]);
    let closed = closes(&mut router, now);
    assert!(
        matches!(&closed[..], [(l, CloseReason::InputLimit { what: "input before the hello", .. })] if *l == stranger),
        "{closed:?}"
    );
    assert_eq!(router.input_buffered(), 0);
}

#[test]
fn partial_frames_across_all_links_stay_within_the_input_budget() {
    let now = Time::ZERO;
    let mut config = RouterConfig::new("r", NodeId(1));
    config.input_budget_bytes = 100 << 10;
    let mut router = Router::new(config, now);
    let peers: Vec<_> = (0..3)
        .map(|i| Peer::federate(&mut router, now, &format!("p{i}"), FED))
        .collect();
    events(&mut router, now);
    let half_frame = [frame_prefix(64 << 10), vec![0; 40 << 10]].concat();
    peers[0].send(&mut router, now, &half_frame);
    peers[1].send(&mut router, now, &half_frame);
    assert!(closes(&mut router, now).is_empty(), "80 KiB fit in 100 KiB");
    assert_eq!(router.input_buffered(), 2 * half_frame.len());
    peers[2].send(&mut router, now, &half_frame);
    let closed = closes(&mut router, now);
    assert!(
        matches!(&closed[..], [(l, CloseReason::InputLimit { what: "undecoded input across all links", .. })] if *l == peers[2].link),
        "the link that would pass the budget is closed, and only it: {closed:?}"
    );
    assert_eq!(
        router.input_buffered(),
        2 * half_frame.len(),
        "nothing accepted was lost"
    );
    assert!(router.link_info(peers[0].link).is_some_and(|l| l.up));
}

#[test]
fn bytes_read_straight_into_the_input_buffer_are_decoded_where_they_land() {
    let now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let sender = Peer::federate(&mut router, now, "sender", FED);
    let mut receiver = Peer::federate(&mut router, now, "receiver", FED);
    receiver.declare(&mut router, now, FED, InterestOp::Add, &[(7, 7)]);
    events(&mut router, now);
    let mut frames = BytesMut::new();
    let header = |seq| DataHeader {
        federation: FederationId::of(FED),
        source: NodeId(100 + sender.link.slot as u64),
        seq,
        priority: 4,
        class: TransportClass::Reliable,
    };
    DataFrame::encode(&mut frames, &header(1), &[7], &[1; 100]);
    DataFrame::encode(&mut frames, &header(2), &[7], &[2; 100]);
    // Two reads that cut the second frame in half, as a socket may.
    let cut = frames.len() - 50;
    let bytes_in = |router: &Router| router.link_info(sender.link).map(|l| l.stats.bytes_in);
    let before = bytes_in(&router).expect("the sender's link is open");
    for read in [&frames[..cut], &frames[cut..]] {
        let buf = router
            .input_buffer(sender.link, read.len())
            .expect("an open link has an input buffer");
        assert!(buf.capacity() - buf.len() >= read.len(), "room was made");
        buf.extend_from_slice(read);
        router.handle_received(now, sender.link, read.len());
    }
    assert_eq!(receiver.data_seqs(&mut router, now), vec![1, 2]);
    assert_eq!(router.input_buffered(), 0, "both frames were decoded");
    assert_eq!(
        bytes_in(&router),
        Some(before + frames.len() as u64),
        "every byte read was counted"
    );
    router.close_link(now, sender.link, "done");
    assert!(
        router.input_buffer(sender.link, 1).is_none(),
        "a closing link wants no more input"
    );
}

#[test]
fn a_connection_without_a_hello_is_closed_at_the_handshake_deadline() {
    let mut now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let silent = router.add_link(now, LinkSpec::accepted("drip"));
    let deadline = router.config().link_defaults.handshake_timeout;
    let mut closed = None;
    while closed.is_none() && now.since(Time::ZERO) <= deadline * 2 {
        now = now + Duration::from_millis(100);
        // A byte now and then (of a frame that never completes) resets the silence timer,
        // never the handshake deadline.
        let drip: &[u8] = if now == Time::ZERO + Duration::from_millis(100) {
            &[0xe8, 0x03, 0, 0, crate::wire::PROTOCOL_VERSION]
        } else {
            &[1]
        };
        router.handle_bytes(now, silent, drip);
        router.handle_timeout(now);
        let mut out = Vec::new();
        while router.poll_transmit(now, silent, &mut out) > 0 {}
        closed = events(&mut router, now).into_iter().find_map(|e| match e {
            Event::LinkClosed { link, reason } if link == silent => Some(reason),
            _ => None,
        });
    }
    let reason = closed.expect("closed");
    assert!(
        matches!(reason, CloseReason::HandshakeTimeout(_)),
        "{reason}"
    );
    assert!(now.since(Time::ZERO) < deadline + Duration::from_millis(300));
}

#[test]
fn garbage_closes_only_the_link_that_sent_it() {
    let now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let a = Peer::federate(&mut router, now, "a", FED);
    let mut b = Peer::federate(&mut router, now, "b", FED);
    let mut c = Peer::federate(&mut router, now, "c", FED);
    b.declare(&mut router, now, FED, InterestOp::Add, &[(1, 1)]);
    events(&mut router, now);
    c.send(&mut router, now, b"\x10\x00\x00\x00this is not a frame");
    let evs = events(&mut router, now);
    let closed: Vec<_> = evs
        .iter()
        .filter_map(|e| match e {
            Event::LinkClosed { link, reason } => Some((*link, reason.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(
        closed.len(),
        0,
        "the goodbye is flushed before the close is reported"
    );
    let goodbye = c.receive(&mut router, now);
    assert!(
        matches!(goodbye.last(), Some(Frame::Goodbye(Goodbye { reason })) if reason.contains("protocol error"))
    );
    let evs = events(&mut router, now);
    assert!(
        matches!(&evs[..], [Event::LinkClosed { link, reason: CloseReason::Protocol(_) }] if *link == c.link)
    );
    a.publish(&mut router, now, 1, TransportClass::Reliable, 0, &[1], 10);
    assert_eq!(b.data_seqs(&mut router, now), vec![1]);
}

#[test]
fn oversize_and_truncated_frames_are_reported_as_such() {
    let now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let a = Peer::federate(&mut router, now, "a", FED);
    let b = Peer::federate(&mut router, now, "b", FED);
    events(&mut router, now);
    a.send(&mut router, now, &(64u32 << 20).to_le_bytes());
    let mut out = Vec::new();
    while router.poll_transmit(now, a.link, &mut out) > 0 {}
    let evs = events(&mut router, now);
    assert!(
        matches!(
            &evs[..],
            [Event::LinkClosed {
                reason: CloseReason::Protocol(WireError::Oversize { .. }),
                ..
            }]
        ),
        "{evs:?}"
    );
    b.send(
        &mut router,
        now,
        &[40, 0, 0, 0, crate::wire::PROTOCOL_VERSION, 3, 0],
    );
    router.handle_eof(now, b.link);
    let evs = events(&mut router, now);
    assert!(
        matches!(
            &evs[..],
            [Event::LinkClosed {
                reason: CloseReason::Protocol(WireError::Truncated { missing: 37 }),
                ..
            }]
        ),
        "{evs:?}"
    );
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
fn bundling_delay_holds_output_until_due() {
    let mut now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let a = Peer::federate(&mut router, now, "a", FED);
    let config = LinkConfig {
        bundling_delay: Duration::from_millis(5),
        ..LinkConfig::default()
    };
    let link = router.add_link(now, LinkSpec::accepted("b").with_config(config));
    let mut buf = BytesMut::new();
    Hello {
        node_id: NodeId(50),
        node_name: "b".into(),
        role: Role::Child,
        flags: LinkFlags::source_sink(),
        federation: FED.into(),
        clique: String::new(),
        udp: None,
    }
    .encode(&mut buf);
    InterestFrame::encode(
        &mut buf,
        FederationId::of(FED),
        InterestOp::Add,
        &[(1, 1)],
        1 << 20,
    );
    router.handle_bytes(now, link, &buf);
    let mut out = Vec::new();
    let n = router.poll_transmit(now, link, &mut out);
    let mut inbox = BytesMut::from(&out[..n]);
    let mut kinds = Vec::new();
    while let Some(f) = decode_frame(&mut inbox, 1 << 20).unwrap() {
        kinds.push(f.kind());
    }
    use crate::wire::FrameKind;
    assert_eq!(
        kinds,
        vec![
            FrameKind::Hello,
            FrameKind::Session,
            FrameKind::RegistryRoute
        ],
        "control frames do not wait for the bundling delay"
    );
    out.clear();
    now = now + Duration::from_millis(2);
    a.publish(&mut router, now, 1, TransportClass::Reliable, 0, &[1], 10);
    assert_eq!(router.poll_transmit(now, link, &mut out), 0, "data waits");
    assert_eq!(router.poll_timeout(), now + Duration::from_millis(5));
    now = now + Duration::from_millis(2);
    a.publish(&mut router, now, 2, TransportClass::Reliable, 0, &[1], 10);
    now = now + Duration::from_millis(3);
    router.handle_timeout(now);
    assert!(
        std::iter::from_fn(|| router.poll_ready()).any(|l| l == link),
        "due again"
    );
    let n = router.poll_transmit(now, link, &mut out);
    let mut inbox = BytesMut::from(&out[..n]);
    let mut seqs = Vec::new();
    while let Some(f) = decode_frame(&mut inbox, 1 << 20).unwrap() {
        if let Frame::Data(d) = f {
            seqs.push(d.seq());
        }
    }
    assert_eq!(seqs, vec![1, 2], "one write carries everything that waited");
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
    router.poll_transmit(now, link, &mut out);
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

mod registry {
    use super::*;
    use crate::registry::{ErrorKind, Request, Response};

    fn registry_router(sim: &mut Sim, name: &str) -> usize {
        let mut config = RouterConfig::new(name, NodeId(1000 + sim.nodes.len() as u64));
        config.hosts_registry = true;
        sim.add_node(config)
    }

    fn ask(sim: &mut Sim, node: usize, request: Request) -> Response {
        let now = sim.now();
        let id = sim.nodes[node].router.manage(now, &request);
        quiet(sim);
        let (answered, response) = sim.nodes[node]
            .router
            .poll_manage_reply()
            .expect("an answer");
        assert_eq!(answered, id);
        response
    }

    fn join(federation: &str, name: &str, fingerprint: u64) -> Request {
        Request::Join {
            federation: federation.into(),
            federate_name: name.into(),
            federate_type: "test".into(),
            fingerprint,
        }
    }

    #[test]
    fn requests_find_the_registry_up_a_tree_and_answers_come_back() {
        let mut sim = Sim::new(11, SimConfig::default());
        let root = registry_router(&mut sim, "root");
        let mid = sim.add_router("mid");
        let leaf = sim.add_router("leaf");
        sim.connect_parent(mid, root, "");
        sim.connect_parent(leaf, mid, "");
        let a = sim.add_federate("a", FED);
        let b = sim.add_federate("b", FED);
        sim.connect_parent(a, leaf, FED);
        sim.connect_parent(b, root, FED);
        quiet(&mut sim);
        let distances: Vec<_> = [root, mid, leaf, a, b]
            .iter()
            .map(|&n| sim.nodes[n].router.registry_distance())
            .collect();
        assert_eq!(distances, vec![Some(0), Some(1), Some(2), Some(3), Some(1)]);

        let create = Request::Create {
            federation: FED.into(),
            fingerprint: 5,
            modules: vec![],
            time_representation: "HLAinteger64Time".into(),
        };
        assert_eq!(ask(&mut sim, a, create.clone()), Response::Created);
        assert!(matches!(
            ask(&mut sim, b, create),
            Response::Error {
                kind: ErrorKind::FederationExists,
                ..
            }
        ));
        assert!(matches!(
            ask(&mut sim, a, join(FED, "a", 5)),
            Response::Joined { federate: 1, .. }
        ));
        assert!(matches!(
            ask(&mut sim, b, join(FED, "b", 6)),
            Response::Error {
                kind: ErrorKind::InconsistentFom,
                ..
            }
        ));
        assert!(matches!(
            ask(&mut sim, b, join(FED, "b", 5)),
            Response::Joined { federate: 2, .. }
        ));
    }

    #[test]
    fn a_federate_whose_link_fails_is_resigned_for_it() {
        let mut sim = Sim::new(12, SimConfig::default());
        let root = registry_router(&mut sim, "root");
        let a = sim.add_federate("a", FED);
        let b = sim.add_federate("b", FED);
        let pipe = sim.connect_parent(a, root, FED);
        sim.connect_parent(b, root, FED);
        quiet(&mut sim);
        let create = Request::Create {
            federation: FED.into(),
            fingerprint: 1,
            modules: vec![],
            time_representation: "HLAinteger64Time".into(),
        };
        assert_eq!(ask(&mut sim, a, create), Response::Created);
        assert!(matches!(
            ask(&mut sim, a, join(FED, "tank", 1)),
            Response::Joined { federate: 1, .. }
        ));
        assert!(matches!(
            ask(&mut sim, b, join(FED, "tank", 1)),
            Response::Error {
                kind: ErrorKind::FederateNameInUse,
                ..
            }
        ));
        // A broken link may come back within the lease: the federate stays a member...
        sim.sever(pipe);
        quiet(&mut sim);
        assert!(matches!(
            ask(&mut sim, b, join(FED, "tank", 1)),
            Response::Error {
                kind: ErrorKind::FederateNameInUse,
                ..
            }
        ));
        // ... until nobody vouched for it within its lease.
        let lease = sim.nodes[root].router.config().federate_lease;
        sim.run_for(lease + Duration::from_secs(2));
        assert!(matches!(
            ask(&mut sim, b, join(FED, "tank", 1)),
            Response::Joined { federate: 2, .. }
        ));
    }

    #[test]
    fn a_federate_that_says_goodbye_is_resigned_at_once() {
        let mut sim = Sim::new(14, SimConfig::default());
        let root = registry_router(&mut sim, "root");
        let a = sim.add_federate("a", FED);
        let b = sim.add_federate("b", FED);
        let pipe = sim.connect_parent(a, root, FED);
        sim.connect_parent(b, root, FED);
        quiet(&mut sim);
        let create = Request::Create {
            federation: FED.into(),
            fingerprint: 1,
            modules: vec![],
            time_representation: "HLAinteger64Time".into(),
        };
        assert_eq!(ask(&mut sim, a, create), Response::Created);
        assert!(matches!(
            ask(&mut sim, a, join(FED, "tank", 1)),
            Response::Joined { federate: 1, .. }
        ));
        let (link, _) = sim.pipe_links(pipe);
        let now = sim.now();
        sim.nodes[a].router.close_link(now, link, "leaving");
        quiet(&mut sim);
        assert!(matches!(
            ask(&mut sim, b, join(FED, "tank", 1)),
            Response::Joined { federate: 2, .. }
        ));
    }

    #[test]
    fn a_request_in_flight_when_its_link_closes_is_answered_with_an_error() {
        let mut sim = Sim::new(15, SimConfig::default());
        let root = registry_router(&mut sim, "root");
        let mid = sim.add_router("mid");
        let up = sim.connect_parent(mid, root, "");
        let f = sim.add_federate("f", FED);
        sim.connect_parent(f, mid, FED);
        quiet(&mut sim);
        // Hold what travels up, so the request is on its way when the trunk breaks.
        sim.partition(up, false, true);
        let now = sim.now();
        let id = sim.nodes[f].router.manage(now, &Request::ListFederations);
        sim.run_for(Duration::from_millis(50));
        assert!(sim.nodes[f].router.poll_manage_reply().is_none());
        sim.sever(up);
        quiet(&mut sim);
        let (answered, response) = sim.nodes[f]
            .router
            .poll_manage_reply()
            .expect("an answer without waiting for the expiry");
        assert_eq!(answered, id);
        assert!(
            matches!(&response, Response::Error { kind: ErrorKind::NoRegistry, message }
                if message.contains("closed before it answered")),
            "{response:?}"
        );
    }

    #[test]
    fn a_mesh_routes_to_its_registry_and_reports_when_none_is_reachable() {
        let mut sim = Sim::new(13, SimConfig::default());
        let m0 = registry_router(&mut sim, "m0");
        let m1 = sim.add_router("m1");
        let m2 = sim.add_router("m2");
        sim.clique(&[m0, m1, m2], "", "mesh");
        let f = sim.add_federate("f", FED);
        sim.connect_parent(f, m2, FED);
        let island = sim.add_router("island");
        let g = sim.add_federate("g", FED);
        sim.connect_parent(g, island, FED);
        quiet(&mut sim);
        assert_eq!(sim.nodes[m1].router.registry_distance(), Some(1));
        assert_eq!(sim.nodes[f].router.registry_distance(), Some(2));
        let create = Request::Create {
            federation: FED.into(),
            fingerprint: 1,
            modules: vec![],
            time_representation: "HLAinteger64Time".into(),
        };
        assert_eq!(ask(&mut sim, f, create.clone()), Response::Created);
        assert!(matches!(
            ask(&mut sim, g, create),
            Response::Error {
                kind: ErrorKind::NoRegistry,
                ..
            }
        ));
    }
}
