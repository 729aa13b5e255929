//! The one place the system clock turns into the core's `Time`.

use std::time::Instant;
use trellis_core::Time;

#[derive(Clone, Copy)]
pub(crate) struct Clock {
    origin: Instant,
}

impl Clock {
    pub(crate) fn new() -> Clock {
        Clock {
            origin: Instant::now(),
        }
    }

    pub(crate) fn now(&self) -> Time {
        Time::from_nanos(self.origin.elapsed().as_nanos() as u64)
    }
}
