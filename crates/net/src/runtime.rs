//! A runtime is one event-loop thread that drives one or more hosts (router cores with their
//! listeners and dials). A router process runs one host; a test or `trellis up --in-process`
//! may run several in one runtime, linked by memory pipes.

use crate::endpoint::Endpoint;
use crate::error::NetError;
use crate::event_loop::{Command, EventLoop};
use crate::wake::Wakeup;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use trellis_core::router::{IndexStats, LinkConfig, LinkInfo, RouterConfig, RouterStats};
use trellis_core::wire::Role;

/// A link a host opens itself, and reopens after failures when persistent.
#[derive(Clone, Debug)]
pub struct DialConfig {
    /// `tcp://`, `tls://` or `mem://`.
    pub endpoint: Endpoint,
    /// What the far side is to us: `Parent` (we are its child) or `Peer`.
    pub far_role: Role,
    /// The federation the link serves; empty for a router-to-router link carrying all.
    pub federation: String,
    /// For peers: the clique both belong to.
    pub clique: String,
    /// Carry best-effort frames over UDP beside the TCP link.
    pub udp: bool,
    /// Settings of the dialed link; `None` takes the router's defaults.
    pub link: Option<LinkConfig>,
    /// Redial after the link fails.
    pub persistent: bool,
    /// Give up after this many failed attempts in a row.
    pub max_attempts: u32,
    /// Where to attach instead, in turn, when the link fails (N+1 failover): each failure
    /// moves the next dial to the next of `endpoint` and these, round the list.
    pub alternates: Vec<Endpoint>,
}

impl DialConfig {
    /// The router's view of the link this dial opens, labelled `label` in logs.
    pub(crate) fn link_spec(&self, label: String) -> trellis_core::router::LinkSpec {
        use trellis_core::wire::LinkFlags;
        let mut flags = LinkFlags::source_sink();
        if self.persistent {
            flags = flags | LinkFlags::PERSISTENT;
        }
        let mut spec = trellis_core::router::LinkSpec::dialed(
            self.far_role,
            self.federation.clone(),
            self.clique.clone(),
            label,
        )
        .with_flags(flags);
        if let Some(link) = &self.link {
            spec = spec.with_config(link.clone());
        }
        spec
    }

    /// A dial to a parent router for `federation`, redialed on failure.
    pub fn parent(endpoint: Endpoint, federation: impl Into<String>) -> DialConfig {
        DialConfig {
            endpoint,
            far_role: Role::Parent,
            federation: federation.into(),
            clique: String::new(),
            udp: false,
            link: None,
            persistent: true,
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            alternates: Vec::new(),
        }
    }

    /// A dial to a peer router of `clique` (mesh links), redialed on failure.
    pub fn peer(
        endpoint: Endpoint,
        federation: impl Into<String>,
        clique: impl Into<String>,
    ) -> DialConfig {
        DialConfig {
            far_role: Role::Peer,
            clique: clique.into(),
            ..DialConfig::parent(endpoint, federation)
        }
    }
}

/// About ten minutes of redialing at the capped backoff.
pub const DEFAULT_MAX_ATTEMPTS: u32 = 300;

/// One router core and how it meets the world.
#[derive(Clone, Debug)]
pub struct HostConfig {
    /// The router core's settings.
    pub router: RouterConfig,
    /// `tcp://`, `tls://`, `udp://` (best-effort datagrams for accepted links) or `mem://`.
    pub listen: Vec<Endpoint>,
    /// Routers this host dials (parents and peers).
    pub dial: Vec<DialConfig>,
    /// Links accepted beyond this are closed at once.
    pub max_links: usize,
    /// Most accepted links from one source address (loopback included); more are refused
    /// at accept, so one host cannot take every slot.
    pub max_links_per_address: usize,
    /// Most accepted links, routers' aside, under one certificate name; more are closed
    /// at their hello, so one identity cannot take every slot from several addresses.
    pub max_links_per_identity: usize,
    /// The last this many of `max_links` are kept for routers (dialed links, and accepted
    /// ones whose hello says router): a federate arriving when only these are left is
    /// closed at its hello. At most half of `max_links` is ever kept.
    pub reserved_router_slots: usize,
    /// Settings for accepted links, by the far node's name (known once its hello arrives).
    pub accept: Vec<(String, LinkConfig)>,
    /// Certificates for `tls://` listeners and dials, loaded when the host starts.
    pub tls: Option<crate::tls::TlsConfig>,
}

impl HostConfig {
    /// A host with `router` and no listeners or dials, with the default link budgets.
    pub fn new(router: RouterConfig) -> HostConfig {
        HostConfig {
            router,
            listen: Vec::new(),
            dial: Vec::new(),
            max_links: 4096,
            max_links_per_address: DEFAULT_MAX_LINKS_PER_ADDRESS,
            max_links_per_identity: DEFAULT_MAX_LINKS_PER_IDENTITY,
            reserved_router_slots: DEFAULT_RESERVED_ROUTER_SLOTS,
            accept: Vec::new(),
            tls: None,
        }
    }
}

/// `HostConfig::max_links_per_address` unless configured otherwise: room for a process
/// (or a host behind one NAT address) running a few hundred federates, a sixteenth of the
/// default 4,096 slots.
pub const DEFAULT_MAX_LINKS_PER_ADDRESS: usize = 256;
/// `HostConfig::max_links_per_identity` unless configured otherwise: a quarter of the
/// default slots, for a certificate shared by many simulators.
pub const DEFAULT_MAX_LINKS_PER_IDENTITY: usize = 1024;
/// `HostConfig::reserved_router_slots` unless configured otherwise.
pub const DEFAULT_RESERVED_ROUTER_SLOTS: usize = 64;

