//! A host: one router core, its listeners, dials, and (for a federate node) its application.

use super::app::AppState;
use super::{AppPort, Conn, EventLoop, Notice, Source};
use crate::runtime::{DialConfig, HostConfig, HostId, HostStats};
use mio::Token;
use rustc_hash::FxHashMap;
use std::net::SocketAddr;
use std::time::Duration;
use trellis_core::router::{CloseReason, Event, LinkId, PeerInfo, Router};
use trellis_core::Time;

pub(super) enum Transport {
    Tcp(Token),
    /// A memory pipe and which end of it this link is.
    Memory(usize, usize),
}

pub(super) enum DialState {
    Waiting(Time),
    Connecting(Token),
    Up(LinkId),
    GaveUp,
}

pub(super) struct Dialer {
    pub(super) config: DialConfig,
    pub(super) state: DialState,
    /// Failed attempts since the last success.
    pub(super) failures: u32,
    /// Which endpoint the next dial goes to: 0 the configured one, i its alternate i - 1.
    target: usize,
    /// Failed dials in a row to the current endpoint.
    failures_here: u32,
}

/// Dials that fail in a row before a node moves on to its next parent (about 0.2-0.35 s
/// with the backoff): a refused dial may only mean the parent has not started yet, and
/// processes started together in any order should attach to their primaries. After a link
/// that was up fails, one refused redial moves on.
const DIAL_FAILURES_BEFORE_FAILOVER: u32 = 3;

impl Dialer {
    pub(super) fn endpoint(&self) -> &crate::endpoint::Endpoint {
        match self.target {
            0 => &self.config.endpoint,
            i => &self.config.alternates[i - 1],
        }
    }

    /// The link to the current endpoint failed, or could not be opened too often: the next
    /// dial goes to the next endpoint, if there are alternates. Returns whether it moved.
    fn fail_over(&mut self) -> bool {
        let endpoints = 1 + self.config.alternates.len();
        self.target = (self.target + 1) % endpoints;
        self.failures_here = 0;
        endpoints > 1
    }
}

pub(super) struct Host {
    pub(super) name: String,
    pub(super) router: Router,
    pub(super) listeners: Vec<Token>,
    pub(super) udp: Option<(Token, u16)>,
    pub(super) memory_names: Vec<String>,
    pub(super) transports: FxHashMap<LinkId, Transport>,
    pub(super) dialers: Vec<Dialer>,
    /// Links whose far side takes best-effort datagrams, and where.
    pub(super) udp_peers: Vec<(LinkId, SocketAddr)>,
    /// A datagram the socket refused for now (`WouldBlock`), sent first when writable.
    pub(super) udp_held: Option<(Vec<u8>, SocketAddr)>,
    pub(super) app: Option<AppState>,
    link_waiters: Vec<(usize, flume::Sender<()>)>,
    /// Settings of accepted links, by the far node's name.
    accept: FxHashMap<String, trellis_core::router::LinkConfig>,
    stopping: bool,
    stop_replies: Vec<flume::Sender<()>>,
    /// Link slots per source address and those kept for routers.
    pub(super) admission: super::admission::Admission,
    /// Bounds the WARN lines for failed links and refused connections.
    pub(super) warnings: super::log_limit::LogLimit,
    /// Links the router cut, logged then: their close later is no news (one per live link).
    cut: rustc_hash::FxHashSet<LinkId>,
    /// TLS sessions' configurations, when the host has `tls://` listeners or dials.
    pub(super) tls: Option<crate::tls::LoadedTls>,
    /// Listeners whose connections speak TLS.
    pub(super) tls_listeners: Vec<Token>,
    /// Accepted connections still shaking hands (no link yet).
    pub(super) handshakes: rustc_hash::FxHashSet<Token>,
    /// TLS handshakes (accepted and dialed) by deadline, earliest first: deadlines are
    /// `now + handshake_timeout`, so arrival order is deadline order. Entries of handshakes
    /// that finished stay until their time and are then passed over.
    pub(super) handshake_deadlines: std::collections::VecDeque<(Time, Token)>,
    /// "UDP is not secured yet" was said: once per host is enough.
    pub(super) said_udp_unsecured: bool,
}

