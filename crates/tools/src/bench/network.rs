//! The routers a benchmark runs on: its own on loopback, one given by address, or every
//! router of a topology file; and the attachment points where its federates sit.

use super::{BenchError, Setup, Transport};
use roaring::RoaringBitmap;
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;
use trellis_core::fom::ObjectModel;
use trellis_core::router::RouterConfig;
use trellis_core::topology::{NodeKind, Topology};
use trellis_core::wire::NodeId;
use trellis_net::rti::{Driver, RtiAmbassador, RtiConfig};
use trellis_net::{DirectNode, Endpoint, HostConfig, NetError, Node, NodeConfig, Runtime};

pub(crate) const FEDERATION: &str = "bench";
pub(crate) const SETUP_TIMEOUT: Duration = Duration::from_secs(20);

enum Target {
    Router(Endpoint),
    Topology(Box<Topology>),
}

pub(crate) struct Network {
    /// Event loops of the routers we started.
    _routers: Option<Runtime>,
    target: Target,
    setup: Setup,
}

/// A federation execution created for one benchmark run, destroyed after it; or, in a
/// benchmark agent's process, one the coordinator created (no creator: not ours to destroy).
pub(crate) struct Federation {
    name: String,
    model: Arc<ObjectModel>,
    /// How the creator connects again to destroy the federation after the run.
    destroyer: Option<RtiConfig>,
}

impl Federation {
    pub(crate) fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for Federation {
    fn drop(&mut self) {
        // Best effort: federates still leaving keep it alive; the registry drops them with
        // their links.
        if let Some(config) = self.destroyer.take() {
            if let Ok(mut destroyer) = RtiAmbassador::connect(config) {
                let _ = destroyer.destroy_federation_execution();
            }
        }
    }
}

/// The benchmark's object model: the demo's.
fn bench_model() -> Result<Arc<ObjectModel>, BenchError> {
    Ok(Arc::new(
        ObjectModel::from_sources(&[("trellis-demo.xml", crate::demo::DEMO_FOM)])
            .map_err(|e| BenchError::Failed(e.to_string()))?,
    ))
}

/// The places federates can sit, and how many links apart two of them are.
pub struct Attachments {
    names: Vec<String>,
    distances: Option<Vec<Vec<usize>>>,
}

impl Attachments {
    /// The first `count` attachment points, or an error naming how many there are.
    pub fn take(&self, count: usize) -> Result<Vec<String>, BenchError> {
        if self.distances.is_none() {
            return Ok((1..=count).map(|i| format!("fed-{i}")).collect());
        }
        if count > self.names.len() {
            return Err(BenchError::Failed(format!(
                "the topology has {} federate attachment points; {count} are needed",
                self.names.len()
            )));
        }
        Ok(self.names[..count].to_vec())
    }

    /// Links a message crosses from `a` to `b` (2 under one local router).
    pub fn links(&self, a: &str, b: &str) -> usize {
        let Some(distances) = &self.distances else {
            return 2;
        };
        let index = |n: &str| self.names.iter().position(|x| x == n);
        match (index(a), index(b)) {
            (Some(a), Some(b)) => distances[a][b],
            _ => 0,
        }
    }

