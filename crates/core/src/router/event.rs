//! What the router tells its driver.

use super::LinkId;
use crate::wire::{LinkFlags, NodeId, Role, WireError};
use std::fmt;
use std::time::Duration;

/// The far side of a link, as its hello described it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PeerInfo {
    /// The far node's name, for logs and the topology.
    pub node_name: String,
    /// The far node's id, unique per process run.
    pub node_id: NodeId,
    /// What the far side is to us.
    pub role: Role,
    /// The flags its hello announced (source, sink, persistent, …).
    pub flags: LinkFlags,
    /// Empty for a router-to-router link carrying every federation.
    pub federation: String,
    /// For a peer link, the clique both ends belong to; empty otherwise.
    pub clique: String,
}

/// Something the driver or its operator should know, drained with `Router::poll_event`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// The handshake finished: the link now carries interest and data.
    LinkUp {
        /// The link now up.
        link: LinkId,
        /// Who the far side said it is.
        peer: PeerInfo,
    },
    /// The router cut the link for `reason` (a slow consumer, a protocol violation, a
    /// timeout): nothing is routed to or from it from now on, its goodbye is on its way, and
    /// `LinkClosed` follows once that is flushed or its deadline passed (for a slow consumer
    /// that can be long: the goodbye waits behind what its socket holds). The moment to
    /// log the cut.
    LinkCut {
        /// The link cut.
        link: LinkId,
        /// Why it was cut.
        reason: CloseReason,
    },
    /// A registry request was refused here because the link it came on may not send it
    /// (`router::claims`): answered with `ErrorKind::NotPermitted`. The moment to log it.
    RequestRefused {
        /// The link the request came on.
        link: LinkId,
        /// Which claim the link lacks, for the log.
        why: String,
    },
    /// The access policy's class rights left interest out of a declaration, or dropped a
    /// data frame, that came on `link`; or the frame was a registry event from a certified
    /// federate (`router::rights`). The moment to log it.
    ClassRefused {
        /// The link the declaration or frame came on.
        link: LinkId,
        /// Which rule refused it, for the log.
        why: String,
    },
    /// The link is finished: the driver closes its transport and forgets the id. Anything the
    /// router wanted to send on it (a goodbye) has already been handed out by `poll_transmit`.
    LinkClosed {
        /// The link to close and forget.
        link: LinkId,
        /// Why it closed.
        reason: CloseReason,
    },
    /// A link paused by back-pressure may be read again. For the local application link it
    /// means `publish` accepts frames again.
    ReadResumed {
        /// The link to read again.
        link: LinkId,
    },
    /// The far side receives best-effort datagrams on this UDP port (at the link's address).
    UdpPeer {
        /// The link whose far side takes datagrams.
        link: LinkId,
        /// The UDP port at the far side's address.
        port: u16,
    },
    /// The interest the far side of `link` declared to us changed.
    InterestChanged {
        /// The link whose far side changed its interest.
        link: LinkId,
    },
    /// The federation registry answered this node's vouch: it has no federate of this node
    /// as a member (resigned while cut off, or the registry restarted without it). For the
    /// local application, whatever it believes: it is not joined.
    NotAMember,
    /// Reliable messages from `source` that the local application should have received
    /// never arrived (a router on the way crashed, a link failed with them queued, or
    /// interest was re-declared after a restart): the next one it does receive from that
    /// source follows this gap. Counted per interest id of the lost messages.
    ReliableLost {
        /// Node id of the source whose messages were lost.
        source: NodeId,
        /// Messages lost, counted once per interest id they carried.
        count: u64,
    },
    /// A new connection from the far side of a suspended link took its place (see the
    /// router's `session`); `resent` when what the far side had not received is sent again.
    LinkResumed {
        /// The link that resumed.
        link: LinkId,
        /// True when unacknowledged frames were sent again.
        resent: bool,
    },
}

/// Why a link closed. The text is what the log shows and what the goodbye carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CloseReason {
    /// The peer sent bytes that do not decode.
    Protocol(WireError),
    /// The peer sent well-formed frames that break the protocol.
    Violation(String),
    /// The peer said goodbye.
    PeerGoodbye(String),
    /// No complete frame arrived for this long.
    HeartbeatTimeout(Duration),
    /// The far side opened the connection but sent no valid hello within this long.
    HandshakeTimeout(Duration),
    /// A frame whose first bytes arrived this long ago never completed (past
    /// `LinkConfig::frame_deadline`): a slow drip, or a link too slow for its frames.
    FrameDeadline(Duration),
    /// The consumer's reliable queue stayed full too long, or outgrew its hard bound.
    SlowConsumer {
        /// Bytes queued toward it when it was cut.
        queued_bytes: usize,
        /// The queue bound it hit, in bytes.
        limit: usize,
        /// How long its queue had been full.
        stalled: Duration,
        /// Bytes it took from the queue meanwhile: about its socket buffers' worth for a
        /// consumer that stopped reading, more for one that reads too slowly.
        taken_bytes: u64,
    },
    /// Accepting the link's bytes would pass a bound on buffered input.
    InputLimit {
        /// Which input buffer, e.g. "input before the hello".
        what: &'static str,
        /// Its bound in bytes.
        limit: usize,
    },
    /// The transport failed.
    Transport(String),
    /// The peer closed the connection without a goodbye.
    EndOfStream,
    /// A connection we accepted closed before sending a single byte: a port probe (a
    /// federate library checking that a router answers, a health check), not a failure.
    ClosedBeforeHello,
    /// This node closed the link (shutdown, or an operator's request).
    Local(String),
}

impl fmt::Display for CloseReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CloseReason::Protocol(e) => write!(f, "protocol error: {e}"),
            CloseReason::Violation(what) => write!(f, "protocol violation: {what}"),
            CloseReason::PeerGoodbye(reason) => write!(f, "peer said goodbye: {reason}"),
            CloseReason::HeartbeatTimeout(d) => {
                write!(
                    f,
                    "heartbeat timeout: no complete frame received for {:.1} s",
                    d.as_secs_f64()
                )
            }
            CloseReason::HandshakeTimeout(d) => {
                write!(f, "no hello within {:.1} s of connecting", d.as_secs_f64())
            }
            CloseReason::FrameDeadline(d) => write!(
                f,
                "a frame begun {:.1} s ago never completed",
                d.as_secs_f64()
            ),
            CloseReason::SlowConsumer {
                queued_bytes,
                limit,
                stalled,
                taken_bytes,
            } => write!(
                f,
                "slow consumer: its reliable queue was full for {:.1} s ({queued_bytes} bytes \
                 queued, limit {limit}; it took {taken_bytes} bytes meanwhile); its \
                 publishers were paused meanwhile",
                stalled.as_secs_f64()
            ),
            CloseReason::InputLimit { what, limit } => {
                write!(
                    f,
                    "input refused: {what} would pass its limit of {limit} bytes"
                )
            }
            CloseReason::Transport(e) => write!(f, "transport error: {e}"),
            CloseReason::EndOfStream => {
                write!(f, "connection closed by the peer without a goodbye")
            }
            CloseReason::ClosedBeforeHello => {
                write!(
                    f,
                    "connection closed before sending anything (a port probe)"
                )
            }
            CloseReason::Local(reason) => write!(f, "{reason}"),
        }
    }
}
