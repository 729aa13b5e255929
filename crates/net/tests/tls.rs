//! TLS on real sockets: federates and routers over `tls://`, mutual TLS, the identities
//! certificates prove, and the clear refusals of bad certificates and plaintext peers.
//! Certificates are made here with rcgen, in a directory of the test's own.

mod common;

use common::pki::{Pki, Subject};

use roaring::RoaringBitmap;
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_core::router::{IdentityRole, PeerIdentity, RouterConfig};
use trellis_core::wire::{NodeId, TransportClass};
use trellis_net::rti::{Driver, RtiAmbassador, RtiConfig};
use trellis_net::{
    DialConfig, Endpoint, Host, HostConfig, Message, Node, NodeConfig, Runtime, TlsConfig,
};

const FED: &str = "TlsTest";
const WAIT: Duration = Duration::from_secs(10);
/// How long a dial that must fail is given: it redials until then, and reports the last
/// failure.
const REFUSAL_WAIT: Duration = Duration::from_secs(3);

fn ids(list: &[u32]) -> RoaringBitmap {
    list.iter().copied().collect()
}

/// A router listening on `tls://127.0.0.1:<free port>` with `tls`; returns the runtime,
/// the host (for its stats) and the endpoint.
fn tls_router(name: &str, id: u64, tls: TlsConfig, registry: bool) -> (Runtime, Host, Endpoint) {
    let runtime = Runtime::start(name).unwrap();
    let mut router = RouterConfig::new(name, NodeId(id));
    router.hosts_registry = registry;
    let mut config = HostConfig::new(router);
    config.listen.push("tls://127.0.0.1:0".parse().unwrap());
    config.tls = Some(tls);
    let host = runtime.add_host(config).unwrap();
    let at = host.listening()[0].clone();
    assert!(matches!(at, Endpoint::Tls { .. }), "{at}");
    (runtime, host, at)
}

fn node(name: &str, at: &Endpoint, tls: Option<TlsConfig>) -> NodeConfig {
    let mut config = NodeConfig::child_of(name, FED, at.clone());
    config.tls = tls;
    config
}

/// Receive `count` messages or fail after the bound.
fn receive(node: &Node, count: usize) -> Vec<Message> {
    let deadline = Instant::now() + WAIT;
    let mut got = Vec::new();
    while got.len() < count {
        let left = deadline.saturating_duration_since(Instant::now());
        assert!(!left.is_zero(), "received {} of {count}", got.len());
        if let Some(m) = node.recv_timeout(left).unwrap() {
            got.push(m);
        }
    }
    got
}

/// `count` reliable messages from `publisher` reach `subscriber` in order.
fn exchange(publisher: &Node, subscriber: &Node, count: u32) {
    subscriber.subscribe(&ids(&[7])).unwrap();
    publisher
        .wait_for_network_interest(&ids(&[7]), WAIT)
        .unwrap();
    for i in 0..count {
        let payload = i.to_le_bytes().repeat(40); // 160 bytes: many records' worth
        publisher
            .publish(&[7], TransportClass::Reliable, &payload)
            .unwrap();
    }
    let got: Vec<u32> = receive(subscriber, count as usize)
        .iter()
        .map(|m| u32::from_le_bytes(m.payload()[..4].try_into().unwrap()))
        .collect();
    assert_eq!(got, (0..count).collect::<Vec<_>>());
}

/// The identities a host's links proved, sorted.
fn identities(host: &Host) -> Vec<PeerIdentity> {
    let mut found: Vec<PeerIdentity> = host
        .stats()
        .unwrap()
        .links
        .into_iter()
        .filter_map(|l| l.identity)
        .collect();
    found.sort_by(|a, b| a.name.cmp(&b.name));
    found
}

fn identity(name: &str, role: IdentityRole) -> PeerIdentity {
    PeerIdentity {
        name: name.into(),
        role,
    }
}

