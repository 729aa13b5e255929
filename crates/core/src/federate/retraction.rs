//! Retraction (IEEE 1516.1-2010 §8.21 Retract, §8.22 Request Retraction†).
//!
//! Every time-stamp-order message a regulating federate sends carries a serial number; with
//! the sender's handle it is the message's [`MessageRetractionHandle`], unique in the
//! federation. The sender keeps the messages it may still retract: those whose time stamp
//! is after its logical time (the standard's rule; a message at or before it may have been
//! granted to every receiver). The table is bounded: past [`MAX_RETRACTABLE`] entries the
//! oldest is dropped, and retracting it later fails with `MessageCanNoLongerBeRetracted`
//! saying so, rather than refusing sends of a federate that never retracts.
//!
//! **Path.** A retraction travels on the time channel (`time::TIME_ID`), as a
//! `TimeBody::Retract` from the sender's node. That channel is flooded along the same
//! unique block-graph paths as the message, and every link keeps reliable frames in FIFO
//! order (see `time`), so every receiver reads the retraction after the message and before
//! any bound the sender announces later: a constrained receiver is not granted past the
//! message's time stamp before the retraction is in (the sender's bound can only pass the
//! time stamp once its logical time has, and then it may no longer retract). Flooding
//! rather than the message's interest ids also reaches a receiver whose subscription
//! changed in between and still holds the message.
//!
//! **Receivers.** One that still holds the message in its time-stamp-order queue drops it
//! silently; one that was handed it already (receive order, or granted) gets
//! `Callback::RequestRetraction`. A receiver remembers the handles of the last
//! [`MAX_REMEMBERED_DELIVERIES`] time-stamped messages it delivered; a retraction of an
//! older or never received one is ignored.

use super::logical_time::{LogicalTime, TimeRepresentation};
use super::time::TimeError;
use roaring::RoaringBitmap;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeSet, VecDeque};

/// Most messages a federate keeps retractable at once (the oldest is dropped past it).
pub const MAX_RETRACTABLE: usize = 1 << 16;

/// Most delivered time-stamped messages a receiver remembers, to answer a retraction of
/// one with requestRetraction.
pub const MAX_REMEMBERED_DELIVERIES: usize = 1 << 16;

/// A message retraction handle: the sending federate and its serial number of the message
/// (from 1; 0 is never issued).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MessageRetractionHandle {
    /// Handle of the federate that sent the message.
    pub federate: u32,
    /// The sender's serial number of the message, from 1.
    pub serial: u32,
}

impl MessageRetractionHandle {
    /// As one number (the C ABI's): the federate in the high half, the serial in the low.
    pub fn to_u64(self) -> u64 {
        (u64::from(self.federate) << 32) | u64::from(self.serial)
    }

    /// The handle `to_u64` made of it.
    pub fn from_u64(value: u64) -> MessageRetractionHandle {
        MessageRetractionHandle {
            federate: (value >> 32) as u32,
            serial: value as u32,
        }
    }
}

impl std::fmt::Display for MessageRetractionHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.federate, self.serial)
    }
}

struct Entry {
    time: LogicalTime,
    retracted: bool,
}

/// The sender's messages that may still be retracted.
#[derive(Default)]
pub(super) struct Retractable {
    /// The serial last issued (0: none yet).
    last_serial: u32,
    /// Serials started again from 1 (after 2^32 - 1 messages): any serial may have been issued.
    wrapped: bool,
    entries: FxHashMap<u32, Entry>,
    /// The entries by time stamp, to drop those logical time has reached.
    by_time: BTreeSet<(LogicalTime, u32)>,
    /// The entries in the order they were issued (and serials dropped since, skipped when
    /// met), to drop the oldest when the table is full.
    issued: VecDeque<u32>,
    /// Serials dropped because the table was full: retracting one says so.
    dropped_for_room: RoaringBitmap,
}

impl Retractable {
    /// The serial the next retractable message gets (it is issued by `record`).
    pub(super) fn next_serial(&self) -> u32 {
        match self.last_serial {
            u32::MAX => 1,
            last => last + 1,
        }
    }

