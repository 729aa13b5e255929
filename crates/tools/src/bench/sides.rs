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

/// The two ends of exchange channel `channel` as nodes at attachment points `a` and `b`:
/// each listens on its own id and waits until the other end listens too.
pub(crate) fn node_pair(
    network: &Network,
    a: &str,
    b: &str,
    channel: u32,
    transport: Transport,
) -> Result<(NodeSide, NodeSide), BenchError> {
    let (to_b, to_a) = (10_000 + 2 * channel, 10_001 + 2 * channel);
    let mut node_a = network.direct_node(a)?;
    let mut node_b = network.direct_node(b)?;
    node_a.subscribe(&ids([to_a]))?;
    node_b.subscribe(&ids([to_b]))?;
    node_a.wait_for_network_interest(&ids([to_b]), SETUP_TIMEOUT)?;
    node_b.wait_for_network_interest(&ids([to_a]), SETUP_TIMEOUT)?;
    let class = transport.class();
    Ok((
        NodeSide {
            node: node_a,
            send_id: to_b,
            class,
        },
        NodeSide {
            node: node_b,
            send_id: to_a,
            class,
        },
    ))
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
    let mut rti = network.federate(federation, at, Driver::Direct)?;
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

/// The two ends of channel `channel` (below 128) as federates at `a` and `b`.
pub(crate) fn federate_pair(
    network: &Network,
    federation: &Federation,
    a: &str,
    b: &str,
    channel: u32,
    transport: Transport,
) -> Result<(FederateSide, FederateSide), BenchError> {
    if channel >= 128 {
        return Err(BenchError::Failed(
            "at most 128 federate channels fit the routing grid".into(),
        ));
    }
    let (to_b, to_a) = (2 * channel, 2 * channel + 1);
    Ok((
        federate_side(network, federation, a, to_b, to_a, transport)?,
        federate_side(network, federation, b, to_a, to_b, transport)?,
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
}

/// Largest payload one UDP datagram carries over IPv4.
pub(crate) const MAX_UDP_PAYLOAD: usize = 65_507;

pub(crate) fn udp_pair() -> Result<(UdpSide, UdpSide), BenchError> {
    let a = UdpSocket::bind("127.0.0.1:0")?;
    let b = UdpSocket::bind("127.0.0.1:0")?;
    a.connect(b.local_addr()?)?;
    b.connect(a.local_addr()?)?;
    let buf = vec![0u8; MAX_UDP_PAYLOAD];
    Ok((
        UdpSide {
            socket: a,
            buf: buf.clone(),
        },
        UdpSide { socket: b, buf },
    ))
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
            let mut rti = network.federate(federation, at, Driver::Direct)?;
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
