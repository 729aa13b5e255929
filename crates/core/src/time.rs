//! Time as the core sees it: a value handed in by the caller, never read from a clock.

use std::ops::{Add, Sub};
use std::time::Duration;

/// Nanoseconds since an origin the caller picks (process start, or zero in a simulation).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(u64);

impl Time {
    /// The caller's origin.
    pub const ZERO: Time = Time(0);

    /// The time `nanos` nanoseconds after the origin.
    pub const fn from_nanos(nanos: u64) -> Time {
        Time(nanos)
    }

    /// Nanoseconds since the origin.
    pub const fn as_nanos(self) -> u64 {
        self.0
    }

    /// Time elapsed since `earlier`, or zero if `earlier` is in the future.
    pub fn since(self, earlier: Time) -> Duration {
        Duration::from_nanos(self.0.saturating_sub(earlier.0))
    }
}

impl Add<Duration> for Time {
    type Output = Time;
    fn add(self, d: Duration) -> Time {
        let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        Time(self.0.saturating_add(nanos))
    }
}

impl Sub<Duration> for Time {
    type Output = Time;
    fn sub(self, d: Duration) -> Time {
        let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        Time(self.0.saturating_sub(nanos))
    }
}
