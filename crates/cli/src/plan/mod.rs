//! `trellis plan`: a topology flattened into one configuration per process, the
//! scripts that start the routers on their hosts, and a Prometheus scrape configuration
//! for the routers that serve metrics (`prometheus.rs`).

use crate::output::outln;
use crate::UsageError;
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use trellis_core::topology::{NodeKind, Topology};
use trellis_tools::hosts::HostsFile;

mod scripts;

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// One shell script per host, run on that host.
    Script,
    /// One shell script that starts every router over ssh.
    Ssh,
    /// One Slurm batch script: srun per router on its node.
    Slurm,
}

#[derive(Args)]
pub(crate) struct PlanArgs {
    /// The topology file (routers, federates, cliques) to plan.
    file: PathBuf,
    /// Which host runs which process.
    #[arg(long, value_name = "HOSTS.toml")]
    hosts: PathBuf,
    /// What to write: a script per host, one ssh script, or a Slurm batch script.
    #[arg(long, value_enum, default_value = "script")]
    format: Format,
    /// Directory to write into (created if missing).
    #[arg(short = 'o', long = "output", default_value = "plan")]
    output: PathBuf,
    /// With --format slurm: once every router is ready, one more job step runs
    /// `trellis bench ARGS --topology topology.toml --routers-running` (e.g. 'throughput
    /// --seconds 2 --out results --json') on the default host; the job ends with it.
    #[arg(long, value_name = "ARGS")]
    bench: Option<String>,
}

pub(crate) fn run(args: PlanArgs) -> Result<()> {
    let topology = crate::topology::load(&args.file)?;
    let (hosts, address_of) = load_hosts(&args.hosts, &topology)?;
    let bench = match (&args.bench, args.format) {
        (None, _) => None,
        (Some(words), Format::Slurm) => Some(scripts::bench_words(words)?),
        (Some(_), _) => {
            return Err(UsageError("--bench goes with --format slurm".into()).into());
        }
    };
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("cannot create {}", args.output.display()))?;
    let by_host = write_plans(&topology, &address_of, &args)?;
    let host_of = |name: &str| {
        let mut hosts = by_host.iter();
        hosts
            .find(|(_, routers)| routers.iter().any(|r| r == name))
            .map(|(host, _)| host.clone())
    };
    crate::prometheus::write(&topology, &args.file, host_of, &args.output)?;
    let written = launch_scripts(&args, &hosts, &by_host, bench)?;
    for (name, script) in &written {
        let path = args.output.join(name);
        std::fs::write(&path, script)
            .with_context(|| format!("cannot write {}", path.display()))?;
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755))?;
    }
    outln!(
        "wrote {} process plans and {} in {}",
        topology.plans().len(),
        written
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        args.output.display()
    );
    Ok(())
}

/// The hosts file (the one form benchmarks read too, `trellis_tools::hosts`), with the
/// host of each router of the topology: named in a host's `routers`, or dealt over the hosts
/// in file order.
fn load_hosts(path: &Path, topology: &Topology) -> Result<(HostsFile, BTreeMap<String, String>)> {
    let hosts = HostsFile::load(path).map_err(|e| UsageError(e.to_string()))?;
    let routers: Vec<String> = (topology.plans().into_iter())
        .filter(|plan| plan.kind == NodeKind::Router)
        .map(|plan| plan.name)
        .collect();
    let placed = hosts
        .place_routers(&routers)
        .map_err(|e| UsageError(e.to_string()))?;
    let address_of = (routers.iter().cloned())
        .zip(placed.iter().map(|host| host.address.clone()))
        .collect();
    Ok((hosts, address_of))
}

/// Write each process's plan; returns the routers by host, in topology order.
fn write_plans(
    topology: &Topology,
    address_of: &BTreeMap<String, String>,
    args: &PlanArgs,
) -> Result<scripts::RoutersByHost> {
    let mut by_host = scripts::RoutersByHost::new();
    for plan in topology.plans() {
        let file = args.output.join(format!("{}.toml", plan.name));
        std::fs::write(&file, toml::to_string(&plan)?)
            .with_context(|| format!("cannot write {}", file.display()))?;
        if plan.kind != NodeKind::Router {
            continue;
        }
        let host = address_of
            .get(&plan.name)
            .ok_or_else(|| anyhow::anyhow!("router {} was placed on no host", plan.name))?;
        let loopback = plan
            .listen
            .iter()
            .any(|l| l.to_string().contains("://127.") || l.to_string().contains("://localhost"));
        let local = ["localhost", "127.0.0.1", "::1"].contains(&host.as_str());
        if loopback && !local {
            eprintln!(
                "warning: router {} runs on {host} but listens on a loopback address; other hosts cannot reach it",
                plan.name
            );
        }
        by_host.entry(host.clone()).or_default().push(plan.name);
    }
    Ok(by_host)
}

/// The launch scripts (file name, text) of `--format`; with `--bench` (Slurm only), the
/// topology file is copied beside them for the routers and the benchmark step.
fn launch_scripts(
    args: &PlanArgs,
    hosts: &HostsFile,
    by_host: &scripts::RoutersByHost,
    bench: Option<Vec<String>>,
) -> Result<Vec<(String, String)>> {
    let origin = args.file.display().to_string();
    Ok(match (args.format, bench) {
        (Format::Script, _) => scripts::per_host(&origin, by_host),
        (Format::Ssh, _) => vec![("launch.sh".into(), scripts::ssh(&origin, by_host))],
        (Format::Slurm, None) => vec![("launch.sbatch".into(), scripts::slurm(by_host, None, &[]))],
        (Format::Slurm, Some(words)) => {
            // The benchmark runs on the file's first host (a hosts file names at least one).
            let bench_host = (hosts.hosts.first())
                .map(|host| host.address.as_str())
                .ok_or_else(|| UsageError(format!("{}: no host", args.hosts.display())))?;
            let copy = args.output.join(scripts::BENCH_TOPOLOGY);
            std::fs::copy(&args.file, &copy).with_context(|| {
                format!(
                    "cannot copy {} into {}",
                    args.file.display(),
                    args.output.display()
                )
            })?;
            vec![(
                "launch.sbatch".into(),
                scripts::slurm(by_host, Some(bench_host), &words),
            )]
        }
    })
}
