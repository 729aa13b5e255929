//! What the CLI tests share: a temporary directory, free loopback ports, `trellis bench`
//! with its JSON summary, and `trellis up` as a child process whose routers can be found
//! and killed.

#![allow(dead_code)] // each test file uses a part

pub mod router;
pub mod session;

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::fom::ObjectModel;
use trellis_core::topology::Topology;
use trellis_net::rti::{RtiAmbassador, RtiConfig};
use trellis_net::NodeConfig;

/// `trellis ARGS` as a child, its standard output read line by line on a thread until the
/// end (so the child never writes into a closed pipe).
pub fn spawn_lines(args: &[&str]) -> (Child, std::sync::mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(args)
        .env("TRELLIS_LOG", "error")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (sender, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    (child, lines)
}

/// Bound on waiting for a line of `trellis up` (generous: the machine may be loaded).
pub const UP_WAIT: Duration = Duration::from_secs(30);

pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("trellis-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// `count` consecutive free ports on loopback, checked by binding them all.
pub fn free_ports(count: u16) -> u16 {
    // Tests run in parallel: each call starts its search elsewhere.
    static CALLS: std::sync::atomic::AtomicU16 = std::sync::atomic::AtomicU16::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    for attempt in 0..200u16 {
        let base = 20_000
            + (std::process::id() as u16 % 97) * 100
            + call * 5_000 % 30_000
            + attempt * 211 % 10_000;
        let held: Vec<_> = (0..count)
            .map_while(|i| std::net::TcpListener::bind(("127.0.0.1", base + i)).ok())
            .collect();
        if held.len() == count as usize {
            return base;
        }
    }
    panic!("no {count} consecutive free ports");
}

/// `trellis up` on a topology file, its output read on a thread.
pub struct Up {
    pub child: Child,
    lines: std::sync::mpsc::Receiver<String>,
}

impl Up {
    pub fn start(file: &Path) -> Up {
        Up::start_with(file, &[])
    }

    pub fn start_with(file: &Path, options: &[&str]) -> Up {
        let mut args = vec!["up", file.to_str().unwrap()];
        args.extend_from_slice(options);
        let (child, lines) = spawn_lines(&args);
        let mut up = Up { child, lines };
        up.wait_for_line("every router link connected");
        up
    }

    /// The next line of `trellis up` that contains `text`, within the bound.
    pub fn wait_for_line(&mut self, text: &str) -> String {
        let deadline = Instant::now() + UP_WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if line.contains(text) => return line,
                Ok(_) => {}
                Err(_) => panic!("trellis up printed no line with {text:?} in time"),
            }
        }
    }

    /// SIGKILL router `name` and wait until `trellis up` reports its exit. Returns the
    /// killed pid and that line.
    pub fn kill_router(&mut self, name: &str) -> (u32, String) {
        let pid = self.router_pid(name);
        assert!(Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status()
            .unwrap()
            .success());
        (pid, self.wait_for_line(&format!("router {name} exited")))
    }

    /// The process of router `name`.
    pub fn router_pid(&self, name: &str) -> u32 {
        router_children(self.child.id())
            .into_iter()
            .find(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|cmdline| {
                    cmdline.split(|&b| b == 0).any(|arg| arg == name.as_bytes())
                })
            })
            .unwrap_or_else(|| panic!("no process for router {name}"))
    }

    /// SIGTERM, exit status 0, and no router process of ours left.
    pub fn stop(mut self) {
        let pid = self.child.id();
        let routers_before = router_children(pid);
        assert!(!routers_before.is_empty());
        assert!(Command::new("kill")
            .args(["-TERM", &pid.to_string()])
            .status()
            .unwrap()
            .success());
        let deadline = Instant::now() + UP_WAIT;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "trellis up did not stop");
            std::thread::sleep(Duration::from_millis(20));
        };
        assert!(status.success(), "{status}");
        for router in routers_before {
            assert!(
                !Path::new(&format!("/proc/{router}")).exists() || is_zombie(router),
                "router process {router} left behind"
            );
        }
    }
}

