//! Hostile peers against a router on real sockets: connections that drip a frame they never
//! finish, a join flood from one address, and one node filling the registry. Each attack
//! must fail, be told why, and leave legitimate federates undisturbed.
//!
//! Hostile clients are raw sockets speaking the wire protocol, bound to 127.0.0.2 and up:
//! Linux routes all of 127.0.0.0/8 to the loopback interface, so each is a distinct source
//! address to the router, while the legitimate federates come from 127.0.0.1.

mod common;

use bytes::BytesMut;
use common::*;
use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_core::registry::{ErrorKind as RegistryError, Request, Response};
use trellis_core::router::RouterConfig;
use trellis_core::wire::{
    decode_frame, Frame, Hello, LinkFlags, ManageDirection, ManageFrame, NodeId, Role,
    PROTOCOL_VERSION,
};
use trellis_net::rti::{Driver, RtiAmbassador, RtiError};
use trellis_net::{Endpoint, Host, HostConfig, Runtime};

/// The `n`th hostile source address: 127.0.0.2 to 127.0.0.9.
fn hostile_source(n: usize) -> IpAddr {
    IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + (n % 8) as u8))
}

/// A router holding the registry on 127.0.0.1, set up by `configure`.
fn router(configure: impl FnOnce(&mut HostConfig)) -> (Runtime, Host, Endpoint, SocketAddr) {
    let runtime = Runtime::start("hostile-router").unwrap();
    let mut router = RouterConfig::new("router", NodeId(1));
    router.hosts_registry = true;
    let mut config = HostConfig::new(router);
    config.listen.push("tcp://127.0.0.1:0".parse().unwrap());
    configure(&mut config);
    let host = runtime.add_host(config).unwrap();
    let endpoint = host.listening()[0].clone();
    let Endpoint::Tcp(address) = endpoint else {
        panic!("a tcp listener")
    };
    (runtime, host, endpoint, address)
}

/// A client that speaks the wire protocol by hand.
struct Raw {
    stream: TcpStream,
    node: NodeId,
    inbox: BytesMut,
    next_request: u64,
}

/// What a raw client heard: frames, and whether the router closed the connection.
#[derive(Default)]
struct Heard {
    frames: Vec<Frame>,
    closed: bool,
}

impl Heard {
    fn goodbye(&self) -> Option<&str> {
        self.frames.iter().find_map(|f| match f {
            Frame::Goodbye(g) => Some(g.reason.as_str()),
            _ => None,
        })
    }
}

