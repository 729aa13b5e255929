//! The wire protocol: versioned, length-prefixed frames.
//!
//! Every frame starts with the same six bytes:
//!
//! ```text
//! length: u32 LE   bytes that follow this field (so a frame is 4 + length bytes long)
//! version: u8      PROTOCOL_VERSION
//! kind: u8         FrameKind
//! ```
//!
//! Decoding never trusts the peer: the length is checked against a configured maximum before
//! a single byte of the body is buffered, every field is bounds-checked, and every failure is a
//! [`WireError`] value. The caller closes the one link that sent it.

mod arena;
mod control;
mod data;
mod manage;
pub(crate) mod reader;
mod session;

pub use arena::{FrameArena, ARENA_BYTES};
pub(crate) use control::clip as control_clip;
pub use control::{Goodbye, Hello, InterestFrame, InterestOp, LinkFlags, Role, UdpOffer};
pub use data::{
    DataFrame, DataHeader, DataIds, LatestKey, TransportClass, UnstampedFrame,
    LATEST_EXTENSION_LEN, MAX_IDS_PER_FRAME,
};
pub use manage::{ManageDirection, ManageFrame, RegistryRoute};
pub use session::{encode_ack, Resume, SessionFrame};

use bytes::{Bytes, BytesMut};
use reader::Reader;
use thiserror::Error;

/// The protocol version this build speaks. A peer with another version is refused at hello
/// (`WireError::UnsupportedVersion`, named in the goodbye). 3: data frames may carry a
/// keep-latest key (`DataFrame`). 4: federate messages, which data frames carry, write a
/// default instance name as a mark and regions and value framing as varints
/// (`federate::message`); routers never read them, but a federate of version 3 would drop
/// every update of version 4 as malformed, so the two must not meet in one federation.
/// 5: the registry's `NodeGone` request and `FederateLeft` event say how the federate left
/// (`registry::Departure`: a slow consumer cut is told apart from a death); a
/// time-stamp-order federate message carries its retraction serial after the time stamp,
/// and the time channel a retraction (`federate::retraction`): a federate of version 4
/// would misread every time-stamped message. 6: the first router writes the certificate name
/// its link proved into each manage frame. 7: the MOM's manager resign
/// (`Request::ResignFederate`) and its `Departure::ByManager`, which a federate of version 6
/// would refuse as malformed in the federation's events. 8: federation save and restore
/// (`Request::Save`, `FederationEvent::Save` and their answers, `registry::save`).
pub const PROTOCOL_VERSION: u8 = 8;
/// Bytes of the length prefix.
pub const LENGTH_PREFIX: usize = 4;
/// Length prefix, version and kind: the part every frame shares.
pub const FRAME_HEADER_LEN: usize = 6;
/// Largest frame accepted unless configured otherwise.
pub const DEFAULT_MAX_FRAME_SIZE: usize = 1 << 20;
/// No configuration can raise the frame limit past this.
pub const HARD_MAX_FRAME_SIZE: usize = 64 << 20;

/// Clamp a configured frame limit into the range the codec supports.
pub fn clamp_max_frame_size(configured: usize) -> usize {
    configured.clamp(MIN_MAX_FRAME_SIZE, HARD_MAX_FRAME_SIZE)
}

/// Below this a hello or a goodbye could not fit; configuration is clamped up to it.
pub const MIN_MAX_FRAME_SIZE: usize = 1024;

/// Identifies a federation on the wire: the 64-bit FNV-1a hash of its name.
///
/// A hash rather than a negotiated number lets any two routers agree on it without a round
/// trip; routers that learn a name for an id refuse a second name with the same id.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FederationId(pub u64);

impl FederationId {
    /// The id of the federation named `name` (FNV-1a of its UTF-8 bytes); every node computes the
    /// same.
    pub fn of(name: &str) -> FederationId {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for byte in name.bytes() {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        FederationId(hash)
    }
}

impl std::fmt::Display for FederationId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// Identifies a node (router or federate) as the source of data frames.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct NodeId(pub u64);

impl std::fmt::Display for NodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// The kind byte of a frame header: which body follows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum FrameKind {
    /// Opens a link: who the sender is and what it is to the receiver ([`Hello`]).
    Hello = 1,
    /// A change to the sender's declared interest ([`InterestFrame`]).
    Interest = 2,
    /// A published message with its interest ids ([`DataFrame`]).
    Data = 3,
    /// No body: keeps an idle link from timing out.
    Heartbeat = 4,
    /// The sender closes the link on purpose, saying why ([`Goodbye`]).
    Goodbye = 5,
    /// The sender's distance to the federation registry ([`RegistryRoute`]).
    RegistryRoute = 6,
    /// A federation-management request or reply on its way to or from the registry
    /// ([`ManageFrame`]).
    Manage = 7,
    /// Names the sender's link session, and resumes a failed one ([`SessionFrame`]).
    Session = 8,
    /// Reliable frames received on the link so far, so the sender trims what it keeps to resend.
    Ack = 9,
}

