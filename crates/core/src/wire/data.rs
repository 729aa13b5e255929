//! Data frames: the only frames that carry simulation traffic.
//!
//! ```text
//! header (6) | flags: u8 | id count: u16 | federation: u64 | source: u64 | seq: u64
//!            | [latest key: u64 | attributes: u64]  (only with the keep-latest flag)
//!            | ids: count × u32 | streams: count × u32 | payload
//! flags: bits 0-2 priority (7 most urgent), bit 3 reliable, bit 4 keep-latest, bits 5-7 zero
//! ```
//!
//! `seq` numbers every frame of a source. `streams[i]` numbers the source's reliable frames
//! that carry `ids[i]` (1, 2, 3 … per source and id; 0 on best-effort frames). A receiver
//! interested in an id receives every frame of every source that carries it (the union
//! rule), so a jump in a stream is a loss it can count and name, and a step back a
//! duplicate: see `router::streams`.
//!
//! **Keep-latest frames** (protocol version 3) carry a [`LatestKey`]: a key naming what the
//! frame is the state of (the federate library puts the object instance there) and a mask
//! of which parts of that state it carries (the instance's attributes, by their position in
//! the class). Routers still never read the payload: the key is all they need to replace a
//! queued frame by a newer one of the same source, key and mask, and to keep the newest of
//! each for subscribers that come later (`router::latest`). A keep-latest frame takes no
//! stream numbers (they stay 0, even when reliable): replacing it is the point, so a gap
//! would be no loss. A mask of 0 says the keyed state is gone (the instance was deleted):
//! such a removal is never replaced, so it is numbered like any reliable frame.
//!
//! A decoded [`DataFrame`] is a validated view over the received bytes. Routers forward those
//! same bytes (a reference-counted `Bytes`) to every matching link: no copy, no re-encoding.

use super::{put_header, FederationId, FrameKind, NodeId, WireError, FRAME_HEADER_LEN};
use bytes::{BufMut, Bytes, BytesMut};

/// At most this many interest ids on one data frame (the count is a u16).
pub const MAX_IDS_PER_FRAME: usize = u16::MAX as usize;

const FLAGS: usize = FRAME_HEADER_LEN;
const ID_COUNT: usize = FLAGS + 1;
const FEDERATION: usize = ID_COUNT + 2;
const SOURCE: usize = FEDERATION + 8;
const SEQ: usize = SOURCE + 8;
const IDS: usize = SEQ + 8;

/// Where the keep-latest extension sits when the flag says it is there.
const LATEST: usize = SEQ + 8;
/// Bytes the keep-latest extension adds to a frame.
pub const LATEST_EXTENSION_LEN: usize = 16;

const PRIORITY_MASK: u8 = 0b0111;
const RELIABLE_BIT: u8 = 0b1000;
const LATEST_BIT: u8 = 0b1_0000;

/// What a keep-latest frame is the state of: opaque to routers, which only compare keys and
/// masks. A frame may replace a queued one of the same federation, source, key and mask.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LatestKey {
    /// Names the state (the federate library: the object instance).
    pub key: u64,
    /// Which parts of the state the frame carries, one bit each (the federate library: the
    /// attributes, by position among the class's available attributes). 0: the state is
    /// gone, forget every part of it.
    pub attributes: u64,
}

impl LatestKey {
    /// Whether this frame says the keyed state is gone.
    pub fn is_removal(&self) -> bool {
        self.attributes == 0
    }
}

/// Where the ids start in a frame with these flags.
const fn ids_start(flags: u8) -> usize {
    if flags & LATEST_BIT != 0 {
        LATEST + LATEST_EXTENSION_LEN
    } else {
        LATEST
    }
}

/// How a data frame is delivered: reliable or best-effort (HLA's HLAreliable and HLAbestEffort
/// transportation).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TransportClass {
    /// Delivered exactly once, in order per source; a full queue pushes back on the sender.
    Reliable,
    /// May be dropped when a queue is full (lowest priority first), or lost on UDP.
    BestEffort,
}

