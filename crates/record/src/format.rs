//! The recording file's bytes: header, chunks, index blocks, trailer, and the records inside
//! a chunk. Sans-IO: encoding into and decoding from byte slices; `writer` and `reader` do
//! the file work. The layout is written down in docs/recorder.md.

use crate::RecordError;
use trellis_core::federate::TimeRepresentation;

/// The first 8 bytes of every recording.
pub const FILE_MAGIC: &[u8; 8] = b"TRELREC1";
/// The format version in the header; a reader refuses a newer one.
pub const FORMAT_VERSION: u64 = 2;
/// A chunk of records.
pub const DATA_MAGIC: &[u8; 4] = b"TRDC";
/// A block of the index: where earlier data chunks are and what times they hold.
pub const INDEX_MAGIC: &[u8; 4] = b"TRIX";
/// The last 20 bytes of a recording closed cleanly: magic, the last index block's offset,
/// the CRC-32 of both.
pub const TRAILER_MAGIC: &[u8; 8] = b"TRELEND1";
pub const TRAILER_LEN: usize = 20;
/// magic 4, payload length 4, records 4, first wall 8, last wall 8, min time 8, max time 8,
/// payload CRC 4, header CRC 4.
pub const CHUNK_HEADER_LEN: usize = 52;
/// One index entry: offset 8, payload length 4, records 4, first wall 8, last wall 8, min
/// time 8, max time 8.
pub const INDEX_ENTRY_LEN: usize = 48;
/// No logical time in the chunk: its min is this and its max 0.
pub const NO_TIME: u64 = u64::MAX;
/// A chunk's payload may not exceed this (a reader refuses larger: a damaged length).
pub const MAX_PAYLOAD: u32 = 256 << 20;

/// How a message was sent: in receive order (no logical time) or time-stamped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sent {
    ReceiveOrder,
    /// The logical time's key (`LogicalTime::key`).
    TimeStamp(u64),
}

impl Sent {
    pub fn time(self) -> Option<u64> {
        match self {
            Sent::ReceiveOrder => None,
            Sent::TimeStamp(key) => Some(key),
        }
    }
}

/// Why the recording has a hole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GapCause {
    /// The link to the router failed: nothing was recorded from here until `Rejoined`.
    ConnectionLost = 1,
    /// The RTI reported reliable messages that never arrived (`lost` of them).
    MessagesLost = 2,
    /// Joined again after a lost connection: the gap since `ConnectionLost` ends here.
    Rejoined = 3,
    /// The recorder stopped (end of the recording) while disconnected.
    EndedDisconnected = 4,
}

impl GapCause {
    fn from_u8(value: u8) -> Option<GapCause> {
        Some(match value {
            1 => GapCause::ConnectionLost,
            2 => GapCause::MessagesLost,
            3 => GapCause::Rejoined,
            4 => GapCause::EndedDisconnected,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            GapCause::ConnectionLost => "connection-lost",
            GapCause::MessagesLost => "messages-lost",
            GapCause::Rejoined => "rejoined",
            GapCause::EndedDisconnected => "ended-disconnected",
        }
    }
}

/// One thing the recorder saw. `source` numbers the router it came through (the order of
/// `--rti` options, from 0); handles are the recorded federation's, named in the header.
#[derive(Clone, Debug, PartialEq)]
pub enum Record {
    Discover {
        wall_ns: u64,
        source: u32,
        object: u64,
        class: u32,
        name: String,
    },
    Reflect {
        wall_ns: u64,
        source: u32,
        object: u64,
        class: u32,
        sent: Sent,
        sender: u32,
        tag: Vec<u8>,
        values: Vec<(u32, Vec<u8>)>,
    },
    Interaction {
        wall_ns: u64,
        source: u32,
        class: u32,
        sent: Sent,
        sender: u32,
        tag: Vec<u8>,
        parameters: Vec<(u32, Vec<u8>)>,
    },
    Remove {
        wall_ns: u64,
        source: u32,
        object: u64,
        sent: Sent,
        sender: u32,
        tag: Vec<u8>,
    },
    TimeGrant {
        wall_ns: u64,
        source: u32,
        time: u64,
    },
    Gap {
        wall_ns: u64,
        source: u32,
        cause: GapCause,
        lost: u64,
        detail: String,
    },
}

const KIND_DISCOVER: u8 = 1;
const KIND_REFLECT: u8 = 2;
const KIND_INTERACTION: u8 = 3;
const KIND_REMOVE: u8 = 4;
const KIND_GRANT: u8 = 5;
const KIND_GAP: u8 = 6;

impl Record {
    pub fn wall_ns(&self) -> u64 {
        match self {
            Record::Discover { wall_ns, .. }
            | Record::Reflect { wall_ns, .. }
            | Record::Interaction { wall_ns, .. }
            | Record::Remove { wall_ns, .. }
            | Record::TimeGrant { wall_ns, .. }
            | Record::Gap { wall_ns, .. } => *wall_ns,
        }
    }

