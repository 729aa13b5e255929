//! `trellis router`: one router host, listening and dialing, until a signal.

use crate::UsageError;
use anyhow::Result;
use clap::Args;
use signal_hook::consts::{SIGINT, SIGTERM};
use trellis_core::router::RouterConfig;
use trellis_core::wire::NodeId;
use trellis_net::{DialConfig, Endpoint, HostConfig, NetError, Runtime};

#[derive(Args)]
pub(crate) struct RouterArgs {
    /// Where to listen: tcp://HOST:PORT, udp://HOST:PORT (best effort beside TCP), mem://NAME.
    #[arg(long = "listen", value_name = "URL", required = true)]
    listen: Vec<String>,
    /// Another router of our mesh (clique); of each pair, the lower address dials.
    #[arg(long = "peer", value_name = "URL")]
    peers: Vec<String>,
    /// Our parent router in a tree; we dial it and redial it after failures.
    #[arg(long, value_name = "URL")]
    parent: Option<String>,
    /// Name shown to peers and in logs.
    #[arg(long, default_value = "router")]
    name: String,
    /// Name of the clique our --peer links form.
    #[arg(long, default_value = "mesh")]
    clique: String,
    /// Do not hold the federation registry. By default the router at the top holds it: one
    /// with no --parent whose address sorts before every --peer.
    #[arg(long)]
    no_registry: bool,
}

fn endpoint(text: &str) -> Result<Endpoint> {
    text.parse::<Endpoint>()
        .map_err(|e| UsageError(e.to_string()).into())
}

pub(crate) fn run(args: RouterArgs) -> Result<()> {
    let listen = args
        .listen
        .iter()
        .map(|l| endpoint(l))
        .collect::<Result<Vec<_>>>()?;
    let peers = args
        .peers
        .iter()
        .map(|p| endpoint(p))
        .collect::<Result<Vec<_>>>()?;
    let parent = args.parent.as_deref().map(endpoint).transpose()?;
    let own = listen
        .iter()
        .find(|e| matches!(e, Endpoint::Tcp(_) | Endpoint::Memory(_)))
        .cloned()
        .ok_or_else(|| UsageError("--listen needs a tcp:// or mem:// address".into()))?;

    let node_id = NodeId(std::process::id() as u64 ^ (own.to_string().len() as u64) << 32);
    let mut router = RouterConfig::new(args.name.clone(), node_id);
    router.hosts_registry = !args.no_registry && parent.is_none() && peers.iter().all(|p| *p > own);
    let mut config = HostConfig::new(router);
    config.listen = listen;
    for peer in peers.into_iter().filter(|p| *p > own) {
        config
            .dial
            .push(DialConfig::peer(peer, "", args.clique.clone()));
    }
    if let Some(parent) = parent {
        config.dial.push(DialConfig::parent(parent, ""));
    }
    // Register the handlers before the router starts, so an early signal is not lost.
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    let runtime = Runtime::start(&args.name)?;
    let host = runtime.add_host(config).map_err(|e| match e {
        NetError::Listen { .. } => UsageError(e.to_string()).into(),
        other => anyhow::Error::from(other),
    })?;
    for endpoint in host.listening() {
        println!("listening on {endpoint}");
    }
    use std::io::Write;
    std::io::stdout().flush()?;
    if let Some(signal) = signals.forever().next() {
        tracing::info!(signal, "stopping: closing links");
    }
    runtime.shutdown();
    Ok(())
}
