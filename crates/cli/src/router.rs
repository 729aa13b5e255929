//! `trellis router`: one router host, listening and dialing, until a signal.

use crate::output::write_stdout;
use crate::UsageError;
use anyhow::{Context, Result};
use clap::Args;
use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::PathBuf;
use std::time::Duration;
use trellis_core::fom::ObjectModel;
use trellis_core::policy::{ClassTable, Policy};
use trellis_core::router::RouterConfig;
use trellis_core::topology::{NodeKind, NodePlan};
use trellis_core::wire::NodeId;
use trellis_net::{DialConfig, Endpoint, HostConfig, NetError, Runtime, TlsConfig};
use trellis_tools::bench::Bundling;

#[derive(Args)]
pub(crate) struct RouterArgs {
    /// Where to listen: tcp://HOST:PORT (or HOST:PORT, or OpenRTI's rti://HOST[:PORT]), tls://HOST:PORT (TCP inside TLS: needs --tls-cert, --tls-key, --tls-ca), udp://HOST:PORT (best effort beside TCP), mem://NAME.
    #[arg(long = "listen", value_name = "URL", required_unless_present_any = ["topology", "plan"])]
    listen: Vec<String>,
    /// Another router of our mesh (clique); of each pair, the lower address dials.
    #[arg(long = "peer", value_name = "URL")]
    peers: Vec<String>,
    /// Our parent router in a tree; we dial it and redial it after failures.
    #[arg(long, value_name = "URL")]
    parent: Option<String>,
    /// Name shown to peers and in logs (with --topology: which router of the file to run).
    #[arg(long, default_value = "router")]
    name: String,
    /// Name of the clique our --peer links form.
    #[arg(long, default_value = "mesh")]
    clique: String,
    /// Do not hold the federation registry. By default the router at the top holds it: one
    /// with no --parent whose address sorts before every --peer.
    #[arg(long)]
    no_registry: bool,
    /// Run the router named --name of this topology file, with the links it gives it.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["listen", "peers", "parent", "plan"])]
    topology: Option<PathBuf>,
    /// Run from a per-process plan written by `trellis plan`.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["listen", "peers", "parent"])]
    plan: Option<PathBuf>,
    /// Most links at once; connections beyond are refused with a goodbye saying so.
    #[arg(long, default_value_t = 4096)]
    max_links: usize,
    /// Most links accepted from one source address (loopback included); more are refused
    /// at accept with a goodbye saying so, so one host cannot take every slot.
    #[arg(long, value_name = "N", default_value_t = trellis_net::DEFAULT_MAX_LINKS_PER_ADDRESS)]
    max_links_per_address: usize,
    /// Most links accepted under one certificate name (mutual TLS), routers aside; more
    /// are refused at their hello with a goodbye saying so.
    #[arg(long, value_name = "N", default_value_t = trellis_net::DEFAULT_MAX_LINKS_PER_IDENTITY)]
    max_links_per_identity: usize,
    /// The last N of --max-links are kept for routers (links this router dials, and
    /// accepted ones whose hello says router); a federate arriving when only these are left
    /// is refused.
    #[arg(long, value_name = "N", default_value_t = trellis_net::DEFAULT_RESERVED_ROUTER_SLOTS)]
    reserved_router_slots: usize,
    /// A frame still incomplete this long after its first bytes arrived closes its link
    /// (a peer dripping a frame it never finishes). 0 never closes.
    #[arg(long, value_name = "MS", default_value_t = trellis_core::router::DEFAULT_FRAME_DEADLINE.as_millis() as u64)]
    frame_deadline_ms: u64,
    /// On the router holding the registry: most existing federations one identity (its
    /// certificate name; a node, over links without certificates) may have created.
    #[arg(long, value_name = "N", default_value_t = trellis_core::registry::DEFAULT_FEDERATIONS_PER_CREATOR)]
    federations_per_creator: usize,
    /// On the router holding the registry: most federates one identity (or node, without
    /// certificates) may have joined at once.
    #[arg(long, value_name = "N", default_value_t = trellis_core::registry::DEFAULT_FEDERATES_PER_NODE)]
    federates_per_node: usize,
    /// A federate whose reliable queue stays full this long, taking nothing, is cut as a
    /// slow consumer; its publishers are paused meanwhile, so this bounds the stall one
    /// federate can cause the others.
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    slow_consumer_ms: u64,
    /// How often to tell the registry which federates are linked here and alive.
    #[arg(long, value_name = "MS", default_value_t = 2000)]
    vouch_ms: u64,
    /// On the router holding the registry: a federate no router vouched for within this
    /// long (its router died, or it is cut off) is resigned as died.
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    federate_lease_ms: u64,
    /// Microseconds the router keeps polling its sockets after it runs out of work before it
    /// sleeps, while its recent waits were that short: a message arriving meanwhile costs no
    /// thread wake-up (tens of microseconds on virtual machines); sparse traffic sleeps at
    /// once. After forwarding to a link that answers promptly (a round trip through the
    /// router) it polls up to 200 µs for the answer. 0 always sleeps at once.
    #[arg(long, value_name = "US", default_value_t = trellis_net::DEFAULT_SPIN.as_micros() as u64)]
    spin_us: u64,
    /// Most bytes of keep-latest updates kept for federates that subscribe later (their
    /// newest values are sent to them at once); past it the least recently updated
    /// instances go first. 0 keeps none (queued updates are still replaced).
    #[arg(
        long,
        value_name = "BYTES",
        default_value_t = trellis_core::router::DEFAULT_LATEST_CACHE_BYTES
    )]
    latest_cache_bytes: usize,
    /// How frames are bundled into writes on every link: off (one frame per write), adaptive
    /// (the default: batches form while a write is under way; an idle link writes at once),
    /// or a delay in milliseconds to hold frames for (5 or 20, say). A
    /// topology file sets it per link instead (`bundling_delay_ms`).
    #[arg(long, value_name = "off|adaptive|MS", conflicts_with_all = ["topology", "plan"])]
    bundling: Option<String>,
    /// This router's certificate (PEM, then its intermediates), for tls:// listeners; it is
    /// also presented when dialing a tls:// parent or peer.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<PathBuf>,
    /// The CAs this router trusts (PEM): for the certificates of tls:// parents and peers,
    /// and of clients that present one.
    #[arg(long, value_name = "FILE")]
    tls_ca: Option<PathBuf>,
    /// Mutual TLS: refuse clients without a certificate from --tls-ca.
    #[arg(long, requires = "tls_ca")]
    mtls: bool,
    /// Serve this router's figures for Prometheus on http://IP:PORT/metrics (with
    /// --topology or --plan: instead of the file's `metrics` address).
    #[arg(long, value_name = "IP:PORT")]
    metrics: Option<std::net::SocketAddr>,
    /// Who may create, join and destroy which federations, and publish and subscribe to
    /// which classes (TOML `[[allow]]` rules of certificate names, federation names,
    /// actions and class patterns, and `[[model]]`s naming the object model class rules
    /// speak of; anything not allowed is refused). Checked here for the federates that
    /// reach the network through this router.
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
}

