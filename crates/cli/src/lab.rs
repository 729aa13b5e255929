//! `trellis lab SITES.toml`: build the site lab of a file (network namespaces, site links with
//! delay, loss and bandwidth), check each link's delay, then run a benchmark or a command in
//! it, or just hold it until Ctrl-C. Whatever happens, the lab is removed on the way out.

use crate::output::outln;
use crate::UsageError;
use anyhow::{anyhow, bail, Context, Result};
use clap::Args;
use signal_hook::consts::{SIGINT, SIGTERM};
use std::io::Write;
use std::net::SocketAddrV4;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_lab::{clean, placement, probe, Lab, LabSpec, RelayStats};
use trellis_tools::results::lab::{LabLink, LabRecord};

#[derive(Args)]
pub(crate) struct LabArgs {
    /// The lab file: [[site]]s and the [[link]]s between them (see labs/).
    #[arg(required_unless_present = "clean")]
    file: Option<PathBuf>,
    /// Run `trellis bench ARGS` in the lab: a router in the file's bench.router_site, the
    /// benchmark's federates in bench.federate_site (words split at spaces). With `--out DIR`
    /// among them, DIR/lab.json records the lab and the bytes that crossed into each site.
    #[arg(long, value_name = "ARGS", conflicts_with = "exec")]
    bench: Option<String>,
    /// With --bench: run on this topology file, each router in the site the lab file's
    /// [place] names (else bench.router_site), the benchmark's federates in
    /// bench.federate_site; its 127.0.0.1 addresses become the sites' addresses.
    #[arg(long, value_name = "FILE", requires = "bench")]
    topology: Option<PathBuf>,
    /// With --bench: the benchmark's summary as JSON on stdout.
    #[arg(long, requires = "bench")]
    json: bool,
    /// Run the command given after `--` in this site (`--exec east -- ping 10.200.2.2`).
    #[arg(long, value_name = "SITE", requires = "command")]
    exec: Option<String>,
    /// The command --exec runs, after `--`.
    #[arg(last = true, value_name = "COMMAND")]
    command: Vec<String>,
    /// The port of the router --bench starts.
    #[arg(long, default_value_t = 7000)]
    router_port: u16,
    /// Do not measure each link's round trip before starting.
    #[arg(long)]
    no_verify: bool,
    /// Remove the namespaces (and their processes) of labs whose process no longer runs.
    #[arg(long, conflicts_with_all = ["file", "bench", "exec"])]
    clean: bool,
    /// With --clean: also the labs of processes that still run.
    #[arg(long, requires = "clean")]
    all: bool,
}

/// Round trips measured per link at start.
const VERIFY_ROUNDS: usize = 5;
/// How long the router --bench starts may take to listen.
const ROUTER_START: Duration = Duration::from_secs(15);
/// How often the wait for a child looks at signals.
const POLL: Duration = Duration::from_millis(20);

pub(crate) fn run(args: LabArgs) -> Result<()> {
    if args.clean {
        for namespace in clean::remove_leftovers(args.all)? {
            outln!("removed {namespace}");
        }
        return Ok(());
    }
    let Some(file) = &args.file else {
        bail!(UsageError(
            "trellis lab: give a lab file (or --clean)".into()
        ));
    };
    // Before the lab exists, so a signal at any point ends in the teardown, not mid-way.
    let interrupted = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&interrupted))
            .context("installing signal handlers")?;
    }
    let spec = LabSpec::load(file)?;
    let bench = args.bench.as_deref().map(bench_words).transpose()?;
    let exec_site = args.exec.as_deref().map(|s| spec.site(s)).transpose()?;
    let lab = Lab::build(spec)?;
    say(&describe(&lab));
    if !args.no_verify && !interrupted.load(Ordering::Relaxed) {
        verify_links(&lab);
    }
    let mut children = Vec::new();
    // Holding the lab, a signal is the ordinary end; running something, an interruption.
    let holding = bench.is_none() && exec_site.is_none();
    let outcome = match (bench, exec_site) {
        (Some(words), _) => run_bench(&lab, &words, &args, &interrupted, &mut children),
        (None, Some(site)) => run_exec(&lab, site, &args.command, &interrupted, &mut children),
        (None, None) => {
            say("lab ready; Ctrl-C or SIGTERM removes it");
            wait_signal(&interrupted);
            Ok(())
        }
    };
    let copy = topology_copy(&lab);
    let stats = lab.stop();
    if copy.exists() {
        let _ = std::fs::remove_file(copy);
    }
    for child in &mut children {
        // Teardown ended every process in the lab; reap ours.
        let _ = child.kill();
        let _ = child.wait();
    }
    match stats {
        Ok(stats) => say(&relay_summary(&stats)),
        Err(e) => say(&format!("removing the lab: {e}")),
    }
    if interrupted.load(Ordering::Relaxed) && !holding {
        bail!("interrupted; the lab was removed");
    }
    outcome
}

