//! The event loop: one thread, one `mio::Poll`, driving every host of a runtime.
//!
//! Each turn it takes commands from other threads, feeds socket input to the routers,
//! moves their output to sockets and memory pipes, hands deliveries to applications and
//! runs timers. No lock is taken anywhere: other threads talk to the loop only through
//! channels and a waker.

mod admission;
mod answer;
mod app;
mod host;
mod log_limit;
mod memory;
mod secure;
mod spin;
mod tcp;
mod udp;

#[cfg(test)]
pub(crate) use app::AppState;
pub(crate) use app::{AppCommand, AppPort, AppSignals, Delivery, Notice, Refused};

use crate::clock::Clock;
use crate::endpoint::Endpoint;
use crate::error::NetError;
use crate::runtime::{HostConfig, HostId, HostStats, Shared};
use crate::wake::Wakeup;
use answer::AnswerWatch;
use host::Host;
use memory::MemoryPipe;
use mio::net::{TcpListener, TcpStream, UdpSocket};
use mio::{Events, Poll, Token};
use rustc_hash::FxHashMap;
use spin::SpinPolicy;
pub use spin::DEFAULT_SPIN;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use trellis_core::router::LinkId;
use trellis_core::Time;

const WAKER: Token = Token(0);
/// Bytes read from a socket at a time.
const READ_CHUNK: usize = 64 << 10;
/// Reads from one socket per turn before others get a go.
const READS_PER_TURN: usize = 16;
/// Batches written to one socket per turn before others get a go.
const WRITES_PER_TURN: usize = 16;
/// Turns without polling the sockets before the loop polls anyway.
const MAX_BUSY_TURNS: usize = 64;
/// The longest a loop acts without polling its sockets, however much work remains. Only a
/// poll sees that a socket which refused a write has room again, and timers see `now` only
/// as of the last clock read: 64 busy turns of a router moving 64-byte frames on two
/// loaded cores took up to 2 s, and its slow-consumer bound then cut a subscriber that had
/// read everything it was given, for the router's own delay.
const MAX_TURN_TIME: Duration = Duration::from_millis(2);
/// How long a loop with no host at all sleeps before looking again (its commands still
/// wake it at once).
const IDLE_WAIT: Duration = Duration::from_secs(60);

pub(crate) enum Command {
    AddHost {
        config: Box<HostConfig>,
        app: Option<AppPort>,
        reply: flume::Sender<Result<HostInfo, NetError>>,
    },
    StopHost {
        host: HostId,
        reply: flume::Sender<()>,
    },
    Stats {
        host: HostId,
        reply: flume::Sender<Option<HostStats>>,
    },
    WaitForLinks {
        host: HostId,
        count: usize,
        reply: flume::Sender<()>,
    },
    Shutdown {
        reply: flume::Sender<()>,
    },
}

pub(crate) struct HostInfo {
    pub(crate) id: HostId,
    pub(crate) listening: Vec<Endpoint>,
}

/// A TCP connection and what it still has to write.
pub(crate) struct Conn {
    host: HostId,
    stream: TcpStream,
    peer: SocketAddr,
    /// `None` while a dial is still connecting.
    link: Option<LinkId>,
    /// The dialer that opened it, if we dialed.
    dialer: Option<usize>,
    wbuf: Vec<u8>,
    wpos: usize,
    /// The last write did not hit `WouldBlock`.
    writable: bool,
    /// The TLS session inside the connection, on a `tls://` link. While it shakes hands
    /// the connection has no link: the router meets it once the far side is proven.
    tls: Option<Box<rustls::Connection>>,
    /// The far side's first byte was seen to start a TLS record (checked once: a plaintext
    /// peer gets a clear refusal instead of rustls' complaint about a record header).
    tls_heard: bool,
    /// When a TLS handshake not finished by then is given up (as a hello is).
    handshake_deadline: Option<Time>,
    /// How soon the far side answers what is written to it (see `answer`).
    answer: AnswerWatch,
}

impl Conn {
    fn new(host: HostId, stream: TcpStream, peer: SocketAddr, dialer: Option<usize>) -> Conn {
        Conn {
            host,
            stream,
            peer,
            link: None,
            dialer,
            wbuf: Vec::new(),
            wpos: 0,
            writable: true,
            tls: None,
            tls_heard: false,
            handshake_deadline: None,
            answer: AnswerWatch::default(),
        }
    }

