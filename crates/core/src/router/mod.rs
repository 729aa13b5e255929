//! The router state machine: one per process, router or federate alike.
//!
//! A federate is a router with one extra link, its local application. Links belong to blocks
//! (DESIGN.md §2): a peer link to the block of its clique, every other link to a block of its
//! own. A data frame that arrives over a link of block B goes to every link outside B whose
//! declared interest matches one of the frame's ids, at most once per link (split horizon per
//! block). What the router declares toward a block is the union of the interest of every link
//! outside it.
//!
//! Sans-IO in the style of quinn-proto: the driver feeds bytes with `handle_bytes`, drains
//! them with `poll_transmit`, drives timers with `handle_timeout` / `poll_timeout`, and reads
//! what happened from `poll_event`. The `handle_*` calls and `publish` do the work; the polls
//! drain what it produced. Retrying a link that back-pressure paused is work too: it waits
//! for the driver's next `handle_timeout`, which `poll_timeout` asks for at once.

mod app;
mod claims;
mod config;
mod event;
mod forward;
mod housekeeping;
mod inbuf;
mod index;
mod input;
mod latest;
mod lifecycle;
mod link;
mod manage;
mod propagate;
mod queue;
mod replay;
mod rights;
mod route_wait;
mod session;
mod stats;
mod streams;
mod udp;

pub use config::{
    ApplicationConfig, IdentityRole, LinkConfig, LinkOrigin, LinkSpec, PeerIdentity, RouterConfig,
    DEFAULT_FRAME_DEADLINE, DEFAULT_LATEST_CACHE_BYTES,
};
pub use event::{CloseReason, Event, PeerInfo};
pub use latest::{ENTRY_OVERHEAD_BYTES, MAX_MASKS, MAX_TRACKED_DELIVERIES};
pub use stats::{Drops, LatestStats, LinkStats, RouterStats};
pub use streams::MAX_FOLLOWED_STREAMS;
pub use udp::{DATAGRAM_HEADER_LEN, DEFAULT_MAX_DATAGRAM};

use crate::time::Time;
use crate::wire::{
    clamp_max_frame_size, FederationId, Hello, LinkFlags, Role, UdpOffer, WireError,
    MAX_IDS_PER_FRAME,
};
use bytes::{Bytes, BytesMut};
pub use index::{IndexStats, InterestIndex, Slot};
use link::{Binding, BlockId, Expectation, FedIndex, Link, LinkState};
use queue::OutQueue;
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use thiserror::Error;

/// Names one link for as long as it lives; a closed link's id is never reused.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LinkId {
    slot: Slot,
    generation: u32,
}

impl std::fmt::Display for LinkId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "link {}.{}", self.slot, self.generation)
    }
}

/// Why the application could not publish.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PublishError {
    /// The router was built without an `ApplicationConfig`.
    #[error("this node has no local application")]
    NoApplication,
    /// The message names no interest id.
    #[error("a message needs at least one interest id")]
    NoIds,
    /// More ids than one frame may carry; holds the count given.
    #[error("{0} interest ids on one message; the limit is {MAX_IDS_PER_FRAME}")]
    TooManyIds(usize),
    /// Priority outside 0–7; holds the value given.
    #[error("priority {0} is out of range (0-7)")]
    BadPriority(u8),
    /// The payload does not fit one frame.
    #[error("message of {size} bytes exceeds the frame limit of {max} bytes")]
    TooLarge {
        /// Bytes the message would take.
        size: usize,
        /// The router's frame limit in bytes.
        max: usize,
    },
    /// Back-pressure: the application's frames cannot be queued now; retry after
    /// `Event::ReadResumed`.
    #[error("the outgoing queues are full; wait for ReadResumed on the application link")]
    WouldBlock,
    /// Bytes the application handed in do not decode as a frame.
    #[error("malformed frame from the application: {0}")]
    Malformed(WireError),
}