/// The words of --bench, refused when they name what the lab decides.
fn bench_words(args: &str) -> Result<Vec<String>> {
    let words: Vec<String> = args.split_whitespace().map(str::to_owned).collect();
    if words.is_empty() {
        bail!(UsageError(
            "--bench: name a benchmark, e.g. 'pingpong --size 64'".into()
        ));
    }
    for taken in ["--router", "--topology", "--routers-running"] {
        if words
            .iter()
            .any(|w| w == taken || w.starts_with(&format!("{taken}=")))
        {
            bail!(UsageError(format!(
                "--bench: {taken} is set by the lab (give trellis lab --topology FILE)"
            )));
        }
    }
    Ok(words)
}

fn run_exec(
    lab: &Lab,
    site: usize,
    command: &[String],
    interrupted: &AtomicBool,
    children: &mut Vec<Child>,
) -> Result<()> {
    let (program, arguments) = command
        .split_first()
        .ok_or_else(|| UsageError("--exec SITE -- COMMAND: no command".into()))?;
    children.push(spawn(lab.command(site, program).args(arguments))?);
    let status = wait_child(&mut children[0], interrupted)?;
    finished(&command.join(" "), status)
}

fn run_bench(
    lab: &Lab,
    words: &[String],
    args: &LabArgs,
    interrupted: &AtomicBool,
    children: &mut Vec<Child>,
) -> Result<()> {
    let exe = std::env::current_exe().context("finding the trellis executable")?;
    let spec = lab.spec();
    // Held until the benchmark ends; dropping it stops the forwarder.
    let mut hairpin = None;
    let router_args = if is_raw(words) && RAW_VIA_HAIRPIN.contains(&words[0].as_str()) {
        if words.iter().any(|w| w == "--relayed") {
            bail!(UsageError(
                "--bench: leave out --relayed: in the lab the raw pairs go through a forwarder in the router's site already".into()
            ));
        }
        let (forwarder, address) = Hairpin::start(lab, args.router_port)?;
        hairpin = Some(forwarder);
        vec!["--raw-via".into(), address.to_string()]
    } else {
        if is_raw(words) {
            say(&format!(
                "note: raw {} runs its sockets inside site {} (only {} --raw cross the site link, through a forwarder)",
                words[0],
                spec.sites[spec.federate_site],
                RAW_VIA_HAIRPIN.join(" and ")
            ));
        }
        match &args.topology {
            Some(file) => start_topology(lab, file, &exe, children)?,
            None => start_router(lab, &exe, args.router_port, children)?,
        }
    };
    say(&format!(
        "trellis bench {} in site {}",
        words.join(" "),
        spec.sites[spec.federate_site]
    ));
    let mut bench = lab.command(spec.federate_site, &exe);
    bench.arg("bench").args(words).args(&router_args);
    if args.json && !words.iter().any(|w| w == "--json") {
        bench.arg("--json");
    }
    let bytes_before = site_bytes(lab)?;
    children.push(spawn(&mut bench)?);
    let last = children.len() - 1;
    let status = wait_child(&mut children[last], interrupted)?;
    finished("trellis bench", status)?;
    let raw_via = hairpin.take().map(|h| h.stop());
    if let Some(out) = out_dir(words) {
        write_lab_record(lab, args, &out, &bytes_before, raw_via)?;
    }
    Ok(())
}

