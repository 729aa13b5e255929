//! The two ends of an exchange, over any of the transports a benchmark compares: a Trellis
//! node, a federate (attribute updates in a region of their own), or a raw socket.

use super::network::{ids, Federation, Network, SETUP_TIMEOUT};
use super::{BenchError, Transport};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, UdpSocket};
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, ObjectId, Range, Region};
use trellis_core::fom::AttributeHandle;
use trellis_net::rti::{Driver, RtiAmbassador, SendOptions};
use trellis_net::DirectNode;

/// A pair's two ends, whatever carries them: (sender's end, receiver's end).
pub(crate) type Sides = (Box<dyn Side>, Box<dyn Side>);

/// One end: sends payloads, receives the other end's.
pub(crate) trait Side: Send {
    fn send(&mut self, payload: &[u8]) -> Result<(), BenchError>;
    /// The next payload from the other end, or `None` after `timeout`.
    fn recv(&mut self, timeout: Duration) -> Result<Option<Vec<u8>>, BenchError>;
}

/// A direct node that sends on one interest id and listens on another.
pub(crate) struct NodeSide {
    node: DirectNode,
    send_id: u32,
    class: trellis_core::wire::TransportClass,
}

impl Side for NodeSide {
    fn send(&mut self, payload: &[u8]) -> Result<(), BenchError> {
        Ok(self.node.publish(&[self.send_id], self.class, payload)?)
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Vec<u8>>, BenchError> {
        Ok(self
            .node
            .recv_timeout(timeout)?
            .map(|m| m.payload().to_vec()))
    }
}

/// Which end of an exchange channel: they send and listen on opposite ids (cells).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum End {
    /// The end that starts each exchange (pingpong's master, oneway's sender).
    First,
    Second,
}

impl End {
    /// (what this end sends on, what it listens to) of channel `channel`, from `base`.
    fn ids(self, base: u32, channel: u32) -> (u32, u32) {
        let (to_second, to_first) = (base + 2 * channel, base + 2 * channel + 1);
        match self {
            End::First => (to_second, to_first),
            End::Second => (to_first, to_second),
        }
    }
}

/// One end of exchange channel `channel` as a node at attachment point `at`, listening on
/// its own id; [`NodeSide::wait_for_peer`] then waits until the other end listens too.
/// The two ends may live in different processes.
pub(crate) fn node_end(
    network: &Network,
    at: &str,
    channel: u32,
    end: End,
    transport: Transport,
) -> Result<NodeSide, BenchError> {
    let (send_id, listen_id) = end.ids(10_000, channel);
    let mut node = network.direct_node(at)?;
    node.subscribe(&ids([listen_id]))?;
    Ok(NodeSide {
        node,
        send_id,
        class: transport.class(),
    })
}

impl NodeSide {
    /// Wait until the other end's subscription reached this node's router.
    pub(crate) fn wait_for_peer(&mut self) -> Result<(), BenchError> {
        Ok(self
            .node
            .wait_for_network_interest(&ids([self.send_id]), SETUP_TIMEOUT)?)
    }
}

/// The two ends of exchange channel `channel` as nodes at attachment points `a` and `b`:
/// each listens on its own id and waits until the other end listens too.
pub(crate) fn node_pair(
    network: &Network,
    a: &str,
    b: &str,
    channel: u32,
    transport: Transport,
) -> Result<(NodeSide, NodeSide), BenchError> {
    let mut side_a = node_end(network, a, channel, End::First, transport)?;
    let mut side_b = node_end(network, b, channel, End::Second, transport)?;
    side_a.wait_for_peer()?;
    side_b.wait_for_peer()?;
    Ok((side_a, side_b))
}

/// A federate that updates the Position of its own vehicle in one routing cell and
/// reflects updates made in another: channels stay apart in one federation.
pub(crate) struct FederateSide {
    rti: RtiAmbassador,
    object: ObjectId,
    position: AttributeHandle,
    region: Region,
    transport: Transport,
}

