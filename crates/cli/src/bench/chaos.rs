//! `trellis bench chaos`: its arguments and the run.

use super::incomplete;
use crate::output::{out, outln};
use crate::UsageError;
use anyhow::Result;
use clap::{Args, ValueEnum};
use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::PathBuf;
use std::time::Duration;
use trellis_tools::bench::chaos;

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum ChaosShapeArg {
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

impl ChaosArgs {
    fn options(&self) -> Result<chaos::ChaosOptions> {
        let seconds = self
            .minutes
            .map(|m| m * 60.0)
            .or(self.seconds)
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
            topology: match (&self.file, self.topology) {
                (Some(file), _) => chaos::ChaosTopology::File(file.clone()),
                (None, ChaosShapeArg::Tree) => chaos::ChaosTopology::Tree,
                (None, ChaosShapeArg::Mesh) => chaos::ChaosTopology::Mesh,
            },
            duration: Duration::from_secs_f64(positive("--minutes / --seconds", seconds)?),
            fault_every: Duration::from_secs_f64(positive(
                "--fault-every-seconds",
                self.fault_every_seconds,
            )?),
            rate_hz: positive("--rate", self.rate)?,
            seed: self.seed,
            federates: self.federates,
            stop,
        })
    }

    /// The chaos run: its table (or JSON), then exit 1 on a duplicate, an unreported loss, a
    /// fault that never recovered, or a run cut short.
    pub(super) fn run(&self) -> Result<()> {
        let options = self.options()?;
        let command = std::env::args().collect::<Vec<_>>().join(" ");
        let (summary, mut results) = chaos::run(&options, &command, self.out.as_deref())?;
        let interrupted = options.stop.load(std::sync::atomic::Ordering::SeqCst);
        results.finish(!interrupted)?;
        if self.json {
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
}
