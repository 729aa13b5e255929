//! The application's side of a node's channels to its host, shared by both drivings:
//! encoding publishes into frames, taking deliveries, notices and losses (see `AppSignals`).

use super::{Arrived, Attachment, LinkEvent, NodeConfig};
use crate::endpoint::Endpoint;
use crate::error::NetError;
use crate::event_loop::{AppCommand, AppPort, AppSignals, Delivery, Notice};
use crate::runtime::{DialConfig, HostConfig};
use bytes::BytesMut;
use std::collections::VecDeque;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use trellis_core::router::{PublishError, RouterConfig};
use trellis_core::wire::{
    DataFrame, DataHeader, FederationId, FrameArena, NodeId, TransportClass, UnstampedFrame,
    MAX_IDS_PER_FRAME,
};
use trellis_core::InterestId;
/// Link events held for the application; beyond it new ones are dropped. A node has few
/// links, each flap costs two events, and the ambassador reads them on every callback, so
/// only an application that stops calling in through 128 flaps could lose one.
const LINK_EVENTS: usize = 256;

/// What the application took from its host.
pub(super) struct Took {
    pub(super) frame: Option<DataFrame>,
    /// The loop stopped delivering for want of room in the channel: wake it.
    pub(super) wake_loop: bool,
    /// A wake-up was taken: a notice was posted since the application last looked.
    pub(super) woken: bool,
}

/// Frames the host handed over that the application has not read: the rest of the batch it
/// took last (see `AppSignals`), and the batches taken while a send waited for room.
#[derive(Default)]
pub(super) struct Pending {
    pub(super) frames: VecDeque<DataFrame>,
    /// Bytes of the batches a waiting send took since `frames` was last empty. With the
    /// frame count it bounds them: a send keeps at most the delivery limits again.
    pub(super) kept_bytes: usize,
}

/// The application's side of the channels to its host, shared by both drivings.
pub(super) struct AppClient {
    pub(super) commands: flume::Sender<AppCommand>,
    pub(super) deliveries: flume::Receiver<Delivery>,
    /// The loop's end of `deliveries`, to wake readers with (weak: the channel still
    /// closes when the loop stops).
    pub(super) wake_deliveries: flume::WeakSender<Delivery>,
    /// The rest of the batch the application took last, and what a blocked send kept.
    pub(super) pending: std::sync::Mutex<Pending>,
    pub(super) notices: flume::Receiver<Notice>,
    pub(super) losses: flume::Receiver<Notice>,
    pub(super) signals: Arc<AppSignals>,
    pub(super) federation: FederationId,
    pub(super) node_id: NodeId,
    pub(super) max_frame_size: usize,
    /// Frames are encoded here, one after another, and split off: no allocation per
    /// publish (see `FrameArena`).
    pub(super) arena: std::sync::Mutex<FrameArena>,
}

fn random_node_id() -> NodeId {
    use std::hash::BuildHasher;
    NodeId(std::collections::hash_map::RandomState::new().hash_one(std::process::id()))
}

impl AppClient {
    /// The host that runs this node: its router core, TLS, and where it dials or listens.
    pub(super) fn host_config(
        config: &NodeConfig,
        node_id: NodeId,
    ) -> Result<HostConfig, NetError> {
        let mut router =
            RouterConfig::federate(config.name.clone(), node_id, config.federation.clone());
        router.max_frame_size = config.max_frame_size;
        router.link_defaults = config.link.clone();
        let mut host = HostConfig::new(router);
        host.tls = config.tls.clone();
        match &config.attach {
            Attachment::Router(endpoint) => {
                let mut dial = DialConfig::parent(endpoint.clone(), config.federation.clone());
                dial.udp = config.udp;
                host.dial.push(dial);
            }
            Attachment::Plan { plan } => {
                let planned =
                    crate::plan::host_config(plan, host.router.clone(), &config.federation)?;
                host.listen = planned.listen;
                host.dial = planned.dial;
                host.accept = planned.accept;
                host.router.hosts_registry = plan.hosts_registry;
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
                if config.udp {
                    if let Endpoint::Tcp(addr) = listen {
                        host.listen
                            .push(Endpoint::Udp(std::net::SocketAddr::new(addr.ip(), 0)));
                    }
                }
            }
        }
        Ok(host)
    }