impl Raw {
    fn connect(from: IpAddr, to: SocketAddr, node: u64) -> Raw {
        let socket = socket2::Socket::new(
            socket2::Domain::IPV4,
            socket2::Type::STREAM,
            Some(socket2::Protocol::TCP),
        )
        .unwrap();
        socket.bind(&SocketAddr::new(from, 0).into()).unwrap();
        socket.connect(&to.into()).unwrap();
        Raw {
            stream: socket.into(),
            node: NodeId(node),
            inbox: BytesMut::new(),
            next_request: 1,
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        // A router that closed us may have reset the connection: the reads tell.
        let _ = self.stream.write_all(bytes);
    }

    /// Say hello as a federate node of `federation`.
    fn hello(&mut self, federation: &str) {
        let mut buf = BytesMut::new();
        Hello {
            node_id: self.node,
            node_name: format!("hostile-{}", self.node.0),
            role: Role::Child,
            flags: LinkFlags::source_sink(),
            federation: federation.into(),
            clique: String::new(),
            udp: None,
        }
        .encode(&mut buf);
        self.send(&buf);
    }

    fn ask(&mut self, request: &Request) -> u64 {
        let id = self.next_request;
        self.next_request += 1;
        let mut buf = BytesMut::new();
        ManageFrame {
            direction: ManageDirection::Request,
            origin: self.node,
            request: id,
            asker: None,
            body: request.encode(),
        }
        .encode(&mut buf);
        self.send(&buf);
        id
    }

    /// Read what has arrived, waiting up to `wait` for something (zero: only what is there).
    fn read(&mut self, wait: Duration) -> Heard {
        let mut heard = Heard::default();
        let mut chunk = [0u8; 16 << 10];
        if wait.is_zero() {
            self.stream.set_nonblocking(true).unwrap();
        } else {
            self.stream.set_nonblocking(false).unwrap();
            self.stream.set_read_timeout(Some(wait)).unwrap();
        }
        match self.stream.read(&mut chunk) {
            Ok(0) => heard.closed = true,
            Ok(n) => self.inbox.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
            Err(_) => heard.closed = true, // reset
        }
        while let Ok(Some(frame)) = decode_frame(&mut self.inbox, 1 << 24) {
            heard.frames.push(frame);
        }
        heard
    }

    /// Read until `found` picks something out of a frame, the connection closes, or the
    /// bound passes. Returns what was found, and everything heard.
    fn wait_for<T>(
        &mut self,
        bound: Duration,
        found: impl Fn(&Frame) -> Option<T>,
    ) -> (Option<T>, Heard) {
        let deadline = Instant::now() + bound;
        let mut all = Heard::default();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return (None, all);
            }
            let heard = self.read(left.min(Duration::from_millis(200)));
            let hit = heard.frames.iter().find_map(&found);
            all.frames.extend(heard.frames);
            all.closed |= heard.closed;
            if hit.is_some() || all.closed {
                return (hit, all);
            }
        }
    }

    /// Ask the registry and wait for its answer to this request.
    fn request(&mut self, request: &Request) -> Response {
        let id = self.ask(request);
        let (answer, heard) = self.wait_for(WAIT, |frame| match frame {
            Frame::Manage(m) if m.direction == ManageDirection::Reply && m.request == id => {
                Some(Response::decode(&m.body).expect("an answer that decodes"))
            }
            _ => None,
        });
        answer
            .unwrap_or_else(|| panic!("no answer to {request:?} (goodbye: {:?})", heard.goodbye()))
    }
}

/// The first bytes of a data frame that declares `len` bytes in all.
fn frame_prefix(len: u32) -> Vec<u8> {
    let mut bytes = (len - 4).to_le_bytes().to_vec();
    bytes.extend_from_slice(&[PROTOCOL_VERSION, 3]);
    bytes
}

/// Connections that say hello and then drip a frame a byte a second, as in the attack
/// that held every link slot: each is closed at the frame deadline and told why, and a
/// federate joins meanwhile as fast as ever.
#[test]
fn slow_drip_connections_are_closed_at_the_frame_deadline_and_a_federate_joins_meanwhile() {
    const CONNECTIONS: usize = 300;
    let deadline = Duration::from_secs(2);
    let (_runtime, host, endpoint, address) = router(|config| {
        config.router.link_defaults.frame_deadline = deadline;
    });
    let mut drips: Vec<Raw> = (0..CONNECTIONS)
        .map(|i| Raw::connect(hostile_source(i), address, 1000 + i as u64))
        .collect();
    for drip in &mut drips {
        drip.hello("Drip");
    }
    host.wait_for_links(CONNECTIONS, WAIT).unwrap();
    let dripping = std::thread::spawn(move || drip_until_closed(drips, deadline + WAIT));
    let started = Instant::now();
    let mut legit = connect(&endpoint, "Exercise", "legit", Driver::Thread);
    legit.create_federation_execution(&model()).unwrap();
    legit
        .join_federation_execution("legit", "sim", model())
        .unwrap();
    let joined_in = started.elapsed();
    assert!(
        joined_in < Duration::from_secs(3),
        "a federate took {joined_in:?} to join beside {CONNECTIONS} dripping connections"
    );
    let closes = dripping.join().unwrap();
    assert_eq!(closes.len(), CONNECTIONS);
    // The bound covers the housekeeping pass (100 ms), the drip loop's pace and a loaded
    // machine; a deadline not enforced would leave them open until the heartbeat timeout.
    let bound = deadline + Duration::from_millis(1500);
    for (n, (reason, after)) in closes.iter().enumerate() {
        let reason = reason.as_deref().unwrap_or("closed without a goodbye");
        assert!(
            reason.contains("a frame begun") && reason.contains("never completed"),
            "connection {n}: {reason}"
        );
        assert!(
            *after >= deadline && *after <= bound,
            "connection {n} closed {after:?} after its frame began"
        );
    }
    // Every slot they held is free again: only the legitimate federate is linked.
    let stats = host.stats().unwrap();
    assert_eq!(stats.links_up(), 1, "{:?}", stats.links.len());
}