/// The benchmarks whose raw baseline goes through the hairpin forwarder (`--raw-via`).
const RAW_VIA_HAIRPIN: [&str; 3] = ["matrix", "pingpong", "throughput"];

/// Whether the benchmark's words ask for plain sockets (`--raw`, `--raw tcp`, `--raw=udp`).
fn is_raw(words: &[String]) -> bool {
    words
        .iter()
        .any(|w| w == "--raw" || w.starts_with("--raw="))
}

/// The raw baselines' hairpin forwarder, in the router's site where a Trellis run's router
/// would be: the baseline's bytes then cross the site link both ways, as the federates'
/// updates do through their router (see `trellis_tools::bench::hairpin`).
struct Hairpin {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<Result<(), trellis_lab::LabError>>>,
    address: SocketAddrV4,
}

impl Hairpin {
    fn start(lab: &Lab, port: u16) -> Result<(Hairpin, SocketAddrV4)> {
        let spec = lab.spec();
        let address = SocketAddrV4::new(lab.site_address(spec.router_site), port);
        let stop = Arc::new(AtomicBool::new(false));
        let serving = Arc::clone(&stop);
        let (bound_tx, bound_rx) = std::sync::mpsc::sync_channel(1);
        let thread = lab.spawn_in_site(spec.router_site, move || {
            let bound = std::net::TcpListener::bind(address);
            let listener = match bound {
                Ok(listener) => {
                    let _ = bound_tx.send(Ok(()));
                    listener
                }
                Err(e) => {
                    let _ = bound_tx.send(Err(e.to_string()));
                    return Ok(());
                }
            };
            trellis_tools::bench::hairpin::serve(listener, serving).map_err(|source| {
                trellis_lab::LabError::Io {
                    what: "the hairpin forwarder".into(),
                    source,
                }
            })
        })?;
        let forwarder = Hairpin {
            stop,
            thread: Some(thread),
            address,
        };
        match bound_rx.recv_timeout(ROUTER_START) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => bail!("the hairpin forwarder at {address}: {e}"),
            Err(_) => bail!("the hairpin forwarder at {address} did not start"),
        }
        say(&format!(
            "raw sockets through the hairpin forwarder at {address} in site {}",
            spec.sites[spec.router_site]
        ));
        Ok((forwarder, address))
    }

    /// Stop serving; its address, for the record.
    fn stop(mut self) -> String {
        self.finish();
        self.address.to_string()
    }

    fn finish(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            match thread.join() {
                Ok(Err(e)) => say(&format!("the hairpin forwarder: {e}")),
                Err(_) => say("the hairpin forwarder panicked"),
                Ok(Ok(())) => {}
            }
        }
    }
}