impl TransportClass {
    /// Lower-case name for logs and errors.
    pub fn name(self) -> &'static str {
        match self {
            TransportClass::Reliable => "reliable",
            TransportClass::BestEffort => "best-effort",
        }
    }

    /// The priority a publish of this class gets unless it names one: 4 for reliable
    /// traffic, 0 (the first shed) for best effort.
    pub const fn default_priority(self) -> u8 {
        match self {
            TransportClass::Reliable => 4,
            TransportClass::BestEffort => 0,
        }
    }
}

/// Everything in a data frame except its ids and payload.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct DataHeader {
    /// The federation the message belongs to.
    pub federation: FederationId,
    /// The node whose application published it.
    pub source: NodeId,
    /// The source's sequence number, counting up from 1 per source router.
    pub seq: u64,
    /// 0 (least urgent) to 7 (most urgent).
    pub priority: u8,
    /// Reliable or best-effort.
    pub class: TransportClass,
}

/// An encoded data frame, validated once on decode; its accessors read the bytes in place so
/// routers forward it untouched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataFrame {
    bytes: Bytes,
}

// The accessors routers call on every frame are `#[inline]`: a release build splits this
// crate into several codegen units and has no LTO, so a call across units is never inlined
// without it, and these are a few instructions each.
impl DataFrame {
    /// The little-endian u64 at byte `at` of the frame.
    pub const fn encoded_len(id_count: usize, payload_len: usize) -> usize {
        IDS + id_count * 8 + payload_len
    }

    /// Size of an encoded keep-latest frame (or, with `latest` false, of a plain one).
    pub const fn encoded_len_with(id_count: usize, payload_len: usize, latest: bool) -> usize {
        Self::encoded_len(id_count, payload_len) + if latest { LATEST_EXTENSION_LEN } else { 0 }
    }

    /// Append one encoded data frame to `out`.
    ///
    /// The caller guarantees 1 ≤ `ids.len()` ≤ [`MAX_IDS_PER_FRAME`], priority ≤ 7 and a total
    /// below the frame limit; the router's publish path checks these and reports a clear
    /// error instead.
    pub fn encode(out: &mut BytesMut, header: &DataHeader, ids: &[u32], payload: &[u8]) {
        Self::encode_with(out, header, None, ids, payload)
    }

    /// [`DataFrame::encode`], as a keep-latest frame when `latest` is given.
    pub fn encode_with(
        out: &mut BytesMut,
        header: &DataHeader,
        latest: Option<LatestKey>,
        ids: &[u32],
        payload: &[u8],
    ) {
        debug_assert!(!ids.is_empty() && ids.len() <= MAX_IDS_PER_FRAME);
        out.reserve(Self::encoded_len_with(
            ids.len(),
            payload.len(),
            latest.is_some(),
        ));
        let start = Self::begin(out, header, latest, ids);
        out.put_slice(payload);
        Self::finish(out, start);
    }

    /// Append a data frame's header, ids and (unnumbered) streams to `out`, for the caller
    /// to append the payload and then [`DataFrame::finish`] the frame: a publisher encodes
    /// its message straight behind the header instead of into a buffer of its own that is
    /// copied here. Returns where the frame starts in `out`. An id count past
    /// [`MAX_IDS_PER_FRAME`] is written cut to 16 bits: [`UnstampedFrame`] keeps the true
    /// one for the node's check, which refuses such a frame.
    pub fn begin(
        out: &mut BytesMut,
        header: &DataHeader,
        latest: Option<LatestKey>,
        ids: &[u32],
    ) -> usize {
        debug_assert!(header.priority <= PRIORITY_MASK);
        let start = out.len();
        // The length is the caller's payload's too: `finish` writes it.
        put_header(out, FrameKind::Data, 0);
        let mut flags = header.priority & PRIORITY_MASK;
        if header.class == TransportClass::Reliable {
            flags |= RELIABLE_BIT;
        }
        if latest.is_some() {
            flags |= LATEST_BIT;
        }
        out.put_u8(flags);
        out.put_u16_le(ids.len() as u16);
        out.put_u64_le(header.federation.0);
        out.put_u64_le(header.source.0);
        out.put_u64_le(header.seq);
        if let Some(latest) = latest {
            out.put_u64_le(latest.key);
            out.put_u64_le(latest.attributes);
        }
        for &id in ids {
            out.put_u32_le(id);
        }
        // Stream numbers are the sending router's to assign (`stamp_streams`).
        out.put_bytes(0, ids.len() * 4);
        start
    }

