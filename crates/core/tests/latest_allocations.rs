//! Keep-latest frames cost no allocation per message either, once the router is warmed up:
//! the queue's replacement index and the latest-value cache reach their working size and
//! are reused. A counting global allocator measures it: the file is one test, so nothing
//! else runs beside it (`allocations.rs` does the same for plain frames).

#[path = "common/child_link.rs"]
mod child_link;
use child_link::accept_child;

use bytes::BytesMut;
use std::sync::atomic::Ordering;
use trellis_core::router::{LinkId, Router, RouterConfig};
use trellis_core::wire::{
    DataFrame, DataHeader, FederationId, InterestFrame, InterestOp, LatestKey, NodeId,
    TransportClass,
};
use trellis_core::Time;

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::ALLOCATIONS;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

const FED: &str = "LatestAlloc";
/// Instances the publisher updates in turn: each 512-frame read updates each 8 times.
const INSTANCES: u64 = 64;

#[test]
fn keep_latest_forwarding_does_not_allocate_per_message() {
    let mut router = Router::new(RouterConfig::new("r", NodeId(1)), Time::ZERO);
    let publisher = accept_child(&mut router, "publisher", 2, FED);
    let subscribers: Vec<LinkId> = (0..3)
        .map(|i| accept_child(&mut router, &format!("subscriber-{i}"), 10 + i as u64, FED))
        .collect();
    for s in &subscribers {
        let mut buf = BytesMut::new();
        InterestFrame::encode(
            &mut buf,
            FederationId::of(FED),
            InterestOp::Add,
            &[(7, 7)],
            1 << 20,
        );
        router.handle_bytes(Time::ZERO, *s, &buf);
    }
    let mut seq = 0;
    let chunk = |seq: &mut u64| {
        let mut chunk = BytesMut::new();
        for _ in 0..512 {
            *seq += 1;
            let header = DataHeader {
                federation: FederationId::of(FED),
                source: NodeId(99),
                seq: *seq,
                priority: 4,
                class: TransportClass::Reliable,
            };
            let latest = LatestKey {
                key: *seq % INSTANCES,
                attributes: 0b1,
            };
            DataFrame::encode_with(&mut chunk, &header, Some(latest), &[7], &[0u8; 64]);
        }
        chunk.freeze()
    };
    // The chunks are made before counting: a socket's reads are not the router's cost.
    let chunks: Vec<_> = (0..250).map(|_| chunk(&mut seq)).collect();
    let mut out = Vec::with_capacity(1 << 20);
    let mut forward = |chunks: &[bytes::Bytes]| -> u64 {
        let mut frames_out = 0;
        for chunk in chunks {
            router.handle_bytes(Time::ZERO, publisher, chunk);
            for s in &subscribers {
                loop {
                    out.clear();
                    let n = router.poll_transmit(Time::ZERO, *s, &mut out);
                    if n == 0 {
                        break;
                    }
                    frames_out += (n / DataFrame::encoded_len_with(1, 64, true)) as u64;
                }
            }
            while router.poll_ready().is_some() {}
            while router.poll_event().is_some() {}
        }
        frames_out
    };
    forward(&chunks[..50]); // warm up: queues, index, cache and recency log reach their size
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    let rounds = 200;
    let frames_out = forward(&chunks[50..]);
    let allocations = ALLOCATIONS.load(Ordering::SeqCst) - before;
    let offered = (rounds * 512 * subscribers.len()) as u64;
    let stats = router.stats();
    println!(
        "{allocations} allocations for {offered} keep-latest frames offered to subscribers: \
         {frames_out} sent, {} replaced in their queues, {} frames cached",
        stats.latest.replaced, stats.latest.cached_entries
    );
    // Each read queues the newest of each instance toward each subscriber, once.
    assert_eq!(
        frames_out,
        (rounds as u64) * INSTANCES * subscribers.len() as u64
    );
    assert_eq!(stats.latest.cached_entries, INSTANCES);
    assert!(
        allocations <= rounds as u64,
        "{allocations} allocations for {offered} keep-latest frames"
    );
}
