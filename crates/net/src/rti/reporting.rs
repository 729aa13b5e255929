//! The host's side of service reporting (HLAsetServiceReporting and HLAsetExceptionReporting,
//! which the federate's MOM acts on in `trellis_core::federate::mom`): every service runs
//! through [`RtiAmbassador::with`](super::RtiAmbassador) with a [`Call`] naming it and its
//! arguments, and every callback leaves through `ready_callback`; while a manager has asked
//! for reports, each is described to the MOM. Nothing is formatted otherwise.

use super::RtiError;
use std::fmt::{self, Debug};
use trellis_core::federate::{Callback, Federate, Invocation};

/// A service call as the MOM reports it: the standard's name and the arguments supplied.
#[derive(Clone, Copy)]
pub(super) struct Call<'a> {
    service: &'static str,
    arguments: &'a [&'a dyn Debug],
}

impl<'a> Call<'a> {
    /// The service `service` (the standard's name: `updateAttributeValues`) called with
    /// `arguments`, which are formatted only when reported.
    pub fn new(service: &'static str, arguments: &'a [&'a dyn Debug]) -> Call<'a> {
        Call { service, arguments }
    }

    /// Work the RTI does on its own account through the federate (reclaiming a membership,
    /// a departed federate's instances): not a service the federate called, never reported.
    pub const INTERNAL: Call<'static> = Call {
        service: "",
        arguments: &[],
    };
}

/// An update's values or an interaction's parameters as a report shows them: each handle
/// with the length of its value, not the bytes.
pub(super) struct ValueSizes<'a, H, V>(pub &'a [(H, V)]);

impl<H: Debug, V: AsRef<[u8]>> Debug for ValueSizes<'_, H, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let entries = self.0.iter().map(|(h, v)| (h, Bytes(v.as_ref().len())));
        f.debug_map().entries(entries).finish()
    }
}

/// A length shown as "N bytes".
struct Bytes(usize);

impl Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} bytes", self.0)
    }
}

/// Report `call` and how it ended, when a manager asked for reports (the caller checks
/// [`Federate::reports_invocations`] first).
pub(super) fn report_call<T: Debug>(
    federate: &mut Federate,
    call: Call<'_>,
    result: &Result<T, RtiError>,
    now: u64,
) {
    if call.service.is_empty() {
        return;
    }
    let supplied: Vec<String> = call.arguments.iter().map(|a| format!("{a:?}")).collect();
    let returned = match result {
        Ok(value) => Some(format!("{value:?}")).filter(|v| v != "()"),
        Err(_) => None,
    };
    let exception = (result.as_ref().err()).map(|e| format!("{}: {e}", e.exception_name()));
    let invocation = Invocation {
        service: call.service,
        supplied: &supplied,
        returned: returned.as_slice(),
        exception: exception.as_deref(),
    };
    federate.report_invocation(&invocation, now);
}

/// Report a callback handed to the federate, when a manager asked for service reports.
pub(super) fn report_callback(federate: &mut Federate, callback: &Callback, now: u64) {
    let supplied = [format!("{callback:?}")];
    let invocation = Invocation {
        service: callback.service_name(),
        supplied: &supplied,
        returned: &[],
        exception: None,
    };
    federate.report_invocation(&invocation, now);
}
