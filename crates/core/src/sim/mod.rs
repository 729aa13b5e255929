//! A deterministic network of routers in one thread, in virtual time.
//!
//! Every node is a real [`Router`]; every link is a simulated pipe that carries the stream
//! bytes with a random delay (in order, like TCP) and, where enabled, best-effort datagrams.
//! All randomness comes from one seed, so a failing run is replayed by running the same seed
//! again. Tests print the seed on failure.
//!
//! # The fault model
//!
//! - **Delay**: every chunk of stream bytes and every datagram takes a random delay within
//!   `SimConfig::min_delay..=max_delay`; the stream stays in order, datagrams may overtake
//!   one another (reordering).
//! - **Datagram loss and duplication**: each datagram is lost with `datagram_loss` and
//!   delivered twice with `datagram_duplication`.
//! - **A broken connection** ([`Sim::sever`]): both ends see a transport error at once, bytes
//!   in flight are lost. The dialer redials with [`Sim::redial`] (a new pipe), or fails over
//!   to an alternate parent with [`Sim::redial_to`].
//! - **A crash** ([`Sim::crash`]): the node stops at once and loses all its state; the far end
//!   of each of its pipes sees a transport error. [`Sim::restart`] brings it back as a fresh
//!   router with the same name and a new node id (as a restarted process gets), with no
//!   links: the harness redials its pipes.
//! - **A partition** ([`Sim::partition`], one way or both): bytes toward the far end are held
//!   (not lost: TCP retransmits) and datagrams are lost, while the connection stays open; the
//!   window fills and the sender stalls. Past the heartbeat timeout the routers close the link
//!   themselves. [`Sim::heal`] releases what was held. A stall that heals quickly is the same
//!   with a short duration. A partition both ways is a frozen process (SIGSTOP): it reads
//!   and writes nothing; [`Sim::widen`] gives its pipe room for more meanwhile, as a kernel
//!   growing the buffers of a connection whose reader stopped.
//!
//! # The invariants the tests check
//!
//! Throughout: no application receives a message twice (at most once, even with duplicated
//! datagrams and redials), and no reliable loss is silent: the messages missing from the
//! middle of any stream (source, interest id) an application receives add up to exactly
//! what its router reported lost ([`Sim::check_losses_reported`]). After faults stop,
//! partitions heal, crashed nodes restart and broken pipes are redialed: the network
//! becomes quiet; the interest every node declares toward every link equals DESIGN.md §2's
//! union rule and the far end holds exactly that; and every reliable message published then
//! reaches every interested application exactly once and nobody else. A broken connection
//! redialed within the grace resumes its link session and loses nothing
//! (`tests/link_resume.rs`); what a crash destroys is lost, and reported.

mod checks;
mod rng;

pub use rng::Rng;

use crate::router::{Event, LinkSpec, PublishError, Router, RouterConfig};
use crate::time::Time;
use crate::wire::{decode_frame, Frame, NodeId, Role, TransportClass, UdpOffer};
use crate::{router::LinkId, InterestId};
use bytes::{Bytes, BytesMut};
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::time::Duration;

/// The fault model.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Each chunk of stream bytes and each datagram takes a delay in this range.
    pub min_delay: Duration,
    /// Upper end of the delay range, inclusive.
    pub max_delay: Duration,
    /// Probability that a best-effort datagram is lost.
    pub datagram_loss: f64,
    /// Give every link a UDP session, so best-effort frames travel as datagrams.
    pub udp: bool,
    /// Bytes a pipe holds in flight per direction before the sender must wait (TCP window).
    pub window: usize,
    /// Probability that a datagram is delivered twice.
    pub datagram_duplication: f64,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            min_delay: Duration::from_micros(50),
            max_delay: Duration::from_millis(2),
            datagram_loss: 0.0,
            udp: false,
            window: 256 << 10,
            datagram_duplication: 0.0,
        }
    }
}

/// Position of a node in [`Sim::nodes`]; stays valid across crash and restart.
pub type NodeIndex = usize;
/// Position of a pipe (one simulated connection) in the simulator.
pub type PipeIndex = usize;

