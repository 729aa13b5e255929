//! The dynamic layer on a small model written here: bytes by hand, printing, round trips.

use crate::encoding::{decode_value, encode_value, DataValue, DecodeError};
use crate::fom::ObjectModel;
use proptest::prelude::*;

const MODEL: &str = r#"<objectModel><dataTypes>
<enumeratedDataTypes>
  <enumeratedData><name>Kind</name><representation>HLAoctet</representation>
    <enumerator><name>Point</name><value>1</value></enumerator>
    <enumerator><name>Label</name><value>2</value></enumerator>
    <enumerator><name>Empty</name><value>3</value></enumerator></enumeratedData>
</enumeratedDataTypes>
<arrayDataTypes>
  <arrayData><name>Samples</name><dataType>HLAfloat64BE</dataType>
    <cardinality>Dynamic</cardinality><encoding>HLAvariableArray</encoding></arrayData>
  <arrayData><name>Pair</name><dataType>HLAinteger16LE</dataType>
    <cardinality>2</cardinality><encoding>HLAfixedArray</encoding></arrayData>
</arrayDataTypes>
<fixedRecordDataTypes>
  <fixedRecordData><name>Reading</name>
    <field><name>Flag</name><dataType>HLAoctet</dataType></field>
    <field><name>Count</name><dataType>HLAinteger32BE</dataType></field>
    <field><name>Values</name><dataType>Samples</dataType></field>
    <field><name>Corner</name><dataType>Pair</dataType></field>
    <field><name>Name</name><dataType>HLAunicodeString</dataType></field>
    <field><name>Shape</name><dataType>Thing</dataType></field>
    <field><name>Ok</name><dataType>HLAboolean</dataType></field>
    <field><name>Blob</name><dataType>HLAopaqueData</dataType></field>
  </fixedRecordData>
</fixedRecordDataTypes>
<variantRecordDataTypes>
  <variantRecordData><name>Thing</name><discriminant>Kind</discriminant><dataType>Kind</dataType>
    <alternative><enumerator>Point</enumerator><name>At</name><dataType>HLAfloat32BE</dataType></alternative>
    <alternative><enumerator>Label</enumerator><name>Text</name><dataType>HLAASCIIstring</dataType></alternative>
    <alternative><enumerator>HLAother</enumerator><name>Nothing</name><dataType>NA</dataType></alternative>
    <encoding>HLAvariantRecord</encoding></variantRecordData>
</variantRecordDataTypes>
</dataTypes></objectModel>"#;

fn model() -> ObjectModel {
    ObjectModel::from_sources(&[("reading.xml", MODEL)]).unwrap_or_else(|e| panic!("{e}"))
}

fn enumerator(name: &str, value: i64) -> DataValue {
    DataValue::Enumerator {
        name: Some(name.into()),
        value,
    }
}

fn thing(kind: &str, value: i64, alternative: Option<(&str, DataValue)>) -> DataValue {
    DataValue::Variant {
        discriminant_name: "Kind".into(),
        discriminant: Box::new(enumerator(kind, value)),
        alternative: alternative.map(|(n, v)| (n.to_owned(), Box::new(v))),
    }
}

#[rustfmt::skip]
const READING_BYTES: [u8; 52] = [
    9, 0, 0, 0,                          // Flag, 3 padding
    0, 0, 0, 7,                          // Count
    0, 0, 0, 1, 0, 0, 0, 0,              // Values: count, 4 padding (to the floats' 8)
    0x3f, 0xf8, 0, 0, 0, 0, 0, 0,        //   1.5
    0xfe, 0xff, 2, 0,                    // Corner: -2, 2 little-endian
    0, 0, 0, 1, 0, b'A', 0, 0,           // Name: "A" in UTF-16BE, 2 padding
    1, 0, 0, 0,                          // Shape: Point, 3 padding (to the float's 4)
    0x40, 0, 0, 0,                       //   At: 2.0
    0, 0, 0, 1,                          // Ok: HLAtrue
    0, 0, 0, 0,                          // Blob: empty
];

fn reading() -> DataValue {
    DataValue::Record(vec![
        ("Flag".into(), DataValue::Unsigned(9)),
        ("Count".into(), DataValue::Signed(7)),
        (
            "Values".into(),
            DataValue::Array(vec![DataValue::Float(1.5)]),
        ),
        (
            "Corner".into(),
            DataValue::Array(vec![DataValue::Signed(-2), DataValue::Signed(2)]),
        ),
        ("Name".into(), DataValue::Text("A".into())),
        (
            "Shape".into(),
            thing("Point", 1, Some(("At", DataValue::Float(2.0)))),
        ),
        ("Ok".into(), enumerator("HLAtrue", 1)),
        ("Blob".into(), DataValue::Bytes(Vec::new())),
    ])
}

#[test]
fn a_record_decodes_from_bytes_worked_out_by_hand_and_prints() {
    let model = model();
    let types = model.data_types();
    let value = decode_value(types, "Reading", &READING_BYTES).unwrap();
    assert_eq!(value, reading());
    assert_eq!(
        value.to_string(),
        r#"{Flag: 9, Count: 7, Values: [1.5], Corner: [-2, 2], Name: "A", Shape: {Kind: Point, At: 2}, Ok: HLAtrue, Blob: 0x}"#
    );
    assert_eq!(
        encode_value(types, "Reading", &value).unwrap(),
        READING_BYTES
    );
}

