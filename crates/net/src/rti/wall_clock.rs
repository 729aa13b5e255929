//! The sender's clock: Unix nanoseconds, stamped on what a federate sends in receive order
//! (and on registrations, deletions and the MOM's reports). At full rate it is read once per
//! update, and the system clock (`clock_gettime` through the vDSO, about 30 ns here) was a
//! fifth of the sending federate's thread; the processor's time stamp counter, read through
//! `quanta`, costs about a third of that. The counter is anchored to the system clock again
//! whenever [`ANCHOR_NANOS`] (10 ms) have passed on it, so its drift against the system
//! clock and any step of that clock show within that long. Without a steady counter
//! (`quanta` checks the processor) the reading is the system's monotonic clock, anchored the
//! same way.

use std::time::{SystemTime, UNIX_EPOCH};

/// How long the counter runs on from one reading of the system clock: a hundred system clock
/// reads a second, nothing beside an update's. The counter's scale comes from a calibration
/// of about a millisecond, which a loaded machine may disturb: even 1 % off, a stamp is off
/// by at most 100 µs at the end of a period (and by 5 µs at the 500 ppm a disciplined
/// system clock may slew by).
const ANCHOR_NANOS: u64 = 10_000_000;

/// A wall clock read from the time stamp counter between readings of the system clock.
#[derive(Debug)]
pub(super) struct WallClock {
    counter: quanta::Clock,
    /// The counter's raw reading when the system clock was read last.
    anchor_raw: u64,
    /// The system clock then, in Unix nanoseconds.
    anchor_unix: u64,
}

impl WallClock {
    /// The first clock of a process calibrates the counter against the system's monotonic
    /// clock (`quanta`: about 0.6 ms of busy loop here, at most 200 ms), so this is made where a
    /// federate connects, never on the way of an update.
    pub(super) fn new() -> WallClock {
        let counter = quanta::Clock::new();
        let anchor_raw = counter.raw();
        WallClock {
            counter,
            anchor_raw,
            anchor_unix: system_unix_nanos(),
        }
    }

    /// Now, in Unix nanoseconds.
    pub(super) fn unix_nanos(&mut self) -> u64 {
        let raw = self.counter.raw();
        // Zero when the counter seems to run back (another core's): the anchor's time then.
        let since = self.counter.delta_as_nanos(self.anchor_raw, raw);
        if since < ANCHOR_NANOS {
            return self.anchor_unix.saturating_add(since);
        }
        self.anchor_raw = raw;
        self.anchor_unix = system_unix_nanos();
        self.anchor_unix
    }
}

/// The system clock in Unix nanoseconds (0 before 1970).
fn system_unix_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Read against the system clock before and after: within a millisecond of the interval
    /// (the counter's scale comes from a calibration of about a millisecond).
    #[test]
    fn the_stamp_lies_between_system_clock_readings() {
        let mut clock = WallClock::new();
        let slack = 1_000_000;
        let started = Instant::now();
        let mut checked = 0u32;
        // Across at least two anchor periods, so a re-anchoring is crossed.
        while started.elapsed() < Duration::from_nanos(2 * ANCHOR_NANOS + 20_000_000) {
            let before = system_unix_nanos();
            let stamp = clock.unix_nanos();
            let after = system_unix_nanos();
            assert!(
                stamp + slack >= before && stamp <= after + slack,
                "stamp {stamp} outside [{before}, {after}] by more than {slack} ns"
            );
            checked += 1;
        }
        assert!(checked > 1000, "only {checked} readings compared");
    }

    /// A period's stamps never run back, and the next period starts from the system clock.
    #[test]
    fn stamps_within_a_period_never_run_back() {
        let mut clock = WallClock::new();
        let mut last = clock.unix_nanos();
        for _ in 0..100_000 {
            let now = clock.unix_nanos();
            assert!(
                now >= last || clock.anchor_unix == now,
                "{now} after {last} within one period"
            );
            last = now;
        }
    }
}
