//! What every benchmark takes: where it runs, how it delivers, how its nodes run and
//! where its agents go, and the mapping of those arguments to the library's options.

use crate::UsageError;
use anyhow::Result;
use clap::{Args, ValueEnum};
use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::PathBuf;
use std::time::Duration;
use trellis_net::rti::Driver;
use trellis_net::Endpoint;
use trellis_tools::bench::{agents, Api, BenchError, Bundling, Raw, Setup, Transport};

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum AgentsArg {
    /// One agent process per federate on this machine.
    Local,
    /// One Slurm job step (srun) per federate, inside the allocation this runs in; on this
    /// node for now.
    Slurm,
}

/// Where a benchmark's federates run when not in this process.
#[derive(Args)]
pub(super) struct AgentOpts {
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
pub(super) enum TransportArg {
    Reliable,
    BestEffort,
}

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum ApiArg {
    Federate,
    Node,
}

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum DriverArg {
    Direct,
    Thread,
}

impl From<DriverArg> for Driver {
    fn from(arg: DriverArg) -> Driver {
        match arg {
            DriverArg::Direct => Driver::Direct,
            DriverArg::Thread => Driver::Thread,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum RawArg {
    Tcp,
    Udp,
}

#[derive(Args)]
pub(super) struct Common {
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
    /// Send reliable (HLAreliable: ordered, never silently lost) or best-effort
    /// (HLAbestEffort) updates.
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
    /// that short; up to 200 µs while a prompt answer or a time grant is due (0: sleep at
    /// once, always).
    #[arg(long, default_value_t = trellis_net::DEFAULT_SPIN.as_micros() as u64)]
    spin_us: u64,
    /// Microseconds a federate or node driven on its caller's thread holds a publish that
    /// follows its last write, to bundle a burst into one write (0: write each at once).
    #[arg(long, default_value_t = trellis_net::DEFAULT_BUNDLE_HOLD.as_micros() as u64)]
    bundle_us: u64,
    /// The results folder (default results/<benchmark>-<time>).
    #[arg(long, value_name = "DIR")]
    pub(super) out: Option<PathBuf>,
    /// Print the run's summary as JSON on stdout.
    #[arg(long)]
    pub(super) json: bool,
}

pub(super) fn transport(arg: TransportArg) -> Transport {
    match arg {
        TransportArg::Reliable => Transport::Reliable,
        TransportArg::BestEffort => Transport::BestEffort,
    }
}

/// The values given, or the defaults when none were.
pub(super) fn or_default<T: Clone>(given: &[T], default: &[T]) -> Vec<T> {
    if given.is_empty() {
        default.to_vec()
    } else {
        given.to_vec()
    }
}

pub(super) fn setup(common: &Common) -> Result<Setup> {
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
        transport: transport(common.transport),
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
pub(super) fn launch(opts: &AgentOpts) -> Result<Option<agents::Launch>, BenchError> {
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

pub(super) fn raw(raw: Option<RawArg>) -> Option<Raw> {
    raw.map(|r| match r {
        RawArg::Tcp => Raw::Tcp,
        RawArg::Udp => Raw::Udp,
    })
}
