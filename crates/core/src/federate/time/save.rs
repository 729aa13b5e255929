//! Time management's part of a federation save (IEEE 1516.1-2010 §4.16–4.31): what
//! `federate::save` keeps under a label and puts back at restore.
//!
//! Restoring puts logical time, lookahead, the switches and the held time-stamped messages
//! back as they were, and starts a new regulation epoch for every regulating federate: the
//! registry's event that began the restore, which every federate sees with the same number.
//! Bounds announced after the save carry the older epoch and are ignored from then on, so
//! none of them can let a constrained federate past a restored regulator's promise; each
//! restored regulator announces its promise again under the new epoch.

use super::{Held, Switch, TimeBody, TimeManager};
use crate::federate::logical_time::{Interval, LogicalTime};
use std::collections::{BTreeMap, BTreeSet, BinaryHeap};

/// What time management keeps of a save.
pub struct TimeSave {
    time: LogicalTime,
    lookahead: Interval,
    regulating_self: bool,
    constrained_self: bool,
    last_grant_available: bool,
    open_at_time: bool,
    promised: LogicalTime,
    regulating: BTreeSet<u32>,
    constrained: BTreeSet<u32>,
    bounds: BTreeMap<u32, Option<LogicalTime>>,
    held: Vec<(LogicalTime, u64, crate::federate::callback::Callback)>,
    arrivals: u64,
}

impl TimeManager {
    /// The state a save keeps. Only called between advances (a save is initiated at a
    /// grant, or when no advance is pending).
    pub fn save(&self) -> TimeSave {
        TimeSave {
            time: self.time,
            lookahead: self.lookahead,
            regulating_self: self.regulation == Switch::On,
            constrained_self: self.constraint == Switch::On,
            last_grant_available: self.last_grant_available,
            open_at_time: self.open_at_time,
            promised: self.promised,
            regulating: self.regulating.keys().copied().collect(),
            constrained: self.constrained.clone(),
            bounds: self.bounds.clone(),
            held: (self.held.iter())
                .map(|h| (h.time, h.arrival, h.callback.clone()))
                .collect(),
            arrivals: self.arrivals,
        }
    }

    /// Put back a saved state; `epoch` is the registry sequence number of the event that
    /// began the restore (the new regulation epoch of every regulating federate).
    pub fn restore(&mut self, saved: &TimeSave, epoch: u64) {
        self.time = saved.time;
        self.lookahead = saved.lookahead;
        self.regulation = on_or_off(saved.regulating_self);
        self.constraint = on_or_off(saved.constrained_self);
        self.epoch = if saved.regulating_self { epoch } else { 0 };
        self.advance = None;
        self.last_grant_available = saved.last_grant_available;
        self.open_at_time = saved.open_at_time;
        self.promised = saved.promised;
        self.regulating = saved.regulating.iter().map(|h| (*h, epoch)).collect();
        self.constrained = saved.constrained.clone();
        self.bounds = saved.bounds.clone();
        self.awaiting_constrained.clear();
        self.enable_time = saved.time;
        self.deferred_replies.clear();
        self.early_regulator_replies.clear();
        self.early_constrained_replies.clear();
        self.held = (saved.held.iter())
            .map(|(time, arrival, callback)| Held {
                time: *time,
                arrival: *arrival,
                callback: callback.clone(),
            })
            .collect::<BinaryHeap<_>>();
        self.arrivals = saved.arrivals;
        if saved.regulating_self {
            self.stats.bounds_sent += 1;
            self.send(TimeBody::Bound(self.promised));
        }
    }
}

fn on_or_off(on: bool) -> Switch {
    if on {
        Switch::On
    } else {
        Switch::Off
    }
}
