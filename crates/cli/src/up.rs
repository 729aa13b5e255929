//! `trellis up`: every router of a topology on this machine, as processes (or in one
//! process over memory pipes), until Ctrl-C or SIGTERM stops them all.

use crate::router::host_from_plan;
use crate::UsageError;
use anyhow::{bail, Context, Result};
use clap::Args;
use signal_hook::consts::{SIGINT, SIGTERM};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, ToSocketAddrs};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use trellis_core::router::RouterConfig;
use trellis_core::topology::{Pipe, Scheme, Topology};
use trellis_core::wire::NodeId;
use trellis_monitor::metrics::MetricsServer;
use trellis_net::Runtime;

/// Print a line; a reader that went away (a closed pipe) must not stop the routers.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

#[derive(Args)]
pub(crate) struct UpArgs {
    /// The topology file whose routers to start (`trellis topology gen` writes one).
    file: PathBuf,
    /// Run every router in this process, one event loop, memory pipes allowed.
    #[arg(long)]
    in_process: bool,
    /// How long routers may take to start and link up.
    #[arg(long, default_value_t = 30)]
    timeout_secs: u64,
    /// A router that exits on its own is restarted, at most this many times per minute
    /// (0: never); past that it stays down and `trellis up` says so.
    #[arg(long, default_value_t = 5)]
    max_restarts_per_minute: usize,
    /// Give each router without a `metrics` address one on the host it listens on, ports
    /// counted up from this one (skipping ports the file takes there), so `trellis monitor`
    /// and Prometheus can read it; routers with one keep theirs.
    #[arg(long, value_name = "PORT")]
    metrics_from: Option<u16>,
}

fn routers(topology: &Topology) -> Vec<String> {
    topology.routers().map(|r| r.name.clone()).collect()
}

pub(crate) fn run(args: UpArgs) -> Result<()> {
    let mut topology = crate::topology::load(&args.file)?;
    let mut chosen = BTreeMap::new();
    if let Some(from) = args.metrics_from {
        (topology, chosen) = with_metrics(&topology, from)?;
        say_chosen(&args.file, &chosen);
    }
    let names = routers(&topology);
    if names.is_empty() {
        say!(
            "{}: no routers to start; its federates link to each other directly",
            args.file.display()
        );
        return Ok(());
    }
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    let timeout = Duration::from_secs(args.timeout_secs);
    if args.in_process {
        let (runtime, metrics) = in_process(&topology, &names, timeout)?;
        if let Some(signal) = signals.forever().next() {
            say!("signal {signal}: stopping {} routers", names.len());
        }
        drop(metrics);
        runtime.shutdown();
        return Ok(());
    }
    if topology
        .links()
        .iter()
        .any(|l| l.options.pipe == Pipe::Memory)
    {
        return Err(UsageError(
            "memory pipes join routers of one process: use --in-process".into(),
        )
        .into());
    }
    let mut children = Vec::new();
    let (lines, incoming) = std::sync::mpsc::channel();
    let launcher = Launcher {
        exe: std::env::current_exe().context("cannot find the trellis executable")?,
        file: args.file.clone(),
        metrics: chosen,
        lines,
    };
    let result = start_processes(&launcher, &names, timeout, &mut children, &incoming);
    if result.is_ok() {
        // Each router process serves its own, read from the same file.
        say_metrics(&topology);
        let mut supervisor = Supervisor::new(args.max_restarts_per_minute);
        let signal = supervisor.watch(&launcher, &mut children, &incoming, &mut signals);
        say!("signal {signal}: stopping {} routers", names.len());
    }
    stop_all(&mut children);
    result
}

/// Starts `trellis router --topology FILE --name NAME` processes whose output lines reach
/// one channel, tagged with the router's name.
struct Launcher {
    exe: PathBuf,
    file: PathBuf,
    /// Metrics addresses `up` chose (--metrics-from), passed as `--metrics`.
    metrics: BTreeMap<String, SocketAddr>,
    lines: std::sync::mpsc::Sender<(String, String)>,
}

impl Launcher {
    fn spawn(&self, name: &str) -> Result<Child> {
        let mut command = Command::new(&self.exe);
        command
            .args(["router", "--topology"])
            .arg(&self.file)
            .args(["--name", name])
            .stdout(Stdio::piped());
        if let Some(address) = self.metrics.get(name) {
            command.arg("--metrics").arg(address.to_string());
        }
        #[allow(unsafe_code)] // std has no parent-death signal
        // SAFETY: prctl is async-signal-safe and touches only the child being set up. If
        // `trellis up` dies without stopping its routers, the kernel stops them.
        unsafe {
            command.pre_exec(|| {
                if libc::prctl(libc::PR_SET_PDEATHSIG, SIGTERM) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = command
            .spawn()
            .with_context(|| format!("cannot start router {name}"))?;
        let stdout = child.stdout.take().expect("stdout is piped");
        let (lines, name) = (self.lines.clone(), name.to_owned());
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if lines.send((name.clone(), line)).is_err() {
                    break;
                }
            }
        });
        Ok(child)
    }
}

