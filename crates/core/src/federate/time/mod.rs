//! Conservative time management (IEEE 1516.1-2010 §8) for a network of routers.
//!
//! # The scheme, and why it is safe
//!
//! Every regulating federate R keeps a *bound*: a promise that it will send no
//! time-stamp-order (TSO) message with a time stamp below it. It broadcasts the bound
//! whenever it rises (`TimeBody::Bound`, on `TIME_ID`). A constrained federate C keeps the
//! latest bound of each regulating federate; GALT is their minimum, and C releases a TSO
//! message, or grants an advance, only below GALT (or at it, for the *available* variants).
//!
//! 1. **Bounds cannot be overtaken by the data they bound.** Bounds travel as reliable
//!    data frames from R's node, like R's TSO messages. In a block graph the path between
//!    two nodes is unique, and every link keeps reliable frames in FIFO order (one queue per
//!    link; a full queue stalls its source instead of reordering). So when C reads bound b
//!    from R, every TSO message R sent before announcing b is already in C's queue, and
//!    every later one has a time stamp of at least b. Routers never look at time: the time
//!    channel is a broadcast id (`crate::interest::BROADCAST_IDS`) flooded along the block
//!    graph, so no interest declaration can race with it.
//! 2. **Bounds only rise.** R computes its bound from its state (below) and announces
//!    `max(computed, promised)`. Lowering lookahead therefore takes effect only as logical
//!    time catches up with the old promise (the standard's gradual lookahead reduction), and
//!    R's sends are checked against the promise, so R can never break it.
//! 3. **Who is regulating is agreed.** Switching regulation or constraint on or off, joins
//!    and departures are ordered by the registry (`FederationEvent::Time`), and every
//!    federate sees the same order. For each pair (R, C) exactly one side's switch comes
//!    second in that order, and that side runs a handshake with the other:
//!    - R switches regulation on while C is constrained: C answers with its logical time
//!      and, until R announces, assumes R's bound is just after it (R will start at a
//!      time no earlier than any constrained federate's answer, and as if granted by TAR,
//!      so its first bound is strictly later). R waits for every answer before it is
//!      enabled. Thus R never sends into the past of any constrained federate.
//!    - C switches constraint on while R regulates: R answers with its bound (or "not
//!      regulating"), and C is enabled only when every regulating federate answered and
//!      GALT has reached C's logical time.
//!
//!    A regulating federate that switches off or resigns says so on the time channel
//!    (`RegulationOff`, `Departing`), behind its last TSO message, and constrained
//!    federates drop it only then. A federate that *dies* is dropped when the registry
//!    reports it; a TSO message of it still in flight that arrives in the past is handed
//!    over in receive order and counted (`late_time_stamped`), never silently.
//!    Epochs (the registry sequence number of each regulation switch-on) make stale
//!    messages of an earlier regulation period harmless.
//! 4. **Zero lookahead.** A federate granted by TAR or NMR (or just enabled) promises time
//!    stamps strictly after its time (`successor`), so all-TAR federations with zero
//!    lookahead advance; TARA and NMRA promise "at or after", and their grants accept
//!    messages at the granted time later, as the standard says.
//!
//! Liveness: with every regulating federate requesting advances by TAR/TARA, each bound is
//! a function of the federate's own request only, so every request is granted once all
//! other regulating federates have requested at least as far. NMR/NMRA bounds also depend
//! on GALT (a message may arrive and be granted at); the bound is recomputed whenever GALT
//! moves, so with positive lookahead a ring of NMR federates rises by a lookahead per
//! round. **Known limit:** federates with zero lookahead that all wait in NMR/NMRA on one
//! another hold each other's bound where it is: proving that no message is in transit
//! needs a global snapshot (the standard's centralised GALT), which this scheme does not
//! take yet. Zero-lookahead federates should advance by TAR/TARA (or one of them with a
//! positive lookahead breaks the ring).
//!
//! The scheme needs no router to understand logical time; each constrained federate hears
//! from every regulating federate (N-1 bound messages per grant for N federates). See the
//! closing note of the issue for the measured message count.

