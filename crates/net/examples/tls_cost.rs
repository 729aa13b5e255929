//! What TLS costs a link: the same two federate nodes and router on loopback, over plain
//! TCP and over mutual TLS (rustls, certificates made here), in one run. 64-byte reliable
//! messages one to one, as fast as the publisher can send (`TLS_COST_SECONDS`, 5), and
//! the round trip of a 64-byte ping-pong (`TLS_COST_ROUND_TRIPS`, 5,000; the median).
//!
//! `cargo run --release -p trellis-net --example tls_cost`

mod common;

use common::setting;
use rcgen::{BasicConstraints, CertificateParams, CertifiedIssuer, DnType, IsCa, KeyPair};
use roaring::RoaringBitmap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::router::RouterConfig;
use trellis_core::wire::{NodeId, TransportClass};
use trellis_net::tls::TlsConfig;
use trellis_net::{Endpoint, HostConfig, Node, NodeConfig, Runtime};

const FEDERATION: &str = "TlsCost";
const WAIT: Duration = Duration::from_secs(10);

/// A CA and certificates for the router and the two nodes, written into `dir`.
fn certificates(dir: &Path) -> [TlsConfig; 3] {
    std::fs::create_dir_all(dir).expect("folder");
    let mut ca = CertificateParams::new(Vec::<String>::new()).expect("params");
    ca.distinguished_name
        .push(DnType::CommonName, "tls_cost CA");
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let issuer = CertifiedIssuer::self_signed(ca, KeyPair::generate().expect("key")).expect("CA");
    let ca_path = dir.join("ca.pem");
    std::fs::write(&ca_path, issuer.pem()).expect("ca.pem");
    let issue = |name: &str, unit: &str| {
        let sans = vec!["127.0.0.1".to_string(), "localhost".to_string()];
        let mut params = CertificateParams::new(sans).expect("params");
        params.distinguished_name.push(DnType::CommonName, name);
        params
            .distinguished_name
            .push(DnType::OrganizationalUnitName, unit);
        let key = KeyPair::generate().expect("key");
        let cert = params.signed_by(&key, &issuer).expect("cert");
        let (cert_path, key_path) = (
            dir.join(format!("{name}.pem")),
            dir.join(format!("{name}.key")),
        );
        std::fs::write(&cert_path, cert.pem()).expect("cert");
        std::fs::write(&key_path, key.serialize_pem()).expect("key");
        TlsConfig::with_identity(cert_path, key_path, ca_path.clone())
    };
    let mut router = issue("router", "trellis-router");
    router.require_client_cert = true;
    [
        router,
        issue("a", "trellis-federate"),
        issue("b", "trellis-federate"),
    ]
}

struct Setup {
    _runtime: Runtime,
    a: Node,
    b: Node,
}

fn setup(tls: Option<&[TlsConfig; 3]>) -> Setup {
    let runtime = Runtime::start("tls-cost-router").expect("runtime");
    let mut config = HostConfig::new(RouterConfig::new("router", NodeId(1)));
    let scheme = if tls.is_some() { "tls" } else { "tcp" };
    config
        .listen
        .push(format!("{scheme}://127.0.0.1:0").parse().expect("endpoint"));
    config.tls = tls.map(|t| t[0].clone());
    let host = runtime.add_host(config).expect("router");
    let at: Endpoint = host.listening()[0].clone();
    let node = |name: &str, index: usize| {
        let mut config = NodeConfig::child_of(name, FEDERATION, at.clone());
        config.tls = tls.map(|t| t[index].clone());
        Node::connect(config).expect("node")
    };
    Setup {
        _runtime: runtime,
        a: node("a", 1),
        b: node("b", 2),
    }
}

fn ids(list: &[u32]) -> RoaringBitmap {
    list.iter().copied().collect()
}

/// Messages per second from `a` to `b` over `seconds`.
fn throughput(s: &Setup, seconds: u64) -> f64 {
    s.b.subscribe(&ids(&[1])).expect("subscribe");
    s.a.wait_for_network_interest(&ids(&[1]), WAIT)
        .expect("interest");
    let stop = Arc::new(AtomicBool::new(false));
    let payload = [7u8; 64];
    std::thread::scope(|scope| {
        let sender = {
            let stop = stop.clone();
            let a = &s.a;
            scope.spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    a.publish(&[1], TransportClass::Reliable, &payload)
                        .expect("publish");
                }
            })
        };
        let window = Duration::from_secs(seconds);
        let started = Instant::now();
        let mut received = 0u64;
        while started.elapsed() < window {
            if s.b
                .recv_timeout(Duration::from_millis(100))
                .expect("recv")
                .is_some()
            {
                received += 1;
            }
        }
        let rate = received as f64 / started.elapsed().as_secs_f64();
        stop.store(true, Ordering::Relaxed);
        sender.join().expect("sender");
        while s
            .b
            .recv_timeout(Duration::from_millis(200))
            .expect("drain")
            .is_some()
        {}
        s.b.unsubscribe(&ids(&[1])).expect("unsubscribe");
        rate
    })
}

/// The median round trip of a 64-byte ping-pong, `count` times.
fn round_trip(s: &Setup, count: u64) -> Duration {
    s.a.subscribe(&ids(&[3])).expect("subscribe");
    s.b.subscribe(&ids(&[2])).expect("subscribe");
    s.a.wait_for_network_interest(&ids(&[2]), WAIT)
        .expect("interest");
    s.b.wait_for_network_interest(&ids(&[3]), WAIT)
        .expect("interest");
    let payload = [9u8; 64];
    let mut times = Vec::new();
    std::thread::scope(|scope| {
        let b = &s.b;
        scope.spawn(move || {
            for _ in 0..count {
                b.recv_timeout(WAIT).expect("ping").expect("a ping in time");
                b.publish(&[3], TransportClass::Reliable, &payload)
                    .expect("pong");
            }
        });
        for _ in 0..count {
            let sent = Instant::now();
            s.a.publish(&[2], TransportClass::Reliable, &payload)
                .expect("ping");
            s.a.recv_timeout(WAIT)
                .expect("pong")
                .expect("a pong in time");
            times.push(sent.elapsed());
        }
    });
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let seconds = setting("TLS_COST_SECONDS", 5);
    let round_trips = setting("TLS_COST_ROUND_TRIPS", 5_000);
    let dir: PathBuf =
        std::env::temp_dir().join(format!("trellis-tls-cost-{}", std::process::id()));
    let certs = certificates(&dir);
    let mut results = Vec::new();
    for (label, tls) in [("plain TCP", None), ("mutual TLS", Some(&certs))] {
        let s = setup(tls);
        let rate = throughput(&s, seconds);
        let rtt = round_trip(&s, round_trips);
        println!(
            "{label:>10}: {rate:>10.0} msg/s 1→1 (64 B reliable), round trip median {:.1} µs",
            rtt.as_secs_f64() * 1e6
        );
        results.push((rate, rtt));
    }
    let (plain, tls) = (results[0], results[1]);
    println!(
        "TLS / plain: throughput {:.2}, round trip {:.2}",
        tls.0 / plain.0,
        tls.1.as_secs_f64() / plain.1.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