impl Drop for Hairpin {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The results folder the benchmark writes into, when its words name one (`--out DIR`).
fn out_dir(words: &[String]) -> Option<PathBuf> {
    words
        .iter()
        .enumerate()
        .find_map(|(i, word)| match word.strip_prefix("--out") {
            Some("") => words.get(i + 1).map(PathBuf::from),
            Some(rest) => rest.strip_prefix('=').map(PathBuf::from),
            None => None,
        })
}

/// Bytes the wan namespace has sent toward each site so far.
fn site_bytes(lab: &Lab) -> Result<Vec<u64>> {
    (0..lab.spec().sites.len())
        .map(|site| Ok(lab.bytes_toward(site)?))
        .collect()
}

/// `lab.json` beside the benchmark's results: the lab it ran in (sites, each link's delay,
/// loss and rate, where the routers ran) and the bytes that crossed the site links into each
/// site while it ran, so a report can say what network the numbers were measured on.
fn write_lab_record(
    lab: &Lab,
    args: &LabArgs,
    out: &Path,
    before: &[u64],
    raw_via: Option<String>,
) -> Result<()> {
    let spec = lab.spec();
    let after = site_bytes(lab)?;
    let site = |index: usize| spec.sites[index].clone();
    let links = spec
        .links
        .iter()
        .map(|link| LabLink {
            sites: vec![site(link.sites.0), site(link.sites.1)],
            delay_ms: ms(link.delay),
            loss_percent: link.loss * 100.0,
            bandwidth_mbit: link.bandwidth_bps.map(|bps| bps as f64 / 1e6),
        })
        .collect();
    let record = LabRecord {
        lab_file: args.file.as_ref().map(|f| f.display().to_string()),
        topology_file: args.topology.as_ref().map(|f| f.display().to_string()),
        federate_site: site(spec.federate_site),
        router_site: site(spec.router_site),
        placement: spec
            .placement
            .iter()
            .map(|(router, at)| (router.clone(), site(*at)))
            .collect(),
        links,
        site_link_bytes_in: (0..spec.sites.len())
            .map(|s| (site(s), after[s].saturating_sub(before[s])))
            .collect(),
        // The raw baseline's sockets went through a forwarder in the router site.
        raw_via,
    };
    let path = out.join("lab.json");
    let text = serde_json::to_string_pretty(&record).context("encoding lab.json")?;
    std::fs::write(&path, text + "\n").with_context(|| format!("writing {}", path.display()))
}

/// One router in the router site; the benchmark's arguments to use it.
fn start_router(
    lab: &Lab,
    exe: &Path,
    port: u16,
    children: &mut Vec<Child>,
) -> Result<Vec<String>> {
    let spec = lab.spec();
    let address = SocketAddrV4::new(lab.site_address(spec.router_site), port);
    let url = format!("tcp://{address}");
    children.push(spawn(
        lab.command(spec.router_site, exe)
            .args(["router", "--listen", &url])
            .stdout(Stdio::null()),
    )?);
    probe::wait_listening(lab, spec.router_site, address, ROUTER_START)
        .with_context(|| format!("the router at {url}"))?;
    say(&format!(
        "router {url} in site {}",
        spec.sites[spec.router_site]
    ));
    Ok(vec!["--router".into(), url])
}

/// Every router of a topology file in its site; the benchmark's arguments to use them.
fn start_topology(
    lab: &Lab,
    file: &Path,
    exe: &Path,
    children: &mut Vec<Child>,
) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(file)
        .with_context(|| format!("reading topology file {}", file.display()))?;
    let placed = placement::place(&text, file, lab)?;
    // Beside the lab's namespaces in name; removed with the lab's temporary files.
    let path = topology_copy(lab);
    std::fs::write(&path, &placed.text).with_context(|| format!("writing {}", path.display()))?;
    let path_text = path.display().to_string();
    let (ready_tx, ready_rx) = std::sync::mpsc::sync_channel(placed.routers.len().max(1));
    for router in &placed.routers {
        let mut child = spawn(
            lab.command(router.site, exe)
                .args(["router", "--topology", &path_text, "--name", &router.name])
                .stdout(Stdio::piped()),
        )?;
        let stdout = child.stdout.take().context("a router's stdout")?;
        children.push(child);
        let (ready, name) = (ready_tx.clone(), router.name.clone());
        // Reads to the end, so the router never blocks on a full pipe.
        std::thread::spawn(move || {
            let mut said_ready = false;
            for line in
                std::io::BufRead::lines(std::io::BufReader::new(stdout)).map_while(Result::ok)
            {
                // A router says it again after relinking; only its first counts.
                if line.starts_with("ready:") && !said_ready {
                    said_ready = true;
                    let _ = ready.try_send(name.clone());
                }
            }
        });
    }
    // A topology router says "ready: …" once its router links are up.
    let deadline = Instant::now() + ROUTER_START;
    for _ in &placed.routers {
        let left = deadline.saturating_duration_since(Instant::now());
        let name = ready_rx.recv_timeout(left).map_err(|_| {
            anyhow!("the topology's routers did not all link up within {ROUTER_START:?}")
        })?;
        let site = placed
            .routers
            .iter()
            .find(|r| r.name == name)
            .map_or(0, |r| r.site);
        say(&format!(
            "router {name} in site {}: linked up",
            lab.spec().sites[site]
        ));
    }
    Ok(vec![
        "--topology".into(),
        path_text,
        "--routers-running".into(),
    ])
}

