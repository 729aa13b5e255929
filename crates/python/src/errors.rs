//! Rust errors as the standard's exceptions, raised from the Python hierarchy in
//! `trellis/exceptions.py` (one class per IEEE 1516.1-2010 exception name, all under
//! `RTIexception`).

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use trellis_core::federate::FederateError;
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

pub fn rti_error(error: RtiError) -> PyErr {
    raise(&error.exception_name(), error.to_string())
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
        self.map_err(|e| raise(&e.exception_name(), e.to_string()))
    }
}
