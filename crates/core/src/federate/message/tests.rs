//! The federate message encoding: round trips sharing the payload, the compact forms, and
//! malformed input refused.

use super::*;

#[test]
fn messages_round_trip_sharing_the_payload() {
    let messages = vec![
        Message {
            sender: 3,
            class: 7,
            time: 99,
            time_stamped: true,
            serial: Some(u32::MAX),
            tag: Bytes::from_static(b"tag"),
            body: Body::Update {
                object: ObjectId::new(3, 1),
                name: Some("Tank-1".into()),
                region: Some(Region::new().with(1, Range::new(5, 10))),
                values: vec![(1, Bytes::from_static(b"pos")), (2, Bytes::new())],
            },
        },
        Message {
            sender: u32::MAX,
            class: 300,
            time: u64::MAX,
            time_stamped: false,
            serial: None,
            tag: Bytes::new(),
            body: Body::Update {
                object: ObjectId::new(u32::MAX, u32::MAX),
                name: None,
                // Bounds at the ends of u64, and a width that wraps: sent exactly.
                region: Some(
                    Region::new()
                        .with(0, Range::new(0, u64::MAX))
                        .with(u32::MAX, Range::new(u64::MAX, 3)),
                ),
                values: vec![(u32::MAX, Bytes::from(vec![7u8; 300]))],
            },
        },
        // Time-stamped without a retraction handle: the serial field says 0.
        Message {
            sender: 5,
            class: 6,
            time: 12,
            time_stamped: true,
            serial: None,
            tag: Bytes::new(),
            body: Body::Delete {
                object: ObjectId::new(5, 2),
            },
        },
        Message {
            sender: 2,
            class: 4,
            time: 0,
            time_stamped: false,
            serial: None,
            tag: Bytes::new(),
            body: Body::Register {
                object: ObjectId::new(2, 9),
                name: None,
            },
        },
        Message {
            sender: 1,
            class: 2,
            time: 0,
            time_stamped: false,
            serial: None,
            tag: Bytes::new(),
            body: Body::Request {
                object: None,
                attributes: vec![4, 5],
            },
        },
        Message {
            sender: 1,
            class: 2,
            time: 0,
            time_stamped: false,
            serial: None,
            tag: Bytes::new(),
            body: Body::Interaction {
                region: None,
                values: vec![(9, Bytes::from_static(b"fire"))],
            },
        },
    ];
    for message in messages {
        let mut out = BytesMut::new();
        message.encode(&mut out);
        let payload = out.freeze();
        assert_eq!(Message::decode(&payload).unwrap(), message);
        // Behind a frame's header, as data frames carry it.
        let mut framed = BytesMut::from(&b"header"[..]);
        framed.extend_from_slice(&payload);
        assert_eq!(Message::decode_at(&framed.freeze(), 6).unwrap(), message);
    }
}

/// Every value is the frame's own bytes, the last one too (it keeps the frame's handle
/// rather than taking a new one), however the buffer was made.
#[test]
fn decoded_values_point_into_the_frame() {
    let message = Message {
        sender: 1,
        class: 2,
        time: 3,
        time_stamped: false,
        serial: None,
        tag: Bytes::from_static(b"t"),
        body: Body::Update {
            object: ObjectId::new(1, 1),
            name: None,
            region: None,
            values: vec![
                (4, Bytes::from_static(b"first")),
                (5, Bytes::from_static(b"last")),
            ],
        },
    };
    let mut framed = BytesMut::from(&b"header"[..]);
    message.encode(&mut framed);
    let shared = framed.freeze();
    let from_vec = Bytes::from(shared.to_vec());
    for frame in [shared, from_vec] {
        let range = frame.as_ptr_range();
        let decoded = Message::decode_into(frame.clone(), 6, Vec::new()).unwrap();
        assert_eq!(decoded, message);
        let Body::Update { values, .. } = decoded.body else {
            panic!("an update decodes as an update");
        };
        for (_, value) in &values {
            assert!(range.contains(&value.as_ptr()), "a value outside the frame");
        }
    }
}

/// What every update pays for its name, region and value framing: the default name is
/// one byte, and a one-cell region of a thousand-unit map at most four a dimension.
#[test]
fn an_update_with_a_default_name_and_a_small_region_is_compact() {
    let header = Header {
        sender: 7,
        class: 3,
        time: 1,
        time_stamped: false,
        serial: None,
        tag: &[],
    };
    let region = Region::new()
        .with(0, Range::new(999, 1000))
        .with(1, Range::new(5, 6));
    let values = [(2, [0u8; 100])];
    let update = |name| Outgoing::Update {
        object: ObjectId::new(7, 1),
        name,
        region: Some(&region),
        values: &values,
    };
    let fixed_header = 1 + 4 + 4 + 8 + 2;
    // Dimension 0 from 999 (two bytes), dimension 1 from 5 (one), each one unit wide.
    let body = 8 + 1 + (1 + 4 + 3) + (1 + 1 + 1 + 100);
    let encoded = |name| {
        let mut out = BytesMut::new();
        update(name).encode(&header, &mut out);
        assert!(out.len() <= update(name).max_encoded_len(&header));
        out.freeze()
    };
    assert_eq!(encoded(None).len(), fixed_header + body);
    assert_eq!(
        encoded(Some("HLAobject_7_1")).len(),
        fixed_header + body + 13,
        "a given name costs its bytes, even when it spells a default one"
    );
    for name in [None, Some("Tank-1")] {
        match Message::decode(&encoded(name)).unwrap().body {
            Body::Update { name: decoded, .. } => {
                assert_eq!(decoded.as_ref().map(Text::as_str), name)
            }
            other => panic!("decoded {other:?}"),
        }
    }
}

#[test]
fn varints_past_64_bits_or_ten_bytes_are_errors() {
    let read = |bytes: &[u8]| Reader::new(bytes, "test").varint("v");
    assert_eq!(read(&[0x00]).unwrap(), 0);
    assert_eq!(read(&[0xff, 0x01]).unwrap(), 255);
    let mut max = vec![0xff; 9];
    max.push(0x01);
    assert_eq!(read(&max).unwrap(), u64::MAX);
    let mut past = vec![0xff; 9];
    past.push(0x02);
    assert!(read(&past).is_err(), "65 bits");
    assert!(read(&[0x80; 11]).is_err(), "eleven bytes");
    assert!(read(&[0x80]).is_err(), "cut short");
    let mut out = BytesMut::new();
    for v in [
        0,
        1,
        127,
        128,
        16_383,
        16_384,
        u64::from(u32::MAX),
        u64::MAX,
    ] {
        out.clear();
        put_varint(&mut out, v);
        assert_eq!(out.len(), varint_len(v), "{v}");
        assert_eq!(read(&out).unwrap(), v);
    }
}

#[test]
fn truncated_and_lying_messages_are_errors() {
    let mut out = BytesMut::new();
    Message {
        sender: 1,
        class: 1,
        time: 1,
        time_stamped: false,
        serial: None,
        tag: Bytes::new(),
        body: Body::Interaction {
            region: None,
            values: vec![(1, Bytes::from_static(b"abcdef"))],
        },
    }
    .encode(&mut out);
    let full = out.freeze();
    for cut in 0..full.len() {
        assert!(Message::decode(&full.slice(..cut)).is_err(), "cut at {cut}");
    }
    let mut lying = full.to_vec();
    let count_at = 1 + 4 + 4 + 8 + 2 + 1;
    lying[count_at] = 0xff;
    assert!(Message::decode(&Bytes::from(lying)).is_err());
}