/// Where --topology's rewritten file is kept while the lab runs.
fn topology_copy(lab: &Lab) -> PathBuf {
    std::env::temp_dir().join(format!("{}-topology.toml", lab.run_name()))
}

fn spawn(command: &mut Command) -> Result<Child> {
    command
        .spawn()
        .with_context(|| format!("starting {command:?}"))
}

/// Wait for `child` to exit or a signal: `None` when interrupted.
fn wait_child(child: &mut Child, interrupted: &AtomicBool) -> Result<Option<ExitStatus>> {
    loop {
        if interrupted.load(Ordering::Relaxed) {
            return Ok(None);
        }
        if let Some(status) = child.try_wait().context("waiting for a lab process")? {
            return Ok(Some(status));
        }
        std::thread::sleep(POLL);
    }
}

fn wait_signal(interrupted: &AtomicBool) {
    while !interrupted.load(Ordering::Relaxed) {
        std::thread::sleep(POLL);
    }
}

fn finished(what: &str, status: Option<ExitStatus>) -> Result<()> {
    match status {
        None => Err(anyhow!("interrupted")),
        Some(status) if status.success() => Ok(()),
        Some(status) => Err(anyhow!("`{what}` in the lab exited with {status}")),
    }
}

/// Measure each link's round trip and say how it compares with the delay asked.
fn verify_links(lab: &Lab) {
    let spec = lab.spec();
    for link in &spec.links {
        let (a, b) = link.sites;
        let asked = 2 * link.delay;
        let name = format!("{}–{}", spec.sites[a], spec.sites[b]);
        let started = Instant::now();
        match probe::round_trips(lab, a, b, VERIFY_ROUNDS).map(|t| probe::median(&t)) {
            Ok(Some(measured)) => {
                say(&format!(
                    "link {name}: round trip {:.2} ms (asked 2 × {:.2} ms; median of {VERIFY_ROUNDS} TCP exchanges)",
                    ms(measured),
                    ms(link.delay)
                ));
                if ms(measured) > ms(asked) * 1.1 + 1.0 {
                    say(&format!(
                        "warning: link {name} is more than 10 % (+1 ms) slower than asked: the machine may be too busy for the delays to hold"
                    ));
                }
            }
            Ok(None) => {}
            Err(e) => say(&format!(
                "link {name}: round trip not measured after {:.1} s (asked {:.2} ms): {e}",
                started.elapsed().as_secs_f64(),
                ms(asked)
            )),
        }
    }
}

fn describe(lab: &Lab) -> String {
    let spec = lab.spec();
    let sites: Vec<String> = (0..spec.sites.len())
        .map(|s| format!("{} {}", spec.sites[s], lab.site_address(s)))
        .collect();
    format!("lab {}: sites {}", lab.run_name(), sites.join(", "))
}

fn relay_summary(stats: &RelayStats) -> String {
    format!(
        "relay: {} packets forwarded, {} lost by the links' loss, {} dropped at the queue bound, {} unroutable; left {:.0} µs late on average, {:.0} µs at worst",
        stats.forwarded,
        stats.lost,
        stats.dropped_queue_full,
        stats.dropped_unroutable,
        stats.late_mean().as_secs_f64() * 1e6,
        stats.late_max.as_secs_f64() * 1e6
    )
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}

/// The lab's own lines go to stderr: stdout belongs to the benchmark or command it runs.
fn say(line: &str) {
    // Not eprintln!: it panics when stderr is a closed pipe.
    let _ = writeln!(std::io::stderr(), "{line}");
}
