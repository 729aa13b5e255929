//! How a router and each of its links are configured.

use crate::wire::{LinkFlags, NodeId, Role, UdpOffer, DEFAULT_MAX_FRAME_SIZE};
use std::time::Duration;

/// `RouterConfig::latest_cache_bytes` unless configured otherwise: half a link's reliable
/// queue, so a late joiner's replay fits in the queue toward it with room to spare.
pub const DEFAULT_LATEST_CACHE_BYTES: usize = 2 << 20;

/// `LinkConfig::frame_deadline` unless configured otherwise. A frame, once begun, is
/// written by its sender back to back (frames never interleave on a stream), so it takes
/// its size over the link's rate: the largest default frame (1 MiB) takes 0.8 s at
/// 10 Mbit/s and 4.2 s at 2 Mbit/s, a slow wide-area link; 10 s leaves more than twice
/// that (and matches the heartbeat timeout, which also passes while a frame is in flight,
/// since the sender cannot interleave heartbeats). Links slower than about 1 Mbit/s that
/// carry megabyte frames need a longer deadline (and a longer heartbeat timeout).
pub const DEFAULT_FRAME_DEADLINE: Duration = Duration::from_secs(10);

/// Per-link settings. Every queue and timer here has a bound.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkConfig {
    /// Bytes of reliable frames queued toward the link before senders are paused
    /// (back-pressure). Best-effort frames have a queue of the same size of their own.
    pub queue_limit_bytes: usize,
    /// Most bytes handed to the transport in one write.
    pub batch_limit_bytes: usize,
    /// Hold frames this long to bundle them (the papers' 5 ms / 20 ms); zero sends at once.
    pub bundling_delay: Duration,
    /// A federate whose reliable queue stays full this long, taking nothing, is disconnected
    /// as a slow consumer. While the queue is full its publishers are paused, so this is
    /// the longest one stalled federate can stall everyone else.
    pub slow_consumer_timeout: Duration,
    /// The same for a router-to-router link. Longer, so that a router whose own consumer
    /// is stalled cuts that consumer (after `slow_consumer_timeout`) before its upstream
    /// cuts the trunk and, with it, every federate behind it.
    pub trunk_slow_consumer_timeout: Duration,
    /// A link that has not finished its hello this long after it opened is closed.
    pub handshake_timeout: Duration,
    /// Send a heartbeat when nothing else was sent for this long.
    pub heartbeat_interval: Duration,
    /// Close the link when no complete frame arrived for this long. Bytes of a frame that
    /// has not completed do not count: a peer dripping a frame it never finishes is silent.
    pub heartbeat_timeout: Duration,
    /// A frame whose first bytes arrived this long ago and that is still incomplete closes
    /// the link (`CloseReason::FrameDeadline`). Without it, a connection that sends one byte
    /// of a frame now and then would hold its link slot for ever. Zero never closes.
    pub frame_deadline: Duration,
    /// A closing link that cannot flush its goodbye within this time is dropped anyway.
    pub close_timeout: Duration,
    /// The same for a consumer cut as slow: it reads nothing now, and the goodbye waits
    /// behind what its socket already holds, so it gets longer to learn why it was cut.
    /// The link carries nothing else meanwhile.
    pub slow_consumer_goodbye_timeout: Duration,
    /// Most interest ids one link may declare in one federation.
    pub max_interest_ids: u64,
    /// A link whose transport fails (an error, end of stream, silence) is suspended this
    /// long, still routed to, for its peer to redial and resume the session: what was in
    /// flight is sent again and nothing is lost or repeated. Zero closes it at once. A full
    /// queue meanwhile pauses publishers, within the slow-consumer bound as for any link.
    pub resume_grace: Duration,
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig {
            queue_limit_bytes: 4 << 20,
            batch_limit_bytes: 64 << 10,
            bundling_delay: Duration::ZERO,
            slow_consumer_timeout: Duration::from_secs(1),
            trunk_slow_consumer_timeout: Duration::from_secs(5),
            handshake_timeout: Duration::from_secs(5),
            heartbeat_interval: Duration::from_secs(1),
            heartbeat_timeout: Duration::from_secs(10),
            frame_deadline: DEFAULT_FRAME_DEADLINE,
            close_timeout: Duration::from_secs(2),
            slow_consumer_goodbye_timeout: Duration::from_secs(30),
            max_interest_ids: 1 << 24,
            resume_grace: Duration::from_secs(2),
        }
    }
}

