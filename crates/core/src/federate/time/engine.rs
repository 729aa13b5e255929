//! The engine: finish handshakes, compute this federate's bound from what the regulators
//! promised, announce it when it rises, and grant advances (releasing what they cover).

use super::{AdvanceKind, Switch, TimeBody, TimeManager, TimeOutput};
use crate::federate::callback::Callback;
use crate::federate::logical_time::LogicalTime;

impl TimeManager {
    /// Bring everything up to date: finish handshakes, announce a risen bound, grant.
    pub(super) fn refresh(&mut self) {
        self.finish_regulation();
        self.finish_constraint();
        self.announce();
        if self.try_grant() {
            self.announce();
        }
    }

    fn finish_regulation(&mut self) {
        if self.regulation != Switch::Pending || !self.awaiting_constrained.is_empty() {
            return;
        }
        let start = self.enable_time.max(self.time);
        if self.constraint == Switch::On && self.galt().is_some_and(|g| g < start) {
            return;
        }
        self.release_through(start);
        self.time = start;
        self.last_grant_available = false;
        self.open_at_time = true;
        self.regulation = Switch::On;
        self.promised = self.compute_bound();
        self.stats.bounds_sent += 1;
        self.send(TimeBody::Bound(self.promised));
        for constrained in std::mem::take(&mut self.deferred_replies) {
            self.answer_constrained(constrained);
        }
        self.out
            .push_back(TimeOutput::Deliver(Callback::TimeRegulationEnabled {
                time: start,
            }));
    }

    fn finish_constraint(&mut self) {
        if self.constraint != Switch::Pending || self.bounds.values().any(Option::is_none) {
            return;
        }
        if self.galt().is_some_and(|g| g < self.time) {
            return;
        }
        self.constraint = Switch::On;
        self.open_at_time = true;
        self.out
            .push_back(TimeOutput::Deliver(Callback::TimeConstrainedEnabled {
                time: self.time,
            }));
    }

    /// The bound our state implies (before the never-lower rule).
    fn compute_bound(&self) -> LogicalTime {
        let (base, available) = match self.advance {
            None => (self.time, self.last_grant_available),
            Some((kind @ (AdvanceKind::Tar | AdvanceKind::Tara), t)) => (t, kind.available()),
            Some((kind, t)) => (self.next_event_time(t), kind.available()),
        };
        let bound = self.repr.add(base, self.lookahead);
        if available || !self.lookahead.is_zero() {
            bound
        } else {
            base.successor()
        }
    }

    /// The earliest time an NMR / NMRA / flush to `t` could be granted at: `t`, the next
    /// held message, or GALT (a message may still arrive there).
    fn next_event_time(&self, t: LogicalTime) -> LogicalTime {
        let mut next = t;
        if let Some(held) = self.held.peek() {
            next = next.min(held.time);
        }
        if self.constraint == Switch::On {
            if let Some(galt) = self.galt() {
                next = next.min(galt);
            }
        }
        next.max(self.time)
    }

    fn announce(&mut self) {
        if self.regulation != Switch::On {
            return;
        }
        let bound = self.compute_bound();
        if bound > self.promised {
            self.promised = bound;
            self.stats.bounds_sent += 1;
            self.send(TimeBody::Bound(bound));
        }
    }

    /// Grant the pending request if GALT allows; true when granted.
    fn try_grant(&mut self) -> bool {
        let Some((kind, t)) = self.advance else {
            return false;
        };
        let constrained = self.constraint == Switch::On;
        let galt = if constrained { self.galt() } else { None };
        let next_held = self.held.peek().map(|h| h.time);
        let target = match kind {
            AdvanceKind::Tar | AdvanceKind::Tara => t,
            AdvanceKind::Nmr | AdvanceKind::Nmra => next_held.map_or(t, |n| n.min(t)),
            AdvanceKind::Flush => {
                let mut g = t;
                if let Some(n) = next_held {
                    g = g.min(n);
                }
                if let Some(galt) = galt {
                    g = g.min(galt);
                }
                g.max(self.time)
            }
        };
        let allowed = match galt {
            None => true,
            Some(galt) if kind == AdvanceKind::Flush => galt >= self.time,
            Some(galt) if kind.available() => galt >= target,
            Some(galt) => galt > target,
        };
        if !allowed {
            return false;
        }
        let through = if kind == AdvanceKind::Flush {
            LogicalTime::MAX
        } else {
            target
        };
        self.release_through(through);
        self.time = target;
        self.advance = None;
        self.last_grant_available = kind.available();
        self.open_at_time = kind.available();
        self.stats.grants += 1;
        self.out
            .push_back(TimeOutput::Deliver(Callback::TimeAdvanceGrant {
                time: target,
            }));
        true
    }

    /// Hand over every held message with a time stamp at or below `through`.
    pub(super) fn release_through(&mut self, through: LogicalTime) {
        while self.held.peek().is_some_and(|h| h.time <= through) {
            let held = self.held.pop().expect("peeked");
            self.out.push_back(TimeOutput::Deliver(held.callback));
        }
    }
}
