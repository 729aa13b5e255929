//! `trellis bench clutter`: its arguments and the run.

use super::common::{setup, Common, DriverArg};
use super::with_results;
use crate::UsageError;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use trellis_tools::bench::{agents, clutter, Mode, Setup};

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
    /// Viewer federates, each watching a window of the map by region.
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
    /// names worker-0, worker-1, ... (the agents' hosts file: docs/bench-agents.md).
    #[arg(long)]
    hosts: Option<PathBuf>,
}

impl ClutterArgs {
    fn options(&self, setup: Setup) -> Result<clutter::ClutterOptions> {
        let mut options = clutter::ClutterOptions::new(setup, std::env::current_exe()?);
        if !self.entities.is_empty() {
            options.entities = self.entities.clone();
        }
        options.simulators = self.simulators;
        options.entities_per_simulator = self.entities_per_simulator;
        options.viewers = self.viewers;
        options.processes = self.processes;
        options.rate_hz = self.rate;
        options.seconds = self.seconds;
        options.frame_ms = self.frame_ms;
        options.driver = self.driver.into();
        options.area_units = self.area_units;
        options.margin_units = self.margin_units;
        options.viewer_window_units = self.viewer_window_units;
        options.max_step_units = self.max_step_units;
        options.seed = self.seed;
        options.hosts = self
            .hosts
            .as_deref()
            .map(agents::HostsFile::load)
            .transpose()?;
        options.validate().map_err(UsageError)?;
        Ok(options)
    }

    /// The clutter run; exits 1 when a case was not exact, or not complete when reliable.
    pub(super) fn run(&self) -> Result<()> {
        let setup = setup(&self.common)?;
        let options = self.options(setup.clone())?;
        let mut passed = true;
        with_results(
            "clutter",
            &self.common,
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
}