/// A point region in routing cell `cell` of the demo model's 16 × 16 grid on X and Y.
fn cell_region(rti: &RtiAmbassador, cell: u32) -> Result<Region, BenchError> {
    let x = rti.dimension_handle("X")?.0;
    let y = rti.dimension_handle("Y")?.0;
    let bin = 1000 / 16;
    let (cx, cy) = (
        u64::from(cell % 16) * bin + 1,
        u64::from(cell / 16 % 16) * bin + 1,
    );
    Ok(Region::new()
        .with(x, Range::new(cx, cx + 1))
        .with(y, Range::new(cy, cy + 1)))
}

fn federate_side(
    network: &Network,
    federation: &Federation,
    at: &str,
    send_cell: u32,
    receive_cell: u32,
    transport: Transport,
) -> Result<FederateSide, BenchError> {
    let mut rti = network.federate(federation, at, Driver::Direct, true)?;
    let vehicle = rti.object_class_handle("Vehicle")?;
    let position = rti.attribute_handle(vehicle, "Position")?;
    let receive = cell_region(&rti, receive_cell)?;
    rti.publish_object_class_attributes(vehicle, &[position])?;
    rti.subscribe_object_class_attributes_with_regions(vehicle, &[position], &[receive])?;
    let object = rti.register_object_instance(vehicle)?;
    let region = cell_region(&rti, send_cell)?;
    Ok(FederateSide {
        rti,
        object,
        position,
        region,
        transport,
    })
}

/// Channels that fit the demo model's routing grid: two cells each.
const FEDERATE_CHANNELS: u32 = 128;

/// One end of channel `channel` (below 128) as a federate at `at`; the other end may be in
/// another process. The first exchange tells when the other end's subscription arrived.
pub(crate) fn federate_end(
    network: &Network,
    federation: &Federation,
    at: &str,
    channel: u32,
    end: End,
    transport: Transport,
) -> Result<FederateSide, BenchError> {
    if channel >= FEDERATE_CHANNELS {
        return Err(BenchError::Failed(format!(
            "at most {FEDERATE_CHANNELS} federate channels fit the routing grid"
        )));
    }
    let (send_cell, receive_cell) = end.ids(0, channel);
    federate_side(network, federation, at, send_cell, receive_cell, transport)
}

/// The two ends of channel `channel` (below 128) as federates at `a` and `b`.
pub(crate) fn federate_pair(
    network: &Network,
    federation: &Federation,
    a: &str,
    b: &str,
    channel: u32,
    transport: Transport,
) -> Result<(FederateSide, FederateSide), BenchError> {
    Ok((
        federate_end(network, federation, a, channel, End::First, transport)?,
        federate_end(network, federation, b, channel, End::Second, transport)?,
    ))
}

impl Side for FederateSide {
    fn send(&mut self, payload: &[u8]) -> Result<(), BenchError> {
        let options = SendOptions {
            region: Some(&self.region),
            transport: Some(self.transport.class()),
            time: None,
        };
        Ok(self.rti.update_attribute_values_with(
            self.object,
            &[(self.position, payload)],
            b"",
            &options,
        )?)
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Vec<u8>>, BenchError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rti.evoke_callback(left)? {
                Some(Callback::ReflectAttributeValues { values, .. }) => {
                    if let Some((_, value)) = values.into_iter().next() {
                        return Ok(Some(value.to_vec()));
                    }
                }
                Some(_) => {}
                None => return Ok(None),
            }
        }
    }
}

/// Plain TCP: a 4-byte length, then the payload, one write per message.
pub(crate) struct TcpSide {
    stream: TcpStream,
    buf: Vec<u8>,
}

pub(crate) fn tcp_pair() -> Result<(TcpSide, TcpSide), BenchError> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let a = TcpStream::connect(listener.local_addr()?)?;
    let (b, _) = listener.accept()?;
    a.set_nodelay(true)?;
    b.set_nodelay(true)?;
    Ok((
        TcpSide {
            stream: a,
            buf: Vec::new(),
        },
        TcpSide {
            stream: b,
            buf: Vec::new(),
        },
    ))
}