/// A link as the driver and operators see it.
#[derive(Clone, Debug)]
pub struct LinkInfo {
    /// The link's id, valid until `Event::LinkClosed`.
    pub id: LinkId,
    /// For logs: usually the far side's address.
    pub label: String,
    /// What the far side is to us; for an accepted link still in handshake, `None`.
    pub role: Option<Role>,
    /// The handshake finished and the link carries interest and data.
    pub up: bool,
    /// Cut or closing: its goodbye is being flushed and nothing more is routed over it.
    pub closing: bool,
    /// What the far side's hello said; `None` before the handshake.
    pub peer: Option<PeerInfo>,
    /// The block (DESIGN.md §2) the link belongs to once up: links of one clique share it.
    pub block: Option<u32>,
    /// Bytes queued toward the link, by class.
    pub reliable_queued: usize,
    /// Bytes of best-effort frames queued toward the link.
    pub best_effort_queued: usize,
    /// Frames queued toward the link, by class.
    pub reliable_frames: usize,
    /// Best-effort frames queued toward the link.
    pub best_effort_frames: usize,
    /// The link's own counters.
    pub stats: LinkStats,
    /// The far side announced itself persistent (`LinkFlags::PERSISTENT`): its link session
    /// survives a broken connection.
    pub persistent: bool,
    /// When the link was handed to the router (its handshake began), on the driver's clock.
    pub opened: Time,
    /// Who the far side proved to be, if the transport authenticated it.
    pub identity: Option<PeerIdentity>,
    /// Interest ids the far side declared to us, summed over the federations the link
    /// carries; and ids we declared toward it (toward its block). Counted from the sets'
    /// sizes, which roaring keeps per container, so cheap enough per stats request.
    pub interest_in: u64,
    /// Interest ids we declared toward the link's block.
    pub interest_out: u64,
}

struct Federation {
    id: FederationId,
    /// Known once a link bound to it said its name; trunks only carry the id.
    name: Option<String>,
    index: InterestIndex,
    /// What we have declared toward each block; a block missing here was declared nothing.
    declared: FxHashMap<BlockId, RoaringBitmap>,
}

struct Block {
    members: Vec<Slot>,
    /// Set for clique blocks, which peers join by name.
    clique: Option<String>,
}

/// The sans-IO router of one process: links, interest, forwarding and the local application (see
/// the module doc for the driver's contract).
pub struct Router {
    config: RouterConfig,
    max_frame_size: usize,
    links: Vec<Option<Link>>,
    generations: Vec<u32>,
    free_slots: Vec<Slot>,
    blocks: Vec<Option<Block>>,
    free_blocks: Vec<BlockId>,
    cliques: FxHashMap<String, BlockId>,
    feds: Vec<Option<Federation>>,
    fed_by_id: FxHashMap<FederationId, FedIndex>,
    free_feds: Vec<FedIndex>,
    app: Option<Slot>,
    events: VecDeque<Event>,
    /// Links with queued output the driver has not been told about yet.
    ready: VecDeque<Slot>,
    /// Links whose stalled frame should be retried: something they waited on drained.
    resumable: Vec<LinkId>,
    /// Links holding output back for their bundling delay.
    bundling: Vec<Slot>,
    /// Links whose reliable queue is marked full (`Link::full_since`): each has a
    /// slow-consumer deadline among the router's timers. May hold slots whose mark has
    /// since cleared; `cut_slow_consumers` prunes them.
    filling: Vec<Slot>,
    /// Scratch list of forwarding targets, reused so forwarding does not allocate.
    targets: Vec<Slot>,
    stamp: u64,
    /// Arena for frames the router encodes itself.
    encode_buf: BytesMut,
    next_seq: u64,
    /// Numbers the application's reliable frames per interest id.
    outgoing_streams: streams::Outgoing,
    /// Checks the application's reliable deliveries per source and id.
    incoming_streams: streams::Incoming,
    next_housekeeping: Time,
    /// When to vouch next for the federate nodes linked here (registry leases).
    next_vouch: Time,
    stats: RouterStats,
    udp_sessions: FxHashMap<u64, Slot>,
    reassembly: udp::Reassembly,
    /// The federation registry, on the one router that hosts it.
    registry: Option<crate::registry::Registry>,
    registry_distance: u8,
    registry_via: Option<Slot>,
    /// Requests forwarded toward the registry, by (origin, request), awaiting their reply.
    pending_manage: FxHashMap<(crate::wire::NodeId, u64), manage::Pending>,
    /// Requests that came before the route to the registry was known (`route_wait`).
    awaiting_route: VecDeque<route_wait::AwaitingRoute>,
    /// Answers for the local application: (request, body).
    manage_replies: VecDeque<(u64, Bytes)>,
    next_request: u64,
    /// Bytes received on all links and not yet decoded (partial frames, paused input),
    /// held within `RouterConfig::input_budget_bytes`.
    input_buffered: usize,
    /// Reusable input buffers, so reading does not allocate while frames are queued.
    input_buffers: inbuf::InputBuffers,
    /// Number of the next link session this router opens.
    next_session: u64,
    /// Bytes kept for resending across all links, within `RouterConfig::resend_budget_bytes`.
    resend_bytes: usize,
    /// The newest keep-latest frame per source, key and mask, for late subscribers.
    latest: latest::LatestCache,
    /// The newest keep-latest frames delivered to the local application.
    latest_delivered: latest::Delivered,
}