    /// Write the length of the frame [`DataFrame::begin`] started at `start` in `out`: all
    /// that follows `start` is the frame. A frame past 4 GiB gets a length that matches
    /// nothing, which every check refuses (none is that large).
    pub fn finish(out: &mut BytesMut, start: usize) {
        let length = out.len() - start - super::LENGTH_PREFIX;
        let length = u32::try_from(length).unwrap_or(u32::MAX);
        out[start..start + super::LENGTH_PREFIX].copy_from_slice(&length.to_le_bytes());
    }

    /// Number the streams of an encoded reliable frame in place: `next(id)` gives the
    /// number of this frame in the source's stream for `id`. `frame` is one whole frame
    /// that [`DataFrame::encode`] wrote or [`DataFrame::from_encoded`]'s checks passed.
    /// A keep-latest frame is left unnumbered (all 0): it may be replaced on its way, and a
    /// replaced frame must not read as a loss. A removal (mask 0) is never replaced, so it
    /// is numbered like any reliable frame and its loss is reported.
    pub fn stamp_streams(frame: &mut [u8], mut next: impl FnMut(u32) -> u32) {
        if Self::latest_of(frame).is_some_and(|l| !l.is_removal()) {
            return;
        }
        let count = u16::from_le_bytes([frame[ID_COUNT], frame[ID_COUNT + 1]]) as usize;
        // A removal's ids follow its keep-latest key.
        let start = ids_start(frame[FLAGS]);
        let (ids, streams) = frame[start..start + count * 8].split_at_mut(count * 4);
        for (id, stream) in ids.chunks_exact(4).zip(streams.chunks_exact_mut(4)) {
            let id = u32::from_le_bytes([id[0], id[1], id[2], id[3]]);
            stream.copy_from_slice(&next(id).to_le_bytes());
        }
    }

    /// Take a frame encoded elsewhere (an application thread), check it, and stamp it with
    /// its source and sequence number, and a reliable frame with its stream numbers from
    /// `next` (see [`DataFrame::stamp_streams`]): the node's event loop assigns those as it
    /// sends.
    pub fn from_encoded(
        mut frame: BytesMut,
        source: NodeId,
        seq: u64,
        next: impl FnMut(u32) -> u32,
    ) -> Result<DataFrame, WireError> {
        match super::check_header(&frame, usize::MAX)? {
            Some(FrameKind::Data) => {}
            _ => {
                return Err(WireError::Malformed {
                    kind: "data",
                    what: "not a data frame",
                })
            }
        }
        if super::LENGTH_PREFIX + super::read_length(&frame) as usize != frame.len() {
            return Err(WireError::Malformed {
                kind: "data",
                what: "length prefix does not match the frame",
            });
        }
        Self::validate(&frame)?;
        frame[SOURCE..SOURCE + 8].copy_from_slice(&source.0.to_le_bytes());
        frame[SEQ..SEQ + 8].copy_from_slice(&seq.to_le_bytes());
        if frame[FLAGS] & RELIABLE_BIT != 0 {
            Self::stamp_streams(&mut frame, next);
        }
        Ok(DataFrame {
            bytes: frame.freeze(),
        })
    }

    /// Validate a complete frame (length prefix included) whose kind byte says data.
    #[inline]
    pub(crate) fn from_bytes(bytes: Bytes) -> Result<DataFrame, WireError> {
        Self::validate(&bytes)?;
        Ok(DataFrame { bytes })
    }