    pub fn source(&self) -> u32 {
        match self {
            Record::Discover { source, .. }
            | Record::Reflect { source, .. }
            | Record::Interaction { source, .. }
            | Record::Remove { source, .. }
            | Record::TimeGrant { source, .. }
            | Record::Gap { source, .. } => *source,
        }
    }

    /// The logical time the record carries, if any.
    pub fn logical_time(&self) -> Option<u64> {
        match self {
            Record::Reflect { sent, .. }
            | Record::Interaction { sent, .. }
            | Record::Remove { sent, .. } => sent.time(),
            Record::TimeGrant { time, .. } => Some(*time),
            _ => None,
        }
    }

    pub fn kind_name(&self) -> &'static str {
        match self {
            Record::Discover { .. } => "discover",
            Record::Reflect { .. } => "reflect",
            Record::Interaction { .. } => "interaction",
            Record::Remove { .. } => "remove",
            Record::TimeGrant { .. } => "time-grant",
            Record::Gap { .. } => "gap",
        }
    }

    /// Append this record to a chunk, its wall time as the difference from `base_wall`: the
    /// previous record's in the chunk (the chunk's first wall time for its first record).
    pub fn encode(&self, base_wall: u64, out: &mut Vec<u8>) {
        out.push(self.kind());
        put_signed(out, self.wall_ns().wrapping_sub(base_wall) as i64);
        put_varint(out, u64::from(self.source()));
        match self {
            Record::Discover {
                object,
                class,
                name,
                ..
            } => {
                put_varint(out, *object);
                put_varint(out, u64::from(*class));
                put_bytes(out, name.as_bytes());
            }
            Record::Reflect {
                object,
                class,
                sent,
                sender,
                tag,
                values,
                ..
            } => {
                put_varint(out, *object);
                put_varint(out, u64::from(*class));
                put_message(out, *sent, *sender, tag, values);
            }
            Record::Interaction {
                class,
                sent,
                sender,
                tag,
                parameters,
                ..
            } => {
                put_varint(out, u64::from(*class));
                put_message(out, *sent, *sender, tag, parameters);
            }
            Record::Remove {
                object,
                sent,
                sender,
                tag,
                ..
            } => {
                put_varint(out, *object);
                put_message(out, *sent, *sender, tag, &[]);
            }
            Record::TimeGrant { time, .. } => put_time(out, *time),
            Record::Gap {
                cause,
                lost,
                detail,
                ..
            } => {
                out.push(*cause as u8);
                put_varint(out, *lost);
                put_bytes(out, detail.as_bytes());
            }
        }
    }

    fn decode_gap(
        cursor: &mut Cursor<'_>,
        wall_ns: u64,
        source: u32,
    ) -> Result<Record, RecordError> {
        let cause = cursor.u8()?;
        let cause = GapCause::from_u8(cause)
            .ok_or_else(|| cursor.error(format!("unknown gap cause {cause}")))?;
        Ok(Record::Gap {
            wall_ns,
            source,
            cause,
            lost: cursor.varint()?,
            detail: cursor.string()?,
        })
    }

    fn kind(&self) -> u8 {
        match self {
            Record::Discover { .. } => KIND_DISCOVER,
            Record::Reflect { .. } => KIND_REFLECT,
            Record::Interaction { .. } => KIND_INTERACTION,
            Record::Remove { .. } => KIND_REMOVE,
            Record::TimeGrant { .. } => KIND_GRANT,
            Record::Gap { .. } => KIND_GAP,
        }
    }

