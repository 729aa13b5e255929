//! The node API over real pipes: TCP and UDP on loopback, and memory pipes in one runtime.

use roaring::RoaringBitmap;
use std::time::{Duration, Instant};
use trellis_core::router::RouterConfig;
use trellis_core::wire::{NodeId, TransportClass};
use trellis_net::{
    Attachment, Endpoint, HostConfig, LinkEvent, Message, Node, NodeConfig, Runtime,
};

#[path = "common/block_on.rs"]
mod block_on;
use block_on::block_on;

const FED: &str = "PipesTest";
const WAIT: Duration = Duration::from_secs(10);

fn ids(list: &[u32]) -> RoaringBitmap {
    list.iter().copied().collect()
}

fn endpoint(text: &str) -> Endpoint {
    text.parse().unwrap()
}

/// A router host on loopback with system-chosen ports; returns its runtime and endpoints.
fn router(listen: &[&str]) -> (Runtime, Vec<Endpoint>) {
    let runtime = Runtime::start("router").unwrap();
    let mut config = HostConfig::new(RouterConfig::new("router", NodeId(1)));
    config.listen = listen.iter().map(|l| endpoint(l)).collect();
    let host = runtime.add_host(config).unwrap();
    let listening = host.listening().to_vec();
    (runtime, listening)
}

fn tcp_of(endpoints: &[Endpoint]) -> Endpoint {
    endpoints
        .iter()
        .find(|e| matches!(e, Endpoint::Tcp(_)))
        .unwrap()
        .clone()
}

/// Receive `count` messages or fail after the bound.
fn receive(node: &Node, count: usize) -> Vec<Message> {
    let deadline = Instant::now() + WAIT;
    let mut got = Vec::new();
    while got.len() < count {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(
            !left.is_zero(),
            "received {} of {count} messages",
            got.len()
        );
        if let Some(m) = node.recv_timeout(left).unwrap() {
            got.push(m);
        }
    }
    got
}

#[test]
fn reliable_messages_cross_a_router_in_order_exactly_once() {
    let (_router, listening) = router(&["tcp://127.0.0.1:0"]);
    let at = tcp_of(&listening);
    let subscriber = Node::connect(NodeConfig::child_of("sub", FED, at.clone())).unwrap();
    let other = Node::connect(NodeConfig::child_of("other", FED, at.clone())).unwrap();
    let publisher = Node::connect(NodeConfig::child_of("pub", FED, at)).unwrap();
    subscriber.subscribe(&ids(&[1, 2])).unwrap();
    other.subscribe(&ids(&[3])).unwrap();
    publisher
        .wait_for_network_interest(&ids(&[1, 2, 3]), WAIT)
        .unwrap();
    for i in 0..5000u32 {
        publisher
            .publish(&[1 + i % 2], TransportClass::Reliable, &i.to_le_bytes())
            .unwrap();
    }
    publisher
        .publish(&[3], TransportClass::Reliable, b"for other")
        .unwrap();
    let got = receive(&subscriber, 5000);
    let payloads: Vec<u32> = got
        .iter()
        .map(|m| u32::from_le_bytes(m.payload().try_into().unwrap()))
        .collect();
    assert_eq!(payloads, (0..5000).collect::<Vec<_>>());
    assert!(got.iter().all(|m| m.source() == publisher.node_id()));
    let seqs: Vec<u64> = got.iter().map(Message::seq).collect();
    assert!(
        seqs.windows(2).all(|w| w[1] == w[0] + 1),
        "sequence numbers count up"
    );
    assert_eq!(receive(&other, 1)[0].payload(), b"for other");
    assert!(subscriber.try_recv().unwrap().is_none(), "nothing extra");
}