/// Begin a frame on every connection and drip it a byte a second (the pace is the attack's)
/// until the router closes each, within `bound`. Returns each connection's goodbye and how
/// long after its frame began the router closed it.
fn drip_until_closed(mut drips: Vec<Raw>, bound: Duration) -> Vec<(Option<String>, Duration)> {
    let began = Instant::now();
    for drip in &mut drips {
        drip.send(&frame_prefix(1000));
    }
    let mut closes: Vec<Option<(Option<String>, Duration)>> = vec![None; drips.len()];
    let mut last_drip = began;
    while closes.iter().any(Option::is_none) && began.elapsed() < bound {
        let dripping_now = last_drip.elapsed() >= Duration::from_secs(1);
        if dripping_now {
            last_drip = Instant::now();
        }
        for (drip, close) in drips.iter_mut().zip(&mut closes) {
            if close.is_some() {
                continue;
            }
            let heard = drip.read(Duration::ZERO);
            if let Some(reason) = heard.goodbye() {
                *close = Some((Some(reason.to_owned()), began.elapsed()));
            } else if heard.closed {
                *close = Some((None, began.elapsed()));
            } else if dripping_now {
                drip.send(&[0]);
            }
        }
        std::thread::sleep(Duration::from_millis(20)); // the drip loop's pace
    }
    closes
        .into_iter()
        .map(|c| c.unwrap_or((Some("still open".into()), began.elapsed())))
        .collect()
}

/// Two federates of one federation exchanging updates: `tick` sends one and checks it
/// is reflected within a bound.
struct Pair {
    publisher: RtiAmbassador,
    subscriber: RtiAmbassador,
    object: trellis_core::federate::ObjectId,
    attribute: trellis_core::fom::AttributeHandle,
    sent: u8,
}

impl Pair {
    fn join(at: &Endpoint) -> Pair {
        let model = model();
        let mut publisher = connect(at, "Exercise", "pub", Driver::Thread);
        publisher.create_federation_execution(&model).unwrap();
        publisher
            .join_federation_execution("pub", "sim", model.clone())
            .unwrap();
        let mut subscriber = connect(at, "Exercise", "sub", Driver::Thread);
        subscriber
            .join_federation_execution("sub", "viewer", model)
            .unwrap();
        let class = publisher.object_class_handle("Vehicle").unwrap();
        let attribute = publisher.attribute_handle(class, "Position").unwrap();
        publisher
            .publish_object_class_attributes(class, &[attribute])
            .unwrap();
        subscriber
            .subscribe_object_class_attributes(class, &[attribute])
            .unwrap();
        let object = publisher.register_object_instance(class).unwrap();
        let mut pair = Pair {
            publisher,
            subscriber,
            object,
            attribute,
            sent: 0,
        };
        // Until the subscriber's interest has reached the publisher, updates go nowhere.
        let deadline = Instant::now() + WAIT;
        while pair.exchange(Duration::from_millis(50)).is_none() {
            assert!(
                Instant::now() < deadline,
                "the pair never exchanged an update"
            );
        }
        pair
    }