    /// Read one record from `cursor`; `base_wall` as for `encode`.
    pub fn decode(cursor: &mut Cursor<'_>, base_wall: u64) -> Result<Record, RecordError> {
        let kind = cursor.u8()?;
        let wall_ns = base_wall.wrapping_add(cursor.signed()? as u64);
        let source = cursor.u32()?;
        Ok(match kind {
            KIND_DISCOVER => Record::Discover {
                wall_ns,
                source,
                object: cursor.varint()?,
                class: cursor.u32()?,
                name: cursor.string()?,
            },
            KIND_REFLECT => {
                let object = cursor.varint()?;
                let class = cursor.u32()?;
                let (sent, sender, tag, values) = cursor.message()?;
                Record::Reflect {
                    wall_ns,
                    source,
                    object,
                    class,
                    sent,
                    sender,
                    tag,
                    values,
                }
            }
            KIND_INTERACTION => {
                let class = cursor.u32()?;
                let (sent, sender, tag, parameters) = cursor.message()?;
                Record::Interaction {
                    wall_ns,
                    source,
                    class,
                    sent,
                    sender,
                    tag,
                    parameters,
                }
            }
            KIND_REMOVE => {
                let object = cursor.varint()?;
                let (sent, sender, tag, _) = cursor.message()?;
                Record::Remove {
                    wall_ns,
                    source,
                    object,
                    sent,
                    sender,
                    tag,
                }
            }
            KIND_GRANT => Record::TimeGrant {
                wall_ns,
                source,
                time: cursor.time()?,
            },
            KIND_GAP => Record::decode_gap(cursor, wall_ns, source)?,
            other => return Err(cursor.error(format!("unknown record kind {other}"))),
        })
    }
}

/// Order, time, sender, tag, then (handle, value) pairs.
fn put_message(out: &mut Vec<u8>, sent: Sent, sender: u32, tag: &[u8], values: &[(u32, Vec<u8>)]) {
    match sent {
        Sent::ReceiveOrder => out.push(0),
        Sent::TimeStamp(key) => {
            out.push(1);
            put_time(out, key);
        }
    }
    put_varint(out, u64::from(sender));
    put_bytes(out, tag);
    put_varint(out, values.len() as u64);
    for (handle, value) in values {
        put_varint(out, u64::from(*handle));
        put_bytes(out, value);
    }
}

/// The sign bit of a logical-time key (`LogicalTime::key` flips it to order the keys).
const TIME_SIGN: u64 = 1 << 63;

/// A logical-time key as the signed number it stands for (an integer time is itself), so
/// the small times of a recording take one or two bytes, not ten.
fn put_time(out: &mut Vec<u8>, key: u64) {
    put_signed(out, (key ^ TIME_SIGN) as i64);
}

/// LEB128, 7 bits a byte, low bits first.
pub fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Zigzag then LEB128: small negative and positive numbers stay short.
pub fn put_signed(out: &mut Vec<u8>, value: i64) {
    put_varint(out, ((value << 1) ^ (value >> 63)) as u64);
}

pub fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Reads what the `put_*` functions wrote, refusing to run past the end.
pub struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Where the bytes are, for errors: the file offset of `bytes[0]`.
    origin: u64,
}