const ENCODE_CHUNK: usize = 64 << 10;

impl Router {
    /// A router with no links but the local application, if `config` has one; `now` is the driver's
    /// clock.
    pub fn new(config: RouterConfig, now: Time) -> Router {
        let mut router = Router::without_links(config, now);
        if let Some(app) = router.config.application.clone() {
            router.attach_application(now, app);
        }
        router
    }

    fn without_links(config: RouterConfig, now: Time) -> Router {
        let max_frame_size = clamp_max_frame_size(config.max_frame_size);
        let registry = config.hosts_registry.then(|| {
            let mut registry = crate::registry::Registry::with_lease(config.federate_lease);
            registry.set_limits(config.registry_limits);
            registry
        });
        let registry_distance = if registry.is_some() {
            0
        } else {
            crate::wire::RegistryRoute::UNREACHABLE
        };
        Router {
            max_frame_size,
            links: Vec::new(),
            generations: Vec::new(),
            free_slots: Vec::new(),
            blocks: Vec::new(),
            free_blocks: Vec::new(),
            cliques: FxHashMap::default(),
            feds: Vec::new(),
            fed_by_id: FxHashMap::default(),
            free_feds: Vec::new(),
            app: None,
            events: VecDeque::new(),
            ready: VecDeque::new(),
            resumable: Vec::new(),
            bundling: Vec::new(),
            filling: Vec::new(),
            targets: Vec::new(),
            stamp: 0,
            encode_buf: BytesMut::new(),
            next_seq: 1,
            outgoing_streams: streams::Outgoing::default(),
            incoming_streams: streams::Incoming::default(),
            next_housekeeping: now + config.housekeeping_interval,
            next_vouch: now,
            stats: RouterStats::default(),
            udp_sessions: FxHashMap::default(),
            reassembly: udp::Reassembly::default(),
            registry,
            registry_distance,
            registry_via: None,
            pending_manage: FxHashMap::default(),
            awaiting_route: VecDeque::new(),
            manage_replies: VecDeque::new(),
            next_request: 1,
            input_buffered: 0,
            input_buffers: inbuf::InputBuffers::default(),
            next_session: 1,
            resend_bytes: 0,
            latest: latest::LatestCache::new(config.latest_cache_bytes),
            latest_delivered: latest::Delivered::default(),
            config,
        }
    }

    /// A federate node's local application: a link that is up from the start, bound to
    /// its federation, in a block of its own.
    fn attach_application(&mut self, now: Time, app: ApplicationConfig) {
        let fed = self
            .federation_by_name(&app.federation)
            .expect("an empty router has room for its own federation");
        let slot = self.insert_link(
            now,
            Role::Application,
            "application".into(),
            None,
            app.flags,
            None,
        );
        let link = self.link_mut(slot);
        link.state = LinkState::Up;
        link.binding = Binding::Federation(fed);
        link.far_flags = app.flags;
        let block = self.new_block(None);
        self.join_block(slot, block);
        self.app = Some(slot);
    }

    /// The configuration it was built with.
    pub fn config(&self) -> &RouterConfig {
        &self.config
    }

    /// The largest frame it sends or accepts, in bytes: `RouterConfig::max_frame_size` clamped to
    /// what the wire allows.
    pub fn max_frame_size(&self) -> usize {
        self.max_frame_size
    }

