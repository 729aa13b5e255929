//! A node on the caller's thread ([`DirectNode`]) writes publishes in bundles: a lone publish
//! at once, a burst a bundle at a time as bundles fill, and what a burst left held from its
//! tail writer when the program makes no call. Real TCP on loopback; the subscriber has a
//! thread of its own, so only the publisher's own writes decide what arrives.

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
fn a_direct_node_writes_a_lone_publish_at_once_and_a_whole_burst_without_another_call() {
    let (_router, at) = router();
    let subscriber = Node::connect(NodeConfig::child_of("sub", FED, at.clone())).unwrap();
    let mut config = NodeConfig::child_of("pub", FED, at);
    // Nothing held goes out because a later publish came a hold after the last write: only
    // a full bundle, a call or the tail writer send it.
    config.bundle_hold = Duration::from_secs(24 * 3600);
    let mut publisher = DirectNode::connect(config).unwrap();
    let ids: RoaringBitmap = [7].into_iter().collect();
    subscriber.subscribe(&ids).unwrap();
    publisher.wait_for_network_interest(&ids, WAIT).unwrap();

    // The first publish follows no bundle: it is written at once.
    publisher
        .publish(&[7], TransportClass::Reliable, &payload(0))
        .unwrap();
    assert_eq!(receive_through(&subscriber, 0), [0]);

    // A burst, and then no call: full bundles are written as they fill, the tail by the
    // node's tail writer. Every update arrives, in order, exactly once.
    for n in 1..=BURST {
        publisher
            .publish(&[7], TransportClass::Reliable, &payload(n))
            .unwrap();
    }
    let burst = receive_through(&subscriber, BURST);
    assert_eq!(burst, (1..=BURST).collect::<Vec<_>>());
    assert!(subscriber.try_recv().unwrap().is_none(), "nothing extra");
    drop(publisher);
}
