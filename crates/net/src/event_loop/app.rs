//! The local application of a federate node: commands in from its thread, deliveries out.

use bytes::BytesMut;
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use trellis_core::registry::{Request, Response};
use trellis_core::router::Router;
use trellis_core::wire::{DataFrame, NodeId};
use trellis_core::Time;

/// Commands handled per turn before other hosts get a go.
const COMMANDS_PER_TURN: usize = 1024;

pub(crate) enum AppCommand {
    /// A data frame encoded by the application thread; the router stamps source and seq.
    Publish(BytesMut),
    Subscribe(RoaringBitmap),
    Unsubscribe(RoaringBitmap),
    SetInterest(RoaringBitmap),
    /// Reply with what the rest of the network wants from this node.
    NetworkInterest(flume::Sender<RoaringBitmap>),
    /// Ask the federation registry; the answer goes to the sender. Boxed: a request is
    /// larger than all the other commands, and every publish is moved as a command twice
    /// (into the channel and out of it), so it would pay for the request's size.
    Manage(Box<Request>, flume::Sender<Response>),
}

/// What happened to the node's links, for callers waiting on a condition.
#[derive(Clone, Debug)]
pub(crate) enum Notice {
    LinkUp,
    LinkDown(String),
    /// The registry has no federate of this node as a member.
    MembershipLost(String),
    DialFailed {
        why: String,
        gave_up: bool,
    },
    /// A TLS handshake failed for a reason no redial changes (a refused certificate).
    TlsRefused(String),
    InterestChanged,
}

/// Frames handed to the application at once: all those one turn of the loop has ready, in
/// one channel send and at most one wake-up, instead of a send (a lock) and possibly a
/// wake-up for every frame. A delivery without frames is a wake-up alone: a notice was
/// posted (`AppState::notify`), so an application waiting for messages looks at its links
/// and the network's interest now rather than polling them.
pub(crate) struct Delivery {
    pub(crate) frames: Vec<DataFrame>,
    pub(crate) bytes: usize,
}

pub(crate) struct AppSignals {
    /// The loop stopped delivering because the application's channel was full. The
    /// application clears it and wakes the loop after it takes a batch.
    pub(crate) delivery_blocked: AtomicBool,
    /// Frames and frame bytes in the application's channel. The channel is bounded in bytes
    /// as well as in messages: best-effort frames kept back in the router can be shed by
    /// priority and stay fresh, while frames in the channel wait however stale they get.
    /// The application takes a whole batch out of the count at once, so besides these it
    /// holds at most one batch it has not read yet: in all at most twice the limits.
    delivery_frames: AtomicUsize,
    delivery_capacity: usize,
    delivery_bytes: AtomicUsize,
    delivery_limit_bytes: usize,
    /// Counts notices: links up or down, interest declared by a neighbour. Whenever it
    /// moves, what the network wants from this node may have changed (advisories poll it).
    pub(crate) network_changes: AtomicU64,
    /// The application waits for room in the command channel and reads its deliveries
    /// meanwhile (`AppClient::room_to_keep`): the loop wakes it once it took commands.
    pub(crate) send_blocked: AtomicBool,
    /// Threads or tasks of the application blocked on the delivery channel. A send that
    /// waits for room keeps deliveries only while none is: one would sleep through what it
    /// kept (see `AppClient::send_keeping`).
    pub(crate) readers_waiting: AtomicUsize,
    /// A wake-up (an empty delivery) is in the channel and not yet taken: at most one is,
    /// however many notices are posted while the application does not read.
    wake_sent: AtomicBool,
    /// Another thread broke the application's wait for messages (`WaitBreaker`) and the
    /// waiting side has not seen it yet.
    wait_broken: AtomicBool,
    /// Reliable messages the application should have received and did not, by source, not
    /// yet taken by it. One entry per source at most: bounded by the federation's size.
    reliable_losses: Mutex<FxHashMap<NodeId, u64>>,
    /// Moves whenever `reliable_losses` gains a count, so the application need not lock to
    /// find there is nothing new.
    pub(crate) reliable_loss_reports: AtomicU64,
    /// Batches the application emptied, handed back for the loop's next deliveries: a
    /// batch per delivery would otherwise be an allocation per message in a ping-pong.
    spare_batches: Mutex<Vec<Vec<DataFrame>>>,
}

/// At most this many emptied batches wait to be reused.
const SPARE_BATCHES: usize = 4;