type Message = (Sent, u32, Vec<u8>, Vec<(u32, Vec<u8>)>);

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8], origin: u64) -> Cursor<'a> {
        Cursor {
            bytes,
            at: 0,
            origin,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.at >= self.bytes.len()
    }

    pub fn error(&self, what: String) -> RecordError {
        RecordError::Corrupt {
            offset: self.origin + self.at as u64,
            what,
        }
    }

    pub fn u8(&mut self) -> Result<u8, RecordError> {
        let byte = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| self.error("a record ends early".into()))?;
        self.at += 1;
        Ok(byte)
    }

    pub fn varint(&mut self) -> Result<u64, RecordError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.u8()?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.error("a number longer than 10 bytes".into()))
    }

    pub fn signed(&mut self) -> Result<i64, RecordError> {
        let raw = self.varint()?;
        Ok(((raw >> 1) as i64) ^ -((raw & 1) as i64))
    }

    /// What `put_time` wrote.
    pub fn time(&mut self) -> Result<u64, RecordError> {
        Ok((self.signed()? as u64) ^ TIME_SIGN)
    }

    pub fn u32(&mut self) -> Result<u32, RecordError> {
        let value = self.varint()?;
        u32::try_from(value).map_err(|_| self.error(format!("{value} is not a 32-bit handle")))
    }

    pub fn bytes(&mut self) -> Result<Vec<u8>, RecordError> {
        let len = self.varint()?;
        let end = usize::try_from(len)
            .ok()
            .and_then(|len| self.at.checked_add(len))
            .filter(|end| *end <= self.bytes.len())
            .ok_or_else(|| self.error(format!("a value of {len} bytes runs past its chunk")))?;
        let out = self.bytes[self.at..end].to_vec();
        self.at = end;
        Ok(out)
    }

    pub fn string(&mut self) -> Result<String, RecordError> {
        let bytes = self.bytes()?;
        String::from_utf8(bytes).map_err(|_| self.error("a name that is not UTF-8".into()))
    }

    fn message(&mut self) -> Result<Message, RecordError> {
        let sent = match self.u8()? {
            0 => Sent::ReceiveOrder,
            1 => Sent::TimeStamp(self.time()?),
            other => return Err(self.error(format!("unknown order {other}"))),
        };
        let sender = self.u32()?;
        let tag = self.bytes()?;
        let count = self.varint()?;
        let mut values = Vec::new();
        for _ in 0..count {
            let handle = self.u32()?;
            values.push((handle, self.bytes()?));
        }
        Ok((sent, sender, tag, values))
    }
}

/// What a chunk header says about its chunk (and what an index entry repeats).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkInfo {
    /// File offset of the chunk header.
    pub offset: u64,
    pub payload_len: u32,
    pub records: u32,
    pub first_wall: u64,
    pub last_wall: u64,
    /// `NO_TIME` when no record in it has a logical time.
    pub min_time: u64,
    pub max_time: u64,
}

impl ChunkInfo {
    pub fn has_time(&self) -> bool {
        self.min_time != NO_TIME
    }
}

/// The 52 header bytes of a chunk of `kind` (`DATA_MAGIC` or `INDEX_MAGIC`).
pub fn chunk_header(kind: &[u8; 4], info: &ChunkInfo, payload: &[u8]) -> [u8; CHUNK_HEADER_LEN] {
    let mut out = [0u8; CHUNK_HEADER_LEN];
    out[0..4].copy_from_slice(kind);
    out[4..8].copy_from_slice(&info.payload_len.to_le_bytes());
    out[8..12].copy_from_slice(&info.records.to_le_bytes());
    out[12..20].copy_from_slice(&info.first_wall.to_le_bytes());
    out[20..28].copy_from_slice(&info.last_wall.to_le_bytes());
    out[28..36].copy_from_slice(&info.min_time.to_le_bytes());
    out[36..44].copy_from_slice(&info.max_time.to_le_bytes());
    out[44..48].copy_from_slice(&crc32fast::hash(payload).to_le_bytes());
    let header_crc = crc32fast::hash(&out[..48]);
    out[48..52].copy_from_slice(&header_crc.to_le_bytes());
    out
}

/// A chunk header read back: its kind, what it says, and its payload's CRC. `None` when its
/// own CRC does not match (a torn or damaged header).
pub fn parse_chunk_header(
    offset: u64,
    bytes: &[u8; CHUNK_HEADER_LEN],
) -> Option<([u8; 4], ChunkInfo, u32)> {
    let word =
        |at: usize| u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]);
    let long = |at: usize| {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[at..at + 8]);
        u64::from_le_bytes(b)
    };
    if crc32fast::hash(&bytes[..48]) != word(48) {
        return None;
    }
    let mut kind = [0u8; 4];
    kind.copy_from_slice(&bytes[..4]);
    let info = ChunkInfo {
        offset,
        payload_len: word(4),
        records: word(8),
        first_wall: long(12),
        last_wall: long(20),
        min_time: long(28),
        max_time: long(36),
    };
    Some((kind, info, word(44)))
}

