//! `trellis topology gen | check`: write the common shapes, check any topology file.

use crate::output::{out, outln};
use anyhow::{Context, Result};
use clap::{Args, Subcommand, ValueEnum};
use std::path::{Path, PathBuf};
use trellis_core::topology::{generate, GenerateOptions, Pipe, Shape, Topology};
use trellis_tools::hosts::{HostsFile, SpreadPorts};

#[derive(Subcommand)]
pub(crate) enum TopologyCommand {
    /// Write a topology file of one of the common shapes.
    #[command(after_help = "Examples:
  trellis topology gen tree --levels 3 --fanout 2 --federates 2 -o tree.toml
  trellis topology gen mesh --routers 4 -o mesh.toml --metrics-from 9100
  trellis topology gen tree --levels 2 --hosts hosts.toml -o tree.toml   # routers on real hosts")]
    Gen(GenArgs),
    /// Validate a topology file and summarise it: routers, cliques, depth, and how many
    /// federate pairs are how many links apart.
    #[command(after_help = "Examples:
  trellis topology check tree.toml
  trellis topology check tree.toml --json")]
    Check(CheckArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum ShapeArg {
    Centralized,
    Collocated,
    Tree,
    Mesh,
    Hierarchical,
    DistributorPerFederate,
    MeshOfTrees,
    TreeOfMeshes,
}

#[derive(Clone, Copy, ValueEnum)]
enum PipeArg {
    Tcp,
    Udp,
    Memory,
}

#[derive(Args)]
pub(crate) struct GenArgs {
    /// How the routers are arranged.
    #[arg(value_enum)]
    shape: ShapeArg,
    /// Federates per leaf router (per router for mesh, per segment for hierarchical), or in
    /// total for collocated, centralized and distributor-per-federate.
    #[arg(long, default_value_t = 2)]
    federates: usize,
    /// Children per router (tree, mesh-of-trees; lower meshes per mesh for tree-of-meshes).
    #[arg(long, default_value_t = 2)]
    fanout: usize,
    /// Levels of routers, leaf routers included.
    #[arg(long, default_value_t = 3)]
    levels: usize,
    /// Routers in the mesh (mesh, tree-of-meshes), or tree roots in the mesh (mesh-of-trees).
    #[arg(long, default_value_t = 4)]
    routers: usize,
    /// Segments (hierarchical).
    #[arg(long, default_value_t = 3)]
    segments: usize,
    /// Host every process listens on (for one machine; --hosts spreads them over several).
    #[arg(long, default_value = "127.0.0.1", conflicts_with = "hosts")]
    host: String,
    /// Place the routers on the hosts of this hosts file (the one `trellis plan --hosts` and
    /// the benchmarks read): those a host lists in `routers = [...]` there, the rest dealt
    /// over the hosts in file order; a federate that listens goes with its parent router.
    /// Each host counts its own ports up from --base-port (and --metrics-from).
    #[arg(long, value_name = "FILE")]
    hosts: Option<PathBuf>,
    /// First port; each listening process takes the next (on its host, with --hosts).
    #[arg(long, default_value_t = 7000)]
    base_port: u16,
    /// What carries every link: TCP, TCP with UDP for best-effort traffic, or in-process
    /// memory pipes (`trellis up --in-process` only).
    #[arg(long, value_enum, default_value = "tcp")]
    pipe: PipeArg,
    /// Bundling delay of every link, in milliseconds.
    #[arg(long)]
    bundling_ms: Option<u64>,
    /// Give each federate, and routers while checkable, an alternate parent on its
    /// parent's level to fail over to (N+1).
    #[arg(long)]
    alternates: bool,
    /// Give every router a metrics address (for `trellis monitor` and Prometheus) on its
    /// host, ports counted up from this one.
    #[arg(long, value_name = "PORT")]
    metrics_from: Option<u16>,
    /// Where to write the file.
    #[arg(short = 'o', long = "output")]
    output: PathBuf,
}

#[derive(Args)]
pub(crate) struct CheckArgs {
    /// The topology file to check.
    file: PathBuf,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
}

/// Read and validate a topology file, printing every problem if it has any.
pub(crate) fn load(file: &PathBuf) -> Result<Topology> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    Topology::from_toml(&text).map_err(|e| {
        eprintln!("{}: {e}", file.display());
        crate::Reported("the topology is invalid").into()
    })
}

pub(crate) fn run(command: TopologyCommand) -> Result<()> {
    match command {
        TopologyCommand::Gen(args) => gen(args),
        TopologyCommand::Check(args) => {
            let topology = load(&args.file)?;
            let summary = topology.summary();
            if args.json {
                outln!("{}", serde_json::to_string_pretty(&summary)?);
            } else {
                out!("{summary}");
            }
            Ok(())
        }
    }
}

fn gen(args: GenArgs) -> Result<()> {
    let shape = shape(&args);
    let options = GenerateOptions {
        host: args.host.clone(),
        base_port: args.base_port,
        pipe: match args.pipe {
            PipeArg::Tcp => Pipe::Tcp,
            PipeArg::Udp => Pipe::Udp,
            PipeArg::Memory => Pipe::Memory,
        },
        bundling_delay_ms: args.bundling_ms,
        queue_limit_bytes: None,
        alternates: args.alternates,
        // With --hosts, each host counts its own metrics ports (below).
        metrics_base_port: args.metrics_from.filter(|_| args.hosts.is_none()),
    };
    let mut topology = generate(&shape, &options).map_err(|e| crate::UsageError(e.to_string()))?;
    if let Some(path) = &args.hosts {
        topology = on_hosts(&topology, path, &args)?;
    }
    let text = topology.to_toml()?;
    std::fs::write(&args.output, text)
        .with_context(|| format!("cannot write {}", args.output.display()))?;
    outln!("wrote {} ({})", args.output.display(), shape.name());
    out!("{}", topology.summary());
    Ok(())
}

/// `topology` with its processes spread over the hosts of the hosts file at `path`.
fn on_hosts(topology: &Topology, path: &Path, args: &GenArgs) -> Result<Topology> {
    let usage = |e: &dyn std::fmt::Display| crate::UsageError(e.to_string());
    let hosts = HostsFile::load(path).map_err(|e| usage(&e))?;
    let ports = SpreadPorts {
        base: args.base_port,
        metrics: args.metrics_from,
    };
    let file = hosts
        .spread(&topology.to_file(), ports)
        .map_err(|e| usage(&e))?;
    // Ports of two ranges on one host can meet (say --metrics-from inside the listen ports).
    Topology::from_file(&file).map_err(|e| {
        usage(&format_args!(
            "placed on the hosts of {}, the topology is invalid: {e}",
            path.display()
        ))
        .into()
    })
}

fn shape(args: &GenArgs) -> Shape {
    match args.shape {
        ShapeArg::Centralized => Shape::Centralized {
            federates: args.federates,
        },
        ShapeArg::Collocated => Shape::Collocated {
            federates: args.federates,
        },
        ShapeArg::Tree => Shape::Tree {
            fanout: args.fanout,
            levels: args.levels,
            federates: args.federates,
        },
        ShapeArg::Mesh => Shape::Mesh {
            routers: args.routers,
            federates: args.federates,
        },
        ShapeArg::Hierarchical => Shape::Hierarchical {
            segments: args.segments,
            federates: args.federates,
        },
        ShapeArg::DistributorPerFederate => Shape::DistributorPerFederate {
            federates: args.federates,
        },
        ShapeArg::MeshOfTrees => Shape::MeshOfTrees {
            roots: args.routers,
            fanout: args.fanout,
            levels: args.levels,
            federates: args.federates,
        },
        ShapeArg::TreeOfMeshes => Shape::TreeOfMeshes {
            routers: args.routers,
            fanout: args.fanout,
            levels: args.levels,
            federates: args.federates,
        },
    }
}