    /// Counters of the whole router, closed links included.
    pub fn stats(&self) -> &RouterStats {
        &self.stats
    }

    /// The interest indexes of every federation, summed: what they hold and the lookups
    /// forwarding made. A pass over each index's sets; call it per report, not per frame.
    pub fn interest_stats(&self) -> IndexStats {
        let mut total = IndexStats::default();
        for fed in self.feds.iter().flatten() {
            total.add(&fed.index.stats());
        }
        total
    }

    /// Bytes received on all links and not yet decoded.
    pub fn input_buffered(&self) -> usize {
        self.input_buffered
    }

    /// The local application's link, for a federate node.
    pub fn application_link(&self) -> Option<LinkId> {
        self.app.map(|slot| self.link(slot).id)
    }

    /// Hand a new transport connection to the router. A dialed link sends its hello at once.
    pub fn add_link(&mut self, now: Time, spec: LinkSpec) -> LinkId {
        let config = spec
            .config
            .clone()
            .unwrap_or_else(|| self.config.link_defaults.clone());
        let (role, expect) = match &spec.origin {
            LinkOrigin::Dialed {
                far_role,
                federation,
                clique,
            } => (
                *far_role,
                Some(Expectation {
                    far_role: *far_role,
                    federation: federation.clone(),
                    clique: clique.clone(),
                }),
            ),
            // Provisional until the hello says what the far side is.
            LinkOrigin::Accepted => (Role::Child, None),
        };
        let slot = self.insert_link(now, role, spec.label, Some(config), spec.flags, spec.udp);
        self.link_mut(slot).identity = spec.identity;
        self.stats.links_opened += 1;
        if let Some(expect) = expect {
            let hello = Hello {
                node_id: self.config.node_id,
                node_name: self.config.node_name.clone(),
                role: expect.far_role.inverse(),
                flags: spec.flags,
                federation: expect.federation.clone(),
                clique: expect.clique.clone(),
                udp: spec.udp,
            };
            self.send_control(now, slot, |out| hello.encode(out));
            self.link_mut(slot).state = LinkState::Handshake {
                expect: Some(expect),
            };
        }
        self.link(slot).id
    }

    fn insert_link(
        &mut self,
        now: Time,
        role: Role,
        label: String,
        config: Option<LinkConfig>,
        our_flags: LinkFlags,
        udp_local: Option<UdpOffer>,
    ) -> Slot {
        let slot = match self.free_slots.pop() {
            Some(slot) => slot,
            None => {
                self.links.push(None);
                self.generations.push(0);
                (self.links.len() - 1) as Slot
            }
        };
        let id = LinkId {
            slot,
            generation: self.generations[slot as usize],
        };
        if let Some(offer) = udp_local {
            self.udp_sessions.insert(offer.token, slot);
        }
        // Its handshake has a deadline.
        self.housekeep_soon(now);
        self.links[slot as usize] = Some(Link {
            id,
            label,
            state: LinkState::Handshake { expect: None },
            role,
            far_flags: LinkFlags::NONE,
            our_flags,
            peer: None,
            binding: Binding::Unbound,
            block: None,
            config: config.unwrap_or_else(|| self.config.link_defaults.clone()),
            udp_local,
            udp_peer: None,
            fragmenting: None,
            next_fragmented: 0,
            datagrams_sent: 0,
            datagrams_seen: Default::default(),
            registry_distance: crate::wire::RegistryRoute::UNREACHABLE,
            registry_heard: false,
            registry_announced: None,
            inbuf: Default::default(),
            input_counted: 0,
            stalled: None,
            waiters: Vec::new(),
            out: OutQueue::default(),
            interest: Vec::new(),
            rights: Vec::new(),
            opened: now,
            identity: None,
            last_sent: now,
            last_received: now,
            partial_frame: None,
            full_since: None,
            bytes_out_at_full: 0,
            ready: false,
            stamp: 0,
            stats: LinkStats::default(),
            session: 0,
            peer_session: None,
            received_reliable: 0,
            acked: 0,
            resend: Default::default(),
        });
        slot
    }

    fn link(&self, slot: Slot) -> &Link {
        self.links[slot as usize]
            .as_ref()
            .expect("slot holds a live link")
    }

