//! [`DirectNode`]: the core and its sockets run on the caller's thread, in its calls.
//!
//! Every call does the I/O it needs and returns: `publish` writes at once when the link is
//! idle and in bundles during a burst (see [`NodeConfig::bundle_hold`]), `recv_timeout`
//! waits in the socket poll itself. Between calls nothing runs, so a program must call in
//! (`recv_timeout` or `poll`) at least every heartbeat interval, as an HLA federate must
//! tick; that call also writes what a burst left held, and if it does not come, the node's
//! tail writer does within [`super::TAIL_BOUND`].

use super::tail::{Driven, Shared, TailWriter};
use super::{
    connect_error, default_priority, AppClient, Arrived, LinkEvent, Message, NodeConfig,
    BUNDLE_BYTES,
};
use crate::endpoint::Endpoint;
use crate::error::NetError;
use crate::event_loop::{AppCommand, EventLoop, Refused};
use crate::runtime::{HostId, HostStats};
use crate::wake::Wakeup;
use roaring::RoaringBitmap;
use std::sync::{Arc, MutexGuard};
use std::time::{Duration, Instant};
use trellis_core::registry::{Request, Response};
use trellis_core::wire::{NodeId, TransportClass, UnstampedFrame};
use trellis_core::InterestId;

/// How long dropping a node may take to flush its goodbye.
const CLOSE_BOUND: Duration = Duration::from_secs(2);

/// A node driven on the caller's thread: publishes are written from the call (bundled by
/// its `bundle_hold`), and the event loop runs while the caller reads or waits. No channel
/// or thread between the application and its links except the tail writer of held bundles.
pub struct DirectNode {
    /// The event loop and the bundle held, shared with the tail writer.
    shared: Arc<Shared>,
    /// Writes held publishes the program leaves unwritten; only when it bundles.
    tail_writer: Option<TailWriter>,
    host: HostId,
    listening: Vec<Endpoint>,
    client: AppClient,
    /// When the sockets were last looked at.
    last_poll: Instant,
    bundle_hold: Duration,
    /// What the event loop was last told of an expected reply (told only on a change, as
    /// telling takes the lock).
    reply_expected: bool,
    /// Commands queued to the event loop and not acted on, at most (`command_capacity`).
    command_limit: usize,
    /// Wakes the event loop's poll, for a [`super::WaitBreaker`].
    wakeup: Arc<Wakeup>,
}

/// A node that only publishes still reads its sockets this often, inside `publish`: the
/// interest its router declares arrives there, and without it everything is squelched.
const READ_AT_LEAST_EVERY: Duration = Duration::from_millis(1);

impl DirectNode {
    /// Join the network. For a router attachment, returns once the link is up.
    pub fn connect(config: NodeConfig) -> Result<DirectNode, NetError> {
        let (mut event_loop, loop_shared) = EventLoop::new()?;
        event_loop.set_spin(config.spin);
        let (client, port, host) = AppClient::new(&config)?;
        let now = event_loop.now();
        let info = event_loop.add_host(now, host, Some(port))?;
        let bundles = !config.bundle_hold.is_zero();
        let shared = Shared::new(event_loop, bundles);
        let tail_writer = if bundles {
            Some(TailWriter::start(&config.name, shared.clone())?)
        } else {
            None
        };
        let mut node = DirectNode {
            shared,
            tail_writer,
            host: info.id,
            listening: info.listening,
            client,
            last_poll: Instant::now(),
            bundle_hold: config.bundle_hold,
            reply_expected: false,
            command_limit: config.command_capacity.max(1),
            wakeup: loop_shared.wakeup,
        };
        if let Some(endpoint) = AppClient::first_dial(&config) {
            node.wait_connected(&endpoint, config.connect_timeout)?;
        }
        Ok(node)
    }

    fn wait_connected(&mut self, endpoint: &Endpoint, timeout: Duration) -> Result<(), NetError> {
        let deadline = Instant::now() + timeout;
        let mut last_failure = None;
        loop {
            while let Ok(notice) = self.client.notices.try_recv() {
                if let Some(outcome) = self.client.connect_outcome(notice, &mut last_failure) {
                    return outcome.map_err(|why| connect_error(endpoint, why));
                }
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                let why = last_failure.unwrap_or_else(|| format!("no answer within {timeout:?}"));
                return Err(connect_error(endpoint, why));
            }
            self.poll(left)?;
        }
    }

