//! What arrives for time management: time-stamped messages to hold or hand over, bounds
//! and replies from the other federates, ordered switches from the registry, departures.

use super::{Held, Switch, TimeManager, TimeOutput, MAX_QUEUED_TSO};
use super::{TimeBody, TimeMessage};
use crate::federate::callback::Callback;
use crate::federate::logical_time::LogicalTime;
use crate::registry::TimeSwitch;

impl TimeManager {
    /// A TSO message arrived; hand it over now (receive order) or hold it.
    pub fn on_time_stamped(&mut self, time: LogicalTime, callback: Callback) {
        if self.constraint != Switch::On {
            self.out.push_back(TimeOutput::Deliver(callback));
            return;
        }
        if time < self.time || (time == self.time && !self.open_at_time) {
            self.stats.late_time_stamped += 1;
            self.out.push_back(TimeOutput::Deliver(callback));
            return;
        }
        if self.held.len() >= MAX_QUEUED_TSO {
            self.stats.queue_overflow += 1;
            return;
        }
        self.arrivals += 1;
        self.held.push(Held {
            time,
            arrival: self.arrivals,
            callback,
        });
        self.refresh();
    }

    /// A time message of another federate arrived.
    pub fn on_message(&mut self, message: TimeMessage) {
        self.stats.time_messages_received += 1;
        let sender = message.sender;
        let current = self.regulating.get(&sender).copied();
        match message.body {
            TimeBody::Bound(bound) => {
                if current == Some(message.epoch) {
                    self.raise_bound(sender, bound);
                }
            }
            TimeBody::RegulatorReply { to, bound } if to == self.me => {
                if self.constraint == Switch::Asked {
                    self.early_regulator_replies
                        .insert(sender, (message.epoch, bound));
                } else {
                    self.take_regulator_reply(sender, message.epoch, bound);
                }
            }
            TimeBody::ConstrainedReply { to, time } if to == self.me => {
                if self.regulation == Switch::Asked {
                    self.early_constrained_replies.insert(sender, time);
                } else if self.awaiting_constrained.remove(&sender) {
                    self.enable_time = self.enable_time.max(time);
                }
            }
            TimeBody::RegulatorReply { .. } | TimeBody::ConstrainedReply { .. } => {}
            TimeBody::RegulationOff => {
                if current.is_none_or(|epoch| epoch <= message.epoch) {
                    self.bounds.remove(&sender);
                }
            }
            TimeBody::Departing => {
                self.bounds.remove(&sender);
                self.awaiting_constrained.remove(&sender);
            }
            // The federate takes retractions before they reach time management.
            TimeBody::Retract { .. } => {}
        }
        self.refresh();
    }

    fn take_regulator_reply(&mut self, sender: u32, epoch: u64, bound: Option<LogicalTime>) {
        if !self.bounds.contains_key(&sender) {
            return;
        }
        match bound {
            Some(bound) if self.regulating.get(&sender) == Some(&epoch) => {
                self.raise_bound(sender, bound)
            }
            Some(_) => {}
            None => {
                self.bounds.remove(&sender);
            }
        }
    }

    fn raise_bound(&mut self, sender: u32, bound: LogicalTime) {
        if let Some(entry) = self.bounds.get_mut(&sender) {
            *entry = Some(entry.map_or(bound, |b| b.max(bound)));
        }
    }

    /// A registry event about time switches, in the registry's order; `seq` is its number.
    pub fn on_switch(&mut self, seq: u64, federate: u32, switch: TimeSwitch) {
        let me = federate == self.me;
        match switch {
            TimeSwitch::RegulationOn => {
                self.regulating.insert(federate, seq);
                if me {
                    self.start_regulation(seq);
                } else if self.constrained.contains(&self.me) {
                    self.answer_regulator(federate);
                }
            }
            TimeSwitch::RegulationOff => {
                self.regulating.remove(&federate);
            }
            TimeSwitch::ConstrainedOn => {
                self.constrained.insert(federate);
                if me {
                    self.start_constraint();
                } else if self.regulating.contains_key(&self.me) {
                    self.answer_constrained(federate);
                }
            }
            TimeSwitch::ConstrainedOff => {
                self.constrained.remove(&federate);
                self.awaiting_constrained.remove(&federate);
            }
        }
        self.refresh();
    }

    /// The registry reports that `federate` left; `died` when its node vanished.
    pub fn on_federate_left(&mut self, federate: u32, died: bool) {
        self.regulating.remove(&federate);
        self.constrained.remove(&federate);
        self.awaiting_constrained.remove(&federate);
        // A resigning federate said `Departing` behind its last TSO message; wait for that.
        // One that died says nothing more.
        if died {
            self.bounds.remove(&federate);
        }
        self.refresh();
    }

    fn start_regulation(&mut self, epoch: u64) {
        if self.regulation != Switch::Asked {
            return;
        }
        self.epoch = epoch;
        self.regulation = Switch::Pending;
        self.enable_time = self.time;
        self.awaiting_constrained = self
            .constrained
            .iter()
            .copied()
            .filter(|&c| c != self.me)
            .collect();
        for (sender, time) in std::mem::take(&mut self.early_constrained_replies) {
            if self.awaiting_constrained.remove(&sender) {
                self.enable_time = self.enable_time.max(time);
            }
        }
    }

    fn start_constraint(&mut self) {
        if self.constraint != Switch::Asked {
            return;
        }
        self.constraint = Switch::Pending;
        self.bounds = self
            .regulating
            .keys()
            .filter(|&&r| r != self.me)
            .map(|&r| (r, None))
            .collect();
        for (sender, (epoch, bound)) in std::mem::take(&mut self.early_regulator_replies) {
            self.take_regulator_reply(sender, epoch, bound);
        }
    }

    /// `regulator` switched regulation on: tell it our time and assume its
    /// bound is just after it until it announces one.
    fn answer_regulator(&mut self, regulator: u32) {
        self.send(TimeBody::ConstrainedReply {
            to: regulator,
            time: self.time,
        });
        if matches!(self.constraint, Switch::On | Switch::Pending) {
            self.bounds.insert(regulator, Some(self.time.successor()));
        }
    }

    /// `constrained` switched constraint on: tell it our bound, or that we do not regulate.
    pub(super) fn answer_constrained(&mut self, constrained: u32) {
        match self.regulation {
            Switch::On => self.send(TimeBody::RegulatorReply {
                to: constrained,
                bound: Some(self.promised),
            }),
            Switch::Pending | Switch::Asked => self.deferred_replies.push(constrained),
            Switch::Off => self.send(TimeBody::RegulatorReply {
                to: constrained,
                bound: None,
            }),
        }
    }

    pub(super) fn send(&mut self, body: TimeBody) {
        self.out.push_back(TimeOutput::Send(TimeMessage {
            sender: self.me,
            epoch: self.epoch,
            body,
        }));
    }
}