/// A message as the local application of a node received it.
#[derive(Clone, Debug)]
pub struct Received {
    /// Virtual time of delivery to the application.
    pub at: Time,
    /// Node id of the publishing router.
    pub source: NodeId,
    /// The publisher's sequence number, as [`Sim::publish`] returned it.
    pub seq: u64,
    /// Interest ids the frame carried.
    pub ids: Vec<InterestId>,
    /// Reliable or best-effort, as published.
    pub class: TransportClass,
    /// The application's bytes.
    pub payload: Bytes,
    /// The keep-latest key, on a keep-latest frame (`router::latest`).
    pub latest: Option<crate::wire::LatestKey>,
    /// For each id of the frame the application held when it received it: the frame's
    /// number in the source's stream for that id, and the stream's epoch at the receiver.
    pub streams: Vec<StreamMark>,
}

/// Where a delivered reliable frame falls in one of its source's streams at a receiver.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StreamMark {
    /// The interest id of the stream.
    pub id: InterestId,
    /// The frame's number in the source's stream for `id` (1-based).
    pub number: u32,
    /// Moves whenever the receiver dropped interest in `id` or restarted: a stream's
    /// numbers are compared only within one epoch.
    pub epoch: (u32, u32),
}

/// One simulated process: a real [`Router`] and what its local application saw.
pub struct SimNode {
    /// Name given at [`Sim::add_node`], also the router's node name.
    pub name: String,
    /// The router under test.
    pub router: Router,
    /// Messages delivered to its application, in order.
    pub received: Vec<Received>,
    /// Events the router reported, in order.
    pub events: Vec<Event>,
    links: FxHashMap<LinkId, (PipeIndex, usize)>,
    /// Crashed and not restarted yet: it does nothing.
    pub crashed: bool,
    /// Restarts so far, and per id the times the application dropped interest in it:
    /// the epochs of `StreamMark`.
    incarnation: u32,
    interest_epochs: FxHashMap<InterestId, u32>,
}

enum Chunk {
    Bytes(Bytes),
    Eof,
}

struct Direction {
    /// Chunks on their way toward this direction's receiving end, with arrival times.
    stream: VecDeque<(Time, Chunk)>,
    in_flight: usize,
    last_arrival: Time,
    datagrams: VecDeque<(Time, Vec<u8>)>,
    /// Mirrors the stream to count data frames crossing this pipe.
    observer: BytesMut,
    closed_by_sender: bool,
    /// Partitioned: stream bytes wait, datagrams are lost.
    held: bool,
    /// Bytes this direction holds in flight beyond `SimConfig::window` ([`Sim::widen`]).
    extra_window: usize,
}

/// How a pipe was dialed, to dial it again.
#[derive(Clone)]
struct Dial {
    dialer: NodeIndex,
    acceptor: NodeIndex,
    far_role: Role,
    federation: String,
    clique: String,
}

struct Pipe {
    /// (node, link) at each end; direction `i` carries bytes toward end `i`.
    ends: [(NodeIndex, LinkId); 2],
    toward: [Direction; 2],
    dial: Dial,
    /// Severed or crashed: nothing moves on it any more.
    dead: bool,
}

/// The simulated network: nodes, pipes between them, and a virtual clock.
pub struct Sim {
    /// The seed of every random choice; print it on failure to replay the run.
    pub seed: u64,
    now: Time,
    rng: Rng,
    config: SimConfig,
    /// Every node added, by [`NodeIndex`].
    pub nodes: Vec<SimNode>,
    pipes: Vec<Pipe>,
    next_token: u64,
    buf: Vec<u8>,
    /// Pipe crossings per data frame, keyed by (source, seq).
    crossings: FxHashMap<(NodeId, u64), u32>,
    /// Node ids handed out so far (restarted nodes get new ones).
    ids_issued: u64,
}

impl Sim {
    /// A network with no nodes, its clock at 1 s, every random choice drawn from `seed`.
    pub fn new(seed: u64, config: SimConfig) -> Sim {
        Sim {
            seed,
            now: Time::from_nanos(1_000_000_000),
            rng: Rng::new(seed),
            config,
            nodes: Vec::new(),
            pipes: Vec::new(),
            next_token: 1,
            buf: Vec::new(),
            crossings: FxHashMap::default(),
            ids_issued: 0,
        }
    }

