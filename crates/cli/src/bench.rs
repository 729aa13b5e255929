//! `trellis bench`: the characterisation benchmarks. Each writes a results folder and
//! prints its summary for people or, with --json, as JSON.

use crate::output::{out, outln};
use crate::UsageError;
use anyhow::Result;
use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;
use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::PathBuf;
use std::time::Duration;
use trellis_net::Endpoint;
use trellis_tools::bench::results::{Meta, Results};
use trellis_tools::bench::{agents, chaos, clutter, matrix, oneway, testfed, timestep};
use trellis_tools::bench::{
    latency, pingpong, symmetric, throughput, Api, Bundling, Mode, Raw, Setup, Transport,
};

#[derive(Subcommand)]
pub(crate) enum BenchCommand {
    /// rtiperf: N master/slave pairs, message sizes swept; per size the mean over pairs
    /// after discarding the two largest pair means.
    Pingpong(PingpongArgs),
    /// BmThruput: one sender, N receivers (swept); each receiver's rate and losses.
    Throughput(ThroughputArgs),
    /// Every federate sends and receives (swept over federate counts).
    Symmetric(SymmetricArgs),
    /// BmLatency: one sender, N receivers, only the targeted one answers; half the round trip.
    Latency(LatencyArgs),
    /// JADS one-way: size × rate matrix, serial numbers and send times; per case a data file
    /// (latency or MISSING per serial) and min / max / mean latency.
    Oneway(OnewayArgs),
    /// 3CE EC1: entities × rate × payload × delivery × 1-1/1-N/N-1/N-N; throughput against
    /// theoretical, reliability, latency and jitter.
    Matrix(MatrixArgs),
    /// JADS testfed: load federates with their own attribute counts, rates, sizes,
    /// interactions and ramp-up, each counting what it hears from the others.
    Testfed(TestfedArgs),
    /// HLA time management: N regulating and constrained federates step in lock-step
    /// (update, timeAdvanceRequest(t+1), grant); grants per second per federate and
    /// time-management messages per grant, on one router and on a four-router mesh.
    Timestep(TimestepArgs),
    /// Routers killed (kill -9) and restarted under `trellis up` while federates exchange
    /// reliable and best-effort updates: per fault detection and recovery time, delivered,
    /// duplicated (must be 0), reported lost, unreported (must be 0), memberships kept.
    Chaos(ChaosArgs),
    /// Clutter (JSAF / JESPP): simulators own N entities moving on a map and update them
    /// at R Hz, subscribing by region to their area and its border; viewers watch windows.
    /// Achieved rate, exact and complete delivery against interest, latency, CPU and
    /// memory of every process, join times, router forwards.
    Clutter(ClutterArgs),
    /// One worker process of `trellis bench clutter` (its plan and commands on stdin).
    #[command(hide = true)]
    ClutterWorker,
    /// One agent process of `trellis bench ... --agents` or `--hosts` (its commands on a
    /// TCP connection to the coordinator).
    #[command(hide = true)]
    Agent(AgentArgs),
}

#[derive(Args)]
pub(crate) struct AgentArgs {
    /// The coordinator's control address.
    #[arg(long, value_name = "IP:PORT")]
    coordinator: std::net::SocketAddr,
    /// This agent's name, as the coordinator started it.
    #[arg(long)]
    name: String,
}

#[derive(Clone, Copy, ValueEnum)]
enum AgentsArg {
    /// One agent process per federate on this machine.
    Local,
    /// One Slurm job step (srun) per federate, inside the allocation this runs in; on this
    /// node for now.
    Slurm,
}

/// Where a benchmark's federates run when not in this process.
#[derive(Args)]
struct AgentOpts {
    /// Run every federate as a process of its own (`local`: on this machine; `slurm`: job
    /// steps), started and measured by this one; the clock method goes in the results.
    #[arg(long, value_enum)]
    agents: Option<AgentsArg>,
    /// Place the agents on the hosts of this file (TOML: [[host]] name, address, start =
    /// "local" | "ssh", user, port, identity, known_hosts, program, federates; control);
    /// implies agents.
    #[arg(long, value_name = "FILE")]
    hosts: Option<PathBuf>,
    /// The address agents connect back to, IP or IP:PORT (default 127.0.0.1, or the hosts
    /// file's `control`).
    #[arg(long, value_name = "ADDR")]
    control: Option<String>,
}

