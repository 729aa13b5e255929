//! What federates say to each other inside data frames: registrations, attribute updates,
//! interactions, deletions and update requests. Values stay slices of the received frame.
//!
//! ```text
//! kind: u8 (bit 7: sent in time-stamp order) | sender federate: u32 | class: u32 | time: u64 | [serial: u32] | tag: u16 len + bytes | body
//! register:  object: u64 | name
//! update:    object: u64 | name | region | values
//! interact:  region | values
//! delete:    object: u64
//! request:   object: u64 (0: every instance of the class) | count: u16 | handle: u32 *
//! ownership: see `ownership::wire`
//! name:      v (0: the id's default name, HLAobject_F_N; else length + 1) | bytes
//! region:    count: u8 | (dimension: v, lower: v, upper - lower: v)*
//! values:    count: v | (handle: v, len: v, value)*
//! ```
//!
//! `serial` is there only in a time-stamp-order message: the sender's serial number of it,
//! which with the sender's handle makes its message retraction handle
//! (`retraction::MessageRetractionHandle`; 0 when the sender issued none).
//!
//! `v` is an unsigned LEB128 varint. Every update carries its instance's name (a federate
//! may discover the instance by it) and usually a region of small numbers; with fixed-width
//! fields these were about a quarter of a small update's bytes, which every router and
//! socket on the way copies.

use super::ownership::wire::OwnershipBody;
use super::region::{Range, Region};
use crate::wire::reader::Reader;
use crate::wire::WireError;
use bytes::{Buf, BufMut, Bytes, BytesMut};

/// An object instance, network-wide: the registering federate's handle and its own number.
/// Registering needs no round trip to anyone.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub u64);

impl ObjectId {
    /// The id of the `local`-th instance registered by federate `federate` (its handle).
    pub fn new(federate: u32, local: u32) -> ObjectId {
        ObjectId((u64::from(federate) << 32) | u64::from(local))
    }

    /// The handle of the federate that registered the instance (the id's upper 32 bits).
    pub fn federate(self) -> u32 {
        (self.0 >> 32) as u32
    }

    /// The registering federate's own number for it (counting up from 1).
    pub fn number(self) -> u32 {
        self.0 as u32
    }
}

impl std::fmt::Display for ObjectId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0 >> 32, self.0 as u32)
    }
}

/// UTF-8 text of a received message, checked once and kept as a slice of the frame. An
/// update carries its instance's name for federates that discover the instance by it;
/// copying the name out of every update cost an allocation per reflect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Text(Bytes);

impl Text {
    /// The text; it was checked as UTF-8 when decoded.
    pub fn as_str(&self) -> &str {
        // Checked when made, so this never falls back.
        std::str::from_utf8(&self.0).unwrap_or_default()
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text(Bytes::copy_from_slice(text.as_bytes()))
    }
}

/// The body of a federate message, one variant per message kind (see the module's layout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    /// `name`: `None` for the id's default name.
    Register {
        /// The instance registered (HLA Register Object Instance).
        object: ObjectId,
        /// Its instance name, when not the default `HLAobject_F_N`.
        name: Option<Text>,
    },
    /// `name`: `None` for the id's default name.
    Update {
        /// The instance whose attributes are updated (HLA Update Attribute Values).
        object: ObjectId,
        /// Its instance name, when not the default, so a receiver may discover it by this message.
        name: Option<Text>,
        /// The update region (DDM) the values were sent with; `None` for no region.
        region: Option<Region>,
        /// Attribute handle and encoded value, one per attribute updated; slices of the frame.
        values: Vec<(u32, Bytes)>,
    },
    /// An interaction sent (HLA Send Interaction).
    Interaction {
        /// The region (DDM) the interaction was sent with; `None` for no region.
        region: Option<Region>,
        /// Parameter handle and encoded value, one per parameter; slices of the frame.
        values: Vec<(u32, Bytes)>,
    },
    /// An instance deleted (HLA Delete Object Instance).
    Delete {
        /// The instance deleted.
        object: ObjectId,
    },
    /// A request for current values (HLA Request Attribute Value Update).
    Request {
        /// The instance asked about; `None` for every instance of the message's class.
        object: Option<ObjectId>,
        /// The attribute handles whose values are asked for.
        attributes: Vec<u32>,
    },
    /// An ownership transfer step (divest, acquire, release...; see `ownership::wire`).
    Ownership(OwnershipBody),
}