    fn fresh_id(&mut self) -> NodeId {
        self.ids_issued += 1;
        NodeId(self.ids_issued)
    }

    /// The virtual time.
    pub fn now(&self) -> Time {
        self.now
    }

    /// The simulator's generator, for tests to draw their own choices from the same seed.
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    /// A router that serves every federation.
    pub fn add_router(&mut self, name: &str) -> NodeIndex {
        let id = self.fresh_id();
        self.add_node(RouterConfig::new(name, id))
    }

    /// A federate node: a router with a local application in `federation`.
    pub fn add_federate(&mut self, name: &str, federation: &str) -> NodeIndex {
        let id = self.fresh_id();
        self.add_node(RouterConfig::federate(name, id, federation))
    }

    /// Adds a node built from `config` and returns its index.
    pub fn add_node(&mut self, config: RouterConfig) -> NodeIndex {
        let name = config.node_name.clone();
        self.nodes.push(SimNode {
            name,
            router: Router::new(config, self.now),
            received: Vec::new(),
            events: Vec::new(),
            links: FxHashMap::default(),
            crashed: false,
            incarnation: 0,
            interest_epochs: FxHashMap::default(),
        });
        self.nodes.len() - 1
    }

    /// `child` dials `parent`. `federation` is empty for a router-to-router link.
    pub fn connect_parent(
        &mut self,
        child: NodeIndex,
        parent: NodeIndex,
        federation: &str,
    ) -> PipeIndex {
        self.connect(child, parent, Role::Parent, federation, "")
    }

    /// `a` dials `b` as a fellow member of `clique`.
    pub fn connect_peers(
        &mut self,
        a: NodeIndex,
        b: NodeIndex,
        federation: &str,
        clique: &str,
    ) -> PipeIndex {
        self.connect(a, b, Role::Peer, federation, clique)
    }

    /// Make every pair of `members` peers of `clique`.
    pub fn clique(&mut self, members: &[NodeIndex], federation: &str, clique: &str) {
        for (i, &a) in members.iter().enumerate() {
            for &b in &members[i + 1..] {
                self.connect_peers(a, b, federation, clique);
            }
        }
    }

    fn connect(
        &mut self,
        dialer: NodeIndex,
        acceptor: NodeIndex,
        far_role: Role,
        federation: &str,
        clique: &str,
    ) -> PipeIndex {
        let pipe = self.pipes.len();
        let mut dial = LinkSpec::dialed(
            far_role,
            federation,
            clique,
            self.nodes[acceptor].name.clone(),
        );
        let mut accept = LinkSpec::accepted(self.nodes[dialer].name.clone());
        if self.config.udp {
            // The port is not used in a simulation; it only has to be non-zero.
            dial = dial.with_udp(UdpOffer {
                port: 1,
                token: self.token(),
            });
            accept = accept.with_udp(UdpOffer {
                port: 1,
                token: self.token(),
            });
        }
        let a = self.nodes[dialer].router.add_link(self.now, dial);
        let b = self.nodes[acceptor].router.add_link(self.now, accept);
        self.nodes[dialer].links.insert(a, (pipe, 0));
        self.nodes[acceptor].links.insert(b, (pipe, 1));
        let direction = || Direction {
            stream: VecDeque::new(),
            in_flight: 0,
            last_arrival: Time::ZERO,
            datagrams: VecDeque::new(),
            observer: BytesMut::new(),
            closed_by_sender: false,
            held: false,
            extra_window: 0,
        };
        let dial = Dial {
            dialer,
            acceptor,
            far_role,
            federation: federation.to_owned(),
            clique: clique.to_owned(),
        };
        self.pipes.push(Pipe {
            ends: [(dialer, a), (acceptor, b)],
            toward: [direction(), direction()],
            dial,
            dead: false,
        });
        pipe
    }

    /// Dial `pipe` again, as its dialer would after it broke: a new pipe with the same ends
    /// and roles.
    pub fn redial(&mut self, pipe: PipeIndex) -> PipeIndex {
        let acceptor = self.pipes[pipe].dial.acceptor;
        self.redial_to(pipe, acceptor)
    }

