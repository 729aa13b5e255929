//! A real Prometheus scrapes real routers: `trellis up` runs a small tree whose routers
//! serve `/metrics` on loopback, `trellis plan` writes the scrape configuration,
//! Prometheus (the Debian package) reads it, every target comes up, and a query through
//! Prometheus's HTTP API shows each router's links as the topology file has them.

mod common;

use common::{free_ports, TempDir, Up};
use serde_json::Value;
use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Generous: Prometheus starts slowly on a loaded machine.
const PROMETHEUS_WAIT: Duration = Duration::from_secs(90);
const INSTALL: &str = "apt-get install -y prometheus (scripts/test does it)";

/// The prometheus binary on PATH; the test fails (not skips) without it.
fn prometheus_binary() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("prometheus"))
        .find(|candidate| candidate.is_file())
        .unwrap_or_else(|| panic!("the prometheus binary is not installed: {INSTALL}"))
}

/// A Prometheus server we started; killed when dropped, also when the test fails.
struct Prometheus {
    child: Child,
    address: SocketAddr,
    log: PathBuf,
}

impl Prometheus {
    fn start(config: &Path, data: &Path, address: SocketAddr, log: PathBuf) -> Prometheus {
        let output = std::fs::File::create(&log).unwrap();
        let child = Command::new(prometheus_binary())
            .arg(format!("--config.file={}", config.display()))
            .arg(format!("--storage.tsdb.path={}", data.display()))
            .arg(format!("--web.listen-address={address}"))
            .stdout(output.try_clone().unwrap())
            .stderr(output)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start prometheus ({e}): {INSTALL}"));
        Prometheus {
            child,
            address,
            log,
        }
    }

    /// Poll `what` until it gives a value, within the bound; the log says why not.
    fn wait_for<T>(&mut self, description: &str, mut what: impl FnMut(&Self) -> Option<T>) -> T {
        let deadline = Instant::now() + PROMETHEUS_WAIT;
        loop {
            if let Some(value) = what(self) {
                return value;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!("prometheus exited ({status}):\n{}", self.log_text());
            }
            assert!(
                Instant::now() < deadline,
                "no {description} within {PROMETHEUS_WAIT:?}; prometheus log:\n{}",
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }

    fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The JSON `data` of a successful API answer.
    fn api(&self, path_and_query: &str) -> Option<Value> {
        let (status, body) = http_get(self.address, path_and_query)?;
        let answer: Value = serde_json::from_slice(&body).ok()?;
        (status == 200 && answer["status"] == "success").then(|| answer["data"].clone())
    }
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// GET over HTTP/1.1 on loopback: status and body (chunked bodies joined).
fn http_get(address: SocketAddr, path: &str) -> Option<(u16, Vec<u8>)> {
    let mut stream = TcpStream::connect_timeout(&address, Duration::from_secs(5)).ok()?;
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).ok()?;
    let split = answer.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&answer[..split]).to_ascii_lowercase();
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    let body = &answer[split + 4..];
    let body = if head.contains("transfer-encoding: chunked") {
        dechunk(body)?
    } else {
        body.to_vec()
    };
    Some((status, body))
}

fn dechunk(mut body: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n")?;
        let size_text = std::str::from_utf8(&body[..line_end]).ok()?;
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        if size == 0 {
            return Some(out);
        }
        let start = line_end + 2;
        out.extend_from_slice(body.get(start..start + size)?);
        body = body.get(start + size + 2..)?;
    }
}

/// hub with two children, east and west; each router serves metrics on its own port.
fn topology(base: u16, metrics: [u16; 3]) -> String {
    let router = |name: &str, port: u16, parent: Option<&str>, metrics: u16| {
        let parent = parent.map_or(String::new(), |p| format!("parent = \"{p}\"\n"));
        format!(
            "[[router]]\nname = \"{name}\"\nlisten = [\"tcp://127.0.0.1:{port}\"]\n{parent}\
             metrics = \"127.0.0.1:{metrics}\"\n\n"
        )
    };
    [
        router("hub", base, None, metrics[0]),
        router("east", base + 1, Some("hub"), metrics[1]),
        router("west", base + 2, Some("hub"), metrics[2]),
    ]
    .concat()
}