#[test]
fn federates_exchange_reliable_updates_through_a_tls_router() {
    let pki = Pki::new("fed");
    let (_rt, host, at) = tls_router("router", 1, pki.config(&Subject::router("router")), false);
    // One federate proves who it is, the other only checks the router.
    let publisher = Node::connect(node(
        "pub",
        &at,
        Some(pki.config(&Subject::federate("fed-pub"))),
    ))
    .unwrap();
    let subscriber = Node::connect(node("sub", &at, Some(TlsConfig::trusting(pki.ca())))).unwrap();
    exchange(&publisher, &subscriber, 5000);
    assert_eq!(
        identities(&host),
        vec![identity("fed-pub", IdentityRole::Federate)],
        "the federate without a certificate proves nothing"
    );
    // The federate knows the router by its certificate too.
    let router_side: Vec<_> = publisher
        .stats()
        .unwrap()
        .links
        .into_iter()
        .filter_map(|l| l.identity)
        .collect();
    assert_eq!(router_side, vec![identity("router", IdentityRole::Router)]);
}

#[test]
fn a_child_router_carries_updates_to_its_parent_over_mutual_tls() {
    let pki = Pki::new("tree");
    let mut parent_tls = pki.config(&Subject::router("parent"));
    parent_tls.require_client_cert = true;
    let (_parent_rt, parent, parent_at) = tls_router("parent", 1, parent_tls, false);

    let child_rt = Runtime::start("child").unwrap();
    let mut config = HostConfig::new(RouterConfig::new("child", NodeId(2)));
    config.listen.push("tls://127.0.0.1:0".parse().unwrap());
    config.dial.push(DialConfig::parent(parent_at.clone(), ""));
    config.tls = Some(pki.config(&Subject::router("child")));
    let child = child_rt.add_host(config).unwrap();
    child.wait_for_links(1, WAIT).unwrap();
    let child_at = child.listening()[0].clone();

    let fed = |name: &str| Some(pki.config(&Subject::federate(name)));
    let publisher = Node::connect(node("pub", &child_at, fed("fed-pub"))).unwrap();
    let subscriber = Node::connect(node("sub", &parent_at, fed("fed-sub"))).unwrap();
    exchange(&publisher, &subscriber, 2000);
    assert_eq!(
        identities(&parent),
        vec![
            identity("child", IdentityRole::Router),
            identity("fed-sub", IdentityRole::Federate)
        ]
    );
    assert_eq!(
        identities(&child),
        vec![
            identity("fed-pub", IdentityRole::Federate),
            identity("parent", IdentityRole::Router)
        ]
    );
}

#[test]
fn rti_ambassadors_send_interactions_over_tls() {
    let pki = Pki::new("rti");
    let (_rt, _host, at) = tls_router("router", 1, pki.config(&Subject::router("router")), true);
    let connect = |name: &str| {
        let mut config = RtiConfig::new(node(name, &at, Some(TlsConfig::trusting(pki.ca()))));
        config.node.federation = "TlsFlow".into();
        config.driver = Driver::Direct;
        RtiAmbassador::connect(config).unwrap()
    };
    let model = common::model();
    let mut sender = connect("sender");
    sender.create_federation_execution(&model).unwrap();
    sender
        .join_federation_execution("sender", "sim", model.clone())
        .unwrap();
    let mut receiver = connect("receiver");
    receiver
        .join_federation_execution("receiver", "sim", model)
        .unwrap();
    let radio = sender.interaction_class_handle("Radio").unwrap();
    let text = sender.parameter_handle(radio, "Text").unwrap();
    sender.publish_interaction_class(radio).unwrap();
    receiver.subscribe_interaction_class(radio).unwrap();
    let deadline = Instant::now() + WAIT;
    loop {
        assert!(Instant::now() < deadline, "no interaction arrived");
        sender
            .send_interaction(radio, &[(text, b"over tls".as_slice())], b"")
            .unwrap();
        let got = receiver
            .evoke_multiple_callbacks(Duration::from_millis(100), 100)
            .unwrap();
        if let Some(Callback::ReceiveInteraction { parameters, .. }) = got
            .into_iter()
            .find(|c| matches!(c, Callback::ReceiveInteraction { .. }))
        {
            assert_eq!(&parameters[0].1[..], b"over tls");
            break;
        }
    }
}