    /// Dial the link of `pipe` again, to `acceptor` this time: a node failing over to an
    /// alternate parent (a new pipe, same dialer and roles).
    pub fn redial_to(&mut self, pipe: PipeIndex, acceptor: NodeIndex) -> PipeIndex {
        let d = self.pipes[pipe].dial.clone();
        assert!(
            !self.nodes[d.dialer].crashed && !self.nodes[acceptor].crashed,
            "a crashed node cannot be dialed or dial"
        );
        self.connect(d.dialer, acceptor, d.far_role, &d.federation, &d.clique)
    }

    /// Pipes made so far, broken ones included (indices 0..count).
    pub fn pipe_count(&self) -> usize {
        self.pipes.len()
    }

    /// The two nodes of a pipe: (dialer, acceptor).
    pub fn pipe_nodes(&self, pipe: PipeIndex) -> (NodeIndex, NodeIndex) {
        (self.pipes[pipe].dial.dialer, self.pipes[pipe].dial.acceptor)
    }

    /// Whether the dialer of `pipe` no longer has its link: it would redial now.
    pub fn pipe_down(&self, pipe: PipeIndex) -> bool {
        let p = &self.pipes[pipe];
        let (dialer, link) = p.ends[0];
        p.dead || !self.nodes[dialer].router.has_link(link)
    }

    /// Hold what travels on `pipe` toward `toward_dialer` / `toward_acceptor` (one way or
    /// both) until [`Sim::heal`].
    pub fn partition(&mut self, pipe: PipeIndex, toward_dialer: bool, toward_acceptor: bool) {
        self.pipes[pipe].toward[0].held = toward_dialer;
        self.pipes[pipe].toward[1].held = toward_acceptor;
    }

    /// Let `pipe` take `bytes` more than it holds in flight now toward its dialer
    /// (`toward_dialer`) or its acceptor: a kernel growing a connection's buffers while its
    /// reader has stopped, so a sender stalled on a frozen reader gets rid of a little more
    /// (to the sender's next batch boundary) and then stalls again.
    pub fn widen(&mut self, pipe: PipeIndex, toward_dialer: bool, bytes: usize) {
        let window = self.config.window;
        let direction = &mut self.pipes[pipe].toward[if toward_dialer { 0 } else { 1 }];
        direction.extra_window = (direction.in_flight + bytes).saturating_sub(window);
    }

    /// End a partition of `pipe`: what was held travels on.
    pub fn heal(&mut self, pipe: PipeIndex) {
        for direction in &mut self.pipes[pipe].toward {
            direction.held = false;
        }
    }

    /// Stop `node` at once, losing its state: every pipe of it breaks, the far ends see a
    /// transport error.
    pub fn crash(&mut self, node: NodeIndex) {
        let now = self.now;
        for pipe in 0..self.pipes.len() {
            let p = &self.pipes[pipe];
            if p.dead || (p.ends[0].0 != node && p.ends[1].0 != node) {
                continue;
            }
            self.kill_pipe(pipe);
            for (far, link) in self.pipes[pipe].ends {
                if far != node {
                    self.nodes[far]
                        .router
                        .handle_transport_error(now, link, "the peer crashed");
                }
            }
        }
        self.nodes[node].crashed = true;
        self.nodes[node].links.clear();
    }

    /// Start a crashed node again: a fresh router of the same name and kind, a new node id,
    /// no links and no interest.
    pub fn restart(&mut self, node: NodeIndex) {
        let mut config = self.nodes[node].router.config().clone();
        config.node_id = self.fresh_id();
        self.nodes[node].router = Router::new(config, self.now);
        self.nodes[node].crashed = false;
        self.nodes[node].incarnation += 1;
    }

    fn kill_pipe(&mut self, pipe: PipeIndex) {
        let p = &mut self.pipes[pipe];
        p.dead = true;
        for direction in &mut p.toward {
            direction.stream.clear();
            direction.in_flight = 0;
            direction.datagrams.clear();
        }
    }

    fn token(&mut self) -> u64 {
        self.next_token += 1;
        self.next_token
    }

