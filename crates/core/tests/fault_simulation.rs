//! Faults in the seeded simulator (the model is written down in `trellis_core::sim`): routers
//! that crash and restart with their state lost, connections that break, partitions one way
//! or both that heal (some outlast the heartbeat timeout, so the routers close the link
//! themselves), and datagrams lost, duplicated and reordered, while federates change
//! interest and publish reliable and best-effort traffic.
//!
//! Throughout, no application receives a message twice, and every reliable message missing
//! from the middle of a stream an application receives was reported to it as lost. After
//! the faults stop (partitions heal, crashed routers restart, every broken link is
//! redialed) the network goes quiet, the union rule holds at every node and link, reliable
//! traffic published then reaches exactly the interested applications, once each, and a
//! last message from every federate on every id ends each stream, so no loss at a stream's
//! tail goes unreported either.
//!
//! `TRELLIS_SEED=<n>` replays one seed; `TRELLIS_SEEDS=<count>` runs that many per shape
//! (`TRELLIS_SEEDS=50000 cargo test --release -p trellis-core --test fault_simulation` runs
//! 100,000 in all).

mod common;

use common::seeds;
use roaring::RoaringBitmap;
use std::collections::BTreeSet;
use std::time::Duration;
use trellis_core::router::{CloseReason, Event};
use trellis_core::sim::{NodeIndex, PipeIndex, Sim, SimConfig};
use trellis_core::wire::TransportClass;

const FED: &str = "Faults";
const ID_SPACE: u64 = 32;

/// Seeds per shape unless TRELLIS_SEEDS says otherwise: two shapes, 1,000 seeds in all.
const DEFAULT_SEEDS: u64 = 500;

fn random_ids(sim: &mut Sim, max: u64) -> Vec<u32> {
    common::random_ids(sim, max, ID_SPACE)
}

struct Network {
    sim: Sim,
    routers: Vec<NodeIndex>,
    federates: Vec<NodeIndex>,
    /// Every pipe the network is made of, current incarnation.
    pipes: Vec<PipeIndex>,
    /// Pipes partitioned now.
    partitioned: BTreeSet<PipeIndex>,
    /// Per pipe slot, the parents its dialer may attach to, primary first (N+1 failover);
    /// empty for a link that only redials the same node.
    parents: Vec<Vec<NodeIndex>>,
    faults: Faults,
}

/// What a run went through, so the tests know the faults really happened.
#[derive(Default, Debug)]
struct Faults {
    crashes: u64,
    severed: u64,
    partitions: u64,
    /// Links the routers closed themselves because nothing arrived (long partitions).
    heartbeat_timeouts: u64,
    redials: u64,
    /// Redials that attached to another parent than the one lost.
    failovers: u64,
    /// Reliable messages the federates were told they lost.
    reported_lost: u64,
}

fn config() -> SimConfig {
    SimConfig {
        min_delay: Duration::from_micros(20),
        max_delay: Duration::from_millis(3),
        datagram_loss: 0.1,
        datagram_duplication: 0.1,
        udp: true,
        ..SimConfig::default()
    }
}

fn network(sim: Sim, routers: Vec<NodeIndex>, federates: Vec<NodeIndex>) -> Network {
    let pipes: Vec<PipeIndex> = (0..sim.pipe_count()).collect();
    Network {
        sim,
        routers,
        federates,
        parents: vec![Vec::new(); pipes.len()],
        pipes,
        partitioned: BTreeSet::new(),
        faults: Faults::default(),
    }
}

/// Three levels: root, two mid routers, two leaves under each; a federate at every leaf
/// and one at the root.
fn tree(seed: u64) -> Network {
    let mut sim = Sim::new(seed, config());
    let root = sim.add_router("root");
    let mut routers = vec![root];
    let mut federates = Vec::new();
    let f = sim.add_federate("f-root", FED);
    sim.connect_parent(f, root, FED);
    federates.push(f);
    for mid in 0..2 {
        let m = sim.add_router(&format!("mid{mid}"));
        sim.connect_parent(m, root, "");
        routers.push(m);
        for leaf in 0..2 {
            let l = sim.add_router(&format!("leaf{mid}{leaf}"));
            sim.connect_parent(l, m, "");
            routers.push(l);
            let f = sim.add_federate(&format!("f{mid}{leaf}"), FED);
            sim.connect_parent(f, l, FED);
            federates.push(f);
        }
    }
    network(sim, routers, federates)
}