    /// The channels, the host's end of them, and the host to run.
    pub(super) fn new(config: &NodeConfig) -> Result<(AppClient, AppPort, HostConfig), NetError> {
        let node_id = random_node_id();
        let host = AppClient::host_config(config, node_id)?;
        // The event loop takes every waiting command at once and may hold them while the
        // network pushes back (`event_loop::app`): half in the channel, half taken, so no
        // more than `command_capacity` wait in all.
        let (commands, commands_rx) = flume::bounded(config.command_capacity.div_ceil(2));
        // Bounded by the frame and byte counts in `AppSignals`, which the loop checks before
        // it sends; each batch holds at least one frame.
        let (deliveries_tx, deliveries) = flume::unbounded();
        let (notices_tx, notices) = flume::bounded(1024);
        let (losses_tx, losses) = flume::bounded(LINK_EVENTS);
        let signals = Arc::new(AppSignals::new(
            config.delivery_capacity,
            config.delivery_limit_bytes,
        ));
        let wake_deliveries = deliveries_tx.downgrade();
        let port = AppPort {
            commands: commands_rx,
            deliveries: deliveries_tx,
            notices: notices_tx,
            losses: losses_tx,
            signals: signals.clone(),
        };
        let client = AppClient {
            commands,
            wake_deliveries,
            deliveries,
            pending: std::sync::Mutex::new(Pending::default()),
            notices,
            losses,
            signals,
            federation: FederationId::of(&config.federation),
            node_id,
            max_frame_size: trellis_core::wire::clamp_max_frame_size(config.max_frame_size),
            arena: std::sync::Mutex::new(FrameArena::default()),
        };
        Ok((client, port, host))
    }

    /// A breaker for this node's waits; `event_loop` is the loop a directly driven node's
    /// waits sleep in (a threaded node's sleep on the delivery channel).
    pub(super) fn wait_breaker(
        &self,
        event_loop: Option<Arc<crate::wake::Wakeup>>,
    ) -> super::WaitBreaker {
        super::WaitBreaker::new(
            self.signals.clone(),
            self.wake_deliveries.clone(),
            event_loop,
        )
    }

    /// Whether a [`super::WaitBreaker`] broke the wait: a waiting reader looks before it
    /// sleeps (a wake-up of the break may have been taken by a look that came before).
    pub(super) fn wait_broken(&self) -> bool {
        self.signals.wait_broken()
    }

    /// Whether a [`super::WaitBreaker`] broke a wait since the last look (clears the mark).
    pub(super) fn take_wait_broken(&self) -> bool {
        self.signals.take_wait_broken()
    }

    /// Check and encode on the caller's thread, so errors are reported to the caller and
    /// the event loop only stamps and routes.
    pub(super) fn encode(
        &self,
        ids: &[InterestId],
        class: TransportClass,
        priority: u8,
        payload: &[u8],
    ) -> Result<BytesMut, NetError> {
        self.encode_with(ids, class, priority, None, payload)
    }

    /// [`Client::encode`], as a keep-latest frame when `latest` is given.
    pub(super) fn encode_with(
        &self,
        ids: &[InterestId],
        class: TransportClass,
        priority: u8,
        latest: Option<trellis_core::wire::LatestKey>,
        payload: &[u8],
    ) -> Result<BytesMut, NetError> {
        let size = DataFrame::encoded_len_with(ids.len(), payload.len(), latest.is_some());
        self.check_publish(ids.len(), priority, size)?;
        let header = DataHeader {
            federation: self.federation,
            source: self.node_id,
            seq: 0,
            priority,
            class,
        };
        let mut arenas = self.arena.lock().unwrap_or_else(|e| e.into_inner());
        let arena = arenas.room_for(size);
        DataFrame::encode_with(arena, &header, latest, ids, payload);
        Ok(arena.split())
    }

    /// What every publish must be, checked on the caller's thread so errors reach it: some
    /// ids and not too many, a priority of 0 to 7, and a frame within the size limit.
    pub(super) fn check_publish(
        &self,
        id_count: usize,
        priority: u8,
        size: usize,
    ) -> Result<(), NetError> {
        if id_count == 0 {
            return Err(PublishError::NoIds.into());
        }
        if id_count > MAX_IDS_PER_FRAME {
            return Err(PublishError::TooManyIds(id_count).into());
        }
        if priority > 7 {
            return Err(PublishError::BadPriority(priority).into());
        }
        if size > self.max_frame_size {
            return Err(PublishError::TooLarge {
                size,
                max: self.max_frame_size,
            }
            .into());
        }
        Ok(())
    }

    /// Take a frame the caller encoded whole after the checks any publish passes, and
    /// write this node's federation in: the event loop stamps the rest, as it does the
    /// frames encoded here. The frame is not copied.
    pub(super) fn take_frame(&self, mut frame: UnstampedFrame) -> Result<BytesMut, NetError> {
        self.check_publish(frame.id_count(), frame.priority(), frame.len())?;
        frame.set_federation(self.federation);
        Ok(frame.into_bytes())
    }

