//! The typed encodings against byte vectors worked out by hand from §4.12, and round trips.

use super::typed::*;
use super::{padding, DecodeError, Decoder, Encoder};
use proptest::prelude::*;

#[test]
fn padding_reaches_the_next_boundary() {
    assert_eq!(padding(0, 4), 0);
    assert_eq!(padding(1, 4), 3);
    assert_eq!(padding(5, 8), 3);
    assert_eq!(padding(8, 8), 0);
    assert_eq!(padding(7, 1), 0);
}

#[test]
fn basic_types_in_both_byte_orders() {
    assert_eq!(HlaInteger16Be(0x0102).encode(), [1, 2]);
    assert_eq!(HlaInteger16Le(0x0102).encode(), [2, 1]);
    assert_eq!(HlaInteger32Be(-2).encode(), [0xff, 0xff, 0xff, 0xfe]);
    assert_eq!(HlaInteger64Le(1).encode(), [1, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(HlaFloat32Be(1.0).encode(), [0x3f, 0x80, 0, 0]);
    assert_eq!(HlaFloat64Le(1.0).encode(), [0, 0, 0, 0, 0, 0, 0xf0, 0x3f]);
    assert_eq!(HlaOctetPairLe(0xabcd).encode(), [0xcd, 0xab]);
    assert_eq!(HlaBoolean(true).encode(), [0, 0, 0, 1]);
    assert_eq!(HlaBoolean::decode(&[0, 0, 0, 0]), Ok(HlaBoolean(false)));
    assert!(matches!(
        HlaBoolean::decode(&[0, 0, 0, 2]),
        Err(DecodeError::Invalid { at: 0, .. })
    ));
}

#[test]
fn a_record_of_an_octet_and_an_int32_pads_three_bytes() {
    let record = (HlaOctet(7), HlaInteger32Be(5));
    assert_eq!(record.encode(), [7, 0, 0, 0, 0, 0, 0, 5]);
    assert_eq!(record.encoded_len(), 8);
    assert_eq!(<(HlaOctet, HlaInteger32Be)>::OCTET_BOUNDARY, 4);
    assert_eq!(
        <(HlaOctet, HlaInteger32Be)>::decode(&record.encode()),
        Ok(record)
    );
    // The other way round nothing pads: the record ends with its last field.
    assert_eq!((HlaInteger32Be(5), HlaOctet(7)).encode(), [0, 0, 0, 5, 7]);
}

#[test]
fn array_elements_are_padded_to_their_boundary_but_the_last_is_not() {
    let pairs = [
        (HlaInteger32Be(1), HlaOctet(2)),
        (HlaInteger32Be(3), HlaOctet(4)),
    ];
    assert_eq!(
        pairs.encode(),
        [0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 3, 4],
        "5 + 3 padding + 5"
    );
    assert_eq!(
        <[(HlaInteger32Be, HlaOctet); 2]>::decode(&pairs.encode()),
        Ok(pairs)
    );
}

#[test]
fn a_variable_array_counts_then_pads_to_its_elements() {
    assert_eq!(Vec::<HlaOctet>::new().encode(), [0, 0, 0, 0]);
    assert_eq!(
        vec![HlaFloat64Be(1.0)].encode(),
        [0, 0, 0, 1, 0, 0, 0, 0, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0],
        "count, 4 padding, the float"
    );
    assert_eq!(<Vec<HlaFloat64Be>>::OCTET_BOUNDARY, 8);
    // An octet before the array pushes the count to offset 4.
    let record = (HlaOctet(9), vec![HlaInteger16Be(-1)]);
    assert_eq!(record.encode(), [9, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff]);
}

#[test]
fn strings_and_opaque_data() {
    assert_eq!(
        HlaAsciiString("ab".into()).encode(),
        [0, 0, 0, 2, b'a', b'b']
    );
    assert_eq!(
        HlaUnicodeString("hé".into()).encode(),
        [0, 0, 0, 2, 0, 0x68, 0, 0xe9]
    );
    assert_eq!(
        HlaUnicodeString::decode(&[0, 0, 0, 1, 0xd8, 0]),
        Err(DecodeError::Invalid {
            at: 4,
            message: "HLAunicodeString holds an unpaired UTF-16 surrogate".into()
        })
    );
    assert_eq!(HlaOpaqueData(vec![1, 2, 3]).encode(), [0, 0, 0, 3, 1, 2, 3]);
    assert_eq!(
        HlaAsciiString::decode(&[0, 0, 0, 1, 0xe9]),
        Ok(HlaAsciiString("é".into()))
    );
}

#[test]
fn short_and_lying_input_is_an_error_not_a_panic() {
    assert_eq!(
        <(HlaOctet, HlaInteger32Be)>::decode(&[7, 0, 0, 0, 0, 5]),
        Err(DecodeError::Truncated {
            at: 4,
            needed: 4,
            available: 2
        })
    );
    // A count of two billion in an 8-byte buffer.
    assert_eq!(
        HlaOpaqueData::decode(&[0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 4]),
        Err(DecodeError::BadCount {
            at: 0,
            count: i64::from(i32::MAX),
            remaining: 4
        })
    );
    assert!(matches!(
        HlaOpaqueData::decode(&[0xff, 0xff, 0xff, 0xff]),
        Err(DecodeError::BadCount { count: -1, .. })
    ));
    assert_eq!(
        HlaOctet::decode(&[1, 2]),
        Err(DecodeError::TrailingBytes { at: 1, extra: 1 })
    );
}

/// A variant record as a user would write one: a shape, by an HLAoctet discriminant.
#[derive(Clone, Debug, PartialEq)]
enum Shape {
    Circle(HlaFloat64Be),
    Square(HlaInteger16Be),
    Nothing,
}

impl VariantRecord for Shape {
    type Discriminant = HlaOctet;
    const OCTET_BOUNDARY: usize = 8;

    fn discriminant(&self) -> HlaOctet {
        HlaOctet(match self {
            Shape::Circle(_) => 1,
            Shape::Square(_) => 2,
            Shape::Nothing => 0,
        })
    }

    fn encode_alternative(&self, encoder: &mut Encoder) {
        match self {
            Shape::Circle(r) => r.encode_into(encoder),
            Shape::Square(s) => s.encode_into(encoder),
            Shape::Nothing => {}
        }
    }

    fn decode_alternative(d: HlaOctet, decoder: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        match d.0 {
            1 => HlaFloat64Be::decode_from(decoder).map(Shape::Circle),
            2 => HlaInteger16Be::decode_from(decoder).map(Shape::Square),
            _ => Ok(Shape::Nothing),
        }
    }
}

#[test]
fn a_variant_pads_from_its_discriminant_to_the_alternative() {
    let circle = Variant(Shape::Circle(HlaFloat64Be(1.0)));
    assert_eq!(
        circle.encode(),
        [1, 0, 0, 0, 0, 0, 0, 0, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0]
    );
    let square = Variant(Shape::Square(HlaInteger16Be(3)));
    assert_eq!(square.encode(), [2, 0, 0, 3]);
    assert_eq!(Variant::<Shape>::decode(&square.encode()), Ok(square));
    assert_eq!(Variant(Shape::Nothing).encode(), [0]);
}

type Nested = (
    HlaOctet,
    Vec<(HlaInteger16Be, HlaFloat64Le)>,
    HlaUnicodeString,
    [HlaInteger64Be; 2],
    HlaOpaqueData,
    HlaAsciiString,
    HlaBoolean,
);

proptest! {
    #[test]
    fn nested_values_round_trip(
        octet: u8,
        pairs in prop::collection::vec((any::<i16>(), any::<i64>()), 0..5),
        text in "\\PC{0,8}",
        longs: [i64; 2],
        opaque in prop::collection::vec(any::<u8>(), 0..9),
        latin in "[\\x00-\\xff]{0,5}",
        flag: bool,
    ) {
        let value: Nested = (
            HlaOctet(octet),
            // Floats from bits, NaN payloads included, compared by bits below.
            pairs.iter().map(|&(a, b)| (HlaInteger16Be(a), HlaFloat64Le(f64::from_bits(b as u64)))).collect(),
            HlaUnicodeString(text),
            longs.map(HlaInteger64Be),
            HlaOpaqueData(opaque),
            HlaAsciiString(latin),
            HlaBoolean(flag),
        );
        let bytes = value.encode();
        prop_assert_eq!(value.encoded_len(), bytes.len());
        let back = Nested::decode(&bytes).unwrap();
        prop_assert_eq!(back.encode(), bytes);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let _ = Nested::decode(&bytes);
        let _ = Variant::<Shape>::decode(&bytes);
    }
}
