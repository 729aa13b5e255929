//! Random valid topologies in the seeded simulator: block graphs of cliques of random
//! sizes joined through shared nodes and parent links, routers and federates mixed
//! (federates collocated in some blocks), with random interest.
//!
//! Every message must reach every interested federate exactly once and no other, crossing
//! exactly the links of the shortest paths to its receivers; declared interest must
//! converge to the union rule after random subscription changes; every federate reaches the
//! federation registry along the registry route. A failure names its seed;
//! `TRELLIS_SEED=<n>` replays it.

mod common;

use roaring::RoaringBitmap;
use std::collections::{BTreeSet, VecDeque};
use std::time::Duration;
use trellis_core::registry::{ErrorKind, Request, Response};
use trellis_core::sim::{NodeIndex, Sim};
use trellis_core::topology::Topology;
use trellis_core::wire::TransportClass;

const FED: &str = "Shapes";
const IDS: u64 = 16;

struct World {
    sim: Sim,
    topology: Topology,
    /// Sim node of each topology node.
    nodes: Vec<NodeIndex>,
    federates: Vec<usize>,
}

fn build(seed: u64) -> World {
    let network = common::build_network(seed, FED);
    World {
        sim: network.sim,
        topology: network.topology,
        nodes: network.nodes,
        federates: network.federates,
    }
}

impl World {
    /// Links of the unique shortest paths from `source` to each of `receivers`.
    fn path_links(&self, source: usize, receivers: &[usize]) -> usize {
        let n = self.topology.nodes().len();
        let mut adjacent = vec![Vec::new(); n];
        for link in self.topology.links() {
            adjacent[link.dialer].push(link.listener);
            adjacent[link.listener].push(link.dialer);
        }
        let mut parent = vec![usize::MAX; n];
        parent[source] = source;
        let mut queue = VecDeque::from([source]);
        while let Some(node) = queue.pop_front() {
            for &far in &adjacent[node] {
                if parent[far] == usize::MAX {
                    parent[far] = node;
                    queue.push_back(far);
                }
            }
        }
        let mut edges = BTreeSet::new();
        for &r in receivers {
            let mut at = r;
            while at != source {
                edges.insert((at.min(parent[at]), at.max(parent[at])));
                at = parent[at];
            }
        }
        edges.len()
    }

    fn quiet(&mut self) -> Result<(), String> {
        self.sim.run_until_quiet(Duration::from_secs(60))
    }

    fn random_ids(&mut self) -> Vec<u32> {
        let mut ids: Vec<u32> = (0..self.sim.rng().between(1, 3))
            .map(|_| self.sim.rng().below(IDS) as u32)
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Every federate publishes; check who got what and which links it crossed.
    fn verify_traffic(&mut self) -> Result<(), String> {
        let seed = self.sim.seed;
        let mut sent = Vec::new();
        for f in self.federates.clone() {
            for _ in 0..3 {
                let ids = self.random_ids();
                let node = self.nodes[f];
                let receivers = self.sim.interested_nodes(node, &ids);
                let seq = self
                    .sim
                    .publish(node, &ids, TransportClass::Reliable, b"m")
                    .map_err(|e| format!("seed {seed}: {e}"))?;
                sent.push((f, seq, ids, receivers));
            }
        }
        self.quiet()?;
        for (f, seq, ids, receivers) in sent {
            let source = self.sim.node_id(self.nodes[f]);
            for &g in &self.federates {
                let times = self.sim.times_received(self.nodes[g], source, seq);
                let want = usize::from(receivers.contains(&self.nodes[g]));
                if times != want {
                    return Err(format!(
                        "seed {seed}: {} got {} message {seq} ({ids:?}) {times} times, expected {want}",
                        self.topology.nodes()[g].name,
                        self.topology.nodes()[f].name
                    ));
                }
            }
            let receiver_nodes: Vec<usize> = (0..self.nodes.len())
                .filter(|&i| receivers.contains(&self.nodes[i]))
                .collect();
            let expected = self.path_links(f, &receiver_nodes);
            let crossed = self.sim.crossings(source, seq) as usize;
            if crossed != expected {
                return Err(format!(
                    "seed {seed}: message {seq} from {} crossed {crossed} links; the shortest paths to its {} receivers have {expected}",
                    self.topology.nodes()[f].name,
                    receiver_nodes.len()
                ));
            }
        }
        Ok(())
    }
}

/// Every federate reaches the one registry along the registry route and gets its answer.
fn verify_registry(w: &mut World) -> Result<(), String> {
    let seed = w.sim.seed;
    let mut asked = Vec::new();
    for f in w.federates.clone() {
        let node = w.nodes[f];
        let now = w.sim.now();
        let id = w.sim.nodes[node].router.manage(
            now,
            &Request::Federates {
                federation: "nobody".into(),
            },
        );
        asked.push((f, id));
    }
    w.quiet()?;
    for (f, id) in asked {
        let node = w.nodes[f];
        match w.sim.nodes[node].router.poll_manage_reply() {
            Some((
                answered,
                Response::Error {
                    kind: ErrorKind::FederationUnknown,
                    ..
                },
            )) if answered == id => {}
            other => {
                return Err(format!(
                    "seed {seed}: {} asked the registry and got {other:?}",
                    w.topology.nodes()[f].name
                ))
            }
        }
    }
    Ok(())
}

fn run(seed: u64) -> Result<(), String> {
    let mut w = build(seed);
    w.quiet()?;
    verify_registry(&mut w)?;
    for f in w.federates.clone() {
        let ids: RoaringBitmap = w.random_ids().into_iter().collect();
        let node = w.nodes[f];
        w.sim.subscribe(node, &ids);
    }
    w.quiet()?;
    w.sim.check_interest(&[FED])?;
    w.verify_traffic()?;
    // Random subscription changes, then the same checks again.
    for _ in 0..10 {
        let f = w.federates[w.sim.rng().below(w.federates.len() as u64) as usize];
        let ids: RoaringBitmap = w.random_ids().into_iter().collect();
        let node = w.nodes[f];
        if w.sim.rng().chance(0.5) {
            w.sim.subscribe(node, &ids);
        } else {
            w.sim.unsubscribe(node, &ids);
        }
        let pause = Duration::from_micros(w.sim.rng().below(2000));
        w.sim.run_for(pause);
    }
    w.quiet()?;
    w.sim.check_interest(&[FED])?;
    w.verify_traffic()?;
    w.sim.check_no_duplicates()
}

#[test]
fn random_block_graphs_deliver_exactly_once_along_shortest_paths() {
    let seeds: Vec<u64> = match std::env::var("TRELLIS_SEED") {
        Ok(seed) => vec![seed.parse().expect("TRELLIS_SEED is a number")],
        Err(_) => (1..=60).collect(),
    };
    for seed in seeds {
        if let Err(e) = run(seed) {
            panic!("{e}\nreplay with TRELLIS_SEED={seed}");
        }
    }
}