/// One decoded federate message: the header's fields and its body, sharing the frame's buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    /// Handle of the sending federate in its federation.
    pub sender: u32,
    /// Object class (the instance's registered class) or interaction class.
    pub class: u32,
    /// The sender's time stamp (nanoseconds of its clock, or a logical time it chose).
    pub time: u64,
    /// Sent in time-stamp order: `time` is a logical time key (`LogicalTime::key`).
    pub time_stamped: bool,
    /// With `time_stamped`: the sender's serial number of the message, for retraction
    /// (`None` when it issued none). Never carried otherwise.
    pub serial: Option<u32>,
    /// The user-supplied tag of the service call, at most `MAX_TAG` bytes.
    pub tag: Bytes,
    /// What the message says.
    pub body: Body,
}

/// A message to encode, borrowing its parts: values straight from the caller's buffers.
#[derive(Clone, Copy, Debug)]
pub enum Outgoing<'a, V: AsRef<[u8]>> {
    /// `name`: `None` for the id's default name.
    Register {
        /// The instance registered.
        object: ObjectId,
        /// Its instance name, when not the default.
        name: Option<&'a str>,
    },
    /// `name`: `None` for the id's default name.
    Update {
        /// The instance updated.
        object: ObjectId,
        /// Its instance name, when not the default.
        name: Option<&'a str>,
        /// The update region (DDM); `None` for no region.
        region: Option<&'a Region>,
        /// Attribute handle and encoded value, one per attribute.
        values: &'a [(u32, V)],
    },
    /// An interaction to send.
    Interaction {
        /// The region (DDM); `None` for no region.
        region: Option<&'a Region>,
        /// Parameter handle and encoded value, one per parameter.
        values: &'a [(u32, V)],
    },
    /// An instance deleted.
    Delete {
        /// The instance deleted.
        object: ObjectId,
    },
    /// A request for current attribute values.
    Request {
        /// The instance asked about; `None` for every instance of the class.
        object: Option<ObjectId>,
        /// The attribute handles asked for.
        attributes: &'a [u32],
    },
    /// An ownership transfer step.
    Ownership(&'a OwnershipBody),
}

/// The header every message starts with.
#[derive(Clone, Copy, Debug)]
pub struct Header<'a> {
    /// Handle of the sending federate.
    pub sender: u32,
    /// Object class (the instance's registered class) or interaction class.
    pub class: u32,
    /// The sender's time stamp (see `Message::time`).
    pub time: u64,
    /// Sent in time-stamp order: `time` is a logical time key.
    pub time_stamped: bool,
    /// Written only with `time_stamped` (see `Message::serial`).
    pub serial: Option<u32>,
    /// The user-supplied tag; cut to `MAX_TAG` bytes when written.
    pub tag: &'a [u8],
}

/// The kind byte's flag for a message sent in time-stamp order.
const TIME_STAMPED: u8 = 0x80;

/// The sending federate's handle, read from a message's header without decoding the rest.
pub fn sender_of(payload: &[u8]) -> Option<u32> {
    let bytes = payload.get(1..5)?;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

/// The name field for an instance's default name; any other name is its length plus one.
const DEFAULT_NAME: usize = 0;

/// The most bytes a varint of a u32 or of a u64 takes.
const MAX_U32_VARINT: usize = 5;
const MAX_U64_VARINT: usize = 10;

#[inline]
fn put_varint(out: &mut BytesMut, mut value: u64) {
    while value >= 0x80 {
        out.put_u8(value as u8 | 0x80);
        value >>= 7;
    }
    out.put_u8(value as u8);
}

#[cfg(test)]
fn varint_len(value: u64) -> usize {
    (64 - (value | 1).leading_zeros() as usize).div_ceil(7)
}

fn max_name_len(name: Option<&str>) -> usize {
    MAX_U64_VARINT + name.map_or(0, str::len)
}

fn put_name(out: &mut BytesMut, name: Option<&str>) {
    match name {
        None => put_varint(out, DEFAULT_NAME as u64),
        Some(name) => {
            put_varint(out, name.len() as u64 + 1);
            out.put_slice(name.as_bytes());
        }
    }
}

/// The ranges a region is sent with: at most 255 (the count is a u8). The width is
/// `upper - lower`, wrapping, so any pair of bounds comes back exactly.
fn sent_ranges(region: &Region) -> impl Iterator<Item = (u64, u64, u64)> + '_ {
    (region.ranges().take(u8::MAX as usize))
        .map(|(d, r)| (u64::from(d), r.lower, r.upper.wrapping_sub(r.lower)))
}