/// The access policy of `--policy`, if given.
fn load_policy(args: &RouterArgs) -> Result<Option<std::sync::Arc<Policy>>> {
    let Some(file) = &args.policy else {
        return Ok(None);
    };
    let text = std::fs::read_to_string(file)
        .map_err(|e| UsageError(format!("--policy {}: {e}", file.display())))?;
    let mut policy =
        Policy::from_toml(&text).map_err(|e| UsageError(format!("{}: {e}", file.display())))?;
    let base = file.parent().unwrap_or(std::path::Path::new("."));
    for (index, model) in policy.model.iter_mut().enumerate() {
        let paths: Vec<PathBuf> = model.modules.iter().map(|m| base.join(m)).collect();
        let loaded = ObjectModel::load(&paths, &|path| std::fs::read(path))
            .map_err(|e| UsageError(format!("{}: model {}: {e}", file.display(), index + 1)))?;
        model.table = Some(std::sync::Arc::new(ClassTable::of(&loaded, model.bins)));
    }
    Ok(Some(std::sync::Arc::new(policy)))
}

/// The bounds and bundling the command line sets on every host it runs.
fn apply_limits(config: &mut HostConfig, args: &RouterArgs) -> Result<()> {
    if let Some(bundling) = &args.bundling {
        let bundling = bundling
            .parse::<Bundling>()
            .map_err(|e| UsageError(format!("--bundling: {e}")))?
            .link_config();
        config.router.link_defaults.batch_limit_bytes = bundling.batch_limit_bytes;
        config.router.link_defaults.bundling_delay = bundling.bundling_delay;
    }
    config.max_links = args.max_links;
    config.max_links_per_address = args.max_links_per_address;
    config.max_links_per_identity = args.max_links_per_identity;
    config.reserved_router_slots = args.reserved_router_slots;
    config.router.link_defaults.frame_deadline = Duration::from_millis(args.frame_deadline_ms);
    config.router.registry_limits = trellis_core::registry::RegistryLimits {
        federations_per_creator: args.federations_per_creator,
        federates_per_node: args.federates_per_node,
    };
    config.router.link_defaults.slow_consumer_timeout =
        Duration::from_millis(args.slow_consumer_ms);
    config.router.vouch_interval = Duration::from_millis(args.vouch_ms);
    config.router.federate_lease = Duration::from_millis(args.federate_lease_ms);
    config.router.latest_cache_bytes = args.latest_cache_bytes;
    config.router.policy = load_policy(args)?;
    apply_tls(config, args)
}

