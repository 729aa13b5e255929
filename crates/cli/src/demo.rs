//! `trellis demo`: the federation demo on the embedded object model, with its web page
//! (the vehicles on the map beside the monitor of its router and federates) unless
//! `--no-web`.

use anyhow::Result;
use clap::Args;
use signal_hook::consts::{SIGINT, SIGTERM};
use std::net::SocketAddr;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use trellis_tools::demo::{self, DemoOptions};

/// Long enough to open the page and watch; without it the text alone takes 5 s.
const SECONDS_WITH_WEB: u64 = 60;
const SECONDS_WITHOUT_WEB: u64 = 5;

#[derive(Args)]
pub(crate) struct DemoArgs {
    /// How long to run [default: 60, or 5 with --no-web].
    #[arg(long)]
    seconds: Option<u64>,
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
    /// Where to serve the page (if the port is taken, any free port there).
    #[arg(long, value_name = "IP:PORT", default_value = "127.0.0.1:8700")]
    web: SocketAddr,
    /// No web page: the per-second lines only.
    #[arg(long)]
    no_web: bool,
    /// Attach the federates to this running router (of `trellis up` or `trellis router`)
    /// instead of starting one; no web page then: watch with `trellis monitor` and
    /// `trellis federation TrellisDemo ROUTER`.
    #[arg(long, value_name = "URL")]
    rti: Option<trellis_net::Endpoint>,
}

pub(crate) fn run(args: DemoArgs) -> Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        signal_hook::flag::register(signal, stop.clone())?;
    }
    let default_seconds = if args.no_web {
        SECONDS_WITHOUT_WEB
    } else {
        SECONDS_WITH_WEB
    };
    let options = DemoOptions {
        seconds: args.seconds.unwrap_or(default_seconds),
        vehicles: args.vehicles,
        rate_hz: args.rate,
        time_stepped: args.time_stepped,
        web: (!args.no_web).then_some(args.web),
        rti: args.rti,
    };
    // A reader that closed our output (`| head`) stopped the demo early: that is success.
    demo::run(&options, stop)?;
    Ok(())
}
