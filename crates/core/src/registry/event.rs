//! Registry events: what the registry tells every joined federate of a federation, in one
//! total order (a sequence number per federation). They travel as reliable data frames on
//! the federation's broadcast id (`crate::interest::BROADCAST_IDS`), so every federate sees
//! the same membership, synchronization-point and time-management history in the same order.
//!
//! ```text
//! payload: REGISTRY_EVENT_KIND: u8 | epoch: u64 | seq: u64 | kind: u8 | body
//! ```
//!
//! The epoch names the registry incarnation that sequenced the event: a restarted registry
//! numbers afresh, and a federate that sees an epoch it does not know reclaims its
//! membership instead of mistaking the new numbers for old ones.

use super::codec::{get_handles, get_strs, put_handles, put_str, put_strs};
use super::save::SaveEvent;
use crate::wire::reader::Reader;
use crate::wire::WireError;
use bytes::{BufMut, Bytes, BytesMut};

/// First byte of a registry event's payload. Federate messages use small kinds; this one
/// can never be mistaken for one of them.
pub const REGISTRY_EVENT_KIND: u8 = 0x40;

/// The broadcast id registry events travel on.
pub const FEDERATION_CONTROL_ID: u32 = *crate::interest::BROADCAST_IDS.start();

/// A time-management membership switch, as the registry orders them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimeSwitch {
    /// enableTimeRegulation: the federate's regulation epoch is this event's sequence number.
    RegulationOn,
    /// disableTimeRegulation: constrained federates stop waiting for its bound.
    RegulationOff,
    /// enableTimeConstrained: regulating federates answer it with their bounds.
    ConstrainedOn,
    /// disableTimeConstrained: it no longer waits for regulating federates' bounds.
    ConstrainedOff,
}

impl TimeSwitch {
    pub(crate) fn to_byte(self) -> u8 {
        match self {
            TimeSwitch::RegulationOn => 1,
            TimeSwitch::RegulationOff => 2,
            TimeSwitch::ConstrainedOn => 3,
            TimeSwitch::ConstrainedOff => 4,
        }
    }

    pub(crate) fn from_byte(byte: u8) -> Option<TimeSwitch> {
        Some(match byte {
            1 => TimeSwitch::RegulationOn,
            2 => TimeSwitch::RegulationOff,
            3 => TimeSwitch::ConstrainedOn,
            4 => TimeSwitch::ConstrainedOff,
            _ => return None,
        })
    }
}

/// How a federate left its federation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Departure {
    /// It resigned: it asked.
    Resigned,
    /// The federation resigned it as died: its node's link failed, or no router vouched for
    /// it within its lease.
    Died,
    /// The federation resigned it because its router cut it as a slow consumer: it took
    /// nothing while its queue stayed full past the slow-consumer bound.
    SlowConsumer,
    /// A federation manager resigned it (the MOM's HLAservice.HLAresignFederationExecution).
    ByManager,
}

impl Departure {
    /// Whether the federate was resigned behind its back: it says nothing more.
    pub fn died(self) -> bool {
        self != Departure::Resigned
    }

    pub(crate) fn code(self) -> u8 {
        match self {
            Departure::Resigned => 0,
            Departure::Died => 1,
            Departure::SlowConsumer => 2,
            Departure::ByManager => 3,
        }
    }

    pub(crate) fn from_code(code: u8) -> Option<Departure> {
        match code {
            0 => Some(Departure::Resigned),
            1 => Some(Departure::Died),
            2 => Some(Departure::SlowConsumer),
            3 => Some(Departure::ByManager),
            _ => None,
        }
    }
}

/// A membership, synchronization or time-management change the registry announces to every
/// member of a federation, in its total order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FederationEvent {
    /// A federate joined (it is then a member for every later event).
    FederateJoined {
        /// Its federate handle.
        federate: u32,
        /// Its federate name.
        name: String,
        /// Its federate type.
        kind: String,
    },
    /// Resigned, or resigned by the federation (see [`Departure`]).
    FederateLeft {
        /// The federate's handle.
        federate: u32,
        /// Why it left.
        how: Departure,
    },
    /// announceSynchronizationPoint; `members` empty: the whole federation, late joiners too.
    SyncAnnounced {
        /// The point's label.
        label: String,
        /// The registering federate's tag.
        tag: Bytes,
        /// Handles of the member federates.
        members: Vec<u32>,
    },
    /// federationSynchronized: every member of the point achieved it (or left).
    FederationSynchronized {
        /// The point's label.
        label: String,
        /// Handles of the members that achieved it unsuccessfully.
        failed: Vec<u32>,
    },
    /// A federate asked to switch regulation or constraint on or off.
    Time {
        /// The switching federate's handle.
        federate: u32,
        /// Which switch.
        switch: TimeSwitch,
    },
    /// A joiner's additional FOM modules (1516.1-2010 §4.9) extend the federation's object
    /// model: `modules` is the whole list now, the federation's first, and `fingerprint` the
    /// model they make. Members extend theirs to match (handles append: none moves).
    ModulesAdded {
        /// The object model's modules, the federation's first, then every joiner's additions.
        modules: Vec<String>,
        /// Fingerprint of the object model the modules make.
        fingerprint: u64,
    },
    /// Save and restore (`registry/save.rs`).
    Save(SaveEvent),
}

