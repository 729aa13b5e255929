//! The `trellis` command. Thin: parse arguments, configure, call the libraries.

// Input from a file, the network or a pipe never panics here: no unwrap outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

mod bench;
mod certs;
mod demo;
mod federation;
mod fom;
mod gateway;
mod lab;
mod monitor;
mod output;
mod plan;
mod prometheus;
mod record;
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
    /// Log errors only: the command's own lines and results still print
    #[arg(short, long, global = true, conflicts_with = "verbose")]
    quiet: bool,
    /// Log more: -v every host and link started (INFO), -vv the protocol's steps (DEBUG)
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
}

#[derive(Subcommand)]
enum Command {
    /// A federation on this machine: vehicles on a map, a region subscriber, per-second counts.
    #[command(after_help = "Examples:
  trellis demo                              # a web page at http://127.0.0.1:8700, for 60 s
  trellis demo --no-web --seconds 10        # the per-second lines only
  trellis demo --time-stepped --vehicles 20 # regulating and constrained vehicles
  trellis demo --rti tcp://127.0.0.1:7000   # on a router already running (trellis up)")]
    Demo(demo::DemoArgs),
    /// Run a router until Ctrl-C or SIGTERM.
    #[command(after_help = "Examples:
  trellis router --listen tcp://0.0.0.0:7000        # one router; federates dial it
  trellis router --listen tcp://127.0.0.1:7001 --parent tcp://127.0.0.1:7000
                                                   # a second router, below the first
  trellis router --topology tree.toml --name root.1 # one router of a topology file")]
    Router(router::RouterArgs),
    /// Measure throughput, latency and loss.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    /// Object models (FOM / FDD modules).
    #[command(subcommand)]
    Fom(fom::FomCommand),
    /// Topology files: generate the common shapes (tree, mesh, hierarchy...), check any file.
    #[command(subcommand)]
    Topology(topology::TopologyCommand),
    /// Start every router of a topology on this machine until Ctrl-C or SIGTERM.
    #[command(after_help = "Examples:
  trellis topology gen tree -o tree.toml --metrics-from 9100
  trellis up tree.toml                  # every router of the file; Ctrl-C stops them all")]
    Up(up::UpArgs),
    /// Write per-process configuration and launch scripts for a topology across hosts.
    #[command(after_help = "Examples:
  trellis plan tree.toml --hosts hosts.toml -o plan          # then run plan/HOST.sh on each host
  trellis plan tree.toml --hosts hosts.toml --format slurm   # one batch script for sbatch")]
    Plan(plan::PlanArgs),
    /// Development certificates (a CA, one per router and federate) for mutual TLS.
    #[command(after_help = "Examples:
  trellis certs tree.toml --out certs   # certs/ca.pem, and NAME.pem + NAME.key per process")]
    Certs(certs::CertsArgs),
    /// Write one self-contained HTML report on benchmark results folders.
    #[command(after_help = "Examples:
  trellis report results/throughput-* results/pingpong-* -o report.html")]
    Report(report::ReportArgs),
    /// Serve a live web page of a topology's processes, scraped from their /metrics, and
    /// optionally a federation's members read from its MOM.
    #[command(after_help = "Examples:
  trellis up tree.toml &                # routers with metrics addresses
  trellis monitor tree.toml             # then open http://127.0.0.1:9300
  trellis monitor tree.toml --federation TrellisDemo --rti tcp://127.0.0.1:7000")]
    Monitor(monitor::MonitorArgs),
    /// A site lab on this machine: sites as network namespaces, site links with delay, loss
    /// and bandwidth; run a benchmark or a command in it (root).
    #[command(after_help = "Examples:
  trellis lab labs/two-sites-20ms.toml --bench 'pingpong --out results/wan'
  trellis lab labs/two-sites-20ms.toml --exec east -- ping -c 3 10.200.2.2
  trellis lab --clean                   # remove what crashed labs left")]
    Lab(lab::LabArgs),
    /// List the federation executions a router's registry knows, with their time
    /// implementation and number of federates.
    #[command(
        after_help = "FEDERATES counts every member the registry lists, running federation views
(trellis federation) included.

Examples:
  trellis federations                       # through the router at tcp://127.0.0.1:7000
  trellis federations tcp://10.0.0.5:7000 --json"
    )]
    Federations(federation::FederationsArgs),
    /// Show a federation's federates, read from the Management Object Model (MOM): name,
    /// type, handle, host, time state and counts.
    #[command(after_help = FEDERATION_HELP)]
    Federation(federation::FederationArgs),
    /// Record a federation's traffic to a file (updates, interactions, discoveries,
    /// deletions, time grants, gaps); `record inspect` summarises and exports one.
    #[command(after_help = record::RECORD_HELP)]
    Record(record::RecordArgs),
    /// Replay a recording into a federation: at 1×, N× or as fast as possible, or in
    /// logical-time steps as a regulating federate.
    #[command(after_help = "Examples:
  trellis replay demo.trec --rti tcp://127.0.0.1:7000 --federation Replay
  trellis replay demo.trec --federation Replay --speed 10 --from 30
  trellis replay demo.trec --federation Replay --time-step --from t=100")]
    Replay(record::ReplayArgs),
    /// Gateways to other simulation protocols: DIS (IEEE 1278.1).
    #[command(subcommand)]
    Gateway(gateway::GatewayCommand),
}

