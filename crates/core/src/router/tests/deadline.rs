//! A frame once begun must complete within `LinkConfig::frame_deadline`, and only complete
//! frames are signs of life: a peer that drips a frame it never finishes loses its link,
//! even on a router at rest that sleeps between heartbeats.

use super::*;

/// A router whose links time out for silence only after a minute, so that the frame
/// deadline (3 s) is what a drip meets first.
fn router_with_deadline() -> Router {
    let mut config = RouterConfig::new("r", NodeId(1));
    config.link_defaults.heartbeat_timeout = Duration::from_secs(60);
    config.link_defaults.frame_deadline = Duration::from_secs(3);
    Router::new(config, Time::ZERO)
}

/// The first bytes of a data frame that declares `len` bytes in all.
fn frame_prefix(len: u32) -> Vec<u8> {
    let mut bytes = (len - 4).to_le_bytes().to_vec();
    bytes.extend_from_slice(&[crate::wire::PROTOCOL_VERSION, 3]);
    bytes
}

fn heartbeat() -> BytesMut {
    let mut hb = BytesMut::new();
    crate::wire::encode_heartbeat(&mut hb);
    hb
}

/// Drive `router` as a driver would, waking only when it asks (`poll_timeout`) or when the
/// peer on `link` sends its next byte (`drip(now)`, every second), until the link closes or
/// `until` passes. Returns why and when it closed.
fn drive_until_closed(
    router: &mut Router,
    mut now: Time,
    link: LinkId,
    until: Time,
    mut drip: impl FnMut(Time) -> Vec<u8>,
) -> Option<(CloseReason, Time)> {
    let mut next_drip = now + Duration::from_secs(1);
    while now < until {
        now = router.poll_timeout().min(next_drip).max(now);
        if now == next_drip {
            router.handle_bytes(now, link, &drip(now));
            next_drip = now + Duration::from_secs(1);
        }
        if router.poll_timeout() <= now {
            router.handle_timeout(now);
        }
        let mut out = Vec::new();
        while router.poll_transmit(now, link, &mut out) > 0 {}
        while let Some(event) = router.poll_event() {
            if let Event::LinkClosed { link: l, reason } = event {
                if l == link {
                    return Some((reason, now));
                }
            }
        }
    }
    None
}

#[test]
fn a_frame_dripped_a_byte_a_second_is_closed_at_its_deadline() {
    let start = Time::ZERO;
    let mut router = router_with_deadline();
    let a = Peer::federate(&mut router, start, "a", FED);
    events(&mut router, start);
    let deadline = router.config().link_defaults.frame_deadline;
    let interval = router.config().housekeeping_interval;
    let mut began = None;
    let (reason, closed_at) = drive_until_closed(
        &mut router,
        start,
        a.link,
        start + Duration::from_secs(30),
        |now| match began {
            None => {
                began = Some(now);
                frame_prefix(1000)
            }
            Some(_) => vec![0],
        },
    )
    .expect("the dripping link is closed");
    let began = began.expect("the frame began");
    assert!(
        matches!(reason, CloseReason::FrameDeadline(age) if age >= deadline),
        "{reason}"
    );
    assert!(
        reason
            .to_string()
            .contains("a frame begun 3.0 s ago never completed"),
        "{reason}"
    );
    // On time: a router at rest sleeps between heartbeats, but not past the deadline.
    assert!(
        closed_at <= began + deadline + interval,
        "closed {:?} after the frame began",
        closed_at.since(began)
    );
}

#[test]
fn a_large_frame_that_completes_in_time_and_the_next_one_are_not_cut() {
    let start = Time::ZERO;
    let mut router = router_with_deadline();
    let a = Peer::federate(&mut router, start, "a", FED);
    events(&mut router, start);
    // Frames of 2 s each (half a frame a second), back to back for 12 s: a frame is always
    // in progress, none of them past the deadline, so the link stays.
    let mut frame = BytesMut::new();
    let header = DataHeader {
        federation: FederationId::of(FED),
        source: NodeId(100 + a.link.slot as u64),
        seq: 1,
        priority: 0,
        class: TransportClass::BestEffort,
    };
    DataFrame::encode(&mut frame, &header, &[7], &[0; 2000]);
    let half = frame.len() / 2;
    let mut first_half = true;
    let closed = drive_until_closed(
        &mut router,
        start,
        a.link,
        start + Duration::from_secs(12),
        |_| {
            let part = if first_half {
                &frame[..half]
            } else {
                &frame[half..]
            };
            first_half = !first_half;
            part.to_vec()
        },
    );
    assert!(closed.is_none(), "{closed:?}");
}

#[test]
fn bytes_of_an_incomplete_frame_are_not_a_sign_of_life() {
    let start = Time::ZERO;
    let mut config = RouterConfig::new("r", NodeId(1));
    config.link_defaults.frame_deadline = Duration::ZERO; // only the heartbeat timeout
    let mut router = Router::new(config, start);
    let a = Peer::federate(&mut router, start, "a", FED);
    events(&mut router, start);
    let timeout = router.config().link_defaults.heartbeat_timeout;
    let mut last_heartbeat = start;
    let mut begun = false;
    let (reason, closed_at) =
        drive_until_closed(&mut router, start, a.link, start + timeout * 3, |now| {
            // Two heartbeats, then a frame that never ends.
            if now.since(start) <= Duration::from_secs(2) {
                last_heartbeat = now;
                heartbeat().to_vec()
            } else if !begun {
                begun = true;
                frame_prefix(1000)
            } else {
                vec![0]
            }
        })
        .expect("the link times out");
    assert!(
        matches!(reason, CloseReason::HeartbeatTimeout(d) if d >= timeout),
        "{reason}"
    );
    assert!(closed_at <= last_heartbeat + timeout + router.config().housekeeping_interval);
}
