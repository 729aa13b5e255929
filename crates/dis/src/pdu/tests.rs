use super::*;
use proptest::prelude::*;

fn entity_state() -> EntityState {
    EntityState {
        id: EntityId {
            site: 1,
            application: 2,
            entity: 3,
        },
        force: 1,
        entity_type: EntityType {
            kind: 1,
            domain: 1,
            country: 225,
            category: 1,
            subcategory: 1,
            specific: 3,
            extra: 0,
        },
        alternative_type: EntityType::default(),
        velocity: [1.5, -2.0, 0.25],
        location: [4_000_000.5, 3_000_000.25, -1_000.0],
        orientation: [0.5, -0.25, 1.0],
        appearance: 0x0040_0018,
        dead_reckoning: DeadReckoning {
            algorithm: 4,
            other: [0; 15],
            acceleration: [0.5, 0.0, -0.5],
            angular_velocity: [0.0, 0.125, 0.0],
        },
        marking: Marking::ascii("TANK-1"),
        capabilities: 0,
        variable_parameters: vec![[7; 16]],
    }
}

#[test]
fn entity_state_round_trips_with_its_length_in_the_header() {
    let pdu = Pdu::new(5, 1234, Body::EntityState(entity_state()));
    let bytes = pdu.to_bytes();
    assert_eq!(bytes.len(), ENTITY_STATE_LEN + 16);
    assert_eq!(
        u16::from_be_bytes([bytes[8], bytes[9]]) as usize,
        bytes.len()
    );
    // Fixed offsets from IEEE 1278.1 §7.2.2: entity id at 12, location at 48, marking at 128.
    assert_eq!(&bytes[12..18], &[0, 1, 0, 2, 0, 3]);
    assert_eq!(&bytes[48..56], &4_000_000.5f64.to_be_bytes());
    assert_eq!(&bytes[129..135], b"TANK-1");
    let (back, used) = decode_one(&bytes).unwrap();
    assert_eq!(used, bytes.len());
    assert_eq!(back.body, pdu.body);
    assert_eq!(back.header.exercise, 5);
    assert_eq!(back.header.pdu_type, pdu_type::ENTITY_STATE);
}

#[test]
fn fire_detonation_and_remove_round_trip_at_their_standard_lengths() {
    let fire = Fire {
        firing: entity_state().id,
        event: EntityId {
            site: 1,
            application: 2,
            entity: 9,
        },
        location: [1.0, 2.0, 3.0],
        range: 1500.0,
        burst: Burst {
            quantity: 2,
            ..Burst::default()
        },
        ..Fire::default()
    };
    let det = Detonation {
        result: 5,
        location_in_entity: [0.5, 0.0, 0.0],
        ..Detonation::default()
    };
    let remove = RemoveEntity {
        request_id: 77,
        ..RemoveEntity::default()
    };
    for (body, length) in [
        (Body::Fire(fire), FIRE_LEN),
        (Body::Detonation(det), DETONATION_LEN),
        (Body::RemoveEntity(remove), REMOVE_ENTITY_LEN),
    ] {
        let bytes = Pdu::new(1, 0, body.clone()).to_bytes();
        assert_eq!(bytes.len(), length);
        assert_eq!(decode_one(&bytes).unwrap().0.body, body);
    }
}

#[test]
fn version_6_is_read_and_others_are_unsupported() {
    let mut bytes = Pdu::new(1, 0, Body::EntityState(entity_state())).to_bytes();
    bytes[0] = 6;
    assert!(decode_one(&bytes).is_ok());
    bytes[0] = 5;
    assert_eq!(decode_one(&bytes), Err(PduError::UnsupportedVersion(5)));
    bytes[0] = 7;
    bytes[2] = 26; // a Signal PDU
    assert!(decode_one(&bytes).unwrap_err().is_unsupported());
}

#[test]
fn bad_lengths_and_counts_are_errors() {
    let bytes = Pdu::new(1, 0, Body::EntityState(entity_state())).to_bytes();
    assert!(matches!(
        decode_one(&bytes[..100]),
        Err(PduError::LongerThanDatagram { .. })
    ));
    let mut short = bytes.clone();
    short[8..10].copy_from_slice(&100u16.to_be_bytes());
    assert!(matches!(decode_one(&short), Err(PduError::TooShort { .. })));
    let mut count = bytes.clone();
    count[19] = 9; // nine variable parameters, one present
    assert!(matches!(
        decode_one(&count),
        Err(PduError::ParameterCount { count: 9, .. })
    ));
    assert!(matches!(
        decode_one(&bytes[..5]),
        Err(PduError::Truncated { .. })
    ));
}

#[test]
fn a_datagram_of_two_pdus_gives_both_and_a_zero_length_takes_the_rest() {
    let mut datagram = Pdu::new(1, 0, Body::EntityState(entity_state())).to_bytes();
    datagram.extend(Pdu::new(1, 0, Body::Fire(Fire::default())).to_bytes());
    let pdus = decode_datagram(&datagram);
    assert_eq!(pdus.len(), 2);
    assert!(pdus.iter().all(Result::is_ok));
    let mut unsized_pdu = Pdu::new(1, 0, Body::Fire(Fire::default())).to_bytes();
    unsized_pdu[8..10].copy_from_slice(&[0, 0]);
    assert!(decode_one(&unsized_pdu).is_ok());
}

proptest! {
    #[test]
    fn no_bytes_make_the_decoder_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let _ = decode_datagram(&bytes);
    }

    #[test]
    fn headers_of_real_pdus_with_random_bodies_never_panic(
        pdu_type in prop_oneof![Just(1u8), Just(2), Just(3), Just(12)],
        body in proptest::collection::vec(any::<u8>(), 0..300),
        length in any::<u16>(),
    ) {
        let mut bytes = vec![7, 1, pdu_type, 1, 0, 0, 0, 0];
        bytes.extend_from_slice(&length.to_be_bytes());
        bytes.extend_from_slice(&[0, 0]);
        bytes.extend(body);
        let _ = decode_datagram(&bytes);
    }
}