/// The TLS files of the command line, over any a plan names.
fn apply_tls(config: &mut HostConfig, args: &RouterArgs) -> Result<()> {
    let Some(ca) = &args.tls_ca else {
        if args.tls_cert.is_some() {
            return Err(UsageError("--tls-cert needs --tls-ca (the CAs to trust)".into()).into());
        }
        return Ok(());
    };
    config.tls = Some(TlsConfig {
        cert_chain_pem: args.tls_cert.clone(),
        key_pem: args.tls_key.clone(),
        trusted_ca_pem: ca.clone(),
        require_client_cert: args.mtls,
    });
    Ok(())
}

fn endpoint(text: &str) -> Result<Endpoint> {
    text.parse::<Endpoint>()
        .map_err(|e| UsageError(e.to_string()).into())
}

fn node_id(name: &str) -> NodeId {
    use std::hash::BuildHasher;
    NodeId(std::collections::hash_map::RandomState::new().hash_one((name, std::process::id())))
}

/// The host of the classic flags: --listen, --peer, --parent.
fn host_from_flags(args: &RouterArgs) -> Result<HostConfig> {
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
        .find(|e| {
            matches!(
                e,
                Endpoint::Tcp(_) | Endpoint::Tls { .. } | Endpoint::Memory(_)
            )
        })
        .cloned()
        .ok_or_else(|| UsageError("--listen needs a tcp://, tls:// or mem:// address".into()))?;
    let mut router = RouterConfig::new(args.name.clone(), node_id(&args.name));
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
    Ok(config)
}

/// The host a topology plan describes.
pub(crate) fn host_from_plan(plan: &NodePlan, no_registry: bool) -> Result<HostConfig> {
    if plan.kind != NodeKind::Router {
        return Err(UsageError(format!("{} is a federate, not a router", plan.name)).into());
    }
    let mut config = trellis_net::plan::host_config(
        plan,
        RouterConfig::new(plan.name.clone(), node_id(&plan.name)),
        "",
    )?;
    config.router.hosts_registry &= !no_registry;
    Ok(config)
}

