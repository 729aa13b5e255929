//! Link sessions in the seeded simulator: a connection that breaks and is redialed within
//! the grace loses and repeats nothing; one that cannot be resumed (its router restarted,
//! or the grace ran out) loses what it held, and the receiver is told how much.

use roaring::RoaringBitmap;
use std::time::Duration;
use trellis_core::router::Event;
use trellis_core::sim::{NodeIndex, PipeIndex, Sim, SimConfig};
use trellis_core::wire::TransportClass;

const FED: &str = "Resume";
const ID: u32 = 5;
const SEEDS: u64 = 50;

/// publisher — leaf router — root router — subscriber; returns the leaf-root pipe.
fn line(seed: u64) -> (Sim, NodeIndex, NodeIndex, NodeIndex, PipeIndex) {
    let mut sim = Sim::new(seed, SimConfig::default());
    let root = sim.add_router("root");
    let leaf = sim.add_router("leaf");
    let trunk = sim.connect_parent(leaf, root, "");
    let publisher = sim.add_federate("publisher", FED);
    sim.connect_parent(publisher, leaf, FED);
    let subscriber = sim.add_federate("subscriber", FED);
    sim.connect_parent(subscriber, root, FED);
    sim.run_until_quiet(Duration::from_secs(10)).unwrap();
    sim.subscribe(subscriber, &RoaringBitmap::from_iter([ID]));
    sim.run_until_quiet(Duration::from_secs(10)).unwrap();
    (sim, publisher, leaf, subscriber, trunk)
}

/// Publish `count` reliable frames a few microseconds apart.
fn publish(sim: &mut Sim, publisher: NodeIndex, count: usize) {
    for _ in 0..count {
        sim.publish(publisher, &[ID], TransportClass::Reliable, b"r")
            .unwrap();
        let pause = Duration::from_micros(sim.rng().between(10, 300));
        sim.run_for(pause);
    }
}

fn lost_reported(sim: &Sim, node: NodeIndex) -> u64 {
    sim.nodes[node]
        .events
        .iter()
        .map(|e| match e {
            Event::ReliableLost { count, .. } => *count,
            _ => 0,
        })
        .sum()
}

fn resumed(sim: &Sim, node: NodeIndex) -> usize {
    sim.nodes[node]
        .events
        .iter()
        .filter(|e| matches!(e, Event::LinkResumed { resent: true, .. }))
        .count()
}

#[test]
fn a_trunk_broken_mid_stream_and_redialed_at_once_loses_and_repeats_nothing() {
    for seed in 0..SEEDS {
        let (mut sim, publisher, leaf, subscriber, trunk) = line(seed);
        publish(&mut sim, publisher, 200);
        sim.sever(trunk);
        publish(&mut sim, publisher, 50);
        let trunk = sim.redial(trunk);
        publish(&mut sim, publisher, 200);
        sim.run_until_quiet(Duration::from_secs(30)).unwrap();
        let got = sim.nodes[subscriber].received.len();
        assert_eq!(got, 450, "seed {seed}: every frame arrives, once");
        sim.check_no_duplicates().unwrap();
        assert_eq!(lost_reported(&sim, subscriber), 0, "seed {seed}");
        assert_eq!(
            resumed(&sim, leaf),
            1,
            "seed {seed}: the leaf resumed its session"
        );
        assert!(!sim.pipe_down(trunk));
    }
}

#[test]
fn a_federate_link_broken_and_redialed_loses_nothing_either_way() {
    for seed in 0..SEEDS {
        let (mut sim, publisher, _leaf, subscriber, _trunk) = line(seed);
        let up = (0..sim.pipe_count())
            .find(|&p| sim.pipe_nodes(p).0 == publisher)
            .unwrap();
        let down = (0..sim.pipe_count())
            .find(|&p| sim.pipe_nodes(p).0 == subscriber)
            .unwrap();
        publish(&mut sim, publisher, 100);
        sim.sever(up);
        sim.sever(down);
        // The publisher's application keeps publishing into its suspended link.
        publish(&mut sim, publisher, 30);
        sim.redial(up);
        sim.redial(down);
        publish(&mut sim, publisher, 100);
        sim.run_until_quiet(Duration::from_secs(30)).unwrap();
        assert_eq!(sim.nodes[subscriber].received.len(), 230, "seed {seed}");
        sim.check_no_duplicates().unwrap();
        assert_eq!(lost_reported(&sim, subscriber), 0, "seed {seed}");
    }
}

#[test]
fn a_router_that_restarts_cannot_resume_and_the_loss_is_reported_not_silent() {
    for seed in 0..SEEDS {
        let (mut sim, publisher, leaf, subscriber, _trunk) = line(seed);
        publish(&mut sim, publisher, 100);
        sim.crash(leaf);
        publish(&mut sim, publisher, 20);
        sim.restart(leaf);
        for pipe in 0..sim.pipe_count() {
            let (a, b) = sim.pipe_nodes(pipe);
            if (a == leaf || b == leaf) && sim.pipe_down(pipe) && pipe_is_latest(&sim, pipe) {
                sim.redial(pipe);
            }
        }
        sim.run_until_quiet(Duration::from_secs(30)).unwrap();
        publish(&mut sim, publisher, 100);
        sim.run_until_quiet(Duration::from_secs(30)).unwrap();
        let got = sim.nodes[subscriber].received.len() as u64;
        let lost = lost_reported(&sim, subscriber);
        assert!(
            lost > 0,
            "seed {seed}: frames sent while the leaf was down are lost"
        );
        assert_eq!(
            got + lost,
            220,
            "seed {seed}: each frame arrived or was reported lost"
        );
        sim.check_losses_reported().unwrap();
    }
}

/// Whether no later pipe joins the same two nodes (an earlier incarnation was redialed).
fn pipe_is_latest(sim: &Sim, pipe: PipeIndex) -> bool {
    let ends = sim.pipe_nodes(pipe);
    (pipe + 1..sim.pipe_count()).all(|later| sim.pipe_nodes(later) != ends)
}

/// A trunk breaks while the leaf still declares the subscriber's interest toward the root;
/// the subscriber (below the leaf) withdraws all of it while the trunk is down, so the leaf
/// declares nothing when the trunk comes back. The root carried the suspended link's interest
/// over to the new one, and kept it: a link that came up declaring nothing sent no interest
/// at all, so nothing said that the old interest was gone. Now the new link's first word is
/// always what it declares, empty or not.
#[test]
fn interest_withdrawn_while_a_link_was_down_is_withdrawn_when_it_comes_back() {
    for seed in 0..SEEDS {
        let mut sim = Sim::new(seed, SimConfig::default());
        let root = sim.add_router("root");
        let leaf = sim.add_router("leaf");
        let trunk = sim.connect_parent(leaf, root, "");
        let subscriber = sim.add_federate("subscriber", FED);
        sim.connect_parent(subscriber, leaf, FED);
        sim.run_until_quiet(Duration::from_secs(10)).unwrap();
        sim.subscribe(subscriber, &RoaringBitmap::from_iter([ID]));
        sim.run_until_quiet(Duration::from_secs(10)).unwrap();
        sim.sever(trunk);
        sim.unsubscribe(subscriber, &RoaringBitmap::from_iter([ID]));
        sim.run_for(Duration::from_millis(10));
        sim.redial(trunk);
        sim.run_until_quiet(Duration::from_secs(30)).unwrap();
        sim.check_interest(&[FED]).unwrap_or_else(|e| panic!("{e}"));
    }
}
