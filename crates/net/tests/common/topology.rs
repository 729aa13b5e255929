//! A generated topology's routers in this process, on free loopback ports: what the tests
//! that step federates across a tree or mesh share.

use std::time::Duration;
use trellis_core::router::RouterConfig;
use trellis_core::topology::{generate, GenerateOptions, Shape, Topology};
use trellis_core::wire::NodeId;
use trellis_net::Runtime;

/// Bound on the routers coming up (generous: the machine may be loaded).
const ROUTERS_UP: Duration = Duration::from_secs(30);

/// `shape` with its ports following one a probe found free.
fn topology(shape: &Shape) -> Topology {
    let base_port = {
        let probe = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        probe.local_addr().unwrap().port()
    };
    let options = GenerateOptions {
        base_port,
        ..GenerateOptions::default()
    };
    generate(shape, &options).unwrap()
}

/// `shape` on free ports with its routers running. A port the probe saw free can be taken
/// before the routers bind it (the ports follow the probed one): then try other ports.
pub fn start_shape(shape: &Shape) -> (Topology, Runtime) {
    let mut attempts = 0;
    loop {
        let topology = topology(shape);
        match start(&topology) {
            Ok(runtime) => return (topology, runtime),
            Err(e) if attempts < 5 => {
                attempts += 1;
                eprintln!("retrying on other ports: {e}");
            }
            Err(e) => panic!("{shape:?}: {e}"),
        }
    }
}

/// Every router of `topology` in this process; the registry where the topology puts it.
fn start(topology: &Topology) -> Result<Runtime, trellis_net::NetError> {
    let runtime = Runtime::start("test-routers")?;
    let registry = topology
        .registry_host()
        .map(|i| topology.nodes()[i].name.clone());
    let names: Vec<String> = topology.routers().map(|r| r.name.clone()).collect();
    trellis_net::plan::start_routers(
        &runtime,
        topology,
        |name| {
            let id = 100 + names.iter().position(|n| n == name).unwrap_or(0) as u64;
            let mut config = RouterConfig::new(name, NodeId(id));
            config.hosts_registry = registry.as_deref() == Some(name);
            config
        },
        ROUTERS_UP,
    )?;
    Ok(runtime)
}