    fn link_mut(&mut self, slot: Slot) -> &mut Link {
        self.links[slot as usize]
            .as_mut()
            .expect("slot holds a live link")
    }

    /// The slot of a live link, or `None` for an id that has closed.
    fn live(&self, id: LinkId) -> Option<Slot> {
        match self.links.get(id.slot as usize) {
            Some(Some(link)) if link.id == id => Some(id.slot),
            _ => None,
        }
    }

    /// Whether `id` names a link that is still open (closing included).
    /// Whether `id` is a link with a transport (not closed, not suspended awaiting resume:
    /// the driver was told `LinkClosed` for both).
    pub fn has_link(&self, id: LinkId) -> bool {
        self.live(id)
            .is_some_and(|slot| !self.link(slot).is_suspended())
    }

    /// Every live link, the application's included.
    pub fn link_ids(&self) -> Vec<LinkId> {
        self.links.iter().flatten().map(|l| l.id).collect()
    }

    /// A snapshot of the link for the driver and operators; `None` once it closed.
    pub fn link_info(&self, id: LinkId) -> Option<LinkInfo> {
        let link = self.link(self.live(id)?);
        let known_role = !matches!(link.state, LinkState::Handshake { expect: None });
        Some(LinkInfo {
            id,
            label: link.label.clone(),
            role: known_role.then_some(link.role),
            up: link.is_up(),
            closing: link.is_closing(),
            peer: link.peer.clone(),
            block: link.block,
            reliable_queued: link.out.reliable_bytes(),
            best_effort_queued: link.out.best_effort_bytes(),
            reliable_frames: link.out.reliable_frames(),
            best_effort_frames: link.out.best_effort_frames(),
            stats: link.stats,
            persistent: link.far_flags.contains(LinkFlags::PERSISTENT),
            opened: link.opened,
            identity: link.identity.clone(),
            interest_in: link.interest.iter().map(|(_, ids)| ids.len()).sum(),
            interest_out: self.declared_count(link),
        })
    }

    /// How many interest ids we declared toward `link`: what its block was declared, in
    /// each federation the link carries.
    fn declared_count(&self, link: &Link) -> u64 {
        let Some(block) = link.block else {
            return 0;
        };
        self.feds
            .iter()
            .enumerate()
            .filter_map(|(index, fed)| Some((index, fed.as_ref()?)))
            .filter(|(index, _)| link.carries(*index as FedIndex))
            .filter_map(|(_, fed)| fed.declared.get(&block))
            .map(RoaringBitmap::len)
            .sum()
    }

    /// Change a link's settings (e.g. once its hello says which topology link it is).
    /// Queued frames stay; new bounds apply from the next frame on.
    pub fn set_link_config(&mut self, id: LinkId, config: LinkConfig) {
        if let Some(slot) = self.live(id) {
            self.link_mut(slot).config = config;
            // Its heartbeat and timeout may come sooner than the pass a router at rest
            // planned: housekeep at the next timeout.
            self.next_housekeeping = Time::ZERO;
        }
    }

    fn fed_index(&self, federation: &str) -> Option<FedIndex> {
        self.fed_by_id.get(&FederationId::of(federation)).copied()
    }

    /// Interest the far side of `link` declared to us in `federation`.
    pub fn received_interest(&self, id: LinkId, federation: &str) -> RoaringBitmap {
        let (Some(slot), Some(fed)) = (self.live(id), self.fed_index(federation)) else {
            return RoaringBitmap::new();
        };
        self.link(slot).interest(fed).cloned().unwrap_or_default()
    }

    /// Interest we declared toward `link` in `federation`.
    pub fn declared_interest(&self, id: LinkId, federation: &str) -> RoaringBitmap {
        let (Some(slot), Some(fed)) = (self.live(id), self.fed_index(federation)) else {
            return RoaringBitmap::new();
        };
        let link = self.link(slot);
        let (Some(block), Some(fed_state)) = (link.block, self.feds[fed as usize].as_ref()) else {
            return RoaringBitmap::new();
        };
        if !link.carries(fed) {
            return RoaringBitmap::new();
        }
        fed_state.declared.get(&block).cloned().unwrap_or_default()
    }

