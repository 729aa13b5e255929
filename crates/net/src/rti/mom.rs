//! The host's side of the Management Object Model (core's `federate::mom`): what the MOM
//! says of the federate that only the host knows (its host name, the RTI's version, what it
//! joined with), and the clock for HLAsetTiming's periodic updates.

use super::{RtiAmbassador, RtiError};
use std::time::Duration;
use trellis_core::federate::MomIdentity;
use trellis_core::fom::ObjectModel;
use trellis_core::registry::Snapshot;

/// While callbacks keep coming, the clock is looked at for the MOM's periodic updates once
/// per this many: a look is a clock read (about ten nanoseconds on the time stamp counter,
/// `wall_clock.rs`; a cost the reflect path of a watched federate need not pay per
/// callback), and a report a period of seconds long can wait that many callbacks (tens of
/// microseconds at full rate).
const MOM_CLOCK_EVERY: u32 = 64;

/// HLARTIversion.
const RTI_VERSION: &str = concat!("Trellis ", env!("CARGO_PKG_VERSION"));

/// What the MOM of a federate that joined with `model`, loaded from `modules`, says of it.
pub(super) fn identity(
    model: &ObjectModel,
    modules: &[String],
    snapshot: &Snapshot,
) -> MomIdentity {
    // The model lists its modules MIM first.
    let (mim, federation_modules) = match model.modules().split_first() {
        Some((mim, rest)) => (mim.clone(), rest.to_vec()),
        None => (String::new(), Vec::new()),
    };
    MomIdentity {
        host: host_name(),
        rti_version: RTI_VERSION.to_owned(),
        joined_modules: modules.to_vec(),
        federation_modules,
        mim_designator: mim,
        time_implementation: snapshot.time_representation.clone(),
    }
}

/// This machine's host name, as the kernel has it (Linux), else as /etc/hostname says,
/// else "" (the MOM then reports an empty HLAfederateHost rather than a made-up one).
fn host_name() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|path| std::fs::read_to_string(path).ok())
        .map(|name| name.trim().to_owned())
        .unwrap_or_default()
}

impl RtiAmbassador {
    /// Send the MOM's periodic updates that are due, if any (HLAsetTiming).
    pub(super) fn tell_mom(&mut self) -> Result<(), RtiError> {
        let due = (self.joined.as_ref()).and_then(|j| j.federate.poll_mom_timeout());
        let Some(due) = due else { return Ok(()) };
        if self.callbacks_queued() {
            self.mom_clock_skipped += 1;
            if self.mom_clock_skipped < MOM_CLOCK_EVERY {
                return Ok(());
            }
        }
        self.mom_clock_skipped = 0;
        let now = self.wall.unix_nanos();
        if now < due {
            return Ok(());
        }
        if let Some(joined) = self.joined.as_mut() {
            joined.federate.handle_mom_timeout(now);
        }
        self.flush_actions()
    }

    /// How long a wait may last so that the MOM's next periodic update goes out on time.
    pub(super) fn mom_slice(&mut self, slice: Duration) -> Duration {
        let due = (self.joined.as_ref()).and_then(|j| j.federate.poll_mom_timeout());
        match due {
            Some(due) => slice.min(Duration::from_nanos(
                due.saturating_sub(self.wall.unix_nanos()),
            )),
            None => slice,
        }
    }
}
