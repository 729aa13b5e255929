//! The router a benchmark runs against: its own on loopback, or one given by address.

use super::{BenchError, Transport};
use roaring::RoaringBitmap;
use std::sync::Arc;
use std::time::Duration;
use trellis_core::fom::ObjectModel;
use trellis_core::router::RouterConfig;
use trellis_core::wire::NodeId;
use trellis_net::rti::{Driver, RtiAmbassador, RtiConfig};
use trellis_net::{DirectNode, Endpoint, HostConfig, Node, NodeConfig, Runtime};

/// A federation execution created for one benchmark run, destroyed after it.
pub(crate) struct Federation {
    name: String,
    model: Arc<ObjectModel>,
    creator: RtiAmbassador,
}

impl Drop for Federation {
    fn drop(&mut self) {
        // Best effort: federates still leaving keep it alive; the registry drops them with
        // their links.
        let _ = self.creator.destroy_federation_execution();
    }
}

pub(crate) const FEDERATION: &str = "bench";
pub(crate) const SETUP_TIMEOUT: Duration = Duration::from_secs(20);

pub(crate) struct Network {
    /// Our own router's event loop, when we started one.
    _router: Option<Runtime>,
    endpoint: Endpoint,
    transport: Transport,
    spin: Duration,
}

impl Network {
    pub(crate) fn start(
        router: Option<&Endpoint>,
        transport: Transport,
        spin: Duration,
    ) -> Result<Network, BenchError> {
        if let Some(endpoint) = router {
            return Ok(Network {
                _router: None,
                endpoint: endpoint.clone(),
                transport,
                spin,
            });
        }
        let runtime = Runtime::start_spinning("bench-router", spin)?;
        let mut router = RouterConfig::new("bench-router", NodeId(1));
        // Federate benchmarks need the federation registry; it costs nothing otherwise.
        router.hosts_registry = true;
        let mut config = HostConfig::new(router);
        config
            .listen
            .push("tcp://127.0.0.1:0".parse().expect("valid endpoint"));
        if transport == Transport::BestEffort {
            config
                .listen
                .push("udp://127.0.0.1:0".parse().expect("valid endpoint"));
        }
        let host = runtime.add_host(config)?;
        let endpoint = host
            .listening()
            .iter()
            .find(|e| matches!(e, Endpoint::Tcp(_)))
            .cloned()
            .ok_or_else(|| BenchError::Failed("router has no TCP listener".into()))?;
        Ok(Network {
            _router: Some(runtime),
            endpoint,
            transport,
            spin,
        })
    }

    fn node_config(&self, name: &str) -> NodeConfig {
        self.node_config_in(name, FEDERATION)
    }

    fn node_config_in(&self, name: &str, federation: &str) -> NodeConfig {
        let mut config = NodeConfig::child_of(name, federation, self.endpoint.clone());
        // Best-effort frames go by UDP where the router offers it.
        config.udp = self.transport == Transport::BestEffort;
        config.spin = self.spin;
        config
    }

    /// A node with an event-loop thread of its own.
    pub(crate) fn node(&self, name: &str) -> Result<Node, BenchError> {
        Ok(Node::connect(self.node_config(name))?)
    }

    /// Create a federation execution of its own for this run, on the demo object model.
    pub(crate) fn federation(&self) -> Result<Federation, BenchError> {
        use std::hash::BuildHasher;
        let suffix = std::collections::hash_map::RandomState::new().hash_one(std::process::id());
        let name = format!("bench-{suffix:016x}");
        let model = Arc::new(
            ObjectModel::from_sources(&[("trellis-demo.xml", crate::demo::DEMO_FOM)])
                .map_err(|e| BenchError::Failed(e.to_string()))?,
        );
        let mut creator =
            RtiAmbassador::connect(RtiConfig::new(self.node_config_in("creator", &name)))?;
        creator.create_federation_execution(&model)?;
        Ok(Federation {
            name,
            model,
            creator,
        })
    }

    /// A federate joined to `federation`.
    pub(crate) fn federate(
        &self,
        federation: &Federation,
        name: &str,
        driver: Driver,
    ) -> Result<RtiAmbassador, BenchError> {
        let mut config = RtiConfig::new(self.node_config_in(name, &federation.name));
        config.driver = driver;
        let mut rti = RtiAmbassador::connect(config)?;
        rti.join_federation_execution(name, "bench", federation.model.clone())?;
        Ok(rti)
    }

    /// A node driven by the calling thread.
    pub(crate) fn direct_node(&self, name: &str) -> Result<DirectNode, BenchError> {
        Ok(DirectNode::connect(self.node_config(name))?)
    }
}

pub(crate) fn ids(list: impl IntoIterator<Item = u32>) -> RoaringBitmap {
    list.into_iter().collect()
}