    /// `count` disjoint pairs, cycling through the distances the topology offers so that
    /// every hop count is represented.
    pub fn pairs(&self, count: usize) -> Result<Vec<(String, String)>, BenchError> {
        let Some(distances) = &self.distances else {
            return Ok((1..=count)
                .map(|i| (format!("master-{i}"), format!("slave-{i}")))
                .collect());
        };
        let n = self.names.len();
        let mut by_distance: std::collections::BTreeMap<usize, VecDeque<(usize, usize)>> =
            Default::default();
        for (a, row) in distances.iter().enumerate() {
            for (b, &links) in row.iter().enumerate().skip(a + 1) {
                by_distance.entry(links).or_default().push_back((a, b));
            }
        }
        let mut used = vec![false; n];
        let mut pairs = Vec::new();
        while pairs.len() < count {
            let mut progressed = false;
            for candidates in by_distance.values_mut() {
                while let Some((a, b)) = candidates.pop_front() {
                    if !used[a] && !used[b] {
                        used[a] = true;
                        used[b] = true;
                        pairs.push((self.names[a].clone(), self.names[b].clone()));
                        progressed = true;
                        break;
                    }
                }
                if pairs.len() == count {
                    break;
                }
            }
            if !progressed {
                return Err(BenchError::Failed(format!(
                    "the topology's {n} attachment points make only {} disjoint pairs; {count} are needed",
                    pairs.len()
                )));
            }
        }
        Ok(pairs)
    }
}

/// Links between every two federates of a topology (BFS over its links).
fn federate_distances(topology: &Topology, federates: &[usize]) -> Vec<Vec<usize>> {
    let n = topology.nodes().len();
    let mut adjacent = vec![Vec::new(); n];
    for link in topology.links() {
        adjacent[link.dialer].push(link.listener);
        adjacent[link.listener].push(link.dialer);
    }
    federates
        .iter()
        .map(|&source| {
            let mut distance = vec![usize::MAX; n];
            distance[source] = 0;
            let mut queue = VecDeque::from([source]);
            while let Some(node) = queue.pop_front() {
                for &far in &adjacent[node] {
                    if distance[far] == usize::MAX {
                        distance[far] = distance[node] + 1;
                        queue.push_back(far);
                    }
                }
            }
            federates.iter().map(|&f| distance[f]).collect()
        })
        .collect()
}

fn router_config(name: &str, id: u64, setup: &Setup) -> RouterConfig {
    let mut router = RouterConfig::new(name, NodeId(id));
    router.link_defaults = setup.bundling.link_config();
    router
}

impl Network {
    pub(crate) fn start(setup: &Setup) -> Result<Network, BenchError> {
        if let Some(file) = &setup.topology {
            let text = std::fs::read_to_string(file)?;
            let topology = Topology::from_toml(&text)
                .map_err(|e| BenchError::Failed(format!("{}: {e}", file.display())))?;
            let routers = if setup.routers_running {
                None
            } else {
                Some(start_topology(&topology, setup)?)
            };
            return Ok(Network {
                _routers: routers,
                target: Target::Topology(Box::new(topology)),
                setup: setup.clone(),
            });
        }
        if let Some(endpoint) = &setup.router {
            return Ok(Network {
                _routers: None,
                target: Target::Router(endpoint.clone()),
                setup: setup.clone(),
            });
        }
        let runtime = Runtime::start_spinning("bench-router", setup.spin)?;
        let mut router = router_config("bench-router", 1, setup);
        // Federate benchmarks need the federation registry; it costs nothing otherwise.
        router.hosts_registry = true;
        let mut config = HostConfig::new(router);
        // Every federate of the benchmark connects from loopback: the per-address budget,
        // a guard against one hostile host, would cap the benchmark's size.
        config.max_links_per_address = config.max_links;
        config
            .listen
            .push("tcp://127.0.0.1:0".parse().expect("valid endpoint"));
        if setup.transport == Transport::BestEffort {
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
            _routers: Some(runtime),
            target: Target::Router(endpoint),
            setup: setup.clone(),
        })
    }

    pub(crate) fn attachments(&self) -> Attachments {
        match &self.target {
            Target::Router(_) => Attachments {
                names: Vec::new(),
                distances: None,
            },
            Target::Topology(topology) => {
                let federates: Vec<usize> = (0..topology.nodes().len())
                    .filter(|&i| topology.nodes()[i].kind == NodeKind::Federate)
                    .collect();
                Attachments {
                    names: federates
                        .iter()
                        .map(|&i| topology.nodes()[i].name.clone())
                        .collect(),
                    distances: Some(federate_distances(topology, &federates)),
                }
            }
        }
    }

    fn node_config(&self, name: &str, federation: &str) -> Result<NodeConfig, BenchError> {
        let mut config = match &self.target {
            Target::Router(endpoint) => {
                let mut config = NodeConfig::child_of(name, federation, endpoint.clone());
                // Best-effort frames go by UDP where the router offers it.
                config.udp = self.setup.transport == Transport::BestEffort;
                config
            }
            Target::Topology(topology) => {
                let plan = topology
                    .plan(name)
                    .map_err(|e| BenchError::Failed(format!("attachment point: {e}")))?;
                NodeConfig::from_plan(&plan, federation)?
            }
        };
        config.spin = self.setup.spin;
        config.bundle_hold = self.setup.bundle_hold;
        config.link = self.setup.bundling.link_config();
        Ok(config)
    }