#[test]
fn best_effort_frames_travel_by_udp_and_large_ones_in_fragments() {
    let (_router, listening) = router(&["tcp://127.0.0.1:0", "udp://127.0.0.1:0"]);
    let at = tcp_of(&listening);
    let mut config = NodeConfig::child_of("sub", FED, at.clone());
    config.udp = true;
    let subscriber = Node::connect(config).unwrap();
    let mut config = NodeConfig::child_of("pub", FED, at);
    config.udp = true;
    let publisher = Node::connect(config).unwrap();
    subscriber.subscribe(&ids(&[9])).unwrap();
    publisher
        .wait_for_network_interest(&ids(&[9]), WAIT)
        .unwrap();
    let big: Vec<u8> = (0..20_000u32).map(|i| (i % 251) as u8).collect();
    // Loopback rarely loses datagrams, but it may: send until both kinds got through.
    let deadline = Instant::now() + WAIT;
    let (mut got_big, mut got_small) = (false, false);
    while !(got_big && got_small) {
        assert!(
            Instant::now() < deadline,
            "big: {got_big}, small: {got_small}"
        );
        publisher
            .publish(&[9], TransportClass::BestEffort, &big)
            .unwrap();
        publisher
            .publish(&[9], TransportClass::BestEffort, b"small")
            .unwrap();
        while let Some(m) = subscriber.recv_timeout(Duration::from_millis(200)).unwrap() {
            assert_eq!(m.class(), TransportClass::BestEffort);
            if m.payload() == big.as_slice() {
                got_big = true;
            } else {
                assert_eq!(m.payload(), b"small");
                got_small = true;
            }
        }
    }
    let stats = publisher.stats().unwrap();
    let link = stats.links.iter().find(|l| l.peer.is_some()).unwrap();
    assert!(
        link.stats.datagrams_out >= 15,
        "20 kB left in fragments: {:?}",
        link.stats
    );
}

#[test]
fn memory_pipes_link_hosts_of_one_runtime() {
    let runtime = Runtime::start("shared").unwrap();
    let mut config = HostConfig::new(RouterConfig::new("router", NodeId(1)));
    config.listen = vec![endpoint("mem://hub")];
    runtime.add_host(config).unwrap();
    let a = Node::connect_in(
        &runtime,
        NodeConfig::child_of("a", FED, endpoint("mem://hub")),
    )
    .unwrap();
    let b = Node::connect_in(
        &runtime,
        NodeConfig::child_of("b", FED, endpoint("mem://hub")),
    )
    .unwrap();
    b.subscribe(&ids(&[4])).unwrap();
    a.wait_for_network_interest(&ids(&[4]), WAIT).unwrap();
    for i in 0..1000u32 {
        a.publish(&[4], TransportClass::Reliable, &i.to_le_bytes())
            .unwrap();
    }
    let got = receive(&b, 1000);
    assert_eq!(
        u32::from_le_bytes(got[999].payload().try_into().unwrap()),
        999
    );
    let stats = b.stats().unwrap();
    assert!(stats.links.iter().any(|l| l.label == "mem://hub" && l.up));
}

#[test]
fn nodes_form_a_clique_without_a_router() {
    // Ports are fixed by the members' own listeners, so reserve them first.
    let ports: Vec<u16> = (0..3)
        .map(|_| {
            std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port()
        })
        .collect();
    let endpoints: Vec<Endpoint> = ports
        .iter()
        .map(|p| endpoint(&format!("tcp://127.0.0.1:{p}")))
        .collect();
    let nodes: Vec<Node> = (0..3)
        .map(|i| {
            let attach = Attachment::Peers {
                listen: endpoints[i].clone(),
                peers: endpoints
                    .iter()
                    .filter(|e| **e != endpoints[i])
                    .cloned()
                    .collect(),
                clique: "trio".into(),
            };
            Node::connect(NodeConfig::new(format!("n{i}"), FED, attach)).unwrap()
        })
        .collect();
    for node in &nodes {
        node.wait_for_links(2, WAIT).unwrap();
    }
    // Distinct ids, so that waiting for both proves both subscriptions arrived.
    nodes[1].subscribe(&ids(&[5])).unwrap();
    nodes[2].subscribe(&ids(&[6])).unwrap();
    nodes[0]
        .wait_for_network_interest(&ids(&[5, 6]), WAIT)
        .unwrap();
    nodes[0]
        .publish(&[5, 6], TransportClass::Reliable, b"to both")
        .unwrap();
    assert_eq!(receive(&nodes[1], 1)[0].payload(), b"to both");
    assert_eq!(receive(&nodes[2], 1)[0].payload(), b"to both");
}

