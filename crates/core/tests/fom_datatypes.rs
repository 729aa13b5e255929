//! Data types of the 14 RPR FOM 2.0 modules: they load, real types decode from bytes
//! worked out by hand and print, and no bytes make a decoder panic.

use proptest::prelude::*;
use std::path::{Path, PathBuf};
use trellis_core::encoding::{decode_value, encode_value, DecodeError};
use trellis_core::fom::ObjectModel;

const RPR_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fom/rpr-2.0");

fn rpr_paths() -> Vec<PathBuf> {
    let dir = Path::new(RPR_DIR);
    assert!(
        dir.is_dir(),
        "the RPR FOM 2.0 modules must be in {}",
        dir.display()
    );
    let mut paths: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    assert_eq!(paths.len(), 14);
    paths
}

fn rpr() -> ObjectModel {
    ObjectModel::load(&rpr_paths(), &|path| std::fs::read(path)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_rpr_data_types_load_together_with_nothing_unresolved() {
    let model = rpr();
    let types = model.data_types();
    // Counted over the XML with a Python script (ElementTree): every element under
    // <dataTypes> with a <name>; no name is declared twice. The standard MIM, merged in
    // first, declares 33 more.
    assert_eq!(types.declared_count(), 286 + 33);
    assert!(types.unresolved().is_empty(), "{:#?}", types.unresolved());
    let location = types.get("WorldLocationStruct").unwrap();
    assert!(
        location.file.ends_with("RPR-Base_v2.0.xml"),
        "{}",
        location.file
    );
    assert_eq!(location.line, 1178);
    assert_eq!(types.octet_boundary("EntityTypeStruct"), 2);
    assert_eq!(types.octet_boundary("SpatialVariantStruct"), 8);
}

#[test]
fn a_module_alone_keeps_the_references_it_cannot_resolve() {
    let base = Path::new(RPR_DIR).join("RPR-Base_v2.0.xml");
    let model =
        ObjectModel::load(&[&base], &|path| std::fs::read(path)).unwrap_or_else(|e| panic!("{e}"));
    let unresolved = model.data_types().unresolved();
    // Base uses the enumerations of RPR-Enumerations and the unsigned types of Foundation.
    assert!(
        unresolved.iter().any(|e| e.message
            == "SpatialVariantStruct: dataType DeadReckoningAlgorithmEnum8 is not a declared data type"
            && e.line == 1219),
        "{unresolved:#?}"
    );
    assert!(unresolved
        .iter()
        .all(|e| e.file == base.display().to_string()));
}

#[test]
fn entity_type_decodes_and_prints() {
    let model = rpr();
    // Kind, Domain (octets), CountryCode (UnsignedInteger16 at offset 2), then four octets.
    let bytes = [1, 2, 0, 225, 1, 3, 0, 4];
    let value = decode_value(model.data_types(), "EntityTypeStruct", &bytes).unwrap();
    assert_eq!(
        value.to_string(),
        "{EntityKind: 1, Domain: 2, CountryCode: 225, Category: 1, Subcategory: 3, Specific: 0, Extra: 4}"
    );
    assert_eq!(
        encode_value(model.data_types(), "EntityTypeStruct", &value).unwrap(),
        bytes
    );
}

fn f64_be(v: f64) -> [u8; 8] {
    v.to_be_bytes()
}

fn f32_be(v: f32) -> [u8; 4] {
    v.to_be_bytes()
}

#[test]
fn world_location_decodes_and_prints() {
    let model = rpr();
    let bytes: Vec<u8> = [f64_be(1.5), f64_be(-2.0), f64_be(6.4e6)].concat();
    let value = decode_value(model.data_types(), "WorldLocationStruct", &bytes).unwrap();
    assert_eq!(value.to_string(), "{X: 1.5, Y: -2, Z: 6400000}");
}

/// SpatialVariantStruct with DRM_FPW (2): the octet discriminant, 7 padding to the
/// alternative's 8, then SpatialFPStruct: location (3 x f64), IsFrozen (RPRboolean, an
/// octet), 3 padding, orientation and velocity (3 x f32 each).
fn spatial_fpw() -> Vec<u8> {
    let mut bytes = vec![2, 0, 0, 0, 0, 0, 0, 0];
    for v in [1.0, 2.0, 3.0] {
        bytes.extend(f64_be(v));
    }
    bytes.extend([1, 0, 0, 0]);
    for v in [0.5, -0.5, 0.25, 10.0, 0.0, -1.0] {
        bytes.extend(f32_be(v));
    }
    bytes
}

#[test]
fn a_spatial_variant_decodes_prints_and_re_encodes() {
    let model = rpr();
    let types = model.data_types();
    let bytes = spatial_fpw();
    assert_eq!(bytes.len(), 60);
    let value = decode_value(types, "SpatialVariantStruct", &bytes).unwrap();
    assert_eq!(
        value.to_string(),
        "{DeadReckoningAlgorithm: DRM_FPW, SpatialFPW: {WorldLocation: {X: 1, Y: 2, Z: 3}, \
         IsFrozen: True, Orientation: {Psi: 0.5, Theta: -0.5, Phi: 0.25}, \
         VelocityVector: {XVelocity: 10, YVelocity: 0, ZVelocity: -1}}}"
    );
    assert_eq!(
        encode_value(types, "SpatialVariantStruct", &value).unwrap(),
        bytes
    );
    // Static (1) chooses SpatialStaticStruct: no velocity, so 12 bytes fewer.
    let mut static_bytes = bytes[..48].to_vec();
    static_bytes[0] = 1;
    let value = decode_value(types, "SpatialVariantStruct", &static_bytes).unwrap();
    assert!(
        value
            .to_string()
            .starts_with("{DeadReckoningAlgorithm: Static, SpatialStatic: {"),
        "{value}"
    );
    for end in 0..bytes.len() {
        assert!(decode_value(types, "SpatialVariantStruct", &bytes[..end]).is_err());
    }
}

#[test]
fn rpr_specific_arrays() {
    let model = rpr();
    let types = model.data_types();
    // RTIobjectId: HLAASCIIchar up to a zero.
    let value = decode_value(types, "RTIobjectId", b"Tank-1\0").unwrap();
    assert_eq!(value.to_string(), "\"Tank-1\"");
    assert_eq!(
        encode_value(types, "RTIobjectId", &value).unwrap(),
        b"Tank-1\0"
    );
    assert!(matches!(
        decode_value(types, "RTIobjectId", b"no end"),
        Err(DecodeError::Truncated { .. })
    ));
    // A lengthless array runs to the end of the buffer.
    let value = decode_value(types, "OrientationStructLengthlessArray", &[0u8; 24]).unwrap();
    assert_eq!(
        value.to_string(),
        "[{Psi: 0, Theta: 0, Phi: 0}, {Psi: 0, Theta: 0, Phi: 0}]"
    );
}

/// RPR gives the length of a lengthless array that more data follows in a note on the
/// field: `RPRlengthlessArrayLength=Order*Order+2*Order+1` (SphericalHarmonicAntennaStruct)
/// and `=NumberOfAppearanceRecords` (SilentEntityStruct, whose arrays are lengthless too).
#[test]
fn rpr_length_rules_count_the_lengthless_arrays_that_more_data_follows() {
    let model = rpr();
    let types = model.data_types();
    let mut antenna = Vec::new();
    antenna.extend_from_slice(&1u32.to_be_bytes()); // Order 1: 1 + 2 + 1 = 4 coefficients
    for c in [0.5f32, 1.0, 1.5, 2.0] {
        antenna.extend_from_slice(&f32_be(c));
    }
    antenna.extend_from_slice(&[2, 0, 0, 0]); // ReferenceSystem: EntityCoordinates, padding
    let value = decode_value(types, "SphericalHarmonicAntennaStruct", &antenna).unwrap();
    assert_eq!(
        value.to_string(),
        "{Order: 1, Coefficients: [0.5, 1, 1.5, 2], ReferenceSystem: EntityCoordinates, \
         Padding: 0x000000}"
    );
    assert_eq!(
        encode_value(types, "SphericalHarmonicAntennaStruct", &value).unwrap(),
        antenna
    );
    // Order 2 asks for 9 coefficients where the value has 4 and a byte of data.
    let mut short = antenna.clone();
    short[3] = 2;
    assert!(decode_value(types, "SphericalHarmonicAntennaStruct", &short).is_err());
    // Encoding refuses an array the rule does not count: a decoder would misread the rest.
    let mut fields = match value {
        trellis_core::encoding::DataValue::Record(fields) => fields,
        other => panic!("{other}"),
    };
    fields[0].1 = trellis_core::encoding::DataValue::Unsigned(2);
    let error = encode_value(
        types,
        "SphericalHarmonicAntennaStruct",
        &trellis_core::encoding::DataValue::Record(fields),
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "data type SphericalHarmonicAntennaStruct: field Coefficients holds 4 elements, but \
         RPRlengthlessArrayLength=Order*Order+2*Order+1 gives 9"
    );

    // Two silent entities in a lengthless array: 1 appearance record, then none.
    let mut silent = Vec::new();
    silent.extend_from_slice(&[0, 3, 0, 1]); // 3 entities, 1 appearance record
    silent.extend_from_slice(&[1, 2, 0, 225, 1, 3, 4, 0]); // EntityType
    silent.extend_from_slice(&7u32.to_be_bytes());
    silent.extend_from_slice(&[0, 2, 0, 0]); // 2 entities, no appearance records
    silent.extend_from_slice(&[1, 1, 0, 225, 2, 0, 0, 0]);
    let value = decode_value(types, "SilentEntityStructLengthlessArray", &silent).unwrap();
    let text = value.to_string();
    assert!(text.contains("NumberOfAppearanceRecords: 1, "), "{text}");
    assert!(text.contains("EntityAppearance: [7]}, {"), "{text}");
    assert!(text.ends_with("EntityAppearance: []}]"), "{text}");
    assert_eq!(
        encode_value(types, "SilentEntityStructLengthlessArray", &value).unwrap(),
        silent
    );
}

/// RPRextendedVariantRecord: the discriminant, the alternative's extent in octets as an
/// HLAinteger32BE, then the alternative; a discriminant this model does not list is skipped
/// by its extent.
#[test]
fn an_rpr_extended_variant_carries_its_extent_and_unknown_alternatives_are_skipped() {
    let model = rpr();
    let types = model.data_types();
    let mut record = Vec::new();
    record.extend_from_slice(&7u32.to_be_bytes()); // Index
    record.extend_from_slice(&[0; 4]); // padding to the variant's 8
    record.extend_from_slice(&655_360u32.to_be_bytes()); // PointRecord1Type
    record.extend_from_slice(&24u32.to_be_bytes()); // the extent: 3 × 8 octets
    for c in [1.0, -2.0, 3.5] {
        record.extend_from_slice(&f64_be(c));
    }
    let value = decode_value(types, "EnvironmentRecStruct", &record).unwrap();
    assert_eq!(
        value.to_string(),
        "{Index: 7, DataVariant: {Type: PointRecord1Type, Point1GeometryData: {X: 1, Y: -2, \
         Z: 3.5}}}"
    );
    assert_eq!(
        encode_value(types, "EnvironmentRecStruct", &value).unwrap(),
        record
    );
    // A record type from a later enumeration: its 5 octets are passed over.
    let unknown = [0, 0, 0x7f, 0xff, 0, 0, 0, 5, 1, 2, 3, 4, 5];
    let value = decode_value(types, "EnvironmentRecVariantStruct", &unknown).unwrap();
    assert_eq!(value.to_string(), "{Type: 32767}");
    // An extent past the end, or shorter than its alternative, is an error.
    let mut long = record.clone();
    long[15] = 25;
    assert!(decode_value(types, "EnvironmentRecStruct", &long).is_err());
    let mut cut = record;
    cut[15] = 16;
    assert!(decode_value(types, "EnvironmentRecStruct", &cut).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Every RPR type against arbitrary bytes: values or errors, never a panic, and what
    /// decodes re-encodes to a buffer of the same length.
    #[test]
    fn no_bytes_make_an_rpr_decoder_panic(bytes in prop::collection::vec(any::<u8>(), 0..96)) {
        thread_local!(static MODEL: ObjectModel = rpr());
        MODEL.with(|model| {
            let types = model.data_types();
            for t in types.iter() {
                if let Ok(value) = decode_value(types, &t.name, &bytes) {
                    let again = encode_value(types, &t.name, &value);
                    assert!(again.is_ok(), "{}: {value}: {again:?}", t.name);
                }
            }
        });
    }
}

#[test]
fn the_demo_model_declares_the_position_the_demo_sends() {
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/../../foms/trellis-demo.xml");
    let model =
        ObjectModel::load(&[demo], &|path| std::fs::read(path)).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        model.data_types().unresolved().is_empty(),
        "{:#?}",
        model.data_types().unresolved()
    );
    let vehicle = model.find_object_class("Vehicle").unwrap();
    let position = model.attribute(model.find_attribute(vehicle, "Position").unwrap());
    // x = 300, y = 700 as the demo writes them: two little-endian 32-bit integers.
    let bytes = [44, 1, 0, 0, 188, 2, 0, 0];
    let value = decode_value(model.data_types(), &position.data_type, &bytes).unwrap();
    assert_eq!(value.to_string(), "{X: 300, Y: 700}");
}
