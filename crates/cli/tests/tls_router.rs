//! The real `trellis router` binary with TLS: federates exchange updates over tls://, a
//! real `openssl s_client` completes a handshake with it (and is refused without a client
//! certificate when --mtls is on), and bad TLS settings are one-line usage errors.
//!
//! The certificates are made with the `openssl` command; without it these tests say so
//! and pass without running.

mod common;

use common::router::RouterProcess;
use roaring::RoaringBitmap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use trellis_core::wire::TransportClass;
use trellis_net::{Endpoint, Node, NodeConfig, TlsConfig};

const WAIT: Duration = Duration::from_secs(10);
const FED: &str = "TlsProcessTest";

/// The next message within the bound. `recv_timeout` may return early with none (a
/// wake-up for a link notice), so it is asked again until the deadline.
fn next_message(node: &Node) -> trellis_net::Message {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        assert!(!left.is_zero(), "no message arrived");
        if let Some(message) = node.recv_timeout(left).unwrap() {
            return message;
        }
    }
}

fn have_openssl() -> bool {
    let found = Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("SKIPPED: `openssl` is not installed; these tests need it to make certificates and to act as a TLS client");
    }
    found
}

fn openssl(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = Command::new("openssl")
        .current_dir(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("openssl runs");
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A CA, a router certificate for 127.0.0.1 and a federate certificate, made by openssl in
/// a directory of the test's own.
struct Pki {
    dir: PathBuf,
}

impl Pki {
    fn new(tag: &str) -> Pki {
        let dir =
            std::env::temp_dir().join(format!("trellis-cli-tls-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let ec = [
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
        ];
        let mut ca = vec!["req", "-x509"];
        ca.extend(ec);
        ca.extend([
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=Trellis test CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ]);
        openssl(&dir, &ca);
        let pki = Pki { dir };
        pki.issue("router", "trellis-router");
        pki.issue("federate", "trellis-federate");
        pki
    }

    fn issue(&self, name: &str, unit: &str) {
        let (key, csr, pem) = (
            format!("{name}.key"),
            format!("{name}.csr"),
            format!("{name}.pem"),
        );
        let subject = format!("/OU={unit}/CN={name}");
        let mut req = vec!["req"];
        req.extend([
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:P-256",
            "-nodes",
        ]);
        req.extend(["-keyout", &key, "-out", &csr, "-subj", &subject]);
        openssl(&self.dir, &req);
        std::fs::write(
            self.dir.join("ext.cnf"),
            "subjectAltName=IP:127.0.0.1,DNS:localhost\n",
        )
        .unwrap();
        openssl(
            &self.dir,
            &[
                "x509",
                "-req",
                "-in",
                &csr,
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca.key",
                "-CAcreateserial",
                "-out",
                &pem,
                "-days",
                "2",
                "-extfile",
                "ext.cnf",
            ],
        );
    }

    fn path(&self, file: &str) -> String {
        self.dir.join(file).display().to_string()
    }
}

impl Drop for Pki {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `trellis router ARGS`, its stdout's lines read on a thread; killed when dropped.
struct Process {
    child: Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Process {
    fn start(args: &[&str]) -> Process {
        let mut child = common::router::spawn(args);
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Process { child, lines }
    }

    /// Wait for a line starting with `prefix`, within the bound.
    fn line(&self, prefix: &str) -> String {
        let deadline = std::time::Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.starts_with(prefix) => return line,
                Ok(_) => {}
                Err(e) => panic!("no line {prefix:?}: {e}"),
            }
        }
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A router process listening on tls://, killed when dropped.
struct Router {
    _process: RouterProcess,
    at: Endpoint,
}

impl Router {
    fn start(pki: &Pki, extra: &[&str]) -> Router {
        let (cert, key, ca) = (
            pki.path("router.pem"),
            pki.path("router.key"),
            pki.path("ca.pem"),
        );
        let mut args = vec!["--listen", "tls://127.0.0.1:0"];
        args.extend(["--tls-cert", &cert, "--tls-key", &key, "--tls-ca", &ca]);
        args.extend(extra);
        let process = RouterProcess::start(&args);
        let at = process.endpoint();
        assert!(matches!(at, Endpoint::Tls { .. }), "{at}");
        Router {
            _process: process,
            at,
        }
    }

    fn port(&self) -> u16 {
        self.at.stream_addr().unwrap().port()
    }

    /// A real `openssl s_client` handshake; returns everything it printed.
    fn s_client(&self, pki: &Pki, extra: &[&str]) -> String {
        let connect = format!("127.0.0.1:{}", self.port());
        let ca = pki.path("ca.pem");
        // -ign_eof: read on after stdin ends until the router closes, so that a refusal
        // sent after the client's Finished (TLS 1.3 client certificates) is seen.
        let out = Command::new("timeout")
            .args([
                "10", "openssl", "s_client", "-connect", &connect, "-CAfile", &ca,
            ])
            .args(["-verify_return_error", "-ign_eof"])
            .args(extra)
            .stdin(Stdio::null())
            .output()
            .expect("openssl runs");
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        text
    }
}

#[test]
fn federates_exchange_updates_through_a_tls_router_process() {
    if !have_openssl() {
        return;
    }
    let pki = Pki::new("flow");
    let router = Router::start(&pki, &[]);
    let tls = TlsConfig::trusting(pki.path("ca.pem"));
    let node = |name: &str| {
        let mut config = NodeConfig::child_of(name, FED, router.at.clone());
        config.tls = Some(tls.clone());
        Node::connect(config).unwrap()
    };
    let (publisher, subscriber) = (node("pub"), node("sub"));
    let id: RoaringBitmap = [5u32].into_iter().collect();
    subscriber.subscribe(&id).unwrap();
    publisher.wait_for_network_interest(&id, WAIT).unwrap();
    for i in 0..200u32 {
        publisher
            .publish(&[5], TransportClass::Reliable, &i.to_le_bytes())
            .unwrap();
    }
    for i in 0..200u32 {
        assert_eq!(next_message(&subscriber).payload(), i.to_le_bytes());
    }
}

#[test]
fn openssl_s_client_completes_a_handshake_with_the_router() {
    if !have_openssl() {
        return;
    }
    let pki = Pki::new("sclient");
    let router = Router::start(&pki, &[]);
    let out = router.s_client(&pki, &[]);
    assert!(out.contains("Verify return code: 0 (ok)"), "{out}");
    assert!(out.contains("CN = router"), "{out}");
}

#[test]
fn with_mtls_openssl_s_client_needs_a_client_certificate() {
    if !have_openssl() {
        return;
    }
    let pki = Pki::new("mtls");
    let router = Router::start(&pki, &["--mtls"]);
    let refused = router.s_client(&pki, &[]);
    assert!(
        refused.contains("alert certificate required"),
        "refused without a certificate: {refused}"
    );
    let (cert, key) = (pki.path("federate.pem"), pki.path("federate.key"));
    let accepted = router.s_client(&pki, &["-cert", &cert, "-key", &key]);
    assert!(
        accepted.contains("Verify return code: 0 (ok)"),
        "{accepted}"
    );
    assert!(!accepted.contains("alert"), "{accepted}");
}

#[test]
fn bad_tls_settings_are_usage_errors() {
    if !have_openssl() {
        return;
    }
    let pki = Pki::new("usage");
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_trellis"))
            .arg("router")
            .args(args)
            .env("TRELLIS_LOG", "error")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, err) = run(&["--listen", "tls://127.0.0.1:0"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("needs a TLS configuration"), "{err}");
    let ca = pki.path("ca.pem");
    let (code, err) = run(&["--listen", "tls://127.0.0.1:0", "--tls-ca", &ca]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("needs a certificate and key"), "{err}");
    let missing = pki.path("missing.pem");
    let key = pki.path("router.key");
    let (code, err) = run(&[
        "--listen",
        "tls://127.0.0.1:0",
        "--tls-ca",
        &ca,
        "--tls-cert",
        &missing,
        "--tls-key",
        &key,
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains(&format!("certificate {missing}")), "{err}");
    let (code, err) = run(&["--listen", "tls://127.0.0.1:0", "--tls-cert", &missing]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("--tls-key"), "{err}");
}

/// A topology whose hub listens on tls:// with mutual TLS: its child router dials it there
/// with the certificate the file names, and federates on both ends exchange updates.
#[test]
fn a_topology_file_carries_tls_to_its_routers() {
    if !have_openssl() {
        return;
    }
    let pki = Pki::new("topology");
    pki.issue("edge", "trellis-router");
    let port = |socket: std::net::TcpListener| socket.local_addr().unwrap().port();
    let free = || port(std::net::TcpListener::bind("127.0.0.1:0").unwrap());
    let (hub_port, edge_port) = (free(), free());
    let (ca, dir) = (pki.path("ca.pem"), pki.dir.display().to_string());
    let file = pki.dir.join("topology.toml");
    std::fs::write(
        &file,
        format!(
            r#"
[[router]]
name = "hub"
listen = ["tls://127.0.0.1:{hub_port}"]
tls_cert = "{dir}/router.pem"
tls_key = "{dir}/router.key"
tls_ca = "{ca}"
mtls = true

[[router]]
name = "edge"
parent = "hub"
listen = ["tcp://127.0.0.1:{edge_port}"]
tls_cert = "{dir}/edge.pem"
tls_key = "{dir}/edge.key"
tls_ca = "{ca}"
"#
        ),
    )
    .unwrap();
    let file = file.display().to_string();
    let hub = Process::start(&["--topology", &file, "--name", "hub"]);
    let edge = Process::start(&["--topology", &file, "--name", "edge"]);
    assert_eq!(
        hub.line("listening on"),
        format!("listening on tls://127.0.0.1:{hub_port}")
    );
    hub.line("ready: 1 router links up");
    edge.line("ready: 1 router links up");

    let mut at_hub = NodeConfig::child_of(
        "sub",
        FED,
        format!("tls://127.0.0.1:{hub_port}").parse().unwrap(),
    );
    at_hub.tls = Some(TlsConfig::with_identity(
        pki.path("federate.pem"),
        pki.path("federate.key"),
        &ca,
    ));
    let subscriber = Node::connect(at_hub).unwrap();
    let at_edge = NodeConfig::child_of(
        "pub",
        FED,
        format!("tcp://127.0.0.1:{edge_port}").parse().unwrap(),
    );
    let publisher = Node::connect(at_edge).unwrap();
    let id: RoaringBitmap = [9u32].into_iter().collect();
    subscriber.subscribe(&id).unwrap();
    publisher.wait_for_network_interest(&id, WAIT).unwrap();
    publisher
        .publish(&[9], TransportClass::Reliable, b"across tls")
        .unwrap();
    assert_eq!(next_message(&subscriber).payload(), b"across tls");
}