#[derive(Clone, Copy, ValueEnum)]
enum TransportArg {
    Reliable,
    BestEffort,
}

#[derive(Clone, Copy, ValueEnum)]
enum ApiArg {
    Federate,
    Node,
}

#[derive(Clone, Copy, ValueEnum)]
enum DriverArg {
    Direct,
    Thread,
}

#[derive(Clone, Copy, ValueEnum)]
enum RawArg {
    Tcp,
    Udp,
}

#[derive(Args)]
struct Common {
    /// Use this running router instead of starting one on loopback.
    #[arg(long, value_name = "URL", conflicts_with = "topology")]
    router: Option<String>,
    /// Run on this topology: its routers start in this process (unless --routers-running)
    /// and federates sit at its named attachment points.
    #[arg(long, value_name = "FILE")]
    topology: Option<PathBuf>,
    /// The topology's routers already run (`trellis up`).
    #[arg(long, requires = "topology")]
    routers_running: bool,
    #[arg(long, value_enum, default_value = "reliable")]
    transport: TransportArg,
    /// off, adaptive (the default: batches form under load, an idle link writes at once), or
    /// a fixed delay in milliseconds.
    #[arg(long, default_value = "adaptive")]
    bundling: String,
    /// HLA federate services (attribute updates) or the node API (tagged payloads).
    #[arg(long, value_enum, default_value = "federate")]
    api: ApiArg,
    /// Microseconds each event loop polls before it sleeps, while its recent waits were
    /// that short (0: sleep at once).
    #[arg(long, default_value_t = trellis_net::DEFAULT_SPIN.as_micros() as u64)]
    spin_us: u64,
    /// Microseconds a federate or node driven on its caller's thread holds a publish that
    /// follows its last write, to bundle a burst into one write (0: write each at once).
    #[arg(long, default_value_t = trellis_net::DEFAULT_BUNDLE_HOLD.as_micros() as u64)]
    bundle_us: u64,
    /// The results folder (default results/<benchmark>-<time>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the run's summary as JSON on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub(crate) struct PingpongArgs {
    #[command(flatten)]
    common: Common,
    /// The same workload over plain sockets (tcp when no value is given), no Trellis.
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "tcp")]
    raw: Option<RawArg>,
    #[arg(long, default_value_t = 1)]
    pairs: usize,
    /// Place a pair at these attachment points (repeat for more pairs; overrides --pairs):
    /// compare topologies with the same pairs.
    #[arg(long = "pair", value_name = "MASTER:SLAVE")]
    pair: Vec<String>,
    /// Message sizes in bytes, comma separated (default 64 B to 64 KiB).
    #[arg(long, value_delimiter = ',', conflicts_with = "size")]
    sizes: Vec<usize>,
    /// One message size (same as --sizes with one value).
    #[arg(long)]
    size: Option<usize>,
    /// Measured exchanges per size per pair.
    #[arg(long, default_value_t = 50, conflicts_with = "count")]
    exchanges: usize,
    /// Round trips to measure (same as --exchanges).
    #[arg(long)]
    count: Option<usize>,
    #[command(flatten)]
    agents: AgentOpts,
}

#[derive(Args)]
pub(crate) struct ThroughputArgs {
    #[command(flatten)]
    common: Common,
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "tcp")]
    raw: Option<RawArg>,
    #[arg(long, default_value_t = 64)]
    size: usize,
    /// Seconds of sending per case.
    #[arg(long, default_value_t = 5.0)]
    seconds: f64,
    /// Receiver counts, comma separated (default 1,3,6,9,12,15).
    #[arg(long, value_delimiter = ',')]
    subscribers: Vec<usize>,
    /// How federates' nodes run (--api federate): on a thread of their own, or inside the
    /// federate's service calls and callbacks (see --bundle-us).
    #[arg(long, value_enum, default_value_t = DriverArg::Thread)]
    driver: DriverArg,
    #[command(flatten)]
    agents: AgentOpts,
}

#[derive(Args)]
pub(crate) struct SymmetricArgs {
    #[command(flatten)]
    common: Common,
    #[arg(long, default_value_t = 64)]
    size: usize,
    #[arg(long, default_value_t = 3.0)]
    seconds: f64,
    /// Federate counts, comma separated (default 2,4,6).
    #[arg(long, value_delimiter = ',')]
    federates: Vec<usize>,
    #[command(flatten)]
    agents: AgentOpts,
}

