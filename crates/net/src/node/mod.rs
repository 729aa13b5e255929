//! The node API: what a program uses to join the network as a federate-like node.
//!
//! A node is a router core with a local application. It comes in two drivings:
//! - [`Node`]: an event-loop thread runs the core; calling threads talk to it through bounded
//!   channels, so `publish` blocks (or awaits) when the network pushes back and messages
//!   arrive through `recv_timeout` or `recv_async`. Batches form on their own while the
//!   application keeps publishing: the choice for throughput and for async code.
//! - [`DirectNode`]: no thread of its own; the core and its sockets run on the caller's
//!   thread whenever it calls in (HLA's tick model). A message crosses no thread on its way
//!   in or out: the choice for latency.
//!
//! Both talk to their host through an `AppClient` (`client.rs`); a send that waits for room
//! keeps what arrives meanwhile (`keeping.rs`).

mod client;
mod direct;
mod keeping;
mod tail;
mod threaded;
mod wait_breaker;

pub use direct::DirectNode;
pub use tail::TAIL_BOUND;
pub use threaded::Node;
pub use wait_breaker::WaitBreaker;

use client::{connect_error, default_priority, AppClient, Took};

use crate::endpoint::Endpoint;
use crate::event_loop::Notice;
use bytes::Bytes;
use std::collections::VecDeque;
use std::time::Duration;
use trellis_core::router::{CloseReason, LinkConfig};
use trellis_core::wire::{DataFrame, NodeId, TransportClass};
use trellis_core::InterestId;

/// How a node joins the network.
#[derive(Clone, Debug)]
pub enum Attachment {
    /// As the child of a router.
    Router(Endpoint),
    /// As a member of a clique of nodes linked directly. Every member lists the others;
    /// of each pair, the one whose listen address sorts first dials.
    Peers {
        /// Where this node listens for the clique's other members.
        listen: Endpoint,
        /// The other members' listen endpoints.
        peers: Vec<Endpoint>,
        /// The clique's name; members of different cliques do not link.
        clique: String,
    },
    /// As a topology places it (see `NodeConfig::from_plan`).
    Plan {
        /// The node's place in the topology, with its links and their settings.
        plan: Box<trellis_core::topology::NodePlan>,
    },
}

/// How a node connects to the network: its name, federation, attachment, and the bounds on
/// what it buffers in each direction.
#[derive(Clone, Debug)]
pub struct NodeConfig {
    /// The node's name in its hello, logs and metrics.
    pub name: String,
    /// The federation the node's traffic belongs to.
    pub federation: String,
    /// Where in the network the node attaches.
    pub attach: Attachment,
    /// Carry best-effort frames over UDP (the router must listen on udp:// too).
    pub udp: bool,
    /// Settings of the node's link (heartbeats, buffers, bundling, slow-consumer bounds).
    pub link: LinkConfig,
    /// Largest frame the node sends or accepts, in bytes.
    pub max_frame_size: usize,
    /// Messages the node buffers for the application before it pushes back on the network.
    /// The application takes them a batch at a time and the batch it is reading no longer
    /// counts, so it may hold up to as many again; a publish that waits for room in the
    /// command queue keeps what arrives meanwhile, up to as many again once more (so the
    /// node goes on reading while its application is blocked on the network).
    pub delivery_capacity: usize,
    /// Bytes of messages the node buffers for the application (at least one message is
    /// always let through; the batch being read is outside the count, as above). Beyond it
    /// reliable traffic pushes back and best-effort traffic is shed in the router, least
    /// urgent first, rather than waiting here to go stale.
    pub delivery_limit_bytes: usize,
    /// Publishes buffered toward the event loop before `publish` blocks.
    pub command_capacity: usize,
    /// How long `connect` waits for the first link.
    pub connect_timeout: Duration,
    /// Poll without sleeping for up to this long when idle, yielding the CPU in between,
    /// while the node's recent waits were shorter than this: at high rates it saves the
    /// wake-up of a sleeping thread, which on virtual machines can dominate the cost, and
    /// sparse traffic sleeps at once; while a prompt answer is due it polls up to 200 µs
    /// (see `docs/cost-per-message.md`). Zero always sleeps at once. Default
    /// [`crate::DEFAULT_SPIN`].
    pub spin: Duration,
    /// For a node driven on the caller's thread ([`DirectNode`]), bundles of publishes: a
    /// publish that follows the last written bundle by less than this is held, and goes out
    /// with the next bundle: when the bundle reaches [`BUNDLE_BYTES`], when a publish comes
    /// this long after the last write, at the program's next call that reads, waits or
    /// manages (an HLA federate's tick), and at the latest [`TAIL_BOUND`] after it was held,
    /// from a thread of the node's own. So a lone update is written at once and a burst
    /// costs a write per bundle, not per frame: a write on a socket costs microseconds,
    /// routing a 100-byte frame a tenth of that. Zero writes every publish at once, with
    /// no thread.
    pub bundle_hold: Duration,
    /// Certificates for `tls://` links: the trusted CAs, and this node's certificate when
    /// it has one (a router that asks for client certificates then learns who it is).
    pub tls: Option<crate::tls::TlsConfig>,
}

/// A [`DirectNode`] writes a held bundle of publishes once it holds this many bytes.
pub const BUNDLE_BYTES: usize = 64 << 10;