impl TcpSide {
    /// A side on a connection made elsewhere (see `hairpin`).
    pub(crate) fn new(stream: TcpStream) -> TcpSide {
        TcpSide {
            stream,
            buf: Vec::new(),
        }
    }
}

impl Side for TcpSide {
    fn send(&mut self, payload: &[u8]) -> Result<(), BenchError> {
        self.buf.clear();
        self.buf
            .extend_from_slice(&(payload.len() as u32).to_le_bytes());
        self.buf.extend_from_slice(payload);
        Ok(self.stream.write_all(&self.buf)?)
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Vec<u8>>, BenchError> {
        self.stream
            .set_read_timeout(Some(timeout.max(Duration::from_micros(1))))?;
        let mut length = [0u8; 4];
        match self.stream.read_exact(&mut length) {
            Ok(()) => {}
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                return Ok(None)
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e.into()),
        }
        let mut payload = vec![0u8; u32::from_le_bytes(length) as usize];
        self.stream.set_read_timeout(None)?;
        self.stream.read_exact(&mut payload)?;
        Ok(Some(payload))
    }
}

/// Plain UDP: one datagram per message, lost ones are lost.
pub(crate) struct UdpSide {
    socket: UdpSocket,
    buf: Vec<u8>,
    /// A connection kept open as long as the side lives (a hairpin forwarder's request).
    _held: Option<TcpStream>,
}

/// Largest payload one UDP datagram carries over IPv4.
pub(crate) const MAX_UDP_PAYLOAD: usize = 65_507;

pub(crate) fn udp_pair() -> Result<(UdpSide, UdpSide), BenchError> {
    let a = UdpSocket::bind("127.0.0.1:0")?;
    let b = UdpSocket::bind("127.0.0.1:0")?;
    a.connect(b.local_addr()?)?;
    b.connect(a.local_addr()?)?;
    Ok((UdpSide::new(a, None), UdpSide::new(b, None)))
}

impl UdpSide {
    /// A side on a connected socket, holding `held` open while it lives.
    pub(crate) fn new(socket: UdpSocket, held: Option<TcpStream>) -> UdpSide {
        UdpSide {
            socket,
            buf: vec![0u8; MAX_UDP_PAYLOAD],
            _held: held,
        }
    }
}

impl Side for UdpSide {
    fn send(&mut self, payload: &[u8]) -> Result<(), BenchError> {
        if payload.len() > MAX_UDP_PAYLOAD {
            return Err(BenchError::Failed(format!(
                "a {}-byte message does not fit one UDP datagram ({MAX_UDP_PAYLOAD} at most)",
                payload.len()
            )));
        }
        match self.socket.send(payload) {
            Ok(_) => Ok(()),
            // A full socket buffer loses the datagram, as the network may.
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => Ok(()),
            Err(e) => Err(e.into()),
        }
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<Vec<u8>>, BenchError> {
        self.socket
            .set_read_timeout(Some(timeout.max(Duration::from_micros(1))))?;
        match self.socket.recv(&mut self.buf) {
            Ok(n) => Ok(Some(self.buf[..n].to_vec())),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                Ok(None)
            }
            Err(e) => Err(e.into()),
        }
    }
}

/// What a many-party benchmark sends on: data to everyone listening, replies back to the
/// one that asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Channel {
    Data,
    Reply,
}

const REPLY_ID: u32 = 2;

/// A party of a many-party benchmark (symmetric, latency).
pub(crate) trait Peer: Send {
    fn send(&mut self, channel: Channel, payload: &[u8]) -> Result<(), BenchError>;
    fn recv(&mut self, timeout: Duration) -> Result<Option<(Channel, Vec<u8>)>, BenchError>;
}