    /// A message stamped `time` went out with `serial` (from `next_serial`), the sender's
    /// logical time being `now`.
    pub(super) fn record(&mut self, serial: u32, time: LogicalTime, now: LogicalTime) {
        if serial < self.last_serial {
            // Serials start again: what was dropped or kept under the old numbers is moot.
            self.wrapped = true;
            self.dropped_for_room.clear();
        }
        self.last_serial = serial;
        self.forget(serial);
        self.expire(now);
        while self.entries.len() >= MAX_RETRACTABLE {
            let Some(oldest) = self.issued.pop_front() else {
                break;
            };
            if self.forget(oldest) {
                self.dropped_for_room.insert(oldest);
            }
        }
        self.entries.insert(
            serial,
            Entry {
                time,
                retracted: false,
            },
        );
        self.by_time.insert((time, serial));
        self.issued.push_back(serial);
        if self.issued.len() > 2 * MAX_RETRACTABLE {
            let entries = &self.entries;
            self.issued.retain(|s| entries.contains_key(s));
        }
    }

    /// Drop `serial`'s entry, if kept; whether it was.
    fn forget(&mut self, serial: u32) -> bool {
        match self.entries.remove(&serial) {
            Some(entry) => {
                self.by_time.remove(&(entry.time, serial));
                true
            }
            None => false,
        }
    }

    /// Logical time reached `now`: messages stamped at or before it are no longer
    /// retractable.
    pub(super) fn expire(&mut self, now: LogicalTime) {
        while let Some(&(time, serial)) = self.by_time.first() {
            if time > now {
                break;
            }
            self.by_time.pop_first();
            self.entries.remove(&serial);
        }
    }

    /// How many messages are retractable now.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Mark `handle`'s message retracted, checking that federate `me` at logical time `now`
    /// may retract it.
    pub(super) fn retract(
        &mut self,
        handle: MessageRetractionHandle,
        me: u32,
        now: LogicalTime,
        repr: TimeRepresentation,
    ) -> Result<(), TimeError> {
        let serial = handle.serial;
        if handle.federate != me {
            return Err(TimeError::InvalidMessageRetractionHandle(format!(
                "{handle} was issued to federate {}, not to this federate ({me})",
                handle.federate
            )));
        }
        if serial == 0 || (!self.wrapped && serial > self.last_serial) {
            return Err(TimeError::InvalidMessageRetractionHandle(format!(
                "{handle} was never issued by this federate"
            )));
        }
        self.expire(now);
        if self.dropped_for_room.contains(serial) {
            return Err(TimeError::MessageCanNoLongerBeRetracted(format!(
                "{handle} was dropped from this federate's table of retractable messages, \
                 which keeps the latest {MAX_RETRACTABLE}"
            )));
        }
        let Some(entry) = self.entries.get_mut(&serial) else {
            return Err(TimeError::MessageCanNoLongerBeRetracted(format!(
                "the time stamp of {handle} is not after this federate's logical time {}",
                repr.display(now)
            )));
        };
        if entry.retracted {
            return Err(TimeError::InvalidMessageRetractionHandle(format!(
                "{handle} was retracted already"
            )));
        }
        entry.retracted = true;
        Ok(())
    }
}

/// The handles of time-stamped messages a receiver delivered, latest
/// [`MAX_REMEMBERED_DELIVERIES`] only.
#[derive(Default)]
pub(super) struct Delivered {
    order: VecDeque<MessageRetractionHandle>,
    handles: FxHashSet<MessageRetractionHandle>,
}

impl Delivered {
    pub(super) fn remember(&mut self, handle: MessageRetractionHandle) {
        if !self.handles.insert(handle) {
            return;
        }
        self.order.push_back(handle);
        while self.order.len() > MAX_REMEMBERED_DELIVERIES {
            if let Some(oldest) = self.order.pop_front() {
                self.handles.remove(&oldest);
            }
        }
    }

    /// Whether `handle`'s message was delivered (and is remembered); forgets it.
    pub(super) fn take(&mut self, handle: MessageRetractionHandle) -> bool {
        // The order list keeps it until it leaves the front: bounded all the same.
        self.handles.remove(&handle)
    }
}