    /// What happened to this node's links, oldest first, once each.
    pub(super) fn take_link_event(&self) -> Option<LinkEvent> {
        while let Ok(notice) = self.losses.try_recv() {
            if let Some(event) = LinkEvent::of(notice) {
                return Some(event);
            }
        }
        None
    }

    /// Reliable messages found missing since the last call, by source.
    pub(super) fn take_reliable_losses(&self) -> Vec<(NodeId, u64)> {
        if self.signals.reliable_loss_reports.load(Ordering::SeqCst) == 0 {
            return Vec::new();
        }
        self.signals.take_reliable_losses()
    }

    /// Moves whenever a reliable loss is counted.
    pub(super) fn reliable_loss_reports(&self) -> u64 {
        self.signals.reliable_loss_reports.load(Ordering::SeqCst)
    }

    /// Moves whenever what the network wants from this node may have changed.
    pub(super) fn network_interest_changes(&self) -> u64 {
        self.signals.network_changes.load(Ordering::SeqCst)
    }

    /// Whether the loop has handed over deliveries not taken yet.
    pub(super) fn has_deliveries(&self) -> bool {
        !self.deliveries.is_empty()
    }

    /// The next frame of the batch taken last, else of the next batch waiting, without
    /// waiting.
    pub(super) fn try_take(&self) -> Result<Took, NetError> {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        self.take_from(&mut pending.frames)
    }

    /// `try_take` for the node's one reader: the rest of the batch moves to `arrived`
    /// under the same lock, and the reader takes it from there without the lock.
    pub(super) fn try_take_keeping(&self, arrived: &mut Arrived) -> Result<Took, NetError> {
        debug_assert!(arrived.0.is_empty(), "what was kept is taken first");
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let took = self.take_from(&mut pending.frames)?;
        // The buffers trade places: `pending` keeps `arrived`'s empty one, which goes back
        // to the loop with the next batch as any emptied buffer does.
        std::mem::swap(&mut pending.frames, &mut arrived.0);
        Ok(took)
    }

    pub(super) fn take_from(&self, pending: &mut VecDeque<DataFrame>) -> Result<Took, NetError> {
        if let Some(frame) = pending.pop_front() {
            return Ok(Took {
                frame: Some(frame),
                wake_loop: false,
                woken: false,
            });
        }
        // What wake-ups taken on the way owe: a wake-up ahead of frames does not hide them,
        // and taking one may be what cleared the loop's "delivery blocked" mark, so the loop
        // is owed its wake-up as if a batch had been taken. (Dropping that once left a
        // subscriber's loop asleep with its channel empty until a timer, and its router cut
        // it as a slow consumer.)
        let mut woken = false;
        let mut wake_loop = false;
        loop {
            match self.deliveries.try_recv() {
                Ok(delivery) if delivery.frames.is_empty() => {
                    let took = self.keep_batch(pending, delivery);
                    woken |= took.woken;
                    wake_loop |= took.wake_loop;
                }
                Ok(delivery) => {
                    let mut took = self.keep_batch(pending, delivery);
                    took.woken |= woken;
                    took.wake_loop |= wake_loop;
                    return Ok(took);
                }
                Err(flume::TryRecvError::Empty) => {
                    return Ok(Took {
                        frame: None,
                        wake_loop,
                        woken,
                    })
                }
                Err(flume::TryRecvError::Disconnected) => return Err(NetError::Stopped),
            }
        }
    }

    /// Keep a batch received while waiting and give its first frame.
    pub(super) fn took_batch(&self, delivery: Delivery) -> Took {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        self.keep_batch(&mut pending.frames, delivery)
    }

    pub(super) fn keep_batch(&self, pending: &mut VecDeque<DataFrame>, delivery: Delivery) -> Took {
        let mut took = self.keep(pending, delivery);
        took.frame = pending.pop_front();
        took
    }

    /// Move a delivery's frames behind those pending, out of the channel's count.
    pub(super) fn keep(&self, pending: &mut VecDeque<DataFrame>, delivery: Delivery) -> Took {
        let woken = delivery.frames.is_empty();
        if woken {
            self.signals.took_wake();
        }
        let wake_loop = self.signals.took(delivery.frames.len(), delivery.bytes);
        // The emptied buffer goes back to the loop for a later delivery.
        let emptied = if pending.is_empty() {
            Vec::from(std::mem::replace(pending, VecDeque::from(delivery.frames)))
        } else {
            let mut frames = delivery.frames;
            pending.extend(frames.drain(..));
            frames
        };
        self.signals.give_back(emptied);
        Took {
            frame: None,
            wake_loop,
            woken,
        }
    }