#[derive(Args)]
pub(crate) struct LatencyArgs {
    #[command(flatten)]
    common: Common,
    #[arg(long, default_value_t = 64)]
    size: usize,
    /// Receiver counts, comma separated (default 1,3,6,9,12,15).
    #[arg(long, value_delimiter = ',')]
    receivers: Vec<usize>,
    /// Measured exchanges per case.
    #[arg(long, default_value_t = 200)]
    exchanges: usize,
    #[command(flatten)]
    agents: AgentOpts,
}

#[derive(Args)]
pub(crate) struct OnewayArgs {
    #[command(flatten)]
    common: Common,
    /// The same workload over plain sockets (tcp when no value is given), no Trellis.
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "tcp")]
    raw: Option<RawArg>,
    /// Message sizes in bytes, comma separated, each at least 17 (default
    /// 17,51,101,301,501,1001).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Send rates in Hz, comma separated (default 5,10,20,50,100,200,400,500).
    #[arg(long, value_delimiter = ',')]
    rates: Vec<f64>,
    /// Seconds of sending per case.
    #[arg(long, default_value_t = oneway::DEFAULT_SECONDS)]
    seconds: f64,
    #[command(flatten)]
    agents: AgentOpts,
}

#[derive(Args)]
pub(crate) struct MatrixArgs {
    #[command(flatten)]
    common: Common,
    /// Plain sockets instead (tcp when no value is given): a connection or socket pair per
    /// sender and receiver it serves; the socket decides delivery, so --deliveries is unused.
    #[arg(long, value_enum, num_args = 0..=1, default_missing_value = "tcp")]
    raw: Option<RawArg>,
    /// With --raw: every pair's bytes go through the hairpin forwarder at HOST:PORT
    /// (`trellis lab` starts one in the router's site and passes this), so the baseline
    /// crosses the same site link as the Trellis run.
    #[arg(long, value_name = "HOST:PORT", requires = "raw")]
    raw_via: Option<std::net::SocketAddr>,
    /// Entities per sender, comma separated (default 1,10,100).
    #[arg(long, value_delimiter = ',')]
    entities: Vec<usize>,
    /// Update rates in Hz, comma separated (default 10,20,60,120).
    #[arg(long, value_delimiter = ',')]
    rates: Vec<f64>,
    /// Payload sizes in bytes, comma separated, each at least 24 (default 128,1024,9000).
    #[arg(long, value_delimiter = ',')]
    sizes: Vec<usize>,
    /// Deliveries, comma separated (default both). The matrix sweeps these instead of
    /// using --transport.
    #[arg(long, value_enum, value_delimiter = ',')]
    deliveries: Vec<TransportArg>,
    /// Configurations, comma separated: 1-1, 1-N, N-1, N-N (default all).
    #[arg(long, value_delimiter = ',')]
    configs: Vec<matrix::Configuration>,
    /// Seconds of sending per case.
    #[arg(long, default_value_t = matrix::DEFAULT_SECONDS)]
    seconds: f64,
    /// N of 1-N, N-1 and N-N.
    #[arg(long, default_value_t = matrix::DEFAULT_N)]
    n: usize,
    /// Leave out the cells whose theoretical throughput per receiver is above this many
    /// Mbps (they are listed in the summary's left_out).
    #[arg(long, value_name = "MBPS")]
    max_theoretical_mbps: Option<f64>,
    #[command(flatten)]
    agents: AgentOpts,
}

#[derive(Args)]
pub(crate) struct TestfedArgs {
    #[command(flatten)]
    common: Common,
    /// The load federates, as TOML: `seconds`, and [[federate]] tables with name,
    /// attributes, rate_hz, size, interaction_rate_hz, ramp_seconds, ramp_rate_hz. Without
    /// it, the paper's three federates (11, 2 and 1 attributes at 20 Hz, 121 B, interactions
    /// at 1 Hz, 5 s ramp at 1 Hz).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Seconds of the whole run, ramps included (overrides the file's).
    #[arg(long)]
    seconds: Option<f64>,
    /// Serve the load federates' figures for Prometheus on http://IP:PORT/metrics while
    /// the run lasts (process name "testfed").
    #[arg(long, value_name = "IP:PORT")]
    metrics: Option<std::net::SocketAddr>,
    #[command(flatten)]
    agents: AgentOpts,
}