/// `trellis federation --help`'s closing text: what the columns mean, then examples.
const FEDERATION_HELP: &str = "\
The view joins the federation as a tool federate (type trellis-federation-view), subscribes
to HLAmanager.HLAfederate and HLAmanager.HLAfederation, asks every federate for its values,
prints them and resigns; it leaves itself out of what it shows.

Columns: REG and CON: time regulating and constrained; TIME: logical time; GALT: the
greatest time the RTI could grant the federate now; LAG = GALT - TIME: how far the federate
could advance without waiting for anyone (empty while GALT is undefined, when no other
federate regulates); a federate far behind its GALT may be one the others wait for. Counts as the MOM
keeps them: updates sent, reflections received, interactions sent and received, instances
registered and discovered. A '-' is a value the MOM does not give. Synchronization points,
object counts per class and save state are not in Trellis's MOM yet, so not shown.

Examples:
  trellis federation Demo                       # via tcp://127.0.0.1:7000, printed once
  trellis federation Demo tcp://10.0.0.5:7000 --json
  trellis federation Demo --watch 2             # reports every 2 s, redrawn until Ctrl-C";

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

/// The log level a command runs at unless TRELLIS_LOG says otherwise. The demo, the
/// benchmarks, `up` and the federation views speak in their own lines; beside them only
/// warnings and errors (their routers' and nodes' INFO — every host started, every link up —
/// was 50 to 130 lines, and four lines around a one-line table).
/// `--quiet` and `--verbose` move it for every command alike.
fn log_level(cli: &Cli) -> &'static str {
    if cli.quiet {
        return "error";
    }
    match (cli.verbose, &cli.command) {
        (
            0,
            Command::Demo(_)
            | Command::Bench(_)
            | Command::Up(_)
            | Command::Federations(_)
            | Command::Federation(_),
        ) => "warn",
        (0 | 1, _) => "info",
        _ => "debug",
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let level = log_level(&cli);
    if std::env::var_os("TRELLIS_LOG").is_none() {
        // The routers and agents these commands start inherit it. Set before any thread
        // starts, while the environment has no other reader.
        std::env::set_var("TRELLIS_LOG", level);
    }
    init_logging(level);
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
        Command::Federations(args) => federation::list(args),
        Command::Federation(args) => federation::show(args),
        Command::Record(args) => record::run_record(args),
        Command::Replay(args) => record::run_replay(args),
        Command::Gateway(command) => gateway::run(command),
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

#[cfg(test)]
mod readme_commands;

#[cfg(test)]
mod help_tests {
    use super::Cli;
    use clap::CommandFactory;

    /// Every visible command and subcommand, by its full name.
    fn commands() -> Vec<(String, clap::Command)> {
        let mut found = Vec::new();
        let mut stack = vec![(String::from("trellis"), Cli::command())];
        while let Some((name, command)) = stack.pop() {
            for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
                stack.push((format!("{name} {}", sub.get_name()), sub.clone()));
            }
            found.push((name, command));
        }
        found
    }

    /// A user reading `--help` learns what each argument is for: none is left bare.
    #[test]
    fn every_argument_says_what_it_is_for() {
        let mut bare = Vec::new();
        for (name, command) in commands() {
            for arg in command.get_arguments().filter(|a| !a.is_hide_set()) {
                let id = arg.get_id().as_str();
                if id == "help" || id == "version" {
                    continue;
                }
                if arg.get_help().is_none() && arg.get_long_help().is_none() {
                    bare.push(format!("{name}: {id}"));
                }
            }
        }
        assert!(
            bare.is_empty(),
            "arguments without help:\n{}",
            bare.join("\n")
        );
    }

    /// Every command a user runs shows an example of itself at the end of its `--help`.
    #[test]
    fn every_runnable_command_shows_an_example() {
        let mut missing = Vec::new();
        for (name, command) in commands() {
            if command.has_subcommands() {
                continue;
            }
            let after = (command.get_after_help().or(command.get_after_long_help()))
                .map(|text| text.to_string())
                .unwrap_or_default();
            if !after.contains("Example") || !after.contains(&name) {
                missing.push(name);
            }
        }
        assert!(
            missing.is_empty(),
            "commands without an example:\n{}",
            missing.join("\n")
        );
    }

    /// The words of one example line as a shell would pass them: its `# comment` and a
    /// trailing `&` dropped, '...' kept as one word.
    fn words(line: &str) -> Vec<String> {
        let line = line.split(" #").next().unwrap_or_default().trim();
        let line = line.strip_suffix('&').unwrap_or(line).trim();
        let mut words = Vec::new();
        for (i, part) in line.split('\'').enumerate() {
            if i % 2 == 1 {
                words.push(part.to_owned());
            } else {
                words.extend(part.split_whitespace().map(str::to_owned));
            }
        }
        words
    }

    /// Every example parses as the command it shows: none names a flag that is gone.
    #[test]
    fn every_example_parses() {
        use clap::Parser;
        let mut checked = 0;
        for (_, command) in commands() {
            let Some(after) = command.get_after_help() else {
                continue;
            };
            for line in after.to_string().lines() {
                let words = words(line);
                if words.first().map(String::as_str) != Some("trellis") {
                    continue;
                }
                if let Err(e) = Cli::try_parse_from(&words) {
                    panic!("the example {line:?} does not parse: {e}");
                }
                checked += 1;
            }
        }
        assert!(checked >= 30, "only {checked} examples found");
    }
}