/// The tree, with alternates as `trellis topology gen --alternates` gives them: each leaf
/// router may fail over to the other mid router, each leaf federate to its leaf's sibling.
fn tree_with_alternates(seed: u64) -> Network {
    let mut net = tree(seed);
    let mids = [net.routers[1], net.routers[4]];
    let leaves = [
        [net.routers[2], net.routers[3]],
        [net.routers[5], net.routers[6]],
    ];
    for slot in 0..net.pipes.len() {
        let (dialer, parent) = net.sim.pipe_nodes(net.pipes[slot]);
        for m in 0..2 {
            for l in 0..2 {
                if dialer == leaves[m][l] {
                    net.parents[slot] = vec![parent, mids[1 - m]];
                }
                if parent == leaves[m][l] && net.federates.contains(&dialer) {
                    net.parents[slot] = vec![parent, leaves[m][1 - l]];
                }
            }
        }
    }
    net
}

/// A clique of three routers, a leaf router under one of them, two federates on each.
fn mesh(seed: u64) -> Network {
    let mut sim = Sim::new(seed, config());
    let mesh: Vec<_> = (0..3).map(|i| sim.add_router(&format!("m{i}"))).collect();
    sim.clique(&mesh, "", "core");
    let leaf = sim.add_router("leaf");
    sim.connect_parent(leaf, mesh[0], "");
    let mut routers = mesh.clone();
    routers.push(leaf);
    let mut federates = Vec::new();
    for (i, &r) in routers.iter().enumerate() {
        for j in 0..2 {
            let f = sim.add_federate(&format!("f{i}{j}"), FED);
            sim.connect_parent(f, r, FED);
            federates.push(f);
        }
    }
    network(sim, routers, federates)
}

impl Network {
    /// Redial every pipe whose dialer lost its link, unless an end is down or the pipe is
    /// partitioned (a dial would not get through).
    fn redial_broken(&mut self) {
        for slot in 0..self.pipes.len() {
            let pipe = self.pipes[slot];
            let (a, b) = self.sim.pipe_nodes(pipe);
            let ends_up = !self.sim.nodes[a].crashed && !self.sim.nodes[b].crashed;
            if !self.sim.pipe_down(pipe) {
                continue;
            }
            let partitioned = self.partitioned.contains(&pipe);
            if let Some(next) = self.next_parent(slot, b, partitioned) {
                // Fail over: the next parent that is up, round the list. A partition the
                // node left behind heals in its own time; the old connection only ends.
                if self.partitioned.remove(&pipe) {
                    self.sim.heal(pipe);
                }
                self.pipes[slot] = self.sim.redial_to(pipe, next);
                self.faults.redials += 1;
                self.faults.failovers += u64::from(next != b);
            } else if ends_up && !partitioned {
                self.pipes[slot] = self.sim.redial(pipe);
                self.faults.redials += 1;
            }
        }
    }

    /// For a link with alternates whose dialer is up: the parent after `current` in its
    /// list that is up (not `current` itself when it cannot be reached).
    fn next_parent(&self, slot: usize, current: NodeIndex, unreachable: bool) -> Option<NodeIndex> {
        let parents = &self.parents[slot];
        let (dialer, _) = self.sim.pipe_nodes(self.pipes[slot]);
        if parents.is_empty() || self.sim.nodes[dialer].crashed {
            return None;
        }
        let at = parents.iter().position(|&p| p == current)?;
        let steps = if unreachable {
            parents.len() - 1
        } else {
            parents.len()
        };
        (1..=steps)
            .map(|step| parents[(at + step) % parents.len()])
            .find(|&p| !self.sim.nodes[p].crashed)
    }

    fn fault(&mut self) {
        let sim = &mut self.sim;
        match sim.rng().below(4) {
            0 => {
                let router = *sim.rng().pick(&self.routers);
                if !sim.nodes[router].crashed {
                    self.faults.crashes += 1;
                    sim.crash(router);
                    let down = Duration::from_millis(sim.rng().below(3000));
                    sim.run_for(down);
                    sim.restart(router);
                }
            }
            1 => {
                let pipe = *sim.rng().pick(&self.pipes);
                self.faults.severed += 1;
                sim.sever(pipe);
            }
            2 => {
                let pipe = *sim.rng().pick(&self.pipes);
                let (toward_dialer, toward_acceptor) = match sim.rng().below(3) {
                    0 => (true, false),
                    1 => (false, true),
                    _ => (true, true),
                };
                sim.partition(pipe, toward_dialer, toward_acceptor);
                self.faults.partitions += u64::from(self.partitioned.insert(pipe));
            }
            _ => {
                if let Some(&pipe) = self.partitioned.iter().next() {
                    sim.heal(pipe);
                    self.partitioned.remove(&pipe);
                }
            }
        }
    }

    fn heal_all(&mut self) {
        for pipe in std::mem::take(&mut self.partitioned) {
            self.sim.heal(pipe);
        }
        for &router in &self.routers.clone() {
            if self.sim.nodes[router].crashed {
                self.sim.restart(router);
            }
        }
    }
}