    /// Send one update; how long it took to be reflected, if within `bound`.
    fn exchange(&mut self, bound: Duration) -> Option<Duration> {
        self.sent = self.sent.wrapping_add(1);
        let value = [self.sent];
        let sent_at = Instant::now();
        self.publisher
            .update_attribute_values(self.object, &[(self.attribute, value.as_slice())], b"")
            .unwrap();
        self.publisher.evoke_callback(Duration::ZERO).unwrap();
        while sent_at.elapsed() < bound {
            let left = bound.saturating_sub(sent_at.elapsed());
            let callback = self.subscriber.evoke_callback(left).unwrap();
            if let Some(Callback::ReflectAttributeValues { values, .. }) = callback {
                if values.first().map(|(_, v)| v.as_ref()) == Some(value.as_slice()) {
                    return Some(sent_at.elapsed());
                }
            }
        }
        None
    }

    /// Exchange an update and insist it arrived within a second.
    fn keeps_working(&mut self, when: &str) {
        let took = self.exchange(Duration::from_secs(1));
        assert!(
            took.is_some(),
            "the pair's update was not reflected within 1 s {when}"
        );
    }
}

/// One address opening connection after connection, each joining federates, as the process
/// that joined 5,000 federates and stalled everyone for 13 s: it gets its two links, the
/// rest are refused at once with the reason, its joins stop at the node's limit, and a pair
/// in another federation exchanges updates throughout.
#[test]
fn a_join_flood_from_one_address_is_refused_early_and_another_pair_keeps_working() {
    const PER_NODE: usize = 8;
    let (_runtime, host, endpoint, address) = router(|config| {
        config.max_links_per_address = 2;
        config.router.registry_limits.federates_per_node = PER_NODE;
    });
    let mut pair = Pair::join(&endpoint);
    let flooder = hostile_source(0);
    let mut accepted = Vec::new();
    let mut refused = 0;
    for n in 0..40u64 {
        let mut raw = Raw::connect(flooder, address, 5000 + n);
        raw.hello("Flood");
        let (hello, heard) = raw.wait_for(WAIT, |f| matches!(f, Frame::Hello(_)).then_some(()));
        match (hello, heard.goodbye()) {
            (Some(()), _) => accepted.push(raw),
            (None, Some(reason)) => {
                assert!(
                    reason.contains(&format!("{flooder} already holds 2 links"))
                        && reason.contains("per source address"),
                    "{reason}"
                );
                refused += 1;
            }
            (None, None) => panic!("connection {n} was neither served nor told why not"),
        }
        if n % 10 == 0 {
            pair.keeps_working("while connections flood in");
        }
    }
    assert_eq!((accepted.len(), refused), (2, 38));
    assert_eq!(host.stats().unwrap().refused.per_address, 38);
    // The two it got each join federates until the node's limit.
    let create = Request::Create {
        federation: "Flood".into(),
        fingerprint: 1,
        modules: vec![],
        time_representation: "HLAinteger64Time".into(),
    };
    assert_eq!(accepted[0].request(&create), Response::Created);
    for (c, raw) in accepted.iter_mut().enumerate() {
        let mut joined = 0;
        for i in 0..PER_NODE + 4 {
            let join = Request::Join {
                federation: "Flood".into(),
                federate_name: format!("flood-{c}-{i}"),
                federate_type: "flood".into(),
                fingerprint: 1,
                modules: vec![],
            };
            match raw.request(&join) {
                Response::Joined { .. } => joined += 1,
                Response::Error { kind, message } => {
                    assert_eq!(kind, RegistryError::LimitReached, "{message}");
                    assert!(
                        message.contains(&format!(
                            "node {} already has {PER_NODE} federates joined (the per-node \
                             limit is {PER_NODE})",
                            raw.node
                        )),
                        "{message}"
                    );
                }
                other => panic!("unexpected answer {other:?}"),
            }
            if i % 4 == 0 {
                pair.keeps_working("while the flood joins");
            }
        }
        assert_eq!(joined, PER_NODE);
    }
    pair.keeps_working("after the flood");
}

