//! What federates tell each other for time management, broadcast to the federation on
//! `TIME_ID` (see `crate::interest::BROADCAST_IDS`) as reliable data frames, so that each
//! travels the same FIFO path as the sender's time-stamped data.
//!
//! ```text
//! payload: TIME_MESSAGE_KIND: u8 | sender: u32 | epoch: u64 | kind: u8 | body
//! bound:             bound: u64
//! regulator reply:   to: u32 | regulating: u8 | bound: u64
//! constrained reply: to: u32 | time: u64
//! regulation off, departing: (nothing)
//! retract:           serial: u32
//! ```
//!
//! A retraction names the sender's time-stamped message by its serial number
//! (`federate::retraction`); every federate reads it, and those that never received the
//! message ignore it.
//!
//! `epoch` names one period of regulation of the sender: the registry sequence number of
//! the event that switched it on (0 where it does not apply). A message of an older epoch
//! is stale and ignored.

use crate::federate::logical_time::LogicalTime;
use crate::wire::reader::Reader;
use crate::wire::WireError;
use bytes::{BufMut, Bytes, BytesMut};

/// First byte of a time-management message's payload, telling it from federate messages.
pub const TIME_MESSAGE_KIND: u8 = 0x41;
/// The broadcast id time-management messages travel on.
pub const TIME_ID: u32 = *crate::interest::BROADCAST_IDS.start() + 1;

/// What a time-management message says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeBody {
    /// The sender will send no time-stamped message with a time stamp below `bound`.
    Bound(LogicalTime),
    /// Answer to `to` switching constraint on: the sender's bound, or `None` when it is not
    /// regulating (any more).
    RegulatorReply {
        /// The federate that switched constraint on.
        to: u32,
        /// The sender's bound; `None` when it is not regulating.
        bound: Option<LogicalTime>,
    },
    /// Answer to `to` switching regulation on: the sender's logical time.
    ConstrainedReply {
        /// The federate that switched regulation on.
        to: u32,
        /// The sender's logical time.
        time: LogicalTime,
    },
    /// The sender stopped regulating: constrained federates no longer wait for its bound.
    RegulationOff,
    /// The sender resigns: the last time message it sends.
    Departing,
    /// The sender retracts its time-stamped message with this serial number.
    Retract {
        /// The sender's serial number of the retracted message.
        serial: u32,
    },
}

/// A time-management message, broadcast on `TIME_ID`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeMessage {
    /// Handle of the sending federate.
    pub sender: u32,
    /// The sender's regulation epoch (see the module doc); 0 where it does not apply.
    pub epoch: u64,
    /// What the message says.
    pub body: TimeBody,
}

impl TimeMessage {
    /// The payload: `TIME_MESSAGE_KIND` first, then the fields as the module doc lays out.
    pub fn encode(&self) -> Bytes {
        let mut out = BytesMut::with_capacity(32);
        out.put_u8(TIME_MESSAGE_KIND);
        out.put_u32_le(self.sender);
        out.put_u64_le(self.epoch);
        match self.body {
            TimeBody::Bound(bound) => {
                out.put_u8(1);
                out.put_u64_le(bound.key());
            }
            TimeBody::RegulatorReply { to, bound } => {
                out.put_u8(2);
                out.put_u32_le(to);
                out.put_u8(u8::from(bound.is_some()));
                out.put_u64_le(bound.map_or(0, LogicalTime::key));
            }
            TimeBody::ConstrainedReply { to, time } => {
                out.put_u8(3);
                out.put_u32_le(to);
                out.put_u64_le(time.key());
            }
            TimeBody::RegulationOff => out.put_u8(4),
            TimeBody::Departing => out.put_u8(5),
            TimeBody::Retract { serial } => {
                out.put_u8(6);
                out.put_u32_le(serial);
            }
        }
        out.freeze()
    }

    /// Read a payload that `encode` made; refuses a truncated or unknown one.
    pub fn decode(payload: &[u8]) -> Result<TimeMessage, WireError> {
        let mut r = Reader::new(payload, "time message");
        if r.u8("payload kind")? != TIME_MESSAGE_KIND {
            return Err(r.malformed("not a time message"));
        }
        let sender = r.u32("sender")?;
        let epoch = r.u64("epoch")?;
        let body = match r.u8("time message kind")? {
            1 => TimeBody::Bound(LogicalTime::from_key(r.u64("bound")?)),
            2 => {
                let to = r.u32("to")?;
                let regulating = r.u8("regulating")? != 0;
                let bound = LogicalTime::from_key(r.u64("bound")?);
                TimeBody::RegulatorReply {
                    to,
                    bound: regulating.then_some(bound),
                }
            }
            3 => TimeBody::ConstrainedReply {
                to: r.u32("to")?,
                time: LogicalTime::from_key(r.u64("time")?),
            },
            4 => TimeBody::RegulationOff,
            5 => TimeBody::Departing,
            6 => TimeBody::Retract {
                serial: r.u32("serial")?,
            },
            _ => return Err(r.malformed("unknown time message kind")),
        };
        r.finish()?;
        Ok(TimeMessage {
            sender,
            epoch,
            body,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_messages_round_trip_and_reject_truncation() {
        let t = LogicalTime::from_i64(42);
        for body in [
            TimeBody::Bound(t),
            TimeBody::RegulatorReply { to: 3, bound: None },
            TimeBody::RegulatorReply {
                to: 3,
                bound: Some(t),
            },
            TimeBody::ConstrainedReply { to: 4, time: t },
            TimeBody::RegulationOff,
            TimeBody::Departing,
            TimeBody::Retract { serial: u32::MAX },
        ] {
            let message = TimeMessage {
                sender: 7,
                epoch: 9,
                body,
            };
            let bytes = message.encode();
            assert_eq!(TimeMessage::decode(&bytes).unwrap(), message);
            for cut in 0..bytes.len() {
                assert!(TimeMessage::decode(&bytes[..cut]).is_err());
            }
        }
    }
}
