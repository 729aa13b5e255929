//! How every demo federate starts: in a time-stepped run it first switches time management
//! on, then it achieves the synchronization point "ReadyToRun" (announced to all), and it
//! moves only after FederationSynchronized. Achieving only once time is on means that at
//! the synchronization every federate is already regulating or constrained, so all start
//! from the same logical time.

use super::progress::Board;
use super::DemoError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, Interval, LogicalTime};
use trellis_net::rti::RtiAmbassador;

/// The demo's one synchronization point.
pub const READY_TO_RUN: &str = "ReadyToRun";

/// How a federate takes part in time management.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum TimeRole {
    /// Neither regulating nor constrained (every federate when not time-stepped).
    Untimed,
    /// Constrained only: receives time-stamped updates in time-stamp order and holds
    /// nobody back.
    Constrained,
    /// Regulating with a lookahead of one step, and constrained.
    Stepping,
}

/// One federate's way through the start, fed every callback it receives.
pub(super) struct Start {
    role: TimeRole,
    regulating: bool,
    constrained: bool,
    announced: bool,
    achieved: bool,
    synchronized: bool,
    /// The logical time time management started this federate at.
    time: LogicalTime,
}

impl Start {
    /// Begin: ask for the first time switch (regulation before constraint, one at a time,
    /// as the ambassador requires).
    pub(super) fn begin(rti: &mut RtiAmbassador, role: TimeRole) -> Result<Start, DemoError> {
        match role {
            TimeRole::Untimed => {}
            TimeRole::Constrained => rti.enable_time_constrained()?,
            TimeRole::Stepping => rti.enable_time_regulation(Interval::Integer(1))?,
        }
        Ok(Start {
            role,
            regulating: false,
            constrained: false,
            announced: false,
            achieved: false,
            synchronized: false,
            time: LogicalTime::ZERO,
        })
    }

    pub(super) fn is_synchronized(&self) -> bool {
        self.synchronized
    }

    /// The logical time to step on from once synchronized.
    pub(super) fn time(&self) -> LogicalTime {
        self.time
    }

    fn time_is_on(&self) -> bool {
        match self.role {
            TimeRole::Untimed => true,
            TimeRole::Constrained => self.constrained,
            TimeRole::Stepping => self.regulating && self.constrained,
        }
    }

    /// Take the start's own callbacks; give back any other for the federate to handle.
    pub(super) fn on_callback(
        &mut self,
        rti: &mut RtiAmbassador,
        callback: Callback,
        board: &Board,
    ) -> Result<Option<Callback>, DemoError> {
        match callback {
            Callback::TimeRegulationEnabled { time } => {
                self.regulating = true;
                self.time = self.time.max(time);
                rti.enable_time_constrained()?;
            }
            Callback::TimeConstrainedEnabled { time } => {
                self.constrained = true;
                self.time = self.time.max(time);
            }
            Callback::AnnounceSynchronizationPoint { label, .. } if label == READY_TO_RUN => {
                self.announced = true;
            }
            Callback::SynchronizationPointRegistrationSucceeded { label }
                if label == READY_TO_RUN => {}
            Callback::SynchronizationPointRegistrationFailed { label, reason } => {
                return Err(DemoError::Failed(format!(
                    "registering the synchronization point {label:?} failed: {reason:?}"
                )));
            }
            Callback::FederationSynchronized { label, failed } if label == READY_TO_RUN => {
                if !failed.is_empty() {
                    return Err(DemoError::Failed(format!(
                        "federates {failed:?} failed to achieve {label:?}"
                    )));
                }
                self.synchronized = true;
                if board.synchronized() {
                    board.say(format_args!(
                        "federation synchronized at {READY_TO_RUN:?}: vehicles start moving"
                    ));
                }
            }
            other => return Ok(Some(other)),
        }
        if self.announced && !self.achieved && self.time_is_on() {
            rti.synchronization_point_achieved(READY_TO_RUN, true)?;
            self.achieved = true;
        }
        Ok(None)
    }

    /// Evoke callbacks until the federation is synchronized (true), or until `deadline`
    /// or `stop` (false); callbacks not about the start go to `other`.
    pub(super) fn wait(
        &mut self,
        rti: &mut RtiAmbassador,
        board: &Board,
        deadline: Instant,
        stop: &AtomicBool,
        mut other: impl FnMut(Callback),
    ) -> Result<bool, DemoError> {
        while !self.synchronized && Instant::now() < deadline && !stop.load(Ordering::SeqCst) {
            if let Some(callback) = rti.evoke_callback(Duration::from_millis(50))? {
                if let Some(callback) = self.on_callback(rti, callback, board)? {
                    other(callback);
                }
            }
        }
        Ok(self.synchronized)
    }
}
