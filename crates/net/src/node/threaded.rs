//! [`Node`]: the core on an event-loop thread, the application on its own threads.

use super::{
    connect_error, default_priority, AppClient, Arrived, LinkEvent, Message, NodeConfig, Took,
};
use crate::endpoint::Endpoint;
use crate::error::NetError;
use crate::event_loop::AppCommand;
use crate::runtime::{Host, HostStats, Runtime, Shared};
use roaring::RoaringBitmap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::registry::{Request, Response};
use trellis_core::wire::{NodeId, TransportClass, UnstampedFrame};
use trellis_core::InterestId;

/// A node on an event-loop thread of its own: publishes go to it through a bounded channel,
/// so batches form while the caller works and callbacks can be awaited.
pub struct Node {
    /// Set when the node runs its own event loop; dropped (stopping it) with the node.
    own_runtime: Option<Runtime>,
    host: Host,
    shared: Arc<Shared>,
    client: AppClient,
}

impl Node {
    /// Start an event loop for this node alone and join the network.
    pub fn connect(config: NodeConfig) -> Result<Node, NetError> {
        let runtime = Runtime::start_spinning(&config.name, config.spin)?;
        let mut node = Node::connect_in(&runtime, config)?;
        node.own_runtime = Some(runtime);
        Ok(node)
    }

    /// Join the network as a host of `runtime`. For a router attachment, returns once the
    /// link to the router is up.
    pub fn connect_in(runtime: &Runtime, config: NodeConfig) -> Result<Node, NetError> {
        let (client, port, host) = AppClient::new(&config)?;
        let host = runtime.add_host_with(host, Some(port))?;
        let node = Node {
            own_runtime: None,
            host,
            shared: runtime.shared().clone(),
            client,
        };
        if let Some(endpoint) = AppClient::first_dial(&config) {
            node.wait_connected(&endpoint, config.connect_timeout)?;
        }
        Ok(node)
    }