/// Connect a node that must be refused; returns the error it reports.
fn refused(mut config: NodeConfig) -> String {
    config.connect_timeout = REFUSAL_WAIT;
    match Node::connect(config) {
        Ok(_) => panic!("the connection was not refused"),
        Err(e) => e.to_string(),
    }
}

/// Connect a node whose certificates are refused (by it or the router): `connect` says so
/// at once instead of redialing to its timeout, since no redial changes a certificate.
fn refused_at_once(mut config: NodeConfig) -> String {
    config.connect_timeout = WAIT;
    let start = Instant::now();
    let error = match Node::connect(config) {
        Ok(_) => panic!("the connection was not refused"),
        Err(e) => e.to_string(),
    };
    assert!(
        start.elapsed() < WAIT / 2,
        "refused only at the timeout: {error}"
    );
    error
}

fn assert_says(error: &str, what: &str) {
    assert!(error.contains(what), "expected {what:?} in: {error}");
}

#[test]
fn mutual_tls_refuses_bad_certificates_with_clear_reasons() {
    let pki = Pki::new("mtls");
    let stranger = Pki::new("stranger");
    let mut tls = pki.config(&Subject::router("router"));
    tls.require_client_cert = true;
    let (_rt, _host, at) = tls_router("router", 1, tls, false);

    let unknown_ca = refused_at_once(node(
        "a",
        &at,
        Some(stranger.config(&Subject::federate("a"))),
    ));
    // The dialer trusts the stranger CA only: it refuses the router first.
    assert_says(&unknown_ca, "invalid peer certificate: UnknownIssuer");
    assert_says(&unknown_ca, "TLS handshake with 127.0.0.1:");

    // Trusting the router but presenting a stranger's certificate: the router refuses it.
    let (cert, key) = stranger.issue(&Subject::federate("b"));
    let foreign = TlsConfig::with_identity(cert, key, pki.ca());
    assert_says(
        &refused_at_once(node("b", &at, Some(foreign))),
        "the far side refused our certificate (received fatal alert: UnknownCA)",
    );

    let expired = Subject {
        expired: true,
        ..Subject::federate("c")
    };
    assert_says(
        &refused_at_once(node("c", &at, Some(pki.config(&expired)))),
        "the far side refused our certificate (received fatal alert: CertificateExpired)",
    );

    assert_says(
        &refused_at_once(node("d", &at, Some(TlsConfig::trusting(pki.ca())))),
        "the far side refused our certificate (received fatal alert: CertificateRequired)",
    );
}

#[test]
fn a_router_whose_certificate_is_expired_or_names_another_host_is_refused() {
    let pki = Pki::new("server");
    let expired = Subject {
        expired: true,
        ..Subject::router("old")
    };
    let (_rt, _host, at) = tls_router("old", 1, pki.config(&expired), false);
    let error = refused_at_once(node("a", &at, Some(TlsConfig::trusting(pki.ca()))));
    assert_says(&error, "invalid peer certificate: certificate expired");

    let elsewhere = Subject {
        sans: &["router.elsewhere.example"],
        ..Subject::router("elsewhere")
    };
    let (_rt, _host, at) = tls_router("elsewhere", 2, pki.config(&elsewhere), false);
    let error = refused_at_once(node("b", &at, Some(TlsConfig::trusting(pki.ca()))));
    assert_says(&error, "certificate not valid for name");
    assert_says(&error, "127.0.0.1");
}

