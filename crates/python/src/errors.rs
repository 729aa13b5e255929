//! Rust errors as the standard's exceptions, raised from the Python hierarchy in
//! `trellis/exceptions.py` (one class per IEEE 1516.1-2010 exception name, all under
//! `RTIexception`).

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use trellis_core::federate::FederateError;
use trellis_core::fom::{FddErrorKind, MimErrorKind};
use trellis_net::rti::RtiError;

/// Raise the standard exception `name` with `message`; RTIinternalError when the Python
/// side does not define `name`.
pub fn raise(name: &str, message: impl Into<String>) -> PyErr {
    let message = message.into();
    Python::attach(|py| {
        let class = py
            .import("trellis.exceptions")
            .and_then(|module| module.getattr("exception_class"))
            .and_then(|lookup| lookup.call1((name,)));
        match class {
            Ok(class) => match class.call1((message.clone(),)) {
                Ok(instance) => PyErr::from_value(instance),
                Err(e) => e,
            },
            Err(_) => PyRuntimeError::new_err(format!("{name}: {message}")),
        }
    })
}

/// The variant's name, as `Debug` prints it before its fields. The error enums name their
/// variants after the standard's exceptions, so this is the exception's name for most.
fn variant_name(debug: &str) -> &str {
    let end = debug.find(['(', ' ', '{']).unwrap_or(debug.len());
    &debug[..end]
}

/// The standard's name for a federate state machine's error.
fn federate_error_name(error: &FederateError) -> String {
    let name = match error {
        FederateError::Time(time) => return variant_name(&format!("{time:?}")).to_owned(),
        FederateError::ModelNotExtended(_) => "InconsistentFDD",
        FederateError::ObjectInstanceNameNotKnown(_) => "ObjectInstanceNotKnown",
        // getDimensionHandle's exception for a name the model lacks.
        FederateError::DimensionNotDefined(_) => "NameNotFound",
        FederateError::IllegalName(_) => "IllegalName",
        FederateError::InvalidRegion(_) => "InvalidRegion",
        FederateError::NotPermitted(_)
        | FederateError::TooManyValues(_)
        | FederateError::TooManyClasses(_)
        | FederateError::TooManyRegions(_) => "RTIinternalError",
        FederateError::InvalidFederateHandle(_) => "InvalidFederateHandle",
        FederateError::InvalidUpdateRateDesignator(_) => "InvalidUpdateRateDesignator",
        other => return variant_name(&format!("{other:?}")).to_owned(),
    };
    name.to_owned()
}

fn fdd_name(kind: FddErrorKind) -> &'static str {
    match kind {
        FddErrorKind::CouldNotOpen => "CouldNotOpenFDD",
        FddErrorKind::ErrorReading => "ErrorReadingFDD",
        FddErrorKind::Inconsistent => "InconsistentFDD",
    }
}

/// The standard's exception name for an RTI service's error.
pub fn exception_name(error: &RtiError) -> String {
    let name = match error {
        RtiError::Federate(inner) => return federate_error_name(inner),
        RtiError::ObjectModel(mim) => match mim.kind() {
            MimErrorKind::CouldNotOpenMim => "CouldNotOpenMIM",
            MimErrorKind::ErrorReadingMim => "ErrorReadingMIM",
            MimErrorKind::Fdd(kind) => fdd_name(kind),
        },
        RtiError::NotConnected => "NotConnected",
        RtiError::ConnectionFailed(_) | RtiError::Net(_) => "ConnectionFailed",
        RtiError::InconsistentFdd(_) => "InconsistentFDD",
        RtiError::Registry(_) | RtiError::LimitReached(_) | RtiError::AsyncNeedsThreadDriver => {
            "RTIinternalError"
        }
        RtiError::DesignatorIsHlaStandardMim => "DesignatorIsHLAstandardMIM",
        other => return variant_name(&format!("{other:?}")).to_owned(),
    };
    name.to_owned()
}

pub fn rti_error(error: RtiError) -> PyErr {
    raise(&exception_name(&error), error.to_string())
}

/// `?` on RTI service results inside the bindings.
pub trait IntoPyResult<T> {
    fn py(self) -> PyResult<T>;
}

impl<T> IntoPyResult<T> for Result<T, RtiError> {
    fn py(self) -> PyResult<T> {
        self.map_err(rti_error)
    }
}

impl<T> IntoPyResult<T> for Result<T, FederateError> {
    fn py(self) -> PyResult<T> {
        self.map_err(|e| raise(&federate_error_name(&e), e.to_string()))
    }
}