struct NodePeer {
    node: DirectNode,
    class: trellis_core::wire::TransportClass,
}

impl Peer for NodePeer {
    fn send(&mut self, channel: Channel, payload: &[u8]) -> Result<(), BenchError> {
        let id = match channel {
            Channel::Data => super::DATA_ID,
            Channel::Reply => REPLY_ID,
        };
        Ok(self.node.publish(&[id], self.class, payload)?)
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<(Channel, Vec<u8>)>, BenchError> {
        Ok(self.node.recv_timeout(timeout)?.map(|m| {
            let channel = if m.ids().any(|id| id == REPLY_ID) {
                Channel::Reply
            } else {
                Channel::Data
            };
            (channel, m.payload().to_vec())
        }))
    }
}

/// Data is the Name of the party's own vehicle, replies are Radio interactions.
struct FederatePeer {
    rti: RtiAmbassador,
    object: ObjectId,
    name: AttributeHandle,
    radio: trellis_core::fom::InteractionClassHandle,
    text: trellis_core::fom::ParameterHandle,
    transport: Transport,
}

impl Peer for FederatePeer {
    fn send(&mut self, channel: Channel, payload: &[u8]) -> Result<(), BenchError> {
        let options = SendOptions {
            transport: Some(self.transport.class()),
            ..Default::default()
        };
        match channel {
            Channel::Data => self.rti.update_attribute_values_with(
                self.object,
                &[(self.name, payload)],
                b"",
                &options,
            )?,
            Channel::Reply => self.rti.send_interaction_with(
                self.radio,
                &[(self.text, payload)],
                b"",
                &options,
            )?,
        }
        Ok(())
    }

    fn recv(&mut self, timeout: Duration) -> Result<Option<(Channel, Vec<u8>)>, BenchError> {
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rti.evoke_callback(left)? {
                Some(Callback::ReflectAttributeValues { values, .. }) => {
                    if let Some((_, v)) = values.into_iter().next() {
                        return Ok(Some((Channel::Data, v.to_vec())));
                    }
                }
                Some(Callback::ReceiveInteraction { parameters, .. }) => {
                    if let Some((_, v)) = parameters.into_iter().next() {
                        return Ok(Some((Channel::Reply, v.to_vec())));
                    }
                }
                Some(_) => {}
                None => return Ok(None),
            }
        }
    }
}

/// A party at attachment point `at` that hears the channels in `hears`. Nodes use the
/// node API; with a federation, federates use the HLA services.
pub(crate) fn peer(
    network: &Network,
    federation: Option<&Federation>,
    at: &str,
    hears: &[Channel],
    transport: Transport,
) -> Result<Box<dyn Peer>, BenchError> {
    match federation {
        None => {
            let mut node = network.direct_node(at)?;
            let listen = hears.iter().map(|c| match c {
                Channel::Data => super::DATA_ID,
                Channel::Reply => REPLY_ID,
            });
            node.subscribe(&ids(listen))?;
            Ok(Box::new(NodePeer {
                node,
                class: transport.class(),
            }))
        }
        Some(federation) => {
            let mut rti = network.federate(federation, at, Driver::Direct, true)?;
            let vehicle = rti.object_class_handle("Vehicle")?;
            let name = rti.attribute_handle(vehicle, "Name")?;
            let radio = rti.interaction_class_handle("Radio")?;
            let text = rti.parameter_handle(radio, "Text")?;
            rti.publish_object_class_attributes(vehicle, &[name])?;
            rti.publish_interaction_class(radio)?;
            if hears.contains(&Channel::Data) {
                rti.subscribe_object_class_attributes(vehicle, &[name])?;
            }
            if hears.contains(&Channel::Reply) {
                rti.subscribe_interaction_class(radio)?;
            }
            let object = rti.register_object_instance(vehicle)?;
            Ok(Box::new(FederatePeer {
                rti,
                object,
                name,
                radio,
                text,
                transport,
            }))
        }
    }
}