    /// Encode a control frame into the arena and queue it on `slot` in the control lane,
    /// which leaves before queued data and is not held by the reliable bound: control
    /// traffic is small and must not wait behind data. The hard bound in
    /// `enforce_hard_limit` still caps it.
    fn send_control(&mut self, now: Time, slot: Slot, encode: impl FnOnce(&mut BytesMut)) {
        let frame = self.encode(encode);
        self.queue_control(now, slot, frame);
    }

    fn encode(&mut self, encode: impl FnOnce(&mut BytesMut)) -> Bytes {
        if self.encode_buf.capacity() - self.encode_buf.len() < 1024 {
            self.encode_buf.reserve(ENCODE_CHUNK);
        }
        encode(&mut self.encode_buf);
        self.encode_buf.split().freeze()
    }

    fn queue_control(&mut self, now: Time, slot: Slot, frame: Bytes) {
        let link = self.link_mut(slot);
        if link.is_app() {
            return;
        }
        link.out.push_control(now, frame);
        self.mark_ready(slot);
        self.enforce_hard_limit(now, slot);
    }

    fn mark_ready(&mut self, slot: Slot) {
        let link = self.link_mut(slot);
        // A suspended link has no transport: its output waits for the resume.
        if !link.ready && !link.is_app() && !link.is_suspended() {
            link.ready = true;
            self.ready.push_back(slot);
        }
    }

    /// The next link with output for its transport. Call `poll_transmit` on it.
    ///
    /// Call after every call that may queue output: the `handle_*` calls, `publish`,
    /// `manage` and `set_interest`.
    #[must_use]
    pub fn poll_ready(&mut self) -> Option<LinkId> {
        while let Some(slot) = self.ready.pop_front() {
            if let Some(link) = self.links[slot as usize].as_mut() {
                link.ready = false;
                return Some(link.id);
            }
        }
        None
    }

    /// Whether the driver should read more bytes from this link's transport. A closing
    /// link is read and its input thrown away: closing a socket with unread input resets
    /// the connection, and the reset would destroy the goodbye still on its way.
    pub fn wants_read(&self, id: LinkId) -> bool {
        self.live(id)
            .map(|slot| self.link(slot).stalled.is_none())
            .unwrap_or(false)
    }

    /// Whether `link` has queued output (for its stream; best-effort datagrams aside).
    pub fn has_output(&self, id: LinkId) -> bool {
        self.live(id)
            .map(|slot| {
                let link = self.link(slot);
                link.out.has_stream_output()
                    || (link.udp_peer.is_none() && link.out.has_best_effort())
            })
            .unwrap_or(false)
    }

    /// What happened since the last call. Only drains: the work that produces events is
    /// done by the `handle_*` calls, `publish` and the polls that free room.
    ///
    /// Call after every call that takes input or frees queue room: the `handle_*` calls,
    /// `publish`, `close_link`, `poll_transmit` and `poll_delivery`.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<Event> {
        self.events.pop_front()
    }

    fn fed(&self, fed: FedIndex) -> &Federation {
        self.feds[fed as usize]
            .as_ref()
            .expect("federation index is live")
    }
}

/// An interest change, before it is split into what was added and what was removed.
pub(crate) enum InterestOpRequest<'a> {
    Add(&'a RoaringBitmap),
    Remove(&'a RoaringBitmap),
    Replace(&'a RoaringBitmap),
}

impl InterestOpRequest<'_> {
    /// (added, removed) relative to `current`.
    pub(crate) fn delta(&self, current: &RoaringBitmap) -> (RoaringBitmap, RoaringBitmap) {
        match self {
            InterestOpRequest::Add(ids) => (*ids - current, RoaringBitmap::new()),
            InterestOpRequest::Remove(ids) => (RoaringBitmap::new(), *ids & current),
            InterestOpRequest::Replace(ids) => (*ids - current, current - *ids),
        }
    }

    pub(crate) fn apply(&self, mut current: RoaringBitmap) -> RoaringBitmap {
        match self {
            InterestOpRequest::Add(ids) => {
                current |= *ids;
                current
            }
            InterestOpRequest::Remove(ids) => {
                current -= *ids;
                current
            }
            InterestOpRequest::Replace(ids) => (*ids).clone(),
        }
    }
}

#[cfg(test)]
mod tests;