impl AppSignals {
    pub(crate) fn new(delivery_capacity: usize, delivery_limit_bytes: usize) -> AppSignals {
        AppSignals {
            delivery_blocked: AtomicBool::new(false),
            delivery_frames: AtomicUsize::new(0),
            delivery_capacity: delivery_capacity.max(1),
            delivery_bytes: AtomicUsize::new(0),
            delivery_limit_bytes,
            network_changes: AtomicU64::new(0),
            send_blocked: AtomicBool::new(false),
            readers_waiting: AtomicUsize::new(0),
            wake_sent: AtomicBool::new(false),
            wait_broken: AtomicBool::new(false),
            reliable_losses: Mutex::new(FxHashMap::default()),
            reliable_loss_reports: AtomicU64::new(0),
            spare_batches: Mutex::new(Vec::with_capacity(SPARE_BATCHES)),
        }
    }

    /// Frames and bytes the channel holds at most (besides the batch being read).
    pub(crate) fn delivery_limits(&self) -> (usize, usize) {
        (self.delivery_capacity, self.delivery_limit_bytes)
    }

    /// The application emptied `batch`: keep its buffer for a later delivery.
    pub(crate) fn give_back(&self, batch: Vec<DataFrame>) {
        debug_assert!(batch.is_empty(), "a batch is given back empty");
        if batch.capacity() == 0 {
            return;
        }
        let mut spare = self.spare_batches.lock().unwrap_or_else(|e| e.into_inner());
        if spare.len() < SPARE_BATCHES {
            spare.push(batch);
        }
    }

    /// An empty batch for a delivery: one given back, else a new one.
    fn batch(&self) -> Vec<DataFrame> {
        let mut spare = self.spare_batches.lock().unwrap_or_else(|e| e.into_inner());
        spare.pop().unwrap_or_default()
    }

    /// The router found `count` reliable messages of `source` missing.
    pub(crate) fn reliable_lost(&self, source: NodeId, count: u64) {
        let mut losses = self
            .reliable_losses
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        *losses.entry(source).or_default() += count;
        self.reliable_loss_reports.fetch_add(1, Ordering::SeqCst);
    }

    /// Take the reliable losses counted so far, by source.
    pub(crate) fn take_reliable_losses(&self) -> Vec<(NodeId, u64)> {
        let mut losses = self
            .reliable_losses
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        let mut taken: Vec<_> = losses.drain().collect();
        taken.sort_unstable();
        taken
    }

    /// Whether a frame of `len` bytes fits the channel beside a batch of `frames` frames and
    /// `bytes` bytes not yet sent; an empty channel takes one frame however large.
    fn has_room_for(&self, frames: usize, bytes: usize, len: usize) -> bool {
        let queued_frames = self.delivery_frames.load(Ordering::SeqCst) + frames;
        let queued_bytes = self.delivery_bytes.load(Ordering::SeqCst) + bytes;
        queued_frames == 0
            || (queued_frames < self.delivery_capacity
                && queued_bytes + len <= self.delivery_limit_bytes)
    }

    /// A batch is about to enter the channel. Counted before the send: the application may
    /// take it at once.
    pub(crate) fn entering(&self, frames: usize, bytes: usize) {
        self.delivery_frames.fetch_add(frames, Ordering::SeqCst);
        self.delivery_bytes.fetch_add(bytes, Ordering::SeqCst);
    }

    /// Put a wake-up (an empty delivery) in the channel for an application blocked on it,
    /// unless one is there already.
    pub(crate) fn wake(&self, deliveries: &flume::Sender<Delivery>) {
        if !self.wake_sent.swap(true, Ordering::SeqCst) {
            let _ = deliveries.send(Delivery {
                frames: Vec::new(),
                bytes: 0,
            });
        }
    }

    /// Mark the application's wait as broken (the caller then wakes it).
    pub(crate) fn break_wait(&self) {
        self.wait_broken.store(true, Ordering::SeqCst);
    }

    /// Whether the application's wait is broken: looked at before each sleep, as the
    /// wake-ups that go with the mark may have been taken already.
    pub(crate) fn wait_broken(&self) -> bool {
        self.wait_broken.load(Ordering::SeqCst)
    }

    /// Whether the application's wait was broken since it last looked (clears the mark).
    pub(crate) fn take_wait_broken(&self) -> bool {
        self.wait_broken.swap(false, Ordering::SeqCst)
    }

    /// The application took the wake-up. Cleared before it looks at the counters, so a
    /// notice posted after the look sends another.
    pub(crate) fn took_wake(&self) {
        self.wake_sent.store(false, Ordering::SeqCst);
    }

    /// A batch left the count: the application took it, or it never got in. Returns whether
    /// the loop stopped delivering and must be woken.
    pub(crate) fn took(&self, frames: usize, bytes: usize) -> bool {
        self.delivery_frames.fetch_sub(frames, Ordering::SeqCst);
        self.delivery_bytes.fetch_sub(bytes, Ordering::SeqCst);
        self.delivery_blocked.swap(false, Ordering::SeqCst)
    }
}

