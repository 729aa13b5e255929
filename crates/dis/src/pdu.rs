//! The four DIS PDUs the gateway exchanges, to and from their IEEE 1278.1 wire form:
//! Entity State (1), Fire (2), Detonation (3) and Remove Entity (12).
//!
//! Protocol version 7 (IEEE 1278.1-2012) is written; 7 and 6 (IEEE 1278.1a-1998) are read.
//! The layouts of these four PDUs are the same in both versions: version 7 renamed fields
//! (munition ID to munition/expendable or exploding entity ID, burst to munition descriptor,
//! articulation to variable parameters) and gave the header's padding octet 10 to the PDU
//! status. Every field is big-endian.
//!
//! Decoding reads bytes from the network: every length is checked against the bytes there,
//! and nothing panics.

use thiserror::Error;

/// The length of the PDU header.
pub const HEADER_LEN: usize = 12;
/// An Entity State PDU without variable parameters.
pub const ENTITY_STATE_LEN: usize = 144;
/// A Fire PDU.
pub const FIRE_LEN: usize = 96;
/// A Detonation PDU without variable parameters.
pub const DETONATION_LEN: usize = 104;
/// A Remove Entity PDU.
pub const REMOVE_ENTITY_LEN: usize = 28;
/// One variable (articulation) parameter record.
pub const VARIABLE_PARAMETER_LEN: usize = 16;

/// The PDU types (SISO-REF-010 UID 4) handled here.
pub mod pdu_type {
    pub const ENTITY_STATE: u8 = 1;
    pub const FIRE: u8 = 2;
    pub const DETONATION: u8 = 3;
    pub const REMOVE_ENTITY: u8 = 12;
}

/// Protocol families (UID 5).
mod family {
    pub const ENTITY_INFORMATION: u8 = 1;
    pub const WARFARE: u8 = 2;
    pub const SIMULATION_MANAGEMENT: u8 = 5;
}

/// Why bytes are not a PDU the gateway can read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PduError {
    #[error("at offset {at}: needs {needed} bytes, has {available}")]
    Truncated {
        at: usize,
        needed: usize,
        available: usize,
    },
    #[error("protocol version {0} (7 and 6 are read)")]
    UnsupportedVersion(u8),
    #[error("PDU type {0} is not one the gateway exchanges")]
    UnsupportedType(u8),
    #[error("length field {length} is shorter than the {minimum} bytes of PDU type {pdu_type}")]
    TooShort {
        pdu_type: u8,
        length: usize,
        minimum: usize,
    },
    #[error("length field {length} is larger than the {available} bytes received")]
    LongerThanDatagram { length: usize, available: usize },
    #[error("{count} variable parameters need {needed} bytes, the PDU has {available}")]
    ParameterCount {
        count: usize,
        needed: usize,
        available: usize,
    },
}

impl PduError {
    /// Not an error in the PDU: a type or version the gateway leaves to others.
    pub fn is_unsupported(&self) -> bool {
        matches!(
            self,
            PduError::UnsupportedType(_) | PduError::UnsupportedVersion(_)
        )
    }
}

/// The Entity Identifier record (site, application, entity).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntityId {
    pub site: u16,
    pub application: u16,
    pub entity: u16,
}

impl std::fmt::Display for EntityId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.site, self.application, self.entity)
    }
}

/// The Event Identifier record: (site, application, event number).
pub type EventId = EntityId;

/// The Entity Type record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct EntityType {
    pub kind: u8,
    pub domain: u8,
    pub country: u16,
    pub category: u8,
    pub subcategory: u8,
    pub specific: u8,
    pub extra: u8,
}

/// The PDU header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Header {
    pub version: u8,
    pub exercise: u8,
    pub pdu_type: u8,
    pub family: u8,
    pub timestamp: u32,
    /// The length field as read (written as the encoded length).
    pub length: u16,
    /// Version 7's PDU status octet; padding in version 6.
    pub status: u8,
}