#[test]
fn variant_alternatives_and_hla_other() {
    let model = model();
    let types = model.data_types();
    let label = thing("Label", 2, Some(("Text", DataValue::Text("hi".into()))));
    let bytes = encode_value(types, "Thing", &label).unwrap();
    assert_eq!(bytes, [2, 0, 0, 0, 0, 0, 0, 2, b'h', b'i']);
    assert_eq!(decode_value(types, "Thing", &bytes).unwrap(), label);
    // 3 (Empty) and 200 (no enumerator) both fall to HLAother, which carries nothing.
    assert_eq!(
        decode_value(types, "Thing", &[3]).unwrap(),
        thing("Empty", 3, None)
    );
    let unknown = decode_value(types, "Thing", &[200]).unwrap();
    assert_eq!(unknown.to_string(), "{Kind: 200}");
    let wrong = thing("Label", 2, Some(("At", DataValue::Float(1.0))));
    assert_eq!(
        encode_value(types, "Thing", &wrong)
            .unwrap_err()
            .to_string(),
        "data type Thing: the discriminant Label chooses alternative Text"
    );
}

#[test]
fn values_that_do_not_fit_their_type_are_encode_errors() {
    let model = model();
    let types = model.data_types();
    let err = |name: &str, v: DataValue| encode_value(types, name, &v).unwrap_err().to_string();
    assert_eq!(
        err("HLAoctet", DataValue::Signed(256)),
        "data type HLAoctet: 256 does not fit in 8 bits"
    );
    assert_eq!(
        err("HLAinteger16BE", DataValue::Signed(-32769)),
        "data type HLAinteger16BE: -32769 does not fit in 16 bits"
    );
    assert_eq!(
        err("Pair", DataValue::Array(vec![DataValue::Signed(1)])),
        "data type Pair: holds 2 elements, the value 1"
    );
    assert_eq!(
        err("Kind", enumerator("Circle", 9)),
        "data type Kind: has no enumerator Circle"
    );
    assert_eq!(
        err("Nope", DataValue::Signed(1)),
        "data type Nope: is not in the object model"
    );
    assert_eq!(
        encode_value(types, "HLAinteger16BE", &DataValue::Signed(-32768)).unwrap(),
        [0x80, 0]
    );
}

#[test]
fn every_prefix_of_good_bytes_is_an_error_and_never_a_panic() {
    let model = model();
    for end in 0..READING_BYTES.len() {
        let result = decode_value(model.data_types(), "Reading", &READING_BYTES[..end]);
        assert!(
            matches!(
                result,
                Err(DecodeError::Truncated { .. } | DecodeError::BadCount { .. })
            ),
            "{end}: {result:?}"
        );
    }
    assert_eq!(
        decode_value(model.data_types(), "Missing", &[]),
        Err(DecodeError::UnknownType("Missing".into()))
    );
}

fn float_value() -> impl Strategy<Value = f64> {
    // Finite and exactly representable in f32 too, so every float field compares equal.
    any::<i32>().prop_map(|v| f64::from(v as f32) / 1024.0)
}

fn thing_value() -> impl Strategy<Value = DataValue> {
    prop_oneof![
        any::<i16>().prop_map(|v| thing("Point", 1, Some(("At", DataValue::Float(f64::from(v)))))),
        "[a-z]{0,6}".prop_map(|s| thing("Label", 2, Some(("Text", DataValue::Text(s))))),
        Just(thing("Empty", 3, None)),
    ]
}

proptest! {
    #[test]
    fn values_round_trip_through_bytes(
        flag: u8,
        count: i32,
        values in prop::collection::vec(float_value(), 0..4),
        corner: [i16; 2],
        name in "\\PC{0,6}",
        shape in thing_value(),
        ok: bool,
        blob in prop::collection::vec(any::<u8>(), 0..6),
    ) {
        let model = model();
        let value = DataValue::Record(vec![
            ("Flag".into(), DataValue::Unsigned(u64::from(flag))),
            ("Count".into(), DataValue::Signed(i64::from(count))),
            ("Values".into(), DataValue::Array(values.into_iter().map(DataValue::Float).collect())),
            ("Corner".into(), DataValue::Array(corner.iter().map(|&c| DataValue::Signed(i64::from(c))).collect())),
            ("Name".into(), DataValue::Text(name)),
            ("Shape".into(), shape),
            ("Ok".into(), if ok { enumerator("HLAtrue", 1) } else { enumerator("HLAfalse", 0) }),
            ("Blob".into(), DataValue::Bytes(blob)),
        ]);
        let bytes = encode_value(model.data_types(), "Reading", &value).unwrap();
        prop_assert_eq!(decode_value(model.data_types(), "Reading", &bytes).unwrap(), value);
    }

    #[test]
    fn arbitrary_bytes_decode_or_fail_without_panicking(bytes in prop::collection::vec(any::<u8>(), 0..80)) {
        let model = model();
        for name in ["Reading", "Thing", "Samples", "HLAunicodeString"] {
            if let Ok(value) = decode_value(model.data_types(), name, &bytes) {
                // What decodes re-encodes to the same bytes (padding is written as zeros,
                // so compare only when the input's padding was zero too).
                let again = encode_value(model.data_types(), name, &value).unwrap();
                prop_assert_eq!(again.len(), bytes.len());
            }
        }
    }
}