    fn wait_connected(&self, endpoint: &Endpoint, timeout: Duration) -> Result<(), NetError> {
        let deadline = Instant::now() + timeout;
        let mut last_failure = None;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let Ok(notice) = self.client.notices.recv_timeout(left) else {
                let why = last_failure.unwrap_or_else(|| format!("no answer within {timeout:?}"));
                return Err(connect_error(endpoint, why));
            };
            if let Some(outcome) = self.client.connect_outcome(notice, &mut last_failure) {
                return outcome.map_err(|why| connect_error(endpoint, why));
            }
        }
    }

    /// This node's id in the network, assigned at connect; the source of every frame it sends.
    pub fn node_id(&self) -> NodeId {
        self.client.node_id
    }

    /// Send `command` to the event loop, keeping what arrives while the network pushes
    /// back (see `AppClient::send_keeping`).
    fn command(&self, command: AppCommand) -> Result<(), NetError> {
        let wake_loop = || self.shared.wakeup.wake();
        self.client.send_keeping(command, &wake_loop)?;
        wake_loop();
        Ok(())
    }

    /// Add these interest ids to what the node receives (the router is told at once).
    pub fn subscribe(&self, ids: &RoaringBitmap) -> Result<(), NetError> {
        self.command(AppCommand::Subscribe(ids.clone()))
    }

    /// Remove these interest ids from what the node receives.
    pub fn unsubscribe(&self, ids: &RoaringBitmap) -> Result<(), NetError> {
        self.command(AppCommand::Unsubscribe(ids.clone()))
    }

    /// Replace the node's whole interest.
    pub fn set_interest(&self, ids: &RoaringBitmap) -> Result<(), NetError> {
        self.command(AppCommand::SetInterest(ids.clone()))
    }

    /// Publish at the class's default priority.
    pub fn publish(
        &self,
        ids: &[InterestId],
        class: TransportClass,
        payload: &[u8],
    ) -> Result<(), NetError> {
        self.publish_with_priority(ids, class, default_priority(class), payload)
    }

    /// Publish a keep-latest frame (see `DirectNode::publish_latest`). Blocks while the
    /// node's command queue is full.
    pub fn publish_latest(
        &self,
        ids: &[InterestId],
        class: TransportClass,
        latest: trellis_core::wire::LatestKey,
        payload: &[u8],
    ) -> Result<(), NetError> {
        let frame =
            self.client
                .encode_with(ids, class, default_priority(class), Some(latest), payload)?;
        self.command(AppCommand::Publish(frame))
    }

    /// Publish a frame encoded whole by the caller (see `DirectNode::publish_unstamped`).
    /// Blocks while the node's command queue is full.
    pub fn publish_unstamped(&self, frame: UnstampedFrame) -> Result<(), NetError> {
        let frame = self.client.take_frame(frame)?;
        self.command(AppCommand::Publish(frame))
    }

    /// Publish. Blocks while the node's command queue is full (the network pushes back).
    pub fn publish_with_priority(
        &self,
        ids: &[InterestId],
        class: TransportClass,
        priority: u8,
        payload: &[u8],
    ) -> Result<(), NetError> {
        let frame = self.client.encode(ids, class, priority, payload)?;
        self.command(AppCommand::Publish(frame))
    }

    /// Publish from async code: waits without blocking the thread while the queue is full,
    /// keeping what arrives meanwhile as `publish` does (see `AppClient::send_keeping_async`).
    pub async fn publish_async(
        &self,
        ids: &[InterestId],
        class: TransportClass,
        payload: &[u8],
    ) -> Result<(), NetError> {
        let frame = self
            .client
            .encode(ids, class, default_priority(class), payload)?;
        let wake_loop = || self.shared.wakeup.wake();
        let command = AppCommand::Publish(frame);
        self.client.send_keeping_async(command, &wake_loop).await?;
        wake_loop();
        Ok(())
    }

    fn took(&self, took: Took) -> Option<Message> {
        if took.wake_loop {
            self.shared.wakeup.wake();
        }
        took.frame.map(Message)
    }

    /// The next message, waiting at most `timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<Option<Message>, NetError> {
        // A message already waiting is taken without a deadline and so without reading the
        // clock: at full rate this is called once per message.
        let waiting = self.try_recv()?;
        // Broken after the last look (its wake-up may be gone): the caller looks.
        if waiting.is_some() || timeout.is_zero() || self.client.wait_broken() {
            return Ok(waiting);
        }
        let deadline = Instant::now() + timeout;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.recv_or_wake(left)? {
                Some(message) => return Ok(Some(message)),
                None if left.is_zero() => return Ok(None),
                None => {}
            }
        }
    }

    /// The next message, waiting at most `timeout`, or `None` as soon as the node posts a
    /// notice (a link up or down, the network's interest changed): for callers that watch
    /// those (`network_interest_changes`) without polling, as the federate API does.
    pub fn recv_or_wake(&self, timeout: Duration) -> Result<Option<Message>, NetError> {
        let _counted = (!timeout.is_zero()).then(|| self.client.waiting_reader());
        let waiting = self.try_recv()?;
        if waiting.is_some() || timeout.is_zero() {
            return Ok(waiting);
        }
        match self.client.deliveries.recv_timeout(timeout) {
            Ok(delivery) => Ok(self.took(self.client.took_batch(delivery))),
            Err(flume::RecvTimeoutError::Timeout) => Ok(None),
            Err(flume::RecvTimeoutError::Disconnected) => Err(NetError::Stopped),
        }
    }

    /// A breaker for this node's waits, to use from another thread: the wait in
    /// `recv_or_wake` returns `None` at once (see [`super::WaitBreaker`]).
    pub fn wait_breaker(&self) -> super::WaitBreaker {
        self.client.wait_breaker(None)
    }

    /// Whether a wait breaker was used since the last look (clears the mark).
    pub fn take_wait_broken(&self) -> bool {
        self.client.take_wait_broken()
    }

    /// The next message if one is waiting.
    pub fn try_recv(&self) -> Result<Option<Message>, NetError> {
        let took = self.client.try_take()?;
        Ok(self.took(took))
    }

    /// `try_recv` for the node's one reader, which keeps the rest of a batch in `arrived`
    /// (empty: the reader takes what it kept first).
    pub(crate) fn try_recv_keeping(
        &self,
        arrived: &mut Arrived,
    ) -> Result<Option<Message>, NetError> {
        let took = self.client.try_take_keeping(arrived)?;
        Ok(self.took(took))
    }

    /// The next message, awaited.
    pub async fn recv_async(&self) -> Result<Message, NetError> {
        let _counted = self.client.waiting_reader();
        if let Some(message) = self.try_recv()? {
            return Ok(message);
        }
        loop {
            let delivery = self
                .client
                .deliveries
                .recv_async()
                .await
                .map_err(|_| NetError::Stopped)?;
            if let Some(message) = self.took(self.client.took_batch(delivery)) {
                return Ok(message);
            }
        }
    }

    /// Ask the federation registry and wait for its answer.
    pub fn manage(&self, request: Request, timeout: Duration) -> Result<Response, NetError> {
        let (reply, answer) = flume::bounded(1);
        self.command(AppCommand::Manage(Box::new(request), reply))?;
        answer
            .recv_timeout(timeout)
            .map_err(|_| NetError::Timeout(timeout, "the federation registry"))
    }

    /// What the rest of the network wants from this node.
    pub fn network_interest(&self) -> Result<RoaringBitmap, NetError> {
        let (reply, answer) = flume::bounded(1);
        self.command(AppCommand::NetworkInterest(reply))?;
        answer.recv().map_err(|_| NetError::Stopped)
    }

    /// What happened to this node's links since the last call, oldest first, once each:
    /// links up and down (with why), the registry answering that it has no federate of this
    /// node, a dial that gave up. A federate decides from these whether it is still a member
    /// (see `rti`'s connection watch).
    pub fn take_link_event(&self) -> Option<LinkEvent> {
        self.client.take_link_event()
    }

    /// Reliable messages this node's application should have received and did not, by
    /// source, counted since the last call: a router on the way crashed, a link failed
    /// with them queued, or interest was re-declared after a restart. Found from gaps in
    /// each source's numbered streams (see `trellis_core::router`'s `streams`), so a loss
    /// shows once a later message of the same stream arrives. Never silent: the node also
    /// logs each gap.
    pub fn take_reliable_losses(&self) -> Vec<(NodeId, u64)> {
        self.client.take_reliable_losses()
    }

    /// A counter that moves whenever a reliable loss is counted: cheap to check on every
    /// call.
    pub fn reliable_loss_reports(&self) -> u64 {
        self.client.reliable_loss_reports()
    }

    /// A counter that moves whenever `network_interest` may have changed (a neighbour
    /// declared interest, a link came up or went down): cheap to check on every call.
    pub fn network_interest_changes(&self) -> u64 {
        self.client.network_interest_changes()
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
            let _ = self.client.notices.recv_timeout(left);
        }
    }

    /// Wait until the node has `count` links up (for a clique of peers).
    pub fn wait_for_links(&self, count: usize, timeout: Duration) -> Result<(), NetError> {
        self.host.wait_for_links(count, timeout)
    }

    /// The node's host counters and links, as its event loop sees them now.
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
