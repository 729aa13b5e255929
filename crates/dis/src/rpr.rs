//! The RPR FOM 2.0 encodings of the values the gateway maps, written by hand from the
//! modules' data types (RPR-Base, RPR-Physical, RPR-Warfare, RPR-Foundation) and checked
//! against the object model's own decoder in the tests (`tests/rpr_encoding.rs`).
//!
//! HLA alignment (IEEE 1516.2-2010 §4.12.7.1) counts from the start of each attribute's or
//! parameter's value, so a `SpatialVariantStruct` has 7 padding octets after its
//! discriminant (its alternatives hold 64-bit floats) and 3 after `IsFrozen`.

use crate::pdu::{EntityId, EntityType, Marking};
use thiserror::Error;

/// Why an attribute or parameter value is not the RPR type it should be.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RprError {
    #[error("{what}: needs {needed} bytes, has {available}")]
    Truncated {
        what: &'static str,
        needed: usize,
        available: usize,
    },
    #[error("SpatialVariantStruct: dead reckoning algorithm {0} has no alternative")]
    UnknownAlgorithm(u8),
    #[error("RTIobjectId: no terminating NUL")]
    Unterminated,
}

/// `SpatialVariantStruct`: where an entity is and how to dead-reckon it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Spatial {
    /// DeadReckoningAlgorithmEnum8: 1 Static, 2 FPW … 9 FVB (the DIS values).
    pub algorithm: u8,
    pub location: [f64; 3],
    pub frozen: bool,
    pub orientation: [f32; 3],
    pub velocity: [f32; 3],
    pub acceleration: [f32; 3],
    pub angular_velocity: [f32; 3],
}

/// Which parts an alternative of `SpatialVariantStruct` holds after the orientation:
/// (velocity, acceleration, angular velocity). None: no alternative.
fn spatial_parts(algorithm: u8) -> Option<(bool, bool, bool)> {
    match algorithm {
        1 => Some((false, false, false)),
        2 | 6 => Some((true, false, false)),
        3 | 7 => Some((true, false, true)),
        4 | 8 => Some((true, true, true)),
        5 | 9 => Some((true, true, false)),
        _ => None,
    }
}

impl Spatial {
    /// The HLA encoding. An algorithm the variant has no alternative for (DIS "Other", 0,
    /// or a value past 9) is sent as DRM_FPW: position, orientation and velocity.
    pub fn encode(&self) -> Vec<u8> {
        let algorithm = if spatial_parts(self.algorithm).is_some() {
            self.algorithm
        } else {
            2
        };
        let (velocity, acceleration, angular) = spatial_parts(algorithm).unwrap_or_default();
        let mut out = Vec::with_capacity(84);
        out.push(algorithm);
        out.extend_from_slice(&[0; 7]);
        self.location
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_be_bytes()));
        out.push(u8::from(self.frozen));
        out.extend_from_slice(&[0; 3]);
        put_f32x3(&mut out, self.orientation);
        if velocity {
            put_f32x3(&mut out, self.velocity);
        }
        if acceleration {
            put_f32x3(&mut out, self.acceleration);
        }
        if angular {
            put_f32x3(&mut out, self.angular_velocity);
        }
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<Spatial, RprError> {
        let mut r = Cursor::new("SpatialVariantStruct", bytes);
        let algorithm = r.take::<1>()?[0];
        let (velocity, acceleration, angular) =
            spatial_parts(algorithm).ok_or(RprError::UnknownAlgorithm(algorithm))?;
        r.take::<7>()?;
        let mut spatial = Spatial {
            algorithm,
            location: [r.f64()?, r.f64()?, r.f64()?],
            frozen: r.take::<1>()?[0] != 0,
            ..Spatial::default()
        };
        r.take::<3>()?;
        spatial.orientation = r.f32x3()?;
        if velocity {
            spatial.velocity = r.f32x3()?;
        }
        if acceleration {
            spatial.acceleration = r.f32x3()?;
        }
        if angular {
            spatial.angular_velocity = r.f32x3()?;
        }
        Ok(spatial)
    }

    /// Where the entity is `seconds` after this state, by its algorithm's linear part
    /// (IEEE 1278.1 Annex E: FPW/FPB p + v·t; FVW/FVB/RVW/RVB p + v·t + ½·a·t²; Static
    /// and frozen entities stay). Orientation is not rotated: the gateway re-sends
    /// orientation as last given.
    pub fn extrapolated(&self, seconds: f64) -> Spatial {
        let (velocity, acceleration, _) = spatial_parts(self.algorithm).unwrap_or_default();
        if self.frozen || !velocity {
            return *self;
        }
        let mut out = *self;
        for axis in 0..3 {
            let v = f64::from(self.velocity[axis]);
            let a = if acceleration {
                f64::from(self.acceleration[axis])
            } else {
                0.0
            };
            out.location[axis] += v * seconds + 0.5 * a * seconds * seconds;
            if acceleration {
                out.velocity[axis] = (v + a * seconds) as f32;
            }
        }
        out
    }
}