mod arrivals;
mod engine;
mod save;
pub mod wire;

use super::callback::Callback;
use super::logical_time::{Interval, LogicalTime, TimeRepresentation};
use super::retraction::MessageRetractionHandle;
use crate::registry::TimeSwitch;
pub use save::TimeSave;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};
use thiserror::Error;
pub use wire::{TimeBody, TimeMessage, TIME_ID, TIME_MESSAGE_KIND};

/// Most TSO messages held for later release; past it new TSO messages are refused
/// (counted) rather than letting a stalled advance grow memory without bound.
pub const MAX_QUEUED_TSO: usize = 1 << 20;

/// The errors of §8, by the standard's exception names.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TimeError {
    /// enableTimeRegulation while regulating.
    #[error("time regulation is already enabled")]
    TimeRegulationAlreadyEnabled,
    /// disableTimeRegulation, modifyLookahead or queryLookahead while regulation is off.
    #[error("time regulation is not enabled")]
    TimeRegulationIsNotEnabled,
    /// A switch or advance while enableTimeRegulation waits for its callback.
    #[error("a request for time regulation is pending")]
    RequestForTimeRegulationPending,
    /// enableTimeConstrained while constrained.
    #[error("time constrained is already enabled")]
    TimeConstrainedAlreadyEnabled,
    /// disableTimeConstrained while not constrained.
    #[error("time constrained is not enabled")]
    TimeConstrainedIsNotEnabled,
    /// A switch or advance while enableTimeConstrained waits for its callback.
    #[error("a request for time constrained is pending")]
    RequestForTimeConstrainedPending,
    /// enableAsynchronousDelivery while it is on.
    #[error("asynchronous delivery is already enabled")]
    AsynchronousDeliveryAlreadyEnabled,
    /// disableAsynchronousDelivery while it is off.
    #[error("asynchronous delivery is already disabled")]
    AsynchronousDeliveryAlreadyDisabled,
    /// A service refused between a time advance request and its grant.
    #[error("the federate is in the time advancing state")]
    InTimeAdvancingState,
    /// A lookahead that is negative, not finite, or of the other representation; says which.
    #[error("invalid lookahead: {0}")]
    InvalidLookahead(String),
    /// A time stamp below logical time plus lookahead (what regulation promised); says which.
    #[error("invalid logical time: {0}")]
    InvalidLogicalTime(String),
    /// A time advance request to a time before the federate's logical time; that time.
    #[error("logical time {0} has already passed")]
    LogicalTimeAlreadyPassed(String),
    /// retract of a handle this federate never issued, or one already retracted; says which.
    #[error("invalid message retraction handle: {0}")]
    InvalidMessageRetractionHandle(String),
    /// retract of a message no longer retractable: logical time reached its time stamp, or
    /// it was dropped from the table of the latest `MAX_RETRACTABLE`; says which.
    #[error("the message can no longer be retracted: {0}")]
    MessageCanNoLongerBeRetracted(String),
}

/// The five ways to ask for a time advance (IEEE 1516.1-2010 §8.8–8.12).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AdvanceKind {
    /// timeAdvanceRequest
    Tar,
    /// timeAdvanceRequestAvailable
    Tara,
    /// nextMessageRequest
    Nmr,
    /// nextMessageRequestAvailable
    Nmra,
    /// flushQueueRequest
    Flush,
}