pub(crate) struct AppPort {
    pub(crate) commands: flume::Receiver<AppCommand>,
    pub(crate) deliveries: flume::Sender<Delivery>,
    pub(crate) notices: flume::Sender<Notice>,
    /// Links up and down, membership lost, dials given up: what a federate's membership
    /// depends on (`crate::node::LinkEvent`). Unlike notices, which are hints for waiters,
    /// these are facts it must not miss; the channel is bounded (see `AppClient::new`).
    pub(crate) losses: flume::Sender<Notice>,
    pub(crate) signals: Arc<AppSignals>,
}

pub(crate) struct AppState {
    pub(super) port: AppPort,
    /// Commands taken from the channel, all those waiting at once (one lock, not one per
    /// command: the application's thread contends for it at every publish), run in order.
    /// A publish under back-pressure stays at the front and later commands wait behind it.
    /// Nothing more is taken while any are left, so at most one channel's worth waits here.
    taken: VecDeque<AppCommand>,
    held_delivery: Option<DataFrame>,
    /// Registry requests in flight, by request number. Answers to callers that gave up
    /// waiting are dropped with their channel.
    pending_manage: FxHashMap<u64, flume::Sender<Response>>,
}

impl AppState {
    /// Queue `command` behind those taken already, from a caller that drives this loop on
    /// its own thread (`DirectNode`): no channel between a thread and itself. Such a caller
    /// sends nothing through the channel, so the order is the order of the calls. At most
    /// `limit` wait.
    pub(crate) fn push_command(
        &mut self,
        command: AppCommand,
        limit: usize,
    ) -> Result<(), Refused> {
        if self.taken.len() >= limit {
            return Err(Refused::Full(command));
        }
        self.taken.push_back(command);
        debug_assert!(self.taken.len() <= limit);
        Ok(())
    }

    pub(crate) fn new(port: AppPort) -> AppState {
        AppState {
            port,
            taken: VecDeque::new(),
            held_delivery: None,
            pending_manage: FxHashMap::default(),
        }
    }

    pub(crate) fn has_work(&self, router: &Router) -> bool {
        let commands = match self.taken.front() {
            Some(AppCommand::Publish(_)) => router.can_publish(),
            Some(_) => true,
            None => !self.port.commands.is_empty(),
        };
        // Deliveries held back while the application's channel was full go out as soon as
        // it has taken some: the loop must not sleep on them.
        let deliveries = !self.port.signals.delivery_blocked.load(Ordering::SeqCst)
            && (self.held_delivery.is_some() || router.pending_delivery_bytes() > 0);
        commands || deliveries
    }

    pub(crate) fn notify(&self, notice: Notice) {
        // The loss first: the application looks for losses only once the counter moved.
        if crate::node::LinkEvent::concerns(&notice) {
            let _ = self.port.losses.try_send(notice.clone());
        }
        self.port
            .signals
            .network_changes
            .fetch_add(1, Ordering::SeqCst);
        // Notices are hints for waiters that re-check state; a full channel loses nothing
        // they need.
        let _ = self.port.notices.try_send(notice);
        // Wake an application blocked on its deliveries: it learns of lost links without
        // polling for them (an idle federate then costs nothing between heartbeats).
        self.wake_app();
    }

    /// Wake an application blocked on its deliveries, once until it takes the wake-up.
    fn wake_app(&self) {
        self.port.signals.wake(&self.port.deliveries);
    }

    /// Move the application's waiting commands to `taken`, and wake a send that waits for
    /// the room this made.
    pub(crate) fn take_commands(&mut self) {
        drain_waiting(&self.port.commands, &mut self.taken);
        if self.port.signals.send_blocked.load(Ordering::SeqCst)
            && self.port.signals.send_blocked.swap(false, Ordering::SeqCst)
        {
            self.wake_app();
        }
    }
}

/// Why a command handed straight to an application's queue was not taken.
pub(crate) enum Refused {
    /// The queue holds its limit (the network pushes back): the command, given back.
    Full(AppCommand),
    /// The host has stopped.
    Gone,
}

/// Below this many waiting commands they are popped one by one, else drained at once.
const DRAIN_FROM: usize = 16;

/// Move the application's waiting commands to `taken`. A drain takes the channel's buffer
/// with it, so the next send allocates another: a federate in a ping-pong would allocate
/// once per message. A few commands are popped instead (the buffer stays); a burst is
/// drained under one lock.
fn drain_waiting(commands: &flume::Receiver<AppCommand>, taken: &mut VecDeque<AppCommand>) {
    let waiting = commands.len();
    if waiting >= DRAIN_FROM {
        taken.extend(commands.drain());
    } else {
        taken.extend(commands.try_iter().take(waiting));
    }
}

