//! The `trellis` command. Thin: parse arguments, configure, call the libraries.

// Input from a file, the network or a pipe never panics here: no unwrap outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

mod bench;
mod certs;
mod demo;
mod fom;
mod lab;
mod monitor;
mod output;
mod plan;
mod prometheus;
mod report;
mod router;
mod topology;
mod up;

use clap::{Parser, Subcommand};
use std::io::Write;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "trellis",
    version,
    about = "Trellis: an interest-managed RTI for distributed simulation"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// A federation on this machine: vehicles on a map, a region subscriber, per-second counts.
    Demo(demo::DemoArgs),
    /// Run a router until Ctrl-C or SIGTERM.
    Router(router::RouterArgs),
    /// Measure throughput, latency and loss.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Object models (FOM / FDD modules).
    #[command(subcommand)]
    Fom(fom::FomCommand),
    /// Topology files: generate the papers' shapes, check any file.
    #[command(subcommand)]
    Topology(topology::TopologyCommand),
    /// Start every router of a topology on this machine until Ctrl-C or SIGTERM.
    Up(up::UpArgs),
    /// Write per-process configuration and launch scripts for a topology across hosts.
    Plan(plan::PlanArgs),
    /// Development certificates (a CA, one per router and federate) for mutual TLS.
    Certs(certs::CertsArgs),
    /// Write one self-contained HTML report on benchmark results folders.
    Report(report::ReportArgs),
    /// Serve a live web page of a topology's processes, scraped from their /metrics.
    Monitor(monitor::MonitorArgs),
    /// A site lab on this machine: sites as network namespaces, site links with delay, loss
    /// and bandwidth; run a benchmark or a command in it (root).
    Lab(lab::LabArgs),
}

/// A failure the user caused by what they typed: one line, exit code 2.
#[derive(Debug)]
pub(crate) struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// A failure whose details were printed already, one per line: exit code 1, nothing more.
#[derive(Debug)]
pub(crate) struct Reported(pub &'static str);

impl std::fmt::Display for Reported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for Reported {}

/// Logs to stderr at `default` unless TRELLIS_LOG says otherwise; colour only on a terminal.
fn init_logging(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_env("TRELLIS_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // The demo's own lines are its output: only warnings and errors beside them.
    init_logging(match cli.command {
        Command::Demo(_) => "warn",
        _ => "info",
    });
    let result = match cli.command {
        Command::Demo(args) => demo::run(args),
        Command::Router(args) => router::run(args),
        Command::Bench(command) => bench::run(command),
        Command::Fom(command) => fom::run(command),
        Command::Topology(command) => topology::run(command),
        Command::Up(args) => up::run(args),
        Command::Plan(args) => plan::run(args),
        Command::Report(args) => report::run(args),
        Command::Certs(args) => certs::run(args),
        Command::Monitor(args) => monitor::run(args),
        Command::Lab(args) => lab::run(args),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        // The reader of our output has all it wanted (`| head`): stop as quietly as `cat`.
        Err(e) if e.downcast_ref::<output::OutputClosed>().is_some() => ExitCode::SUCCESS,
        // The errors were printed one per line already.
        Err(e) if e.downcast_ref::<Reported>().is_some() => ExitCode::FAILURE,
        Err(e) => {
            // Not eprintln!: it panics when stderr is a closed pipe too.
            let _ = writeln!(std::io::stderr(), "error: {e:#}");
            if e.downcast_ref::<UsageError>().is_some() {
                ExitCode::from(2)
            } else {
                ExitCode::FAILURE
            }
        }
    }
}