/// Settings of the whole router (or federate node).
#[derive(Clone, Debug)]
pub struct RouterConfig {
    /// Shown to peers in hello and in logs.
    pub node_name: String,
    /// The source id stamped on data this node publishes.
    pub node_id: NodeId,
    /// Largest frame accepted from any link (clamped to 64 MiB).
    pub max_frame_size: usize,
    /// A federate node's local application, and the federation it belongs to.
    pub application: Option<ApplicationConfig>,
    /// Settings for links that do not bring their own.
    pub link_defaults: LinkConfig,
    /// Most federations served at once; a peer cannot make the router track more.
    pub max_federations: usize,
    /// How often timers (heartbeats, slow consumers, close timeouts) are checked.
    pub housekeeping_interval: Duration,
    /// Largest UDP datagram sent; larger frames are fragmented. 1472 fits an Ethernet MTU.
    pub max_datagram_size: usize,
    /// A fragmented frame still incomplete after this long is dropped.
    pub reassembly_timeout: Duration,
    /// Most fragmented frames being reassembled at once per link.
    pub max_partial_frames: usize,
    /// This router holds the federation registry (exactly one node of a network should).
    pub hosts_registry: bool,
    /// Links that carry every federation (router links) may be opened only by peers whose
    /// certificate says they are routers (`router::claims`). The driver turns it on when
    /// links are mutually authenticated; off, a plain link's hello is taken at its word.
    pub require_router_identity: bool,
    /// Who may create, join and destroy which federation (`crate::policy`); `None`
    /// allows everyone, as before.
    pub policy: Option<std::sync::Arc<crate::policy::Policy>>,
    /// Most bytes of undecoded input (partial frames) held across all links. A link whose
    /// bytes would pass it is closed: without it, a thousand connections that each declare
    /// a 1 MiB frame and send it a byte at a time would hold a gigabyte.
    pub input_budget_bytes: usize,
    /// Most bytes a link may send before its hello is complete (a hello is well under 1 KiB).
    pub handshake_input_limit_bytes: usize,
    /// How often this router tells the registry which federate nodes are linked to it and
    /// alive, renewing their membership lease. Must be well under the registry's lease.
    pub vouch_interval: Duration,
    /// On the router hosting the registry: a federate no router vouched for within this long
    /// is resigned as died (its router died with it, or it is cut off).
    pub federate_lease: Duration,
    /// Most bytes of reliable frames kept for resending (sent, not yet acked) across all
    /// links; past it the oldest are let go, and a resume after that loses them (reported
    /// to the receivers by their streams).
    pub resend_budget_bytes: usize,
    /// On the router hosting the registry: what one node may create and join there, so no
    /// single identity exhausts it (`registry::RegistryLimits`).
    pub registry_limits: crate::registry::RegistryLimits,
    /// Most bytes of keep-latest frames this router keeps for subscribers that come later
    /// (`router::latest`), across federations, each entry counted with its overhead. Past
    /// it the least recently updated instances are let go (`LatestStats::evicted`). Zero
    /// keeps nothing (queued frames are still replaced).
    pub latest_cache_bytes: usize,
}

impl RouterConfig {
    /// A bare router named `node_name` (no local application) with the default limits.
    pub fn new(node_name: impl Into<String>, node_id: NodeId) -> RouterConfig {
        RouterConfig {
            node_name: node_name.into(),
            node_id,
            max_frame_size: DEFAULT_MAX_FRAME_SIZE,
            application: None,
            link_defaults: LinkConfig::default(),
            max_federations: 4096,
            housekeeping_interval: Duration::from_millis(100),
            max_datagram_size: super::DEFAULT_MAX_DATAGRAM,
            reassembly_timeout: Duration::from_secs(1),
            max_partial_frames: 64,
            hosts_registry: false,
            require_router_identity: false,
            policy: None,
            input_budget_bytes: 64 << 20,
            handshake_input_limit_bytes: 16 << 10,
            vouch_interval: crate::registry::DEFAULT_VOUCH_INTERVAL,
            federate_lease: crate::registry::DEFAULT_LEASE,
            resend_budget_bytes: 64 << 20,
            registry_limits: Default::default(),
            latest_cache_bytes: DEFAULT_LATEST_CACHE_BYTES,
        }
    }