#[test]
fn plaintext_and_tls_do_not_mix() {
    let pki = Pki::new("mix");
    let (_rt, _host, tls_at) =
        tls_router("router", 1, pki.config(&Subject::router("router")), false);
    let Endpoint::Tls { addr, .. } = tls_at else {
        unreachable!()
    };
    let plain_client = refused(node("plain", &Endpoint::Tcp(addr), None));
    assert_says(&plain_client, "this port takes TLS");

    let (_plain_rt, plain_at) = common::registry_router();
    let Endpoint::Tcp(addr) = plain_at else {
        unreachable!()
    };
    let tls_client = refused_at_once(node(
        "tls",
        &Endpoint::tls(addr),
        Some(TlsConfig::trusting(pki.ca())),
    ));
    assert_says(
        &tls_client,
        "the far side does not speak TLS (a plain tcp:// port?)",
    );
}

#[test]
fn tls_endpoints_without_configuration_or_files_are_refused_at_start() {
    let runtime = Runtime::start("bad").unwrap();
    let mut config = HostConfig::new(RouterConfig::new("bad", NodeId(1)));
    config.listen.push("tls://127.0.0.1:0".parse().unwrap());
    let error = runtime.add_host(config.clone()).err().unwrap().to_string();
    assert_says(&error, "tls://127.0.0.1:0 needs a TLS configuration");

    config.tls = Some(TlsConfig::trusting("/nonexistent/ca.pem"));
    let error = runtime.add_host(config.clone()).err().unwrap().to_string();
    assert_says(&error, "CA file /nonexistent/ca.pem");

    let pki = Pki::new("bad");
    config.tls = Some(TlsConfig::trusting(pki.ca()));
    let error = runtime.add_host(config.clone()).err().unwrap().to_string();
    assert_says(&error, "listening on tls:// needs a certificate and key");

    let (cert, _) = pki.issue(&Subject::router("one"));
    let (_, other_key) = pki.issue(&Subject::router("two"));
    config.tls = Some(TlsConfig::with_identity(cert, &other_key, pki.ca()));
    let error = runtime.add_host(config).err().unwrap().to_string();
    assert_says(&error, &format!("key {}", other_key.display()));
    assert_says(&error, "does not go with the certificate");
}

#[test]
fn best_effort_rides_the_tls_stream_when_udp_was_asked_for() {
    let pki = Pki::new("udp");
    let runtime = Runtime::start("router").unwrap();
    let mut config = HostConfig::new(RouterConfig::new("router", NodeId(1)));
    config.listen = vec![
        "tls://127.0.0.1:0".parse().unwrap(),
        "udp://127.0.0.1:0".parse().unwrap(),
    ];
    config.tls = Some(pki.config(&Subject::router("router")));
    let host = runtime.add_host(config).unwrap();
    let at = host.listening()[0].clone();
    let with_udp = |name: &str| {
        let mut config = node(name, &at, Some(TlsConfig::trusting(pki.ca())));
        config.udp = true;
        Node::connect(config).unwrap()
    };
    let (publisher, subscriber) = (with_udp("pub"), with_udp("sub"));
    subscriber.subscribe(&ids(&[3])).unwrap();
    publisher
        .wait_for_network_interest(&ids(&[3]), WAIT)
        .unwrap();
    // Over a stream nothing is lost, so one of each arrives in order.
    for i in 0..100u32 {
        publisher
            .publish(&[3], TransportClass::BestEffort, &i.to_le_bytes())
            .unwrap();
    }
    let got = receive(&subscriber, 100);
    assert!(got.iter().all(|m| m.class() == TransportClass::BestEffort));
    let datagrams: u64 = host
        .stats()
        .unwrap()
        .links
        .iter()
        .map(|l| l.stats.datagrams_in + l.stats.datagrams_out)
        .sum();
    assert_eq!(datagrams, 0, "no datagram crossed the router");
}