impl ChunkInfo {
    pub fn encode_entry(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.offset.to_le_bytes());
        out.extend_from_slice(&self.payload_len.to_le_bytes());
        out.extend_from_slice(&self.records.to_le_bytes());
        out.extend_from_slice(&self.first_wall.to_le_bytes());
        out.extend_from_slice(&self.last_wall.to_le_bytes());
        out.extend_from_slice(&self.min_time.to_le_bytes());
        out.extend_from_slice(&self.max_time.to_le_bytes());
    }

    /// An index entry, as `encode_entry` wrote it.
    pub fn decode_entry(bytes: &[u8]) -> Option<ChunkInfo> {
        let long = |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?));
        let word = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
        Some(ChunkInfo {
            offset: long(0)?,
            payload_len: word(8)?,
            records: word(12)?,
            first_wall: long(16)?,
            last_wall: long(24)?,
            min_time: long(32)?,
            max_time: long(40)?,
        })
    }
}

/// What the file header holds: where the recording came from, and the names of every
/// handle the records use, so a replay into another federation finds them by name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Header {
    pub started_wall_ns: u64,
    pub federation: String,
    /// The routers recorded from; a record's `source` indexes this list.
    pub sources: Vec<String>,
    /// The object model modules as given to the recorder.
    pub fom_modules: Vec<String>,
    pub dictionary: Dictionary,
    /// The recorded federation's logical time representation, which gives the records'
    /// time keys their meaning (from format version 2; version 1 files are HLAinteger64Time).
    pub time_representation: TimeRepresentation,
}

/// Handle → name, as the recorded federation numbered them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dictionary {
    /// (handle, qualified name)
    pub object_classes: Vec<(u32, String)>,
    /// (handle, its class's handle, name)
    pub attributes: Vec<(u32, u32, String)>,
    pub interaction_classes: Vec<(u32, String)>,
    pub parameters: Vec<(u32, u32, String)>,
}

