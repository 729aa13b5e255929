//! The seeded simulator: networks of real routers in one thread, with delay, best-effort
//! loss, random interest changes and (in one shape) links that break and are redialed.
//!
//! After the churn settles, every node's declared interest must equal DESIGN.md §2's union
//! rule, and every reliable message published then must reach every interested node exactly
//! once and nobody else. A failure names its seed; `TRELLIS_SEED=<n> cargo test -p
//! trellis-core --test simulation` replays exactly that run.

mod common;

use common::seeds;
use roaring::RoaringBitmap;
use std::time::Duration;
use trellis_core::sim::{NodeIndex, PipeIndex, Sim, SimConfig};
use trellis_core::wire::TransportClass;

const FED: &str = "Churn";
const ID_SPACE: u64 = 48;

fn random_ids(sim: &mut Sim, max: u64) -> Vec<u32> {
    common::random_ids(sim, max, ID_SPACE)
}

struct Network {
    sim: Sim,
    federates: Vec<NodeIndex>,
    /// Router-to-router pipes the churn may break, with how to redial them.
    breakable: Vec<(PipeIndex, NodeIndex, NodeIndex)>,
}

fn config() -> SimConfig {
    SimConfig {
        min_delay: Duration::from_micros(20),
        max_delay: Duration::from_millis(3),
        datagram_loss: 0.2,
        udp: true,
        ..SimConfig::default()
    }
}

fn clique_of_federates(seed: u64) -> Network {
    let mut sim = Sim::new(seed, config());
    let federates: Vec<_> = (0..5)
        .map(|i| sim.add_federate(&format!("f{i}"), FED))
        .collect();
    sim.clique(&federates, FED, "all");
    Network {
        sim,
        federates,
        breakable: Vec::new(),
    }
}

/// root over two routers, federates at every router.
fn tree_of_routers(seed: u64) -> Network {
    let mut sim = Sim::new(seed, config());
    let root = sim.add_router("root");
    let mut breakable = Vec::new();
    let mut federates = Vec::new();
    let f = sim.add_federate("f-root", FED);
    sim.connect_parent(f, root, FED);
    federates.push(f);
    for side in ["left", "right"] {
        let r = sim.add_router(side);
        let pipe = sim.connect_parent(r, root, "");
        breakable.push((pipe, r, root));
        for i in 0..2 {
            let f = sim.add_federate(&format!("f-{side}{i}"), FED);
            sim.connect_parent(f, r, FED);
            federates.push(f);
        }
    }
    Network {
        sim,
        federates,
        breakable,
    }
}

/// Three routers in a mesh, one of them also the parent of a fourth; federates below all.
fn mesh_with_a_tree(seed: u64) -> Network {
    let mut sim = Sim::new(seed, config());
    let mesh: Vec<_> = (0..3).map(|i| sim.add_router(&format!("m{i}"))).collect();
    sim.clique(&mesh, "", "mesh");
    let below = sim.add_router("below");
    sim.connect_parent(below, mesh[0], "");
    let mut federates = Vec::new();
    for (i, &r) in mesh.iter().chain([&below]).enumerate() {
        for j in 0..2 {
            let f = sim.add_federate(&format!("f{i}{j}"), FED);
            sim.connect_parent(f, r, FED);
            federates.push(f);
        }
    }
    Network {
        sim,
        federates,
        breakable: Vec::new(),
    }
}

fn run(mut net: Network) -> Result<(), String> {
    let settle = Duration::from_secs(60);
    net.sim.run_until_quiet(settle)?;
    // Churn: interest changes, traffic of both classes, broken and redialed trunks.
    for _ in 0..300 {
        let node = *net.sim.rng().pick(&net.federates);
        match net.sim.rng().below(10) {
            0..=2 => {
                let ids: RoaringBitmap = random_ids(&mut net.sim, 4).into_iter().collect();
                net.sim.subscribe(node, &ids);
            }
            3..=4 => {
                let ids: RoaringBitmap = random_ids(&mut net.sim, 4).into_iter().collect();
                net.sim.unsubscribe(node, &ids);
            }
            5..=7 => {
                let ids = random_ids(&mut net.sim, 3);
                // WouldBlock under back-pressure is fine during churn.
                let _ = net
                    .sim
                    .publish(node, &ids, TransportClass::Reliable, b"churn");
            }
            8 => {
                let ids = random_ids(&mut net.sim, 3);
                let _ = net
                    .sim
                    .publish(node, &ids, TransportClass::BestEffort, b"lossy");
            }
            _ => {
                if !net.breakable.is_empty() && net.sim.rng().chance(0.3) {
                    let at = net.sim.rng().below(net.breakable.len() as u64) as usize;
                    let (pipe, child, parent) = net.breakable[at];
                    net.sim.sever(pipe);
                    net.sim.run_for(Duration::from_millis(5));
                    let pipe = net.sim.connect_parent(child, parent, "");
                    net.breakable[at] = (pipe, child, parent);
                }
            }
        }
        let pause = Duration::from_micros(net.sim.rng().below(4000));
        net.sim.run_for(pause);
        net.sim.check_no_duplicates()?;
    }
    net.sim.run_until_quiet(settle)?;
    net.sim.check_no_duplicates()?;
    net.sim.check_interest(&[FED])?;

    // Verification: reliable traffic after convergence reaches exactly the interested.
    let mut publications = Vec::new();
    for &node in &net.federates {
        for _ in 0..3 {
            publications.push((node, random_ids(&mut net.sim, 3)));
        }
    }
    net.sim
        .check_exactly_once(&publications, &net.federates, settle)
}

fn check_all(shape: fn(u64) -> Network, count: u64) {
    for seed in seeds(count) {
        if let Err(e) = run(shape(seed)) {
            panic!("{e}\nreplay with TRELLIS_SEED={seed}");
        }
    }
}

#[test]
fn a_clique_of_federates_converges_and_delivers_exactly_once() {
    check_all(clique_of_federates, 40);
}

#[test]
fn a_tree_of_routers_with_broken_trunks_converges_and_delivers_exactly_once() {
    check_all(tree_of_routers, 40);
}

#[test]
fn a_mesh_with_a_tree_below_converges_and_delivers_exactly_once() {
    check_all(mesh_with_a_tree, 40);
}

#[test]
fn the_same_seed_replays_the_same_run() {
    let log = |seed| {
        let mut net = tree_of_routers(seed);
        run_quietly(&mut net);
        net.federates
            .iter()
            .map(|&n| {
                net.sim.nodes[n]
                    .received
                    .iter()
                    .map(|r| (r.at, r.source, r.seq))
                    .collect::<Vec<_>>()
            })
            .collect::<Vec<_>>()
    };
    let first = log(77);
    assert!(
        first.iter().map(Vec::len).sum::<usize>() > 0,
        "the run delivered something"
    );
    assert_eq!(first, log(77));
    assert_ne!(first, log(78), "another seed is another run");
}

fn run_quietly(net: &mut Network) {
    net.sim.run_until_quiet(Duration::from_secs(60)).unwrap();
    for i in 0..50 {
        let node = net.federates[i % net.federates.len()];
        let ids = random_ids(&mut net.sim, 3);
        let sub: RoaringBitmap = ids.iter().copied().collect();
        net.sim.subscribe(node, &sub);
        let other = *net.sim.rng().pick(&net.federates);
        let _ = net
            .sim
            .publish(other, &ids, TransportClass::Reliable, b"replay");
        let pause = Duration::from_micros(net.sim.rng().below(3000));
        net.sim.run_for(pause);
    }
    net.sim.run_until_quiet(Duration::from_secs(60)).unwrap();
}