/// A TLS router with `max_links` and a short handshake timeout; returns its runtime and
/// address.
fn strict_router(
    pki: &Pki,
    max_links: usize,
    timeout: Duration,
) -> (Runtime, std::net::SocketAddr) {
    let runtime = Runtime::start("strict").unwrap();
    let mut router = RouterConfig::new("strict", NodeId(1));
    router.link_defaults.handshake_timeout = timeout;
    let mut config = HostConfig::new(router);
    config.listen.push("tls://127.0.0.1:0".parse().unwrap());
    config.tls = Some(pki.config(&Subject::router("strict")));
    config.max_links = max_links;
    let host = runtime.add_host(config).unwrap();
    let addr = host.listening()[0].stream_addr().unwrap();
    (runtime, addr)
}

/// Whether the router closed `stream` within the bound (end of stream or reset).
fn closed_by_router(mut stream: &std::net::TcpStream, within: Duration) -> bool {
    use std::io::Read;
    stream.set_read_timeout(Some(within)).unwrap();
    let mut byte = [0u8; 1];
    match stream.read(&mut byte) {
        Ok(0) => true,
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => true,
        Ok(_) => panic!("the router sent something to a silent client"),
        Err(_) => false, // still open when the bound passed
    }
}

#[test]
fn a_silent_connection_to_a_tls_port_is_closed_at_the_handshake_timeout() {
    let pki = Pki::new("silent");
    let (_rt, addr) = strict_router(&pki, 16, Duration::from_millis(300));
    let start = Instant::now();
    let silent = std::net::TcpStream::connect(addr).unwrap();
    assert!(
        closed_by_router(&silent, WAIT),
        "a silent client kept its socket"
    );
    assert!(
        start.elapsed() >= Duration::from_millis(250),
        "closed before its timeout"
    );
}

#[test]
fn connections_still_shaking_hands_count_toward_max_links() {
    let pki = Pki::new("cap");
    let (_rt, addr) = strict_router(&pki, 1, WAIT);
    let first = std::net::TcpStream::connect(addr).unwrap();
    let second = std::net::TcpStream::connect(addr).unwrap();
    assert!(
        closed_by_router(&second, WAIT),
        "a connection beyond max_links was kept"
    );
    assert!(
        !closed_by_router(&first, Duration::from_millis(200)),
        "the first connection keeps its slot until its handshake times out"
    );
}

/// Issue 33's forged child-router hello, under mutual TLS: a process holding only a
/// federate's certificate dials as a child router (a link carrying every federation) and is
/// refused at its hello, again on every redial; the router's own certificate is let in.
#[test]
fn a_federate_certificate_cannot_open_a_router_link_under_mutual_tls() {
    let pki = Pki::new("forged");
    let mut parent_tls = pki.config(&Subject::router("parent"));
    parent_tls.require_client_cert = true;
    let (_parent_rt, parent, parent_at) = tls_router("parent", 1, parent_tls, true);
    let child = |name: &str, subject: Subject| {
        let runtime = Runtime::start(name).unwrap();
        let mut config = HostConfig::new(RouterConfig::new(name, NodeId(7)));
        config.dial.push(DialConfig::parent(parent_at.clone(), ""));
        config.tls = Some(pki.config(&subject));
        let host = runtime.add_host(config).unwrap();
        (runtime, host)
    };
    let (_forger_rt, forger) = child("forger", Subject::federate("tank"));
    let kept = forger.wait_for_links(1, Duration::from_secs(2));
    assert!(
        kept.is_err(),
        "a federate's certificate opened a router link"
    );
    let closed = parent.stats().unwrap().router.links_closed;
    assert!(
        closed >= 1,
        "the parent refused the hello and closed the link"
    );
    assert!(identities(&parent).is_empty(), "{:?}", identities(&parent));
    let (_router_rt, router) = child("child", Subject::router("child"));
    router.wait_for_links(1, WAIT).unwrap();
    assert_eq!(
        identities(&parent),
        vec![identity("child", IdentityRole::Router)]
    );
}