/// Redial delay after `failures` failed attempts: 50 ms doubling to a 2 s cap, of which a
/// random half is taken off, so that the children of a restarted router do not all redial
/// on the same schedule.
fn backoff(failures: u32) -> Duration {
    let exp = failures.saturating_sub(1).min(6);
    let full = (Duration::from_millis(50) * (1 << exp)).min(Duration::from_secs(2));
    full / 2 + full.mul_f64(fastrand::f64() / 2.0)
}

impl Host {
    pub(super) fn new(now: Time, config: &HostConfig, app: Option<AppPort>) -> Host {
        let mut router = config.router.clone();
        // With mutual TLS every peer can prove what it is: a link that carries every
        // federation is then taken only from a router's certificate (`router::claims`).
        router.require_router_identity |=
            config.tls.as_ref().is_some_and(|t| t.require_client_cert);
        Host {
            name: config.router.node_name.clone(),
            router: Router::new(router, now),
            listeners: Vec::new(),
            udp: None,
            memory_names: Vec::new(),
            transports: FxHashMap::default(),
            dialers: config
                .dial
                .iter()
                .map(|d| Dialer {
                    config: d.clone(),
                    state: DialState::Waiting(now),
                    failures: 0,
                    target: 0,
                    failures_here: 0,
                })
                .collect(),
            udp_peers: Vec::new(),
            udp_held: None,
            app: app.map(AppState::new),
            link_waiters: Vec::new(),
            accept: config.accept.iter().cloned().collect(),
            stopping: false,
            stop_replies: Vec::new(),
            admission: super::admission::Admission::new(config),
            warnings: super::log_limit::LogLimit::new(now),
            cut: Default::default(),
            tls: None,
            tls_listeners: Vec::new(),
            handshakes: Default::default(),
            handshake_deadlines: Default::default(),
            said_udp_unsecured: false,
        }
    }

    pub(super) fn is_stopping(&self) -> bool {
        self.stopping
    }

    pub(super) fn has_immediate_work(&self) -> bool {
        self.app
            .as_ref()
            .is_some_and(|app| app.has_work(&self.router))
    }

    pub(super) fn next_timer(&self) -> Time {
        let mut next = self.router.poll_timeout();
        if let Some((deadline, _)) = self.handshake_deadlines.front() {
            next = next.min(*deadline);
        }
        for dialer in &self.dialers {
            if let DialState::Waiting(at) = dialer.state {
                next = next.min(at);
            }
        }
        next
    }

    pub(super) fn due_dialers(&self, now: Time) -> Vec<usize> {
        if self.stopping {
            return Vec::new();
        }
        (0..self.dialers.len())
            .filter(|&i| matches!(self.dialers[i].state, DialState::Waiting(at) if at <= now))
            .collect()
    }

    /// A dial attempt failed: retry after a backoff, or give up after the limit.
    pub(super) fn dial_failed(&mut self, now: Time, dialer: usize, why: &str) {
        let d = &mut self.dialers[dialer];
        d.failures += 1;
        let endpoint = d.endpoint().to_string();
        let gave_up = d.failures >= d.config.max_attempts;
        if gave_up {
            d.state = DialState::GaveUp;
            tracing::error!(host = %self.name, %endpoint, attempts = d.failures, "giving up: {why}");
        } else {
            d.failures_here += 1;
            if d.failures_here >= DIAL_FAILURES_BEFORE_FAILOVER && d.fail_over() {
                tracing::warn!(
                    host = %self.name, failed = %endpoint, next = %d.endpoint(),
                    "dial failed ({why}); trying the next parent"
                );
            }
            d.state = DialState::Waiting(now + backoff(d.failures));
            tracing::debug!(host = %self.name, %endpoint, attempt = d.failures, "dial failed: {why}");
        }
        self.notify(Notice::DialFailed {
            why: why.to_owned(),
            gave_up,
        });
    }