    /// A federate node: a router with a local application in `federation`.
    pub fn federate(
        node_name: impl Into<String>,
        node_id: NodeId,
        federation: impl Into<String>,
    ) -> RouterConfig {
        let mut config = RouterConfig::new(node_name, node_id);
        config.application = Some(ApplicationConfig {
            federation: federation.into(),
            flags: LinkFlags::source_sink(),
        });
        config
    }
}

/// The local application of a federate node.
#[derive(Clone, Debug)]
pub struct ApplicationConfig {
    /// The federation execution the application joins.
    pub federation: String,
    /// What the application link does: source, sink or both.
    pub flags: LinkFlags,
}

/// What the caller knows about a new link when it hands it to the router.
#[derive(Clone, Debug)]
pub struct LinkSpec {
    /// Who dialed, and if we did, what the far side is to us.
    pub origin: LinkOrigin,
    /// Our flags, announced to the far side in our hello.
    pub flags: LinkFlags,
    /// Overrides the router's link defaults.
    pub config: Option<LinkConfig>,
    /// Where we receive best-effort datagrams for this link, if we do.
    pub udp: Option<UdpOffer>,
    /// For logs: usually the far side's address.
    pub label: String,
    /// Who the far side proved to be, when the transport authenticated it.
    pub identity: Option<PeerIdentity>,
}

/// Who the far side of a link proved to be: the subject of the certificate it presented in
/// a mutual-TLS handshake, checked against the trusted CAs by the driver. Never taken from
/// bytes the peer writes (its hello is a claim, not a proof).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerIdentity {
    /// The certificate's common name.
    pub name: String,
    /// Router or federate, from the certificate.
    pub role: IdentityRole,
}

/// What a certificate says its holder is (its organizational unit, `trellis-router` or
/// `trellis-federate`, as `trellis certs` writes them).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum IdentityRole {
    /// Certificate for a router process (`trellis-router`).
    Router,
    /// Certificate for a federate process (`trellis-federate`).
    Federate,
}

/// Which end opened the connection.
#[derive(Clone, Debug)]
pub enum LinkOrigin {
    /// We dialed. We know what the far side is to us and say so in our hello.
    Dialed {
        /// The far side's role toward us: `Parent` when we dial our parent.
        far_role: Role,
        /// The federation served; empty for a router-to-router link carrying all of them.
        federation: String,
        /// For peer links, the clique (mesh) both ends belong to.
        clique: String,
    },
    /// The far side dialed us; its hello says what it is.
    Accepted,
}

impl LinkSpec {
    /// A link the far side dialed, labelled `label` for logs; its hello will say what it is.
    pub fn accepted(label: impl Into<String>) -> LinkSpec {
        LinkSpec {
            origin: LinkOrigin::Accepted,
            flags: LinkFlags::source_sink(),
            config: None,
            udp: None,
            label: label.into(),
            identity: None,
        }
    }

    /// A link we dialed to a node that is `far_role` to us, for `federation` (empty for all) and
    /// `clique` (empty for none).
    pub fn dialed(
        far_role: Role,
        federation: impl Into<String>,
        clique: impl Into<String>,
        label: impl Into<String>,
    ) -> LinkSpec {
        LinkSpec {
            origin: LinkOrigin::Dialed {
                far_role,
                federation: federation.into(),
                clique: clique.into(),
            },
            flags: LinkFlags::source_sink(),
            config: None,
            udp: None,
            label: label.into(),
            identity: None,
        }
    }

    /// Announces `flags` instead of source and sink.
    pub fn with_flags(mut self, flags: LinkFlags) -> LinkSpec {
        self.flags = flags;
        self
    }

    /// Uses `config` for this link instead of the router's link defaults.
    pub fn with_config(mut self, config: LinkConfig) -> LinkSpec {
        self.config = Some(config);
        self
    }

    /// Offers best-effort datagrams at `udp`.
    pub fn with_udp(mut self, udp: UdpOffer) -> LinkSpec {
        self.udp = Some(udp);
        self
    }

    /// Records who the transport proved the far side to be.
    pub fn with_identity(mut self, identity: PeerIdentity) -> LinkSpec {
        self.identity = Some(identity);
        self
    }
}