/// Keeps the routers running after start-up: one that exits unexpectedly is restarted
/// under the same name with the same topology file (its neighbours redial it), within a
/// bound on restarts per router per minute, so a router that cannot stay up does not spin.
struct Supervisor {
    max_per_minute: usize,
    /// Restart times per router, the last minute's only.
    restarts: std::collections::HashMap<String, Vec<Instant>>,
    /// Routers left down after too many restarts.
    given_up: std::collections::HashSet<String>,
}

impl Supervisor {
    fn new(max_per_minute: usize) -> Supervisor {
        Supervisor {
            max_per_minute,
            restarts: Default::default(),
            given_up: Default::default(),
        }
    }

    /// Watch until a signal asks us to stop; returns it.
    fn watch(
        &mut self,
        launcher: &Launcher,
        children: &mut [(String, Child)],
        incoming: &std::sync::mpsc::Receiver<(String, String)>,
        signals: &mut signal_hook::iterator::Signals,
    ) -> i32 {
        loop {
            if let Some(signal) = signals.pending().next() {
                return signal;
            }
            for (name, child) in children.iter_mut() {
                if self.given_up.contains(name.as_str()) {
                    continue;
                }
                if let Ok(Some(status)) = child.try_wait() {
                    self.exited(launcher, name, child, status);
                }
            }
            // Output of restarted routers; its arrival is also our tick.
            match incoming.recv_timeout(Duration::from_millis(100)) {
                Ok((name, line)) if line.starts_with("listening on ") => say!("{name} {line}"),
                Ok((name, line)) if line.starts_with("ready:") => {
                    say!("router {name} is back: {}", &line["ready: ".len()..])
                }
                Ok(_) | Err(_) => {}
            }
        }
    }

    fn exited(
        &mut self,
        launcher: &Launcher,
        name: &str,
        child: &mut Child,
        status: std::process::ExitStatus,
    ) {
        let now = Instant::now();
        let recent = self.restarts.entry(name.to_owned()).or_default();
        recent.retain(|&at| now.duration_since(at) < Duration::from_secs(60));
        if recent.len() >= self.max_per_minute {
            say!(
                "router {name} exited ({status}); not restarting it: {} restarts in the last \
                 minute is the limit (--max-restarts-per-minute)",
                recent.len()
            );
            self.given_up.insert(name.to_owned());
            return;
        }
        recent.push(now);
        match launcher.spawn(name) {
            Ok(fresh) => {
                say!(
                    "router {name} exited ({status}); restarted it (restart {} of at most {} \
                     a minute)",
                    recent.len(),
                    self.max_per_minute
                );
                *child = fresh;
            }
            Err(e) => say!("router {name} exited ({status}); restarting it failed: {e:#}"),
        }
    }
}

/// `topology` with a metrics address for each router that has none: on the IP of its first
/// network listen address (a name resolved here; none: loopback), the first port from
/// `from` that nothing of the file takes on that IP. Also the addresses chosen, by router.
fn with_metrics(
    topology: &Topology,
    from: u16,
) -> Result<(Topology, BTreeMap<String, SocketAddr>)> {
    let mut file = topology.to_file();
    let mut taken = taken_sockets(topology);
    let mut chosen = BTreeMap::new();
    for router in file.routers.iter_mut().filter(|r| r.metrics.is_none()) {
        let ip = listen_ip(topology, &router.name)?;
        let free = (from..=u16::MAX)
            .map(|port| SocketAddr::new(ip, port))
            .find(|candidate| !taken.iter().any(|t| overlap(*t, *candidate)))
            .ok_or_else(|| {
                UsageError(format!(
                    "--metrics-from {from}: no free port left on {ip} for router {}",
                    router.name
                ))
            })?;
        taken.push(free);
        router.metrics = Some(free.to_string());
        chosen.insert(router.name.clone(), free);
    }
    // The file's own check has the last word (a port it thinks taken, a bad address).
    let topology = Topology::from_file(&file)
        .map_err(|e| UsageError(format!("--metrics-from {from}: {e}")))?;
    Ok((topology, chosen))
}

/// Every socket the file binds as written: metrics and network listen addresses.
fn taken_sockets(topology: &Topology) -> Vec<SocketAddr> {
    let listen = (topology.nodes().iter())
        .flat_map(|node| &node.listen)
        .filter(|address| address.scheme() != Scheme::Memory)
        .filter_map(|address| address.binds().1.parse().ok());
    let metrics = topology.nodes().iter().filter_map(|node| node.metrics);
    listen.chain(metrics).collect()
}

/// Two sockets collide on one port when their IPs are equal or either is a wildcard.
fn overlap(a: SocketAddr, b: SocketAddr) -> bool {
    a.port() == b.port() && (a.ip() == b.ip() || a.ip().is_unspecified() || b.ip().is_unspecified())
}

