use super::*;
use bytes::{BufMut, Bytes, BytesMut};

fn data_frame(ids: &[u32], payload: &[u8]) -> BytesMut {
    let mut out = BytesMut::new();
    let header = DataHeader {
        federation: FederationId::of("fed"),
        source: NodeId(7),
        seq: 42,
        priority: 5,
        class: TransportClass::Reliable,
    };
    DataFrame::encode(&mut out, &header, ids, payload);
    out
}

#[test]
fn data_frames_round_trip_and_keep_their_bytes() {
    let mut buf = data_frame(&[1, 2, u32::MAX], b"payload");
    let encoded = buf.clone().freeze();
    let Some(Frame::Data(frame)) = decode_frame(&mut buf, DEFAULT_MAX_FRAME_SIZE).unwrap() else {
        panic!("expected a data frame");
    };
    assert!(buf.is_empty());
    assert_eq!(frame.federation(), FederationId::of("fed"));
    assert_eq!(frame.source(), NodeId(7));
    assert_eq!(frame.seq(), 42);
    assert_eq!(frame.priority(), 5);
    assert_eq!(frame.class(), TransportClass::Reliable);
    assert_eq!(frame.ids().collect::<Vec<_>>(), vec![1, 2, u32::MAX]);
    assert_eq!(frame.payload(), b"payload");
    assert_eq!(frame.as_bytes(), &encoded);
}

#[test]
fn control_frames_round_trip() {
    let hello = Hello {
        node_id: NodeId(99),
        node_name: "router-α".into(),
        role: Role::Child,
        flags: LinkFlags::source_sink() | LinkFlags::PERSISTENT,
        federation: "Exercise".into(),
        clique: String::new(),
        udp: Some(UdpOffer {
            port: 7001,
            token: 0xfeed,
        }),
    };
    let mut buf = BytesMut::new();
    hello.encode(&mut buf);
    InterestFrame::encode(
        &mut buf,
        FederationId::of("x"),
        InterestOp::Replace,
        &[(1, 5), (9, 9)],
        4096,
    );
    encode_heartbeat(&mut buf);
    Goodbye::encode("shutting down", &mut buf);
    let mut frames = Vec::new();
    while let Some(frame) = decode_frame(&mut buf, DEFAULT_MAX_FRAME_SIZE).unwrap() {
        frames.push(frame);
    }
    assert_eq!(
        frames,
        vec![
            Frame::Hello(hello),
            Frame::Interest(InterestFrame {
                federation: FederationId::of("x"),
                op: InterestOp::Replace,
                ranges: vec![(1, 5), (9, 9)],
            }),
            Frame::Heartbeat,
            Frame::Goodbye(Goodbye {
                reason: "shutting down".into()
            }),
        ]
    );
}

#[test]
fn a_large_replace_is_split_into_frames_that_each_fit() {
    let ranges: Vec<(u32, u32)> = (0..1000).map(|i| (i * 10, i * 10 + 2)).collect();
    let mut buf = BytesMut::new();
    InterestFrame::encode(
        &mut buf,
        FederationId(1),
        InterestOp::Replace,
        &ranges,
        1024,
    );
    let mut seen = Vec::new();
    let mut ops = Vec::new();
    while let Some(frame) = decode_frame(&mut buf, 1024).unwrap() {
        let Frame::Interest(i) = frame else { panic!() };
        ops.push(i.op);
        seen.extend(i.ranges);
    }
    assert_eq!(seen, ranges);
    assert_eq!(ops[0], InterestOp::Replace);
    assert!(ops.len() > 1 && ops[1..].iter().all(|&op| op == InterestOp::Add));
}

#[test]
fn partial_frames_wait_for_more_bytes() {
    let full = data_frame(&[1], b"abc");
    for cut in 0..full.len() {
        let mut buf = BytesMut::from(&full[..cut]);
        assert_eq!(
            decode_frame(&mut buf, DEFAULT_MAX_FRAME_SIZE),
            Ok(None),
            "cut at {cut}"
        );
        // Until the length prefix is complete only its own missing bytes are known.
        let expected = if cut < LENGTH_PREFIX {
            LENGTH_PREFIX - cut
        } else {
            full.len() - cut
        };
        assert_eq!(missing_bytes(&buf), expected);
    }
}