/// The Dead Reckoning Parameters record.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DeadReckoning {
    pub algorithm: u8,
    pub other: [u8; 15],
    pub acceleration: [f32; 3],
    pub angular_velocity: [f32; 3],
}

/// The Entity Marking record: a character set and 11 octets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Marking {
    pub character_set: u8,
    pub text: [u8; 11],
}

impl Marking {
    /// ASCII marking (character set 1), cut at 11 octets.
    pub fn ascii(text: &str) -> Marking {
        let mut octets = [0u8; 11];
        for (slot, byte) in octets.iter_mut().zip(text.bytes()) {
            *slot = byte;
        }
        Marking {
            character_set: 1,
            text: octets,
        }
    }
}

/// The Entity State PDU.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EntityState {
    pub id: EntityId,
    pub force: u8,
    pub entity_type: EntityType,
    pub alternative_type: EntityType,
    pub velocity: [f32; 3],
    pub location: [f64; 3],
    /// psi, theta, phi in radians.
    pub orientation: [f32; 3],
    pub appearance: u32,
    pub dead_reckoning: DeadReckoning,
    pub marking: Marking,
    pub capabilities: u32,
    /// Variable (articulation) parameter records, kept as their 16 octets.
    pub variable_parameters: Vec<[u8; VARIABLE_PARAMETER_LEN]>,
}

/// The Burst Descriptor (version 6) or Munition Descriptor (version 7) record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Burst {
    pub munition: EntityType,
    pub warhead: u16,
    pub fuse: u16,
    pub quantity: u16,
    pub rate: u16,
}

/// The Fire PDU.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fire {
    pub firing: EntityId,
    pub target: EntityId,
    pub munition: EntityId,
    pub event: EventId,
    pub fire_mission_index: u32,
    pub location: [f64; 3],
    pub burst: Burst,
    pub velocity: [f32; 3],
    pub range: f32,
}

/// The Detonation PDU.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Detonation {
    pub firing: EntityId,
    pub target: EntityId,
    /// Munition ID (version 6) or exploding entity ID (version 7).
    pub munition: EntityId,
    pub event: EventId,
    pub velocity: [f32; 3],
    pub location: [f64; 3],
    pub burst: Burst,
    pub location_in_entity: [f32; 3],
    pub result: u8,
    pub variable_parameters: Vec<[u8; VARIABLE_PARAMETER_LEN]>,
}

/// The Remove Entity PDU.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RemoveEntity {
    pub originating: EntityId,
    pub receiving: EntityId,
    pub request_id: u32,
}

/// A PDU's body.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    EntityState(EntityState),
    Fire(Fire),
    Detonation(Detonation),
    RemoveEntity(RemoveEntity),
}

impl Body {
    fn pdu_type(&self) -> u8 {
        match self {
            Body::EntityState(_) => pdu_type::ENTITY_STATE,
            Body::Fire(_) => pdu_type::FIRE,
            Body::Detonation(_) => pdu_type::DETONATION,
            Body::RemoveEntity(_) => pdu_type::REMOVE_ENTITY,
        }
    }

    fn family(&self) -> u8 {
        match self {
            Body::EntityState(_) => family::ENTITY_INFORMATION,
            Body::Fire(_) | Body::Detonation(_) => family::WARFARE,
            Body::RemoveEntity(_) => family::SIMULATION_MANAGEMENT,
        }
    }
}

/// One PDU.
#[derive(Clone, Debug, PartialEq)]
pub struct Pdu {
    pub header: Header,
    pub body: Body,
}

impl Pdu {
    /// A version 7 PDU of `body` for `exercise` at `timestamp`.
    pub fn new(exercise: u8, timestamp: u32, body: Body) -> Pdu {
        Pdu {
            header: Header {
                version: 7,
                exercise,
                pdu_type: body.pdu_type(),
                family: body.family(),
                timestamp,
                length: 0,
                status: 0,
            },
            body,
        }
    }