fn max_region_len(region: Option<&Region>) -> usize {
    let range = MAX_U32_VARINT + 2 * MAX_U64_VARINT;
    1 + region.map_or(0, |r| sent_ranges(r).count() * range)
}

fn max_values_len<V: AsRef<[u8]>>(values: &[(u32, V)]) -> usize {
    let value = |(_, value): &(u32, V)| MAX_U32_VARINT + MAX_U64_VARINT + value.as_ref().len();
    MAX_U64_VARINT + values.iter().map(value).sum::<usize>()
}

fn put_region(out: &mut BytesMut, region: Option<&Region>) {
    match region {
        None => out.put_u8(0),
        Some(region) => {
            // Counted, then written: no list of the ranges is collected per message.
            out.put_u8(sent_ranges(region).count() as u8);
            for (dimension, lower, width) in sent_ranges(region) {
                put_varint(out, dimension);
                put_varint(out, lower);
                put_varint(out, width);
            }
        }
    }
}

fn put_values<V: AsRef<[u8]>>(out: &mut BytesMut, values: &[(u32, V)]) {
    put_varint(out, values.len() as u64);
    for (handle, value) in values {
        let value = value.as_ref();
        put_varint(out, u64::from(*handle));
        put_varint(out, value.len() as u64);
        out.put_slice(value);
    }
}

/// Most values in one message (the services refuse more: one update is one callback).
pub const MAX_VALUES: usize = u16::MAX as usize;
/// Longest tag carried (the length is a u16); longer ones are cut.
pub const MAX_TAG: usize = u16::MAX as usize;

/// Refuse a tag longer than [`MAX_TAG`]: every service that sends one checks it first, so
/// the cut in [`Outgoing::encode`] never changes a tag.
pub(super) fn check_tag(tag: &[u8]) -> Result<(), super::FederateError> {
    if tag.len() > MAX_TAG {
        return Err(super::FederateError::TagTooLong(tag.len()));
    }
    Ok(())
}

impl<V: AsRef<[u8]>> Outgoing<'_, V> {
    /// Bytes the encoding takes at most (varints counted at their widest): what to
    /// reserve, cheaply.
    pub fn max_encoded_len(&self, header: &Header<'_>) -> usize {
        1 + 4
            + 4
            + 8
            + if header.time_stamped { 4 } else { 0 }
            + 2
            + header.tag.len().min(MAX_TAG)
            + match self {
                Outgoing::Register { name, .. } => 8 + max_name_len(*name),
                Outgoing::Update {
                    name,
                    region,
                    values,
                    ..
                } => 8 + max_name_len(*name) + max_region_len(*region) + max_values_len(values),
                Outgoing::Interaction { region, values } => {
                    max_region_len(*region) + max_values_len(values)
                }
                Outgoing::Delete { .. } => 8,
                Outgoing::Request { attributes, .. } => 8 + 2 + 4 * attributes.len(),
                Outgoing::Ownership(body) => body.encoded_len(),
            }
    }

    /// Append the encoding to `out`. The caller keeps value counts within `MAX_VALUES`.
    pub fn encode(&self, header: &Header<'_>, out: &mut BytesMut) {
        out.reserve(self.max_encoded_len(header));
        let kind = match self {
            Outgoing::Register { .. } => 1,
            Outgoing::Update { .. } => 2,
            Outgoing::Interaction { .. } => 3,
            Outgoing::Delete { .. } => 4,
            Outgoing::Request { .. } => 5,
            Outgoing::Ownership(_) => 6,
        };
        out.put_u8(if header.time_stamped {
            kind | TIME_STAMPED
        } else {
            kind
        });
        out.put_u32_le(header.sender);
        out.put_u32_le(header.class);
        out.put_u64_le(header.time);
        if header.time_stamped {
            out.put_u32_le(header.serial.unwrap_or(0));
        }
        let tag = &header.tag[..header.tag.len().min(MAX_TAG)];
        out.put_u16_le(tag.len() as u16);
        out.put_slice(tag);
        match self {
            Outgoing::Register { object, name } => {
                out.put_u64_le(object.0);
                put_name(out, *name);
            }
            Outgoing::Update {
                object,
                name,
                region,
                values,
            } => {
                out.put_u64_le(object.0);
                put_name(out, *name);
                put_region(out, *region);
                put_values(out, values);
            }
            Outgoing::Interaction { region, values } => {
                put_region(out, *region);
                put_values(out, values);
            }
            Outgoing::Delete { object } => out.put_u64_le(object.0),
            Outgoing::Request { object, attributes } => {
                out.put_u64_le(object.map_or(0, |o| o.0));
                out.put_u16_le(attributes.len() as u16);
                for a in attributes.iter() {
                    out.put_u32_le(*a);
                }
            }
            Outgoing::Ownership(body) => body.encode(out),
        }
    }
}