    #[inline]
    fn validate(bytes: &[u8]) -> Result<(), WireError> {
        let malformed = |what| WireError::Malformed { kind: "data", what };
        if bytes.len() < IDS {
            return Err(malformed("shorter than the data header"));
        }
        if bytes[FLAGS] & !(PRIORITY_MASK | RELIABLE_BIT | LATEST_BIT) != 0 {
            return Err(malformed("reserved flag bits set"));
        }
        let count = u16::from_le_bytes([bytes[ID_COUNT], bytes[ID_COUNT + 1]]) as usize;
        if count == 0 {
            return Err(malformed("no interest ids"));
        }
        if bytes.len() < ids_start(bytes[FLAGS]) + count * 8 {
            return Err(malformed("id count runs past the end of the frame"));
        }
        Ok(())
    }

    /// The keep-latest key of a frame this crate validated, read without building a view:
    /// what a queue looks at to find the frame a newer one replaces.
    /// Anything else (a goodbye queued among reliable data, say) has none.
    #[inline]
    pub(crate) fn latest_of(bytes: &[u8]) -> Option<LatestKey> {
        let is_data = bytes.get(FRAME_HEADER_LEN - 1) == Some(&(FrameKind::Data as u8));
        if !is_data || bytes.get(FLAGS)? & LATEST_BIT == 0 || bytes.len() < LATEST + 16 {
            return None;
        }
        let word = |at: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(a)
        };
        Some(LatestKey {
            key: word(LATEST),
            attributes: word(LATEST + 8),
        })
    }

    /// The source and sequence number of a frame this crate validated.
    #[inline]
    pub(crate) fn source_seq_of(bytes: &[u8]) -> (NodeId, u64) {
        let word = |at: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(a)
        };
        (NodeId(word(SOURCE)), word(SEQ))
    }

    /// The federation of a frame this crate validated.
    #[inline]
    pub(crate) fn federation_of(bytes: &[u8]) -> FederationId {
        let mut a = [0u8; 8];
        a.copy_from_slice(&bytes[FEDERATION..FEDERATION + 8]);
        FederationId(u64::from_le_bytes(a))
    }

    /// Rebuild the view over bytes this crate validated before (frames held in queues).
    #[inline]
    pub(crate) fn from_validated(bytes: Bytes) -> DataFrame {
        debug_assert!(Self::validate(&bytes).is_ok());
        DataFrame { bytes }
    }

    #[inline]
    fn u64_at(&self, at: usize) -> u64 {
        let mut a = [0u8; 8];
        a.copy_from_slice(&self.bytes[at..at + 8]);
        u64::from_le_bytes(a)
    }

    /// The federation the message belongs to.
    #[inline]
    pub fn federation(&self) -> FederationId {
        FederationId(self.u64_at(FEDERATION))
    }

    /// The node whose application published it.
    #[inline]
    pub fn source(&self) -> NodeId {
        NodeId(self.u64_at(SOURCE))
    }

    /// The source's sequence number, counting up from 1 per source router.
    #[inline]
    pub fn seq(&self) -> u64 {
        self.u64_at(SEQ)
    }

    /// 0 (least urgent) to 7 (most urgent): the order in which full queues shed best-effort frames.
    #[inline]
    pub fn priority(&self) -> u8 {
        self.bytes[FLAGS] & PRIORITY_MASK
    }

    /// Reliable or best-effort.
    #[inline]
    pub fn class(&self) -> TransportClass {
        if self.bytes[FLAGS] & RELIABLE_BIT != 0 {
            TransportClass::Reliable
        } else {
            TransportClass::BestEffort
        }
    }

    /// The keep-latest key, on a keep-latest frame.
    #[inline]
    pub fn latest(&self) -> Option<LatestKey> {
        Self::latest_of(&self.bytes)
    }

    /// The fixed fields together, decoded.
    pub fn header(&self) -> DataHeader {
        DataHeader {
            federation: self.federation(),
            source: self.source(),
            seq: self.seq(),
            priority: self.priority(),
            class: self.class(),
        }
    }

    /// Number of interest ids the frame carries (at most [`MAX_IDS_PER_FRAME`]).
    #[inline]
    pub fn id_count(&self) -> usize {
        u16::from_le_bytes([self.bytes[ID_COUNT], self.bytes[ID_COUNT + 1]]) as usize
    }

    #[inline]
    fn ids_start(&self) -> usize {
        ids_start(self.bytes[FLAGS])
    }

    /// The interest ids, read in place.
    #[inline]
    pub fn ids(&self) -> DataIds<'_> {
        let start = self.ids_start();
        DataIds {
            raw: &self.bytes[start..start + self.id_count() * 4],
        }
    }

    /// The frame's number in the source's stream for each id, in the order of `ids()`
    /// (all 0 on a best-effort or keep-latest frame).
    #[inline]
    pub fn streams(&self) -> DataIds<'_> {
        let count = self.id_count();
        let start = self.ids_start();
        DataIds {
            raw: &self.bytes[start + count * 4..start + count * 8],
        }
    }

    fn payload_start(&self) -> usize {
        self.ids_start() + self.id_count() * 8
    }

    /// The payload as a slice of the received buffer.
    pub fn payload(&self) -> &[u8] {
        &self.bytes[self.payload_start()..]
    }

    /// The payload as its own `Bytes`, sharing the received buffer.
    pub fn payload_bytes(&self) -> Bytes {
        self.bytes.slice(self.payload_start()..)
    }

    /// The whole encoded frame, ready to forward.
    #[inline]
    pub fn as_bytes(&self) -> &Bytes {
        &self.bytes
    }

    /// The whole encoded frame, given up without a copy.
    #[inline]
    pub fn into_bytes(self) -> Bytes {
        self.bytes
    }

    /// Encoded size in bytes, header included.
    pub fn wire_len(&self) -> usize {
        self.bytes.len()
    }
}

