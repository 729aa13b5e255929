//! The router's record of one link.

use super::config::LinkConfig;
use super::event::{CloseReason, PeerInfo};
use super::queue::OutQueue;
use super::stats::LinkStats;
use super::LinkId;
use crate::time::Time;
use crate::wire::{DataFrame, LinkFlags, Role, UdpOffer};
use roaring::RoaringBitmap;
use std::time::Duration;

pub(crate) type BlockId = u32;
pub(crate) type FedIndex = u32;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LinkState {
    /// Waiting for the far side's hello. `expect` is set when we dialed.
    Handshake {
        expect: Option<Expectation>,
    },
    Up,
    /// Flushing a goodbye; no input is processed and nothing new is routed here.
    Closing {
        deadline: Time,
        reason: CloseReason,
    },
    /// The transport failed; the link waits, still routed to, for its peer to redial and
    /// resume the session until `until` (see `session`).
    Suspended {
        until: Time,
        reason: CloseReason,
    },
}

/// What a dialer expects the acceptor's hello to confirm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Expectation {
    pub far_role: Role,
    pub federation: String,
    pub clique: String,
}

/// Whether a link bound as `binding` whose far side said `role` is a router's by its hello:
/// it carries every federation, or it is a clique peer's.
pub(crate) fn is_router_binding(binding: &Binding, role: Role) -> bool {
    matches!(binding, Binding::Trunk) || role == Role::Peer
}

/// Which federations a link carries.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Binding {
    /// Not known until the hello arrives.
    Unbound,
    /// A router-to-router link: every federation.
    Trunk,
    Federation(FedIndex),
}

/// An incomplete frame at the end of a link's input: when it began, and the link's count
/// of decoded frames then (a higher count means that frame completed and another began).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct PartialFrame {
    pub since: Time,
    pub frames_before: u64,
}

pub(crate) struct Link {
    pub id: LinkId,
    pub label: String,
    pub state: LinkState,
    /// What the far side is to us (from its hello, or known locally for the application).
    pub role: Role,
    /// The far side's flags, from its hello.
    pub far_flags: LinkFlags,
    /// Our flags, sent in our hello.
    pub our_flags: LinkFlags,
    pub peer: Option<PeerInfo>,
    pub binding: Binding,
    pub block: Option<BlockId>,
    pub config: LinkConfig,
    pub udp_local: Option<UdpOffer>,
    pub udp_peer: Option<UdpOffer>,
    /// A frame too large for one datagram, part-way through being sent in fragments.
    pub fragmenting: Option<super::udp::Fragmenting>,
    /// Number for the next fragmented frame sent on this link.
    pub next_fragmented: u32,
    /// Datagrams sent on this link: the sequence number of the last one.
    pub datagrams_sent: u64,
    /// Which recent datagrams arrived, to drop duplicates.
    pub datagrams_seen: super::udp::DatagramWindow,
    /// The far side's distance to the registry, as it last announced it.
    pub registry_distance: u8,
    /// Whether the far side has announced its distance since the link came up (until then
    /// a registry request waits for it: `route_wait`).
    pub registry_heard: bool,
    /// What we last announced to it.
    pub registry_announced: Option<u8>,
    /// Received bytes not yet decoded.
    pub inbuf: super::inbuf::InputBuffer,
    /// What this link's `inbuf` counts toward the router's total of buffered input.
    pub input_counted: usize,
    /// A reliable frame from this link waiting for room downstream; while set, no further
    /// input from the link is processed.
    pub stalled: Option<(FedIndex, DataFrame)>,
    /// Links whose stalled frame waits for this link's queue to drain.
    pub waiters: Vec<LinkId>,
    pub out: OutQueue,
    /// Interest the far side declared to us, per federation.
    pub interest: Vec<(FedIndex, RoaringBitmap)>,
    /// What the access policy lets it declare and send, per federation, once worked out
    /// (`None`: anything; `router::rights`).
    pub rights: Vec<(FedIndex, Option<std::sync::Arc<crate::policy::WireRights>>)>,
    /// When the link was handed to the router: the handshake deadline counts from here.
    pub opened: Time,
    /// Who the far side proved to be (`LinkSpec::identity`).
    pub identity: Option<super::PeerIdentity>,
    pub last_sent: Time,
    /// When the last complete frame (or datagram) arrived: what the heartbeat timeout
    /// measures. Bytes of a frame still incomplete do not move it.
    pub last_received: Time,
    /// The frame the input buffer holds the start of, while it is incomplete: when its
    /// first bytes arrived (`LinkConfig::frame_deadline` counts from there).
    pub partial_frame: Option<PartialFrame>,
    /// Since when the reliable queue reached its limit; cleared only once it drains to half
    /// of it, where the publishers it paused are released (`Router::after_drain`).
    pub full_since: Option<Time>,
    /// `stats.bytes_out` when `full_since` was set: what the consumer took since tells a
    /// stalled consumer (next to nothing: its socket buffers' worth) from a slow one.
    pub bytes_out_at_full: u64,
    /// In the router's ready list.
    pub ready: bool,
    /// Last forwarding pass that chose this link; dedups links reached through several ids.
    pub stamp: u64,
    pub stats: LinkStats,
    /// This side's session number on the link, and the far side's (from its session frame).
    pub session: u64,
    pub peer_session: Option<u64>,
    /// Reliable data frames received and routed on this link, and the count last acked.
    pub received_reliable: u64,
    pub acked: u64,
    /// Reliable data frames sent and not yet acked, kept to resend after a resume.
    pub resend: super::session::ResendBuffer,
}