impl Message {
    /// Decode a payload; values and the tag share its buffer.
    pub fn decode(payload: &Bytes) -> Result<Message, WireError> {
        Message::decode_at(payload, 0)
    }

    /// Decode the message that fills `bytes` from `start` on (a data frame's payload):
    /// values and the tag share the frame's buffer, with no handle on the payload alone
    /// made and dropped per message.
    pub fn decode_at(bytes: &Bytes, start: usize) -> Result<Message, WireError> {
        Message::decode_into(bytes.clone(), start, Vec::new())
    }

    /// [`Message::decode_at`], with an update's or interaction's values decoded into
    /// `spare` (emptied first): a list the application handed back, so receiving allocates
    /// nothing. `bytes` is taken whole: the last value keeps its handle on the buffer
    /// instead of a new one, so a one-value update costs no count on the buffer's shared
    /// reference count, which the receiving node's thread is counting on at the same time.
    pub fn decode_into(
        bytes: Bytes,
        start: usize,
        spare: Vec<(u32, Bytes)>,
    ) -> Result<Message, WireError> {
        // The reader runs to the end of `bytes`, so `slice` finds its offsets in `bytes`.
        let mut r = Reader::new(&bytes[start..], "federate message");
        let mut last_value = None;
        let kind = r.u8("kind")?;
        let time_stamped = kind & TIME_STAMPED != 0;
        let kind = kind & !TIME_STAMPED;
        let sender = r.u32("sender")?;
        let class = r.u32("class")?;
        let time = r.u64("time")?;
        let serial = match time_stamped {
            true => Some(r.u32("serial")?).filter(|s| *s != 0),
            false => None,
        };
        let tag_len = r.u16("tag length")? as usize;
        let tag = slice(&bytes, &mut r, tag_len, "tag")?;
        let mut body = match kind {
            1 => Body::Register {
                object: ObjectId(r.u64("object")?),
                name: name(&bytes, &mut r)?,
            },
            2 => Body::Update {
                object: ObjectId(r.u64("object")?),
                name: name(&bytes, &mut r)?,
                region: region(&mut r)?,
                values: values(&bytes, &mut r, spare, &mut last_value)?,
            },
            3 => Body::Interaction {
                region: region(&mut r)?,
                values: values(&bytes, &mut r, spare, &mut last_value)?,
            },
            4 => Body::Delete {
                object: ObjectId(r.u64("object")?),
            },
            5 => {
                let object = r.u64("object")?;
                let count = r.u16("attribute count")? as usize;
                let mut attributes = Vec::with_capacity(count.min(r.remaining() / 4));
                for _ in 0..count {
                    attributes.push(r.u32("attribute")?);
                }
                Body::Request {
                    object: (object != 0).then_some(ObjectId(object)),
                    attributes,
                }
            }
            6 => Body::Ownership(OwnershipBody::decode(&mut r)?),
            _ => return Err(r.malformed("unknown message kind")),
        };
        r.finish()?;
        if let (Some(range), Body::Update { values, .. } | Body::Interaction { values, .. }) =
            (last_value, &mut body)
        {
            if let Some((_, value)) = values.last_mut() {
                *value = narrowed(bytes, range);
            }
        }
        Ok(Message {
            sender,
            class,
            time,
            time_stamped,
            serial,
            tag,
            body,
        })
    }