fn put_f32x3(out: &mut Vec<u8>, values: [f32; 3]) {
    values
        .iter()
        .for_each(|v| out.extend_from_slice(&v.to_be_bytes()));
}

/// `EntityTypeStruct`: the DIS record's octets (its 16-bit country code falls on its
/// 2-octet boundary).
pub fn encode_entity_type(t: EntityType) -> Vec<u8> {
    let c = t.country.to_be_bytes();
    vec![
        t.kind,
        t.domain,
        c[0],
        c[1],
        t.category,
        t.subcategory,
        t.specific,
        t.extra,
    ]
}

pub fn decode_entity_type(bytes: &[u8]) -> Result<EntityType, RprError> {
    let b = Cursor::new("EntityTypeStruct", bytes).take::<8>()?;
    Ok(EntityType {
        kind: b[0],
        domain: b[1],
        country: u16::from_be_bytes([b[2], b[3]]),
        category: b[4],
        subcategory: b[5],
        specific: b[6],
        extra: b[7],
    })
}

/// `EntityIdentifierStruct`: site, application, entity number, big-endian.
pub fn encode_entity_id(id: EntityId) -> Vec<u8> {
    [id.site, id.application, id.entity]
        .iter()
        .flat_map(|v| v.to_be_bytes())
        .collect()
}

pub fn decode_entity_id(bytes: &[u8]) -> Result<EntityId, RprError> {
    let b = Cursor::new("EntityIdentifierStruct", bytes).take::<6>()?;
    Ok(EntityId {
        site: u16::from_be_bytes([b[0], b[1]]),
        application: u16::from_be_bytes([b[2], b[3]]),
        entity: u16::from_be_bytes([b[4], b[5]]),
    })
}

/// `MarkingStruct`: the encoding octet and 11 octets, as in DIS.
pub fn encode_marking(marking: Marking) -> Vec<u8> {
    let mut out = vec![marking.character_set];
    out.extend_from_slice(&marking.text);
    out
}

pub fn decode_marking(bytes: &[u8]) -> Result<Marking, RprError> {
    let b = Cursor::new("MarkingStruct", bytes).take::<12>()?;
    let mut text = [0u8; 11];
    text.copy_from_slice(&b[1..]);
    Ok(Marking {
        character_set: b[0],
        text,
    })
}

/// `RTIobjectId`: ASCII characters and a terminating NUL (RPRnullTerminatedArray).
pub fn encode_object_id(name: &str) -> Vec<u8> {
    let mut out: Vec<u8> = name.bytes().filter(|&b| b != 0).collect();
    out.push(0);
    out
}

/// The name before the first NUL; bytes past it are ignored (liberal), a missing NUL is
/// an error.
pub fn decode_object_id(bytes: &[u8]) -> Result<String, RprError> {
    let end = bytes
        .iter()
        .position(|&b| b == 0)
        .ok_or(RprError::Unterminated)?;
    Ok(String::from_utf8_lossy(&bytes[..end]).into_owned())
}

