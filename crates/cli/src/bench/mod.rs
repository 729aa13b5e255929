//! `trellis bench`: the characterisation benchmarks. Each writes a results folder and
//! prints its summary for people or, with --json, as JSON. One module per kind of
//! benchmark holds its arguments and their mapping to the library's options; the
//! arguments every benchmark shares are in `common`.

mod chaos;
mod clutter;
mod common;
mod federation;
mod traffic;

use crate::output::outln;
use anyhow::Result;
use clap::{Args, Subcommand};
use common::Common;
use serde::Serialize;
use trellis_tools::bench::losses::{record_reliable_loss, ReliableLoss};
use trellis_tools::bench::results::{Meta, Results};
use trellis_tools::bench::{agents, Mode, Setup};

#[derive(Subcommand)]
pub(crate) enum BenchCommand {
    /// Round trips: N pairs echo messages of swept sizes; per size the mean over pairs
    /// after discarding the two largest pair means (as rtiperf does).
    #[command(after_help = "Examples:
  trellis bench pingpong                           # a router on loopback, one pair
  trellis bench pingpong --pairs 4 --sizes 64,1024
  trellis bench pingpong --raw tcp --relayed       # the floor: plain sockets through a copying relay")]
    Pingpong(traffic::PingpongArgs),
    /// Throughput: one sender, N receivers (swept); each receiver's rate and losses (as
    /// BmThruput does).
    #[command(after_help = "Examples:
  trellis bench throughput --seconds 2 --subscribers 1,4
  trellis bench throughput --topology tree.toml --routers-running   # on routers `trellis up` runs")]
    Throughput(traffic::ThroughputArgs),
    /// Every federate sends and receives (swept over federate counts).
    #[command(after_help = "Examples:
  trellis bench symmetric --federates 2,4 --seconds 2")]
    Symmetric(traffic::SymmetricArgs),
    /// Latency: one sender, N receivers, only the targeted one answers; half the round trip
    /// (as BmLatency does).
    #[command(after_help = "Examples:
  trellis bench latency --receivers 1,4")]
    Latency(traffic::LatencyArgs),
    /// One-way latency: a size × rate matrix, serial numbers and send times; per case a data
    /// file (latency or MISSING per serial) and min / max / mean latency.
    #[command(after_help = "Examples:
  trellis bench oneway --sizes 64,1024 --rates 100,1000")]
    Oneway(traffic::OnewayArgs),
    /// A test matrix: entities × rate × payload × delivery × 1-1/1-N/N-1/N-N; throughput
    /// against theoretical, reliability, latency and jitter.
    #[command(after_help = "Examples:
  trellis bench matrix --entities 1,10 --rates 10,60 --configs 1-1,N-N")]
    Matrix(traffic::MatrixArgs),
    /// Load federates with their own attribute counts, rates, sizes, interactions and
    /// ramp-up, each counting what it hears from the others.
    #[command(after_help = "Examples:
  trellis bench testfed --seconds 20            # three load federates
  trellis bench testfed --config load.toml      # your own: [[federate]] name, attributes, rate_hz, ...")]
    Testfed(federation::TestfedArgs),
    /// HLA time management: N regulating and constrained federates step in lock-step
    /// (update, timeAdvanceRequest(t+1), grant); grants per second per federate and
    /// time-management messages per grant, on one router and on a four-router mesh.
    #[command(after_help = "Examples:
  trellis bench timestep --federates 2,8")]
    Timestep(federation::TimestepArgs),
    /// Routers killed (kill -9) and restarted under `trellis up` while federates exchange
    /// reliable and best-effort updates: per fault detection and recovery time, delivered,
    /// duplicated (must be 0), reported lost, unreported (must be 0), memberships kept.
    #[command(after_help = "Examples:
  trellis bench chaos --topology tree --seconds 60
  trellis bench chaos --topology mesh --fault-every-seconds 5")]
    Chaos(chaos::ChaosArgs),
    /// Clutter: simulators own N entities moving on a map and update them at R Hz,
    /// subscribing by region to their area and its border; viewers watch windows.
    /// Achieved rate, exact and complete delivery against interest, latency, CPU and
    /// memory of every process, join times, router forwards.
    #[command(after_help = "Examples:
  trellis bench clutter --entities 10000,100000 --seconds 10")]
    Clutter(clutter::ClutterArgs),
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

/// Run one benchmark inside its results folder and print what it found. Reliable data it
/// lost makes the run a fault (`bench::losses`): not complete, and the command fails.
fn with_results<T: Serialize + ReliableLoss>(
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
    match &summary {
        // What earlier cases wrote stays; meta.json names what ended the run.
        Err(e) => results.fault(e.to_string()),
        Ok(summary) => record_reliable_loss(&results, summary),
    }
    let interrupted = setup.stop.load(std::sync::atomic::Ordering::SeqCst);
    results.finish(summary.is_ok() && !interrupted)?;
    // A run that failed reports every fault it met (a resign that failed before the error
    // that ended it, too), as meta.json does, not the last error alone.
    let Ok(summary) = summary else {
        return incomplete(&results);
    };
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
        BenchCommand::Pingpong(args) => args.run(),
        BenchCommand::Throughput(args) => args.run(),
        BenchCommand::Symmetric(args) => args.run(),
        BenchCommand::Latency(args) => args.run(),
        BenchCommand::Oneway(args) => args.run(),
        BenchCommand::Matrix(args) => args.run(),
        BenchCommand::Testfed(args) => args.run(),
        BenchCommand::Timestep(args) => args.run(),
        BenchCommand::Chaos(args) => args.run(),
        BenchCommand::Clutter(args) => args.run(),
        BenchCommand::ClutterWorker => Ok(trellis_tools::bench::clutter::worker_main()?),
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