    /// Output written by the router but not yet by the socket.
    fn has_unwritten(&self) -> bool {
        self.wpos < self.wbuf.len() || self.tls.as_ref().is_some_and(|tls| tls.wants_write())
    }
}

pub(crate) enum Source {
    Listener { host: HostId, socket: TcpListener },
    Udp { host: HostId, socket: UdpSocket },
    Conn(Conn),
}

pub(crate) struct EventLoop {
    poll: Poll,
    events: Events,
    clock: Clock,
    wakeup: Arc<Wakeup>,
    commands: flume::Receiver<Command>,
    sources: Vec<Option<Source>>,
    free_tokens: Vec<usize>,
    hosts: Vec<Option<Host>>,
    memory_names: FxHashMap<String, HostId>,
    pipes: Vec<Option<MemoryPipe>>,
    read_buf: Box<[u8]>,
    /// Connections with unread input we stopped reading (back-pressure or fairness).
    pending_reads: Vec<Token>,
    /// Connections whose socket became writable or that have more to write.
    pending_writes: Vec<Token>,
    /// The last turn stopped busy (at [`MAX_TURN_TIME`] or [`MAX_BUSY_TURNS`]) with work
    /// perhaps left: the next wait only polls.
    turn_cut_short: bool,
    ready_events: Vec<(Token, bool, bool)>,
    /// The time at the start of the current turn or wake-up.
    now: Time,
    /// Whether to poll without blocking for a while before sleeping.
    spin: SpinPolicy,
    /// The host's application awaits a reply (a federate's time advance).
    app_expects_reply: bool,
    /// Connections written to whose prompt answer has not come yet (see `answer`): while
    /// there are any, the loop polls for them before it sleeps.
    answers_awaited: usize,
    shutting_down: Option<flume::Sender<()>>,
}

impl EventLoop {
    pub(crate) fn new() -> Result<(EventLoop, Shared), NetError> {
        let poll = Poll::new()?;
        let waker = mio::Waker::new(poll.registry(), WAKER)?;
        let wakeup = Arc::new(Wakeup::new(waker));
        let (commands_tx, commands) = flume::bounded(1024);
        let event_loop = EventLoop {
            poll,
            events: Events::with_capacity(1024),
            clock: Clock::new(),
            wakeup: wakeup.clone(),
            commands,
            sources: Vec::new(),
            free_tokens: Vec::new(),
            hosts: Vec::new(),
            memory_names: FxHashMap::default(),
            pipes: Vec::new(),
            read_buf: vec![0u8; READ_CHUNK].into_boxed_slice(),
            pending_reads: Vec::new(),
            pending_writes: Vec::new(),
            turn_cut_short: false,
            ready_events: Vec::new(),
            now: Time::ZERO,
            spin: SpinPolicy::new(Duration::ZERO),
            app_expects_reply: false,
            answers_awaited: 0,
            shutting_down: None,
        };
        Ok((
            event_loop,
            Shared {
                commands: commands_tx,
                wakeup,
            },
        ))
    }

    pub(crate) fn run(mut self) {
        loop {
            self.turn();
            if self.shutting_down.is_some() && self.hosts.iter().all(Option::is_none) {
                break;
            }
            if let Err(e) = self.wait(None) {
                tracing::error!("event loop cannot poll: {e}");
                break;
            }
        }
        if let Some(reply) = self.shutting_down.take() {
            let _ = reply.send(());
        }
    }

