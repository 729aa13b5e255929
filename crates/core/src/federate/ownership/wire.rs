//! The ownership message body: one kind of federate message (kind 6) with an operation.
//!
//! ```text
//! ownership: op: u8 | object: u64 | from: u32 | to: u32 (0: everyone)
//!            | count: u16 | (attribute: u32, generation: u32) *
//!            | count: u16 | (attribute: u32, federate: u32) *
//! ```
//!
//! `from` is the federate on whose behalf the message speaks (a forwarded request keeps
//! its requester); the header's sender is the federate that transmitted it. The pairs
//! carry the acquirers still waiting for a handed-over attribute, or (in `Inform`) the
//! owner of each attribute, 0 meaning unowned. An attribute's generation counts the moves
//! of its keeper, so that announcements arriving out of order over different paths cannot
//! overwrite newer ones (0 in requests).

use super::super::message::ObjectId;
use crate::wire::reader::Reader;
use crate::wire::WireError;
use bytes::{BufMut, BytesMut};

/// What an ownership message asks or announces. See the module doc of `ownership`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Op {
    /// negotiatedAttributeOwnershipDivestiture: the owner looks for takers.
    Offer = 1,
    /// attributeOwnershipAcquisition, to every keeper.
    Acquire = 2,
    /// attributeOwnershipAcquisitionIfAvailable, to every keeper.
    AcquireIfAvailable = 3,
    /// cancelAttributeOwnershipAcquisition, to every keeper.
    Cancel = 4,
    /// The keeper hands the attributes to `to`, which now owns them; everyone notes it.
    Grant = 5,
    /// To `to`: the attributes are owned and not offered (attributeOwnershipUnavailable).
    Unavailable = 6,
    /// To `to`: its acquisition was withdrawn from the keeper's queue.
    CancelConfirmed = 7,
    /// The owner divested unconditionally and keeps the attributes unowned, in trust.
    Unowned = 8,
    /// The keeper hands the attributes, unowned, to `to` (a resigning keeper).
    HandOver = 9,
    /// queryAttributeOwnership, to every keeper.
    Query = 10,
    /// To `to`: the owner of each attribute (pairs), 0 for unowned.
    Inform = 11,
}

impl Op {
    fn from_u8(op: u8) -> Option<Op> {
        use Op::*;
        [
            Offer,
            Acquire,
            AcquireIfAvailable,
            Cancel,
            Grant,
            Unavailable,
            CancelConfirmed,
            Unowned,
            HandOver,
            Query,
            Inform,
        ]
        .into_iter()
        .find(|o| *o as u8 == op)
    }
}

/// The body of an ownership message (federate message kind 6); layout in the module doc.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnershipBody {
    /// What the message asks or announces.
    pub op: Op,
    /// The instance whose attributes it concerns.
    pub object: ObjectId,
    /// The federate on whose behalf it speaks (kept when a request is forwarded).
    pub from: u32,
    /// The one federate meant; 0: every federate that hears it.
    pub to: u32,
    /// (attribute, generation)
    pub attributes: Vec<(u32, u32)>,
    /// (attribute, federate): acquirers still waiting for a handed-over attribute, or in
    /// `Inform` each attribute's owner (0: unowned).
    pub pairs: Vec<(u32, u32)>,
}

impl OwnershipBody {
    /// Bytes the encoding takes.
    pub fn encoded_len(&self) -> usize {
        1 + 8 + 4 + 4 + 2 + 8 * self.attributes.len() + 2 + 8 * self.pairs.len()
    }

    /// The caller keeps both lists within u16::MAX entries (attribute sets of one class).
    pub fn encode(&self, out: &mut BytesMut) {
        out.put_u8(self.op as u8);
        out.put_u64_le(self.object.0);
        out.put_u32_le(self.from);
        out.put_u32_le(self.to);
        out.put_u16_le(self.attributes.len() as u16);
        for (a, generation) in &self.attributes {
            out.put_u32_le(*a);
            out.put_u32_le(*generation);
        }
        out.put_u16_le(self.pairs.len() as u16);
        for (a, f) in &self.pairs {
            out.put_u32_le(*a);
            out.put_u32_le(*f);
        }
    }

    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<OwnershipBody, WireError> {
        let op = r.u8("ownership op")?;
        let op = Op::from_u8(op).ok_or_else(|| r.malformed("unknown ownership op"))?;
        let object = ObjectId(r.u64("object")?);
        let from = r.u32("from")?;
        let to = r.u32("to")?;
        let count = r.u16("attribute count")? as usize;
        let mut attributes = Vec::with_capacity(count.min(r.remaining() / 8));
        for _ in 0..count {
            attributes.push((r.u32("attribute")?, r.u32("generation")?));
        }
        let count = r.u16("pair count")? as usize;
        let mut pairs = Vec::with_capacity(count.min(r.remaining() / 8));
        for _ in 0..count {
            pairs.push((r.u32("attribute")?, r.u32("federate")?));
        }
        Ok(OwnershipBody {
            op,
            object,
            from,
            to,
            attributes,
            pairs,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::message::{Body, Message};
    use super::*;
    use bytes::Bytes;

    #[test]
    fn ownership_messages_round_trip_and_truncations_fail() {
        let message = Message {
            sender: 2,
            class: 3,
            time: 0,
            time_stamped: false,
            serial: None,
            tag: Bytes::from_static(b"why"),
            body: Body::Ownership(OwnershipBody {
                op: Op::Grant,
                object: ObjectId::new(1, 4),
                from: 2,
                to: 5,
                attributes: vec![(7, 1), (8, 2)],
                pairs: vec![(7, 9)],
            }),
        };
        let mut out = BytesMut::new();
        message.encode(&mut out);
        let payload = out.freeze();
        assert_eq!(Message::decode(&payload).unwrap(), message);
        for cut in 0..payload.len() {
            assert!(Message::decode(&payload.slice(..cut)).is_err(), "cut {cut}");
        }
        let mut bad_op = payload.to_vec();
        bad_op[1 + 4 + 4 + 8 + 2 + 3] = 200;
        assert!(Message::decode(&Bytes::from(bad_op)).is_err());
    }
}
