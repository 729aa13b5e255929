//! The node API: what a program uses to join the network as a federate-like node.
//!
//! A node is a router core with a local application, run by an event loop thread. The
//! calling threads talk to it through bounded channels: `publish` blocks (or awaits) when the
//! network pushes back, and messages arrive through `recv_timeout` or `recv_async`.

use crate::endpoint::Endpoint;
use crate::error::NetError;
use crate::event_loop::{AppCommand, AppPort, AppSignals, Notice};
use crate::runtime::{DialConfig, Host, HostConfig, HostStats, Runtime, Shared};
use bytes::{Bytes, BytesMut};
use roaring::RoaringBitmap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::router::{LinkConfig, PublishError, RouterConfig};
use trellis_core::wire::{
    DataFrame, DataHeader, FederationId, NodeId, TransportClass, MAX_IDS_PER_FRAME,
};
use trellis_core::InterestId;

/// How a node joins the network.
#[derive(Clone, Debug)]
pub enum Attachment {
    /// As the child of a router.
    Router(Endpoint),
    /// As a member of a clique of nodes linked directly. Every member lists the others;
    /// of each pair, the one whose listen address sorts first dials.
    Peers {
        listen: Endpoint,
        peers: Vec<Endpoint>,
        clique: String,
    },
}

#[derive(Clone, Debug)]
pub struct NodeConfig {
    pub name: String,
    pub federation: String,
    pub attach: Attachment,
    /// Carry best-effort frames over UDP (the router must listen on udp:// too).
    pub udp: bool,
    pub link: LinkConfig,
    pub max_frame_size: usize,
    /// Messages the node buffers for the application before it pushes back on the network.
    pub delivery_capacity: usize,
    /// Publishes buffered toward the event loop before `publish` blocks.
    pub command_capacity: usize,
    /// How long `connect` waits for the first link.
    pub connect_timeout: Duration,
}

impl NodeConfig {
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
            command_capacity: 16 << 10,
            connect_timeout: Duration::from_secs(10),
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

/// A message as the application receives it: the data frame, shared with the receive
/// buffer (no copy).
#[derive(Clone, Debug)]
pub struct Message(DataFrame);

impl Message {
    pub fn source(&self) -> NodeId {
        self.0.source()
    }

    pub fn seq(&self) -> u64 {
        self.0.seq()
    }

    pub fn class(&self) -> TransportClass {
        self.0.class()
    }

    pub fn priority(&self) -> u8 {
        self.0.priority()
    }

    pub fn ids(&self) -> impl Iterator<Item = InterestId> + '_ {
        self.0.ids()
    }

    pub fn payload(&self) -> &[u8] {
        self.0.payload()
    }

    pub fn payload_bytes(&self) -> Bytes {
        self.0.payload_bytes()
    }
}

pub struct Node {
    /// Set when the node runs its own event loop; dropped (stopping it) with the node.
    own_runtime: Option<Runtime>,
    host: Host,
    shared: Arc<Shared>,
    commands: flume::Sender<AppCommand>,
    deliveries: flume::Receiver<DataFrame>,
    notices: flume::Receiver<Notice>,
    signals: Arc<AppSignals>,
    federation: FederationId,
    node_id: NodeId,
    max_frame_size: usize,
}

fn random_node_id() -> NodeId {
    use std::hash::BuildHasher;
    NodeId(std::collections::hash_map::RandomState::new().hash_one(std::process::id()))
}

impl Node {
    /// Start an event loop for this node alone and join the network.
    pub fn connect(config: NodeConfig) -> Result<Node, NetError> {
        let runtime = Runtime::start(&config.name)?;
        let mut node = Node::connect_in(&runtime, config)?;
        node.own_runtime = Some(runtime);
        Ok(node)
    }