/// [`NodeConfig::bundle_hold`] unless set: about a hundred 100-byte updates' worth of
/// routing, so that bursts bundle and a lone update is not held.
pub const DEFAULT_BUNDLE_HOLD: Duration = Duration::from_micros(50);

impl NodeConfig {
    /// Settings with the defaults for `name` in `federation`, attached by `attach`.
    pub fn new(
        name: impl Into<String>,
        federation: impl Into<String>,
        attach: Attachment,
    ) -> NodeConfig {
        NodeConfig {
            name: name.into(),
            federation: federation.into(),
            attach,
            udp: false,
            link: LinkConfig::default(),
            max_frame_size: trellis_core::wire::DEFAULT_MAX_FRAME_SIZE,
            delivery_capacity: 16 << 10,
            delivery_limit_bytes: 1 << 20,
            command_capacity: 16 << 10,
            connect_timeout: Duration::from_secs(10),
            spin: crate::DEFAULT_SPIN,
            bundle_hold: DEFAULT_BUNDLE_HOLD,
            tls: None,
        }
    }

    /// A node that joins as the child of the router at `endpoint`.
    pub fn child_of(
        name: impl Into<String>,
        federation: impl Into<String>,
        endpoint: Endpoint,
    ) -> NodeConfig {
        NodeConfig::new(name, federation, Attachment::Router(endpoint))
    }
}

/// Frames handed to a node's one reader (the federate ambassador) in a batch, which it
/// takes one by one without the node's lock: a lock per frame was ~7 % of a receiving
/// federate's thread. Taken before anything the node still holds, so the order is kept.
#[derive(Default)]
pub(crate) struct Arrived(VecDeque<DataFrame>);

impl Arrived {
    /// The oldest frame kept.
    pub(crate) fn pop(&mut self) -> Option<Message> {
        self.0.pop_front().map(Message)
    }
}

/// A message as the application receives it: the data frame, shared with the receive
/// buffer (no copy).
#[derive(Clone, Debug)]
pub struct Message(DataFrame);

impl Message {
    /// The node that published the message.
    pub fn source(&self) -> NodeId {
        self.0.source()
    }

    /// The message's sequence number in its sender's stream (per transport class).
    pub fn seq(&self) -> u64 {
        self.0.seq()
    }

    /// Reliable, best-effort or keep-latest, as the sender published it.
    pub fn class(&self) -> TransportClass {
        self.0.class()
    }

    /// The sender's priority: under load the router sheds lower priorities first.
    pub fn priority(&self) -> u8 {
        self.0.priority()
    }

    /// The frame as received (its header included: a keep-latest frame's key).
    pub fn frame(&self) -> &DataFrame {
        &self.0
    }

    /// The data frame the message arrived in, given up without a copy.
    pub fn into_frame(self) -> DataFrame {
        self.0
    }

    /// The interest ids the message was published to.
    pub fn ids(&self) -> impl Iterator<Item = InterestId> + '_ {
        self.0.ids()
    }

    /// The application's bytes, borrowed from the received frame.
    pub fn payload(&self) -> &[u8] {
        self.0.payload()
    }

    /// The application's bytes as a shared buffer (no copy).
    pub fn payload_bytes(&self) -> Bytes {
        self.0.payload_bytes()
    }
}

/// What happened to a node's links that bears on its federates' membership, oldest first.
/// A link that goes down is not the end of a membership: the node redials, and the registry
/// keeps the federate for its lease (see `trellis_core::registry`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkEvent {
    /// A link came up: the first connect, or a relink after a loss.
    Up,
    /// A link went down. `goodbye`: the far side ended it on purpose and said why (its
    /// router shut down, or cut this node as a slow consumer): it will not take the node
    /// back as it was, and it has told the registry so.
    Down {
        /// What ended the link, for logs and the user.
        why: String,
        /// The far side said goodbye (see above).
        goodbye: bool,
    },
    /// The registry has no federate of this node as a member (it resigned it while it was
    /// cut off, or the registry restarted).
    MembershipLost(String),
    /// A dial gave up after its attempts: the node will not reach its router again.
    GaveUp(String),
}

impl LinkEvent {
    /// Whether the host must queue `notice` for the application as a link event.
    pub(crate) fn concerns(notice: &Notice) -> bool {
        matches!(
            notice,
            Notice::LinkUp
                | Notice::LinkDown(_)
                | Notice::MembershipLost(_)
                | Notice::DialFailed { gave_up: true, .. }
        )
    }

    fn of(notice: Notice) -> Option<LinkEvent> {
        Some(match notice {
            Notice::LinkUp => LinkEvent::Up,
            Notice::LinkDown(why) => {
                // The notice carries the close reason as text; a goodbye's starts as
                // `CloseReason::PeerGoodbye` prints it.
                let prefix = CloseReason::PeerGoodbye(String::new()).to_string();
                let goodbye = why.starts_with(&prefix);
                LinkEvent::Down { why, goodbye }
            }
            Notice::MembershipLost(why) => LinkEvent::MembershipLost(why),
            Notice::DialFailed { why, gave_up: true } => LinkEvent::GaveUp(why),
            Notice::DialFailed { .. } | Notice::TlsRefused(_) | Notice::InterestChanged => {
                return None
            }
        })
    }
}
