//! `trellis plan`: a topology flattened into one configuration per process, the
//! scripts that start the routers on their hosts, and a Prometheus scrape configuration
//! for the routers that serve metrics (`prometheus.rs`).

use crate::output::outln;
use crate::UsageError;
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use trellis_core::topology::NodeKind;

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
    file: PathBuf,
    /// Which host runs which process.
    #[arg(long, value_name = "HOSTS.toml")]
    hosts: PathBuf,
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

/// `HOSTS.toml`: `default = "host"` and a `[nodes]` table of process name to host.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Hosts {
    default: Option<String>,
    #[serde(default)]
    nodes: BTreeMap<String, String>,
}

/// With --bench, the copy of the topology file in the plan directory that the routers and
/// the benchmark step read.
const BENCH_TOPOLOGY: &str = "topology.toml";
/// How long the benchmark step waits for the routers to say "ready:".
const ROUTER_READY_SECONDS: u32 = 60;

/// The words of --bench, refused when they name what the Slurm script decides.
fn bench_words(args: &str) -> Result<Vec<String>> {
    let words: Vec<String> = args.split_whitespace().map(str::to_owned).collect();
    if words.is_empty() {
        return Err(
            UsageError("--bench: name a benchmark, e.g. 'throughput --seconds 2'".into()).into(),
        );
    }
    for taken in ["--router", "--topology", "--routers-running"] {
        if words
            .iter()
            .any(|w| w == taken || w.starts_with(&format!("{taken}=")))
        {
            return Err(UsageError(format!("--bench: {taken} is set by the Slurm script")).into());
        }
    }
    Ok(words)
}

fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

