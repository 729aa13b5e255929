//! A frozen subscriber in the seeded simulator, across many seeds: a publisher sends reliable
//! frames faster than the frozen queue can hold for long, one subscriber is healthy and one is frozen
//! (its process stopped: its pipe carries nothing either way). The frozen one's queue fills
//! and pauses the publisher; its pipe then takes a random little more, as a kernel grows a
//! stopped reader's buffers, so the queue parks anywhere between half and full, under its
//! limit but above the point where paused publishers are released. Whatever the seed, the
//! router cuts the frozen one at its slow-consumer bound, and the healthy subscriber waits
//! at most that bound (plus the pipes' delays) between two messages.

use roaring::RoaringBitmap;
use std::time::Duration;
use trellis_core::router::{CloseReason, Event, LinkConfig, PublishError, RouterConfig};
use trellis_core::sim::{Sim, SimConfig};
use trellis_core::wire::{NodeId, TransportClass};
use trellis_core::Time;

const FED: &str = "Frozen";
const ID: u32 = 3;
const SEEDS: u64 = 40;
/// The router's reliable queue per link (small, so it fills in few frames).
const QUEUE: usize = 64 << 10;
const PAYLOAD: [u8; 512] = [7; 512];
/// A step of the publisher's loop: it sends up to `BURST` frames (fewer once paused), then
/// lets time pass. 8 MB/s: the frozen queue fills within milliseconds.
const STEP: Duration = Duration::from_millis(1);
const BURST: usize = 16;

struct Outcome {
    /// The healthy subscriber's longest wait between two messages after the freeze.
    longest_gap: Duration,
    cut: Option<CloseReason>,
    sent: usize,
    received: usize,
}

fn run(seed: u64) -> Outcome {
    let mut sim = Sim::new(seed, SimConfig::default());
    let mut config = RouterConfig::new("router", NodeId(1000));
    config.link_defaults.queue_limit_bytes = QUEUE;
    // Small writes, so the frozen pipe's extra room takes about that much of the queue.
    config.link_defaults.batch_limit_bytes = 2 * PAYLOAD.len();
    let router = sim.add_node(config);
    let publisher = sim.add_federate("publisher", FED);
    let healthy = sim.add_federate("healthy", FED);
    let frozen = sim.add_federate("frozen", FED);
    sim.connect_parent(publisher, router, FED);
    sim.connect_parent(healthy, router, FED);
    let frozen_pipe = sim.connect_parent(frozen, router, FED);
    sim.run_until_quiet(Duration::from_secs(10)).unwrap();
    for node in [healthy, frozen] {
        sim.subscribe(node, &RoaringBitmap::from_iter([ID]));
    }
    sim.run_until_quiet(Duration::from_secs(10)).unwrap();
    let (_, toward_frozen) = sim.pipe_links(frozen_pipe);
    let start = sim.now();
    let freeze_at = start + Duration::from_millis(sim.rng().between(50, 300));
    let end = freeze_at + Duration::from_millis(1500);
    let (mut frozen_yet, mut widened, mut sent) = (false, false, 0);
    while sim.now() < end {
        if !frozen_yet && sim.now() >= freeze_at {
            sim.partition(frozen_pipe, true, true);
            frozen_yet = true;
        }
        for _ in 0..BURST {
            match sim.publish(publisher, &[ID], TransportClass::Reliable, &PAYLOAD) {
                Ok(_) => sent += 1,
                Err(PublishError::WouldBlock) => break,
                Err(e) => panic!("seed {seed}: {e}"),
            }
        }
        let queued = sim.nodes[router]
            .router
            .link_info(toward_frozen)
            .map_or(0, |l| l.reliable_queued);
        if frozen_yet && !widened && queued >= QUEUE {
            // Below the limit, above half: the point the old rule never counted as stuck.
            let most = QUEUE / 2 - 4 * PAYLOAD.len();
            let room = sim.rng().between(1, most as u64) as usize;
            sim.widen(frozen_pipe, true, room);
            widened = true;
        }
        sim.run_for(STEP);
    }
    // What is in flight arrives (the frozen pipe never goes quiet: it stays held).
    sim.run_for(Duration::from_millis(100));
    // The end of the run counts as an arrival: a publisher still paused then is a gap too.
    let arrivals: Vec<Time> = sim.nodes[healthy]
        .received
        .iter()
        .map(|r| r.at)
        .filter(|&at| at >= freeze_at && at <= end)
        .chain([end])
        .collect();
    let longest_gap = arrivals
        .windows(2)
        .map(|w| w[1].since(w[0]))
        .max()
        .unwrap_or_default();
    let cut = sim.nodes[router].events.iter().find_map(|e| match e {
        Event::LinkCut { link, reason } if *link == toward_frozen => Some(reason.clone()),
        _ => None,
    });
    Outcome {
        longest_gap,
        cut,
        sent,
        received: sim.nodes[healthy].received.len(),
    }
}

#[test]
fn a_frozen_subscriber_is_cut_at_its_bound_and_holds_up_a_healthy_one_no_longer() {
    let bound = LinkConfig::default().slow_consumer_timeout;
    // The pipes' delays (2 ms at most each way) and the publisher's step.
    let slack = Duration::from_millis(10);
    let mut worst = Duration::ZERO;
    for seed in 0..SEEDS {
        let outcome = run(seed);
        // Cut as slow, having taken only what its pipe was widened by since its queue
        // filled (under half the queue): the reason tells a stopped reader from a slow one.
        assert!(
            matches!(outcome.cut, Some(CloseReason::SlowConsumer { taken_bytes, .. })
                if taken_bytes > 0 && taken_bytes < (QUEUE / 2) as u64),
            "seed {seed}: the frozen subscriber is cut as slow: {:?}",
            outcome.cut
        );
        assert_eq!(
            outcome.received, outcome.sent,
            "seed {seed}: the healthy subscriber got every message once"
        );
        assert!(
            outcome.longest_gap <= bound + slack,
            "seed {seed}: the healthy subscriber waited {:?} (bound {bound:?})",
            outcome.longest_gap
        );
        worst = worst.max(outcome.longest_gap);
    }
    println!("longest gap over {SEEDS} seeds: {worst:?} (bound {bound:?})");
}
