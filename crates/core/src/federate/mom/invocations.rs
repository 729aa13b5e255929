//! Service and exception reporting (IEEE 1516.1-2010 §11.4.2, HLAadjust
//! `HLAsetServiceReporting` and `HLAsetExceptionReporting`): when a manager turns it on for
//! a federate, that federate's MOM sends `HLAreportServiceInvocation` for every service the
//! federate calls and every callback it is handed, and `HLAreportException` for every service
//! that raised an exception.
//!
//! The federate state machine does not see service calls as calls (the host runs them
//! through its own entry points), so the host describes each one as an [`Invocation`] and
//! hands it to [`Federate::report_invocation`] — only while [`Federate::reports_invocations`]
//! says someone asked, so a federate nobody watches formats nothing.
//!
//! **No report of a report.** A federate whose service invocations are reported may not
//! subscribe to `HLAreportServiceInvocation` (FederateServiceInvocationsAreBeingReportedViaMOM),
//! and reporting is refused for one that does: each report it received would be a callback
//! to report, without end.

use super::{encode, Federate};
use crate::federate::FederateError;
use crate::fom::InteractionClassHandle;

/// The qualified name of the report of service invocations.
const SERVICE_INVOCATION_REPORT: &str =
    "HLAmanager.HLAfederate.HLAreport.HLAreportServiceInvocation";

/// Longest text the MOM sends for one argument or exception, in characters: a service's
/// arguments (an update's values, say) are described, not copied whole.
pub const MAX_ARGUMENT_CHARS: usize = 512;

/// Most arguments one report lists; the last one says how many more there were.
pub const MAX_ARGUMENTS: usize = 16;

/// One service call or callback, as the MOM reports it.
#[derive(Clone, Copy, Debug)]
pub struct Invocation<'a> {
    /// The standard's name of the service or callback (`updateAttributeValues`,
    /// `reflectAttributeValues`).
    pub service: &'a str,
    /// The arguments as supplied, each as text.
    pub supplied: &'a [String],
    /// What the service returned, as text (empty for a callback or a service returning nothing).
    pub returned: &'a [String],
    /// The exception it raised: `None` when it succeeded.
    pub exception: Option<&'a str>,
}

/// Which reports a manager asked this federate's MOM for (HLAsetServiceReporting,
/// HLAsetExceptionReporting), and the serial number of the next service report.
#[derive(Clone, Copy, Debug, Default)]
pub(in crate::federate) struct Reporting {
    pub services: bool,
    pub exceptions: bool,
    pub serial: u64,
}

impl Federate {
    /// Whether the host should describe each service call and callback to
    /// [`Federate::report_invocation`]: a manager turned service or exception reporting on.
    pub fn reports_invocations(&self) -> bool {
        self.reports_services() || self.reports_exceptions()
    }

    /// Whether a manager turned service reporting on for this federate (HLAsetServiceReporting).
    pub fn reports_services(&self) -> bool {
        self.mom.as_ref().is_some_and(|m| m.reporting.services)
    }

    /// Whether a manager turned exception reporting on (HLAsetExceptionReporting).
    pub fn reports_exceptions(&self) -> bool {
        self.mom.as_ref().is_some_and(|m| m.reporting.exceptions)
    }

    /// Report one service call or callback at `time` (the host's wall clock): an
    /// HLAreportServiceInvocation when service reporting is on, and an HLAreportException
    /// for a failed service when exception reporting is on.
    pub fn report_invocation(&mut self, invocation: &Invocation<'_>, time: u64) {
        let Some(mom) = &mut self.mom else { return };
        let reporting = mom.reporting;
        if reporting.services {
            let serial = reporting.serial + 1;
            mom.reporting.serial = serial;
            self.report_service_invocation(invocation, serial, time);
        }
        if let (true, Some(exception)) = (reporting.exceptions, invocation.exception) {
            self.report_exception(invocation.service, exception, time);
        }
    }

