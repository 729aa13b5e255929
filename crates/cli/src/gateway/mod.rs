//! `trellis gateway dis`: the DIS gateway federate (crates/dis) with its options, a
//! summary line of counts every few seconds, until Ctrl-C or SIGTERM.

use crate::output::write_stdout;
use crate::UsageError;
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use signal_hook::consts::{SIGINT, SIGTERM};
use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use trellis_dis::{Gateway, GatewayConfig};

#[derive(Subcommand)]
pub(crate) enum GatewayCommand {
    /// Join a federation with the RPR FOM 2.0 and exchange DIS PDUs over UDP: Entity State,
    /// Fire, Detonation, Remove Entity.
    #[command(after_help = "Examples:
  trellis gateway dis --fom rpr --federation Exercise --broadcast
  trellis gateway dis --fom rpr --federation Exercise --listen 0.0.0.0:3000 --multicast 239.1.2.3
  trellis gateway dis --fom rpr --federation Exercise --listen 127.0.0.1:3001 --send 127.0.0.1:3000

Prints \"dis gateway: listening on ADDR, joined FEDERATION\" once joined, then a line of
counts every --summary seconds and at the end (docs/dis-gateway.md says what each means).")]
    Dis(DisArgs),
}

#[derive(Args)]
pub(crate) struct DisArgs {
    /// The RPR FOM 2.0 modules: files, or directories whose .xml files are all loaded
    /// (sorted by name). Repeatable.
    #[arg(long, value_name = "PATH", required = true)]
    fom: Vec<PathBuf>,
    /// The router, as a local settings designator.
    #[arg(long, value_name = "URL", default_value = "tcp://127.0.0.1:7000")]
    rti: String,
    /// The federation execution to join (created with --fom if it does not exist).
    #[arg(long)]
    federation: String,
    /// This federate's name.
    #[arg(long, default_value = "dis-gateway")]
    name: String,
    /// Where DIS PDUs arrive (IP:PORT; port 0 picks one and prints it).
    #[arg(long, value_name = "IP:PORT", default_value = "0.0.0.0:3000")]
    listen: SocketAddr,
    /// Where PDUs are sent (unicast, repeatable).
    #[arg(long = "send", value_name = "IP:PORT")]
    send_to: Vec<SocketAddr>,
    /// Send to the broadcast address at the listening port (unless --send is given too).
    #[arg(long)]
    broadcast: bool,
    /// Join this multicast group and send to it at the listening port (unless --send).
    #[arg(long, value_name = "GROUP")]
    multicast: Option<Ipv4Addr>,
    /// The DIS exercise id: only PDUs of it are read, every PDU sent carries it.
    #[arg(long, default_value_t = 1)]
    exercise: u8,
    /// The gateway's DIS site id.
    #[arg(long, default_value_t = 1)]
    site: u16,
    /// The gateway's DIS application id.
    #[arg(long, default_value_t = 1)]
    application: u16,
    /// Seconds of silence after which an HLA entity's Entity State is sent again, dead-reckoned.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    heartbeat: f64,
    /// Seconds after which a DIS entity not heard from is deleted (DIS: 2.4 heartbeats).
    #[arg(long, value_name = "SECONDS", default_value_t = 12.0)]
    timeout: f64,
    /// The most entities in each direction; more are left out and counted (table_full).
    #[arg(long, value_name = "N", default_value_t = 100_000)]
    max_entities: usize,
    /// Seconds between summary lines.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    summary: f64,
}

pub(crate) fn run(command: GatewayCommand) -> Result<()> {
    match command {
        GatewayCommand::Dis(args) => dis(args),
    }
}

fn seconds(name: &str, value: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(value)
        .ok()
        .filter(|d| !d.is_zero())
        .ok_or_else(|| UsageError(format!("--{name} {value}: a positive number of seconds")).into())
}

/// Directories stand for their .xml files, sorted.
fn fom_modules(paths: &[PathBuf]) -> Result<Vec<PathBuf>> {
    let mut modules = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = std::fs::read_dir(path)
                .with_context(|| format!("--fom {}", path.display()))?
                .filter_map(|entry| entry.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|e| e == "xml"))
                .collect();
            found.sort();
            if found.is_empty() {
                return Err(UsageError(format!("--fom {}: no .xml files", path.display())).into());
            }
            modules.extend(found);
        } else {
            modules.push(path.clone());
        }
    }
    Ok(modules)
}

fn dis(args: DisArgs) -> Result<()> {
    let config = GatewayConfig {
        rti: args.rti,
        federation: args.federation.clone(),
        federate_name: args.name,
        fom: fom_modules(&args.fom)?,
        listen: args.listen,
        send_to: args.send_to,
        broadcast: args.broadcast,
        multicast: args.multicast,
        exercise: args.exercise,
        site: args.site,
        application: args.application,
        heartbeat: seconds("heartbeat", args.heartbeat)?,
        timeout: seconds("timeout", args.timeout)?,
        max_entities: args.max_entities,
    };
    let every = seconds("summary", args.summary)?;
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let gateway = Gateway::start(config)?;
    let at = gateway
        .local_addr()
        .map_or_else(|| "?".to_owned(), |a| a.to_string());
    write_stdout(format_args!(
        "dis gateway: listening on {at}, joined {}\n",
        args.federation
    ))?;
    let mut failed_write = None;
    let counts = gateway.run(&stop, every, &mut |counts| {
        if let Err(e) = write_stdout(format_args!("dis gateway: {counts}\n")) {
            failed_write.get_or_insert(e);
        }
    })?;
    tracing::info!(%counts, "dis gateway stopped");
    match failed_write {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