impl Header {
    pub fn encode(&self) -> Vec<u8> {
        let mut body = Vec::new();
        put_varint(&mut body, FORMAT_VERSION);
        put_varint(&mut body, self.started_wall_ns);
        put_bytes(&mut body, self.federation.as_bytes());
        for list in [&self.sources, &self.fom_modules] {
            put_varint(&mut body, list.len() as u64);
            for item in list {
                put_bytes(&mut body, item.as_bytes());
            }
        }
        let d = &self.dictionary;
        for classes in [&d.object_classes, &d.interaction_classes] {
            put_varint(&mut body, classes.len() as u64);
            for (handle, name) in classes {
                put_varint(&mut body, u64::from(*handle));
                put_bytes(&mut body, name.as_bytes());
            }
        }
        for members in [&d.attributes, &d.parameters] {
            put_varint(&mut body, members.len() as u64);
            for (handle, class, name) in members {
                put_varint(&mut body, u64::from(*handle));
                put_varint(&mut body, u64::from(*class));
                put_bytes(&mut body, name.as_bytes());
            }
        }
        put_bytes(&mut body, self.time_representation.name().as_bytes());
        let mut out = FILE_MAGIC.to_vec();
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    /// The header body (after magic, length and CRC, which the reader checks).
    pub fn decode(body: &[u8]) -> Result<Header, RecordError> {
        let mut c = Cursor::new(body, 16);
        let version = c.varint()?;
        if version > FORMAT_VERSION {
            return Err(RecordError::Version(version));
        }
        let started_wall_ns = c.varint()?;
        let federation = c.string()?;
        let mut lists = [Vec::new(), Vec::new()];
        for list in &mut lists {
            for _ in 0..c.varint()? {
                list.push(c.string()?);
            }
        }
        let [sources, fom_modules] = lists;
        let mut classes = [Vec::new(), Vec::new()];
        for list in &mut classes {
            for _ in 0..c.varint()? {
                list.push((c.u32()?, c.string()?));
            }
        }
        let mut members = [Vec::new(), Vec::new()];
        for list in &mut members {
            for _ in 0..c.varint()? {
                list.push((c.u32()?, c.u32()?, c.string()?));
            }
        }
        let [object_classes, interaction_classes] = classes;
        let [attributes, parameters] = members;
        let time_representation = if version >= 2 {
            let name = c.string()?;
            TimeRepresentation::from_name(&name)
                .ok_or_else(|| c.error(format!("unknown time representation {name:?}")))?
        } else {
            TimeRepresentation::Integer64
        };
        Ok(Header {
            started_wall_ns,
            federation,
            sources,
            fom_modules,
            dictionary: Dictionary {
                object_classes,
                attributes,
                interaction_classes,
                parameters,
            },
            time_representation,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn samples() -> Vec<Record> {
        vec![
            Record::Discover {
                wall_ns: 1_000,
                source: 0,
                object: (7 << 32) | 3,
                class: 12,
                name: "Aircraft-0".into(),
            },
            Record::Reflect {
                wall_ns: 900,
                source: 1,
                object: 5,
                class: 12,
                sent: Sent::TimeStamp(LARGE),
                sender: 7,
                tag: b"t".to_vec(),
                values: vec![(3, vec![1, 2, 3]), (4, vec![])],
            },
            Record::Interaction {
                wall_ns: 2_000,
                source: 0,
                class: 9,
                sent: Sent::ReceiveOrder,
                sender: 2,
                tag: vec![],
                parameters: vec![(1, b"beep".to_vec())],
            },
            Record::Remove {
                wall_ns: 2_500,
                source: 0,
                object: 5,
                sent: Sent::ReceiveOrder,
                sender: 2,
                tag: vec![],
            },
            Record::TimeGrant {
                wall_ns: 3_000,
                source: 0,
                time: 42,
            },
            Record::Gap {
                wall_ns: 4_000,
                source: 0,
                cause: GapCause::MessagesLost,
                lost: 17,
                detail: "router restarted".into(),
            },
        ]
    }
    const LARGE: u64 = u64::MAX - 1;

    #[test]
    fn every_record_kind_reads_back_as_written_even_before_its_chunks_base_time() {
        let mut bytes = Vec::new();
        for record in samples() {
            record.encode(1_000, &mut bytes);
        }
        let mut cursor = Cursor::new(&bytes, 0);
        let mut back = Vec::new();
        while !cursor.is_empty() {
            back.push(Record::decode(&mut cursor, 1_000).unwrap());
        }
        assert_eq!(back, samples());
    }

    #[test]
    fn a_record_cut_short_is_an_error_naming_its_offset_not_a_panic() {
        let mut bytes = Vec::new();
        samples()[1].encode(0, &mut bytes);
        for cut in 0..bytes.len() {
            let mut cursor = Cursor::new(&bytes[..cut], 100);
            let error = Record::decode(&mut cursor, 0).unwrap_err();
            assert!(matches!(error, RecordError::Corrupt { offset, .. } if offset >= 100));
        }
    }

    #[test]
    fn a_chunk_header_with_one_flipped_bit_is_refused() {
        let info = ChunkInfo {
            offset: 64,
            payload_len: 3,
            records: 1,
            first_wall: 1,
            last_wall: 2,
            min_time: NO_TIME,
            max_time: 0,
        };
        let mut header = chunk_header(DATA_MAGIC, &info, b"abc");
        let (kind, back, crc) = parse_chunk_header(64, &header).unwrap();
        assert_eq!(
            (&kind, back, crc),
            (DATA_MAGIC, info, crc32fast::hash(b"abc"))
        );
        header[20] ^= 1;
        assert!(parse_chunk_header(64, &header).is_none());
    }

    #[test]
    fn the_header_reads_back_with_its_dictionary() {
        let header = Header {
            started_wall_ns: 5,
            federation: "TrellisDemo".into(),
            sources: vec!["tcp://127.0.0.1:7000".into()],
            fom_modules: vec!["foms/trellis-demo.xml".into()],
            dictionary: Dictionary {
                object_classes: vec![(1, "HLAobjectRoot.Vehicle".into())],
                attributes: vec![(4, 1, "Position".into())],
                interaction_classes: vec![(2, "HLAinteractionRoot.Radio".into())],
                parameters: vec![(0, 2, "Text".into())],
            },
            time_representation: TimeRepresentation::Float64,
        };
        let bytes = header.encode();
        assert_eq!(&bytes[..8], FILE_MAGIC);
        assert_eq!(Header::decode(&bytes[16..]).unwrap(), header);
        // A version 1 header (before the time representation was kept) reads as
        // HLAinteger64Time, the only time recordings of that version could hold in full.
        let mut v1 = bytes[16..bytes.len() - 1 - "HLAfloat64Time".len()].to_vec();
        assert_eq!(v1[0], 2, "the version leads the body");
        v1[0] = 1;
        let old = Header::decode(&v1).unwrap();
        assert_eq!(old.time_representation, TimeRepresentation::Integer64);
        assert_eq!(old.dictionary, header.dictionary);
    }
}