/// The IP router `name` listens on: its first network listen address's host, a name
/// resolved; loopback for a router on memory pipes only.
fn listen_ip(topology: &Topology, name: &str) -> Result<IpAddr> {
    let node = topology.node(name).context("a router of the topology")?;
    let Some(address) = (node.listen.iter()).find(|a| a.scheme() != Scheme::Memory) else {
        return Ok(IpAddr::V4(Ipv4Addr::LOCALHOST));
    };
    let location = address.binds().1;
    let resolved = location
        .to_socket_addrs()
        .with_context(|| format!("router {name}: cannot resolve {address}"))?
        .next()
        .with_context(|| format!("router {name}: {address} resolves to no address"))?;
    Ok(resolved.ip())
}

/// What --metrics-from chose, and how `trellis monitor` finds it (the file lacks it).
fn say_chosen(file: &std::path::Path, chosen: &BTreeMap<String, SocketAddr>) {
    if chosen.is_empty() {
        say!("--metrics-from: every router has a metrics address already; none chosen");
        return;
    }
    let scrapes: Vec<String> = (chosen.iter())
        .map(|(name, address)| format!("--scrape {name}={address}"))
        .collect();
    say!(
        "--metrics-from chose metrics addresses for {} routers; to watch them: trellis monitor {} {}",
        chosen.len(),
        file.display(),
        scrapes.join(" ")
    );
}

/// Where each router with a `metrics` address serves its figures.
fn say_metrics(topology: &Topology) {
    for router in topology.routers() {
        if let Some(address) = router.metrics {
            say!("{} metrics on http://{address}/metrics", router.name);
        }
    }
}

/// Every router in one event loop; each with a `metrics` address gets its own server.
fn in_process(
    topology: &Topology,
    names: &[String],
    timeout: Duration,
) -> Result<(Runtime, Vec<MetricsServer>)> {
    let runtime = Runtime::start("up")?;
    let config = |name: &str| {
        let plan = topology
            .plan(name)
            .expect("a router of the topology has a plan");
        host_from_plan(&plan, false)
            .map(|host| host.router)
            .unwrap_or_else(|_| RouterConfig::new(name, NodeId(0)))
    };
    let hosts = trellis_net::plan::start_routers(&runtime, topology, config, timeout)?;
    for (name, host) in names.iter().zip(&hosts) {
        for endpoint in host.listening() {
            say!("{name} listening on {endpoint}");
        }
    }
    say!(
        "{} routers up, every router link connected (one process)",
        names.len()
    );
    let mut servers = Vec::new();
    for (router, host) in topology.routers().zip(&hosts) {
        if let Some(address) = router.metrics {
            let server =
                trellis_monitor::metrics::serve_router(address, &router.name, host.clone())
                    .map_err(|e| UsageError(format!("router {}: {e}", router.name)))?;
            servers.push(server);
        }
    }
    say_metrics(topology);
    Ok((runtime, servers))
}

/// Start one `trellis router` per router and wait until each says its links are up.
fn start_processes(
    launcher: &Launcher,
    names: &[String],
    timeout: Duration,
    children: &mut Vec<(String, Child)>,
    incoming: &std::sync::mpsc::Receiver<(String, String)>,
) -> Result<()> {
    for name in names {
        children.push((name.clone(), launcher.spawn(name)?));
    }
    let deadline = Instant::now() + timeout;
    let mut ready = 0;
    while ready < names.len() {
        for (name, child) in children.iter_mut() {
            if let Some(status) = child.try_wait()? {
                bail!("router {name} stopped during start-up ({status}); see its error above");
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            bail!(
                "{} of {} routers linked up within {timeout:?}",
                ready,
                names.len()
            );
        }
        match incoming.recv_timeout(left.min(Duration::from_millis(200))) {
            Ok((name, line)) if line.starts_with("listening on ") => say!("{name} {line}"),
            Ok((_, line)) if line.starts_with("ready:") => ready += 1,
            Ok(_) | Err(_) => {}
        }
    }
    say!("{} routers up, every router link connected", names.len());
    Ok(())
}

/// SIGTERM every router, wait for each within a bound, kill what is left.
fn stop_all(children: &mut [(String, Child)]) {
    for (_, child) in children.iter_mut() {
        // A reaped child's pid may belong to someone else by now.
        if !matches!(child.try_wait(), Ok(None)) {
            continue;
        }
        #[allow(unsafe_code)] // std signals a child only with SIGKILL
        // SAFETY: kill(2) on the pid of a child we started and have not reaped.
        unsafe {
            libc::kill(child.id() as libc::pid_t, SIGTERM);
        }
    }
    let deadline = Instant::now() + Duration::from_secs(5);
    for (name, child) in children.iter_mut() {
        loop {
            match child.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) if Instant::now() >= deadline => {
                    eprintln!("router {name} did not stop in time; killing it");
                    let _ = child.kill();
                    let _ = child.wait();
                    break;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            }
        }
    }
}