    /// The endpoint `connect` waits to reach: the router, or a planned node's first dial.
    /// `None` when the node only listens.
    pub(super) fn first_dial(config: &NodeConfig) -> Option<Endpoint> {
        match &config.attach {
            Attachment::Router(endpoint) => Some(endpoint.clone()),
            Attachment::Plan { plan } => plan
                .dial
                .first()
                .and_then(|d| d.address.to_string().parse().ok()),
            Attachment::Peers { .. } => None,
        }
    }

    /// What `connect` waits for: the first link up, or a dial that gave up.
    pub(super) fn connect_outcome(
        &self,
        notice: Notice,
        last_failure: &mut Option<String>,
    ) -> Option<Result<(), String>> {
        match notice {
            Notice::LinkUp => Some(Ok(())),
            Notice::DialFailed { why, gave_up: true } | Notice::TlsRefused(why) => Some(Err(why)),
            Notice::DialFailed { why, .. } | Notice::LinkDown(why) => {
                *last_failure = Some(why);
                None
            }
            Notice::InterestChanged | Notice::MembershipLost(_) => None,
        }
    }
}

/// Default priority: 4 for reliable traffic, 0 (first to shed) for best effort.
pub(super) fn default_priority(class: TransportClass) -> u8 {
    class.default_priority()
}