#[derive(Clone, Copy, ValueEnum)]
enum NetworkArg {
    /// One router on loopback.
    OneRouter,
    /// Four routers in one clique on loopback, federates spread over them.
    Mesh,
}

#[derive(Args)]
pub(crate) struct TimestepArgs {
    #[command(flatten)]
    common: Common,
    /// Federate counts, comma separated (default 2,8,32).
    #[arg(long, value_delimiter = ',')]
    federates: Vec<usize>,
    /// Seconds of stepping per case.
    #[arg(long, default_value_t = timestep::DEFAULT_SECONDS)]
    seconds: f64,
    /// Networks, comma separated (default both); unused with --router or --topology.
    #[arg(long, value_enum, value_delimiter = ',')]
    network: Vec<NetworkArg>,
}

#[derive(Clone, Copy, ValueEnum)]
enum ChaosShapeArg {
    /// A 3-level binary tree, one federate per leaf router.
    Tree,
    /// Four routers in one clique, one federate each.
    Mesh,
}

#[derive(Args)]
pub(crate) struct ChaosArgs {
    /// Generate this topology into the results folder.
    #[arg(long, value_enum, default_value = "tree", conflicts_with = "file")]
    topology: ChaosShapeArg,
    /// Run on this topology file instead.
    #[arg(long, value_name = "TOPOLOGY")]
    file: Option<PathBuf>,
    /// Minutes of faults.
    #[arg(long, conflicts_with = "seconds")]
    minutes: Option<f64>,
    /// Seconds of faults (default 60).
    #[arg(long)]
    seconds: Option<f64>,
    /// Seconds from one kill to the next, ±20 % by seed (longer when a recovery takes longer).
    #[arg(long, default_value_t = chaos::DEFAULT_FAULT_EVERY_SECONDS)]
    fault_every_seconds: f64,
    /// Updates per second per publisher, reliable and best effort each.
    #[arg(long, default_value_t = chaos::DEFAULT_RATE_HZ)]
    rate: f64,
    /// Picks the routers to kill after the first of each kind.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// At most this many federates, at the topology's first attachment points.
    #[arg(long, default_value_t = chaos::DEFAULT_FEDERATES)]
    federates: usize,
    /// The results folder (default results/chaos-<time>).
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Print the run's summary as JSON on stdout.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub(crate) struct ClutterArgs {
    #[command(flatten)]
    common: Common,
    /// Entity counts, comma separated: one case each (default 10000).
    #[arg(long, value_delimiter = ',')]
    entities: Vec<u64>,
    /// Simulator federates per case.
    #[arg(long, default_value_t = clutter::DEFAULT_SIMULATORS, conflicts_with = "entities_per_simulator")]
    simulators: u32,
    /// Simulators = entities / this in each case: fixed interest per federate as N grows.
    #[arg(long)]
    entities_per_simulator: Option<u64>,
    #[arg(long, default_value_t = clutter::DEFAULT_VIEWERS)]
    viewers: u32,
    /// Worker processes the simulators are spread over (viewers get one more).
    #[arg(long, default_value_t = clutter::DEFAULT_PROCESSES)]
    processes: usize,
    /// Updates per entity per second.
    #[arg(long, default_value_t = clutter::DEFAULT_RATE_HZ)]
    rate: f64,
    /// Seconds of sending per case.
    #[arg(long, default_value_t = clutter::DEFAULT_SECONDS)]
    seconds: f64,
    /// Simulators send the updates falling due in each frame of this many milliseconds at
    /// the frame's start, as a simulation loop does (0: each update when it falls due).
    #[arg(long, default_value_t = clutter::DEFAULT_FRAME_MS)]
    frame_ms: u32,
    /// How each federate's node runs: direct (on the federate's thread, inside its calls)
    /// or thread (a thread of its own, where writes gather while the federate works).
    #[arg(long, value_enum, default_value_t = DriverArg::Thread)]
    driver: DriverArg,
    /// Side of each simulator's square area, in map units (the map is 1000 × 1000).
    #[arg(long, default_value_t = clutter::DEFAULT_AREA_UNITS)]
    area_units: u32,
    /// How far past its area a simulator subscribes.
    #[arg(long, default_value_t = clutter::DEFAULT_MARGIN_UNITS)]
    margin_units: u32,
    /// Side of each viewer's square window.
    #[arg(long, default_value_t = clutter::DEFAULT_VIEWER_WINDOW_UNITS)]
    viewer_window_units: u32,
    /// Largest step of an entity per tick along each axis.
    #[arg(long, default_value_t = clutter::DEFAULT_MAX_STEP_UNITS)]
    max_step_units: u32,
    /// Seeds entities' positions and motion.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Place the worker processes on this hosts file's hosts (locally or over ssh), by the
    /// names worker-0, worker-1, ... (the agents' hosts file; see the README).
    #[arg(long)]
    hosts: Option<PathBuf>,
}