/// `EventIdentifierStruct`: EventCount (16 bits) and the issuing object's RTIobjectId.
pub fn encode_event_id(count: u16, issuer: &str) -> Vec<u8> {
    let mut out = count.to_be_bytes().to_vec();
    out.extend(encode_object_id(issuer));
    out
}

pub fn decode_event_id(bytes: &[u8]) -> Result<(u16, String), RprError> {
    let b = Cursor::new("EventIdentifierStruct", bytes).take::<2>()?;
    Ok((u16::from_be_bytes(b), decode_object_id(&bytes[2..])?))
}

/// `WorldLocationStruct`: three 64-bit floats.
pub fn encode_location(location: [f64; 3]) -> Vec<u8> {
    location.iter().flat_map(|v| v.to_be_bytes()).collect()
}

pub fn decode_location(bytes: &[u8]) -> Result<[f64; 3], RprError> {
    let mut r = Cursor::new("WorldLocationStruct", bytes);
    Ok([r.f64()?, r.f64()?, r.f64()?])
}

/// `VelocityVectorStruct` and `RelativePositionStruct`: three 32-bit floats.
pub fn encode_f32x3(values: [f32; 3]) -> Vec<u8> {
    let mut out = Vec::with_capacity(12);
    put_f32x3(&mut out, values);
    out
}

pub fn decode_f32x3(what: &'static str, bytes: &[u8]) -> Result<[f32; 3], RprError> {
    Cursor::new(what, bytes).f32x3()
}

/// A 16-bit big-endian value (UnsignedInteger16, FuseTypeEnum16, WarheadTypeEnum16).
pub fn decode_u16(what: &'static str, bytes: &[u8]) -> Result<u16, RprError> {
    Ok(u16::from_be_bytes(Cursor::new(what, bytes).take()?))
}

/// A 32-bit big-endian value (UnsignedInteger32, DamageStatusEnum32).
pub fn decode_u32(what: &'static str, bytes: &[u8]) -> Result<u32, RprError> {
    Ok(u32::from_be_bytes(Cursor::new(what, bytes).take()?))
}

/// A 32-bit big-endian float (LengthMeterFloat32).
pub fn decode_f32(what: &'static str, bytes: &[u8]) -> Result<f32, RprError> {
    Ok(f32::from_be_bytes(Cursor::new(what, bytes).take()?))
}

/// An octet (RPRboolean, ForceIdentifierEnum8, DetonationResultCodeEnum8).
pub fn decode_u8(what: &'static str, bytes: &[u8]) -> Result<u8, RprError> {
    Ok(Cursor::new(what, bytes).take::<1>()?[0])
}

struct Cursor<'a> {
    what: &'static str,
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn new(what: &'static str, bytes: &'a [u8]) -> Cursor<'a> {
        Cursor { what, bytes, at: 0 }
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], RprError> {
        let slice = self
            .bytes
            .get(self.at..self.at + N)
            .ok_or(RprError::Truncated {
                what: self.what,
                needed: self.at + N,
                available: self.bytes.len(),
            })?;
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        self.at += N;
        Ok(out)
    }

    fn f64(&mut self) -> Result<f64, RprError> {
        Ok(f64::from_be_bytes(self.take()?))
    }

    fn f32x3(&mut self) -> Result<[f32; 3], RprError> {
        let mut next = || self.take().map(f32::from_be_bytes);
        Ok([next()?, next()?, next()?])
    }
}

