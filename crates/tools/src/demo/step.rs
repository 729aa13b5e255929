//! A time-stepped federate's logical clock: one timeAdvanceRequest of one step at a time
//! (HLAinteger64Time, one tick = one step), each grant shown to the per-second printer.

use super::progress::Clock;
use super::DemoError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, LogicalTime};
use trellis_net::rti::RtiAmbassador;

pub(super) struct Stepper<'a> {
    granted: LogicalTime,
    /// The time requested and not granted yet.
    requested: Option<LogicalTime>,
    clock: &'a Clock,
}

impl<'a> Stepper<'a> {
    pub(super) fn new(from: LogicalTime, clock: &'a Clock) -> Stepper<'a> {
        Stepper {
            granted: from,
            requested: None,
            clock,
        }
    }

    pub(super) fn granted(&self) -> LogicalTime {
        self.granted
    }

    /// The step after the granted time.
    pub(super) fn next(&self) -> LogicalTime {
        LogicalTime::from_i64(self.granted.as_i64() + 1)
    }

    pub(super) fn is_advancing(&self) -> bool {
        self.requested.is_some()
    }

    /// timeAdvanceRequest(granted + 1), unless one is pending.
    pub(super) fn request_next(&mut self, rti: &mut RtiAmbassador) -> Result<(), DemoError> {
        if self.requested.is_none() {
            let next = self.next();
            rti.time_advance_request(next)?;
            self.requested = Some(next);
        }
        Ok(())
    }

    /// Take a grant; give back any other callback.
    pub(super) fn on_callback(
        &mut self,
        callback: Callback,
    ) -> Result<Option<Callback>, DemoError> {
        let Callback::TimeAdvanceGrant { time } = callback else {
            return Ok(Some(callback));
        };
        if self.requested != Some(time) {
            return Err(DemoError::Failed(format!(
                "granted logical time {} while {:?} was requested",
                time.as_i64(),
                self.requested.map(LogicalTime::as_i64)
            )));
        }
        self.granted = time;
        self.requested = None;
        self.clock.granted(time.as_i64());
        Ok(None)
    }

    /// Evoke callbacks until the pending request is granted (true), or until `deadline`
    /// or `stop` (false); other callbacks go to `other`.
    pub(super) fn wait_for_grant(
        &mut self,
        rti: &mut RtiAmbassador,
        deadline: Instant,
        stop: &AtomicBool,
        mut other: impl FnMut(Callback),
    ) -> Result<bool, DemoError> {
        while self.is_advancing() && Instant::now() < deadline && !stop.load(Ordering::SeqCst) {
            if let Some(callback) = rti.evoke_callback(Duration::from_millis(50))? {
                if let Some(callback) = self.on_callback(callback)? {
                    other(callback);
                }
            }
        }
        Ok(!self.is_advancing())
    }
}