pub(crate) type HostId = usize;

/// Connections a host refused, by reason (counted since it started).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct AcceptRefusals {
    /// Refused at accept: every link slot was taken.
    pub full: u64,
    /// Refused at accept: their source address held its limit of links.
    pub per_address: u64,
    /// Closed at their hello: their certificate name held its limit of links.
    pub per_identity: u64,
    /// Closed at their hello: not routers, and only the slots kept for routers were left.
    pub reserved_for_routers: u64,
}

/// What a running host reports.
#[derive(Clone, Debug)]
pub struct HostStats {
    /// The router core's counters.
    pub router: RouterStats,
    /// The interest indexes, summed over federations.
    pub interest: IndexStats,
    /// Every link, up or down, with its counters.
    pub links: Vec<LinkInfo>,
    /// Connections refused for the link budget (`admission`).
    pub refused: AcceptRefusals,
    /// The event loop's clock when these were taken: `now - link.opened` is a link's age.
    pub now: trellis_core::Time,
}

impl HostStats {
    /// How many links are up now.
    pub fn links_up(&self) -> usize {
        self.links
            .iter()
            .filter(|l| l.up && l.peer.is_some())
            .count()
    }
}

pub(crate) struct Shared {
    pub(crate) commands: flume::Sender<Command>,
    pub(crate) wakeup: Arc<Wakeup>,
}

impl Shared {
    pub(crate) fn send(&self, command: Command) -> Result<(), NetError> {
        self.commands.send(command).map_err(|_| NetError::Stopped)?;
        self.wakeup.wake();
        Ok(())
    }

    /// Send a command that answers on `reply`, and wait for the answer.
    pub(crate) fn ask<T>(
        &self,
        make: impl FnOnce(flume::Sender<T>) -> Command,
    ) -> Result<T, NetError> {
        let (reply, answer) = flume::bounded(1);
        self.send(make(reply))?;
        answer.recv().map_err(|_| NetError::Stopped)
    }
}

/// An event-loop thread. Dropping it stops every host gracefully (goodbyes flushed, bounded
/// by each link's close timeout) and joins the thread.
pub struct Runtime {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Runtime {
    /// Start a runtime whose loop polls for up to [`crate::DEFAULT_SPIN`] before it sleeps,
    /// while its events come that close together.
    pub fn start(name: &str) -> Result<Runtime, NetError> {
        Runtime::start_spinning(name, crate::DEFAULT_SPIN)
    }

    /// Start a runtime whose loop polls without sleeping for up to `spin` after it runs out
    /// of work, while its recent waits were shorter than that (see
    /// [`NodeConfig::spin`](crate::NodeConfig)); zero sleeps at once.
    pub fn start_spinning(name: &str, spin: Duration) -> Result<Runtime, NetError> {
        let (mut event_loop, shared) = EventLoop::new()?;
        event_loop.set_spin(spin);
        let shared = Arc::new(shared);
        let thread = std::thread::Builder::new()
            .name(format!("trellis-{name}"))
            .spawn(move || event_loop.run())?;
        Ok(Runtime {
            shared,
            thread: Some(thread),
        })
    }

    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Start a host: bind its listeners (errors come back here, e.g. a port in use) and
    /// begin dialing.
    pub fn add_host(&self, config: HostConfig) -> Result<Host, NetError> {
        self.add_host_with(config, None)
    }

    pub(crate) fn add_host_with(
        &self,
        config: HostConfig,
        app: Option<crate::event_loop::AppPort>,
    ) -> Result<Host, NetError> {
        let info = self.shared.ask(|reply| Command::AddHost {
            config: Box::new(config),
            app,
            reply,
        })??;
        Ok(Host {
            id: info.id,
            listening: info.listening,
            shared: self.shared.clone(),
        })
    }

    /// Stop every host, flushing goodbyes, and wait for the loop to end.
    pub fn shutdown(mut self) {
        self.stop_and_join();
    }

    fn stop_and_join(&mut self) {
        if let Some(thread) = self.thread.take() {
            if self.shared.ask(|reply| Command::Shutdown { reply }).is_ok() {
                let _ = thread.join();
            }
        }
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        self.stop_and_join();
    }
}

/// A running host.
#[derive(Clone)]
pub struct Host {
    id: HostId,
    listening: Vec<Endpoint>,
    shared: Arc<Shared>,
}

impl Host {
    /// Where the host listens, with ports chosen by the system filled in.
    pub fn listening(&self) -> &[Endpoint] {
        &self.listening
    }

    /// The host's counters and links, as its event loop sees them now.
    pub fn stats(&self) -> Result<HostStats, NetError> {
        self.shared
            .ask(|reply| Command::Stats {
                host: self.id,
                reply,
            })?
            .ok_or(NetError::Stopped)
    }

    /// Close every link with a goodbye and remove the host.
    pub fn stop(&self) -> Result<(), NetError> {
        self.shared.ask(|reply| Command::StopHost {
            host: self.id,
            reply,
        })
    }

    /// Wait until at least `count` links have finished their handshake.
    pub fn wait_for_links(&self, count: usize, timeout: Duration) -> Result<(), NetError> {
        let (reply, answer) = flume::bounded(1);
        self.shared.send(Command::WaitForLinks {
            host: self.id,
            count,
            reply,
        })?;
        match answer.recv_timeout(timeout) {
            Ok(()) => Ok(()),
            Err(flume::RecvTimeoutError::Timeout) => {
                Err(NetError::Timeout(timeout, "links to come up"))
            }
            Err(flume::RecvTimeoutError::Disconnected) => Err(NetError::Stopped),
        }
    }
}