impl Drop for Up {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn router_children(parent: u32) -> Vec<u32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let fields: Vec<&str> = stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .split_whitespace()
            .collect();
        if fields.get(1).and_then(|p| p.parse::<u32>().ok()) == Some(parent) {
            out.push(pid);
        }
    }
    out
}

pub fn is_zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|r| r.trim_start().starts_with('Z'))
    })
}

pub fn demo_model() -> Arc<ObjectModel> {
    Arc::new(
        ObjectModel::from_sources(&[(
            "demo.xml",
            include_str!("../../../../foms/trellis-demo.xml"),
        )])
        .unwrap(),
    )
}

/// `trellis ARGS`, its output collected.
pub fn trellis(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(args)
        .env("TRELLIS_LOG", "error")
        .output()
        .unwrap()
}

/// Run `trellis ARGS` to its end within `bound` (killed and failed past it); (success,
/// stdout, stderr), read as it runs so a full pipe never stalls it.
pub fn trellis_within(args: &[&str], bound: Duration) -> (bool, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(args)
        .env("TRELLIS_LOG", "error")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let read = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = read(Box::new(child.stdout.take().unwrap()));
    let stderr = read(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + bound;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("trellis {args:?} did not finish within {bound:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    (
        status.success(),
        stdout.join().unwrap(),
        stderr.join().unwrap(),
    )
}

/// A JSON file of a results folder.
pub fn read_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_json::from_str(&text).unwrap()
}

/// `trellis topology gen ARGS` into `file` in `dir`, on `ports` free ports; the file and what it reads as.
pub fn gen(dir: &TempDir, file: &str, args: &[&str], ports: u16) -> (PathBuf, Topology) {
    let path = dir.path(file);
    let base = free_ports(ports).to_string();
    let mut all = vec!["topology", "gen"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--base-port", &base, "-o", path.to_str().unwrap()]);
    let out = trellis(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let topology = Topology::from_toml(&std::fs::read_to_string(&path).unwrap()).unwrap();
    (path, topology)
}

/// An ambassador for `federation` at attachment point `at` of `topology`, not joined.
pub fn connect_at(topology: &Topology, federation: &str, at: &str) -> RtiAmbassador {
    let plan = topology.plan(at).unwrap();
    RtiAmbassador::connect(RtiConfig::new(
        NodeConfig::from_plan(&plan, federation.to_owned()).unwrap(),
    ))
    .unwrap()
}

/// As [`connect_at`], the node named `node` (two processes at one attachment point).
pub fn connect_as(topology: &Topology, federation: &str, at: &str, node: &str) -> RtiAmbassador {
    let mut plan = topology.plan(at).unwrap();
    plan.name = node.to_owned();
    RtiAmbassador::connect(RtiConfig::new(
        NodeConfig::from_plan(&plan, federation.to_owned()).unwrap(),
    ))
    .unwrap()
}

/// `trellis bench ARGS --json --out OUT`: the summary it printed; asserts success.
pub fn bench(args: &[&str], out: &Path) -> serde_json::Value {
    bench_with(args, out, &[])
}

/// [`bench`] with these environment variables set.
pub fn bench_with(args: &[&str], out: &Path, env: &[(&str, &str)]) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .arg("bench")
        .args(args)
        .args(["--json", "--out", out.to_str().unwrap()])
        .env("TRELLIS_LOG", "error")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// Ask a child to stop as Ctrl-C or a service manager would (SIGTERM).
pub fn terminate(child: &mut Child) {
    // SAFETY: kill(2) on our own child's pid, which has not been waited for yet.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
}

/// The child's exit status, waited for at most `bound`.
pub fn wait_exit(child: &mut Child, bound: Duration) -> std::process::ExitStatus {
    let deadline = Instant::now() + bound;
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "a child did not exit within {bound:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Poll `done` until it holds; fail naming `what` after `bound`.
pub fn wait_until(what: &str, bound: Duration, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + bound;
    while !done() {
        assert!(Instant::now() < deadline, "not within {bound:?}: {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