    /// This node's id in the network, assigned at connect; the source of every frame it sends.
    pub fn node_id(&self) -> NodeId {
        self.client.node_id
    }

    /// Whether a reply is expected soon (a federate's time advance request): its waits then
    /// poll the sockets longer before sleeping (the event loop's spin policy), so the answer
    /// does not pay a wake-up.
    pub fn expect_reply(&mut self, expected: bool) {
        if self.reply_expected != expected {
            self.reply_expected = expected;
            self.driven().event_loop.expect_reply(expected);
        }
    }

    /// Do the network's work for at most `timeout`: read, route, write, run timers. Returns
    /// early once anything happened.
    pub fn poll(&mut self, timeout: Duration) -> Result<(), NetError> {
        self.drive(timeout, false)
    }

    /// `poll`; `for_delivery`: for a reader waiting for a frame, which does not wait while
    /// one waits for it already.
    fn drive(&mut self, timeout: Duration, for_delivery: bool) -> Result<(), NetError> {
        self.last_poll = Instant::now();
        let mut driven = self.driven();
        // The tail writer runs the loop between this thread's calls, and hands over what
        // it reads: a frame may wait in the channel that this thread's last look did not
        // see, and the loop does not count it as work. Looked at under the loop's lock,
        // nothing is handed over between the look and the wait; without the look such a
        // frame waits out the whole wait (up to the next router timer, a heartbeat).
        let timeout = if for_delivery && self.client.has_deliveries() {
            Duration::ZERO
        } else {
            timeout
        };
        // Held publishes count as work, so the wait does not block with them queued.
        driven.event_loop.wait(Some(timeout))?;
        let wake = driven.turn();
        drop(driven);
        self.wake_tail_writer_if(wake);
        Ok(())
    }

    fn wake_tail_writer_if(&self, wake: bool) {
        if wake {
            self.shared.wake_tail_writer();
        }
    }