    /// The link ids at both ends of a pipe: (dialer's, acceptor's).
    pub fn pipe_links(&self, pipe: PipeIndex) -> (LinkId, LinkId) {
        (self.pipes[pipe].ends[0].1, self.pipes[pipe].ends[1].1)
    }

    /// Break a pipe abruptly: both ends see a transport error, bytes in flight are lost.
    pub fn sever(&mut self, pipe: PipeIndex) {
        let now = self.now;
        if self.pipes[pipe].dead {
            return;
        }
        self.kill_pipe(pipe);
        for (node, link) in self.pipes[pipe].ends {
            self.nodes[node]
                .router
                .handle_transport_error(now, link, "severed by the simulator");
        }
    }

    /// Declares the node's application interest in `ids`.
    pub fn subscribe(&mut self, node: NodeIndex, ids: &RoaringBitmap) {
        let now = self.now;
        self.nodes[node].router.subscribe(now, ids);
    }

    /// Withdraws the node's application interest in `ids`; later frames on them start a new epoch.
    pub fn unsubscribe(&mut self, node: NodeIndex, ids: &RoaringBitmap) {
        let now = self.now;
        let node = &mut self.nodes[node];
        for id in &(node.router.interest() & ids) {
            *node.interest_epochs.entry(id).or_default() += 1;
        }
        node.router.unsubscribe(now, ids);
    }

    /// Publishes `payload` from the node's application on `ids`; returns its sequence number.
    pub fn publish(
        &mut self,
        node: NodeIndex,
        ids: &[InterestId],
        class: TransportClass,
        payload: &[u8],
    ) -> Result<u64, PublishError> {
        let now = self.now;
        self.nodes[node].router.publish(now, ids, class, 0, payload)
    }

    /// How many pipes the data frame (source, seq) crossed so far.
    pub fn crossings(&self, source: NodeId, seq: u64) -> u32 {
        self.crossings.get(&(source, seq)).copied().unwrap_or(0)
    }

    /// Let every node act on what it has now: events, output, deliveries. Repeats until
    /// nothing more happens at this instant.
    fn settle(&mut self) {
        loop {
            let mut progressed = false;
            for node in 0..self.nodes.len() {
                if !self.nodes[node].crashed {
                    progressed |= self.drain_node(node);
                }
            }
            for pipe in 0..self.pipes.len() {
                if !self.pipes[pipe].dead {
                    progressed |= self.transmit(pipe);
                }
            }
            if !progressed {
                return;
            }
        }
    }

    fn drain_node(&mut self, node: NodeIndex) -> bool {
        let now = self.now;
        let mut progressed = false;
        // Timers first, every time: those that came due with this step, and paused links,
        // which resume as soon as what they waited on drained (the router asks for that at
        // once through its timeout).
        if self.nodes[node].router.poll_timeout() <= now {
            self.nodes[node].router.handle_timeout(now);
        }
        while let Some(event) = self.nodes[node].router.poll_event() {
            progressed = true;
            if let Event::LinkClosed { link, .. } = &event {
                if let Some(&(pipe, end)) = self.nodes[node].links.get(link) {
                    // Our end is gone: the far end sees end-of-stream after what is in flight.
                    let dead = self.pipes[pipe].dead;
                    let toward = &mut self.pipes[pipe].toward[1 - end];
                    if !dead && !toward.closed_by_sender {
                        toward.closed_by_sender = true;
                        let arrival = toward.last_arrival.max(now);
                        toward.stream.push_back((arrival, Chunk::Eof));
                    }
                }
            }
            self.nodes[node].events.push(event);
        }
        while self.nodes[node].router.poll_ready().is_some() {}
        while let Some(frame) = self.nodes[node].router.poll_delivery() {
            progressed = true;
            let n = &mut self.nodes[node];
            let streams = frame
                .ids()
                .zip(frame.streams())
                .filter(|&(id, number)| number != 0 && n.router.app_wants(id))
                .map(|(id, number)| StreamMark {
                    id,
                    number,
                    epoch: (
                        n.incarnation,
                        n.interest_epochs.get(&id).copied().unwrap_or(0),
                    ),
                })
                .collect();
            n.received.push(Received {
                at: now,
                source: frame.source(),
                seq: frame.seq(),
                ids: frame.ids().collect(),
                class: frame.class(),
                payload: frame.payload_bytes(),
                latest: frame.latest(),
                streams,
            });
        }
        progressed
    }