    /// Join the network as a host of `runtime`. For a router attachment, returns once the
    /// link to the router is up.
    pub fn connect_in(runtime: &Runtime, config: NodeConfig) -> Result<Node, NetError> {
        let node_id = random_node_id();
        let mut router =
            RouterConfig::federate(config.name.clone(), node_id, config.federation.clone());
        router.max_frame_size = config.max_frame_size;
        router.link_defaults = config.link.clone();
        let mut host = HostConfig::new(router);
        match &config.attach {
            Attachment::Router(endpoint) => {
                let mut dial = DialConfig::parent(endpoint.clone(), config.federation.clone());
                dial.udp = config.udp;
                host.dial.push(dial);
            }
            Attachment::Peers {
                listen,
                peers,
                clique,
            } => {
                host.listen.push(listen.clone());
                for peer in peers.iter().filter(|p| *p > listen) {
                    let mut dial =
                        DialConfig::peer(peer.clone(), config.federation.clone(), clique.clone());
                    dial.udp = config.udp;
                    host.dial.push(dial);
                }
            }
        }
        if config.udp {
            if let Attachment::Peers {
                listen: Endpoint::Tcp(addr),
                ..
            } = &config.attach
            {
                host.listen
                    .push(Endpoint::Udp(std::net::SocketAddr::new(addr.ip(), 0)));
            }
        }
        let (commands, commands_rx) = flume::bounded(config.command_capacity);
        let (deliveries_tx, deliveries) = flume::bounded(config.delivery_capacity);
        let (notices_tx, notices) = flume::bounded(1024);
        let signals = Arc::new(AppSignals::default());
        let port = AppPort {
            commands: commands_rx,
            deliveries: deliveries_tx,
            notices: notices_tx,
            signals: signals.clone(),
        };
        let host = runtime.add_host_with(host, Some(port))?;
        let node = Node {
            own_runtime: None,
            host,
            shared: runtime.shared().clone(),
            commands,
            deliveries,
            notices,
            signals,
            federation: FederationId::of(&config.federation),
            node_id,
            max_frame_size: trellis_core::wire::clamp_max_frame_size(config.max_frame_size),
        };
        if let Attachment::Router(endpoint) = &config.attach {
            node.wait_connected(endpoint, config.connect_timeout)?;
        }
        Ok(node)
    }

