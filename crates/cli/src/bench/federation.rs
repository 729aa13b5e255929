//! The federation-service benchmarks: JADS load federates (testfed) and time-managed
//! stepping (timestep).

use super::common::{launch, or_default, setup, AgentOpts, Common};
use super::with_results;
use crate::UsageError;
use anyhow::Result;
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use trellis_tools::bench::{agents, testfed, timestep, Mode};

#[derive(Args)]
pub(crate) struct TestfedArgs {
    #[command(flatten)]
    common: Common,
    /// The load federates, as TOML: `seconds`, and [[federate]] tables with name,
    /// attributes, rate_hz, size, interaction_rate_hz, ramp_seconds, ramp_rate_hz. Without
    /// it, three federates (11, 2 and 1 attributes at 20 Hz, 121 B, interactions
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

impl TestfedArgs {
    pub(super) fn run(&self) -> Result<()> {
        let setup = setup(&self.common)?;
        let mut config = match &self.config {
            Some(file) => {
                testfed::TestfedConfig::load(file).map_err(|e| UsageError(e.to_string()))?
            }
            None => testfed::TestfedConfig::jads(),
        };
        if let Some(seconds) = self.seconds {
            config.seconds = seconds;
        }
        config.validate().map_err(UsageError)?;
        let figures = self
            .metrics
            .map(|_| trellis_monitor::metrics::FederateBoard::new());
        let _metrics = match (self.metrics, &figures) {
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
            &self.common,
            &setup,
            Mode::Trellis,
            |r| match launch(&self.agents)? {
                None => testfed::run(&options, r),
                Some(launch) => agents::testfed::run(&options, &launch, r),
            },
            testfed::table,
        )
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub(super) enum NetworkArg {
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

impl TimestepArgs {
    pub(super) fn run(&self) -> Result<()> {
        let setup = setup(&self.common)?;
        let options = timestep::TimestepOptions {
            setup: setup.clone(),
            federates: or_default(&self.federates, &timestep::DEFAULT_FEDERATES),
            seconds: self.seconds,
            networks: if self.network.is_empty() {
                timestep::TimestepNetwork::ALL.to_vec()
            } else {
                self.network
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
            &self.common,
            &setup,
            Mode::Trellis,
            |r| timestep::run(&options, r),
            timestep::table,
        )
    }
}
