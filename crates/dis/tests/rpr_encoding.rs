//! The gateway's hand-written RPR encodings against the object model's own typed decoder
//! and encoder (trellis-core's encoding::value) over the 14 RPR FOM 2.0 modules: the bytes
//! decode as the FOM's data type with the values put in, and back.

use std::path::{Path, PathBuf};
use trellis_core::encoding::{decode_value, encode_value};
use trellis_core::fom::ObjectModel;
use trellis_dis::pdu::{EntityId, EntityType, Marking};
use trellis_dis::rpr::{self, Spatial};

const RPR_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fom/rpr-2.0");

fn rpr_model() -> ObjectModel {
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
    ObjectModel::load(&paths, &|path| std::fs::read(path)).unwrap()
}

/// `bytes` decoded as `type_name`, printed; and re-encoded by the model to the same bytes.
fn as_fom_type(model: &ObjectModel, type_name: &str, bytes: &[u8]) -> String {
    let value = decode_value(model.data_types(), type_name, bytes)
        .unwrap_or_else(|e| panic!("{type_name}: {e}"));
    let again = encode_value(model.data_types(), type_name, &value).unwrap();
    assert_eq!(again, bytes, "{type_name} re-encodes differently");
    value.to_string()
}

fn spatial(algorithm: u8) -> Spatial {
    Spatial {
        algorithm,
        location: [1.5, -2.25, 3.0],
        frozen: true,
        orientation: [0.5, 0.25, -1.0],
        velocity: [10.0, 0.0, -2.5],
        acceleration: [0.5, 0.5, 0.0],
        angular_velocity: [0.0, 0.125, 0.0],
    }
}

#[test]
fn spatial_variants_decode_as_the_fom_type() {
    let model = rpr_model();
    let cases = [
        (1, "SpatialStatic", "{WorldLocation: {X: 1.5, Y: -2.25, Z: 3}, IsFrozen: True, Orientation: {Psi: 0.5, Theta: 0.25, Phi: -1}}"),
        (2, "SpatialFPW", "{WorldLocation: {X: 1.5, Y: -2.25, Z: 3}, IsFrozen: True, Orientation: {Psi: 0.5, Theta: 0.25, Phi: -1}, VelocityVector: {XVelocity: 10, YVelocity: 0, ZVelocity: -2.5}}"),
        (3, "SpatialRPW", "{WorldLocation: {X: 1.5, Y: -2.25, Z: 3}, IsFrozen: True, Orientation: {Psi: 0.5, Theta: 0.25, Phi: -1}, VelocityVector: {XVelocity: 10, YVelocity: 0, ZVelocity: -2.5}, AngularVelocity: {XAngularVelocity: 0, YAngularVelocity: 0.125, ZAngularVelocity: 0}}"),
        (4, "SpatialRVW", "{WorldLocation: {X: 1.5, Y: -2.25, Z: 3}, IsFrozen: True, Orientation: {Psi: 0.5, Theta: 0.25, Phi: -1}, VelocityVector: {XVelocity: 10, YVelocity: 0, ZVelocity: -2.5}, AccelerationVector: {XAcceleration: 0.5, YAcceleration: 0.5, ZAcceleration: 0}, AngularVelocity: {XAngularVelocity: 0, YAngularVelocity: 0.125, ZAngularVelocity: 0}}"),
        (9, "SpatialFVB", "{WorldLocation: {X: 1.5, Y: -2.25, Z: 3}, IsFrozen: True, Orientation: {Psi: 0.5, Theta: 0.25, Phi: -1}, VelocityVector: {XVelocity: 10, YVelocity: 0, ZVelocity: -2.5}, AccelerationVector: {XAcceleration: 0.5, YAcceleration: 0.5, ZAcceleration: 0}}"),
    ];
    for (algorithm, alternative, fields) in cases {
        let bytes = spatial(algorithm).encode();
        let text = as_fom_type(&model, "SpatialVariantStruct", &bytes);
        let enumerator = text
            .split(',')
            .next()
            .unwrap()
            .trim_start_matches("{DeadReckoningAlgorithm: ");
        assert_eq!(
            text,
            format!("{{DeadReckoningAlgorithm: {enumerator}, {alternative}: {fields}}}")
        );
        let back = Spatial::decode(&bytes).unwrap();
        let mut expected = spatial(algorithm);
        // What each alternative leaves out reads back as zero.
        let (velocity, acceleration, angular) = match algorithm {
            1 => (false, false, false),
            2 => (true, false, false),
            3 => (true, false, true),
            4 => (true, true, true),
            _ => (true, true, false),
        };
        if !velocity {
            expected.velocity = [0.0; 3];
        }
        if !acceleration {
            expected.acceleration = [0.0; 3];
        }
        if !angular {
            expected.angular_velocity = [0.0; 3];
        }
        assert_eq!(back, expected, "algorithm {algorithm}");
    }
}

