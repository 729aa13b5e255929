//! The real `trellis router` binary on loopback: bad clients are dropped one by one while
//! good ones keep working, memory stays bounded, signals stop it cleanly, and mistakes on
//! the command line are one-line errors with exit code 2.

mod common;

use common::router::RouterProcess;
use roaring::RoaringBitmap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use trellis_core::wire::TransportClass;
use trellis_net::{Endpoint, Node, NodeConfig};

const WAIT: Duration = Duration::from_secs(10);
const FED: &str = "ProcessTest";

impl RouterProcess {
    fn tcp(&self) -> Endpoint {
        self.endpoints
            .iter()
            .find(|e| matches!(e, Endpoint::Tcp(_)))
            .unwrap()
            .clone()
    }

    fn address(&self) -> std::net::SocketAddr {
        match self.tcp() {
            Endpoint::Tcp(addr) => addr,
            _ => unreachable!(),
        }
    }

    /// Resident memory of the process, in kB.
    fn rss_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap()
    }

    /// Send SIGTERM and wait for the exit status, within a bound.
    fn terminate(mut self) -> std::process::ExitStatus {
        let status = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success());
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "router did not stop after SIGTERM"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn ids(list: &[u32]) -> RoaringBitmap {
    list.iter().copied().collect()
}

fn exchange(publisher: &Node, subscriber: &Node, id: u32, payload: &[u8]) {
    publisher
        .wait_for_network_interest(&ids(&[id]), WAIT)
        .unwrap();
    publisher
        .publish(&[id], TransportClass::Reliable, payload)
        .unwrap();
    let got = subscriber
        .recv_timeout(WAIT)
        .unwrap()
        .expect("message arrives");
    assert_eq!(got.payload(), payload);
}

/// Two federate nodes on the router: `a` publishes, `b` subscribes to id 1.
fn publisher_and_subscriber(router: &RouterProcess) -> (Node, Node) {
    let a = Node::connect(NodeConfig::child_of("a", FED, router.tcp())).unwrap();
    let b = Node::connect(NodeConfig::child_of("b", FED, router.tcp())).unwrap();
    b.subscribe(&ids(&[1])).unwrap();
    (a, b)
}

/// Read until the router closes the connection; returns what it sent.
fn read_until_closed(mut stream: TcpStream) -> Vec<u8> {
    stream.set_read_timeout(Some(WAIT)).unwrap();
    let mut got = Vec::new();
    match stream.read_to_end(&mut got) {
        Ok(_) => got,
        Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => got,
        Err(e) => panic!("router kept a bad connection open: {e}"),
    }
}

#[test]
fn bad_clients_are_dropped_and_good_ones_keep_working() {
    let router = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0"]);
    let (a, b) = publisher_and_subscriber(&router);
    exchange(&a, &b, 1, b"before");
    let rss_before = router.rss_kb();

    // Garbage: an HTTP request.
    let mut garbage = TcpStream::connect(router.address()).unwrap();
    garbage
        .write_all(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    let reply = read_until_closed(garbage);
    assert!(
        String::from_utf8_lossy(&reply).contains("protocol error"),
        "the router says why before it hangs up"
    );

    // An oversize length: 1 GiB claimed, refused before any of it is buffered.
    let mut oversize = TcpStream::connect(router.address()).unwrap();
    oversize.write_all(&(1u32 << 30).to_le_bytes()).unwrap();
    oversize.write_all(&[0u8; 4096]).unwrap();
    let reply = read_until_closed(oversize);
    assert!(String::from_utf8_lossy(&reply).contains("exceeds the limit"));

    // A truncated frame: a hello cut short, then the connection ends.
    let mut truncated = TcpStream::connect(router.address()).unwrap();
    truncated.write_all(&[40, 0, 0, 0, 1, 1, 0, 0]).unwrap();
    truncated.shutdown(std::net::Shutdown::Write).unwrap();
    read_until_closed(truncated);

    // Many bad clients at once do not add up either.
    let floods: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = TcpStream::connect(router.address()).unwrap();
            s.write_all(&(1000u32 << 20).to_le_bytes()).unwrap();
            s
        })
        .collect();
    for s in floods {
        read_until_closed(s);
    }

    exchange(&a, &b, 1, b"after");
    let rss_after = router.rss_kb();
    assert!(
        rss_after < rss_before + 16 * 1024,
        "router memory grew from {rss_before} kB to {rss_after} kB"
    );
    drop((a, b));
    assert!(
        router.terminate().success(),
        "SIGTERM ends the router with status 0"
    );
}

