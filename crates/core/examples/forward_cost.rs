//! The router's own cost per forwarded message, without sockets: bytes in as a socket would
//! deliver them (many frames per read), decode, route, queue, and batches out, on one thread.
//! The user-space part of what `scripts/router-cost` measures on a router process.
//!
//!   cargo run --release -p trellis-core --example forward_cost
//!
//! Prints nanoseconds per forwarded message (wall time of a single thread; the fastest of 9
//! runs, as other processes only ever slow a run down) for 64-byte frames to 1 and 4
//! subscribers, with a small and a large interest. `FORWARD_COST_ROUNDS` and
//! `FORWARD_COST_RUNS` shrink it, e.g. to count instructions under valgrind, which does not
//! care how loaded the machine is:
//!
//!   FORWARD_COST_ROUNDS=100 FORWARD_COST_RUNS=1 valgrind --tool=cachegrind --cache-sim=no \
//!     target/release/examples/forward_cost

#[path = "../tests/common/child_link.rs"]
mod child_link;
use child_link::accept_child;

use bytes::BytesMut;
use std::time::Instant;
use trellis_core::router::{LinkId, Router, RouterConfig};
use trellis_core::wire::{
    DataFrame, DataHeader, FederationId, InterestFrame, InterestOp, NodeId, TransportClass,
};
use trellis_core::Time;

const FED: &str = "Cost";
const FRAMES_PER_READ: u64 = 512;

/// A router with one publisher and `subscribers`, each declaring `ranges` (which hold id 7).
fn router_with(subscribers: usize, ranges: &[(u32, u32)]) -> (Router, LinkId, Vec<LinkId>) {
    let mut router = Router::new(RouterConfig::new("r", NodeId(1)), Time::ZERO);
    let publisher = accept_child(&mut router, "publisher", 2, FED);
    let subs: Vec<LinkId> = (0..subscribers)
        .map(|i| accept_child(&mut router, &format!("subscriber-{i}"), 10 + i as u64, FED))
        .collect();
    for (i, s) in subs.iter().enumerate() {
        let mut buf = BytesMut::new();
        // Each subscriber also holds ids of its own, so the index has several link sets.
        let own = [(1_000_000 + i as u32 * 1000, 1_000_999 + i as u32 * 1000)];
        for r in [ranges, &own[..]] {
            InterestFrame::encode(&mut buf, FederationId::of(FED), InterestOp::Add, r, 1 << 20);
        }
        router.handle_bytes(Time::ZERO, *s, &buf);
    }
    while router.poll_event().is_some() {}
    (router, publisher, subs)
}

fn read_of_frames() -> BytesMut {
    let mut chunk = BytesMut::new();
    for seq in 0..FRAMES_PER_READ {
        let header = DataHeader {
            federation: FederationId::of(FED),
            source: NodeId(99),
            seq,
            priority: 4,
            class: TransportClass::Reliable,
        };
        DataFrame::encode(&mut chunk, &header, &[7], &[0u8; 64]);
    }
    chunk
}

fn from_env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Nanoseconds per forwarded message over `rounds` reads.
fn measure(rounds: usize, subscribers: usize, ranges: &[(u32, u32)]) -> f64 {
    let (mut router, publisher, subs) = router_with(subscribers, ranges);
    let chunk = read_of_frames();
    let mut out = Vec::with_capacity(1 << 20);
    let started = Instant::now();
    for _ in 0..rounds {
        router.handle_bytes(Time::ZERO, publisher, &chunk);
        for s in &subs {
            loop {
                out.clear();
                if router.poll_transmit(Time::ZERO, *s, &mut out) == 0 {
                    break;
                }
            }
        }
        while router.poll_ready().is_some() {}
        while router.poll_event().is_some() {}
    }
    let forwarded = rounds as f64 * FRAMES_PER_READ as f64 * subscribers as f64;
    assert_eq!(
        router.stats().data_forwarded,
        forwarded as u64,
        "every message was forwarded"
    );
    started.elapsed().as_nanos() as f64 / forwarded
}

fn main() {
    let rounds = from_env("FORWARD_COST_ROUNDS", 2000);
    let runs = from_env("FORWARD_COST_RUNS", 9).max(1);
    let small = [(7, 7)];
    // 100,000 ids in runs, every subscriber the same: one big link set.
    let large: Vec<(u32, u32)> = (0..1000).map(|i| (i * 200, i * 200 + 99)).collect();
    for (interest, ranges) in [("1 id", &small[..]), ("100k ids", &large[..])] {
        for subscribers in [1, 4] {
            let mut runs: Vec<f64> = (0..runs)
                .map(|_| measure(rounds, subscribers, ranges))
                .collect();
            runs.sort_by(f64::total_cmp);
            println!(
                "64 B, 1 -> {subscribers}, interest {interest}: {:.1} ns per forwarded message",
                runs[0]
            );
        }
    }
}
