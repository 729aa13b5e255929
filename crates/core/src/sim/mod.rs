//! A deterministic network of routers in one thread, in virtual time.
//!
//! Every node is a real [`Router`]; every link is a simulated pipe that carries the stream
//! bytes with a random delay (in order, like TCP) and, where enabled, best-effort datagrams
//! that may be lost. All randomness comes from one seed, so a failing run is replayed by
//! running the same seed again. Tests print the seed on failure.

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
    pub max_delay: Duration,
    /// Probability that a best-effort datagram is lost.
    pub datagram_loss: f64,
    /// Give every link a UDP session, so best-effort frames travel as datagrams.
    pub udp: bool,
    /// Bytes a pipe holds in flight per direction before the sender must wait (TCP window).
    pub window: usize,
}

impl Default for SimConfig {
    fn default() -> Self {
        SimConfig {
            min_delay: Duration::from_micros(50),
            max_delay: Duration::from_millis(2),
            datagram_loss: 0.0,
            udp: false,
            window: 256 << 10,
        }
    }
}

pub type NodeIndex = usize;
pub type PipeIndex = usize;

/// A message as the local application of a node received it.
#[derive(Clone, Debug)]
pub struct Received {
    pub at: Time,
    pub source: NodeId,
    pub seq: u64,
    pub ids: Vec<InterestId>,
    pub class: TransportClass,
    pub payload: Bytes,
}

pub struct SimNode {
    pub name: String,
    pub router: Router,
    pub received: Vec<Received>,
    pub events: Vec<Event>,
    links: FxHashMap<LinkId, (PipeIndex, usize)>,
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
}

struct Pipe {
    /// (node, link) at each end; direction `i` carries bytes toward end `i`.
    ends: [(NodeIndex, LinkId); 2],
    toward: [Direction; 2],
}

pub struct Sim {
    pub seed: u64,
    now: Time,
    rng: Rng,
    config: SimConfig,
    pub nodes: Vec<SimNode>,
    pipes: Vec<Pipe>,
    next_token: u64,
    buf: Vec<u8>,
    /// Pipe crossings per data frame, keyed by (source, seq).
    crossings: FxHashMap<(NodeId, u64), u32>,
}