    /// The wire form, appended to `out`; the header's type, family and length are taken
    /// from the body.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let start = out.len();
        let mut w = Writer(out);
        w.u8(self.header.version);
        w.u8(self.header.exercise);
        w.u8(self.body.pdu_type());
        w.u8(self.body.family());
        w.u32(self.header.timestamp);
        w.u16(0); // the length, filled in below
        w.u8(if self.header.version >= 7 {
            self.header.status
        } else {
            0
        });
        w.u8(0);
        match &self.body {
            Body::EntityState(es) => write_entity_state(&mut w, es),
            Body::Fire(fire) => write_fire(&mut w, fire),
            Body::Detonation(det) => write_detonation(&mut w, det),
            Body::RemoveEntity(remove) => {
                w.entity_id(remove.originating);
                w.entity_id(remove.receiving);
                w.u32(remove.request_id);
            }
        }
        // A PDU longer than 65,535 bytes cannot be built from these bodies: at most 255
        // variable parameters of 16 bytes.
        let length = u16::try_from(out.len() - start).unwrap_or(u16::MAX);
        out[start + 8..start + 10].copy_from_slice(&length.to_be_bytes());
    }

    /// The wire form as a new buffer.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(ENTITY_STATE_LEN);
        self.encode(&mut out);
        out
    }
}

/// Every PDU of a datagram: DIS lets a sender concatenate several, each with its length.
/// A length field of 0 (written by some implementations) takes the rest of the datagram.
/// Reading stops at the first PDU that does not parse, since its length cannot be trusted.
pub fn decode_datagram(bytes: &[u8]) -> Vec<Result<Pdu, PduError>> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        match decode_one(rest) {
            Ok((pdu, used)) => {
                out.push(Ok(pdu));
                rest = &rest[used.min(rest.len())..];
            }
            Err(e) => {
                out.push(Err(e));
                break;
            }
        }
    }
    out
}

/// The first PDU of `bytes` and the bytes it took.
pub fn decode_one(bytes: &[u8]) -> Result<(Pdu, usize), PduError> {
    let mut r = Reader::new(bytes);
    let header = Header {
        version: r.u8()?,
        exercise: r.u8()?,
        pdu_type: r.u8()?,
        family: r.u8()?,
        timestamp: r.u32()?,
        length: r.u16()?,
        status: r.u8()?,
    };
    r.u8()?;
    if header.version != 6 && header.version != 7 {
        return Err(PduError::UnsupportedVersion(header.version));
    }
    let minimum = match header.pdu_type {
        pdu_type::ENTITY_STATE => ENTITY_STATE_LEN,
        pdu_type::FIRE => FIRE_LEN,
        pdu_type::DETONATION => DETONATION_LEN,
        pdu_type::REMOVE_ENTITY => REMOVE_ENTITY_LEN,
        other => return Err(PduError::UnsupportedType(other)),
    };
    let length = match usize::from(header.length) {
        0 => bytes.len(),
        length => length,
    };
    if length > bytes.len() {
        return Err(PduError::LongerThanDatagram {
            length,
            available: bytes.len(),
        });
    }
    if length < minimum {
        return Err(PduError::TooShort {
            pdu_type: header.pdu_type,
            length,
            minimum,
        });
    }
    let mut r = Reader {
        bytes: &bytes[..length],
        at: HEADER_LEN,
    };
    let body = match header.pdu_type {
        pdu_type::ENTITY_STATE => Body::EntityState(read_entity_state(&mut r)?),
        pdu_type::FIRE => Body::Fire(read_fire(&mut r)?),
        pdu_type::DETONATION => Body::Detonation(read_detonation(&mut r)?),
        _ => Body::RemoveEntity(RemoveEntity {
            originating: r.entity_id()?,
            receiving: r.entity_id()?,
            request_id: r.u32()?,
        }),
    };
    Ok((Pdu { header, body }, length))
}