#[test]
fn sigterm_says_goodbye_to_every_link() {
    let router = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0"]);
    let mut config = NodeConfig::child_of("watcher", FED, router.tcp());
    config.link.heartbeat_timeout = Duration::from_secs(60);
    let watcher = Node::connect(config).unwrap();
    let status = router.terminate();
    assert!(status.success());
    // The node's link closes because of the goodbye, not a timeout: the stats show it gone
    // well before the 60 s heartbeat timeout.
    let deadline = Instant::now() + WAIT;
    while watcher.stats().unwrap().links_up() > 0 {
        assert!(
            Instant::now() < deadline,
            "link still up after the router stopped"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[test]
fn routers_link_as_a_mesh_and_a_tree() {
    let ports: Vec<u16> = (0..2)
        .map(|_| {
            std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port()
        })
        .collect();
    let url = |p: u16| format!("tcp://127.0.0.1:{p}");
    let (m0, m1) = (url(ports[0]), url(ports[1]));
    let r0 = RouterProcess::start(&["--name", "m0", "--listen", &m0, "--peer", &m1]);
    let r1 = RouterProcess::start(&["--name", "m1", "--listen", &m1, "--peer", &m0]);
    let leaf = RouterProcess::start(&[
        "--name",
        "leaf",
        "--listen",
        "tcp://127.0.0.1:0",
        "--parent",
        &m1,
    ]);
    let a = Node::connect(NodeConfig::child_of("a", FED, r0.tcp())).unwrap();
    let b = Node::connect(NodeConfig::child_of("b", FED, leaf.tcp())).unwrap();
    b.subscribe(&ids(&[3])).unwrap();
    a.subscribe(&ids(&[4])).unwrap();
    exchange(&a, &b, 3, b"down the tree");
    exchange(&b, &a, 4, b"up and across");
    drop((a, b));
    for r in [leaf, r1, r0] {
        assert!(r.terminate().success());
    }
}

fn run_expecting_failure(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(args)
        .env("TRELLIS_LOG", "off")
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    (out.status.code().unwrap(), stderr)
}

#[test]
fn a_port_in_use_is_a_one_line_error_with_exit_code_2() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("tcp://{}", taken.local_addr().unwrap());
    let (code, stderr) = run_expecting_failure(&["router", "--listen", &url]);
    assert_eq!(code, 2);
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("cannot listen on") && stderr.contains(&url),
        "{stderr}"
    );
}

#[test]
fn a_bad_url_is_a_one_line_error_with_exit_code_2() {
    for (url, why) in [
        ("tcp//127.0.0.1:1", "expected scheme://address"),
        ("ftp://127.0.0.1:1", "unknown scheme"),
    ] {
        let (code, stderr) = run_expecting_failure(&["router", "--listen", url]);
        assert_eq!(code, 2, "{url}: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(stderr.contains(url) && stderr.contains(why), "{stderr}");
    }
    let (code, stderr) = run_expecting_failure(&[
        "router",
        "--listen",
        "tcp://127.0.0.1:0",
        "--peer",
        "nonsense",
    ]);
    assert_eq!(code, 2);
    assert!(stderr.contains("\"nonsense\""), "{stderr}");
}

#[test]
fn a_bad_bundling_is_a_one_line_error_with_exit_code_2() {
    let (code, stderr) = run_expecting_failure(&[
        "router",
        "--listen",
        "tcp://127.0.0.1:0",
        "--bundling",
        "soon",
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("--bundling") && stderr.contains("\"soon\""),
        "{stderr}"
    );
}

/// `--bundling MS` holds a lone update at the router for that long: it cannot arrive sooner
/// (a lower bound, which a loaded machine only makes easier to meet).
#[test]
fn a_router_bundling_delay_holds_a_lone_update_that_long() {
    const HOLD: Duration = Duration::from_millis(300);
    let router = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0", "--bundling", "300"]);
    let (a, b) = publisher_and_subscriber(&router);
    // The first update may leave early: a control frame is never held, and the router's
    // acknowledgement of the subscription (sent within 100 ms) takes queued data with it.
    exchange(&a, &b, 1, b"first");
    let sent = Instant::now();
    a.publish(&[1], TransportClass::Reliable, b"held").unwrap();
    let got = b.recv_timeout(WAIT).unwrap().expect("message arrives");
    assert_eq!(got.payload(), b"held");
    assert!(
        sent.elapsed() >= HOLD - Duration::from_millis(20),
        "arrived after {:?}, before the 300 ms bundling delay",
        sent.elapsed()
    );
    assert!(router.terminate().success());
}

/// The first bytes of a data frame that declares a 1 MiB body it never sends.
fn endless_frame_start() -> Vec<u8> {
    let mut bytes = ((1u32 << 20) - 4).to_le_bytes().to_vec();
    bytes.extend_from_slice(&[trellis_core::wire::PROTOCOL_VERSION, 3]);
    bytes
}

#[test]
fn a_thousand_connections_that_never_say_hello_hold_bounded_memory() {
    // All from loopback: the per-address budget (256) is lifted to see the input bounds.
    let router = RouterProcess::start(&[
        "--listen",
        "tcp://127.0.0.1:0",
        "--max-links-per-address",
        "2000",
    ]);
    let (a, b) = publisher_and_subscriber(&router);
    exchange(&a, &b, 1, b"before");
    let rss_before = router.rss_kb();
    // Each claims a 1 MiB frame and sends 12 KiB of it, then drips a byte now and then:
    // without a handshake deadline and input bounds a thousand of them would hold 1 GiB.
    let mut drips: Vec<TcpStream> = (0..1000)
        .map(|_| {
            let mut s = TcpStream::connect(router.address()).unwrap();
            s.write_all(&endless_frame_start()).unwrap();
            s.write_all(&[0u8; 12 << 10]).unwrap();
            s
        })
        .collect();
    exchange(&a, &b, 1, b"during the flood");
    let mut rss_peak = router.rss_kb();
    for s in &mut drips {
        let _ = s.write_all(&[0]);
    }
    rss_peak = rss_peak.max(router.rss_kb());
    // Every one is closed at the handshake deadline, each told why.
    for s in drips {
        let reply = read_until_closed(s);
        assert!(
            String::from_utf8_lossy(&reply).contains("no hello within"),
            "{}",
            String::from_utf8_lossy(&reply)
        );
    }
    exchange(&a, &b, 1, b"after");
    // The budget for input before a hello is 16 KiB a link; the drips send 12 KiB.
    let bound_kb = 1000 * 16 + 32 * 1024;
    assert!(
        rss_peak < rss_before + bound_kb,
        "router memory grew from {rss_before} kB to {rss_peak} kB"
    );
}

#[test]
fn connections_past_the_link_limit_are_refused_with_a_reason() {
    // No slot kept for routers: the two federates take both.
    let router = RouterProcess::start(&[
        "--listen",
        "tcp://127.0.0.1:0",
        "--max-links",
        "2",
        "--reserved-router-slots",
        "0",
    ]);
    let (a, b) = publisher_and_subscriber(&router);
    let third = TcpStream::connect(router.address()).unwrap();
    let reply = read_until_closed(third);
    assert!(
        String::from_utf8_lossy(&reply).contains("refused: this router serves at most 2 links"),
        "{}",
        String::from_utf8_lossy(&reply)
    );
    exchange(&a, &b, 1, b"the two it serves still work");
}

/// A federate of federation `federation` joined through the router at `at`.
fn federate_at(at: Endpoint, federation: &str, name: &str) -> trellis_net::rti::RtiAmbassador {
    use std::sync::Arc;
    use trellis_core::fom::ObjectModel;
    let model = Arc::new(
        ObjectModel::from_sources(&[("demo.xml", include_str!("../../../foms/trellis-demo.xml"))])
            .unwrap(),
    );
    let config = trellis_net::rti::RtiConfig::new(NodeConfig::child_of(name, federation, at));
    let mut rti = trellis_net::rti::RtiAmbassador::connect(config).unwrap();
    let _ = rti.create_federation_execution(&model);
    rti.join_federation_execution(name, "sim", model).unwrap();
    rti
}

#[test]
fn federates_behind_a_router_that_dies_are_resigned_when_their_lease_runs_out() {
    use trellis_core::federate::Callback;
    let top = RouterProcess::start(&[
        "--listen",
        "tcp://127.0.0.1:0",
        "--vouch-ms",
        "200",
        "--federate-lease-ms",
        "1500",
    ]);
    let parent = top.tcp().to_string();
    let mut leaf = RouterProcess::start(&[
        "--listen",
        "tcp://127.0.0.1:0",
        "--parent",
        &parent,
        "--name",
        "leaf",
        "--vouch-ms",
        "200",
    ]);
    let federation = format!("Lease{}", std::process::id());
    let mut behind = federate_at(leaf.tcp(), &federation, "behind-the-leaf");
    let mut watcher = federate_at(top.tcp(), &federation, "watcher");
    let vehicle = behind.object_class_handle("Vehicle").unwrap();
    let name = behind.attribute_handle(vehicle, "Name").unwrap();
    behind
        .publish_object_class_attributes(vehicle, &[name])
        .unwrap();
    watcher
        .subscribe_object_class_attributes(vehicle, &[name])
        .unwrap();
    let object = behind.register_object_instance(vehicle).unwrap();
    // Update until the watcher reflects the object: then it knows it.
    let deadline = Instant::now() + WAIT;
    'known: loop {
        assert!(
            Instant::now() < deadline,
            "the watcher never reflected the object"
        );
        behind
            .update_attribute_values(object, &[(name, b"here".as_slice())], b"")
            .unwrap();
        behind.evoke_callback(Duration::ZERO).unwrap();
        let reflected = watcher
            .evoke_multiple_callbacks(Duration::from_millis(20), 10)
            .unwrap()
            .into_iter()
            .any(
                |c| matches!(c, Callback::ReflectAttributeValues { object: o, .. } if o == object),
            );
        if reflected {
            break 'known;
        }
    }
    // The leaf dies without a word: nobody tells the registry about the federate behind it.
    leaf.child.kill().unwrap();
    leaf.child.wait().unwrap();
    let died = Instant::now();
    let deadline = died + WAIT;
    loop {
        assert!(
            Instant::now() < deadline,
            "the dead federate's object was never removed"
        );
        let removed = watcher
            .evoke_multiple_callbacks(Duration::from_millis(50), 10)
            .unwrap()
            .into_iter()
            .any(|c| matches!(c, Callback::RemoveObjectInstance { object: o, .. } if o == object));
        if removed {
            break;
        }
    }
    println!("removed {:?} after its router died", died.elapsed());
}

#[test]
fn a_federate_whose_registry_restarted_without_it_reclaims_its_membership() {
    use trellis_core::federate::Callback;
    let top = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0"]);
    let address = top.tcp().to_string();
    let leaf = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0", "--parent", &address]);
    let federation = format!("Restart{}", std::process::id());
    let mut federate = federate_at(leaf.tcp(), &federation, "under-the-leaf");
    // The registry's router dies and comes back on the same address, its state gone.
    drop(top);
    let _top = RouterProcess::start(&["--listen", &address]);
    // The federate rebuilds the registry's record of it (no connectionLost): once it has,
    // its name is taken again, and a newcomer asking for it is refused.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        assert!(
            Instant::now() < deadline,
            "the restarted registry never learned the federate again"
        );
        for callback in federate
            .evoke_multiple_callbacks(Duration::from_millis(100), 10)
            .unwrap()
        {
            assert!(
                !matches!(callback, Callback::ConnectionLost { .. }),
                "{callback:?}"
            );
        }
        let config = trellis_net::rti::RtiConfig::new(NodeConfig::child_of(
            "newcomer",
            federation.as_str(),
            leaf.tcp(),
        ));
        let mut newcomer = trellis_net::rti::RtiAmbassador::connect(config).unwrap();
        let model = std::sync::Arc::new(
            trellis_core::fom::ObjectModel::from_sources(&[(
                "demo.xml",
                include_str!("../../../foms/trellis-demo.xml"),
            )])
            .unwrap(),
        );
        let joined = newcomer.join_federation_execution("under-the-leaf", "sim", model);
        if matches!(
            joined,
            Err(trellis_net::rti::RtiError::FederateNameAlreadyInUse(_))
        ) {
            break;
        }
    }
    drop(leaf);
}