#[test]
fn an_oversize_length_is_refused_before_its_body_arrives() {
    let mut buf = BytesMut::new();
    buf.put_u32_le(10 << 20);
    let err = decode_frame(&mut buf, DEFAULT_MAX_FRAME_SIZE).unwrap_err();
    assert_eq!(
        err,
        WireError::Oversize {
            len: (10 << 20) + 4,
            max: DEFAULT_MAX_FRAME_SIZE
        }
    );
    let mut buf = BytesMut::new();
    buf.put_u32_le(u32::MAX);
    assert!(matches!(
        decode_frame(&mut buf, HARD_MAX_FRAME_SIZE),
        Err(WireError::Oversize { .. })
    ));
}

#[test]
fn garbage_is_refused_within_six_bytes() {
    let mut buf = BytesMut::from(&b"GET / HTTP/1.1\r\n"[..]);
    assert!(decode_frame(&mut buf, DEFAULT_MAX_FRAME_SIZE).is_err());
    let mut buf = BytesMut::from(&[6u8, 0, 0, 0, 9][..]);
    assert_eq!(
        decode_frame(&mut buf, DEFAULT_MAX_FRAME_SIZE),
        Err(WireError::UnsupportedVersion { got: 9 })
    );
    let mut buf = BytesMut::from(&[2u8, 0, 0, 0, PROTOCOL_VERSION, 77][..]);
    assert_eq!(
        decode_frame(&mut buf, DEFAULT_MAX_FRAME_SIZE),
        Err(WireError::UnknownKind(77))
    );
}

#[test]
fn malformed_bodies_are_errors() {
    // A data frame whose id count runs past its end.
    let mut frame = data_frame(&[1, 2], b"");
    frame[7] = 200;
    assert!(matches!(
        Frame::parse(frame.freeze()),
        Err(WireError::Malformed { kind: "data", .. })
    ));
    // An interest frame whose range count lies.
    let mut buf = BytesMut::new();
    InterestFrame::encode(&mut buf, FederationId(1), InterestOp::Add, &[(1, 2)], 4096);
    buf[6 + 8 + 1] = 0xff;
    assert!(matches!(
        Frame::parse(buf.freeze()),
        Err(WireError::Malformed {
            kind: "interest",
            ..
        })
    ));
    // A heartbeat with a body.
    let frame = Bytes::from_static(&[3, 0, 0, 0, PROTOCOL_VERSION, 4, 0]);
    assert!(Frame::parse(frame).is_err());
}

#[test]
fn federation_ids_are_stable() {
    // FNV-1a 64 of the empty string is the offset basis; the wire depends on this never
    // changing between builds.
    assert_eq!(FederationId::of("").0, 0xcbf2_9ce4_8422_2325);
    assert_ne!(FederationId::of("a"), FederationId::of("b"));
}

#[test]
fn a_removal_is_numbered_in_its_streams_and_keeps_its_key() {
    let header = DataHeader {
        federation: FederationId::of("fed"),
        source: NodeId(7),
        seq: 1,
        priority: 4,
        class: TransportClass::Reliable,
    };
    let removal = LatestKey {
        key: 0x1122_3344_5566_7788,
        attributes: 0,
    };
    let mut out = BytesMut::new();
    DataFrame::encode_with(&mut out, &header, Some(removal), &[5, 6], b"gone");
    DataFrame::stamp_streams(&mut out, |id| id * 10);
    let frame = DataFrame::from_bytes(out.freeze()).unwrap();
    assert_eq!(frame.latest(), Some(removal));
    assert_eq!(frame.ids().collect::<Vec<_>>(), vec![5, 6]);
    assert_eq!(frame.streams().collect::<Vec<_>>(), vec![50, 60]);
    assert_eq!(frame.payload(), b"gone");
}

#[test]
fn manage_frames_round_trip_with_and_without_an_asker() {
    let frames = [
        None,
        Some("tank-1".to_owned()),
        Some(String::new()),
        Some("ü".repeat(600)),
    ];
    for asker in frames {
        let frame = ManageFrame {
            direction: ManageDirection::Request,
            origin: NodeId(5),
            request: 9,
            asker: asker.clone(),
            body: Bytes::from_static(b"body"),
        };
        let mut buf = BytesMut::new();
        frame.encode(&mut buf);
        let Some(Frame::Manage(back)) = decode_frame(&mut buf, DEFAULT_MAX_FRAME_SIZE).unwrap()
        else {
            panic!("a manage frame")
        };
        assert_eq!(&back.body[..], b"body");
        match asker {
            // A name past the limit is cut at a character boundary, never lost as none.
            Some(long) if long.len() > 1024 => {
                let cut = back.asker.expect("an asker");
                assert!(cut.len() <= 1024 && long.starts_with(&cut), "{}", cut.len());
            }
            asker => assert_eq!(back.asker, asker),
        }
    }
}
