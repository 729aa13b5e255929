//! What slow-drip connections cost a router, and whether a federate still gets in: N raw
//! connections to a router in this process each say hello as a federate, begin a frame and
//! send one more byte of it every second, never finishing it. Reports the process's resident
//! memory (VmRSS) before and with them open, the time a legitimate federate then takes to
//! connect, create and join, and when the router closed the dripping connections (at the
//! frame deadline, `--frame-deadline-ms`, 10 s by default) and why.
//!
//! The connections come from 127.0.0.2 to 127.0.0.33 (Linux routes all of 127.0.0.0/8 to
//! the loopback interface), so each address stays within the router's per-address limit.
//! The process holds two descriptors per connection: raise `ulimit -n` past 2 N + 100.
//!
//! `SLOW_DRIP_CONNECTIONS=4000 cargo run --release -p trellis-net --example slow_drip`

mod common;

use bytes::BytesMut;
use common::setting;
use std::io::{ErrorKind, Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::fom::ObjectModel;
use trellis_core::router::RouterConfig;
use trellis_core::wire::{decode_frame, Frame, Hello, LinkFlags, NodeId, Role, PROTOCOL_VERSION};
use trellis_net::rti::{Driver, RtiAmbassador, RtiConfig};
use trellis_net::{Endpoint, HostConfig, NodeConfig, Runtime};

const DEMO: &str = include_str!("../../../foms/trellis-demo.xml");
/// Source addresses the connections are spread over.
const SOURCES: usize = 32;

/// A dripping connection: its socket, what it received, and once closed, why and when
/// (since the first connection opened).
type Drip = (TcpStream, BytesMut, Option<(String, Duration)>);

/// This process's resident memory in KiB, from /proc/self/status.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status")
}

/// Open connection `n`, say hello as a federate and begin a 1 MiB frame.
fn open_drip(n: usize, router: SocketAddr) -> std::io::Result<TcpStream> {
    let source = IpAddr::V4(Ipv4Addr::new(127, 0, 0, 2 + (n % SOURCES) as u8));
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None)?;
    socket.bind(&SocketAddr::new(source, 0).into())?;
    socket.connect(&router.into())?;
    let mut stream: TcpStream = socket.into();
    let mut buf = BytesMut::new();
    Hello {
        node_id: NodeId(10_000 + n as u64),
        node_name: format!("drip-{n}"),
        role: Role::Child,
        flags: LinkFlags::source_sink(),
        federation: "Drip".into(),
        clique: String::new(),
        udp: None,
    }
    .encode(&mut buf);
    buf.extend_from_slice(&((1u32 << 20) - 4).to_le_bytes());
    buf.extend_from_slice(&[PROTOCOL_VERSION, 3]);
    stream.write_all(&buf)?;
    stream.set_nonblocking(true)?;
    Ok(stream)
}

/// The goodbye the router sent, once it closed the connection; `None` while it is open.
fn closed_with(stream: &mut TcpStream, inbox: &mut BytesMut) -> Option<String> {
    let mut chunk = [0u8; 4096];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => inbox.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == ErrorKind::WouldBlock => return None,
            Err(e) => return Some(format!("reset ({e})")),
        }
    }
    let mut reason = String::from("closed without a goodbye");
    while let Ok(Some(frame)) = decode_frame(inbox, 1 << 24) {
        if let Frame::Goodbye(goodbye) = frame {
            reason = goodbye.reason;
        }
    }
    Some(reason)
}

fn main() {
    let count = setting("SLOW_DRIP_CONNECTIONS", 1000) as usize;
    let runtime = Runtime::start("drip-router").expect("runtime");
    let mut router = RouterConfig::new("router", NodeId(1));
    router.hosts_registry = true;
    let mut config = HostConfig::new(router);
    config
        .listen
        .push("tcp://127.0.0.1:0".parse().expect("address"));
    let deadline = config.router.link_defaults.frame_deadline;
    let host = runtime.add_host(config).expect("router");
    let endpoint = host.listening()[0].clone();
    let Endpoint::Tcp(address) = endpoint else {
        panic!("the router listens on tcp")
    };
    let before = rss_kib();
    let opened = Instant::now();
    let mut drips: Vec<Drip> = (0..count)
        .map(|n| {
            let stream = open_drip(n, address).expect("a dripping connection");
            (stream, BytesMut::new(), None)
        })
        .collect();
    host.wait_for_links(count, Duration::from_secs(60))
        .expect("the router took every dripping connection");
    println!(
        "{count} dripping connections open in {:.2} s",
        opened.elapsed().as_secs_f64()
    );
    println!(
        "VmRSS: {before} KiB before, {} KiB with them open",
        rss_kib()
    );
    let model = Arc::new(ObjectModel::from_sources(&[("trellis-demo.xml", DEMO)]).expect("FOM"));
    let joining = Instant::now();
    let node = NodeConfig::child_of("legit", "Exercise", endpoint.clone());
    let mut config = RtiConfig::new(node);
    config.driver = Driver::Thread;
    let mut legit = RtiAmbassador::connect(config).expect("connect");
    legit.create_federation_execution(&model).expect("create");
    legit
        .join_federation_execution("legit", "sim", model)
        .expect("join");
    println!(
        "a legitimate federate connected, created and joined in {:.1} ms",
        joining.elapsed().as_secs_f64() * 1000.0
    );
    let mut last_drip = Instant::now();
    let bound = opened.elapsed() + deadline + Duration::from_secs(30);
    while drips.iter().any(|d| d.2.is_none()) && opened.elapsed() < bound {
        let dripping = last_drip.elapsed() >= Duration::from_secs(1);
        if dripping {
            last_drip = Instant::now();
        }
        for (stream, inbox, closed) in drips.iter_mut().filter(|d| d.2.is_none()) {
            if let Some(reason) = closed_with(stream, inbox) {
                *closed = Some((reason, opened.elapsed()));
            } else if dripping {
                let _ = stream.write(&[0]);
            }
        }
        std::thread::sleep(Duration::from_millis(50)); // the drip's pace
    }
    let closed: Vec<&(String, Duration)> = drips.iter().filter_map(|d| d.2.as_ref()).collect();
    let last = closed.iter().map(|c| c.1).max().unwrap_or_default();
    println!(
        "{} of {count} closed by {:.1} s after the first opened (frame deadline {:.1} s); \
         VmRSS {} KiB",
        closed.len(),
        last.as_secs_f64(),
        deadline.as_secs_f64(),
        rss_kib()
    );
    let mut reasons: Vec<&str> = closed.iter().map(|c| c.0.as_str()).collect();
    reasons.sort_unstable();
    reasons.dedup_by(|a, b| a.split(" ago").next() == b.split(" ago").next());
    for reason in reasons {
        println!("  e.g. {reason}");
    }
}