impl AdvanceKind {
    /// The standard's name of the service that asks for this kind of advance.
    pub fn service_name(self) -> &'static str {
        match self {
            AdvanceKind::Tar => "timeAdvanceRequest",
            AdvanceKind::Tara => "timeAdvanceRequestAvailable",
            AdvanceKind::Nmr => "nextMessageRequest",
            AdvanceKind::Nmra => "nextMessageRequestAvailable",
            AdvanceKind::Flush => "flushQueueRequest",
        }
    }

    /// Whether a grant of this kind still accepts messages at the granted time.
    fn available(self) -> bool {
        matches!(
            self,
            AdvanceKind::Tara | AdvanceKind::Nmra | AdvanceKind::Flush
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Switch {
    Off,
    /// Asked the registry; waiting for our own event.
    Asked,
    /// Our event came; waiting for the handshake to finish.
    Pending,
    On,
}

/// One TSO message held for release, ordered by (time stamp, arrival).
struct Held {
    time: LogicalTime,
    arrival: u64,
    callback: Callback,
}

impl PartialEq for Held {
    fn eq(&self, other: &Self) -> bool {
        (self.time, self.arrival) == (other.time, other.arrival)
    }
}
impl Eq for Held {}
impl PartialOrd for Held {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Held {
    // BinaryHeap is a max-heap: the earliest message must compare greatest.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (other.time, other.arrival).cmp(&(self.time, self.arrival))
    }
}

/// What time management asks of the federate around it.
#[derive(Clone, Debug, PartialEq)]
pub enum TimeOutput {
    /// Broadcast this on `TIME_ID`.
    Send(TimeMessage),
    /// Ask the registry to order this switch.
    Ask(TimeSwitch),
    /// Hand this callback to the application.
    Deliver(Callback),
}

/// Counts of what time management did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeStats {
    /// timeAdvanceGrant callbacks made.
    pub grants: u64,
    /// Bound messages (`TimeBody::Bound`) this federate sent.
    pub bounds_sent: u64,
    /// Time-management messages received from other federates.
    pub time_messages_received: u64,
    /// TSO messages that arrived below the granted time (only from a federate that died
    /// with messages in flight), handed over in receive order.
    pub late_time_stamped: u64,
    /// TSO messages refused because `MAX_QUEUED_TSO` were held.
    pub queue_overflow: u64,
}

/// One federate's time management (IEEE 1516.1-2010 §8), sans-IO: services and the other
/// federates' time messages in, its own time messages and callbacks out.
pub struct TimeManager {
    repr: TimeRepresentation,
    me: u32,
    time: LogicalTime,
    lookahead: Interval,
    regulation: Switch,
    constraint: Switch,
    /// The registry's epoch of our regulation (0 when off).
    epoch: u64,
    advance: Option<(AdvanceKind, LogicalTime)>,
    /// The last grant was of an available kind: our own promise may include our time.
    last_grant_available: bool,
    /// A TSO message stamped exactly our logical time may still arrive and be held (after
    /// an available grant, or once constraint or regulation was enabled at a time GALT
    /// only reached).
    open_at_time: bool,
    /// The bound last announced; bounds only rise.
    promised: LogicalTime,
    /// Regulating federates in the registry's order, with the epoch of their switch-on.
    regulating: BTreeMap<u32, u64>,
    constrained: BTreeSet<u32>,
    /// While constrained (or becoming so): each regulating federate's bound, `None` while
    /// its answer is awaited.
    bounds: BTreeMap<u32, Option<LogicalTime>>,
    /// While becoming regulating: constrained federates whose answer is awaited, and the
    /// latest time any of them reported.
    awaiting_constrained: BTreeSet<u32>,
    enable_time: LogicalTime,
    /// Constrained federates that asked for our bound while our regulation was pending.
    deferred_replies: Vec<u32>,
    /// Answers to our own switch that overtook the registry's event announcing it (they
    /// travel different paths): regulators' (epoch, bound), constrained federates' times.
    early_regulator_replies: BTreeMap<u32, (u64, Option<LogicalTime>)>,
    early_constrained_replies: BTreeMap<u32, LogicalTime>,
    held: BinaryHeap<Held>,
    arrivals: u64,
    out: VecDeque<TimeOutput>,
    stats: TimeStats,
}

impl TimeManager {
    /// Time management of federate `me` in representation `repr`: neither regulating nor
    /// constrained, at logical time zero.
    pub fn new(repr: TimeRepresentation, me: u32) -> TimeManager {
        TimeManager {
            repr,
            me,
            time: LogicalTime::ZERO,
            lookahead: match repr {
                TimeRepresentation::Integer64 => Interval::Integer(0),
                TimeRepresentation::Float64 => Interval::Float(0.0),
            },
            regulation: Switch::Off,
            constraint: Switch::Off,
            epoch: 0,
            advance: None,
            last_grant_available: false,
            open_at_time: true,
            promised: LogicalTime::ZERO,
            regulating: BTreeMap::new(),
            constrained: BTreeSet::new(),
            bounds: BTreeMap::new(),
            awaiting_constrained: BTreeSet::new(),
            enable_time: LogicalTime::ZERO,
            deferred_replies: Vec::new(),
            early_regulator_replies: BTreeMap::new(),
            early_constrained_replies: BTreeMap::new(),
            held: BinaryHeap::new(),
            arrivals: 0,
            out: VecDeque::new(),
            stats: TimeStats::default(),
        }
    }

    /// The registry's view at our join: who regulates (with epochs) and who is constrained.
    pub fn join(&mut self, regulating: &[(u32, u64)], constrained: &[u32]) {
        self.regulating = regulating.iter().copied().collect();
        self.constrained = constrained.iter().copied().collect();
    }

    /// Who regulates (with regulation epochs) and who is constrained, as the registry's
    /// events told this federate: what a reclaim carries to a restarted registry.
    pub fn registry_view(&self) -> (Vec<(u32, u64)>, Vec<u32>) {
        (
            self.regulating.iter().map(|(h, e)| (*h, *e)).collect(),
            self.constrained.iter().copied().collect(),
        )
    }

    /// After a reclaim: take the rebuilt registry's word on the other federates' switches
    /// (this federate's own state, logical time and bounds carry on as they are).
    pub fn reconcile(&mut self, regulating: &[(u32, u64)], constrained: &[u32]) {
        let me = self.me;
        let stale_regulators: Vec<u32> = (self.regulating.keys().copied())
            .filter(|h| *h != me && !regulating.iter().any(|(r, _)| r == h))
            .collect();
        for h in stale_regulators {
            self.on_switch(0, h, TimeSwitch::RegulationOff);
        }
        for &(h, epoch) in regulating {
            if h != me && !self.regulating.contains_key(&h) {
                self.on_switch(epoch, h, TimeSwitch::RegulationOn);
            }
        }
        let stale_constrained: Vec<u32> = (self.constrained.iter().copied())
            .filter(|h| *h != me && !constrained.contains(h))
            .collect();
        for h in stale_constrained {
            self.on_switch(0, h, TimeSwitch::ConstrainedOff);
        }
        for &h in constrained {
            if h != me && !self.constrained.contains(&h) {
                self.on_switch(0, h, TimeSwitch::ConstrainedOn);
            }
        }
    }

    /// What time management has for the federate: messages to send, grants to tell.
    ///
    /// Call after every time service and every time message handled, until `None`.
    #[must_use]
    pub fn poll_output(&mut self) -> Option<TimeOutput> {
        self.out.pop_front()
    }

    /// The federation's logical time representation.
    pub fn representation(&self) -> TimeRepresentation {
        self.repr
    }

    /// Counts of grants, bounds and time messages, for diagnostics.
    pub fn stats(&self) -> TimeStats {
        self.stats
    }

    // ---- queries ------------------------------------------------------------------------

    /// queryLogicalTime: the time last granted (or reached by enabling regulation or constraint).
    pub fn logical_time(&self) -> LogicalTime {
        self.time
    }

    /// Whether regulation is on (enabled, not merely asked for).
    pub fn is_regulating(&self) -> bool {
        self.regulation == Switch::On
    }

    /// Whether constraint is on (enabled, not merely asked for).
    pub fn is_constrained(&self) -> bool {
        self.constraint == Switch::On
    }

    /// Time-stamp-order messages held for release (the MOM's HLATSOlength).
    pub fn held_time_stamped(&self) -> usize {
        self.held.len()
    }

    /// Whether a time advance request waits for its grant.
    pub fn is_advancing(&self) -> bool {
        self.advance.is_some()
    }

    /// What this federate waits for, for diagnostics: regulating federates whose bound is
    /// unknown, and constrained federates whose answer is awaited.
    pub fn waiting_for(&self) -> (Vec<u32>, Vec<u32>) {
        let bounds = self
            .bounds
            .iter()
            .filter(|(_, b)| b.is_none())
            .map(|(h, _)| *h)
            .collect();
        (bounds, self.awaiting_constrained.iter().copied().collect())
    }

    /// queryLookahead.
    pub fn lookahead(&self) -> Result<Interval, TimeError> {
        if self.regulation != Switch::On {
            return Err(TimeError::TimeRegulationIsNotEnabled);
        }
        Ok(self.lookahead)
    }

    /// queryGALT: `None` when no federate constrains this one (GALT undefined).
    pub fn galt(&self) -> Option<LogicalTime> {
        let mut galt: Option<LogicalTime> = None;
        for bound in self.bounds.values() {
            let bound = bound.unwrap_or(self.time);
            galt = Some(galt.map_or(bound, |g| g.min(bound)));
        }
        galt
    }

    /// queryLITS: the least of GALT and the earliest TSO message held.
    pub fn lits(&self) -> Option<LogicalTime> {
        let next = self.held.peek().map(|h| h.time);
        match (self.galt(), next) {
            (Some(g), Some(n)) => Some(g.min(n)),
            (g, n) => g.or(n),
        }
    }

    /// The earliest time stamp this federate may send with now (when regulating).
    pub fn earliest_send(&self) -> LogicalTime {
        self.promised
    }

    // ---- switches ------------------------------------------------------------------------

    fn check_switchable(&self) -> Result<(), TimeError> {
        if self.advance.is_some() {
            return Err(TimeError::InTimeAdvancingState);
        }
        if matches!(self.regulation, Switch::Asked | Switch::Pending) {
            return Err(TimeError::RequestForTimeRegulationPending);
        }
        if matches!(self.constraint, Switch::Asked | Switch::Pending) {
            return Err(TimeError::RequestForTimeConstrainedPending);
        }
        Ok(())
    }

    fn check_lookahead(&self, lookahead: Interval) -> Result<(), TimeError> {
        if !self.repr.matches(lookahead) || !lookahead.is_valid_lookahead() {
            return Err(TimeError::InvalidLookahead(format!(
                "{lookahead:?} is not a non-negative {} interval",
                self.repr.name()
            )));
        }
        Ok(())
    }

    /// enableTimeRegulation.
    pub fn enable_regulation(&mut self, lookahead: Interval) -> Result<(), TimeError> {
        if self.regulation == Switch::On {
            return Err(TimeError::TimeRegulationAlreadyEnabled);
        }
        self.check_switchable()?;
        self.check_lookahead(lookahead)?;
        self.lookahead = lookahead;
        self.regulation = Switch::Asked;
        self.out
            .push_back(TimeOutput::Ask(TimeSwitch::RegulationOn));
        Ok(())
    }

    /// disableTimeRegulation.
    pub fn disable_regulation(&mut self) -> Result<(), TimeError> {
        if self.regulation != Switch::On {
            return Err(TimeError::TimeRegulationIsNotEnabled);
        }
        self.regulation = Switch::Off;
        self.send(TimeBody::RegulationOff);
        self.epoch = 0;
        self.out
            .push_back(TimeOutput::Ask(TimeSwitch::RegulationOff));
        Ok(())
    }

    /// enableTimeConstrained.
    pub fn enable_constrained(&mut self) -> Result<(), TimeError> {
        if self.constraint == Switch::On {
            return Err(TimeError::TimeConstrainedAlreadyEnabled);
        }
        self.check_switchable()?;
        self.constraint = Switch::Asked;
        self.out
            .push_back(TimeOutput::Ask(TimeSwitch::ConstrainedOn));
        Ok(())
    }

    /// disableTimeConstrained: held TSO messages are handed over at once, in time-stamp
    /// order, as receive-order messages now are.
    pub fn disable_constrained(&mut self) -> Result<(), TimeError> {
        if self.constraint != Switch::On {
            return Err(TimeError::TimeConstrainedIsNotEnabled);
        }
        self.constraint = Switch::Off;
        self.bounds.clear();
        self.release_through(LogicalTime::MAX);
        self.out
            .push_back(TimeOutput::Ask(TimeSwitch::ConstrainedOff));
        self.refresh();
        Ok(())
    }

    /// modifyLookahead.
    pub fn modify_lookahead(&mut self, lookahead: Interval) -> Result<(), TimeError> {
        if self.regulation != Switch::On {
            return Err(TimeError::TimeRegulationIsNotEnabled);
        }
        if self.advance.is_some() {
            return Err(TimeError::InTimeAdvancingState);
        }
        self.check_lookahead(lookahead)?;
        self.lookahead = lookahead;
        self.refresh();
        Ok(())
    }

    /// The federate resigns: regulating federates are told on the time channel, behind the
    /// last TSO message, so none waits for it any more.
    pub fn depart(&mut self) {
        self.send(TimeBody::Departing);
        self.regulation = Switch::Off;
        self.constraint = Switch::Off;
    }

    // ---- advancing -----------------------------------------------------------------------

    /// timeAdvanceRequest and its relatives.
    pub fn request_advance(
        &mut self,
        kind: AdvanceKind,
        time: LogicalTime,
    ) -> Result<(), TimeError> {
        if self.advance.is_some() {
            return Err(TimeError::InTimeAdvancingState);
        }
        if matches!(self.regulation, Switch::Asked | Switch::Pending) {
            return Err(TimeError::RequestForTimeRegulationPending);
        }
        if matches!(self.constraint, Switch::Asked | Switch::Pending) {
            return Err(TimeError::RequestForTimeConstrainedPending);
        }
        if time < self.time {
            return Err(TimeError::LogicalTimeAlreadyPassed(
                self.repr.display(time).to_string(),
            ));
        }
        self.advance = Some((kind, time));
        self.refresh();
        Ok(())
    }

    /// The federate retracted its message `serial`: tell every federate, behind the
    /// message and before any later bound (`federate::retraction`).
    pub fn announce_retraction(&mut self, serial: u32) {
        self.send(TimeBody::Retract { serial });
    }

    /// A retraction of `handle` arrived: drop its message if it is held here, unreleased;
    /// whether it was.
    pub fn drop_held(&mut self, handle: MessageRetractionHandle) -> bool {
        let before = self.held.len();
        self.held
            .retain(|h| h.callback.retraction() != Some(handle));
        let dropped = self.held.len() != before;
        if dropped {
            // The next message may be later now: a next message request may be granted.
            self.refresh();
        }
        dropped
    }

    /// Check the time stamp of a TSO message about to be sent; `Ok(true)` when it goes
    /// time-stamp order, `Ok(false)` when it goes receive order (not regulating).
    pub fn check_send(&self, time: LogicalTime) -> Result<bool, TimeError> {
        if self.regulation != Switch::On {
            return Ok(false);
        }
        if time < self.promised {
            return Err(TimeError::InvalidLogicalTime(format!(
                "time stamp {} is below logical time plus lookahead ({})",
                self.repr.display(time),
                self.repr.display(self.promised)
            )));
        }
        Ok(true)
    }
}

#[cfg(test)]
mod tests;
