//! The routers a clutter run uses and what can be read from them: routers started in this
//! process (one event loop thread each, so each can be measured apart and their forward
//! counters read), or routers already running as processes (`--routers-running`, `trellis
//! up`), found through /proc and measured from outside — their counters are not reachable
//! from another process, so router forwards are then not reported.

use super::federate::rti_config;
use super::procstat::{self, Usage};
use super::protocol::Target;
use crate::bench::{BenchError, Setup, Transport};
use std::time::Duration;
use trellis_core::router::RouterConfig;
use trellis_core::topology::Topology;
use trellis_core::wire::NodeId;
use trellis_net::plan::{host_config, router_links};
use trellis_net::{Endpoint, Host, HostConfig, NodeConfig, Runtime};

const LINK_TIMEOUT: Duration = Duration::from_secs(20);

/// One router we can measure.
enum Measured {
    /// In this process: its event loop thread's name and its host.
    Thread { thread: String, host: Host },
    /// Another process.
    Process { pid: u32 },
}

pub struct Routers {
    target: Target,
    /// Federate attachment points of the topology (none with a router address).
    places: Vec<String>,
    routers: Vec<(String, Measured)>,
    /// Keeps the in-process routers running.
    _runtimes: Vec<Runtime>,
}

fn router_config(name: &str, id: u64, setup: &Setup) -> RouterConfig {
    let mut router = RouterConfig::new(name, NodeId(id));
    router.link_defaults = setup.bundling.link_config();
    router
}

impl Routers {
    pub fn start(setup: &Setup) -> Result<Routers, BenchError> {
        if let Some(file) = &setup.topology {
            return Routers::topology(setup, file);
        }
        if let Some(endpoint) = &setup.router {
            return Ok(Routers {
                target: Target::Router(endpoint.to_string()),
                places: Vec::new(),
                routers: Vec::new(),
                _runtimes: Vec::new(),
            });
        }
        let runtime = Runtime::start_spinning("rt0", setup.spin)?;
        let mut router = router_config("clutter-router", 1, setup);
        router.hosts_registry = true;
        let mut config = HostConfig::new(router);
        // Every federate connects from loopback (see `network.rs`).
        config.max_links_per_address = config.max_links;
        config.listen.push(Endpoint::Tcp(
            "127.0.0.1:0"
                .parse()
                .map_err(|e| BenchError::Failed(format!("{e}")))?,
        ));
        if setup.transport == Transport::BestEffort {
            config.listen.push(Endpoint::Udp(
                "127.0.0.1:0"
                    .parse()
                    .map_err(|e| BenchError::Failed(format!("{e}")))?,
            ));
        }
        let host = runtime.add_host(config)?;
        let endpoint = host
            .listening()
            .iter()
            .find(|e| matches!(e, Endpoint::Tcp(_)))
            .cloned()
            .ok_or_else(|| BenchError::Failed("router has no TCP listener".into()))?;
        Ok(Routers {
            target: Target::Router(endpoint.to_string()),
            places: Vec::new(),
            routers: vec![(
                "clutter-router".into(),
                Measured::Thread {
                    thread: "trellis-rt0".into(),
                    host,
                },
            )],
            _runtimes: vec![runtime],
        })
    }

    fn topology(setup: &Setup, file: &std::path::Path) -> Result<Routers, BenchError> {
        let text = std::fs::read_to_string(file)
            .map_err(|e| BenchError::Failed(format!("{}: {e}", file.display())))?;
        let topology = Topology::from_toml(&text)
            .map_err(|e| BenchError::Failed(format!("{}: {e}", file.display())))?;
        let places = interleaved_places(&topology);
        if places.is_empty() {
            return Err(BenchError::Failed(format!(
                "{}: no federate attachment points",
                file.display()
            )));
        }
        let target = Target::Topology(file.to_path_buf());
        if setup.routers_running {
            return Ok(Routers {
                target,
                places,
                routers: running_routers(file),
                _runtimes: Vec::new(),
            });
        }
        let mut runtimes = Vec::new();
        let mut routers = Vec::new();
        let mut links = Vec::new();
        for (i, node) in topology.routers().enumerate() {
            let plan = topology
                .plan(&node.name)
                .map_err(|e| BenchError::Failed(e.to_string()))?;
            let thread = format!("rt{i}");
            let runtime = Runtime::start_spinning(&thread, setup.spin)?;
            let config = host_config(&plan, router_config(&node.name, 100 + i as u64, setup), "")?;
            let host = runtime.add_host(config)?;
            links.push(router_links(&topology, &plan));
            routers.push((
                node.name.clone(),
                Measured::Thread {
                    thread: format!("trellis-{thread}"),
                    host,
                },
            ));
            runtimes.push(runtime);
        }
        for ((_, router), links) in routers.iter().zip(links) {
            if let Measured::Thread { host, .. } = router {
                host.wait_for_links(links, LINK_TIMEOUT)?;
            }
        }
        Ok(Routers {
            target,
            places,
            routers,
            _runtimes: runtimes,
        })
    }

