//! Logical times and intervals between Python and the federation's representation:
//! `int` for HLAinteger64Time, `float` for HLAfloat64Time.

use crate::errors::raise;
use pyo3::prelude::*;
use pyo3::types::{PyFloat, PyInt};
use trellis_core::federate::{Interval, LogicalTime, TimeRepresentation};

pub type Times = TimeRepresentation;

fn type_name(value: &Bound<'_, PyAny>) -> String {
    value
        .get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_default()
}

pub fn time_to_py(py: Python<'_>, times: Times, time: LogicalTime) -> PyResult<Py<PyAny>> {
    Ok(match times {
        TimeRepresentation::Integer64 => time.as_i64().into_pyobject(py)?.into_any().unbind(),
        TimeRepresentation::Float64 => time.as_f64().into_pyobject(py)?.into_any().unbind(),
    })
}

/// A logical time from Python: an int in an HLAinteger64Time federation, an int or a float
/// in an HLAfloat64Time one; anything else is InvalidLogicalTime naming the type.
pub fn time_from_py(times: Times, value: &Bound<'_, PyAny>) -> PyResult<LogicalTime> {
    match times {
        TimeRepresentation::Integer64 if value.is_instance_of::<PyInt>() => value
            .extract::<i64>()
            .map(LogicalTime::from_i64)
            .map_err(|_| {
                raise(
                    "InvalidLogicalTime",
                    format!("{value} is out of HLAinteger64Time's range"),
                )
            }),
        TimeRepresentation::Float64
            if value.is_instance_of::<PyFloat>() || value.is_instance_of::<PyInt>() =>
        {
            let number = value.extract::<f64>()?;
            LogicalTime::from_f64(number)
                .ok_or_else(|| raise("InvalidLogicalTime", "NaN is not an HLAfloat64Time"))
        }
        _ => Err(raise(
            "InvalidLogicalTime",
            format!(
                "the federation's time is {}, not {}",
                times.name(),
                type_name(value)
            ),
        )),
    }
}

pub fn interval_from_py(times: Times, value: &Bound<'_, PyAny>) -> PyResult<Interval> {
    let wrong = || {
        raise(
            "InvalidLookahead",
            format!(
                "the federation's time is {}: a lookahead of type {} does not fit",
                times.name(),
                type_name(value)
            ),
        )
    };
    match times {
        TimeRepresentation::Integer64 if value.is_instance_of::<PyInt>() => value
            .extract::<i64>()
            .map(Interval::Integer)
            .map_err(|_| wrong()),
        TimeRepresentation::Float64
            if value.is_instance_of::<PyFloat>() || value.is_instance_of::<PyInt>() =>
        {
            value
                .extract::<f64>()
                .map(Interval::Float)
                .map_err(|_| wrong())
        }
        _ => Err(wrong()),
    }
}

pub fn interval_to_py(py: Python<'_>, interval: Interval) -> PyResult<Py<PyAny>> {
    Ok(match interval {
        Interval::Integer(v) => v.into_pyobject(py)?.into_any().unbind(),
        Interval::Float(v) => v.into_pyobject(py)?.into_any().unbind(),
    })
}