    fn driven(&self) -> MutexGuard<'_, Driven> {
        self.shared.lock()
    }

    /// Act on everything queued, held publishes included.
    fn turn(&mut self) {
        let wake = self.driven().turn();
        self.wake_tail_writer_if(wake);
    }

    /// Queue a command and act on it at once.
    fn command(&mut self, command: AppCommand) -> Result<(), NetError> {
        self.queue(command)?;
        self.act()
    }

    /// Queue a publish, and act on it with those held before it once the bundle is due
    /// (see [`NodeConfig::bundle_hold`]).
    fn publish_frame(&mut self, frame: bytes::BytesMut) -> Result<(), NetError> {
        let len = frame.len();
        self.queue(AppCommand::Publish(frame))?;
        if self.bundle_hold.is_zero() {
            return self.act();
        }
        let now = Instant::now();
        let mut driven = self.driven();
        let held_long_enough = driven
            .last_bundle
            .is_none_or(|last| now.saturating_duration_since(last) >= self.bundle_hold);
        if driven.held_bytes + len >= BUNDLE_BYTES || held_long_enough {
            driven.held_bytes += len;
            drop(driven);
            return self.act();
        }
        let wake = driven.hold(len, now);
        drop(driven);
        self.wake_tail_writer_if(wake);
        Ok(())
    }

    /// Queue a command, straight into the event loop's queue for this node's application:
    /// the loop runs on this thread, so a channel to it would only cost a lock on each side
    /// per publish. If the queue is full because the network pushes back, drive the network
    /// until there is room, keeping what arrives meanwhile within a bound.
    fn queue(&mut self, mut command: AppCommand) -> Result<(), NetError> {
        loop {
            let queued = (self.driven().event_loop).queue_app_command(
                self.host,
                command,
                self.command_limit,
            );
            match queued {
                Ok(()) => return Ok(()),
                Err(Refused::Full(back)) => {
                    command = back;
                    self.poll(Duration::from_millis(10))?;
                    // Keep what arrived so the loop goes on reading the socket that
                    // brings it (see `AppClient::room_to_keep`).
                    if self.client.keep_waiting()? {
                        self.turn();
                    }
                }
                Err(Refused::Gone) => return Err(NetError::Stopped),
            }
        }
    }

    /// Act on the queue, and read the sockets if they were not read lately.
    fn act(&mut self) -> Result<(), NetError> {
        self.turn();
        if self.last_poll.elapsed() >= READ_AT_LEAST_EVERY {
            self.poll(Duration::ZERO)?;
        }
        Ok(())
    }

    /// Add these interest ids to what the node receives (the router is told at once).
    pub fn subscribe(&mut self, ids: &RoaringBitmap) -> Result<(), NetError> {
        self.command(AppCommand::Subscribe(ids.clone()))
    }

    /// Remove these interest ids from what the node receives.
    pub fn unsubscribe(&mut self, ids: &RoaringBitmap) -> Result<(), NetError> {
        self.command(AppCommand::Unsubscribe(ids.clone()))
    }

    /// Replace the node's whole interest with these ids.
    pub fn set_interest(&mut self, ids: &RoaringBitmap) -> Result<(), NetError> {
        self.command(AppCommand::SetInterest(ids.clone()))
    }

    /// Publish at the class's default priority.
    pub fn publish(
        &mut self,
        ids: &[InterestId],
        class: TransportClass,
        payload: &[u8],
    ) -> Result<(), NetError> {
        self.publish_with_priority(ids, class, default_priority(class), payload)
    }

    /// Publish a keep-latest frame (`trellis_core::wire::LatestKey`): queues on the way
    /// replace an older frame of this node with the same key and mask, and routers keep
    /// the newest for subscribers that come later.
    pub fn publish_latest(
        &mut self,
        ids: &[InterestId],
        class: TransportClass,
        latest: trellis_core::wire::LatestKey,
        payload: &[u8],
    ) -> Result<(), NetError> {
        let frame =
            self.client
                .encode_with(ids, class, default_priority(class), Some(latest), payload)?;
        self.publish_frame(frame)
    }

    /// Publish a frame encoded whole by the caller (the federate library does, straight
    /// into the frame): checked as any publish, and sent without a copy.
    pub fn publish_unstamped(&mut self, frame: UnstampedFrame) -> Result<(), NetError> {
        let frame = self.client.take_frame(frame)?;
        self.publish_frame(frame)
    }

    /// Publish `payload` to `ids` with a best-effort priority (higher is shed last under load).
    pub fn publish_with_priority(
        &mut self,
        ids: &[InterestId],
        class: TransportClass,
        priority: u8,
        payload: &[u8],
    ) -> Result<(), NetError> {
        let frame = self.client.encode(ids, class, priority, payload)?;
        self.publish_frame(frame)
    }

    /// The next message, driving the network for at most `timeout` while none is there.
    pub fn recv_timeout(&mut self, timeout: Duration) -> Result<Option<Message>, NetError> {
        self.recv(timeout, false)
    }

    /// The next message, driving the network for at most `timeout`, or `None` as soon as the
    /// node posts a notice (a link up or down, the network's interest changed): for callers
    /// that watch those (`network_interest_changes`) without polling, as the federate API
    /// does.
    pub fn recv_or_wake(&mut self, timeout: Duration) -> Result<Option<Message>, NetError> {
        self.recv(timeout, true)
    }

    fn recv(&mut self, timeout: Duration, until_woken: bool) -> Result<Option<Message>, NetError> {
        if let Some(message) = self.try_recv()? {
            return Ok(Some(message));
        }
        let deadline = Instant::now() + timeout;
        loop {
            // Even with no time left the sockets are read once: a zero timeout means
            // "whatever has arrived", not "whatever was read before".
            let left = deadline.saturating_duration_since(Instant::now());
            // Broken after the last look (its wake-up may be gone): the caller looks.
            if until_woken && self.client.wait_broken() {
                return Ok(None);
            }
            self.drive(left, true)?;
            let took = self.take()?;
            if let Some(frame) = took.frame {
                return Ok(Some(Message(frame)));
            }
            // Woken by a notice (a link went down, interest moved): the caller looks.
            if left.is_zero() || (until_woken && took.woken) {
                return Ok(None);
            }
        }
    }

    /// A message already handed over by the host, if any.
    fn take_delivery(&mut self) -> Result<Option<Message>, NetError> {
        Ok(self.take()?.frame.map(Message))
    }

    /// What the host handed over, the loop turned if it waited for room.
    fn take(&mut self) -> Result<super::Took, NetError> {
        let took = self.client.try_take()?;
        Ok(self.turn_if_owed(took))
    }

    /// A take that cleared the loop's "delivery blocked" mark owes it a turn: nothing else
    /// drives it.
    fn turn_if_owed(&mut self, took: super::Took) -> super::Took {
        if took.wake_loop {
            self.turn();
        }
        took
    }

    /// A breaker for this node's waits, to use from another thread: the wait in
    /// `recv_or_wake` returns `None` at once (see [`super::WaitBreaker`]).
    pub fn wait_breaker(&self) -> super::WaitBreaker {
        self.client.wait_breaker(Some(self.wakeup.clone()))
    }

    /// Whether a wait breaker was used since the last look (clears the mark).
    pub fn take_wait_broken(&self) -> bool {
        self.client.take_wait_broken()
    }

    /// The next message if one has arrived, without waiting.
    pub fn try_recv(&mut self) -> Result<Option<Message>, NetError> {
        if let Some(message) = self.take_delivery()? {
            return Ok(Some(message));
        }
        self.turn();
        self.take_delivery()
    }

    /// `try_recv` for the node's one reader, which keeps the rest of a batch in `arrived`
    /// (empty: the reader takes what it kept first).
    pub(crate) fn try_recv_keeping(
        &mut self,
        arrived: &mut Arrived,
    ) -> Result<Option<Message>, NetError> {
        if let Some(message) = self.take_keeping(arrived)? {
            return Ok(Some(message));
        }
        self.turn();
        self.take_keeping(arrived)
    }

    fn take_keeping(&mut self, arrived: &mut Arrived) -> Result<Option<Message>, NetError> {
        let took = self.client.try_take_keeping(arrived)?;
        Ok(self.turn_if_owed(took).frame.map(Message))
    }

    /// Ask the federation registry, driving the network until it answers.
    pub fn manage(&mut self, request: Request, timeout: Duration) -> Result<Response, NetError> {
        let (reply, answer) = flume::bounded(1);
        self.command(AppCommand::Manage(Box::new(request), reply))?;
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(response) = answer.try_recv() {
                return Ok(response);
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(NetError::Timeout(timeout, "the federation registry"));
            }
            self.poll(left)?;
        }
    }

    /// What the rest of the network wants from this node.
    pub fn network_interest(&mut self) -> Result<RoaringBitmap, NetError> {
        let (reply, answer) = flume::bounded(1);
        self.command(AppCommand::NetworkInterest(reply))?;
        answer.try_recv().map_err(|_| NetError::Stopped)
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
    /// tick.
    pub fn reliable_loss_reports(&self) -> u64 {
        self.client.reliable_loss_reports()
    }

    /// A counter that moves whenever `network_interest` may have changed (a neighbour
    /// declared interest, a link came up or went down): cheap to check on every tick.
    pub fn network_interest_changes(&self) -> u64 {
        self.client.network_interest_changes()
    }

    /// Drive the network until every id in `ids` is wanted by some other node.
    pub fn wait_for_network_interest(
        &mut self,
        ids: &RoaringBitmap,
        timeout: Duration,
    ) -> Result<(), NetError> {
        let deadline = Instant::now() + timeout;
        while !ids.is_subset(&self.network_interest()?) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(NetError::Timeout(timeout, "subscribers' interest"));
            }
            self.poll(left)?;
        }
        Ok(())
    }

    /// Drive the network until `count` links are up (for a clique of peers).
    pub fn wait_for_links(&mut self, count: usize, timeout: Duration) -> Result<(), NetError> {
        let deadline = Instant::now() + timeout;
        while self.stats()?.links_up() < count {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(NetError::Timeout(timeout, "links to come up"));
            }
            self.poll(left)?;
        }
        Ok(())
    }

    /// The node's host counters and links, as its event loop sees them now.
    pub fn stats(&self) -> Result<HostStats, NetError> {
        self.driven()
            .event_loop
            .host_stats(self.host)
            .ok_or(NetError::Stopped)
    }

    /// The endpoints this node's host listens on (empty for a node that only dials).
    pub fn listening(&self) -> &[Endpoint] {
        &self.listening
    }
}

impl Drop for DirectNode {
    /// Leave cleanly: say goodbye and flush, within a bound.
    fn drop(&mut self) {
        self.tail_writer = None;
        let host = self.host;
        let mut driven = self.driven();
        // Held publishes go before the goodbye; the tail writer is gone.
        let _ = driven.turn();
        let event_loop = &mut driven.event_loop;
        event_loop.stop_host(host);
        let deadline = Instant::now() + CLOSE_BOUND;
        while event_loop.has_host(host) && Instant::now() < deadline {
            event_loop.turn();
            let left = deadline.saturating_duration_since(Instant::now());
            if event_loop
                .wait(Some(left.min(Duration::from_millis(50))))
                .is_err()
            {
                break;
            }
        }
    }
}
