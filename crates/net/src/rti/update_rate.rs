//! Update rates on the ambassador: the designator of a subscription, and the clock the
//! federate library thins reflections by (`trellis_core::federate` is sans-IO).

use super::reporting::Call;
use super::{RtiAmbassador, RtiError};
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use trellis_core::fom::ObjectClassHandle;

/// A monotonic clock from the first look at it: the federate only compares its readings.
fn monotonic() -> Duration {
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed()
}

impl RtiAmbassador {
    /// The update rate designator of `class`'s subscription (`None`: every reflection):
    /// reflections of each instance come at most at the object model's rate of that name,
    /// the newest values held until they may. A subscribe clears it: set it after.
    pub fn set_object_class_update_rate(
        &mut self,
        class: ObjectClassHandle,
        rate: Option<&str>,
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("setObjectClassUpdateRate", &[&class, &rate]),
            |f| Ok(f.set_object_class_update_rate(class, rate)?),
        )
    }

    /// Hand the federate the time, when it thins reflections by it (no clock read else).
    pub(super) fn tell_time(&mut self) {
        if let Some(joined) = self.joined.as_mut() {
            if joined.federate.needs_clock() {
                joined.federate.set_now(monotonic());
            }
        }
    }

    /// How long a wait may last so that a held reflection is released on time.
    pub(super) fn release_slice(&self, slice: Duration) -> Duration {
        let next = (self.joined.as_ref()).and_then(|j| j.federate.next_release());
        match next {
            Some(at) => slice.min(at.saturating_sub(monotonic())),
            None => slice,
        }
    }
}
