//! The Python API of Trellis (`import trellis`): a PyO3 extension over the Rust federate
//! library, `trellis_net::rti`, not over the C ABI. The compiled module is
//! `trellis._trellis`; the Python package around it (python/trellis) adds the federate
//! ambassador class, event iteration, the exception hierarchy and analysis helpers.

// Input from a file, the network or a caller never panics here: no unwrap outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

mod ambassador;
mod errors;
mod events;
mod model;
mod router;
mod times;
mod values;

use pyo3::prelude::*;

#[pymodule]
fn _trellis(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<ambassador::PyRtiAmbassador>()?;
    module.add_class::<model::PyObjectModel>()?;
    module.add_class::<router::PyRouter>()?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