    fn wait_connected(&self, endpoint: &Endpoint, timeout: Duration) -> Result<(), NetError> {
        let deadline = Instant::now() + timeout;
        let mut last_failure = None;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.notices.recv_timeout(left) {
                Ok(Notice::LinkUp) => return Ok(()),
                Ok(Notice::DialFailed { why, gave_up, .. }) => {
                    if gave_up {
                        return Err(NetError::Connect {
                            endpoint: endpoint.clone(),
                            why,
                        });
                    }
                    last_failure = Some(why);
                }
                Ok(Notice::LinkDown(why)) => last_failure = Some(why),
                Ok(Notice::InterestChanged) => {}
                Err(_) => {
                    return Err(NetError::Connect {
                        endpoint: endpoint.clone(),
                        why: last_failure
                            .unwrap_or_else(|| format!("no answer within {timeout:?}")),
                    })
                }
            }
        }
    }

    pub fn node_id(&self) -> NodeId {
        self.node_id
    }

    fn command(&self, command: AppCommand) -> Result<(), NetError> {
        self.commands.send(command).map_err(|_| NetError::Stopped)?;
        self.shared.wakeup.wake();
        Ok(())
    }

    pub fn subscribe(&self, ids: &RoaringBitmap) -> Result<(), NetError> {
        self.command(AppCommand::Subscribe(ids.clone()))
    }

    pub fn unsubscribe(&self, ids: &RoaringBitmap) -> Result<(), NetError> {
        self.command(AppCommand::Unsubscribe(ids.clone()))
    }

    /// Replace the node's whole interest.
    pub fn set_interest(&self, ids: &RoaringBitmap) -> Result<(), NetError> {
        self.command(AppCommand::SetInterest(ids.clone()))
    }

    /// Publish at the default priority (0 for best effort, 4 for reliable).
    pub fn publish(
        &self,
        ids: &[InterestId],
        class: TransportClass,
        payload: &[u8],
    ) -> Result<(), NetError> {
        let priority = match class {
            TransportClass::Reliable => 4,
            TransportClass::BestEffort => 0,
        };
        self.publish_with_priority(ids, class, priority, payload)
    }

    /// Publish. Blocks while the node's command queue is full (the network pushes back).
    pub fn publish_with_priority(
        &self,
        ids: &[InterestId],
        class: TransportClass,
        priority: u8,
        payload: &[u8],
    ) -> Result<(), NetError> {
        let frame = self.encode(ids, class, priority, payload)?;
        self.command(AppCommand::Publish(frame))
    }

    /// Publish from async code: waits without blocking the thread while the queue is full.
    pub async fn publish_async(
        &self,
        ids: &[InterestId],
        class: TransportClass,
        payload: &[u8],
    ) -> Result<(), NetError> {
        let frame = self.encode(ids, class, 0, payload)?;
        self.commands
            .send_async(AppCommand::Publish(frame))
            .await
            .map_err(|_| NetError::Stopped)?;
        self.shared.wakeup.wake();
        Ok(())
    }

    /// Check and encode on the caller's thread, so errors are reported to the caller and
    /// the event loop only stamps and routes.
    fn encode(
        &self,
        ids: &[InterestId],
        class: TransportClass,
        priority: u8,
        payload: &[u8],
    ) -> Result<BytesMut, NetError> {
        if ids.is_empty() {
            return Err(PublishError::NoIds.into());
        }
        if ids.len() > MAX_IDS_PER_FRAME {
            return Err(PublishError::TooManyIds(ids.len()).into());
        }
        if priority > 7 {
            return Err(PublishError::BadPriority(priority).into());
        }
        let size = DataFrame::encoded_len(ids.len(), payload.len());
        if size > self.max_frame_size {
            return Err(PublishError::TooLarge {
                size,
                max: self.max_frame_size,
            }
            .into());
        }
        let header = DataHeader {
            federation: self.federation,
            source: self.node_id,
            seq: 0,
            priority,
            class,
        };
        let mut frame = BytesMut::with_capacity(size);
        DataFrame::encode(&mut frame, &header, ids, payload);
        Ok(frame)
    }

    fn took_one(&self) {
        if self.signals.delivery_blocked.swap(false, Ordering::SeqCst) {
            self.shared.wakeup.wake();
        }
    }

    /// The next message, waiting at most `timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<Option<Message>, NetError> {
        match self.deliveries.recv_timeout(timeout) {
            Ok(frame) => {
                self.took_one();
                Ok(Some(Message(frame)))
            }
            Err(flume::RecvTimeoutError::Timeout) => Ok(None),
            Err(flume::RecvTimeoutError::Disconnected) => Err(NetError::Stopped),
        }
    }

    /// The next message if one is waiting.
    pub fn try_recv(&self) -> Result<Option<Message>, NetError> {
        match self.deliveries.try_recv() {
            Ok(frame) => {
                self.took_one();
                Ok(Some(Message(frame)))
            }
            Err(flume::TryRecvError::Empty) => Ok(None),
            Err(flume::TryRecvError::Disconnected) => Err(NetError::Stopped),
        }
    }

    /// The next message, awaited.
    pub async fn recv_async(&self) -> Result<Message, NetError> {
        let frame = self
            .deliveries
            .recv_async()
            .await
            .map_err(|_| NetError::Stopped)?;
        self.took_one();
        Ok(Message(frame))
    }

    /// What the rest of the network wants from this node.
    pub fn network_interest(&self) -> Result<RoaringBitmap, NetError> {
        let (reply, answer) = flume::bounded(1);
        self.command(AppCommand::NetworkInterest(reply))?;
        answer.recv().map_err(|_| NetError::Stopped)
    }

    /// Wait until every id in `ids` is wanted by some other node, e.g. before starting to
    /// publish so that subscribers that joined first miss nothing.
    pub fn wait_for_network_interest(
        &self,
        ids: &RoaringBitmap,
        timeout: Duration,
    ) -> Result<(), NetError> {
        let deadline = Instant::now() + timeout;
        loop {
            if ids.is_subset(&self.network_interest()?) {
                return Ok(());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(NetError::Timeout(timeout, "subscribers' interest"));
            }
            // Any notice (interest changed, link up) is a reason to look again.
            let _ = self.notices.recv_timeout(left);
        }
    }

    /// Wait until the node has `count` links up (for a clique of peers).
    pub fn wait_for_links(&self, count: usize, timeout: Duration) -> Result<(), NetError> {
        self.host.wait_for_links(count, timeout)
    }

    pub fn stats(&self) -> Result<HostStats, NetError> {
        self.host.stats()
    }

    /// Where the node listens (peer attachment).
    pub fn listening(&self) -> &[Endpoint] {
        self.host.listening()
    }

    /// Leave the network: flush, say goodbye, stop.
    pub fn close(self) {
        drop(self);
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        if self.own_runtime.is_none() {
            let _ = self.host.stop();
        }
    }
}