/// (process, peer, role) of every `trellis_link_up` series at 1.
fn links_up(data: &Value) -> BTreeSet<(String, String, String)> {
    let label =
        |series: &Value, name: &str| series["metric"][name].as_str().unwrap_or("").to_owned();
    data["result"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|series| series["value"][1] == "1")
        .map(|series| {
            (
                label(series, "process"),
                label(series, "peer"),
                label(series, "role"),
            )
        })
        .collect()
}

#[test]
fn prometheus_scrapes_every_router_with_the_plans_configuration() {
    let prometheus_binary = prometheus_binary(); // fail first, before starting anything
    let dir = TempDir::new("prometheus");
    let base = free_ports(3);
    let metrics_base = free_ports(3);
    let metrics = [metrics_base, metrics_base + 1, metrics_base + 2];
    let file = dir.path("tree.toml");
    std::fs::write(&file, topology(base, metrics)).unwrap();
    let mut up = Up::start(&file);
    for name in ["hub", "east", "west"] {
        up.wait_for_line(&format!("{name} metrics on http://127.0.0.1:"));
    }

    let one_host = "[[host]]\nname = \"here\"\naddress = \"localhost\"\nstart = \"local\"\n";
    std::fs::write(dir.path("hosts.toml"), one_host).unwrap();
    let plan_dir = dir.path("plan");
    let plan = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(["plan", file.to_str().unwrap(), "--hosts"])
        .arg(dir.path("hosts.toml"))
        .arg("-o")
        .arg(&plan_dir)
        .stderr(Stdio::inherit())
        .output()
        .unwrap();
    assert!(plan.status.success(), "{plan:?}");
    let config = plan_dir.join("prometheus.yml");
    assert!(config.is_file(), "trellis plan wrote no prometheus.yml");

    let port = free_ports(1);
    let address: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    assert!(prometheus_binary.is_file());
    let mut prometheus = Prometheus::start(
        &config,
        &dir.path("tsdb"),
        address,
        dir.path("prometheus.log"),
    );
    prometheus.wait_for("ready prometheus", |p| {
        http_get(p.address, "/-/ready").filter(|(status, _)| *status == 200)
    });
    let expected_targets: BTreeSet<String> =
        metrics.iter().map(|m| format!("127.0.0.1:{m}")).collect();
    let targets = prometheus.wait_for("every target up", |p| {
        let data = p.api("/api/v1/targets?state=active")?;
        let active = data["activeTargets"].as_array()?.clone();
        let up: BTreeSet<String> = active
            .iter()
            .filter(|t| t["health"] == "up" && t["labels"]["job"] == "trellis")
            .filter_map(|t| t["labels"]["instance"].as_str().map(str::to_owned))
            .collect();
        (up == expected_targets).then_some(active)
    });
    let processes: BTreeSet<&str> = targets
        .iter()
        .filter_map(|t| t["labels"]["process"].as_str())
        .collect();
    assert_eq!(processes, BTreeSet::from(["hub", "east", "west"]));

    // Each router reports its links of the file, named by their far ends, through Prometheus.
    let expected: BTreeSet<(String, String, String)> = [
        ("hub", "east", "child"),
        ("hub", "west", "child"),
        ("east", "hub", "parent"),
        ("west", "hub", "parent"),
    ]
    .iter()
    .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
    .collect();
    let seen = prometheus.wait_for("trellis_link_up of every link", |p| {
        let data = p.api("/api/v1/query?query=trellis_link_up")?;
        let seen = links_up(&data);
        (seen == expected).then_some(seen)
    });
    assert_eq!(seen, expected);
    let hub_links = prometheus.wait_for("the hub's opened links", |p| {
        let data = p.api(
            "/api/v1/query?query=trellis_router_links_opened_total%7Bprocess%3D%22hub%22%7D",
        )?;
        data["result"][0]["value"][1].as_str()?.parse::<f64>().ok()
    });
    assert!(hub_links >= 2.0, "the hub opened {hub_links} links");

    drop(prometheus);
    up.stop();
}

#[test]
fn a_metrics_port_in_use_is_a_one_line_error_with_exit_code_2() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args([
            "router",
            "--listen",
            "tcp://127.0.0.1:0",
            "--metrics",
            &address,
        ])
        .env("TRELLIS_LOG", "error")
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2), "{output:?}");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains(&format!("cannot serve metrics on {address}")),
        "{stderr}"
    );
}