pub(super) fn connect_error(endpoint: &Endpoint, why: String) -> NetError {
    NetError::Connect {
        endpoint: endpoint.clone(),
        why,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::Message;
    use super::*;
    use crate::event_loop::Refused;
    use trellis_core::router::PublishError;
    use trellis_core::wire::LatestKey;

    /// A node's configuration for checks of its channels: nothing connects.
    pub(in crate::node) fn checks_config() -> NodeConfig {
        let router = Endpoint::Tcp(std::net::SocketAddr::from(([127, 0, 0, 1], 9)));
        NodeConfig::child_of("node", "checks", router)
    }

    fn client(max_frame_size: usize) -> AppClient {
        let mut config = checks_config();
        config.max_frame_size = max_frame_size;
        AppClient::new(&config)
            .expect("channels only: nothing connects")
            .0
    }

    fn unstamped(ids: &[u32], payload: &[u8], latest: Option<LatestKey>) -> UnstampedFrame {
        let class = TransportClass::Reliable;
        let mut arena = BytesMut::new();
        let priority = class.default_priority();
        UnstampedFrame::encode(&mut arena, class, priority, latest, ids, |out| {
            out.extend_from_slice(payload)
        })
    }

    /// Deliver one batch of frames numbered `seqs` to the application, as the loop does:
    /// counted in, then sent.
    pub(in crate::node) fn deliver(
        deliveries: &flume::Sender<Delivery>,
        signals: &AppSignals,
        seqs: impl IntoIterator<Item = u64>,
    ) {
        let frames: Vec<DataFrame> = (seqs.into_iter())
            .map(|seq| {
                let frame = unstamped(&[1], &seq.to_le_bytes(), None).into_bytes();
                DataFrame::from_encoded(frame, NodeId(7), seq, |_| 1).expect("encoded")
            })
            .collect();
        let bytes = frames.iter().map(DataFrame::wire_len).sum();
        signals.entering(frames.len(), bytes);
        let sent = deliveries.send(Delivery { frames, bytes });
        sent.expect("the client is alive");
    }

    /// A frame the caller encoded whole becomes, with this node's federation written in,
    /// the frame the node encodes from the same publish.
    #[test]
    fn a_frame_encoded_whole_is_taken_as_the_node_would_encode_it() {
        let client = client(1 << 20);
        let latest = LatestKey {
            key: 1,
            attributes: 2,
        };
        for latest in [None, Some(latest)] {
            let class = TransportClass::Reliable;
            let priority = class.default_priority();
            let encoded = (client.encode_with(&[4, 5], class, priority, latest, b"payload"))
                .expect("a valid publish");
            let taken = (client.take_frame(unstamped(&[4, 5], b"payload", latest)))
                .expect("a valid publish");
            // The node's own frame carries its id as the source already; the loop stamps
            // it into both.
            let stamp = |frame| DataFrame::from_encoded(frame, client.node_id, 1, |_| 1);
            assert_eq!(stamp(taken).unwrap(), stamp(encoded).unwrap());
        }
    }

    /// The loop marked its deliveries blocked (the channel was full) and went to sleep; a
    /// notice's wake-up sits in the channel. The application that takes it clears the mark,
    /// so it must wake the loop: nothing else will while the link's socket is paused.
    #[test]
    fn taking_a_wake_up_that_cleared_the_blocked_mark_wakes_the_loop() {
        let config = checks_config();
        let (client, port, _) = AppClient::new(&config).expect("channels only");
        let signals = port.signals.clone();
        let app = crate::event_loop::AppState::new(port);
        signals.delivery_blocked.store(true, Ordering::SeqCst);
        app.notify(Notice::InterestChanged);
        let took = client.try_take().expect("the loop's end is alive");
        assert!(took.woken, "the notice's wake-up was taken");
        assert!(took.frame.is_none());
        assert!(took.wake_loop, "the blocked loop is owed its wake-up");
        assert!(!signals.delivery_blocked.load(Ordering::SeqCst));
        let again = client.try_take().expect("the loop's end is alive");
        assert!(!again.wake_loop && !again.woken, "owed once");
    }

    /// The federate ambassador keeps the rest of a batch and takes it without the lock;
    /// frames still come in the order the loop delivered them, whether taken from what was
    /// kept, from the node's batch, or after a wait.
    #[test]
    fn frames_kept_by_the_one_reader_come_in_delivery_order() {
        let config = checks_config();
        let (client, port, _) = AppClient::new(&config).expect("channels only");
        deliver(&port.deliveries, &port.signals, 1..=3);
        deliver(&port.deliveries, &port.signals, 4..=5);
        let mut arrived = Arrived::default();
        let mut seen = Vec::new();
        let take = |arrived: &mut Arrived, seen: &mut Vec<u64>| {
            let message = match arrived.pop() {
                Some(message) => Some(message),
                None => (client.try_take_keeping(arrived).expect("alive").frame).map(Message),
            };
            message.map(|m| seen.push(m.seq())).is_some()
        };
        assert!(take(&mut arrived, &mut seen));
        assert_eq!(arrived.0.len(), 2, "the rest of the first batch is kept");
        while take(&mut arrived, &mut seen) {}
        assert_eq!(seen, [1, 2, 3, 4, 5]);
        // A batch taken by a wait (as `recv_or_wake` does) leaves its rest with the node.
        deliver(&port.deliveries, &port.signals, 6..=8);
        let delivery = client.deliveries.try_recv().expect("delivered");
        let first = client.took_batch(delivery).frame.expect("a batch of 3");
        seen.push(first.seq());
        while take(&mut arrived, &mut seen) {}
        assert_eq!(seen, [1, 2, 3, 4, 5, 6, 7, 8]);
    }

    /// A node driven on its caller's thread queues straight into its loop's queue, which
    /// holds its limit and gives back the command past it (the caller then drives the
    /// network until there is room), as the channel it replaces did.
    #[test]
    fn commands_queued_straight_to_the_loop_stop_at_the_limit() {
        let config = checks_config();
        let (_client, port, _) = AppClient::new(&config).expect("channels only");
        let mut app = crate::event_loop::AppState::new(port);
        let publish = || AppCommand::Publish(BytesMut::from(&b"frame"[..]));
        for _ in 0..3 {
            assert!(app.push_command(publish(), 3).is_ok());
        }
        match app.push_command(publish(), 3) {
            Err(Refused::Full(AppCommand::Publish(frame))) => assert_eq!(&frame[..], b"frame"),
            _ => panic!("the fourth command is given back whole"),
        }
    }

    /// The checks a publish passes stay when the caller encodes the frame.
    #[test]
    fn a_frame_encoded_whole_passes_the_checks_of_any_publish() {
        let client = client(1 << 10);
        let refused = |frame| match client.take_frame(frame) {
            Err(NetError::Publish(e)) => e,
            other => panic!("refused as a publish, got {other:?}"),
        };
        assert!(matches!(
            refused(unstamped(&[], b"x", None)),
            PublishError::NoIds
        ));
        let ids: Vec<u32> = (0..=MAX_IDS_PER_FRAME as u32).collect();
        assert!(matches!(
            refused(unstamped(&ids, b"x", None)),
            PublishError::TooManyIds(n) if n == MAX_IDS_PER_FRAME + 1
        ));
        assert!(matches!(
            refused(unstamped(&[1], &[0; 2 << 10], None)),
            PublishError::TooLarge { .. }
        ));
    }
}
