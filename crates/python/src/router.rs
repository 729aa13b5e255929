//! `trellis.Router`: a router inside this process, holding the federation registry and
//! listening on TCP; for tests and small federations (`python -m trellis router`).

use crate::errors::raise;
use pyo3::prelude::*;
use trellis_core::router::RouterConfig;
use trellis_core::wire::NodeId;
use trellis_net::{Endpoint, HostConfig, Runtime};

#[pyclass(name = "Router", module = "trellis")]
pub struct PyRouter {
    runtime: Option<Runtime>,
    address: String,
}

fn start(listen: &str, name: &str) -> Result<(Runtime, String), String> {
    let endpoint: Endpoint = listen
        .parse()
        .map_err(|e| format!("listen address {listen:?}: {e}"))?;
    let runtime = Runtime::start(name).map_err(|e| e.to_string())?;
    let mut router = RouterConfig::new(name, NodeId(1));
    router.hosts_registry = true;
    let mut config = HostConfig::new(router);
    config.listen.push(endpoint);
    let host = runtime.add_host(config).map_err(|e| e.to_string())?;
    let address = host
        .listening()
        .first()
        .map(ToString::to_string)
        .ok_or_else(|| "the router listens nowhere".to_owned())?;
    Ok((runtime, address))
}

#[pymethods]
impl PyRouter {
    /// Start a router listening at `listen` (port 0: a free port; see `address`).
    #[new]
    #[pyo3(signature = (listen = "tcp://127.0.0.1:0", name = "router"))]
    fn new(py: Python<'_>, listen: &str, name: &str) -> PyResult<Self> {
        let (runtime, address) = py
            .detach(|| start(listen, name))
            .map_err(|why| raise("RTIinternalError", format!("cannot start a router: {why}")))?;
        Ok(PyRouter {
            runtime: Some(runtime),
            address,
        })
    }

    /// Where federates connect: `tcp://HOST:PORT`.
    #[getter]
    fn address(&self) -> String {
        self.address.clone()
    }

    #[getter]
    fn running(&self) -> bool {
        self.runtime.is_some()
    }

    /// Stop the router (its federates lose their connection).
    fn stop(&mut self, py: Python<'_>) {
        if let Some(runtime) = self.runtime.take() {
            py.detach(|| runtime.shutdown());
        }
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    fn __exit__(&mut self, py: Python<'_>, _a: Py<PyAny>, _b: Py<PyAny>, _c: Py<PyAny>) -> bool {
        self.stop(py);
        false
    }

    fn __repr__(&self) -> String {
        format!(
            "Router({}{})",
            self.address,
            if self.runtime.is_some() {
                ""
            } else {
                ", stopped"
            }
        )
    }
}