/// A data frame its publisher encoded whole, before its node stamps it: the node checks
/// it as it checks any publish (ids, priority, size), writes its federation in
/// ([`UnstampedFrame::set_federation`]), and its event loop the source, sequence and
/// stream numbers ([`DataFrame::from_encoded`]). The federate library encodes each message
/// so, straight behind the header, and the frame goes to the socket with no copy.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnstampedFrame {
    bytes: BytesMut,
    /// The ids the publisher gave: past [`MAX_IDS_PER_FRAME`] the frame's count cannot
    /// say it, and the node must still refuse the frame for it.
    id_count: usize,
}

impl UnstampedFrame {
    /// Encode a frame into `arena` and split it off: the header (no federation, source or
    /// sequence yet), `ids`, and the payload `write_payload` appends. `arena` holds no
    /// other bytes; reserving room in it is the caller's.
    pub fn encode(
        arena: &mut BytesMut,
        class: TransportClass,
        priority: u8,
        latest: Option<LatestKey>,
        ids: &[u32],
        write_payload: impl FnOnce(&mut BytesMut),
    ) -> UnstampedFrame {
        debug_assert!(arena.is_empty(), "an arena holds nothing between frames");
        let header = DataHeader {
            federation: FederationId(0),
            source: NodeId(0),
            seq: 0,
            priority: priority.min(PRIORITY_MASK),
            class,
        };
        let start = DataFrame::begin(arena, &header, latest, ids);
        write_payload(arena);
        DataFrame::finish(arena, start);
        UnstampedFrame {
            bytes: arena.split(),
            id_count: ids.len(),
        }
    }

    /// How many ids the publisher gave (which the node checks).
    pub fn id_count(&self) -> usize {
        self.id_count
    }

    /// The interest ids as written (at most [`MAX_IDS_PER_FRAME`]).
    pub fn ids(&self) -> DataIds<'_> {
        let start = ids_start(self.bytes[FLAGS]);
        let count = self.id_count.min(MAX_IDS_PER_FRAME);
        DataIds {
            raw: &self.bytes[start..start + count * 4],
        }
    }

    /// 0 (least urgent) to 7 (most urgent), as the publisher wrote it.
    pub fn priority(&self) -> u8 {
        self.bytes[FLAGS] & PRIORITY_MASK
    }

    /// Reliable or best-effort, as the publisher wrote it.
    pub fn class(&self) -> TransportClass {
        if self.bytes[FLAGS] & RELIABLE_BIT != 0 {
            TransportClass::Reliable
        } else {
            TransportClass::BestEffort
        }
    }

    /// The keep-latest key, if the publisher wrote one.
    pub fn latest(&self) -> Option<LatestKey> {
        DataFrame::latest_of(&self.bytes)
    }

    /// The message the publisher wrote behind the header.
    pub fn payload(&self) -> &[u8] {
        let start = ids_start(self.bytes[FLAGS]) + self.id_count.min(MAX_IDS_PER_FRAME) * 8;
        &self.bytes[start..]
    }

    /// Encoded size in bytes, header included.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Never: a frame holds at least its header.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// Write the node's federation in: the publisher need not know it.
    pub fn set_federation(&mut self, federation: FederationId) {
        self.bytes[FEDERATION..FEDERATION + 8].copy_from_slice(&federation.0.to_le_bytes());
    }

    /// The frame, for [`DataFrame::from_encoded`].
    pub fn into_bytes(self) -> BytesMut {
        self.bytes
    }
}