impl FrameKind {
    fn from_byte(byte: u8) -> Option<FrameKind> {
        Some(match byte {
            1 => FrameKind::Hello,
            2 => FrameKind::Interest,
            3 => FrameKind::Data,
            4 => FrameKind::Heartbeat,
            5 => FrameKind::Goodbye,
            6 => FrameKind::RegistryRoute,
            7 => FrameKind::Manage,
            8 => FrameKind::Session,
            9 => FrameKind::Ack,
            _ => return None,
        })
    }

    /// Lower-case name for errors and logs.
    pub fn name(self) -> &'static str {
        match self {
            FrameKind::Hello => "hello",
            FrameKind::Interest => "interest",
            FrameKind::Data => "data",
            FrameKind::Heartbeat => "heartbeat",
            FrameKind::Goodbye => "goodbye",
            FrameKind::RegistryRoute => "registry route",
            FrameKind::Manage => "manage",
            FrameKind::Session => "session",
            FrameKind::Ack => "ack",
        }
    }
}

/// Why bytes from a peer could not be decoded. Each closes only the link that sent them.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum WireError {
    /// The length prefix announces a frame above the link's limit.
    #[error("frame of {len} bytes exceeds the limit of {max} bytes")]
    Oversize {
        /// Bytes the frame would take, as announced.
        len: u64,
        /// The link's frame limit in bytes.
        max: usize,
    },
    /// The peer speaks another [`PROTOCOL_VERSION`].
    #[error("unsupported protocol version {got} (this node speaks version {PROTOCOL_VERSION})")]
    UnsupportedVersion {
        /// The version byte it sent.
        got: u8,
    },
    /// The kind byte names no [`FrameKind`]; holds that byte.
    #[error("unknown frame kind {0}")]
    UnknownKind(u8),
    /// A field is out of range or does not decode.
    #[error("malformed {kind} frame: {what}")]
    Malformed {
        /// The frame kind, as [`FrameKind::name`] gives it.
        kind: &'static str,
        /// Which field or rule is broken.
        what: &'static str,
    },
    /// The stream ended inside a frame.
    #[error("truncated frame: the stream ended {missing} bytes before the frame was complete")]
    Truncated {
        /// Bytes the frame still lacked.
        missing: usize,
    },
}

/// One decoded frame. Data frames keep their encoded bytes so routers forward them untouched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// Opens a link.
    Hello(Hello),
    /// Declares or withdraws interest.
    Interest(InterestFrame),
    /// A published message, kept encoded.
    Data(DataFrame),
    /// Keeps an idle link alive.
    Heartbeat,
    /// Closes a link on purpose.
    Goodbye(Goodbye),
    /// The sender's distance to the registry.
    RegistryRoute(RegistryRoute),
    /// A federation-management request or reply.
    Manage(ManageFrame),
    /// Names or resumes a link session.
    Session(SessionFrame),
    /// Reliable frames the far side received and routed on this link so far.
    Ack(u64),
}

impl Frame {
    /// The kind byte this frame is encoded with.
    pub fn kind(&self) -> FrameKind {
        match self {
            Frame::Hello(_) => FrameKind::Hello,
            Frame::Interest(_) => FrameKind::Interest,
            Frame::Data(_) => FrameKind::Data,
            Frame::Heartbeat => FrameKind::Heartbeat,
            Frame::Goodbye(_) => FrameKind::Goodbye,
            Frame::RegistryRoute(_) => FrameKind::RegistryRoute,
            Frame::Manage(_) => FrameKind::Manage,
            Frame::Session(_) => FrameKind::Session,
            Frame::Ack(_) => FrameKind::Ack,
        }
    }