    fn report_service_invocation(&mut self, invocation: &Invocation<'_>, serial: u64, time: u64) {
        let parameters = [
            "HLAfederate",
            "HLAservice",
            "HLAsuccessIndicator",
            "HLAsuppliedArguments",
            "HLAreturnedArguments",
            "HLAexception",
            "HLAserialNumber",
        ];
        let Some((class, [federate, service, success, supplied, returned, exception, number])) =
            self.report_class("HLAreportServiceInvocation", parameters)
        else {
            return;
        };
        let values = [
            (federate, encode::handle(u64::from(self.handle))),
            (service, encode::unicode_string(invocation.service)),
            (success, encode::boolean(invocation.exception.is_none())),
            (supplied, argument_list(invocation.supplied)),
            (returned, argument_list(invocation.returned)),
            (
                exception,
                encode::unicode_string(&bounded(invocation.exception.unwrap_or(""))),
            ),
            (number, encode::count(serial)),
        ];
        self.mom_interaction(class, &values, time);
    }

    fn report_exception(&mut self, service: &str, exception: &str, time: u64) {
        let parameters = ["HLAfederate", "HLAservice", "HLAexception"];
        let Some((class, [federate, named, raised])) =
            self.report_class("HLAreportException", parameters)
        else {
            return;
        };
        let values = [
            (federate, encode::handle(u64::from(self.handle))),
            (named, encode::unicode_string(service)),
            (raised, encode::unicode_string(&bounded(exception))),
        ];
        self.mom_interaction(class, &values, time);
    }

    /// HLAsetServiceReporting: refused (the caller reports why as HLAreportMOMexception)
    /// when turning it on for a federate that subscribes to the report itself.
    pub(super) fn set_service_reporting(&mut self, on: bool) -> Result<(), &'static str> {
        if on && self.subscribes_to_invocation_reports() {
            return Err("the federate subscribes to HLAreportServiceInvocation: its reports would be reported");
        }
        let mom = self.mom.as_mut().ok_or("no MOM")?;
        mom.reporting.services = on;
        Ok(())
    }

    /// HLAsetExceptionReporting.
    pub(super) fn set_exception_reporting(&mut self, on: bool) {
        if let Some(mom) = &mut self.mom {
            mom.reporting.exceptions = on;
        }
    }

    /// Whether this federate subscribes to HLAreportServiceInvocation (or a class above it,
    /// through which the report would be delivered).
    fn subscribes_to_invocation_reports(&self) -> bool {
        let Some(report) = self.model.find_interaction_class(SERVICE_INVOCATION_REPORT) else {
            return false;
        };
        (self.interaction_subscriptions.keys())
            .any(|c| self.model.is_interaction_subclass(report, *c))
    }

    /// subscribeInteractionClass of `class` by a federate whose service invocations are
    /// reported: refused when the report would reach it (§11.4.2's rule).
    pub(in crate::federate) fn check_not_reported_subscription(
        &self,
        class: InteractionClassHandle,
    ) -> Result<(), FederateError> {
        let reported = self.reports_services();
        let Some(report) = self.model.find_interaction_class(SERVICE_INVOCATION_REPORT) else {
            return Ok(());
        };
        if reported && self.model.is_interaction_subclass(report, class) {
            return Err(
                FederateError::FederateServiceInvocationsAreBeingReportedViaMom(
                    self.model.interaction_class(class).qualified_name.clone(),
                ),
            );
        }
        Ok(())
    }
}

/// HLAargumentList: a variable array of HLAunicodeString, each bounded, at most
/// [`MAX_ARGUMENTS`] of them.
fn argument_list(arguments: &[String]) -> Vec<u8> {
    let shown = arguments.len().min(MAX_ARGUMENTS);
    let mut texts: Vec<String> = arguments[..shown].iter().map(|a| bounded(a)).collect();
    if arguments.len() > shown {
        texts.push(format!("… {} more", arguments.len() - shown));
    }
    encode::string_list(texts.iter().map(String::as_str))
}

/// `text`, cut at [`MAX_ARGUMENT_CHARS`] characters with an ellipsis.
fn bounded(text: &str) -> String {
    match text.char_indices().nth(MAX_ARGUMENT_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}
