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
}

/// `HOSTS.toml`: `default = "host"` and a `[nodes]` table of process name to host.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Hosts {
    default: Option<String>,
    #[serde(default)]
    nodes: BTreeMap<String, String>,
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
            let nodes: Vec<&str> = by_host.keys().map(String::as_str).collect();
            let mut script = format!(
                "#!/bin/sh\n#SBATCH --job-name=trellis-routers\n#SBATCH --nodes={}\n#SBATCH --nodelist={}\ncd \"$SLURM_SUBMIT_DIR\"\n",
                nodes.len(),
                nodes.join(",")
            );
            for (host, routers) in &by_host {
                for router in routers {
                    script.push_str(&format!(
                        "srun --nodes=1 --ntasks=1 --nodelist={} {} &\n",
                        shell_quote(host),
                        start(router)
                    ));
                }
            }
            script.push_str("wait\n");
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
