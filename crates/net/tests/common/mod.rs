//! What the socket tests share: a registry router on loopback, federates attached to it,
//! and a bounded wait for a callback.

#![allow(dead_code)] // each test file uses a part

pub mod pki;
pub mod topology;

use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_core::fom::ObjectModel;
use trellis_core::router::RouterConfig;
use trellis_core::wire::NodeId;
use trellis_net::rti::{Driver, RtiAmbassador, RtiConfig};
use trellis_net::{Endpoint, HostConfig, NodeConfig, Runtime};

pub const DEMO: &str = include_str!("../../../../foms/trellis-demo.xml");
pub const WAIT: Duration = Duration::from_secs(10);

pub fn model() -> Arc<ObjectModel> {
    Arc::new(ObjectModel::from_sources(&[("trellis-demo.xml", DEMO)]).unwrap())
}

/// One router holding the federation registry, listening on a free loopback port.
pub fn registry_router() -> (Runtime, Endpoint) {
    let runtime = Runtime::start("test-router").unwrap();
    let mut router = RouterConfig::new("router", NodeId(1));
    router.hosts_registry = true;
    let mut config = HostConfig::new(router);
    config.listen.push("tcp://127.0.0.1:0".parse().unwrap());
    let host = runtime.add_host(config).unwrap();
    let endpoint = host.listening()[0].clone();
    (runtime, endpoint)
}

pub fn connect(at: &Endpoint, federation: &str, name: &str, driver: Driver) -> RtiAmbassador {
    let mut config = RtiConfig::new(NodeConfig::child_of(name, federation, at.clone()));
    config.driver = driver;
    RtiAmbassador::connect(config).unwrap()
}

/// Evoke until a callback matches, within the bound.
pub fn wait_for(rti: &mut RtiAmbassador, what: impl Fn(&Callback) -> bool) -> Callback {
    let deadline = Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "no matching callback in time");
        if let Some(callback) = rti.evoke_callback(left).unwrap() {
            if what(&callback) {
                return callback;
            }
        }
    }
}