    /// Move output of both ends of `pipe` into flight, within the window.
    fn transmit(&mut self, pipe: PipeIndex) -> bool {
        let now = self.now;
        let mut progressed = false;
        for end in 0..2 {
            let (node, link) = self.pipes[pipe].ends[end];
            let toward = 1 - end;
            loop {
                let direction = &self.pipes[pipe].toward[toward];
                if direction.closed_by_sender
                    || direction.in_flight >= self.config.window + direction.extra_window
                {
                    break;
                }
                self.buf.clear();
                let n = self.nodes[node]
                    .router
                    .poll_transmit(now, link, &mut self.buf);
                if n == 0 {
                    break;
                }
                progressed = true;
                let delay = self.delay();
                let direction = &mut self.pipes[pipe].toward[toward];
                let arrival = direction.last_arrival.max(now + delay);
                direction.last_arrival = arrival;
                direction.in_flight += n;
                direction
                    .stream
                    .push_back((arrival, Chunk::Bytes(Bytes::copy_from_slice(&self.buf))));
                direction.observer.extend_from_slice(&self.buf);
                while let Ok(Some(frame)) = decode_frame(&mut direction.observer, usize::MAX >> 1) {
                    if let Frame::Data(data) = frame {
                        *self
                            .crossings
                            .entry((data.source(), data.seq()))
                            .or_default() += 1;
                    }
                }
            }
            loop {
                let n = self.nodes[node]
                    .router
                    .poll_datagram(now, link, &mut self.buf);
                if n == 0 {
                    break;
                }
                progressed = true;
                if self.rng.chance(self.config.datagram_loss)
                    || self.pipes[pipe].toward[toward].held
                {
                    continue;
                }
                let copies = if self.rng.chance(self.config.datagram_duplication) {
                    2
                } else {
                    1
                };
                for _ in 0..copies {
                    let arrival = now + self.delay();
                    let datagrams = &mut self.pipes[pipe].toward[toward].datagrams;
                    // In arrival order: a datagram may overtake those sent before it.
                    let at = datagrams.partition_point(|(t, _)| *t <= arrival);
                    datagrams.insert(at, (arrival, self.buf.clone()));
                }
            }
        }
        progressed
    }

    fn delay(&mut self) -> Duration {
        let lo = self.config.min_delay.as_nanos() as u64;
        let hi = self.config.max_delay.as_nanos() as u64;
        Duration::from_nanos(self.rng.between(lo, hi.max(lo)))
    }

    /// Whether anything is in flight or queued for a transport.
    pub fn busy(&self) -> bool {
        let suspended = self
            .nodes
            .iter()
            .any(|n| !n.crashed && n.router.has_suspended_links());
        suspended
            || self.pipes.iter().filter(|p| !p.dead).any(|p| {
                p.toward
                    .iter()
                    .any(|d| !d.stream.is_empty() || !d.datagrams.is_empty())
                    || p.ends.iter().any(|&(node, link)| {
                        let router = &self.nodes[node].router;
                        router.has_output(link) || router.has_datagrams(link)
                    })
            })
    }

    /// The pipes that keep the network busy, for a failure message.
    fn what_is_busy(&self) -> String {
        let mut busy = Vec::new();
        for (index, p) in self.pipes.iter().enumerate().filter(|(_, p)| !p.dead) {
            for (end, direction) in p.toward.iter().enumerate() {
                let (node, link) = p.ends[end];
                let (from, from_link) = p.ends[1 - end];
                let queued = self.nodes[from].router.has_output(from_link);
                if direction.stream.is_empty() && direction.datagrams.is_empty() && !queued {
                    continue;
                }
                busy.push(format!(
                    "pipe {index} {} -> {}: {} chunks in flight{}{}, sender has output: {queued}, \
                     receiver reads: {}",
                    self.nodes[from].name,
                    self.nodes[node].name,
                    direction.stream.len(),
                    if direction.held { " (held)" } else { "" },
                    if direction.closed_by_sender {
                        " (closed)"
                    } else {
                        ""
                    },
                    self.nodes[node].router.wants_read(link),
                ));
            }
        }
        busy.join("; ")
    }