#[test]
fn a_node_redials_a_restarted_router_and_declares_its_interest_again() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let at = format!("tcp://127.0.0.1:{port}");
    let (first, _) = router(&[&at]);
    let subscriber = Node::connect(NodeConfig::child_of("sub", FED, endpoint(&at))).unwrap();
    subscriber.subscribe(&ids(&[6])).unwrap();
    let probe = Node::connect(NodeConfig::child_of("probe", FED, endpoint(&at))).unwrap();
    probe.wait_for_network_interest(&ids(&[6]), WAIT).unwrap();
    drop(probe);
    first.shutdown();
    let (_second, _) = router(&[&at]);
    let publisher = Node::connect(NodeConfig::child_of("pub", FED, endpoint(&at))).unwrap();
    publisher
        .wait_for_network_interest(&ids(&[6]), WAIT)
        .unwrap();
    publisher
        .publish(&[6], TransportClass::Reliable, b"after restart")
        .unwrap();
    assert_eq!(receive(&subscriber, 1)[0].payload(), b"after restart");
}

#[test]
fn messages_can_be_awaited() {
    let (_router, listening) = router(&["tcp://127.0.0.1:0"]);
    let at = tcp_of(&listening);
    let subscriber = Node::connect(NodeConfig::child_of("sub", FED, at.clone())).unwrap();
    let publisher = Node::connect(NodeConfig::child_of("pub", FED, at)).unwrap();
    subscriber.subscribe(&ids(&[8])).unwrap();
    publisher
        .wait_for_network_interest(&ids(&[8]), WAIT)
        .unwrap();
    let message = block_on(async {
        publisher
            .publish_async(&[8], TransportClass::Reliable, b"async")
            .await
            .unwrap();
        subscriber.recv_async().await.unwrap()
    });
    assert_eq!(message.payload(), b"async");
}

#[test]
fn connecting_to_nothing_fails_with_the_reason() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config =
        NodeConfig::child_of("lonely", FED, endpoint(&format!("tcp://127.0.0.1:{port}")));
    config.connect_timeout = Duration::from_millis(500);
    let err = Node::connect(config).err().expect("nothing listens there");
    let text = err.to_string();
    assert!(
        text.contains(&format!("127.0.0.1:{port}")) && text.contains("refused"),
        "{text}"
    );
}

#[test]
fn a_small_delivery_buffer_pushes_back_without_losing_or_stalling() {
    let (_router, listening) = router(&["tcp://127.0.0.1:0"]);
    let at = tcp_of(&listening);
    let mut config = NodeConfig::child_of("sub", FED, at.clone());
    config.delivery_capacity = 4;
    let subscriber = Node::connect(config).unwrap();
    let publisher = Node::connect(NodeConfig::child_of("pub", FED, at)).unwrap();
    subscriber.subscribe(&ids(&[2])).unwrap();
    publisher
        .wait_for_network_interest(&ids(&[2]), WAIT)
        .unwrap();
    for i in 0..2000u32 {
        publisher
            .publish(&[2], TransportClass::Reliable, &i.to_le_bytes())
            .unwrap();
    }
    // Every message, in order, through a buffer of four: the node's loop must resume
    // delivering each time the application takes one.
    let got = receive(&subscriber, 2000);
    for (i, m) in got.iter().enumerate() {
        assert_eq!(m.payload(), (i as u32).to_le_bytes());
    }
}

