//! The router a benchmark runs against: its own on loopback, or one given by address.

use super::{BenchError, Transport};
use roaring::RoaringBitmap;
use std::time::Duration;
use trellis_core::router::RouterConfig;
use trellis_core::wire::NodeId;
use trellis_net::{DirectNode, Endpoint, HostConfig, Node, NodeConfig, Runtime};

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
        let mut config = HostConfig::new(RouterConfig::new("bench-router", NodeId(1)));
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
        let mut config = NodeConfig::child_of(name, FEDERATION, self.endpoint.clone());
        // Best-effort frames go by UDP where the router offers it.
        config.udp = self.transport == Transport::BestEffort;
        config.spin = self.spin;
        config
    }

    /// A node with an event-loop thread of its own.
    pub(crate) fn node(&self, name: &str) -> Result<Node, BenchError> {
        Ok(Node::connect(self.node_config(name))?)
    }

    /// A node driven by the calling thread.
    pub(crate) fn direct_node(&self, name: &str) -> Result<DirectNode, BenchError> {
        Ok(DirectNode::connect(self.node_config(name))?)
    }
}

pub(crate) fn ids(list: impl IntoIterator<Item = u32>) -> RoaringBitmap {
    list.into_iter().collect()
}