    /// A TLS peer refused us, or we it, for a reason no redial changes: a node waiting to
    /// connect hears it at once. The dial goes on (the far side may change its mind).
    pub(super) fn tls_refused(&self, why: &str) {
        self.notify(Notice::TlsRefused(why.to_owned()));
    }

    fn notify(&self, notice: Notice) {
        if let Some(app) = &self.app {
            app.notify(notice);
        }
    }

    fn reliable_lost(&self, source: trellis_core::wire::NodeId, count: u64) {
        if let Some(app) = &self.app {
            app.port.signals.reliable_lost(source, count);
        }
    }

    pub(super) fn stop(&mut self, now: Time, reply: Option<flume::Sender<()>>) {
        if !self.stopping {
            self.stopping = true;
            self.router.shutdown(now, "shutting down");
        }
        self.stop_replies.extend(reply);
    }

    /// A stopping host whose links have all closed.
    pub(super) fn finished(&self) -> bool {
        // Dials still connecting are dropped with the host.
        self.stopping && !self.router.has_links()
    }

    pub(super) fn stopped(self) {
        for reply in self.stop_replies {
            let _ = reply.send(());
        }
    }

    pub(super) fn stats(&self, now: Time) -> HostStats {
        HostStats {
            now,
            router: *self.router.stats(),
            interest: self.router.interest_stats(),
            links: self
                .router
                .link_ids()
                .into_iter()
                .filter_map(|id| self.router.link_info(id))
                .collect(),
            refused: self.admission.refusals,
        }
    }

    fn links_up(&self) -> usize {
        self.router
            .link_ids()
            .into_iter()
            .filter_map(|id| self.router.link_info(id))
            .filter(|l| l.up && l.peer.is_some())
            .count()
    }

    pub(super) fn wait_for_links(&mut self, count: usize, reply: flume::Sender<()>) {
        if self.links_up() >= count {
            let _ = reply.send(());
        } else {
            self.link_waiters.push((count, reply));
        }
    }

    /// A refusal on `link` (`what`: of what, `why`: the router's reason), logged within
    /// the WARN rate limit with the peer it came from.
    fn warn_refused(&mut self, now: Time, link: LinkId, what: &str, why: &str) {
        let info = self.router.link_info(link);
        let via = info.as_ref().map(|l| l.label.clone()).unwrap_or_default();
        let node = info.and_then(|l| l.peer).map(|p| p.node_name);
        if let Some(suppressed) = self.warnings.admit(now) {
            tracing::warn!(
                host = %self.name, peer = %node.unwrap_or_default(), %via, suppressed,
                "{what}: {why}"
            )
        }
    }

    fn on_link_up(&mut self, link: LinkId) {
        for dialer in &mut self.dialers {
            if matches!(dialer.state, DialState::Up(l) if l == link) {
                dialer.failures = 0;
                dialer.failures_here = 0;
            }
        }
        let up = self.links_up();
        self.link_waiters.retain(|(count, reply)| {
            if up >= *count {
                let _ = reply.send(());
                false
            } else {
                true
            }
        });
        self.notify(Notice::LinkUp);
    }

