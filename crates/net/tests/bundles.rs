//! A node on the caller's thread ([`DirectNode`]) writes publishes in bundles: a lone publish
//! at once, a burst a bundle at a time as bundles fill, and what a burst left held at the
//! program's next call. Real TCP on loopback; the subscriber has a thread of its own, so only
//! the publisher's own writes decide what arrives.

use roaring::RoaringBitmap;
use std::time::{Duration, Instant};
use trellis_core::router::RouterConfig;
use trellis_core::wire::{NodeId, TransportClass};
use trellis_net::{DirectNode, Endpoint, HostConfig, Message, Node, NodeConfig, Runtime};

const FED: &str = "BundlesTest";
const WAIT: Duration = Duration::from_secs(10);
/// Frames of about a KiB: a 64 KiB bundle holds about 62 of them.
const PAYLOAD_BYTES: usize = 1000;
const BURST: u32 = 200;

fn router() -> (Runtime, Endpoint) {
    let runtime = Runtime::start("router").unwrap();
    let mut config = HostConfig::new(RouterConfig::new("router", NodeId(1)));
    config.listen = vec!["tcp://127.0.0.1:0".parse().unwrap()];
    let host = runtime.add_host(config).unwrap();
    let at = host.listening()[0].clone();
    (runtime, at)
}

fn payload(n: u32) -> Vec<u8> {
    let mut bytes = vec![0u8; PAYLOAD_BYTES];
    bytes[..4].copy_from_slice(&n.to_le_bytes());
    bytes
}

fn number(message: &Message) -> u32 {
    u32::from_le_bytes(message.payload()[..4].try_into().unwrap())
}

/// Receive until `last` arrived, failing after the bound; returns the numbers in order.
fn receive_through(node: &Node, last: u32) -> Vec<u32> {
    let deadline = Instant::now() + WAIT;
    let mut got = Vec::new();
    while got.last() != Some(&last) {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "{last} never arrived; got {got:?}");
        if let Some(message) = node.recv_timeout(left).unwrap() {
            got.push(number(&message));
        }
    }
    got
}

#[test]
fn a_direct_node_writes_a_lone_publish_at_once_full_bundles_unasked_and_the_rest_at_its_next_call()
{
    let (_router, at) = router();
    let subscriber = Node::connect(NodeConfig::child_of("sub", FED, at.clone())).unwrap();
    let mut config = NodeConfig::child_of("pub", FED, at);
    // Nothing held goes out because time passed: only a full bundle or a call sends it.
    config.bundle_hold = Duration::from_secs(24 * 3600);
    let mut publisher = DirectNode::connect(config).unwrap();
    let ids: RoaringBitmap = [7].into_iter().collect();
    subscriber.subscribe(&ids).unwrap();
    publisher.wait_for_network_interest(&ids, WAIT).unwrap();

    // The first publish follows no bundle: it is written at once, and the publisher is not
    // called again before it arrives.
    publisher
        .publish(&[7], TransportClass::Reliable, &payload(0))
        .unwrap();
    assert_eq!(receive_through(&subscriber, 0), [0]);

    // A burst: each bundle is written as it fills, still without a call.
    for n in 1..=BURST {
        publisher
            .publish(&[7], TransportClass::Reliable, &payload(n))
            .unwrap();
    }
    // Fewer than BUNDLE_BYTES are ever held, and every frame is longer than its payload.
    let held_at_most = (trellis_net::BUNDLE_BYTES / PAYLOAD_BYTES) as u32;
    let unasked = receive_through(&subscriber, BURST - held_at_most);
    assert_eq!(unasked, (1..=BURST - held_at_most).collect::<Vec<_>>());
    // What arrived unasked ends at a bundle's end; the burst's tail is still held.
    let mut arrived = *unasked.last().unwrap();
    while let Some(message) = subscriber.recv_timeout(Duration::from_millis(50)).unwrap() {
        arrived += 1;
        assert_eq!(number(&message), arrived, "in order, exactly once");
    }
    assert!(
        arrived < BURST,
        "the burst's tail was written without a call"
    );

    // The publisher's next call writes the tail.
    publisher.poll(Duration::ZERO).unwrap();
    let tail = receive_through(&subscriber, BURST);
    assert_eq!(tail, (arrived + 1..=BURST).collect::<Vec<_>>());
    assert!(subscriber.try_recv().unwrap().is_none(), "nothing extra");
}