fn run(mut net: Network) -> Result<Faults, String> {
    let settle = Duration::from_secs(120);
    net.sim.run_until_quiet(settle)?;
    for _ in 0..200 {
        let node = *net.sim.rng().pick(&net.federates);
        match net.sim.rng().below(12) {
            0..=2 => {
                let ids: RoaringBitmap = random_ids(&mut net.sim, 4).into_iter().collect();
                net.sim.subscribe(node, &ids);
            }
            3 => {
                let ids: RoaringBitmap = random_ids(&mut net.sim, 4).into_iter().collect();
                net.sim.unsubscribe(node, &ids);
            }
            4..=7 => {
                let ids = random_ids(&mut net.sim, 3);
                let _ = net.sim.publish(node, &ids, TransportClass::Reliable, b"r");
            }
            8..=9 => {
                let ids = random_ids(&mut net.sim, 3);
                let _ = net
                    .sim
                    .publish(node, &ids, TransportClass::BestEffort, b"b");
            }
            _ => net.fault(),
        }
        // Up to 12 s at a time: some partitions outlast the 10 s heartbeat timeout.
        let pause = if net.sim.rng().chance(0.05) {
            Duration::from_millis(net.sim.rng().between(1000, 12_000))
        } else {
            Duration::from_micros(net.sim.rng().below(5000))
        };
        net.sim.run_for(pause);
        net.redial_broken();
        net.sim.check_no_duplicates()?;
        net.sim.check_losses_reported()?;
    }
    net.heal_all();
    // Links closed while partitioned close on both sides within the heartbeat timeout;
    // redial until every pipe is up and nothing moves.
    for _ in 0..20 {
        net.redial_broken();
        net.sim.run_until_quiet(settle)?;
        net.sim.run_for(Duration::from_secs(1));
        if net.pipes.iter().all(|&p| !net.sim.pipe_down(p)) && !net.sim.busy() {
            break;
        }
    }
    net.sim.run_until_quiet(settle)?;
    net.sim.check_no_duplicates()?;
    net.sim.check_interest(&[FED])?;
    verify_delivery(&mut net)?;
    net.sim.check_losses_reported()?;
    net.faults.reported_lost = net
        .sim
        .nodes
        .iter()
        .flat_map(|n| &n.events)
        .map(|e| match e {
            Event::ReliableLost { count, .. } => *count,
            _ => 0,
        })
        .sum();
    net.faults.heartbeat_timeouts = net
        .sim
        .nodes
        .iter()
        .flat_map(|n| &n.events)
        .filter(|e| {
            matches!(
                e,
                Event::LinkClosed {
                    reason: CloseReason::HeartbeatTimeout(_),
                    ..
                }
            )
        })
        .count() as u64;
    Ok(net.faults)
}

/// Reliable traffic now reaches exactly the interested applications, once each. Each
/// federate's last message carries every id, ending all of its streams.
fn verify_delivery(net: &mut Network) -> Result<(), String> {
    let every_id: Vec<u32> = (0..ID_SPACE as u32).collect();
    let mut publications: Vec<_> = net
        .federates
        .iter()
        .map(|&node| (node, random_ids(&mut net.sim, 3)))
        .collect();
    publications.extend(net.federates.iter().map(|&node| (node, every_id.clone())));
    net.sim
        .check_exactly_once(&publications, &net.federates, Duration::from_secs(120))
}

fn check_all(shape: fn(u64) -> Network) -> Faults {
    let seeds = seeds(DEFAULT_SEEDS);
    let mut total = Faults::default();
    for &seed in &seeds {
        match run(shape(seed)) {
            Ok(faults) => {
                total.crashes += faults.crashes;
                total.severed += faults.severed;
                total.partitions += faults.partitions;
                total.heartbeat_timeouts += faults.heartbeat_timeouts;
                total.redials += faults.redials;
                total.failovers += faults.failovers;
                total.reported_lost += faults.reported_lost;
            }
            Err(e) => panic!("{e}\nreplay with TRELLIS_SEED={seed}"),
        }
    }
    println!("{} seeds: {total:?}", seeds.len());
    if seeds.len() >= 100 {
        let every_kind = total.crashes > 0
            && total.severed > 0
            && total.partitions > 0
            && total.heartbeat_timeouts > 0
            && total.redials > 0
            && total.reported_lost > 0;
        assert!(every_kind, "some kind of fault never happened: {total:?}");
    }
    total
}

#[test]
fn a_tree_under_crashes_breaks_and_partitions_converges_and_delivers_exactly_once() {
    check_all(tree);
}

#[test]
fn a_tree_with_alternates_fails_over_converges_and_delivers_exactly_once() {
    let total = check_all(tree_with_alternates);
    if total.redials >= 100 {
        assert!(total.failovers > 0, "nothing ever failed over: {total:?}");
    }
}

#[test]
fn a_mesh_under_crashes_breaks_and_partitions_converges_and_delivers_exactly_once() {
    check_all(mesh);
}
