//! A router holding a million interest ids on one link stays within 1 MiB: the interest
//! index keeps ids as compressed bitmaps per link set, not an entry per id. A counting global
//! allocator measures the bytes the router holds: the whole file is one test so nothing else
//! allocates beside it.

#[path = "common/child_link.rs"]
mod child_link;
use child_link::accept_child;

use bytes::BytesMut;
use std::sync::atomic::Ordering;
use trellis_core::router::{Router, RouterConfig};
use trellis_core::wire::{FederationId, InterestFrame, InterestOp, NodeId};
use trellis_core::Time;

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::LIVE_BYTES;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

const FED: &str = "Clutter";
const IDS: u32 = 1_000_000;
const LIMIT_BYTES: i64 = 1 << 20;

/// Bytes the router holds after one link declared `ranges`, beyond what it held before.
fn held_for(ranges: &[(u32, u32)]) -> (i64, u64) {
    let mut router = Router::new(RouterConfig::new("r", NodeId(1)), Time::ZERO);
    let link = accept_child(&mut router, "simulator", 7, FED);
    while router.poll_event().is_some() {}
    // Split into frames of at most 1 MiB, as a node sends them.
    let mut frames = BytesMut::new();
    InterestFrame::encode(
        &mut frames,
        FederationId::of(FED),
        InterestOp::Add,
        ranges,
        1 << 20,
    );
    let before = LIVE_BYTES.load(Ordering::SeqCst);
    for read in frames.chunks(64 << 10) {
        router.handle_bytes(Time::ZERO, link, read);
        while router.poll_event().is_some() {}
    }
    // Counted: the link's interest, the index, and the input buffer the frame was read into.
    let held = LIVE_BYTES.load(Ordering::SeqCst) - before;
    let declared = router.received_interest(link, FED).len();
    (held, declared)
}

#[test]
fn a_million_ids_on_one_link_fit_in_one_mebibyte() {
    // The ids of a map's cells or of entities are dense runs; two shapes of them.
    let contiguous = [(0, IDS - 1)];
    // Runs of 100 ids with gaps of 100, over 2,000,000 ids.
    let striped: Vec<(u32, u32)> = (0..IDS / 100).map(|i| (i * 200, i * 200 + 99)).collect();
    // Every other id over 2,000,000: no runs at all.
    let alternate: Vec<(u32, u32)> = (0..IDS).map(|i| (i * 2, i * 2)).collect();
    for (shape, ranges) in [
        ("contiguous", &contiguous[..]),
        ("striped", &striped[..]),
        ("alternate", &alternate[..]),
    ] {
        let (held, declared) = held_for(ranges);
        println!("{shape}: {declared} ids held in {held} bytes");
        assert_eq!(declared, u64::from(IDS), "{shape}: every id was declared");
        assert!(
            held <= LIMIT_BYTES,
            "{shape}: {held} bytes for {declared} ids"
        );
    }
}
