//! Management frames: federation management travels between federates and the one
//! registry of the network (DESIGN.md leaves its place to us; see `crate::registry`).
//!
//! ```text
//! registry route: distance: u8          hops to the registry from the sender (255: none)
//! manage:         direction: u8 (1 request, 2 reply) | origin: u64 | request: u64 | body
//! ```
//!
//! Routers forward manage frames toward the registry and replies back along the way the
//! request came, without looking at the body.

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
    pub const UNREACHABLE: u8 = u8::MAX;

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<RegistryRoute, WireError> {
        Ok(RegistryRoute {
            distance: r.u8("distance")?,
        })
    }

    pub fn encode(&self, out: &mut BytesMut) {
        put_header(out, FrameKind::RegistryRoute, 1);
        out.put_u8(self.distance);
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ManageDirection {
    Request,
    Reply,
}

const FIXED: usize = FRAME_HEADER_LEN + 1 + 8 + 8;

/// A management request or reply. The body is the registry's business.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManageFrame {
    pub direction: ManageDirection,
    /// The node that asked; with `request`, names the exchange network-wide.
    pub origin: NodeId,
    pub request: u64,
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
        Ok(ManageFrame {
            direction,
            origin,
            request,
            body: frame.slice(FIXED..),
        })
    }

    pub fn encode(&self, out: &mut BytesMut) {
        put_header(
            out,
            FrameKind::Manage,
            FIXED - FRAME_HEADER_LEN + self.body.len(),
        );
        out.put_u8(match self.direction {
            ManageDirection::Request => 1,
            ManageDirection::Reply => 2,
        });
        out.put_u64_le(self.origin.0);
        out.put_u64_le(self.request);
        out.put_slice(&self.body);
    }
}
