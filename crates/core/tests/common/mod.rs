//! What the simulation tests share: random block graphs, built into a seeded simulator.

#![allow(dead_code)] // each test file uses a part

use std::time::Duration;
use trellis_core::router::RouterConfig;
use trellis_core::sim::{NodeIndex, Rng, Sim, SimConfig};
use trellis_core::topology::{
    CliqueEntry, FederateEntry, LinkKind, NodeKind, RouterEntry, Topology, TopologyFile,
};
use trellis_core::wire::NodeId;

/// Grow a random block graph: each step adds new nodes attached to one existing node, so
/// blocks only ever meet at shared nodes.
pub fn random_topology(rng: &mut Rng) -> Topology {
    let mut kinds: Vec<bool> = vec![true]; // true: router
    let mut parent: Vec<Option<usize>> = vec![None];
    let mut cliques: Vec<Vec<usize>> = Vec::new();
    let steps = rng.between(3, 10);
    for _ in 0..steps {
        let at = rng.below(kinds.len() as u64) as usize;
        match rng.below(3) {
            0 => {
                kinds.push(rng.chance(0.5));
                parent.push(Some(at));
            }
            1 if parent[at].is_none() => {
                kinds.push(true);
                parent.push(None);
                parent[at] = Some(kinds.len() - 1);
            }
            _ => {
                let mut members = vec![at];
                for _ in 0..rng.between(1, 3) {
                    kinds.push(rng.chance(0.4));
                    parent.push(None);
                    members.push(kinds.len() - 1);
                }
                cliques.push(members);
            }
        }
    }
    // At least two federates to send between.
    while kinds.iter().filter(|&&router| !router).count() < 2 {
        let at = rng.below(kinds.len() as u64) as usize;
        kinds.push(false);
        parent.push(Some(at));
    }
    let name = |i: usize| format!("n{i:02}");
    let mut file = TopologyFile::default();
    for (i, &router) in kinds.iter().enumerate() {
        let listen = vec![format!("tcp://127.0.0.1:{}", 10_000 + i)];
        let parent = parent[i].map(name);
        if router {
            file.routers.push(RouterEntry {
                name: name(i),
                listen,
                parent,
                ..RouterEntry::default()
            });
        } else {
            file.federates.push(FederateEntry {
                name: name(i),
                listen,
                parent,
                ..FederateEntry::default()
            });
        }
    }
    for (c, members) in cliques.iter().enumerate() {
        file.cliques.push(CliqueEntry {
            name: format!("c{c}"),
            members: members.iter().map(|&m| name(m)).collect(),
            link: Default::default(),
        });
    }
    Topology::from_file(&file).unwrap_or_else(|e| panic!("generated an invalid topology: {e}"))
}

/// A random block graph in a simulator: routers, and federates of `federation`.
pub struct Network {
    pub sim: Sim,
    pub topology: Topology,
    /// Sim node of each topology node.
    pub nodes: Vec<NodeIndex>,
    /// Topology indexes of the federates.
    pub federates: Vec<usize>,
}

pub fn build_network(seed: u64, federation: &str) -> Network {
    let mut sim = Sim::new(
        seed,
        SimConfig {
            min_delay: Duration::from_micros(10),
            max_delay: Duration::from_millis(2),
            ..SimConfig::default()
        },
    );
    let topology = random_topology(sim.rng());
    let registry = topology.registry_host();
    let nodes: Vec<NodeIndex> = topology
        .nodes()
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let id = NodeId(i as u64 + 1);
            let mut config = match n.kind {
                NodeKind::Router => RouterConfig::new(n.name.as_str(), id),
                NodeKind::Federate => RouterConfig::federate(n.name.as_str(), id, federation),
            };
            config.hosts_registry = registry == Some(i);
            sim.add_node(config)
        })
        .collect();
    let federation_of = |i: usize| match topology.nodes()[i].kind {
        NodeKind::Federate => federation,
        NodeKind::Router => "",
    };
    for link in topology.links() {
        let (dialer, listener) = (nodes[link.dialer], nodes[link.listener]);
        match link.kind {
            LinkKind::Parent => {
                sim.connect_parent(dialer, listener, federation_of(link.dialer));
            }
            LinkKind::Peer { clique } => {
                let name = topology.cliques()[clique].name.clone();
                sim.connect_peers(dialer, listener, federation_of(link.dialer), &name);
            }
        }
    }
    let federates = (0..topology.nodes().len())
        .filter(|&i| topology.nodes()[i].kind == NodeKind::Federate)
        .collect();
    Network {
        sim,
        topology,
        nodes,
        federates,
    }
}

/// The seeds to run: the one named by TRELLIS_SEED, else 1..=TRELLIS_SEEDS, else
/// 1..=`default_count`.
pub fn seeds(default_count: u64) -> Vec<u64> {
    if let Ok(seed) = std::env::var("TRELLIS_SEED") {
        return vec![seed.parse().expect("TRELLIS_SEED is a number")];
    }
    let count = std::env::var("TRELLIS_SEEDS")
        .map(|n| n.parse().expect("TRELLIS_SEEDS is a number"))
        .unwrap_or(default_count);
    (1..=count).collect()
}

/// One to `max` distinct interest ids below `id_space`, sorted.
pub fn random_ids(sim: &mut Sim, max: u64, id_space: u64) -> Vec<u32> {
    let n = sim.rng().between(1, max);
    let mut ids: Vec<u32> = (0..n).map(|_| sim.rng().below(id_space) as u32).collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}