impl FederationEvent {
    /// The payload of the event numbered `seq` in registry incarnation `epoch`.
    pub fn encode(&self, epoch: u64, seq: u64) -> Bytes {
        let mut out = BytesMut::new();
        out.put_u8(REGISTRY_EVENT_KIND);
        out.put_u64_le(epoch);
        out.put_u64_le(seq);
        match self {
            FederationEvent::FederateJoined {
                federate,
                name,
                kind,
            } => {
                out.put_u8(1);
                out.put_u32_le(*federate);
                put_str(&mut out, name);
                put_str(&mut out, kind);
            }
            FederationEvent::FederateLeft { federate, how } => {
                out.put_u8(2);
                out.put_u32_le(*federate);
                out.put_u8(how.code());
            }
            FederationEvent::SyncAnnounced {
                label,
                tag,
                members,
            } => {
                out.put_u8(3);
                put_str(&mut out, label);
                put_str_bytes(&mut out, tag);
                put_handles(&mut out, members);
            }
            FederationEvent::FederationSynchronized { label, failed } => {
                out.put_u8(4);
                put_str(&mut out, label);
                put_handles(&mut out, failed);
            }
            FederationEvent::Time { federate, switch } => {
                out.put_u8(5);
                out.put_u32_le(*federate);
                out.put_u8(switch.to_byte());
            }
            FederationEvent::ModulesAdded {
                modules,
                fingerprint,
            } => {
                out.put_u8(6);
                put_strs(&mut out, modules);
                out.put_u64_le(*fingerprint);
            }
            FederationEvent::Save(event) => {
                out.put_u8(7);
                event.encode(&mut out);
            }
        }
        out.freeze()
    }

    /// (sequence number, event) from a payload that starts with `REGISTRY_EVENT_KIND`.
    pub fn decode(payload: &[u8]) -> Result<(u64, FederationEvent), WireError> {
        Self::decode_stamped(payload).map(|(_, seq, event)| (seq, event))
    }

    /// (registry epoch, sequence number, event).
    pub fn decode_stamped(payload: &[u8]) -> Result<(u64, u64, FederationEvent), WireError> {
        let mut r = Reader::new(payload, "registry event");
        if r.u8("payload kind")? != REGISTRY_EVENT_KIND {
            return Err(r.malformed("not a registry event"));
        }
        let epoch = r.u64("epoch")?;
        let seq = r.u64("seq")?;
        let event = match r.u8("event kind")? {
            1 => FederationEvent::FederateJoined {
                federate: r.u32("federate")?,
                name: r.long_str("name")?,
                kind: r.long_str("type")?,
            },
            2 => FederationEvent::FederateLeft {
                federate: r.u32("federate")?,
                how: get_departure(&mut r)?,
            },
            3 => FederationEvent::SyncAnnounced {
                label: r.long_str("label")?,
                tag: get_str_bytes(&mut r)?,
                members: get_handles(&mut r)?,
            },
            4 => FederationEvent::FederationSynchronized {
                label: r.long_str("label")?,
                failed: get_handles(&mut r)?,
            },
            5 => FederationEvent::Time {
                federate: r.u32("federate")?,
                switch: TimeSwitch::from_byte(r.u8("switch")?)
                    .ok_or(r.malformed("unknown time switch"))?,
            },
            6 => FederationEvent::ModulesAdded {
                modules: get_strs(&mut r)?,
                fingerprint: r.u64("fingerprint")?,
            },
            7 => FederationEvent::Save(SaveEvent::decode(&mut r)?),
            _ => return Err(r.malformed("unknown registry event")),
        };
        r.finish()?;
        Ok((epoch, seq, event))
    }
}

pub(crate) fn put_str_bytes(out: &mut BytesMut, bytes: &[u8]) {
    let bytes = &bytes[..bytes.len().min(u16::MAX as usize)];
    out.put_u16_le(bytes.len() as u16);
    out.put_slice(bytes);
}

pub(crate) fn get_departure(r: &mut Reader<'_>) -> Result<Departure, WireError> {
    let code = r.u8("departure")?;
    Departure::from_code(code).ok_or_else(|| r.malformed("unknown departure"))
}

pub(crate) fn get_str_bytes(r: &mut Reader<'_>) -> Result<Bytes, WireError> {
    let len = r.u16("tag length")? as usize;
    Ok(Bytes::copy_from_slice(r.bytes(len, "tag")?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_round_trip_and_reject_garbage() {
        let events = [
            FederationEvent::FederateJoined {
                federate: 3,
                name: "tank".into(),
                kind: "sim".into(),
            },
            FederationEvent::FederateLeft {
                federate: 3,
                how: Departure::SlowConsumer,
            },
            FederationEvent::SyncAnnounced {
                label: "ReadyToRun".into(),
                tag: Bytes::from_static(b"t"),
                members: vec![1, 2],
            },
            FederationEvent::FederationSynchronized {
                label: "ReadyToRun".into(),
                failed: vec![2],
            },
            FederationEvent::Time {
                federate: 1,
                switch: TimeSwitch::ConstrainedOff,
            },
            FederationEvent::ModulesAdded {
                modules: vec!["/foms/base.xml".into(), "/foms/tanks.xml".into()],
                fingerprint: 0x1234,
            },
            FederationEvent::Save(SaveEvent::Initiated {
                label: "s1".into(),
                time: Some(40),
            }),
            FederationEvent::Save(SaveEvent::NotSaved {
                reason: super::super::SaveFailureReason::FederateResignedDuringSave,
            }),
            FederationEvent::Save(SaveEvent::RestoreBegun { label: "s1".into() }),
        ];
        for (seq, event) in events.into_iter().enumerate() {
            let bytes = event.encode(99, seq as u64);
            assert_eq!(
                FederationEvent::decode_stamped(&bytes).unwrap(),
                (99, seq as u64, event)
            );
            for cut in 0..bytes.len() {
                assert!(FederationEvent::decode(&bytes[..cut]).is_err());
            }
        }
        assert!(FederationEvent::decode(&[
            REGISTRY_EVENT_KIND,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            9
        ])
        .is_err());
    }
}