fn clutter_options(args: &ClutterArgs, setup: Setup) -> Result<clutter::ClutterOptions> {
    let mut options = clutter::ClutterOptions::new(setup, std::env::current_exe()?);
    if !args.entities.is_empty() {
        options.entities = args.entities.clone();
    }
    options.simulators = args.simulators;
    options.entities_per_simulator = args.entities_per_simulator;
    options.viewers = args.viewers;
    options.processes = args.processes;
    options.rate_hz = args.rate;
    options.seconds = args.seconds;
    options.frame_ms = args.frame_ms;
    options.driver = match args.driver {
        DriverArg::Direct => clutter::NodeDriver::Direct,
        DriverArg::Thread => clutter::NodeDriver::Thread,
    };
    options.area_units = args.area_units;
    options.margin_units = args.margin_units;
    options.viewer_window_units = args.viewer_window_units;
    options.max_step_units = args.max_step_units;
    options.seed = args.seed;
    options.hosts = args
        .hosts
        .as_deref()
        .map(agents::HostsFile::load)
        .transpose()?;
    options.validate().map_err(UsageError)?;
    Ok(options)
}

/// The clutter run; exits 1 when a case was not exact, or not complete when reliable.
fn run_clutter(args: &ClutterArgs) -> Result<()> {
    let setup = setup(&args.common)?;
    let options = clutter_options(args, setup.clone())?;
    let mut passed = true;
    with_results(
        "clutter",
        &args.common,
        &setup,
        Mode::Trellis,
        |r| {
            let summary = clutter::run(&options, r)?;
            passed = summary.passed;
            Ok(summary)
        },
        clutter::table,
    )?;
    if !passed {
        return Err(crate::Reported("clutter: delivery was not exact and complete").into());
    }
    Ok(())
}

fn chaos_options(args: &ChaosArgs) -> Result<chaos::ChaosOptions> {
    let seconds = args
        .minutes
        .map(|m| m * 60.0)
        .or(args.seconds)
        .unwrap_or(60.0);
    let positive = |name: &str, v: f64| {
        if v.is_finite() && v > 0.0 {
            Ok(v)
        } else {
            Err(UsageError(format!(
                "{name} must be a positive number, not {v}"
            )))
        }
    };
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        signal_hook::flag::register(signal, stop.clone())?;
    }
    Ok(chaos::ChaosOptions {
        trellis: std::env::current_exe()?,
        topology: match (&args.file, args.topology) {
            (Some(file), _) => chaos::ChaosTopology::File(file.clone()),
            (None, ChaosShapeArg::Tree) => chaos::ChaosTopology::Tree,
            (None, ChaosShapeArg::Mesh) => chaos::ChaosTopology::Mesh,
        },
        duration: Duration::from_secs_f64(positive("--minutes / --seconds", seconds)?),
        fault_every: Duration::from_secs_f64(positive(
            "--fault-every-seconds",
            args.fault_every_seconds,
        )?),
        rate_hz: positive("--rate", args.rate)?,
        seed: args.seed,
        federates: args.federates,
        stop,
    })
}

/// The chaos run: its table (or JSON), then exit 1 on a duplicate, an unreported loss, a
/// fault that never recovered, or a run cut short.
fn run_chaos(args: &ChaosArgs) -> Result<()> {
    let options = chaos_options(args)?;
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let (summary, mut results) = chaos::run(&options, &command, args.out.as_deref())?;
    let interrupted = options.stop.load(std::sync::atomic::Ordering::SeqCst);
    results.finish(!interrupted)?;
    if args.json {
        outln!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        out!("{}", chaos::table(&summary));
        outln!("results in {}", results.dir().display());
    }
    incomplete(&results)?;
    if !summary.passed {
        return Err(crate::Reported("chaos failed").into());
    }
    Ok(())
}