    /// A node with an event-loop thread of its own.
    pub(crate) fn node(&self, name: &str) -> Result<Node, BenchError> {
        Ok(Node::connect(self.node_config(name, FEDERATION)?)?)
    }

    /// A node driven by the calling thread.
    pub(crate) fn direct_node(&self, name: &str) -> Result<DirectNode, BenchError> {
        Ok(DirectNode::connect(self.node_config(name, FEDERATION)?)?)
    }

    /// Create a federation execution of its own for this run, on the demo object model.
    /// `creator` is the attachment point the creating federate uses (and leaves).
    pub(crate) fn federation(&self, creator: &str) -> Result<Federation, BenchError> {
        use std::hash::BuildHasher;
        let suffix = std::collections::hash_map::RandomState::new().hash_one(std::process::id());
        let name = format!("bench-{suffix:016x}");
        let model = bench_model()?;
        let mut config = self.node_config(creator, &name)?;
        config.name = format!("{creator}-creator");
        let config = RtiConfig::new(config);
        // The creator leaves at once and comes back to destroy the federation. Connected
        // meanwhile, undriven, it was a stalled consumer of the federation's broadcasts
        // (time messages): once its queue filled, its router paused every publisher for
        // the slow-consumer bound (1 s) and cut it, which a time-stepped run measured as a
        // 1 s stall at its 100,000th step.
        RtiAmbassador::connect(config.clone())?.create_federation_execution(&model)?;
        Ok(Federation {
            name,
            model,
            destroyer: Some(config),
        })
    }

    /// A federation execution another process created (a benchmark agent's coordinator).
    pub(crate) fn existing_federation(&self, name: &str) -> Result<Federation, BenchError> {
        Ok(Federation {
            name: name.to_owned(),
            model: bench_model()?,
            destroyer: None,
        })
    }

    /// The router a process elsewhere reaches this benchmark's network by: the one given or
    /// started on loopback, or `None` on a topology (its file says where each router is).
    pub(crate) fn router_endpoint(&self) -> Option<Endpoint> {
        match &self.target {
            Target::Router(endpoint) => Some(endpoint.clone()),
            Target::Topology(_) => None,
        }
    }

    /// A federate joined to `federation` at attachment point `name`, taking part in the
    /// MOM or not (`RtiConfig::mom`).
    pub(crate) fn federate(
        &self,
        federation: &Federation,
        name: &str,
        driver: Driver,
        mom: bool,
    ) -> Result<RtiAmbassador, BenchError> {
        let mut config = RtiConfig::new(self.node_config(name, &federation.name)?);
        config.driver = driver;
        config.mom = mom;
        let mut rti = RtiAmbassador::connect(config)?;
        rti.join_federation_execution(name, "bench", federation.model.clone())?;
        Ok(rti)
    }
}

/// Every router of a topology in one event loop of this process, linked up.
fn start_topology(topology: &Topology, setup: &Setup) -> Result<Runtime, BenchError> {
    let runtime = Runtime::start_spinning("bench-routers", setup.spin)?;
    let names: Vec<String> = topology.routers().map(|r| r.name.clone()).collect();
    let id = |name: &str| 100 + names.iter().position(|n| n == name).unwrap_or(0) as u64;
    let started = trellis_net::plan::start_routers(
        &runtime,
        topology,
        |name| router_config(name, id(name), setup),
        SETUP_TIMEOUT,
    );
    match started {
        Err(e @ NetError::Listen { .. }) if in_use(&e) => Err(BenchError::Failed(format!(
            "{e}: if the topology's routers are running already (`trellis up`), add \
             --routers-running"
        ))),
        started => Ok(started.map(|_| runtime)?),
    }
}

fn in_use(e: &NetError) -> bool {
    matches!(e, NetError::Listen { error, .. } if error.kind() == std::io::ErrorKind::AddrInUse)
}

pub(crate) fn ids(list: impl IntoIterator<Item = u32>) -> RoaringBitmap {
    list.into_iter().collect()
}