    pub fn target(&self) -> &Target {
        &self.target
    }

    /// How many attachment points the topology has (`None`: a router address, no limit).
    pub fn places(&self) -> Option<usize> {
        (!self.places.is_empty()).then_some(self.places.len())
    }

    /// Where federate `n` of the run attaches: the topology's points in turn.
    pub fn place(&self, n: usize) -> String {
        if self.places.is_empty() {
            return String::new();
        }
        self.places[n % self.places.len()].clone()
    }

    /// A node for the coordinator's own federate (it creates and destroys the federation).
    pub fn creator(
        &self,
        federation: &str,
        name: &str,
        at: usize,
    ) -> Result<trellis_net::rti::RtiConfig, BenchError> {
        let node = match &self.target {
            Target::Router(url) => {
                let endpoint: Endpoint = url
                    .parse()
                    .map_err(|e| BenchError::Failed(format!("{url}: {e}")))?;
                NodeConfig::child_of(name, federation, endpoint)
            }
            Target::Topology(file) => {
                let text = std::fs::read_to_string(file)?;
                let topology =
                    Topology::from_toml(&text).map_err(|e| BenchError::Failed(e.to_string()))?;
                let mut plan = topology
                    .plan(&self.place(at))
                    .map_err(|e| BenchError::Failed(e.to_string()))?;
                plan.name = name.to_owned();
                NodeConfig::from_plan(&plan, federation)?
            }
        };
        Ok(rti_config(node, trellis_net::rti::Driver::Thread))
    }

    /// Data frames the routers have forwarded so far, when they are in this process.
    pub fn forwarded(&self) -> Option<u64> {
        let mut total = 0;
        for (_, router) in &self.routers {
            match router {
                Measured::Thread { host, .. } => total += host.stats().ok()?.router.data_forwarded,
                Measured::Process { .. } => return None,
            }
        }
        (!self.routers.is_empty()).then_some(total)
    }

    /// Each router's CPU so far and resident memory (a thread's memory is its process's).
    pub fn usage(&self) -> Vec<(String, Usage)> {
        let own = procstat::own();
        self.routers
            .iter()
            .filter_map(|(name, router)| {
                let usage = match router {
                    Measured::Thread { thread, .. } => Usage {
                        cpu_seconds: procstat::thread_cpu_seconds(thread)?,
                        rss_kb: own.rss_kb,
                    },
                    Measured::Process { pid } => procstat::usage(&pid.to_string())?,
                };
                Some((format!("router {name}"), usage))
            })
            .collect()
    }

    /// Whether the routers run in this process (their memory is the coordinator's).
    pub fn in_process(&self) -> bool {
        self.routers
            .iter()
            .any(|(_, r)| matches!(r, Measured::Thread { .. }))
    }
}

/// The topology's attachment points, one router's after another's in turn, so that the
/// first federates of a run spread over every router.
fn interleaved_places(topology: &Topology) -> Vec<String> {
    let mut by_router: std::collections::BTreeMap<Option<usize>, Vec<String>> = Default::default();
    for node in topology.federates() {
        let router = node.parent.as_ref().map(|p| p.node);
        by_router.entry(router).or_default().push(node.name.clone());
    }
    let mut places = Vec::new();
    let longest = by_router.values().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        places.extend(by_router.values().filter_map(|names| names.get(i).cloned()));
    }
    places
}

/// `trellis router --topology FILE --name R` processes of this very file (resolved against
/// each process's working directory, so another run's file of the same name is not taken).
fn running_routers(file: &std::path::Path) -> Vec<(String, Measured)> {
    let name = file
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let wanted = std::fs::canonicalize(file).ok();
    procstat::find_processes(&["router", "--topology", &name])
        .into_iter()
        .filter(|&pid| {
            let Some(arg) = procstat::argument_after(pid, "--topology") else {
                return false;
            };
            let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).unwrap_or_default();
            std::fs::canonicalize(cwd.join(arg)).ok() == wanted
        })
        .map(|pid| {
            let router = procstat::argument_after(pid, "--name").unwrap_or_else(|| pid.to_string());
            (router, Measured::Process { pid })
        })
        .collect()
}