    /// Parse one complete frame, length prefix included.
    pub fn parse(frame: Bytes) -> Result<Frame, WireError> {
        let kind = check_header(&frame, usize::MAX)?;
        let Some(kind) = kind else {
            return Err(WireError::Malformed {
                kind: "frame",
                what: "shorter than the frame header",
            });
        };
        let declared = LENGTH_PREFIX + read_length(&frame) as usize;
        if declared != frame.len() {
            return Err(WireError::Malformed {
                kind: kind.name(),
                what: "length prefix does not match the frame",
            });
        }
        match kind {
            FrameKind::Data => DataFrame::from_bytes(frame).map(Frame::Data),
            FrameKind::Heartbeat => {
                if frame.len() != FRAME_HEADER_LEN {
                    return Err(WireError::Malformed {
                        kind: "heartbeat",
                        what: "unexpected body",
                    });
                }
                Ok(Frame::Heartbeat)
            }
            FrameKind::Hello => {
                let mut r = Reader::new(&frame[FRAME_HEADER_LEN..], "hello");
                let hello = Hello::decode(&mut r)?;
                r.finish()?;
                Ok(Frame::Hello(hello))
            }
            FrameKind::Interest => {
                let mut r = Reader::new(&frame[FRAME_HEADER_LEN..], "interest");
                let interest = InterestFrame::decode(&mut r)?;
                r.finish()?;
                Ok(Frame::Interest(interest))
            }
            FrameKind::Goodbye => {
                let mut r = Reader::new(&frame[FRAME_HEADER_LEN..], "goodbye");
                let goodbye = Goodbye::decode(&mut r)?;
                r.finish()?;
                Ok(Frame::Goodbye(goodbye))
            }
            FrameKind::RegistryRoute => {
                let mut r = Reader::new(&frame[FRAME_HEADER_LEN..], "registry route");
                let route = RegistryRoute::decode(&mut r)?;
                r.finish()?;
                Ok(Frame::RegistryRoute(route))
            }
            FrameKind::Manage => ManageFrame::from_frame(frame).map(Frame::Manage),
            FrameKind::Session => {
                let mut r = Reader::new(&frame[FRAME_HEADER_LEN..], "session");
                let session = SessionFrame::decode(&mut r)?;
                r.finish()?;
                Ok(Frame::Session(session))
            }
            FrameKind::Ack => {
                let mut r = Reader::new(&frame[FRAME_HEADER_LEN..], "ack");
                let received = r.u64("received count")?;
                r.finish()?;
                Ok(Frame::Ack(received))
            }
        }
    }
}

#[inline]
fn read_length(buf: &[u8]) -> u32 {
    u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]])
}

/// Validate whatever part of the header is present. Returns the kind once all six bytes are
/// there, `None` before. Errors as early as the bytes allow, so garbage is refused after at
/// most six bytes, whatever length it claims.
#[inline]
fn check_header(buf: &[u8], max_frame_size: usize) -> Result<Option<FrameKind>, WireError> {
    if buf.len() < LENGTH_PREFIX {
        return Ok(None);
    }
    let body = u64::from(read_length(buf));
    let total = LENGTH_PREFIX as u64 + body;
    if total > max_frame_size as u64 {
        return Err(WireError::Oversize {
            len: total,
            max: max_frame_size,
        });
    }
    if total < FRAME_HEADER_LEN as u64 {
        return Err(WireError::Malformed {
            kind: "frame",
            what: "length shorter than the frame header",
        });
    }
    if buf.len() < LENGTH_PREFIX + 1 {
        return Ok(None);
    }
    if buf[4] != PROTOCOL_VERSION {
        return Err(WireError::UnsupportedVersion { got: buf[4] });
    }
    if buf.len() < FRAME_HEADER_LEN {
        return Ok(None);
    }
    FrameKind::from_byte(buf[5])
        .map(Some)
        .ok_or(WireError::UnknownKind(buf[5]))
}

/// Take one frame off the front of a stream buffer.
///
/// `Ok(None)` means more bytes are needed; the buffer then never has to grow past
/// `max_frame_size`, because a longer declared length is refused before its body arrives.
pub fn decode_frame(buf: &mut BytesMut, max_frame_size: usize) -> Result<Option<Frame>, WireError> {
    split_frame(buf, max_frame_size)?
        .map(|(_, frame)| Frame::parse(frame))
        .transpose()
}

/// Split the next whole frame off the front of `buf`, length prefix included, with its kind
/// and its header checked but its body not yet decoded: a router decodes data frames by a
/// shorter path than [`Frame::parse`] (they are most of what it reads).
#[inline]
pub fn split_frame(
    buf: &mut BytesMut,
    max_frame_size: usize,
) -> Result<Option<(FrameKind, Bytes)>, WireError> {
    let Some(kind) = check_header(buf, max_frame_size)? else {
        return Ok(None);
    };
    let total = LENGTH_PREFIX + read_length(buf) as usize;
    if buf.len() < total {
        return Ok(None);
    }
    Ok(Some((kind, buf.split_to(total).freeze())))
}

/// Bytes still needed before the frame at the front of `buf` is complete (0 if it is).
pub fn missing_bytes(buf: &[u8]) -> usize {
    if buf.len() < LENGTH_PREFIX {
        return LENGTH_PREFIX - buf.len();
    }
    let total = LENGTH_PREFIX + read_length(buf) as usize;
    total.saturating_sub(buf.len())
}

/// Append the frame header for a frame with `body_len` bytes after the kind byte.
fn put_header(out: &mut BytesMut, kind: FrameKind, body_len: usize) {
    use bytes::BufMut;
    let length = u32::try_from(body_len + 2).expect("frame length checked by the encoder");
    out.put_u32_le(length);
    out.put_u8(PROTOCOL_VERSION);
    out.put_u8(kind as u8);
}

/// Encode a heartbeat frame.
pub fn encode_heartbeat(out: &mut BytesMut) {
    put_header(out, FrameKind::Heartbeat, 0);
}

#[cfg(test)]
mod tests;