/// One node creating federation after federation meets its own limit with a message that
/// says so; other nodes still create; once the registry is full, the federate API says the
/// registry is full (RTIinternalError with that message in C and C++).
#[test]
fn one_node_filling_the_registry_meets_its_limit_and_a_full_registry_says_so() {
    let (_runtime, _host, endpoint, address) = router(|_| {});
    let limit = trellis_core::registry::DEFAULT_FEDERATIONS_PER_CREATOR;
    let create = |name: String| Request::Create {
        federation: name,
        fingerprint: 1,
        modules: vec![],
        time_representation: "HLAinteger64Time".into(),
    };
    let mut greedy = Raw::connect(hostile_source(0), address, 7000);
    greedy.hello("Greedy");
    for i in 0..limit {
        assert_eq!(
            greedy.request(&create(format!("greedy-{i}"))),
            Response::Created
        );
    }
    let Response::Error { kind, message } = greedy.request(&create("one-more".into())) else {
        panic!("the per-creator limit did not hold");
    };
    assert_eq!(kind, RegistryError::LimitReached);
    assert!(
        message.contains(&format!(
            "node {} already created {limit} federations (the per-creator limit is {limit})",
            greedy.node
        )),
        "{message}"
    );
    // Another node still creates.
    let mut legit = connect(&endpoint, "Exercise", "legit", Driver::Direct);
    legit.create_federation_execution(&model()).unwrap();
    // Many nodes together can still fill the registry's total; then it says it is full.
    let total = trellis_core::registry::MAX_FEDERATIONS;
    let mut created = limit + 1;
    let mut node = 7001;
    while created < total {
        let mut helper = Raw::connect(hostile_source(node as usize), address, node);
        helper.hello("Greedy");
        for i in 0..limit.min(total - created) {
            assert_eq!(
                helper.request(&create(format!("fill-{node}-{i}"))),
                Response::Created
            );
            created += 1;
        }
        node += 1;
    }
    let mut late = connect(&endpoint, "Late", "late", Driver::Direct);
    match late.create_federation_execution(&model()) {
        Err(RtiError::LimitReached(message)) => assert!(
            message.contains(&format!(
                "the registry holds {total} federations, its limit"
            )),
            "{message}"
        ),
        other => panic!("a full registry answered {other:?}"),
    }
}

/// The last slots are kept for routers: federates that arrive when only those are left are
/// closed at their hello and told why, and a router still attaches.
#[test]
fn the_slots_kept_for_routers_refuse_federates_and_take_a_router() {
    let (runtime, host, endpoint, address) = router(|config| {
        config.max_links = 6;
        config.reserved_router_slots = 2;
    });
    let mut federates: Vec<Raw> = (0..4)
        .map(|n| Raw::connect(hostile_source(n), address, 8000 + n as u64))
        .collect();
    for federate in &mut federates {
        federate.hello("Exercise");
    }
    host.wait_for_links(4, WAIT).unwrap();
    let mut fifth = Raw::connect(hostile_source(4), address, 8004);
    fifth.hello("Exercise");
    let (_, heard) = fifth.wait_for(WAIT, |f| matches!(f, Frame::Goodbye(_)).then_some(()));
    let reason = heard.goodbye().expect("the fifth federate is told why");
    assert!(
        reason.contains("the 4 link slots this router gives federates are taken")
            && reason.contains("the last 2 of its 6 are kept for routers"),
        "{reason}"
    );
    assert_eq!(host.stats().unwrap().refused.reserved_for_routers, 1);
    // A child router dials in and takes a kept slot.
    let mut child = HostConfig::new(RouterConfig::new("child", NodeId(2)));
    child
        .dial
        .push(trellis_net::DialConfig::parent(endpoint, ""));
    let child = runtime.add_host(child).unwrap();
    child.wait_for_links(1, WAIT).unwrap();
    host.wait_for_links(5, WAIT).unwrap();
}