    /// Whether a link that came up may stay: it is logged and given its accept
    /// configuration, and closed if admission refuses it.
    fn admit_link(&mut self, now: Time, link: LinkId, peer: &PeerInfo) -> bool {
        let label = self
            .router
            .link_info(link)
            .map(|l| l.label)
            .unwrap_or_default();
        tracing::info!(
            host = %self.name, peer = %peer.node_name, role = peer.role.name(),
            federation = %peer.federation, via = %label, "link up"
        );
        if let Some(config) = self.accept.get(&peer.node_name) {
            self.router.set_link_config(link, config.clone());
        }
        let Some(why) = self
            .admission
            .link_up(link, peer, self.router.link_info(link).as_ref())
        else {
            return true;
        };
        if let Some(suppressed) = self.warnings.admit(now) {
            tracing::warn!(
                host = %self.name, peer = %peer.node_name, via = %label, suppressed,
                "{why}"
            );
        }
        self.router.close_link(now, link, &why);
        false
    }

    fn on_link_cut(&mut self, now: Time, link: LinkId, reason: &CloseReason) {
        self.cut.insert(link);
        let info = self.router.link_info(link);
        let via = info.as_ref().map(|l| l.label.clone()).unwrap_or_default();
        let (node, federation) = info
            .and_then(|l| l.peer)
            .map(|p| (p.node_name, p.federation))
            .unwrap_or_default();
        if let Some(suppressed) = self.warnings.admit(now) {
            tracing::warn!(
                host = %self.name, peer = %node, %federation, %via, suppressed,
                "link cut: {reason}"
            )
        }
    }

    /// A closed link's close, logged at the level its reason deserves (`peer`: where it
    /// went, `was_cut`: already reported as cut).
    fn log_link_closed(&mut self, now: Time, peer: &str, reason: &CloseReason, was_cut: bool) {
        match reason {
            CloseReason::Local(_) | CloseReason::PeerGoodbye(_) => {
                tracing::info!(host = %self.name, %peer, "link closed: {reason}")
            }
            CloseReason::ClosedBeforeHello => {
                tracing::debug!(host = %self.name, %peer, "{reason}")
            }
            _ if was_cut => {
                tracing::debug!(host = %self.name, %peer, "cut link closed: {reason}")
            }
            _ => {
                if let Some(suppressed) = self.warnings.admit(now) {
                    tracing::warn!(
                        host = %self.name, %peer, suppressed,
                        "link closed: {reason}"
                    )
                }
            }
        }
    }

    /// Forget a closed link; returns its transport.
    fn on_link_closed(
        &mut self,
        now: Time,
        link: LinkId,
        reason: &CloseReason,
    ) -> Option<Transport> {
        let stopping = self.stopping;
        for dialer in &mut self.dialers {
            if matches!(dialer.state, DialState::Up(l) if l == link) {
                dialer.state = if dialer.config.persistent && !stopping {
                    // Redial the same parent first, once: if it is alive the router resumes
                    // the link session and nothing is lost. If that dial is refused (the
                    // process is gone), the next parent is tried.
                    dialer.failures_here = DIAL_FAILURES_BEFORE_FAILOVER - 1;
                    DialState::Waiting(now + backoff(1))
                } else {
                    DialState::GaveUp
                };
            }
        }
        self.udp_peers.retain(|(l, _)| *l != link);
        self.admission.closed(link);
        self.notify(Notice::LinkDown(reason.to_string()));
        self.transports.remove(&link)
    }
}