impl Link {
    /// A router's link, by its hello or its certificate: one that carries every
    /// federation, a clique peer's, or one whose certificate says router. What comes on it
    /// was checked at the router where it entered the network.
    pub(crate) fn is_from_router(&self) -> bool {
        is_router_binding(&self.binding, self.role)
            || self.identity.as_ref().map(|i| i.role) == Some(super::IdentityRole::Router)
    }

    pub(crate) fn is_app(&self) -> bool {
        self.role == Role::Application
    }

    /// Attached: in its block, routed to, its interest counted. A suspended link is.
    pub(crate) fn is_up(&self) -> bool {
        matches!(self.state, LinkState::Up | LinkState::Suspended { .. })
    }

    /// Up with a transport: it can send and receive now.
    pub(crate) fn is_connected(&self) -> bool {
        self.state == LinkState::Up
    }

    pub(crate) fn is_suspended(&self) -> bool {
        matches!(self.state, LinkState::Suspended { .. })
    }

    pub(crate) fn is_closing(&self) -> bool {
        matches!(self.state, LinkState::Closing { .. })
    }

    pub(crate) fn carries(&self, fed: FedIndex) -> bool {
        match self.binding {
            Binding::Trunk => true,
            Binding::Federation(f) => f == fed,
            Binding::Unbound => false,
        }
    }

    pub(crate) fn interest(&self, fed: FedIndex) -> Option<&RoaringBitmap> {
        self.interest
            .iter()
            .find(|(f, _)| *f == fed)
            .map(|(_, set)| set)
    }

    pub(crate) fn interest_mut(&mut self, fed: FedIndex) -> &mut RoaringBitmap {
        let at = match self.interest.iter().position(|(f, _)| *f == fed) {
            Some(at) => at,
            None => {
                self.interest.push((fed, RoaringBitmap::new()));
                self.interest.len() - 1
            }
        };
        &mut self.interest[at].1
    }

    /// How long this link's reliable queue may stay full before it is cut, or `None` when
    /// it never is: a federate node's own links to its routers throttle its application
    /// (publish blocks) instead, so a federate never cuts its router for pausing it.
    pub(crate) fn slow_consumer_bound(&self, node_has_application: bool) -> Option<Duration> {
        match self.binding {
            _ if node_has_application => None,
            Binding::Trunk => Some(self.config.trunk_slow_consumer_timeout),
            Binding::Federation(_) => Some(self.config.slow_consumer_timeout),
            Binding::Unbound => None,
        }
    }

    pub(crate) fn has_room_for_reliable(&self) -> bool {
        self.out.reliable_bytes() < self.config.queue_limit_bytes
    }

    /// Bytes the consumer took since its queue was marked full (0 when not marked).
    pub(crate) fn taken_while_full(&self) -> u64 {
        match self.full_since {
            Some(_) => self.stats.bytes_out.saturating_sub(self.bytes_out_at_full),
            None => 0,
        }
    }
}