/// The `BaseEntity.PhysicalEntity` subclass an entity type is registered as, by the
/// GRIM's table of entity kind and domain (SISO-STD-001-2015 §4.1).
pub fn class_for(entity_type: EntityType) -> &'static str {
    const PHYSICAL: &str = "HLAobjectRoot.BaseEntity.PhysicalEntity";
    match (entity_type.kind, entity_type.domain) {
        (1, 1) => "HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.GroundVehicle",
        (1, 2) => "HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.Aircraft",
        (1, 3) => "HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.SurfaceVessel",
        (1, 4) => "HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.SubmersibleVessel",
        (1, 5) => "HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.Spacecraft",
        (1, _) => "HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.MultiDomainPlatform",
        (2, _) => "HLAobjectRoot.BaseEntity.PhysicalEntity.Munition",
        (3, _) => "HLAobjectRoot.BaseEntity.PhysicalEntity.Lifeform.Human",
        (5, _) => "HLAobjectRoot.BaseEntity.PhysicalEntity.CulturalFeature",
        (6, _) => "HLAobjectRoot.BaseEntity.PhysicalEntity.Supplies",
        (7, _) => "HLAobjectRoot.BaseEntity.PhysicalEntity.Radio",
        (8, _) => "HLAobjectRoot.BaseEntity.PhysicalEntity.Expendables",
        (9, _) => "HLAobjectRoot.BaseEntity.PhysicalEntity.Sensor",
        _ => PHYSICAL,
    }
}

/// Every class [`class_for`] gives, for publishing.
pub const ENTITY_CLASSES: [&str; 14] = [
    "HLAobjectRoot.BaseEntity.PhysicalEntity",
    "HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.GroundVehicle",
    "HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.Aircraft",
    "HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.SurfaceVessel",
    "HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.SubmersibleVessel",
    "HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.Spacecraft",
    "HLAobjectRoot.BaseEntity.PhysicalEntity.Platform.MultiDomainPlatform",
    "HLAobjectRoot.BaseEntity.PhysicalEntity.Munition",
    "HLAobjectRoot.BaseEntity.PhysicalEntity.Lifeform.Human",
    "HLAobjectRoot.BaseEntity.PhysicalEntity.CulturalFeature",
    "HLAobjectRoot.BaseEntity.PhysicalEntity.Supplies",
    "HLAobjectRoot.BaseEntity.PhysicalEntity.Radio",
    "HLAobjectRoot.BaseEntity.PhysicalEntity.Expendables",
    "HLAobjectRoot.BaseEntity.PhysicalEntity.Sensor",
];

/// The appearance bits the gateway maps to `PhysicalEntity` attributes, as (attribute,
/// lowest bit, width) of the DIS general/platform appearance record (SISO-REF-010 UID
/// 31-43's common layout). Damage is 2 bits wide; the rest are booleans.
pub const APPEARANCE_FIELDS: [(&str, u32, u32); 8] = [
    ("Immobilized", 1, 1),
    ("FirePowerDisabled", 2, 1),
    ("DamageState", 3, 2),
    ("SmokePlumePresent", 5, 1),
    ("EngineSmokeOn", 6, 1),
    ("FlamesPresent", 15, 1),
    ("IsConcealed", 19, 1),
    ("PowerPlantOn", 22, 1),
];

/// Appearance bit 21: frozen (Spatial.IsFrozen).
pub const APPEARANCE_FROZEN: u32 = 1 << 21;
/// Appearance bit 23: deactivated (the entity has left the exercise).
pub const APPEARANCE_DEACTIVATED: u32 = 1 << 23;

/// The value of field (`low`, `width`) of `appearance`, HLA-encoded: DamageState is a
/// DamageStatusEnum32 (the same 0-3 values), the booleans are RPRboolean octets.
pub fn encode_appearance_field(appearance: u32, low: u32, width: u32) -> Vec<u8> {
    let value = (appearance >> low) & ((1 << width) - 1);
    if width == 2 {
        value.to_be_bytes().to_vec()
    } else {
        vec![u8::from(value != 0)]
    }
}

/// `appearance` with field (`low`, `width`) set from its HLA value.
pub fn apply_appearance_field(
    appearance: u32,
    low: u32,
    width: u32,
    bytes: &[u8],
) -> Result<u32, RprError> {
    let value = if width == 2 {
        decode_u32("DamageStatusEnum32", bytes)?.min(3)
    } else {
        u32::from(decode_u8("RPRboolean", bytes)? != 0)
    };
    let mask = ((1u32 << width) - 1) << low;
    Ok((appearance & !mask) | (value << low))
}
