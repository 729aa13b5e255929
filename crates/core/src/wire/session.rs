//! Link sessions: the frames that let a link that failed be resumed without losing or
//! repeating a reliable frame.
//!
//! ```text
//! session: header (6) | session: u64 | resume: u8 (0 or 1) | [your session: u64 | received: u64]
//! ack:     header (6) | received: u64
//! ```
//!
//! Each side of a link numbers the reliable data frames it sends on it (1, 2, …) and counts
//! those it received and routed. Right after the hellos each side sends a session frame
//! naming its session; if it holds a suspended link to the same node, it adds which of the
//! far side's sessions that was and how many reliable frames it received on it. The far
//! side then sends again, first, what it sent on that session after that count. Acks trim
//! what each side keeps for resending.

use super::reader::Reader;
use super::{put_header, FrameKind, WireError};
use bytes::{BufMut, BytesMut};

/// A link session resumed: which of the receiver's sessions, and how far the sender got.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Resume {
    /// The session the receiver of this frame named on the link that failed.
    pub your_session: u64,
    /// Reliable frames the sender received and routed on that link.
    pub received: u64,
}

/// Sent right after the hellos: names the sender's session on the link and, if it held a suspended
/// link to the same node, resumes it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SessionFrame {
    /// The sender's number for this link session.
    pub session: u64,
    /// Present when the sender resumes a suspended link of the far side.
    pub resume: Option<Resume>,
}

impl SessionFrame {
    /// Appends the encoded frame to `out`.
    pub fn encode(&self, out: &mut BytesMut) {
        let body = 8 + 1 + if self.resume.is_some() { 16 } else { 0 };
        put_header(out, FrameKind::Session, body);
        out.put_u64_le(self.session);
        match self.resume {
            None => out.put_u8(0),
            Some(resume) => {
                out.put_u8(1);
                out.put_u64_le(resume.your_session);
                out.put_u64_le(resume.received);
            }
        }
    }

    pub(super) fn decode(r: &mut Reader<'_>) -> Result<SessionFrame, WireError> {
        let session = r.u64("session")?;
        let resume = match r.u8("resume flag")? {
            0 => None,
            1 => Some(Resume {
                your_session: r.u64("resumed session")?,
                received: r.u64("received count")?,
            }),
            _ => {
                return Err(WireError::Malformed {
                    kind: "session",
                    what: "resume flag is neither 0 nor 1",
                })
            }
        };
        Ok(SessionFrame { session, resume })
    }
}

/// Reliable frames received and routed on this link so far.
pub fn encode_ack(out: &mut BytesMut, received: u64) {
    put_header(out, FrameKind::Ack, 8);
    out.put_u64_le(received);
}