/// Ask glibc's allocator to keep the memory a router frees for reuse instead of handing it
/// back to the system at once. A router reads into 128 KiB buffers that the frames it
/// queues keep alive, and they are freed on the event loop's thread as those frames leave:
/// by default each such block is mapped or trimmed away and the next one is fresh pages,
/// zeroed in a page fault each. At 64-byte throughput through a separate router that was
/// 5,300 to 15,300 faults per million messages; with this, 2,700 to 3,200. A router process
/// then keeps memory up to its high-water mark (bounded by its queue and resend limits), as
/// servers with their own allocators do. Only the router command decides it: a federate's
/// process keeps its host's policy, since retained memory would count against its memory
/// per entity.
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        /// Blocks below this come from the heap, not a mapping of their own.
        const MMAP_THRESHOLD_BYTES: libc::c_int = 4 << 20;
        /// Free memory at the top of a heap is given back only past this.
        const TRIM_THRESHOLD_BYTES: libc::c_int = 64 << 20;
        #[allow(unsafe_code)] // glibc's tuning has no safe wrapper
        // SAFETY: mallopt only sets the allocator's parameters, before the router's threads
        // start. A refusal (0) leaves the defaults, which work, only slower.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES);
            libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD_BYTES);
        }
    }
}

pub(crate) fn run(args: RouterArgs) -> Result<()> {
    keep_freed_memory();
    // With a topology, `trellis up` waits for a "ready" line once the router links are up.
    let (config, ready_after, planned_metrics) = if let Some(file) = &args.topology {
        let topology = crate::topology::load(file)?;
        let plan = topology
            .plan(&args.name)
            .map_err(|e| UsageError(format!("{}: {e}", file.display())))?;
        (
            host_from_plan(&plan, args.no_registry)?,
            Some(trellis_net::plan::router_links(&topology, &plan)),
            plan.metrics,
        )
    } else if let Some(file) = &args.plan {
        let text = std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?;
        let plan: NodePlan =
            toml::from_str(&text).map_err(|e| UsageError(format!("{}: {e}", file.display())))?;
        (host_from_plan(&plan, args.no_registry)?, None, plan.metrics)
    } else {
        (host_from_flags(&args)?, None, None)
    };
    let mut config = config;
    apply_limits(&mut config, &args)?;
    let name = config.router.node_name.clone();
    // Register the handlers before the router starts, so an early signal is not lost.
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM])?;
    let runtime = Runtime::start_spinning(&name, Duration::from_micros(args.spin_us))?;
    let host = runtime.add_host(config).map_err(|e| match e {
        NetError::Listen { .. } | NetError::Tls(_) => UsageError(e.to_string()).into(),
        other => anyhow::Error::from(other),
    })?;
    let _metrics = serve_metrics(args.metrics.or(planned_metrics), &name, &host)?;
    // A router is a service: a closed stdout (its launcher gone) must not stop it, so what it
    // prints there is best effort.
    for endpoint in host.listening() {
        let _ = write_stdout(format_args!("listening on {endpoint}\n"));
    }
    if let Some(expected_links) = ready_after {
        let host = host.clone();
        std::thread::spawn(move || {
            if host
                .wait_for_links(expected_links, Duration::from_secs(3600))
                .is_ok()
            {
                let _ = write_stdout(format_args!("ready: {expected_links} router links up\n"));
            }
        });
    }
    if let Some(signal) = signals.forever().next() {
        tracing::info!(signal, "stopping: closing links");
    }
    runtime.shutdown();
    Ok(())
}

/// Serve the router's figures on `address`, if given; a port in use is a usage error.
fn serve_metrics(
    address: Option<std::net::SocketAddr>,
    name: &str,
    host: &trellis_net::Host,
) -> Result<Option<trellis_monitor::metrics::MetricsServer>> {
    let Some(address) = address else {
        return Ok(None);
    };
    let server = trellis_monitor::metrics::serve_router(address, name, host.clone())
        .map_err(|e| UsageError(e.to_string()))?;
    tracing::info!(
        router = name,
        "metrics on http://{}/metrics",
        server.address()
    );
    Ok(Some(server))
}
