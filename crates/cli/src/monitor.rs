//! `trellis monitor`: the live web page of a topology's processes (crate trellis-monitor).

use crate::UsageError;
use anyhow::Result;
use clap::Args;
use signal_hook::consts::{SIGINT, SIGTERM};
use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use trellis_monitor::federation::WatchSetup;
use trellis_monitor::monitor::{self, MonitorSetup, Source, Target};
use trellis_net::rti::LocalSettings;

#[derive(Args)]
pub(crate) struct MonitorArgs {
    /// The topology file to draw; routers with a `metrics = "IP:PORT"` key are scraped.
    file: PathBuf,
    /// Where the page is served.
    #[arg(long, default_value = "127.0.0.1:9300")]
    listen: SocketAddr,
    /// Also scrape this process of the topology (a federate process started with
    /// `--metrics`, or a router whose file entry has no `metrics` key). Repeatable.
    #[arg(long, value_name = "NAME=IP:PORT")]
    scrape: Vec<String>,
    /// Show this federation execution in a panel beside the topology: each federate's name,
    /// type, host, time state and counts, and its logical time against wall time, read
    /// from the MOM by a tool federate that joins it (and resigns when the monitor stops).
    /// A federation that does not exist yet is tried again every few seconds.
    #[arg(long, value_name = "NAME")]
    federation: Option<String>,
    /// The router the federation panel's tool federate attaches to [default:
    /// TRELLIS_RTI_ADDRESS, else tcp://127.0.0.1:7000].
    #[arg(long, value_name = "ROUTER", requires = "federation")]
    rti: Option<String>,
    /// A folder to look in for the federation's FOM modules when they are not where its
    /// registry lists them; repeatable.
    #[arg(long, value_name = "DIR", requires = "federation")]
    fom_path: Vec<PathBuf>,
}

/// The federation panel's setup, from `--federation`, `--rti` and `--fom-path`.
fn federation_watch(args: &MonitorArgs) -> Result<Option<WatchSetup>> {
    let Some(federation) = &args.federation else {
        return Ok(None);
    };
    let settings =
        LocalSettings::parse(args.rti.as_deref()).map_err(|e| UsageError(format!("--rti: {e}")))?;
    Ok(Some(WatchSetup {
        settings,
        federation: federation.clone(),
        fom_path: args.fom_path.clone(),
        built_in: crate::federation::built_in_modules().to_vec(),
    }))
}

/// `NAME=IP:PORT` of `--scrape`, checked against the topology.
fn extra_target(setup: &MonitorSetup, text: &str) -> Result<Target> {
    let usage = |why: String| UsageError(format!("--scrape {text:?}: {why}"));
    let (name, address) = text
        .split_once('=')
        .ok_or_else(|| usage("expected NAME=IP:PORT".into()))?;
    let node = setup
        .graph
        .node_index(name)
        .ok_or_else(|| usage(format!("the topology has no process {name:?}")))?;
    let address = address
        .parse()
        .map_err(|e| usage(format!("bad address {address:?}: {e}")))?;
    Ok(Target {
        node,
        source: Source::Http(address),
    })
}

pub(crate) fn run(args: MonitorArgs) -> Result<()> {
    let topology = crate::topology::load(&args.file)?;
    let mut setup = MonitorSetup::from_topology(&topology, &args.file.display().to_string());
    for text in &args.scrape {
        let target = extra_target(&setup, text)?;
        setup.targets.retain(|t| t.node != target.node);
        setup.targets.push(target);
    }
    setup.federation = federation_watch(&args)?;
    let sources = setup.targets.len();
    let processes = setup.graph.nodes.len();
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    let running = monitor::start(setup, args.listen).map_err(|e| UsageError(e.to_string()))?;
    let mut stdout = std::io::stdout();
    // A closed stdout must not stop the page: the lines are a courtesy.
    let _ = writeln!(
        stdout,
        "monitor of {} at {} ({processes} processes, {sources} scraped every second); Ctrl-C stops it",
        args.file.display(),
        running.url()
    );
    if let Some(federation) = &args.federation {
        let _ = writeln!(
            stdout,
            "federation panel: {federation:?}, read from its MOM by a tool federate"
        );
    }
    if sources == 0 {
        let _ = writeln!(
            stdout,
            "no process has a metrics address (the `metrics` key of [[router]], or --scrape): \
             the page shows the topology without figures"
        );
    }
    let _ = stdout.flush();
    signals.forever().next();
    drop(running);
    Ok(())
}