impl EventLoop {
    /// Act on a host's router events. Returns whether there were any.
    pub(super) fn host_events(&mut self, now: Time, host: HostId) -> bool {
        let mut progressed = false;
        while let Some(h) = self.hosts[host].as_mut() {
            let Some(event) = h.router.poll_event() else {
                break;
            };
            progressed = true;
            match event {
                Event::LinkUp { link, peer } => {
                    if h.admit_link(now, link, &peer) {
                        h.on_link_up(link);
                    }
                }
                Event::LinkCut { link, reason } => h.on_link_cut(now, link, &reason),
                Event::RequestRefused { link, why } => {
                    h.warn_refused(now, link, "registry request refused", &why)
                }
                Event::ClassRefused { link, why } => {
                    h.warn_refused(now, link, "refused by the access policy", &why)
                }
                Event::LinkClosed { link, reason } => {
                    let was_cut = h.cut.remove(&link);
                    let transport = h.on_link_closed(now, link, &reason);
                    let peer = transport_peer(&self.sources, transport.as_ref());
                    h.log_link_closed(now, &peer, &reason, was_cut);
                    match transport {
                        Some(Transport::Tcp(token)) => self.close_conn(token),
                        Some(Transport::Memory(pipe, end)) => self.memory_closed(pipe, end),
                        None => {}
                    }
                }
                Event::ReadResumed { link } => {
                    if let Some(Transport::Tcp(token)) = h.transports.get(&link) {
                        self.pending_reads.push(*token);
                    }
                }
                Event::UdpPeer { link, port } => {
                    if let Some(Transport::Tcp(token)) = h.transports.get(&link) {
                        if let Some(Source::Conn(conn)) = self.sources[token.0 - 1].as_ref() {
                            h.udp_peers
                                .push((link, SocketAddr::new(conn.peer.ip(), port)));
                        }
                    }
                }
                Event::InterestChanged { .. } => h.notify(Notice::InterestChanged),
                Event::LinkResumed { link, resent } => {
                    tracing::info!(host = %h.name, ?link, resent, "link session resumed")
                }
                Event::ReliableLost { source, count } => {
                    if let Some(suppressed) = h.warnings.admit(now) {
                        tracing::warn!(
                            host = %h.name, %source, count, suppressed,
                            "reliable messages lost: a gap in the source's stream"
                        )
                    }
                    h.reliable_lost(source, count);
                }
                Event::NotAMember => h.notify(Notice::MembershipLost(
                    "the federation registry no longer has this federate as a member (it \
                     resigned it while it was cut off, or the registry restarted)"
                        .into(),
                )),
            }
        }
        progressed
    }

    /// Write what is left of a closed link's output once, without waiting, and drop it.
    fn close_conn(&mut self, token: Token) {
        if let Some(Source::Conn(mut conn)) = self.deregister(token) {
            finish_writing(&mut conn);
        }
    }
}

fn finish_writing(conn: &mut Conn) {
    use std::io::{Read, Write};
    if let Some(tls) = conn.tls.as_mut() {
        // What TLS takes of the rest is sealed with a close_notify after it, then written
        // below with the sealed records.
        if let Ok(n) = tls.writer().write(&conn.wbuf[conn.wpos..]) {
            conn.wpos += n;
        }
        tls.send_close_notify();
        while tls.wants_write() {
            match tls.write_tls(&mut super::secure::NoSigPipe(&conn.stream)) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
        conn.wpos = conn.wbuf.len();
    }
    while conn.wpos < conn.wbuf.len() {
        match conn.stream.write(&conn.wbuf[conn.wpos..]) {
            Ok(0) | Err(_) => break,
            Ok(n) => conn.wpos += n,
        }
    }
    let _ = conn.stream.shutdown(std::net::Shutdown::Write);
    // Unread input would turn the close into a reset, which destroys what we just wrote
    // (the goodbye) in the peer's receive buffer. Take what is there, within a bound.
    let mut scratch = [0u8; 4096];
    for _ in 0..64 {
        match conn.stream.read(&mut scratch) {
            Ok(n) if n > 0 => continue,
            _ => break,
        }
    }
}

/// Where a link's transport went, for the log: `tls://` or `tcp://` and the peer's address,
/// or the memory pipe.
fn transport_peer(sources: &[Option<Source>], transport: Option<&Transport>) -> String {
    match transport {
        Some(Transport::Tcp(token)) => match sources[token.0 - 1].as_ref() {
            Some(Source::Conn(conn)) if conn.tls.is_some() => format!("tls://{}", conn.peer),
            Some(Source::Conn(conn)) => format!("tcp://{}", conn.peer),
            _ => String::new(),
        },
        Some(Transport::Memory(..)) => "memory pipe".into(),
        None => String::new(),
    }
}
