//! Control frames: hello, interest, goodbye. Heartbeats have no body.

use super::reader::Reader;
use super::{put_header, FederationId, FrameKind, NodeId, WireError, FRAME_HEADER_LEN};
use bytes::{BufMut, BytesMut};

/// The part a node plays toward the node at the other end of a link.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// The far side is our parent in a tree: we dialed it and redial it after a failure.
    Parent,
    /// The far side is our child in a tree (a router below us, or a federate).
    Child,
    /// The far side is a member of the same clique (mesh) as we are.
    Peer,
    /// The local application of a federate node. Never sent on the wire.
    Application,
}

impl Role {
    fn to_byte(self) -> u8 {
        match self {
            Role::Parent => 1,
            Role::Child => 2,
            Role::Peer => 3,
            Role::Application => 4,
        }
    }

    fn from_byte(byte: u8) -> Option<Role> {
        Some(match byte {
            1 => Role::Parent,
            2 => Role::Child,
            3 => Role::Peer,
            4 => Role::Application,
            _ => return None,
        })
    }

    /// The role the far side sees us in.
    pub fn inverse(self) -> Role {
        match self {
            Role::Parent => Role::Child,
            Role::Child => Role::Parent,
            Role::Peer => Role::Peer,
            Role::Application => Role::Application,
        }
    }

    /// Lower-case name for logs and errors.
    pub fn name(self) -> &'static str {
        match self {
            Role::Parent => "parent",
            Role::Child => "child",
            Role::Peer => "peer",
            Role::Application => "application",
        }
    }
}

/// The papers' client flags.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct LinkFlags(u8);

impl LinkFlags {
    /// The far side may send data into this node.
    pub const SOURCE: LinkFlags = LinkFlags(1);
    /// The far side wants data: its declared interest is honoured.
    pub const SINK: LinkFlags = LinkFlags(2);
    /// The link is redialed after a failure instead of being forgotten.
    pub const PERSISTENT: LinkFlags = LinkFlags(4);
    /// No flag set: the link neither sends nor receives data.
    pub const NONE: LinkFlags = LinkFlags(0);
    const ALL: u8 = 7;

    /// Both sets of flags.
    pub const fn union(self, other: LinkFlags) -> LinkFlags {
        LinkFlags(self.0 | other.0)
    }

    /// Whether every flag of `other` is set here.
    pub const fn contains(self, other: LinkFlags) -> bool {
        self.0 & other.0 == other.0
    }

    /// The flag byte as the hello encodes it.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Source and sink: what almost every link is.
    pub const fn source_sink() -> LinkFlags {
        LinkFlags(1 | 2)
    }
}

impl Default for LinkFlags {
    fn default() -> Self {
        LinkFlags::source_sink()
    }
}

impl std::ops::BitOr for LinkFlags {
    type Output = LinkFlags;
    fn bitor(self, rhs: LinkFlags) -> LinkFlags {
        self.union(rhs)
    }
}

/// Where the sender receives best-effort datagrams for this link, and the session token that
/// must head each of them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct UdpOffer {
    /// UDP port of the sender's address where it takes the datagrams.
    pub port: u16,
    /// Random session token heading each datagram, so a stray datagram matches no link.
    pub token: u64,
}

/// First frame on every link. The dialer sends it at once; the acceptor answers with its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// The sender's node id.
    pub node_id: NodeId,
    /// The sender's node name, for logs.
    pub node_name: String,
    /// The sender's role toward the receiver ("I am your child").
    pub role: Role,
    /// What the sender will do on the link: source, sink, persistent.
    pub flags: LinkFlags,
    /// The federation this link serves; empty for a router-to-router link that carries all.
    pub federation: String,
    /// For peer links: the clique both ends belong to.
    pub clique: String,
    /// Where the sender takes best-effort datagrams, if it offers UDP.
    pub udp: Option<UdpOffer>,
}

impl Hello {
    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Hello, WireError> {
        let node_id = NodeId(r.u64("node id")?);
        let role = Role::from_byte(r.u8("role")?).ok_or(r.malformed("unknown role"))?;
        if role == Role::Application {
            return Err(r.malformed("the application role is local and cannot be sent"));
        }
        let flags = r.u8("flags")?;
        if flags & !LinkFlags::ALL != 0 {
            return Err(r.malformed("unknown link flags"));
        }
        let udp_port = r.u16("udp port")?;
        let udp_token = r.u64("udp token")?;
        let node_name = r.short_str("node name")?;
        let federation = r.short_str("federation name")?;
        let clique = r.short_str("clique name")?;
        Ok(Hello {
            node_id,
            node_name,
            role,
            flags: LinkFlags(flags),
            federation,
            clique,
            udp: (udp_port != 0).then_some(UdpOffer {
                port: udp_port,
                token: udp_token,
            }),
        })
    }