fn transport(arg: TransportArg) -> Transport {
    match arg {
        TransportArg::Reliable => Transport::Reliable,
        TransportArg::BestEffort => Transport::BestEffort,
    }
}

/// The values given, or the defaults when none were.
fn or_default<T: Clone>(given: &[T], default: &[T]) -> Vec<T> {
    if given.is_empty() {
        default.to_vec()
    } else {
        given.to_vec()
    }
}

fn setup(common: &Common) -> Result<Setup> {
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        signal_hook::flag::register(signal, stop.clone())?;
    }
    Ok(Setup {
        router: common
            .router
            .as_deref()
            .map(|r| r.parse::<Endpoint>().map_err(|e| UsageError(e.to_string())))
            .transpose()?,
        topology: common.topology.clone(),
        routers_running: common.routers_running,
        transport: match common.transport {
            TransportArg::Reliable => Transport::Reliable,
            TransportArg::BestEffort => Transport::BestEffort,
        },
        bundling: common.bundling.parse::<Bundling>().map_err(UsageError)?,
        api: match common.api {
            ApiArg::Federate => Api::Federate,
            ApiArg::Node => Api::Node,
        },
        spin: Duration::from_micros(common.spin_us),
        bundle_hold: Duration::from_micros(common.bundle_us),
        stop,
    })
}

/// How agents start, if the run has them: this very binary, as children, as job steps or
/// on the hosts of a hosts file, connecting back to the control address.
fn launch(opts: &AgentOpts) -> Result<Option<agents::Launch>, trellis_tools::bench::BenchError> {
    use trellis_tools::bench::BenchError;
    let hosts = opts
        .hosts
        .as_deref()
        .map(agents::HostsFile::load)
        .transpose()?;
    let via = match (opts.agents, &hosts) {
        (None, None) => return Ok(None),
        (Some(AgentsArg::Slurm), Some(_)) => {
            return Err(BenchError::Failed(
                "--hosts places agents itself: not with --agents slurm".into(),
            ))
        }
        (Some(AgentsArg::Slurm), None) => agents::Via::SlurmSteps,
        _ => agents::Via::Local,
    };
    let control = match (&opts.control, hosts.as_ref().and_then(|h| h.control)) {
        (Some(text), _) => agents::hosts::parse_control(text)
            .map_err(|e| BenchError::Failed(format!("--control {e}")))?,
        (None, Some(address)) => address,
        (None, None) => agents::hosts::DEFAULT_CONTROL,
    };
    let mut launch = agents::Launch::local(std::env::current_exe()?, via);
    launch.control = control;
    launch.hosts = hosts;
    Ok(Some(launch))
}

fn raw(raw: Option<RawArg>) -> Option<Raw> {
    raw.map(|r| match r {
        RawArg::Tcp => Raw::Tcp,
        RawArg::Udp => Raw::Udp,
    })
}

/// Run one benchmark inside its results folder and print what it found.
fn with_results<T: Serialize>(
    benchmark: &str,
    common: &Common,
    setup: &Setup,
    mode: Mode,
    run: impl FnOnce(&Results) -> Result<T, trellis_tools::bench::BenchError>,
    human: impl FnOnce(&T) -> String,
) -> Result<()> {
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    let mut results = Results::create(
        common.out.as_deref(),
        Meta::new(benchmark, &command, setup, mode),
    )?;
    let summary = run(&results);
    if let Err(e) = &summary {
        // What earlier cases wrote stays; meta.json names what ended the run.
        results.fault(e.to_string());
    }
    let interrupted = setup.stop.load(std::sync::atomic::Ordering::SeqCst);
    results.finish(summary.is_ok() && !interrupted)?;
    let summary = summary?;
    if common.json {
        outln!("{}", serde_json::to_string_pretty(&summary)?);
    } else {
        outln!("{}", human(&summary));
        outln!(
            "results in {}{}",
            results.dir().display(),
            if interrupted { " (interrupted)" } else { "" }
        );
    }
    incomplete(&results)
}

/// A run that kept its measurements through a fault still fails, so scripts notice.
fn incomplete(results: &Results) -> Result<()> {
    match &results.meta().fault {
        Some(fault) => {
            eprintln!("incomplete: {fault}");
            Err(crate::Reported("incomplete").into())
        }
        None => Ok(()),
    }
}