impl super::host::Host {
    /// Run the application's commands. Returns whether any ran.
    pub(crate) fn take_app_commands(&mut self, now: Time) -> bool {
        let Some(app) = self.app.as_mut() else {
            return false;
        };
        let mut progressed = false;
        for _ in 0..COMMANDS_PER_TURN {
            if app.taken.is_empty() {
                app.take_commands();
            }
            let Some(command) = app.taken.pop_front() else {
                break;
            };
            match command {
                AppCommand::Publish(frame) => {
                    if !self.router.can_publish() {
                        app.taken.push_front(AppCommand::Publish(frame));
                        break;
                    }
                    if let Err(e) = self.router.publish_encoded(now, frame) {
                        tracing::warn!(host = %self.name, "publish refused: {e}");
                    }
                }
                AppCommand::Subscribe(ids) => self.router.subscribe(now, &ids),
                AppCommand::Unsubscribe(ids) => self.router.unsubscribe(now, &ids),
                AppCommand::SetInterest(ids) => self.router.set_interest(now, &ids),
                AppCommand::NetworkInterest(reply) => {
                    let _ = reply.send(self.router.network_interest());
                }
                AppCommand::Manage(request, reply) => {
                    let id = self.router.manage(now, &request);
                    app.pending_manage.insert(id, reply);
                }
            }
            progressed = true;
        }
        progressed
    }

    /// Move deliveries to the application's channel until it is full, and registry
    /// answers to whoever asked.
    pub(crate) fn deliver(&mut self) -> bool {
        let Some(app) = self.app.as_mut() else {
            return false;
        };
        let mut answered = false;
        while let Some((id, response)) = self.router.poll_manage_reply() {
            if let Some(reply) = app.pending_manage.remove(&id) {
                let _ = reply.send(response);
            }
            answered = true;
        }
        let signals = &app.port.signals;
        if signals.delivery_blocked.load(Ordering::SeqCst) {
            return answered;
        }
        let mut progressed = answered;
        loop {
            // A batch given back is taken only for a frame: most turns deliver nothing.
            let mut frames = Vec::new();
            let mut bytes = 0;
            let full = loop {
                let Some(frame) = app
                    .held_delivery
                    .take()
                    .or_else(|| self.router.poll_delivery())
                else {
                    break false;
                };
                let len = frame.as_bytes().len();
                if !signals.has_room_for(frames.len(), bytes, len) {
                    app.held_delivery = Some(frame);
                    break true;
                }
                bytes += len;
                if frames.capacity() == 0 {
                    frames = signals.batch();
                }
                frames.push(frame);
            };
            if !frames.is_empty() {
                progressed = true;
                signals.entering(frames.len(), bytes);
                let count = frames.len();
                // The counts bound the channel. A gone application drops what arrives.
                if app
                    .port
                    .deliveries
                    .send(Delivery { frames, bytes })
                    .is_err()
                {
                    signals.took(count, bytes);
                    continue;
                }
            }
            if !full {
                return progressed;
            }
            signals.delivery_blocked.store(true, Ordering::SeqCst);
            // The application may have emptied the channel before it could see the flag;
            // check again so no wake-up is lost.
            let len = app.held_delivery.as_ref().map_or(0, |f| f.as_bytes().len());
            if !signals.has_room_for(0, 0, len) {
                return progressed;
            }
            signals.delivery_blocked.store(false, Ordering::SeqCst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::AppSignals;

    #[test]
    fn the_channel_is_bounded_in_frames_and_bytes_counting_the_batch_being_built() {
        let signals = AppSignals::new(4, 1000);
        // An empty channel takes one frame however large.
        assert!(signals.has_room_for(0, 0, 5000));
        assert!(signals.has_room_for(3, 300, 100));
        assert!(!signals.has_room_for(4, 400, 100), "a fifth frame");
        assert!(!signals.has_room_for(1, 950, 100), "past the byte limit");
        signals.entering(3, 600);
        assert!(!signals.has_room_for(1, 0, 100), "sent batches count too");
        assert!(!signals.has_room_for(0, 0, 500));
        assert!(signals.has_room_for(0, 0, 400));
        // Taking a batch frees its frames and bytes at once and says whether the loop
        // stopped for want of room.
        signals
            .delivery_blocked
            .store(true, std::sync::atomic::Ordering::SeqCst);
        assert!(signals.took(3, 600));
        assert!(!signals.took(0, 0), "the wake-up is owed once");
        assert!(signals.has_room_for(3, 900, 100));
    }
}