/// `--listen HOST:PORT` without a scheme, as the C++ designator takes it, listens on TCP;
/// OpenRTI's `rti://HOST:PORT` dials it.
#[test]
fn a_router_listens_on_a_bare_host_port_and_is_dialed_as_rti() {
    let router = RouterProcess::start(&["--listen", "127.0.0.1:0"]);
    assert!(
        matches!(router.tcp(), Endpoint::Tcp(_)),
        "{:?}",
        router.endpoints
    );
    let rti: Endpoint = format!("rti://{}", router.address()).parse().unwrap();
    let a = Node::connect(NodeConfig::child_of("a", FED, rti.clone())).unwrap();
    let b = Node::connect(NodeConfig::child_of("b", FED, rti)).unwrap();
    b.subscribe(&ids(&[1])).unwrap();
    exchange(&a, &b, 1, b"bare");
    assert!(router.terminate().success());
}

/// A normal federate's life — the C++ library's connect probe, create, join, resign,
/// destroy, leave — logs nothing above INFO at the router: warnings are for failures.
#[test]
fn a_normal_federate_life_logs_no_warning_at_the_router() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(["router", "--listen", "tcp://127.0.0.1:0"])
        .env("TRELLIS_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("trellis runs");
    let stdout = child.stdout.take().unwrap();
    let line = BufReader::new(stdout).lines().next().unwrap().unwrap();
    let at: Endpoint = line.strip_prefix("listening on ").unwrap().parse().unwrap();
    let Endpoint::Tcp(address) = at else {
        unreachable!()
    };
    drop(TcpStream::connect(address).unwrap()); // what connect() does to check a router answers
    let mut rti = federate_at(at, "QuietLife", "quiet");
    rti.resign_federation_execution(trellis_core::federate::ResignAction::NoAction)
        .unwrap();
    rti.destroy_federation_execution().unwrap();
    drop(rti);
    let mut pipe = child.stderr.take().unwrap();
    let router = RouterProcess {
        child,
        endpoints: Vec::new(),
    };
    assert!(router.terminate().success());
    let mut text = String::new();
    pipe.read_to_string(&mut text).unwrap();
    let loud: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" WARN ") || l.contains(" ERROR "))
        .collect();
    assert!(
        loud.is_empty(),
        "warnings for a normal life:\n{}",
        loud.join("\n")
    );
    assert!(text.contains("link up"), "the log was read at INFO: {text}");
}