pub(crate) fn run(command: BenchCommand) -> Result<()> {
    match command {
        BenchCommand::Pingpong(args) => {
            let setup = setup(&args.common)?;
            let options = pingpong::PingpongOptions {
                setup: setup.clone(),
                raw: raw(args.raw),
                pairs: args.pairs,
                placement: args
                    .pair
                    .iter()
                    .map(|p| {
                        p.split_once(':')
                            .map(|(m, s)| (m.to_owned(), s.to_owned()))
                            .ok_or_else(|| {
                                UsageError(format!("--pair {p:?}: expected MASTER:SLAVE"))
                            })
                    })
                    .collect::<Result<_, _>>()?,
                sizes: match (args.size, args.sizes.is_empty()) {
                    (Some(size), _) => vec![size],
                    (None, true) => pingpong::DEFAULT_SIZES.to_vec(),
                    (None, false) => args.sizes.clone(),
                },
                exchanges: args.count.unwrap_or(args.exchanges),
            };
            with_results(
                "pingpong",
                &args.common,
                &setup,
                Mode::carrying(options.raw),
                |r| match launch(&args.agents)? {
                    None => pingpong::run(&options, r),
                    Some(launch) => agents::pingpong::run(&options, &launch, r),
                },
                pingpong::table,
            )
        }
        BenchCommand::Throughput(args) => {
            let setup = setup(&args.common)?;
            let options = throughput::ThroughputOptions {
                setup: setup.clone(),
                raw: raw(args.raw),
                size: args.size,
                seconds: args.seconds,
                driver: match args.driver {
                    DriverArg::Direct => trellis_net::rti::Driver::Direct,
                    DriverArg::Thread => trellis_net::rti::Driver::Thread,
                },
                subscribers: if args.subscribers.is_empty() {
                    throughput::DEFAULT_SUBSCRIBERS.to_vec()
                } else {
                    args.subscribers.clone()
                },
            };
            with_results(
                "throughput",
                &args.common,
                &setup,
                Mode::carrying(options.raw),
                |r| match launch(&args.agents)? {
                    None => throughput::run(&options, r),
                    Some(launch) => agents::throughput::run(&options, &launch, r),
                },
                throughput::table,
            )
        }
        BenchCommand::Symmetric(args) => {
            let setup = setup(&args.common)?;
            let options = symmetric::SymmetricOptions {
                setup: setup.clone(),
                size: args.size,
                seconds: args.seconds,
                federates: if args.federates.is_empty() {
                    symmetric::DEFAULT_FEDERATES.to_vec()
                } else {
                    args.federates.clone()
                },
            };
            with_results(
                "symmetric",
                &args.common,
                &setup,
                Mode::Trellis,
                |r| match launch(&args.agents)? {
                    None => symmetric::run(&options, r),
                    Some(launch) => agents::parties::symmetric(&options, &launch, r),
                },
                symmetric::table,
            )
        }
        BenchCommand::Latency(args) => {
            let setup = setup(&args.common)?;
            let options = latency::LatencyOptions {
                setup: setup.clone(),
                size: args.size,
                receivers: if args.receivers.is_empty() {
                    latency::DEFAULT_RECEIVERS.to_vec()
                } else {
                    args.receivers.clone()
                },
                exchanges: args.exchanges,
            };
            with_results(
                "latency",
                &args.common,
                &setup,
                Mode::Trellis,
                |r| match launch(&args.agents)? {
                    None => latency::run(&options, r),
                    Some(launch) => agents::parties::latency(&options, &launch, r),
                },
                latency::table,
            )
        }
        BenchCommand::Oneway(args) => {
            let setup = setup(&args.common)?;
            let options = oneway::OnewayOptions {
                setup: setup.clone(),
                raw: raw(args.raw),
                sizes: or_default(&args.sizes, &oneway::DEFAULT_SIZES),
                rates: or_default(&args.rates, &oneway::DEFAULT_RATES),
                seconds: args.seconds,
                drop_every: None,
            };
            with_results(
                "oneway",
                &args.common,
                &setup,
                Mode::carrying(options.raw),
                |r| match launch(&args.agents)? {
                    None => oneway::run(&options, r),
                    Some(launch) => agents::oneway::run(&options, &launch, r),
                },
                oneway::table,
            )
        }
        BenchCommand::Matrix(args) => {
            let setup = setup(&args.common)?;
            let options = matrix::MatrixOptions {
                setup: setup.clone(),
                raw: raw(args.raw),
                raw_via: args.raw_via,
                entities: or_default(&args.entities, &matrix::DEFAULT_ENTITIES),
                rates: or_default(&args.rates, &matrix::DEFAULT_RATES),
                sizes: or_default(&args.sizes, &matrix::DEFAULT_SIZES),
                deliveries: if args.deliveries.is_empty() {
                    vec![Transport::Reliable, Transport::BestEffort]
                } else {
                    args.deliveries.iter().map(|&d| transport(d)).collect()
                },
                configurations: or_default(&args.configs, &matrix::ALL_CONFIGURATIONS),
                seconds: args.seconds,
                n: args.n,
                max_theoretical_mbps: args.max_theoretical_mbps,
            };
            with_results(
                "matrix",
                &args.common,
                &setup,
                Mode::carrying(options.raw),
                |r| match launch(&args.agents)? {
                    None => matrix::run(&options, r),
                    Some(launch) => agents::matrix::run(&options, &launch, r),
                },
                matrix::table,
            )
        }
        BenchCommand::Testfed(args) => {
            let setup = setup(&args.common)?;
            let mut config = match &args.config {
                Some(file) => {
                    testfed::TestfedConfig::load(file).map_err(|e| UsageError(e.to_string()))?
                }
                None => testfed::TestfedConfig::jads(),
            };
            if let Some(seconds) = args.seconds {
                config.seconds = seconds;
            }
            config.validate().map_err(UsageError)?;
            let figures = args
                .metrics
                .map(|_| trellis_monitor::metrics::FederateBoard::new());
            let _metrics = match (args.metrics, &figures) {
                (Some(address), Some(board)) => Some(
                    trellis_monitor::metrics::serve_federates(address, "testfed", board.clone())
                        .map_err(|e| UsageError(e.to_string()))?,
                ),
                _ => None,
            };
            let options = testfed::TestfedOptions {
                setup: setup.clone(),
                config,
                figures,
            };
            with_results(
                "testfed",
                &args.common,
                &setup,
                Mode::Trellis,
                |r| match launch(&args.agents)? {
                    None => testfed::run(&options, r),
                    Some(launch) => agents::testfed::run(&options, &launch, r),
                },
                testfed::table,
            )
        }
        BenchCommand::Timestep(args) => {
            let setup = setup(&args.common)?;
            let options = timestep::TimestepOptions {
                setup: setup.clone(),
                federates: or_default(&args.federates, &timestep::DEFAULT_FEDERATES),
                seconds: args.seconds,
                networks: if args.network.is_empty() {
                    timestep::TimestepNetwork::ALL.to_vec()
                } else {
                    args.network
                        .iter()
                        .map(|n| match n {
                            NetworkArg::OneRouter => timestep::TimestepNetwork::OneRouter,
                            NetworkArg::Mesh => timestep::TimestepNetwork::Mesh,
                        })
                        .collect()
                },
            };
            with_results(
                "timestep",
                &args.common,
                &setup,
                Mode::Trellis,
                |r| timestep::run(&options, r),
                timestep::table,
            )
        }
        BenchCommand::Chaos(args) => run_chaos(&args),
        BenchCommand::Clutter(args) => run_clutter(&args),
        BenchCommand::ClutterWorker => Ok(clutter::worker_main()?),
        BenchCommand::Agent(args) => Ok(agents::agent::main(args.coordinator, &args.name)?),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_with_a_fault_fails_as_reported_and_a_clean_one_succeeds() {
        let dir =
            std::env::temp_dir().join(format!("trellis-cli-incomplete-{}", std::process::id()));
        let meta = Meta::new("throughput", "test", &Setup::default(), Mode::Trellis);
        let mut results = Results::create(Some(&dir), meta).unwrap();
        results.finish(true).unwrap();
        assert!(incomplete(&results).is_ok());
        results.after_measurement("receiver-2", "resign", Err("link lost"));
        results.finish(true).unwrap();
        let error = incomplete(&results).unwrap_err();
        assert!(error.downcast_ref::<crate::Reported>().is_some());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