pub(crate) fn run(args: PlanArgs) -> Result<()> {
    let topology = crate::topology::load(&args.file)?;
    let text = std::fs::read_to_string(&args.hosts)
        .with_context(|| format!("cannot read {}", args.hosts.display()))?;
    let hosts: Hosts =
        toml::from_str(&text).map_err(|e| UsageError(format!("{}: {e}", args.hosts.display())))?;
    for name in hosts.nodes.keys() {
        if topology.node(name).is_none() {
            return Err(UsageError(format!(
                "{}: no process named {name:?} in {}",
                args.hosts.display(),
                args.file.display()
            ))
            .into());
        }
    }
    let bench = match (&args.bench, args.format) {
        (None, _) => None,
        (Some(words), Format::Slurm) => Some(bench_words(words)?),
        (Some(_), _) => {
            return Err(UsageError("--bench goes with --format slurm".into()).into());
        }
    };
    std::fs::create_dir_all(&args.output)
        .with_context(|| format!("cannot create {}", args.output.display()))?;
    // Routers by host, in topology order.
    let mut by_host: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for plan in topology.plans() {
        let file = args.output.join(format!("{}.toml", plan.name));
        std::fs::write(&file, toml::to_string(&plan)?)
            .with_context(|| format!("cannot write {}", file.display()))?;
        if plan.kind != NodeKind::Router {
            continue;
        }
        let host = hosts
            .nodes
            .get(&plan.name)
            .or(hosts.default.as_ref())
            .ok_or_else(|| {
                UsageError(format!(
                    "router {} has no host and {} sets no default",
                    plan.name,
                    args.hosts.display()
                ))
            })?;
        let loopback = plan
            .listen
            .iter()
            .any(|l| l.to_string().contains("://127.") || l.to_string().contains("://localhost"));
        if loopback && host != "localhost" {
            eprintln!(
                "warning: router {} runs on {host} but listens on a loopback address; other hosts cannot reach it",
                plan.name
            );
        }
        by_host.entry(host.clone()).or_default().push(plan.name);
    }
    let host_of = |name: &str| {
        let mut hosts = by_host.iter();
        hosts
            .find(|(_, routers)| routers.iter().any(|r| r == name))
            .map(|(host, _)| host.clone())
    };
    crate::prometheus::write(&topology, &args.file, host_of, &args.output)?;
    let start = |name: &str| {
        format!(
            "trellis router --plan {}",
            shell_quote(&format!("{name}.toml"))
        )
    };
    let mut written = Vec::new();
    match args.format {
        Format::Script => {
            for (host, routers) in &by_host {
                let mut script = format!(
                    "#!/bin/sh\n# Routers of {} on {host}.\nset -e\ncd \"$(dirname \"$0\")\"\n",
                    args.file.display()
                );
                for router in routers {
                    script.push_str(&format!("{} &\n", start(router)));
                }
                script.push_str("trap 'kill $(jobs -p)' INT TERM\nwait\n");
                written.push((format!("launch-{host}.sh"), script));
            }
        }
        Format::Ssh => {
            let mut script = format!(
                "#!/bin/sh\n# Starts the routers of {} over ssh; the plan directory must be at the same path on every host.\nDIR=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\n",
                args.file.display()
            );
            for (host, routers) in &by_host {
                for router in routers {
                    let remote = format!("cd \"$DIR\" && {}", start(router));
                    script.push_str(&format!(
                        "ssh {} \"{}\" &\n",
                        shell_quote(host),
                        remote.replace('"', "\\\"")
                    ));
                }
            }
            script.push_str("trap 'kill $(jobs -p)' INT TERM\nwait\n");
            written.push(("launch.sh".into(), script));
        }
        Format::Slurm => {
            // The benchmark step runs on the default host (or the first router's), which the
            // allocation must then include.
            let bench_host = match bench {
                Some(_) => Some(
                    hosts
                        .default
                        .as_deref()
                        .or(by_host.keys().next().map(String::as_str))
                        .ok_or_else(|| {
                            UsageError(format!(
                                "--bench: no host for the benchmark ({} sets no default)",
                                args.hosts.display()
                            ))
                        })?,
                ),
                None => None,
            };
            let mut nodes: Vec<&str> = by_host.keys().map(String::as_str).collect();
            if let Some(host) = bench_host.filter(|h| !by_host.contains_key(*h)) {
                nodes.push(host);
            }
            let mut script = format!(
                "#!/bin/sh\n#SBATCH --job-name=trellis-routers\n#SBATCH --nodes={}\n#SBATCH --nodelist={}\ncd \"$SLURM_SUBMIT_DIR\"\n\
                 # Steps share the allocation's CPUs (--overlap): a host may run more routers than it\n\
                 # was given CPUs, and a router mostly waits. Step N of router R writes R.JOB.N.out.\n",
                nodes.len(),
                nodes.join(",")
            );
            let step = |host: &str, name: &str, command: &str| {
                format!(
                    "srun --nodes=1 --ntasks=1 --nodelist={} --overlap --job-name={} --output={} {command}",
                    shell_quote(host),
                    shell_quote(name),
                    shell_quote(&format!("{name}.%j.%s.out"))
                )
            };
            for (host, routers) in &by_host {
                for router in routers {
                    // The benchmark waits for the "ready:" line only a router started from the
                    // topology prints (once its router links are up); a --plan router cannot.
                    let command = match bench {
                        Some(_) => format!(
                            "trellis router --topology {BENCH_TOPOLOGY} --name {}",
                            shell_quote(router)
                        ),
                        None => start(router),
                    };
                    script.push_str(&step(host, router, &command));
                    script.push_str(" &\n");
                }
            }
            match (&bench, bench_host) {
                (Some(words), Some(bench_host)) => {
                    std::fs::copy(&args.file, args.output.join(BENCH_TOPOLOGY)).with_context(
                        || {
                            format!(
                                "cannot copy {} into {}",
                                args.file.display(),
                                args.output.display()
                            )
                        },
                    )?;
                    let names: Vec<String> =
                        by_host.values().flatten().map(|r| shell_quote(r)).collect();
                    script.push_str(&format!(
                        "# The benchmark starts once every router has said \"ready:\" (bounded: {ROUTER_READY_SECONDS} s).\n\
                         for router in {}; do\n\
                         \x20   polls=0\n\
                         \x20   until grep -qs '^ready:' \"$router.$SLURM_JOB_ID\".*.out; do\n\
                         \x20       polls=$((polls + 1))\n\
                         \x20       if [ \"$polls\" -gt {} ]; then\n\
                         \x20           echo \"router $router is not ready after {ROUTER_READY_SECONDS} s (see $router.$SLURM_JOB_ID.*.out)\" >&2\n\
                         \x20           scancel --signal=TERM \"$SLURM_JOB_ID\"; wait; exit 1\n\
                         \x20       fi\n\
                         \x20       sleep 0.1\n\
                         \x20   done\n\
                         done\n",
                        names.join(" "),
                        ROUTER_READY_SECONDS * 10
                    ));
                    let quoted: Vec<String> = words.iter().map(|w| shell_quote(w)).collect();
                    script.push_str(&step(
                        bench_host,
                        "bench",
                        &format!(
                            "trellis bench {} --topology {BENCH_TOPOLOGY} --routers-running",
                            quoted.join(" ")
                        ),
                    ));
                    // The routers serve until the benchmark ends, then get SIGTERM (a goodbye to
                    // their links): scancel signals every step but not this script; a killed srun
                    // would SIGKILL its step. The job's exit is the benchmark's.
                    script.push_str(
                        "\nstatus=$?\nscancel --signal=TERM \"$SLURM_JOB_ID\"\nwait\nexit $status\n",
                    );
                }
                _ => script.push_str("wait\n"),
            }
            written.push(("launch.sbatch".into(), script));
        }
    }
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