    /// Encode an owned message (what tests and relays hold).
    pub fn encode(&self, out: &mut BytesMut) {
        let header = Header {
            sender: self.sender,
            class: self.class,
            time: self.time,
            time_stamped: self.time_stamped,
            serial: self.serial,
            tag: &self.tag,
        };
        let outgoing: Outgoing<'_, Bytes> = match &self.body {
            Body::Register { object, name } => Outgoing::Register {
                object: *object,
                name: name.as_ref().map(Text::as_str),
            },
            Body::Update {
                object,
                name,
                region,
                values,
            } => Outgoing::Update {
                object: *object,
                name: name.as_ref().map(Text::as_str),
                region: region.as_ref(),
                values,
            },
            Body::Interaction { region, values } => Outgoing::Interaction {
                region: region.as_ref(),
                values,
            },
            Body::Delete { object } => Outgoing::Delete { object: *object },
            Body::Request { object, attributes } => Outgoing::Request {
                object: *object,
                attributes,
            },
            Body::Ownership(body) => Outgoing::Ownership(body),
        };
        outgoing.encode(&header, out);
    }
}

/// Take `len` bytes as a slice of `bytes` (no copy), advancing the reader, which reads a
/// tail of `bytes`.
fn slice(
    bytes: &Bytes,
    r: &mut Reader<'_>,
    len: usize,
    what: &'static str,
) -> Result<Bytes, WireError> {
    Ok(bytes.slice(span(bytes, r, len, what)?))
}

/// Skip `len` bytes in the reader, which reads a tail of `bytes`; where they lie in `bytes`.
fn span(
    bytes: &Bytes,
    r: &mut Reader<'_>,
    len: usize,
    what: &'static str,
) -> Result<std::ops::Range<usize>, WireError> {
    let start = bytes.len() - r.remaining();
    r.bytes(len, what)?;
    Ok(start..start + len)
}

/// A length field, which must fit this machine's `usize` (`slice` then checks the bytes).
#[inline]
fn length(r: &mut Reader<'_>, what: &'static str) -> Result<usize, WireError> {
    usize::try_from(r.varint(what)?).map_err(|_| r.malformed(what))
}

/// An instance name, as a slice of `bytes`: `None` for the id's default name.
fn name(bytes: &Bytes, r: &mut Reader<'_>) -> Result<Option<Text>, WireError> {
    let len = length(r, "name length")?;
    if len == DEFAULT_NAME {
        return Ok(None);
    }
    let raw = slice(bytes, r, len - 1, "name")?;
    match std::str::from_utf8(&raw) {
        Ok(_) => Ok(Some(Text(raw))),
        Err(_) => Err(r.malformed("name is not UTF-8")),
    }
}

fn region(r: &mut Reader<'_>) -> Result<Option<Region>, WireError> {
    let count = r.u8("region dimensions")?;
    if count == 0 {
        return Ok(None);
    }
    let mut region = Region::new();
    for _ in 0..count {
        let dimension = r.varint_u32("dimension")?;
        let lower = r.varint("range lower")?;
        let width = r.varint("range width")?;
        region.set(dimension, Range::new(lower, lower.wrapping_add(width)));
    }
    Ok(Some(region))
}

/// The values, each a slice of `bytes`, but the last: its place is left empty, and its
/// range in `bytes` put in `last`, for the caller to fill with `bytes` itself (`narrowed`)
/// once the reader is done with it.
fn values(
    bytes: &Bytes,
    r: &mut Reader<'_>,
    mut values: Vec<(u32, Bytes)>,
    last: &mut Option<std::ops::Range<usize>>,
) -> Result<Vec<(u32, Bytes)>, WireError> {
    let count = length(r, "value count")?;
    values.clear();
    // Each value takes at least 2 bytes, so a lying count cannot reserve memory.
    values.reserve(count.min(r.remaining() / 2));
    for i in 0..count {
        let handle = r.varint_u32("handle")?;
        let len = length(r, "value length")?;
        if i + 1 < count {
            values.push((handle, slice(bytes, r, len, "value")?));
        } else {
            *last = Some(span(bytes, r, len, "value")?);
            values.push((handle, Bytes::new()));
        }
    }
    Ok(values)
}

/// `bytes` cut down to `range`, keeping its handle on the buffer (no new count on it);
/// an empty range holds no buffer, as `Bytes::slice` gives.
fn narrowed(mut bytes: Bytes, range: std::ops::Range<usize>) -> Bytes {
    if range.is_empty() {
        return Bytes::new();
    }
    bytes.truncate(range.end);
    bytes.advance(range.start);
    bytes
}

#[cfg(test)]
mod tests;