fn read_entity_state(r: &mut Reader<'_>) -> Result<EntityState, PduError> {
    let id = r.entity_id()?;
    let force = r.u8()?;
    let parameter_count = usize::from(r.u8()?);
    let mut es = EntityState {
        id,
        force,
        entity_type: r.entity_type()?,
        alternative_type: r.entity_type()?,
        velocity: r.f32x3()?,
        location: r.f64x3()?,
        orientation: r.f32x3()?,
        appearance: r.u32()?,
        dead_reckoning: DeadReckoning {
            algorithm: r.u8()?,
            other: r.array()?,
            acceleration: r.f32x3()?,
            angular_velocity: r.f32x3()?,
        },
        marking: Marking {
            character_set: r.u8()?,
            text: r.array()?,
        },
        capabilities: r.u32()?,
        variable_parameters: Vec::new(),
    };
    es.variable_parameters = r.variable_parameters(parameter_count)?;
    Ok(es)
}

fn write_entity_state(w: &mut Writer<'_>, es: &EntityState) {
    w.entity_id(es.id);
    w.u8(es.force);
    w.u8(u8::try_from(es.variable_parameters.len()).unwrap_or(u8::MAX));
    w.entity_type(es.entity_type);
    w.entity_type(es.alternative_type);
    w.f32x3(es.velocity);
    w.f64x3(es.location);
    w.f32x3(es.orientation);
    w.u32(es.appearance);
    let dr = &es.dead_reckoning;
    w.u8(dr.algorithm);
    w.0.extend_from_slice(&dr.other);
    w.f32x3(dr.acceleration);
    w.f32x3(dr.angular_velocity);
    w.u8(es.marking.character_set);
    w.0.extend_from_slice(&es.marking.text);
    w.u32(es.capabilities);
    for parameter in es.variable_parameters.iter().take(usize::from(u8::MAX)) {
        w.0.extend_from_slice(parameter);
    }
}

fn read_fire(r: &mut Reader<'_>) -> Result<Fire, PduError> {
    Ok(Fire {
        firing: r.entity_id()?,
        target: r.entity_id()?,
        munition: r.entity_id()?,
        event: r.entity_id()?,
        fire_mission_index: r.u32()?,
        location: r.f64x3()?,
        burst: r.burst()?,
        velocity: r.f32x3()?,
        range: r.f32()?,
    })
}

fn write_fire(w: &mut Writer<'_>, fire: &Fire) {
    w.entity_id(fire.firing);
    w.entity_id(fire.target);
    w.entity_id(fire.munition);
    w.entity_id(fire.event);
    w.u32(fire.fire_mission_index);
    w.f64x3(fire.location);
    w.burst(fire.burst);
    w.f32x3(fire.velocity);
    w.f32(fire.range);
}

fn read_detonation(r: &mut Reader<'_>) -> Result<Detonation, PduError> {
    let mut det = Detonation {
        firing: r.entity_id()?,
        target: r.entity_id()?,
        munition: r.entity_id()?,
        event: r.entity_id()?,
        velocity: r.f32x3()?,
        location: r.f64x3()?,
        burst: r.burst()?,
        location_in_entity: r.f32x3()?,
        result: r.u8()?,
        variable_parameters: Vec::new(),
    };
    let count = usize::from(r.u8()?);
    r.u16()?;
    det.variable_parameters = r.variable_parameters(count)?;
    Ok(det)
}

fn write_detonation(w: &mut Writer<'_>, det: &Detonation) {
    w.entity_id(det.firing);
    w.entity_id(det.target);
    w.entity_id(det.munition);
    w.entity_id(det.event);
    w.f32x3(det.velocity);
    w.f64x3(det.location);
    w.burst(det.burst);
    w.f32x3(det.location_in_entity);
    w.u8(det.result);
    w.u8(u8::try_from(det.variable_parameters.len()).unwrap_or(u8::MAX));
    w.u16(0);
    for parameter in det.variable_parameters.iter().take(usize::from(u8::MAX)) {
        w.0.extend_from_slice(parameter);
    }
}