    /// Block until socket readiness, a wake-up or a timer is due (or `limit` passes), then
    /// act on what is ready. Call `turn` to act on the consequences and run the timers due.
    pub(crate) fn wait(&mut self, limit: Option<Duration>) -> std::io::Result<()> {
        let timeout = if self.has_immediate_work() {
            Duration::ZERO
        } else {
            self.wakeup.going_to_sleep();
            // A command may have arrived between the last check and the flag.
            if self.has_immediate_work() {
                Duration::ZERO
            } else {
                let timeout = self.timeout(self.now);
                limit.map_or(timeout, |limit| timeout.min(limit))
            }
        };
        self.spin
            .expect_reply(self.app_expects_reply || self.answers_awaited > 0);
        let polled = self.poll_spinning(timeout);
        self.wakeup.awake();
        if let Err(e) = polled {
            if e.kind() != std::io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
        let now = self.clock.now();
        self.now = now;
        self.ready_events.clear();
        for event in self.events.iter() {
            let readable = event.is_readable() || event.is_read_closed() || event.is_error();
            let writable = event.is_writable() || event.is_write_closed();
            self.ready_events.push((event.token(), readable, writable));
        }
        for i in 0..self.ready_events.len() {
            let (token, readable, writable) = self.ready_events[i];
            if token != WAKER {
                self.on_ready(now, token, readable, writable);
            }
        }
        Ok(())
    }

    /// Poll the sockets. While recent waits were short (see [`SpinPolicy`]), first poll
    /// without blocking, yielding the CPU in between, for up to the spin budget.
    fn poll_spinning(&mut self, timeout: Duration) -> std::io::Result<()> {
        if !self.spin.is_enabled() {
            return self.poll.poll(&mut self.events, Some(timeout));
        }
        let start = std::time::Instant::now();
        if let Some(limit) = self.spin.poll_for(timeout) {
            while start.elapsed() < limit {
                self.poll.poll(&mut self.events, Some(Duration::ZERO))?;
                if !self.events.is_empty() {
                    self.spin.waited(start.elapsed());
                    return Ok(());
                }
                std::thread::yield_now();
            }
        }
        let polled = self.poll.poll(&mut self.events, Some(timeout));
        self.spin.waited(start.elapsed());
        polled
    }

    pub(crate) fn set_spin(&mut self, spin: Duration) {
        self.spin = SpinPolicy::new(spin);
    }

    /// Whether the host's application expects a reply soon: see [`SpinPolicy`].
    pub(crate) fn expect_reply(&mut self, expected: bool) {
        self.app_expects_reply = expected;
    }

    /// Whether a connection has output not yet written: refused by its socket (it would
    /// block), or held by its router while the peer pushes back. Only a later look at the
    /// sockets moves it on: a writable socket, or the peer's word that it has room.
    pub(crate) fn has_unsent_output(&self) -> bool {
        self.sources.iter().flatten().any(|source| match source {
            Source::Conn(conn) => conn.link.is_some_and(|link| {
                !conn.writable
                    || conn.has_unwritten()
                    || self.hosts[conn.host]
                        .as_ref()
                        .is_some_and(|h| h.router.has_output(link))
            }),
            _ => false,
        })
    }

    pub(crate) fn now(&self) -> Time {
        self.clock.now()
    }

    /// Whether a host is still running (a stopped one is gone once its links closed).
    pub(crate) fn has_host(&self, host: HostId) -> bool {
        self.hosts.get(host).is_some_and(Option::is_some)
    }

    pub(crate) fn host_stats(&self, host: HostId) -> Option<HostStats> {
        let now = self.clock.now();
        self.hosts
            .get(host)
            .and_then(Option::as_ref)
            .map(|h| h.stats(now))
    }

    /// Hand `command` to `host`'s application as its channel would, for a node driven on
    /// the caller's thread (see [`app::AppState::push_command`]); acted on at the next turn.
    pub(crate) fn queue_app_command(
        &mut self,
        host: HostId,
        command: AppCommand,
        limit: usize,
    ) -> Result<(), Refused> {
        let host = self.hosts.get_mut(host).and_then(Option::as_mut);
        match host.and_then(|h| h.app.as_mut()) {
            Some(app) => app.push_command(command, limit),
            None => Err(Refused::Gone),
        }
    }

    pub(crate) fn stop_host(&mut self, host: HostId) {
        let now = self.clock.now();
        if let Some(h) = self.hosts.get_mut(host).and_then(Option::as_mut) {
            h.stop(now, None);
        }
    }

    fn has_immediate_work(&self) -> bool {
        self.turn_cut_short
            || !self.commands.is_empty()
            || !self.pending_reads.is_empty()
            || !self.pending_writes.is_empty()
            || self.hosts.iter().flatten().any(Host::has_immediate_work)
    }

    /// How long the loop may sleep: until the next router timer or dial attempt. Nothing
    /// else needs it awake: commands and memory pipes ring the waker, sockets wake the poll.
    /// (A cap of a second here woke every idle federate's node once a second more than its
    /// heartbeats need, and 1,000 idle federates are 1,000 such threads.)
    fn timeout(&self, now: Time) -> Duration {
        let next = self
            .hosts
            .iter()
            .flatten()
            .map(Host::next_timer)
            .min()
            .unwrap_or(now + IDLE_WAIT);
        next.since(now)
    }

    /// Act on everything that can be done without waiting, a bounded number of times.
    pub(crate) fn turn(&mut self) {
        // One clock read per busy turn: a turn takes microseconds when traffic is light and
        // moves up to a megabyte per socket when it is not.
        self.turn_cut_short = false;
        let started = self.clock.now();
        let mut now = started;
        self.now = now;
        for busy in 0..MAX_BUSY_TURNS {
            if busy > 0 {
                now = self.clock.now();
                self.now = now;
                if now.since(started) >= MAX_TURN_TIME {
                    // Work may remain: the wait polls the sockets without blocking.
                    self.turn_cut_short = true;
                    return;
                }
            }
            let mut progressed = self.take_commands(now);
            for host in 0..self.hosts.len() {
                if self.hosts[host].is_some() {
                    progressed |= self.step_host(now, host);
                }
            }
            progressed |= self.retry_reads(now);
            progressed |= self.retry_writes(now);
            progressed |= self.move_memory(now);
            if !progressed {
                return;
            }
        }
        // Busy every time: work may remain, as when cut short by time.
        self.turn_cut_short = true;
    }

    fn take_commands(&mut self, now: Time) -> bool {
        let mut progressed = false;
        while let Ok(command) = self.commands.try_recv() {
            progressed = true;
            match command {
                Command::AddHost { config, app, reply } => {
                    let result = self.add_host(now, *config, app);
                    let _ = reply.send(result);
                }
                Command::StopHost { host, reply } => {
                    match self.hosts.get_mut(host).and_then(Option::as_mut) {
                        Some(h) => h.stop(now, Some(reply)),
                        None => {
                            let _ = reply.send(());
                        }
                    }
                }
                Command::Stats { host, reply } => {
                    let stats = self
                        .hosts
                        .get(host)
                        .and_then(Option::as_ref)
                        .map(|h| h.stats(now));
                    let _ = reply.send(stats);
                }
                Command::WaitForLinks { host, count, reply } => {
                    if let Some(h) = self.hosts.get_mut(host).and_then(Option::as_mut) {
                        h.wait_for_links(count, reply);
                    }
                }
                Command::Shutdown { reply } => {
                    for host in self.hosts.iter_mut().flatten() {
                        host.stop(now, None);
                    }
                    self.shutting_down = Some(reply);
                }
            }
        }
        progressed
    }

    pub(crate) fn add_host(
        &mut self,
        now: Time,
        config: HostConfig,
        app: Option<AppPort>,
    ) -> Result<HostInfo, NetError> {
        let id = self
            .hosts
            .iter()
            .position(Option::is_none)
            .unwrap_or(self.hosts.len());
        let mut host = Host::new(now, &config, app);
        host.tls = secure::load(&config)?;
        let mut listening = Vec::new();
        let mut tokens = Vec::new();
        let result = (|| {
            for endpoint in &config.listen {
                listening.push(self.listen_on(id, &mut host, endpoint, &mut tokens)?);
            }
            self.bind_udp_for_dials(id, &mut host, &config, &mut tokens)
        })();
        if let Err(e) = result {
            for token in tokens {
                self.deregister(token);
            }
            for name in &host.memory_names {
                self.memory_names.remove(name);
            }
            return Err(e);
        }
        tracing::info!(host = %host.name, listening = ?listening.iter().map(ToString::to_string).collect::<Vec<_>>(), "host started");
        if id == self.hosts.len() {
            self.hosts.push(Some(host));
        } else {
            self.hosts[id] = Some(host);
        }
        Ok(HostInfo { id, listening })
    }

    /// Listen on `endpoint` for host `id`; returns the endpoint as bound (a port 0 chosen).
    /// Registered tokens go to `tokens`, so a later failure can take them back.
    fn listen_on(
        &mut self,
        id: HostId,
        host: &mut Host,
        endpoint: &Endpoint,
        tokens: &mut Vec<Token>,
    ) -> Result<Endpoint, NetError> {
        Ok(match endpoint {
            Endpoint::Tcp(addr) => {
                let socket = tcp::listen(*addr).map_err(|error| NetError::Listen {
                    endpoint: endpoint.clone(),
                    error,
                })?;
                let bound = Endpoint::Tcp(socket.local_addr()?);
                let token = self.register(Source::Listener { host: id, socket })?;
                tokens.push(token);
                host.listeners.push(token);
                bound
            }
            Endpoint::Tls { addr, host: name } => {
                let socket = tcp::listen(*addr).map_err(|error| NetError::Listen {
                    endpoint: endpoint.clone(),
                    error,
                })?;
                let addr = socket.local_addr()?;
                let token = self.register(Source::Listener { host: id, socket })?;
                tokens.push(token);
                host.listeners.push(token);
                host.tls_listeners.push(token);
                Endpoint::Tls {
                    addr,
                    host: name.clone(),
                }
            }
            Endpoint::Udp(addr) => {
                let socket = udp::bind(*addr).map_err(|error| NetError::Listen {
                    endpoint: endpoint.clone(),
                    error,
                })?;
                let bound = socket.local_addr()?;
                let token = self.register(Source::Udp { host: id, socket })?;
                tokens.push(token);
                host.udp = Some((token, bound.port()));
                Endpoint::Udp(bound)
            }
            Endpoint::Memory(name) => {
                if self.memory_names.contains_key(name) {
                    return Err(NetError::Listen {
                        endpoint: endpoint.clone(),
                        error: std::io::Error::new(
                            std::io::ErrorKind::AddrInUse,
                            "name already in use",
                        ),
                    });
                }
                self.memory_names.insert(name.clone(), id);
                host.memory_names.push(name.clone());
                endpoint.clone()
            }
        })
    }

    /// A node that dials with UDP needs a socket of its own to receive datagrams, on the
    /// address it reaches the router from (the router's own address only when both are on
    /// one host).
    fn bind_udp_for_dials(
        &mut self,
        id: HostId,
        host: &mut Host,
        config: &HostConfig,
        tokens: &mut Vec<Token>,
    ) -> Result<(), NetError> {
        // Not for TLS links: their best effort rides the TLS stream (UDP is not secured).
        let plain_udp =
            |d: &crate::runtime::DialConfig| d.udp && !matches!(d.endpoint, Endpoint::Tls { .. });
        if host.udp.is_some() || !config.dial.iter().any(plain_udp) {
            return Ok(());
        }
        let ip = match config.dial.iter().find_map(|d| match &d.endpoint {
            Endpoint::Tcp(addr) => Some(*addr),
            _ => None,
        }) {
            Some(router) => udp::local_ip_toward(router)?,
            None => std::net::Ipv4Addr::LOCALHOST.into(),
        };
        let socket = udp::bind(SocketAddr::new(ip, 0))?;
        let port = socket.local_addr()?.port();
        let token = self.register(Source::Udp { host: id, socket })?;
        tokens.push(token);
        host.udp = Some((token, port));
        Ok(())
    }

    fn register(&mut self, mut source: Source) -> std::io::Result<Token> {
        let index = self.free_tokens.pop().unwrap_or_else(|| {
            self.sources.push(None);
            self.sources.len() - 1
        });
        let token = Token(index + 1);
        let interest = mio::Interest::READABLE | mio::Interest::WRITABLE;
        let registry = self.poll.registry();
        let registered = match &mut source {
            Source::Listener { socket, .. } => {
                registry.register(socket, token, mio::Interest::READABLE)
            }
            Source::Udp { socket, .. } => registry.register(socket, token, interest),
            Source::Conn(conn) => registry.register(&mut conn.stream, token, interest),
        };
        if let Err(e) = registered {
            self.free_tokens.push(index);
            return Err(e);
        }
        self.sources[index] = Some(source);
        Ok(token)
    }

    fn deregister(&mut self, token: Token) -> Option<Source> {
        let mut source = self.sources.get_mut(token.0 - 1)?.take()?;
        if matches!(&source, Source::Conn(conn) if conn.answer.is_awaited()) {
            self.no_longer_awaited();
        }
        let registry = self.poll.registry();
        let _ = match &mut source {
            Source::Listener { socket, .. } => registry.deregister(socket),
            Source::Udp { socket, .. } => registry.deregister(socket),
            Source::Conn(conn) => registry.deregister(&mut conn.stream),
        };
        self.free_tokens.push(token.0 - 1);
        Some(source)
    }

    fn on_ready(&mut self, now: Time, token: Token, readable: bool, writable: bool) {
        match self.sources.get(token.0 - 1).and_then(Option::as_ref) {
            Some(Source::Listener { host, .. }) => {
                let host = *host;
                self.accept(now, token, host);
            }
            Some(Source::Udp { .. }) => {
                if readable {
                    self.receive_datagrams(now, token);
                }
                if writable {
                    self.send_datagrams_for_token(now, token);
                }
            }
            Some(Source::Conn(conn)) => {
                if conn.link.is_none() {
                    if conn.tls.is_some() {
                        if writable {
                            self.set_writable(token);
                        }
                        self.drive_handshake(now, token);
                    } else {
                        self.finish_connect(now, token);
                    }
                    return;
                }
                if writable {
                    if let Some(Source::Conn(conn)) = self.sources[token.0 - 1].as_mut() {
                        conn.writable = true;
                    }
                    self.flush(now, token);
                }
                if readable {
                    self.heard(now, token);
                    self.read(now, token);
                }
            }
            None => {}
        }
    }

    /// Bytes from the connection at `token` arrived at `now`: an awaited answer came.
    fn heard(&mut self, now: Time, token: Token) {
        if let Some(Source::Conn(conn)) = self.sources[token.0 - 1].as_mut() {
            if conn.answer.heard(now) {
                self.no_longer_awaited();
            }
        }
    }

    /// An awaited answer came, or its connection went.
    fn no_longer_awaited(&mut self) {
        debug_assert!(self.answers_awaited > 0, "each awaited answer is counted");
        self.answers_awaited -= 1;
    }

    /// Run a host's router timers and dials that are due. Its router asks for this at once
    /// (`poll_timeout`) when links that back-pressure paused may continue.
    fn run_host_timers(&mut self, now: Time, host: HostId) {
        let Some(h) = self.hosts[host].as_mut() else {
            return;
        };
        if h.router.poll_timeout() <= now {
            h.router.handle_timeout(now);
        }
        for dialer in h.due_dialers(now) {
            self.dial(now, host, dialer);
        }
        self.expire_handshakes(now, host);
    }

    /// One host's share of a turn. Returns whether anything happened.
    fn step_host(&mut self, now: Time, host: HostId) -> bool {
        // Timers first, each step: paused links resume in the turn that drained what they
        // waited on, and what the wait before this turn made due runs here.
        self.run_host_timers(now, host);
        let mut progressed = self.hosts[host]
            .as_mut()
            .expect("host is live")
            .take_app_commands(now);
        progressed |= self.host_events(now, host);
        // Links with new output.
        loop {
            let Some(h) = self.hosts[host].as_mut() else {
                return progressed;
            };
            let Some(link) = h.router.poll_ready() else {
                break;
            };
            progressed = true;
            match h.transports.get(&link) {
                Some(host::Transport::Tcp(token)) => {
                    let token = *token;
                    self.flush(now, token);
                }
                Some(host::Transport::Memory(..)) | None => {}
            }
        }
        progressed |= self.send_datagrams(now, host);
        if let Some(h) = self.hosts[host].as_mut() {
            progressed |= h.deliver();
            if h.finished() {
                self.remove_host(host);
            }
        }
        progressed
    }

    fn remove_host(&mut self, host: HostId) {
        let Some(mut h) = self.hosts[host].take() else {
            return;
        };
        for token in h.listeners.drain(..) {
            self.deregister(token);
        }
        if let Some((token, _)) = h.udp.take() {
            self.deregister(token);
        }
        for name in &h.memory_names {
            self.memory_names.remove(name);
        }
        // Connections still open or connecting at this point failed to close in time.
        let open = h.transports.values().filter_map(|t| match t {
            host::Transport::Tcp(token) => Some(*token),
            host::Transport::Memory(..) => None,
        });
        let connecting = h.dialers.iter().filter_map(|d| match d.state {
            host::DialState::Connecting(token) => Some(token),
            _ => None,
        });
        let handshaking = h.handshakes.iter().copied();
        let tokens: Vec<Token> = open.chain(connecting).chain(handshaking).collect();
        for token in tokens {
            self.deregister(token);
        }
        tracing::info!(host = %h.name, "host stopped");
        h.stopped();
    }
}
