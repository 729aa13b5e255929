//! What a router sends, and when: queues by transport class and priority, back-pressure
//! that pauses a sender, slow consumers cut within their bound, heartbeats, bundling.

use super::*;

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
            FrameKind::Interest, // what it declares, here nothing
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

/// A frozen reader whose socket took a little more after its queue filled: the queue sits
/// between half and full, under its limit but above where paused publishers are released.
/// It still pauses them, so it is cut at its bound to the tick (its own timer), and the cut
/// is an event at that moment, not only when the link finally closes.
#[test]
fn a_queue_parked_between_half_and_full_is_cut_at_its_bound_to_the_tick() {
    let start = Time::ZERO + Duration::from_millis(3);
    let frame = DataFrame::encoded_len(1, 100);
    let mut config = RouterConfig::new("r", NodeId(1));
    config.link_defaults.queue_limit_bytes = frame * 4;
    config.link_defaults.batch_limit_bytes = frame;
    let mut router = Router::new(config, Time::ZERO);
    let a = Peer::federate(&mut router, start, "a", FED);
    let mut b = Peer::federate(&mut router, start, "b", FED);
    b.declare(&mut router, start, FED, InterestOp::Add, &[(1, 1)]);
    b.receive(&mut router, start);
    events(&mut router, start);
    for seq in 1..=6 {
        a.publish(
            &mut router,
            start,
            seq,
            TransportClass::Reliable,
            0,
            &[1],
            100,
        );
    }
    assert!(!router.wants_read(a.link), "a is paused behind b");
    // b's socket takes one frame more, then b reads nothing.
    let mut out = Vec::new();
    assert_eq!(router.poll_transmit(start, b.link, &mut out), frame);
    assert!(router.link_info(b.link).unwrap().reliable_queued > frame * 2);
    events(&mut router, start);
    assert!(
        !router.wants_read(a.link),
        "a is still paused: b is above half"
    );
    let bound = router.config().link_defaults.slow_consumer_timeout;
    let mut now = start;
    let mut cut = None;
    while cut.is_none() && now < start + bound * 2 {
        now = router.poll_timeout().max(now + Duration::from_millis(1));
        b.send(&mut router, now, &heartbeat_bytes());
        router.handle_timeout(now);
        cut = events(&mut router, now).into_iter().find_map(|e| match e {
            Event::LinkCut { link, reason } => Some((link, reason)),
            _ => None,
        });
    }
    let (link, reason) = cut.expect("b was cut");
    assert_eq!(link, b.link);
    assert!(
        matches!(reason, CloseReason::SlowConsumer { .. }),
        "{reason}"
    );
    assert_eq!(
        now,
        start + bound,
        "cut at its bound (a timer of its own), not at the next housekeeping tick"
    );
    assert!(router.wants_read(a.link), "a runs again at the cut");
}

/// An idle federate's node woke ten times a second for housekeeping; at rest a router sleeps
/// until its next heartbeat or vouch, and still sends every heartbeat on time. A link that
/// opens (its handshake has a deadline) brings housekeeping back within the interval.
#[test]
fn a_router_at_rest_wakes_for_heartbeats_only_and_a_new_link_brings_housekeeping_back() {
    let mut now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let mut a = Peer::federate(&mut router, now, "a", FED);
    events(&mut router, now);
    let config = router.config().clone();
    let window = Duration::from_secs(8);
    let (mut wakes, mut heartbeats) = (0u32, 0u32);
    while now.since(Time::ZERO) < window {
        now = router.poll_timeout();
        router.handle_timeout(now);
        wakes += 1;
        let beats = a.receive(&mut router, now).into_iter();
        heartbeats += beats.filter(|f| matches!(f, Frame::Heartbeat)).count() as u32;
        a.send(&mut router, now, &heartbeat_bytes()); // the peer is alive
    }
    let seconds = window.as_secs() as u32;
    assert!(
        heartbeats >= seconds - 1,
        "{heartbeats} heartbeats in {seconds} s"
    );
    // One per heartbeat it sends and per vouch (not one more after each send: what a pass
    // queued counts as sent when the next pass is planned).
    let at_most = seconds + seconds / config.vouch_interval.as_secs() as u32 + 1;
    assert!(
        wakes <= at_most,
        "{wakes} wake-ups in {seconds} s at rest: more than heartbeats and vouches ({at_most})"
    );
    // At a moment when the next pass is planned past the interval, a link opens.
    for _ in 0..10 {
        if router.poll_timeout() > now + config.housekeeping_interval {
            break;
        }
        now = router.poll_timeout();
        router.handle_timeout(now);
        a.receive(&mut router, now);
    }
    assert!(router.poll_timeout() > now + config.housekeeping_interval);
    router.add_link(now, LinkSpec::accepted("b"));
    assert!(router.poll_timeout() <= now + config.housekeeping_interval);
}
