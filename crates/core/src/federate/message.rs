//! What federates say to each other inside data frames: registrations, attribute updates,
//! interactions, deletions and update requests. Values stay slices of the received frame.
//!
//! ```text
//! kind: u8 (bit 7: sent in time-stamp order) | sender federate: u32 | class: u32 | time: u64 | tag: u16 len + bytes | body
//! register:  object: u64 | name
//! update:    object: u64 | name | region | count: u16 | (handle: u32, len: u32, value)*
//! interact:  region | count: u16 | (handle: u32, len: u32, value)*
//! delete:    object: u64
//! request:   object: u64 (0: every instance of the class) | count: u16 | handle: u32 *
//! ownership: see `ownership::wire`
//! region:    count: u8 | (dimension: u32, lower: u64, upper: u64)*
//! ```

use super::ownership::wire::OwnershipBody;
use super::region::{Range, Region};
use crate::wire::reader::Reader;
use crate::wire::WireError;
use bytes::{BufMut, Bytes, BytesMut};

/// An object instance, network-wide: the registering federate's handle and its own number.
/// Registering needs no round trip to anyone.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId(pub u64);

impl ObjectId {
    pub fn new(federate: u32, local: u32) -> ObjectId {
        ObjectId((u64::from(federate) << 32) | u64::from(local))
    }

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

impl From<Text> for String {
    fn from(text: Text) -> String {
        text.as_str().to_owned()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body {
    Register {
        object: ObjectId,
        name: String,
    },
    Update {
        object: ObjectId,
        name: Text,
        region: Option<Region>,
        values: Vec<(u32, Bytes)>,
    },
    Interaction {
        region: Option<Region>,
        values: Vec<(u32, Bytes)>,
    },
    Delete {
        object: ObjectId,
    },
    Request {
        object: Option<ObjectId>,
        attributes: Vec<u32>,
    },
    Ownership(OwnershipBody),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Message {
    pub sender: u32,
    /// Object class (the instance's registered class) or interaction class.
    pub class: u32,
    /// The sender's time stamp (nanoseconds of its clock, or a logical time it chose).
    pub time: u64,
    /// Sent in time-stamp order: `time` is a logical time key (`LogicalTime::key`).
    pub time_stamped: bool,
    pub tag: Bytes,
    pub body: Body,
}

/// A message to encode, borrowing its parts: values straight from the caller's buffers.
#[derive(Clone, Copy, Debug)]
pub enum Outgoing<'a, V: AsRef<[u8]>> {
    Register {
        object: ObjectId,
        name: &'a str,
    },
    Update {
        object: ObjectId,
        name: &'a str,
        region: Option<&'a Region>,
        values: &'a [(u32, V)],
    },
    Interaction {
        region: Option<&'a Region>,
        values: &'a [(u32, V)],
    },
    Delete {
        object: ObjectId,
    },
    Request {
        object: Option<ObjectId>,
        attributes: &'a [u32],
    },
    Ownership(&'a OwnershipBody),
}

/// The header every message starts with.
#[derive(Clone, Copy, Debug)]
pub struct Header<'a> {
    pub sender: u32,
    pub class: u32,
    pub time: u64,
    pub time_stamped: bool,
    pub tag: &'a [u8],
}

/// The kind byte's flag for a message sent in time-stamp order.
const TIME_STAMPED: u8 = 0x80;

/// The sending federate's handle, read from a message's header without decoding the rest.
pub fn sender_of(payload: &[u8]) -> Option<u32> {
    let bytes = payload.get(1..5)?;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

fn region_len(region: Option<&Region>) -> usize {
    1 + region.map_or(0, |r| r.ranges().count().min(u8::MAX as usize) * 20)
}

fn values_len<V: AsRef<[u8]>>(values: &[(u32, V)]) -> usize {
    2 + values
        .iter()
        .map(|(_, v)| 8 + v.as_ref().len())
        .sum::<usize>()
}

fn put_region(out: &mut BytesMut, region: Option<&Region>) {
    match region {
        None => out.put_u8(0),
        Some(region) => {
            // Counted, then written: no list of the ranges is collected per message.
            let ranges = || region.ranges().take(u8::MAX as usize);
            out.put_u8(ranges().count() as u8);
            for (dimension, range) in ranges() {
                out.put_u32_le(dimension);
                out.put_u64_le(range.lower);
                out.put_u64_le(range.upper);
            }
        }
    }
}

fn put_values<V: AsRef<[u8]>>(out: &mut BytesMut, values: &[(u32, V)]) {
    out.put_u16_le(values.len() as u16);
    for (handle, value) in values {
        let value = value.as_ref();
        out.put_u32_le(*handle);
        out.put_u32_le(value.len() as u32);
        out.put_slice(value);
    }
}

fn put_text(out: &mut BytesMut, text: &str) {
    let text = crate::wire::control_clip(text, u16::MAX as usize);
    out.put_u16_le(text.len() as u16);
    out.put_slice(text.as_bytes());
}

/// Most values in one message (the count is a u16).
pub const MAX_VALUES: usize = u16::MAX as usize;
/// Longest tag carried (the length is a u16); longer ones are cut.
pub const MAX_TAG: usize = u16::MAX as usize;

impl<V: AsRef<[u8]>> Outgoing<'_, V> {
    /// Bytes the encoding takes.
    pub fn encoded_len(&self, header: &Header<'_>) -> usize {
        1 + 4
            + 4
            + 8
            + 2
            + header.tag.len().min(MAX_TAG)
            + match self {
                Outgoing::Register { name, .. } => 8 + 2 + name.len(),
                Outgoing::Update {
                    name,
                    region,
                    values,
                    ..
                } => 8 + 2 + name.len() + region_len(*region) + values_len(values),
                Outgoing::Interaction { region, values } => {
                    region_len(*region) + values_len(values)
                }
                Outgoing::Delete { .. } => 8,
                Outgoing::Request { attributes, .. } => 8 + 2 + 4 * attributes.len(),
                Outgoing::Ownership(body) => body.encoded_len(),
            }
    }

    /// Append the encoding to `out`. The caller keeps value counts within `MAX_VALUES`.
    pub fn encode(&self, header: &Header<'_>, out: &mut BytesMut) {
        out.reserve(self.encoded_len(header));
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
        let tag = &header.tag[..header.tag.len().min(MAX_TAG)];
        out.put_u16_le(tag.len() as u16);
        out.put_slice(tag);
        match self {
            Outgoing::Register { object, name } => {
                out.put_u64_le(object.0);
                put_text(out, name);
            }
            Outgoing::Update {
                object,
                name,
                region,
                values,
            } => {
                out.put_u64_le(object.0);
                put_text(out, name);
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
        // The reader runs to the end of `bytes`, so `slice` finds its offsets in `bytes`.
        let mut r = Reader::new(&bytes[start..], "federate message");
        let kind = r.u8("kind")?;
        let time_stamped = kind & TIME_STAMPED != 0;
        let kind = kind & !TIME_STAMPED;
        let sender = r.u32("sender")?;
        let class = r.u32("class")?;
        let time = r.u64("time")?;
        let tag_len = r.u16("tag length")? as usize;
        let tag = slice(bytes, &mut r, tag_len, "tag")?;
        let body = match kind {
            1 => Body::Register {
                object: ObjectId(r.u64("object")?),
                name: r.long_str("name")?,
            },
            2 => Body::Update {
                object: ObjectId(r.u64("object")?),
                name: text(bytes, &mut r, "name")?,
                region: region(&mut r)?,
                values: values(bytes, &mut r)?,
            },
            3 => Body::Interaction {
                region: region(&mut r)?,
                values: values(bytes, &mut r)?,
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
        Ok(Message {
            sender,
            class,
            time,
            time_stamped,
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
            tag: &self.tag,
        };
        let outgoing: Outgoing<'_, Bytes> = match &self.body {
            Body::Register { object, name } => Outgoing::Register {
                object: *object,
                name,
            },
            Body::Update {
                object,
                name,
                region,
                values,
            } => Outgoing::Update {
                object: *object,
                name: name.as_str(),
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
    let start = bytes.len() - r.remaining();
    r.bytes(len, what)?;
    Ok(bytes.slice(start..start + len))
}

/// Text with a 16-bit length, as a slice of `bytes`.
fn text(bytes: &Bytes, r: &mut Reader<'_>, what: &'static str) -> Result<Text, WireError> {
    let len = r.u16(what)? as usize;
    let raw = slice(bytes, r, len, what)?;
    match std::str::from_utf8(&raw) {
        Ok(_) => Ok(Text(raw)),
        Err(_) => Err(r.malformed("text field is not UTF-8")),
    }
}

fn region(r: &mut Reader<'_>) -> Result<Option<Region>, WireError> {
    let count = r.u8("region dimensions")?;
    if count == 0 {
        return Ok(None);
    }
    let mut region = Region::new();
    for _ in 0..count {
        let dimension = r.u32("dimension")?;
        let lower = r.u64("range lower")?;
        let upper = r.u64("range upper")?;
        region.set(dimension, Range::new(lower, upper));
    }
    Ok(Some(region))
}

fn values(bytes: &Bytes, r: &mut Reader<'_>) -> Result<Vec<(u32, Bytes)>, WireError> {
    let count = r.u16("value count")? as usize;
    // Each value takes at least 8 bytes, so a lying count cannot reserve memory.
    let mut values = Vec::with_capacity(count.min(r.remaining() / 8));
    for _ in 0..count {
        let handle = r.u32("handle")?;
        let len = r.u32("value length")? as usize;
        values.push((handle, slice(bytes, r, len, "value")?));
    }
    Ok(values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_round_trip_sharing_the_payload() {
        let messages = vec![
            Message {
                sender: 3,
                class: 7,
                time: 99,
                time_stamped: true,
                tag: Bytes::from_static(b"tag"),
                body: Body::Update {
                    object: ObjectId::new(3, 1),
                    name: "Tank-1".into(),
                    region: Some(Region::new().with(1, Range::new(5, 10))),
                    values: vec![(1, Bytes::from_static(b"pos")), (2, Bytes::new())],
                },
            },
            Message {
                sender: 1,
                class: 2,
                time: 0,
                time_stamped: false,
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

    #[test]
    fn truncated_and_lying_messages_are_errors() {
        let mut out = BytesMut::new();
        Message {
            sender: 1,
            class: 1,
            time: 1,
            time_stamped: false,
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
}