#[test]
fn a_reader_that_falls_behind_gets_the_newest_best_effort_frames() {
    let (_router, listening) = router(&["tcp://127.0.0.1:0"]);
    let at = tcp_of(&listening);
    let mut config = NodeConfig::child_of("sub", FED, at.clone());
    config.delivery_limit_bytes = 4 << 10;
    config.link.queue_limit_bytes = 8 << 10;
    let subscriber = Node::connect(config).unwrap();
    let publisher = Node::connect(NodeConfig::child_of("pub", FED, at)).unwrap();
    subscriber.subscribe(&ids(&[3])).unwrap();
    publisher
        .wait_for_network_interest(&ids(&[3]), WAIT)
        .unwrap();
    const SENT: u32 = 1000;
    for i in 0..SENT {
        let mut payload = [0u8; 100];
        payload[..4].copy_from_slice(&i.to_le_bytes());
        publisher
            .publish(&[3], TransportClass::BestEffort, &payload)
            .unwrap();
    }
    // The application reads nothing until every frame has reached its node.
    let deadline = Instant::now() + WAIT;
    let stats = loop {
        let stats = subscriber.stats().unwrap();
        if stats.router.data_delivered == u64::from(SENT) {
            break stats;
        }
        assert!(
            Instant::now() < deadline,
            "{} of {SENT} frames reached the subscriber's node",
            stats.router.data_delivered
        );
        std::thread::yield_now();
    };
    let shed = stats.router.drops.evicted + stats.router.drops.queue_full;
    assert!(shed > 0, "12 KiB of buffers cannot hold 100 KiB of frames");
    let got = receive(&subscriber, (u64::from(SENT) - shed) as usize);
    let serials: Vec<u32> = got
        .iter()
        .map(|m| u32::from_le_bytes(m.payload()[..4].try_into().unwrap()))
        .collect();
    assert!(serials.windows(2).all(|w| w[0] < w[1]), "{serials:?}");
    assert_eq!(
        serials.last(),
        Some(&(SENT - 1)),
        "the newest frame is kept, older ones are shed"
    );
    // What waited is bounded by the two buffers, not by what was sent.
    let frame_len = trellis_core::wire::DataFrame::encoded_len(1, 100);
    assert!(
        got.len() <= (12 << 10) / frame_len + 1,
        "{} frames of {frame_len} B kept",
        got.len()
    );
    assert!(subscriber.try_recv().unwrap().is_none());
}

/// A node's application blocked in one long wait for messages or a notice is woken when its
/// link goes down, though no message comes: the federate API above it no longer polls its
/// links (that polling was a third of an idle federate's CPU) and learns of a loss only so.
/// (`recv_timeout` waits on through notices, for a message or its timeout.) A wake-up from
/// an earlier notice (the link coming up) may end a wait before the router goes: the waiter
/// waits again until it sees the link down, within the bound.
#[test]
fn a_long_wait_for_a_message_or_a_notice_ends_when_the_link_goes_down() {
    let (router, endpoints) = router(&["tcp://127.0.0.1:0"]);
    let node = Node::connect(NodeConfig::child_of("waiter", FED, tcp_of(&endpoints))).unwrap();
    let long = Duration::from_secs(60);
    let waiting = std::thread::spawn(move || {
        let started = Instant::now();
        let mut waits = 0;
        loop {
            let message = node.recv_or_wake(long).unwrap();
            assert!(message.is_none(), "no message was sent");
            waits += 1;
            let down = std::iter::from_fn(|| node.take_link_event())
                .any(|event| matches!(event, LinkEvent::Down { .. }));
            if down || started.elapsed() >= long {
                return (down, started.elapsed(), waits);
            }
        }
    });
    drop(router);
    let (down, waited, waits) = waiting.join().unwrap();
    assert!(down, "the wait ended without the link going down");
    assert!(
        waited < long / 4,
        "the wait ended only after {waited:?} of {long:?}"
    );
    assert!(waits <= 3, "{waits} wake-ups for one link up and one down");
}