    /// Encode; names longer than 255 bytes are cut at a character boundary.
    pub fn encode(&self, out: &mut BytesMut) {
        let name = clip(&self.node_name, 255);
        let federation = clip(&self.federation, 255);
        let clique = clip(&self.clique, 255);
        let body = 8 + 1 + 1 + 2 + 8 + 3 + name.len() + federation.len() + clique.len();
        put_header(out, FrameKind::Hello, body);
        out.put_u64_le(self.node_id.0);
        out.put_u8(self.role.to_byte());
        out.put_u8(self.flags.bits());
        let udp = self.udp.unwrap_or(UdpOffer { port: 0, token: 0 });
        out.put_u16_le(udp.port);
        out.put_u64_le(udp.token);
        for text in [name, federation, clique] {
            out.put_u8(text.len() as u8);
            out.put_slice(text.as_bytes());
        }
    }
}

/// The longest prefix of `text` that fits in `max` bytes without splitting a character.
pub(crate) fn clip(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// What an interest frame does to the set the sender declared before.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InterestOp {
    /// Adds these ranges to the set.
    Add,
    /// Removes these ranges from the set.
    Remove,
    /// Clear the set, then add these ranges. Later `Add` frames may continue a large set.
    Replace,
}

impl InterestOp {
    fn to_byte(self) -> u8 {
        match self {
            InterestOp::Add => 1,
            InterestOp::Remove => 2,
            InterestOp::Replace => 3,
        }
    }
}

/// A change to the interest the sender declares to the receiver, for one federation.
/// Ids travel as inclusive ranges: regions map to runs of neighbouring cells.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InterestFrame {
    /// The federation whose interest changes.
    pub federation: FederationId,
    /// How the ranges change the declared set.
    pub op: InterestOp,
    /// Inclusive ranges of interest ids `(first, last)`.
    pub ranges: Vec<(u32, u32)>,
}

/// Bytes of an interest frame before its ranges.
const INTEREST_FIXED: usize = FRAME_HEADER_LEN + 8 + 1 + 4;

impl InterestFrame {
    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<InterestFrame, WireError> {
        let federation = FederationId(r.u64("federation")?);
        let op = match r.u8("op")? {
            1 => InterestOp::Add,
            2 => InterestOp::Remove,
            3 => InterestOp::Replace,
            _ => return Err(r.malformed("unknown interest op")),
        };
        let count = r.u32("range count")? as usize;
        // The count is checked against the bytes actually present before anything is
        // allocated, so a lying count cannot reserve memory.
        if r.remaining() != count.saturating_mul(8) {
            return Err(r.malformed("range count does not match the frame length"));
        }
        let mut ranges = Vec::with_capacity(count);
        for _ in 0..count {
            let start = r.u32("range start")?;
            let end = r.u32("range end")?;
            if start > end {
                return Err(r.malformed("range start after its end"));
            }
            ranges.push((start, end));
        }
        Ok(InterestFrame {
            federation,
            op,
            ranges,
        })
    }

    /// Encode `ranges` as one or more frames that each fit `max_frame_size`. A `Replace` that
    /// does not fit in one frame continues with `Add` frames; an empty `Replace` still sends
    /// one frame (it clears the set).
    pub fn encode(
        out: &mut BytesMut,
        federation: FederationId,
        op: InterestOp,
        ranges: &[(u32, u32)],
        max_frame_size: usize,
    ) {
        let per_frame = ((max_frame_size - INTEREST_FIXED) / 8).max(1);
        let mut first = true;
        let mut chunks = ranges.chunks(per_frame).peekable();
        if chunks.peek().is_none() {
            if op == InterestOp::Replace {
                Self::encode_one(out, federation, op, &[]);
            }
            return;
        }
        for chunk in chunks {
            let this_op = if op == InterestOp::Replace && !first {
                InterestOp::Add
            } else {
                op
            };
            Self::encode_one(out, federation, this_op, chunk);
            first = false;
        }
    }

    fn encode_one(
        out: &mut BytesMut,
        federation: FederationId,
        op: InterestOp,
        ranges: &[(u32, u32)],
    ) {
        put_header(out, FrameKind::Interest, 8 + 1 + 4 + ranges.len() * 8);
        out.put_u64_le(federation.0);
        out.put_u8(op.to_byte());
        out.put_u32_le(ranges.len() as u32);
        for &(start, end) in ranges {
            out.put_u32_le(start);
            out.put_u32_le(end);
        }
    }
}

/// Sent before a node closes a link on purpose, so the far side can log why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Goodbye {
    /// Why, for the far side's log; cut to 1 KiB when encoded.
    pub reason: String,
}

impl Goodbye {
    pub(crate) fn decode(r: &mut Reader<'_>) -> Result<Goodbye, WireError> {
        Ok(Goodbye {
            reason: r.long_str("reason")?,
        })
    }

    /// Encode; a reason longer than 1 KiB is cut.
    pub fn encode(reason: &str, out: &mut BytesMut) {
        let reason = clip(reason, 1024);
        put_header(out, FrameKind::Goodbye, 2 + reason.len());
        out.put_u16_le(reason.len() as u16);
        out.put_slice(reason.as_bytes());
    }
}
