//! Management frames: federation management travels between federates and the one
//! registry of the network (DESIGN.md leaves its place to us; see `crate::registry`).
//!
//! ```text
//! registry route: distance: u8          hops to the registry from the sender (255: none)
//! manage:         direction: u8 (1 request, 2 reply) | origin: u64 | request: u64
//!                 | asker: u16 length (0xFFFF: none) + UTF-8 | body
//! ```
//!
//! Routers forward manage frames toward the registry and replies back along the way the
//! request came, without looking at the body. `asker` is the certificate name the first
//! router proved for the origin's link: that router sets it (over whatever the peer
//! wrote), the others carry it, and the registry counts its limits by it.

use super::reader::Reader;
use super::{put_header, FrameKind, NodeId, WireError, FRAME_HEADER_LEN};
use bytes::{BufMut, Bytes, BytesMut};

/// A router's distance to the registry, as it announces it to a neighbour.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RegistryRoute {
    /// Links between the sender and the registry; `UNREACHABLE` when it knows no way.
    pub distance: u8,
}

impl RegistryRoute {
    /// The `distance` that means no route to the registry is known.
    pub const UNREACHABLE: u8 = u8::MAX;

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<RegistryRoute, WireError> {
        Ok(RegistryRoute {
            distance: r.u8("distance")?,
        })
    }

    /// Appends the encoded frame to `out`.
    pub fn encode(&self, out: &mut BytesMut) {
        put_header(out, FrameKind::RegistryRoute, 1);
        out.put_u8(self.distance);
    }
}

/// Whether a manage frame travels toward the registry or back.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ManageDirection {
    /// Toward the registry.
    Request,
    /// Back to the origin, along the way the request came.
    Reply,
}

const FIXED: usize = FRAME_HEADER_LEN + 1 + 8 + 8;
/// The asker length that means none.
const NO_ASKER: u16 = u16::MAX;
/// The longest asker sent.
const MAX_ASKER: usize = 1024;

/// A management request or reply. The body is the registry's business.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManageFrame {
    /// Toward the registry or back.
    pub direction: ManageDirection,
    /// The node that asked; with `request`, names the exchange network-wide.
    pub origin: NodeId,
    /// The origin's number for the exchange; a reply carries the request's.
    pub request: u64,
    /// The origin link's proven certificate name (see the module documentation).
    pub asker: Option<String>,
    /// The registry's encoded request or reply, which routers do not read.
    pub body: Bytes,
}

impl ManageFrame {
    pub(crate) fn from_frame(frame: Bytes) -> Result<ManageFrame, WireError> {
        let mut r = Reader::new(&frame[FRAME_HEADER_LEN..], "manage");
        let direction = match r.u8("direction")? {
            1 => ManageDirection::Request,
            2 => ManageDirection::Reply,
            _ => return Err(r.malformed("unknown direction")),
        };
        let origin = NodeId(r.u64("origin")?);
        let request = r.u64("request")?;
        let asker = match r.u16("asker length")? {
            NO_ASKER => None,
            len => {
                let raw = r.bytes(len as usize, "asker")?;
                let name =
                    std::str::from_utf8(raw).map_err(|_| r.malformed("asker is not UTF-8"))?;
                Some(name.to_owned())
            }
        };
        let body_at = frame.len() - r.remaining();
        Ok(ManageFrame {
            direction,
            origin,
            request,
            asker,
            body: frame.slice(body_at..),
        })
    }

    /// Appends the encoded frame to `out`.
    pub fn encode(&self, out: &mut BytesMut) {
        let asker = self.asker.as_deref().map(|name| {
            // A certificate's common name is at most 64 characters; a longer one is cut
            // (at a character boundary), never sent as the "none" length.
            let mut end = name.len().min(MAX_ASKER);
            while !name.is_char_boundary(end) {
                end -= 1;
            }
            &name.as_bytes()[..end]
        });
        let asker_len = asker.map_or(0, <[u8]>::len);
        put_header(
            out,
            FrameKind::Manage,
            FIXED - FRAME_HEADER_LEN + 2 + asker_len + self.body.len(),
        );
        out.put_u8(match self.direction {
            ManageDirection::Request => 1,
            ManageDirection::Reply => 2,
        });
        out.put_u64_le(self.origin.0);
        out.put_u64_le(self.request);
        match asker {
            Some(name) => {
                out.put_u16_le(name.len() as u16);
                out.put_slice(name);
            }
            None => out.put_u16_le(NO_ASKER),
        }
        out.put_slice(&self.body);
    }
}