/// Reads big-endian fields with every length checked.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, at: 0 }
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], PduError> {
        let available = self.bytes.len().saturating_sub(self.at);
        let slice = self
            .bytes
            .get(self.at..self.at + N)
            .ok_or(PduError::Truncated {
                at: self.at,
                needed: N,
                available,
            })?;
        let mut out = [0u8; N];
        out.copy_from_slice(slice);
        self.at += N;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], PduError> {
        self.take::<N>()
    }

    fn u8(&mut self) -> Result<u8, PduError> {
        Ok(self.take::<1>()?[0])
    }

    fn u16(&mut self) -> Result<u16, PduError> {
        Ok(u16::from_be_bytes(self.take()?))
    }

    fn u32(&mut self) -> Result<u32, PduError> {
        Ok(u32::from_be_bytes(self.take()?))
    }

    fn f32(&mut self) -> Result<f32, PduError> {
        Ok(f32::from_be_bytes(self.take()?))
    }

    fn f32x3(&mut self) -> Result<[f32; 3], PduError> {
        Ok([self.f32()?, self.f32()?, self.f32()?])
    }

    fn f64x3(&mut self) -> Result<[f64; 3], PduError> {
        let mut next = || self.take().map(f64::from_be_bytes);
        Ok([next()?, next()?, next()?])
    }

    fn entity_id(&mut self) -> Result<EntityId, PduError> {
        Ok(EntityId {
            site: self.u16()?,
            application: self.u16()?,
            entity: self.u16()?,
        })
    }

    fn entity_type(&mut self) -> Result<EntityType, PduError> {
        Ok(EntityType {
            kind: self.u8()?,
            domain: self.u8()?,
            country: self.u16()?,
            category: self.u8()?,
            subcategory: self.u8()?,
            specific: self.u8()?,
            extra: self.u8()?,
        })
    }

    fn burst(&mut self) -> Result<Burst, PduError> {
        Ok(Burst {
            munition: self.entity_type()?,
            warhead: self.u16()?,
            fuse: self.u16()?,
            quantity: self.u16()?,
            rate: self.u16()?,
        })
    }

    fn variable_parameters(
        &mut self,
        count: usize,
    ) -> Result<Vec<[u8; VARIABLE_PARAMETER_LEN]>, PduError> {
        let available = self.bytes.len().saturating_sub(self.at);
        let needed = count * VARIABLE_PARAMETER_LEN;
        if needed > available {
            return Err(PduError::ParameterCount {
                count,
                needed,
                available,
            });
        }
        (0..count).map(|_| self.take()).collect()
    }
}

/// Appends big-endian fields.
struct Writer<'a>(&'a mut Vec<u8>);

impl Writer<'_> {
    fn u8(&mut self, value: u8) {
        self.0.push(value);
    }

    fn u16(&mut self, value: u16) {
        self.0.extend_from_slice(&value.to_be_bytes());
    }

    fn u32(&mut self, value: u32) {
        self.0.extend_from_slice(&value.to_be_bytes());
    }

    fn f32(&mut self, value: f32) {
        self.0.extend_from_slice(&value.to_be_bytes());
    }

    fn f32x3(&mut self, values: [f32; 3]) {
        values.into_iter().for_each(|v| self.f32(v));
    }

    fn f64x3(&mut self, values: [f64; 3]) {
        for v in values {
            self.0.extend_from_slice(&v.to_be_bytes());
        }
    }

    fn entity_id(&mut self, id: EntityId) {
        self.u16(id.site);
        self.u16(id.application);
        self.u16(id.entity);
    }

    fn entity_type(&mut self, t: EntityType) {
        self.u8(t.kind);
        self.u8(t.domain);
        self.u16(t.country);
        self.u8(t.category);
        self.u8(t.subcategory);
        self.u8(t.specific);
        self.u8(t.extra);
    }

    fn burst(&mut self, b: Burst) {
        self.entity_type(b.munition);
        self.u16(b.warhead);
        self.u16(b.fuse);
        self.u16(b.quantity);
        self.u16(b.rate);
    }
}

#[cfg(test)]
mod tests;
