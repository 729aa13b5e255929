//! `trellis federations` (the federation executions a router's registry knows, and how many
//! federates each has) and `trellis federation NAME` (its federates, read from the MOM as
//! any tool federate would: join, subscribe to `HLAmanager`, ask, resign).

use crate::output::{out, outln};
use anyhow::{Context, Result};
use clap::Args;
use serde::Serialize;
use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use trellis_core::registry::{Request, Response};
use trellis_monitor::federation::{tool, view};
use trellis_net::rti::LocalSettings;
use trellis_net::{DirectNode, NodeConfig};

/// How long a registry request may take.
const REGISTRY_TIMEOUT: Duration = Duration::from_secs(10);

/// The router argument every federation command takes, with its default.
const ROUTER_HELP: &str = "The router to attach to: tcp://HOST:PORT, tls://HOST:PORT or \
HOST:PORT [default: TRELLIS_RTI_ADDRESS, else tcp://127.0.0.1:7000, where federates attach by default]";

#[derive(Args)]
pub(crate) struct FederationsArgs {
    #[arg(value_name = "ROUTER", help = ROUTER_HELP)]
    router: Option<String>,
    /// Print one JSON document instead of the table.
    #[arg(long)]
    json: bool,
}

#[derive(Args)]
pub(crate) struct FederationArgs {
    /// The federation execution to show.
    name: String,
    #[arg(value_name = "ROUTER", help = ROUTER_HELP)]
    router: Option<String>,
    /// Print one JSON document instead of the table (with --watch, one per line per redraw).
    #[arg(long)]
    json: bool,
    /// Ask every federate to report every SECONDS (HLAadjust.HLAsetTiming) and redraw, until
    /// Ctrl-C; the reports stop when the view leaves.
    #[arg(long, value_name = "SECONDS", num_args = 0..=1, default_missing_value = "1",
          value_parser = clap::value_parser!(i32).range(1..=86_400))]
    watch: Option<i32>,
    /// How long to wait for every federate's answer before showing what came.
    #[arg(long, value_name = "SECONDS", default_value_t = 5)]
    wait: u64,
    /// A folder to look in for the federation's FOM modules when they are not where its
    /// registry lists them (created on another host); repeatable.
    #[arg(long, value_name = "DIR")]
    fom_path: Vec<PathBuf>,
}

fn settings(router: Option<&str>) -> Result<LocalSettings> {
    Ok(LocalSettings::parse(router)?)
}

/// One federation execution as `trellis federations` lists it.
#[derive(Serialize)]
struct Listed {
    name: String,
    time_implementation: String,
    /// Every member the registry lists (federation views included).
    federates: usize,
}

pub(crate) fn list(args: FederationsArgs) -> Result<()> {
    let settings = settings(args.router.as_deref())?;
    let name = format!("federations-{}", std::process::id());
    let mut node_config = NodeConfig::child_of(name, "", settings.endpoint.clone());
    node_config.tls = settings.tls.clone();
    let mut node = DirectNode::connect(node_config)
        .with_context(|| format!("connecting to the router at {}", settings.endpoint))?;
    let mut ask = |request| match node.manage(request, REGISTRY_TIMEOUT)? {
        Response::Error { kind, message } => {
            anyhow::bail!("the federation registry refused: {kind:?}: {message}")
        }
        answer => Ok(answer),
    };
    let Response::Federations(federations) = ask(Request::ListFederations)? else {
        anyhow::bail!("the federation registry answered a list with something else");
    };
    let mut listed = Vec::new();
    for (name, time_implementation) in federations {
        let request = Request::Federates {
            federation: name.clone(),
        };
        let federates = match ask(request)? {
            Response::Federates(members) => members.len(),
            other => {
                anyhow::bail!("the federation registry answered {other:?} for {name:?}'s members")
            }
        };
        listed.push(Listed {
            name,
            time_implementation,
            federates,
        });
    }
    print_listed(&listed, args.json)
}

fn print_listed(listed: &[Listed], json: bool) -> Result<()> {
    if json {
        outln!("{}", serde_json::to_string_pretty(listed)?);
        return Ok(());
    }
    let width = listed
        .iter()
        .map(|l| l.name.chars().count())
        .max()
        .unwrap_or(0);
    let width = width.max("FEDERATION".len());
    outln!("{:<width$}  {:<16}  FEDERATES", "FEDERATION", "TIME");
    for l in listed {
        outln!(
            "{:<width$}  {:<16}  {}",
            l.name,
            l.time_implementation,
            l.federates
        );
    }
    Ok(())
}

pub(crate) fn show(args: FederationArgs) -> Result<()> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        signal_hook::flag::register(signal, stop.clone())?;
    }
    let stopped = || stop.load(Ordering::Relaxed);
    let settings = settings(args.router.as_deref())?;
    let mut tool = tool::Tool::join(&settings, &args.name, &args.fom_path, &built_in_modules())?;
    // Whatever happens from here, the view leaves the federation.
    let shown = show_joined(&mut tool, &args, &stopped);
    let stopped_reports = if args.watch.is_some() {
        tool.stop_reports()
    } else {
        Ok(())
    };
    let resigned = tool.resign();
    shown
        .and(stopped_reports.map_err(Into::into))
        .and(resigned.map_err(Into::into))
}

/// The FOM modules built into `trellis` (the demo's), for a federation created from them.
pub(crate) fn built_in_modules() -> [tool::BuiltInModule; 1] {
    [("trellis-demo.xml", trellis_tools::demo::DEMO_FOM)]
}

fn show_joined(
    tool: &mut tool::Tool,
    args: &FederationArgs,
    stop: &dyn Fn() -> bool,
) -> Result<()> {
    tool.read(Duration::from_secs(args.wait), stop)?;
    print_report(tool, args, false)?;
    let Some(period) = args.watch else {
        return Ok(());
    };
    let seconds = Duration::from_secs(u64::from(period.unsigned_abs()));
    // A member's first report comes a period after it is asked: redraw half a period after
    // the reports arrive, not just before them, so no frame is a period stale.
    tool.ask_for_reports(period)?;
    tool.take_for(seconds / 2, stop)?;
    while !stop() {
        tool.ask_for_reports(period)?;
        tool.take_for(seconds, stop)?;
        if stop() {
            break;
        }
        tool.refresh_members()?;
        print_report(tool, args, true)?;
    }
    Ok(())
}

/// Print what the view knows now; `redraw`: not the first time.
fn print_report(tool: &tool::Tool, args: &FederationArgs, redraw: bool) -> Result<()> {
    let mut problems = Vec::new();
    let report = tool.report(&mut problems);
    for problem in problems {
        tracing::warn!("{problem}");
    }
    if args.json {
        // With --watch: one document per line, so a reader takes them one at a time.
        let text = if args.watch.is_some() {
            serde_json::to_string(&report)?
        } else {
            serde_json::to_string_pretty(&report)?
        };
        outln!("{text}");
        return Ok(());
    }
    if redraw && std::io::IsTerminal::is_terminal(&std::io::stdout()) {
        // Clear the screen and home the cursor: the table redraws in place.
        out!("\x1b[2J\x1b[H");
    } else if redraw {
        outln!("");
    }
    out!("{}", view::text(&report));
    Ok(())
}