/// Iterator over a data frame's interest ids (or their stream numbers), decoded on the fly.
#[derive(Clone)]
pub struct DataIds<'a> {
    raw: &'a [u8],
}

impl Iterator for DataIds<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        let (id, rest) = self.raw.split_first_chunk::<4>()?;
        self.raw = rest;
        Some(u32::from_le_bytes(*id))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.raw.len() / 4;
        (n, Some(n))
    }
}

impl ExactSizeIterator for DataIds<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(class: TransportClass) -> DataHeader {
        DataHeader {
            federation: FederationId(0xfed),
            source: NodeId(0),
            seq: 0,
            priority: class.default_priority(),
            class,
        }
    }

    /// A frame encoded in place, its payload written behind the header, is byte for byte
    /// the frame `encode_with` copies the same payload into, once the node has written its
    /// federation in; and the event loop's stamping takes it as it is.
    #[test]
    fn a_frame_encoded_in_place_is_the_frame_encoded_from_a_payload() {
        let latest = LatestKey {
            key: 7,
            attributes: 0b101,
        };
        for (class, latest) in [
            (TransportClass::Reliable, None),
            (TransportClass::BestEffort, None),
            (TransportClass::BestEffort, Some(latest)),
        ] {
            let (ids, payload) = ([3, 9, 12], b"the message".as_slice());
            let mut copied = BytesMut::new();
            DataFrame::encode_with(&mut copied, &header(class), latest, &ids, payload);
            let mut arena = BytesMut::with_capacity(1 << 10);
            let priority = class.default_priority();
            let mut frame =
                UnstampedFrame::encode(&mut arena, class, priority, latest, &ids, |o| {
                    o.put_slice(payload)
                });
            assert!(arena.is_empty(), "the frame is split off the arena");
            assert_eq!(frame.ids().collect::<Vec<_>>(), ids);
            assert_eq!(frame.payload(), payload);
            assert_eq!((frame.class(), frame.latest()), (class, latest));
            assert_eq!(frame.priority(), priority);
            assert_eq!((frame.id_count(), frame.len()), (3, copied.len()));
            frame.set_federation(FederationId(0xfed));
            assert_eq!(frame.clone().into_bytes(), copied);
            let stamped = DataFrame::from_encoded(frame.into_bytes(), NodeId(5), 1, |_| 1)
                .expect("the router's checks pass");
            assert_eq!(stamped.payload(), payload);
            assert_eq!(stamped.federation(), FederationId(0xfed));
        }
    }

    /// More ids than a frame can count: the frame cannot say how many, so the true count
    /// is kept for the node, which refuses it.
    #[test]
    fn an_unstamped_frame_keeps_an_id_count_its_header_cannot_hold() {
        let ids: Vec<u32> = (0..=MAX_IDS_PER_FRAME as u32).collect();
        let reliable = TransportClass::Reliable;
        let frame = UnstampedFrame::encode(&mut BytesMut::new(), reliable, 4, None, &ids, |_| {});
        assert_eq!(frame.id_count(), MAX_IDS_PER_FRAME + 1);
        assert_eq!(frame.ids().len(), MAX_IDS_PER_FRAME);
        let frame = UnstampedFrame::encode(&mut BytesMut::new(), reliable, 4, None, &[], |_| {});
        assert_eq!(frame.id_count(), 0);
    }
}
