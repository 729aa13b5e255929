//! The router forwards without allocating per message once it is warmed up. A counting
//! global allocator measures it: the whole file is one test so nothing else runs beside it.

#[path = "common/child_link.rs"]
mod child_link;
use child_link::accept_child;

use bytes::BytesMut;
use std::sync::atomic::Ordering;
use trellis_core::router::{LinkId, Router, RouterConfig};
use trellis_core::wire::{
    DataFrame, DataHeader, FederationId, InterestFrame, InterestOp, NodeId, TransportClass,
};
use trellis_core::Time;

#[path = "common/counting_alloc.rs"]
mod counting_alloc;
use counting_alloc::ALLOCATIONS;

#[global_allocator]
static GLOBAL: counting_alloc::Counting = counting_alloc::Counting;

const FED: &str = "Alloc";

#[test]
fn forwarding_does_not_allocate_per_message() {
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
    // What a publisher's socket delivers: many 64-byte frames per read.
    let mut chunk = BytesMut::new();
    for seq in 0..512 {
        let header = DataHeader {
            federation: FederationId::of(FED),
            source: NodeId(99),
            seq,
            priority: 4,
            class: TransportClass::Reliable,
        };
        DataFrame::encode(&mut chunk, &header, &[7], &[0u8; 64]);
    }
    let mut out = Vec::with_capacity(1 << 20);
    let mut forward_rounds = |rounds: usize| -> u64 {
        let mut bytes_out = 0;
        for _ in 0..rounds {
            router.handle_bytes(Time::ZERO, publisher, &chunk);
            for s in &subscribers {
                loop {
                    out.clear();
                    let n = router.poll_transmit(Time::ZERO, *s, &mut out);
                    if n == 0 {
                        break;
                    }
                    bytes_out += n as u64;
                }
            }
            while router.poll_ready().is_some() {}
            while router.poll_event().is_some() {}
        }
        bytes_out
    };
    forward_rounds(50); // warm up: queues, buffers and the index reach their working size
    let before = ALLOCATIONS.load(Ordering::SeqCst);
    let rounds = 200;
    let bytes_out = forward_rounds(rounds);
    let allocations = ALLOCATIONS.load(Ordering::SeqCst) - before;
    let forwarded = (rounds * 512 * subscribers.len()) as u64;
    assert_eq!(
        bytes_out,
        forwarded * DataFrame::encoded_len(1, 64) as u64,
        "everything was forwarded"
    );
    println!("{allocations} allocations for {forwarded} forwarded messages");
    // A receive buffer may be replaced now and then, at most once per 36 kB read; a
    // per-message allocation would show up as at least `forwarded`.
    assert!(
        allocations <= rounds as u64,
        "{allocations} allocations for {forwarded} forwarded messages"
    );
}
