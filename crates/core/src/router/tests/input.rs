//! What a router reads: input bounded before and after the handshake, frames decoded where
//! they land, and bad bytes closing only the link that sent them.

use super::*;

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
    // Cut at once (the moment to log it), closed once the goodbye is out.
    assert!(
        matches!(
            &evs[..],
            [
                Event::LinkCut {
                    reason: CloseReason::Protocol(WireError::Oversize { .. }),
                    ..
                },
                Event::LinkClosed {
                    reason: CloseReason::Protocol(WireError::Oversize { .. }),
                    ..
                }
            ]
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

/// A connection that closes before sending a byte is a port probe (the C++ library's connect
/// check, a health check): it closes as such, not as a peer that died without a goodbye.
/// One that stops mid-hello is still a truncated frame, and a federate's link that ends
/// after its hello still ended without a goodbye.
#[test]
fn a_connection_closed_before_a_byte_is_a_probe_not_a_failure() {
    let now = Time::ZERO;
    let mut router = small_router(1 << 20);
    let probe = router.add_link(now, LinkSpec::accepted("probe"));
    router.handle_eof(now, probe);
    let evs = events(&mut router, now);
    assert!(
        matches!(
            &evs[..],
            [Event::LinkClosed {
                reason: CloseReason::ClosedBeforeHello,
                ..
            }]
        ),
        "{evs:?}"
    );
    let half = router.add_link(now, LinkSpec::accepted("half"));
    router.handle_bytes(now, half, &[40, 0, 0]);
    router.handle_eof(now, half);
    let evs = events(&mut router, now);
    assert!(
        matches!(
            &evs[..],
            [Event::LinkClosed {
                reason: CloseReason::Protocol(WireError::Truncated { .. }),
                ..
            }]
        ),
        "{evs:?}"
    );
    let federate = Peer::federate(&mut router, now, "a", FED);
    events(&mut router, now);
    router.handle_eof(now, federate.link);
    let evs = events(&mut router, now);
    assert!(
        evs.iter().any(|e| matches!(
            e,
            Event::LinkClosed {
                reason: CloseReason::EndOfStream,
                ..
            }
        )),
        "{evs:?}"
    );
}