#[test]
fn dis_other_is_sent_as_fpw_and_an_unknown_discriminant_is_refused() {
    let bytes = spatial(0).encode();
    assert_eq!(bytes[0], 2);
    assert!(Spatial::decode(&[12, 0, 0]).is_err());
    assert!(Spatial::decode(&bytes[..40]).is_err());
}

#[test]
fn records_and_identifiers_decode_as_the_fom_types() {
    let model = rpr_model();
    let entity_type = EntityType {
        kind: 1,
        domain: 2,
        country: 225,
        category: 1,
        subcategory: 3,
        specific: 0,
        extra: 4,
    };
    assert_eq!(
        as_fom_type(&model, "EntityTypeStruct", &rpr::encode_entity_type(entity_type)),
        "{EntityKind: 1, Domain: 2, CountryCode: 225, Category: 1, Subcategory: 3, Specific: 0, Extra: 4}"
    );
    let id = EntityId {
        site: 10,
        application: 20,
        entity: 30,
    };
    assert_eq!(
        as_fom_type(&model, "EntityIdentifierStruct", &rpr::encode_entity_id(id)),
        "{FederateIdentifier: {SiteID: 10, ApplicationID: 20}, EntityNumber: 30}"
    );
    let marking = rpr::encode_marking(Marking::ascii("TANK"));
    let text = as_fom_type(&model, "MarkingStruct", &marking);
    assert!(
        text.starts_with("{MarkingEncodingType: ASCII, MarkingData: "),
        "{text}"
    );
    assert_eq!(
        as_fom_type(
            &model,
            "EventIdentifierStruct",
            &rpr::encode_event_id(7, "HLAobject_1_2")
        ),
        "{EventCount: 7, IssuingObjectIdentifier: \"HLAobject_1_2\"}"
    );
    assert_eq!(
        as_fom_type(
            &model,
            "WorldLocationStruct",
            &rpr::encode_location([1.0, 2.5, -3.0])
        ),
        "{X: 1, Y: 2.5, Z: -3}"
    );
    assert_eq!(
        rpr::decode_entity_type(&rpr::encode_entity_type(entity_type)),
        Ok(entity_type)
    );
    assert_eq!(rpr::decode_entity_id(&rpr::encode_entity_id(id)), Ok(id));
    assert_eq!(
        rpr::decode_event_id(&rpr::encode_event_id(7, "x")),
        Ok((7, "x".to_owned()))
    );
    assert!(rpr::decode_object_id(b"no nul").is_err());
}

#[test]
fn appearance_fields_decode_as_their_fom_types() {
    let model = rpr_model();
    // Damage moderate (2 at bits 3-4), flames (bit 15), power plant on (bit 22).
    let appearance = (2 << 3) | (1 << 15) | (1 << 22);
    let value = |low, width| rpr::encode_appearance_field(appearance, low, width);
    // Through the gateway's own table of fields, by attribute name.
    let field = |name: &str| {
        let (_, low, width) = (rpr::APPEARANCE_FIELDS.iter())
            .find(|(n, _, _)| *n == name)
            .unwrap();
        value(*low, *width)
    };
    assert_eq!(
        as_fom_type(&model, "DamageStatusEnum32", &field("DamageState")),
        "ModerateDamage"
    );
    assert_eq!(
        as_fom_type(&model, "RPRboolean", &field("FlamesPresent")),
        "True"
    );
    assert_eq!(
        as_fom_type(&model, "RPRboolean", &field("PowerPlantOn")),
        "True"
    );
    assert_eq!(
        as_fom_type(&model, "RPRboolean", &field("Immobilized")),
        "False"
    );
    let mut rebuilt = 0;
    for (_, low, width) in rpr::APPEARANCE_FIELDS {
        rebuilt = rpr::apply_appearance_field(rebuilt, low, width, &value(low, width)).unwrap();
    }
    assert_eq!(rebuilt, appearance);
}

#[test]
fn dead_reckoning_moves_by_velocity_and_acceleration() {
    let mut s = spatial(4);
    s.frozen = false;
    let later = s.extrapolated(2.0);
    // x: 1.5 + 10*2 + 0.5*0.5*4 = 22.5; y: -2.25 + 0 + 0.5*0.5*4 = -1.25; z: 3 - 5 = -2.
    assert_eq!(later.location, [22.5, -1.25, -2.0]);
    assert_eq!(later.velocity, [11.0, 1.0, -2.5]);
    assert_eq!(spatial(4).extrapolated(2.0), spatial(4), "frozen stays");
    let mut fpw = spatial(2);
    fpw.frozen = false;
    assert_eq!(fpw.extrapolated(1.0).location, [11.5, -2.25, 0.5]);
}