    /// The next instant something is due: a chunk the receiver will read, a datagram, or a
    /// router timer.
    fn next_due(&self) -> Time {
        let mut next = self
            .nodes
            .iter()
            .filter(|n| !n.crashed)
            .map(|n| n.router.poll_timeout())
            .min()
            .unwrap_or(self.now + Duration::from_secs(1));
        for pipe in self.pipes.iter().filter(|p| !p.dead) {
            for (end, direction) in pipe.toward.iter().enumerate() {
                if direction.held {
                    continue;
                }
                let (node, link) = pipe.ends[end];
                if let Some((at, chunk)) = direction.stream.front() {
                    let readable =
                        matches!(chunk, Chunk::Eof) || self.nodes[node].router.wants_read(link);
                    if readable {
                        next = next.min(*at);
                    }
                }
                if let Some((at, _)) = direction.datagrams.front() {
                    next = next.min(*at);
                }
            }
        }
        next.max(self.now)
    }

    /// Advance to the next due instant and act on everything due then.
    pub fn step(&mut self) {
        self.step_until(Time::from_nanos(u64::MAX));
    }

    /// As [`Sim::step`], but no later than `limit`.
    fn step_until(&mut self, limit: Time) {
        self.settle();
        self.now = self.next_due().min(limit);
        let now = self.now;
        for pipe in 0..self.pipes.len() {
            for end in 0..2 {
                let (node, link) = self.pipes[pipe].ends[end];
                if self.pipes[pipe].dead || self.pipes[pipe].toward[end].held {
                    continue;
                }
                if !self.nodes[node].router.has_link(link) {
                    // The receiving end closed its socket: what arrives goes nowhere.
                    let direction = &mut self.pipes[pipe].toward[end];
                    direction.stream.clear();
                    direction.datagrams.clear();
                    direction.in_flight = 0;
                    continue;
                }
                loop {
                    let direction = &mut self.pipes[pipe].toward[end];
                    let Some((at, chunk)) = direction.stream.front() else {
                        break;
                    };
                    if *at > now {
                        break;
                    }
                    match chunk {
                        Chunk::Eof => {
                            direction.stream.pop_front();
                            self.nodes[node].router.handle_eof(now, link);
                        }
                        Chunk::Bytes(bytes) => {
                            if !self.nodes[node].router.wants_read(link) {
                                break;
                            }
                            let bytes = bytes.clone();
                            direction.stream.pop_front();
                            direction.in_flight -= bytes.len();
                            self.nodes[node].router.handle_bytes(now, link, &bytes);
                        }
                    }
                }
                loop {
                    let direction = &mut self.pipes[pipe].toward[end];
                    let Some((at, _)) = direction.datagrams.front() else {
                        break;
                    };
                    if *at > now {
                        break;
                    }
                    let (_, datagram) = direction.datagrams.pop_front().expect("front exists");
                    self.nodes[node].router.handle_datagram(now, &datagram);
                }
            }
        }
        // Settling runs each node's due timers before it drains the node.
        self.settle();
    }

    /// Step until nothing is in flight or queued, or fail after `limit` of virtual time.
    pub fn run_until_quiet(&mut self, limit: Duration) -> Result<(), String> {
        let deadline = self.now + limit;
        self.settle();
        while self.busy() {
            if self.now > deadline {
                return Err(format!(
                    "seed {}: network still busy after {:?} of virtual time: {}",
                    self.seed,
                    limit,
                    self.what_is_busy()
                ));
            }
            self.step();
        }
        Ok(())
    }

    /// Step through `span` of virtual time.
    pub fn run_for(&mut self, span: Duration) {
        let until = self.now + span;
        while self.now < until {
            self.step_until(until);
        }
    }

    /// The current node id of the node (a restarted node gets a new one).
    pub fn node_id(&self, node: NodeIndex) -> NodeId {
        self.nodes[node].router.config().node_id
    }
}