impl Sim {
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
        }
    }

    pub fn now(&self) -> Time {
        self.now
    }

    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    /// A router that serves every federation.
    pub fn add_router(&mut self, name: &str) -> NodeIndex {
        let id = NodeId(self.nodes.len() as u64 + 1);
        self.add_node(RouterConfig::new(name, id))
    }

    /// A federate node: a router with a local application in `federation`.
    pub fn add_federate(&mut self, name: &str, federation: &str) -> NodeIndex {
        let id = NodeId(self.nodes.len() as u64 + 1);
        self.add_node(RouterConfig::federate(name, id, federation))
    }

    pub fn add_node(&mut self, config: RouterConfig) -> NodeIndex {
        let name = config.node_name.clone();
        self.nodes.push(SimNode {
            name,
            router: Router::new(config, self.now),
            received: Vec::new(),
            events: Vec::new(),
            links: FxHashMap::default(),
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
        };
        self.pipes.push(Pipe {
            ends: [(dialer, a), (acceptor, b)],
            toward: [direction(), direction()],
        });
        pipe
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
        for end in 0..2 {
            let (node, link) = self.pipes[pipe].ends[end];
            self.pipes[pipe].toward[end].stream.clear();
            self.pipes[pipe].toward[end].in_flight = 0;
            self.pipes[pipe].toward[end].datagrams.clear();
            self.nodes[node]
                .router
                .handle_transport_error(now, link, "severed by the simulator");
        }
    }

    pub fn subscribe(&mut self, node: NodeIndex, ids: &RoaringBitmap) {
        let now = self.now;
        self.nodes[node].router.subscribe(now, ids);
    }

    pub fn unsubscribe(&mut self, node: NodeIndex, ids: &RoaringBitmap) {
        let now = self.now;
        self.nodes[node].router.unsubscribe(now, ids);
    }

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
                progressed |= self.drain_node(node);
            }
            for pipe in 0..self.pipes.len() {
                progressed |= self.transmit(pipe);
            }
            if !progressed {
                return;
            }
        }
    }

    fn drain_node(&mut self, node: NodeIndex) -> bool {
        let now = self.now;
        let mut progressed = false;
        while let Some(event) = self.nodes[node].router.poll_event(now) {
            progressed = true;
            if let Event::LinkClosed { link, .. } = &event {
                if let Some(&(pipe, end)) = self.nodes[node].links.get(link) {
                    // Our end is gone: the far end sees end-of-stream after what is in flight.
                    let toward = &mut self.pipes[pipe].toward[1 - end];
                    if !toward.closed_by_sender {
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
            self.nodes[node].received.push(Received {
                at: now,
                source: frame.source(),
                seq: frame.seq(),
                ids: frame.ids().collect(),
                class: frame.class(),
                payload: frame.payload_bytes(),
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
                if self.pipes[pipe].toward[toward].closed_by_sender
                    || self.pipes[pipe].toward[toward].in_flight >= self.config.window
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
                if self.rng.chance(self.config.datagram_loss) {
                    continue;
                }
                let arrival = now + self.delay();
                self.pipes[pipe].toward[toward]
                    .datagrams
                    .push_back((arrival, self.buf.clone()));
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
        self.pipes.iter().any(|p| {
            p.toward
                .iter()
                .any(|d| !d.stream.is_empty() || !d.datagrams.is_empty())
                || p.ends.iter().any(|&(node, link)| {
                    let router = &self.nodes[node].router;
                    router.has_output(link) || router.has_datagrams(link)
                })
        })
    }

    /// The next instant something is due: a chunk the receiver will read, a datagram, or a
    /// router timer.
    fn next_due(&self) -> Time {
        let mut next = self
            .nodes
            .iter()
            .map(|n| n.router.poll_timeout())
            .min()
            .unwrap_or(self.now + Duration::from_secs(1));
        for pipe in &self.pipes {
            for (end, direction) in pipe.toward.iter().enumerate() {
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
        self.settle();
        self.now = self.next_due();
        let now = self.now;
        for pipe in 0..self.pipes.len() {
            for end in 0..2 {
                let (node, link) = self.pipes[pipe].ends[end];
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
        for node in &mut self.nodes {
            if node.router.poll_timeout() <= now {
                node.router.handle_timeout(now);
            }
        }
        self.settle();
    }

    /// Step until nothing is in flight or queued, or fail after `limit` of virtual time.
    pub fn run_until_quiet(&mut self, limit: Duration) -> Result<(), String> {
        let deadline = self.now + limit;
        self.settle();
        while self.busy() {
            if self.now > deadline {
                return Err(format!(
                    "seed {}: network still busy after {:?} of virtual time",
                    self.seed, limit
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
            self.step();
        }
    }
}

/// Checks of the routing invariants, used by the simulation tests.
impl Sim {
    /// DESIGN.md §2's rule, at every node and link: what a node declared toward a link equals
    /// the union of what its links outside that link's block declared to it (plus its own
    /// application's interest), and the far end received exactly that.
    pub fn check_interest(&self, federations: &[&str]) -> Result<(), String> {
        for node in &self.nodes {
            let router = &node.router;
            let links: Vec<_> = router
                .link_ids()
                .into_iter()
                .filter_map(|id| router.link_info(id))
                .filter(|info| info.up)
                .collect();
            let app = router.application_link();
            for federation in federations {
                for link in links.iter().filter(|l| Some(l.id) != app) {
                    let mut expected = RoaringBitmap::new();
                    for other in &links {
                        if other.block != link.block {
                            if Some(other.id) == app {
                                if router
                                    .config()
                                    .application
                                    .as_ref()
                                    .is_some_and(|a| a.federation == *federation)
                                {
                                    expected |= router.interest();
                                }
                            } else {
                                expected |= router.received_interest(other.id, federation);
                            }
                        }
                    }
                    let carries = link
                        .peer
                        .as_ref()
                        .is_some_and(|p| p.federation.is_empty() || p.federation == *federation);
                    if !carries {
                        expected.clear();
                    }
                    let declared = router.declared_interest(link.id, federation);
                    if declared != expected {
                        return Err(format!(
                            "seed {}: {} declares {:?} toward {} in {federation:?}, the union rule gives {:?}",
                            self.seed, node.name, declared, link.label, expected
                        ));
                    }
                    if let Some(&(pipe, end)) = node.links.get(&link.id) {
                        let (far_node, far_link) = self.pipes[pipe].ends[1 - end];
                        let received = self.nodes[far_node]
                            .router
                            .received_interest(far_link, federation);
                        if received != declared {
                            return Err(format!(
                                "seed {}: {} declared {:?} toward {} in {federation:?} but it holds {:?}",
                                self.seed, node.name, declared, self.nodes[far_node].name, received
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The nodes other than `source` whose application shares its federation and declared
    /// at least one of `ids`.
    pub fn interested_nodes(&self, source: NodeIndex, ids: &[InterestId]) -> Vec<NodeIndex> {
        let federation = |n: NodeIndex| {
            self.nodes[n]
                .router
                .config()
                .application
                .as_ref()
                .map(|a| a.federation.clone())
        };
        let source_federation = federation(source);
        (0..self.nodes.len())
            .filter(|&n| {
                n != source && federation(n).is_some() && federation(n) == source_federation
            })
            .filter(|&n| {
                let interest = self.nodes[n].router.interest();
                ids.iter().any(|id| interest.contains(*id))
            })
            .collect()
    }

    /// How many times `node`'s application received (source, seq).
    pub fn times_received(&self, node: NodeIndex, source: NodeId, seq: u64) -> usize {
        self.nodes[node]
            .received
            .iter()
            .filter(|r| r.source == source && r.seq == seq)
            .count()
    }

    /// Every node's application received every message at most once.
    pub fn check_no_duplicates(&self) -> Result<(), String> {
        for node in &self.nodes {
            let mut seen = rustc_hash::FxHashSet::default();
            for r in &node.received {
                if !seen.insert((r.source, r.seq)) {
                    return Err(format!(
                        "seed {}: {} received message {} of source {} twice",
                        self.seed, node.name, r.seq, r.source
                    ));
                }
            }
        }
        Ok(())
    }

    pub fn node_id(&self, node: NodeIndex) -> NodeId {
        self.nodes[node].router.config().node_id
    }
}
