//! `trellis demo`: the federation demo on the embedded object model.

use anyhow::Result;
use clap::Args;
use signal_hook::consts::{SIGINT, SIGTERM};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use trellis_tools::demo::{self, DemoOptions};

#[derive(Args)]
pub(crate) struct DemoArgs {
    /// How long to run.
    #[arg(long, default_value_t = 5)]
    seconds: u64,
    /// Vehicles on the map (half ground, half air).
    #[arg(long, default_value_t = 6)]
    vehicles: usize,
    /// Position updates per vehicle per second.
    #[arg(long, default_value_t = 10)]
    rate: u64,
    /// Time-stepped: vehicles regulating and constrained, one logical step per update;
    /// prints the granted logical time every second.
    #[arg(long)]
    time_stepped: bool,
}

pub(crate) fn run(args: DemoArgs) -> Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        signal_hook::flag::register(signal, stop.clone())?;
    }
    let options = DemoOptions {
        seconds: args.seconds,
        vehicles: args.vehicles,
        rate_hz: args.rate,
        time_stepped: args.time_stepped,
    };
    demo::run(&options, stop)?;
    Ok(())
}
