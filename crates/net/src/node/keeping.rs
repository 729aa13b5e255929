//! A send that waits for room in the command channel keeps what the host delivers
//! meanwhile, within the delivery limits once more, so the node goes on reading its socket
//! while its application is blocked on the network (see `AppClient::room_to_keep`).

use super::client::Pending;
use super::{AppClient, Took};
use crate::error::NetError;
use crate::event_loop::{AppCommand, AppSignals, Delivery};
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::Ordering;
use std::task::Poll;
use std::time::Duration;

/// A thread or task counted in `AppSignals::readers_waiting` while it lives.
pub(super) struct WaitingReader<'a>(&'a AppSignals);

impl Drop for WaitingReader<'_> {
    fn drop(&mut self) {
        let before = self.0.readers_waiting.fetch_sub(1, Ordering::SeqCst);
        debug_assert!(before > 0, "each waiting reader is counted once");
    }
}

/// How long a send waiting for room waits for a delivery or the loop's wake-up before it
/// tries again: the wake-up goes to whichever thread reads the node, not always the sender.
const SEND_RECHECK: Duration = Duration::from_millis(1);

impl AppClient {
    /// Whether a send waiting for room may keep another delivery: while it waits the
    /// application reads nothing, and a host whose deliveries are not taken stops reading
    /// its socket. Two federates publishing to each other through a router then stall each
    /// other until the router cuts one as a slow consumer. So a waiting send keeps what
    /// arrives, up to the delivery limits once more (and a batch more for each other thread
    /// sending at the same moment); past them it waits as before.
    fn room_to_keep(&self) -> bool {
        let pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let (capacity, limit_bytes) = self.signals.delivery_limits();
        if pending.frames.is_empty() {
            return true;
        }
        pending.frames.len() < capacity && pending.kept_bytes < limit_bytes
    }

    /// Whether a send waiting for room may take the next delivery: there is room to keep
    /// it, and no other thread waits for deliveries (it would sleep through what was kept).
    fn may_keep(&self) -> bool {
        self.signals.readers_waiting.load(Ordering::SeqCst) == 0 && self.room_to_keep()
    }

    /// Take the next delivery into the pending frames for a send that waits for room (see
    /// `room_to_keep`), waiting up to `wait` for one. The pending lock is held from the
    /// channel to the queue, so frames enter it in the order they were delivered whichever
    /// thread moves them (a reader's `try_take` waits meanwhile: at most `SEND_RECHECK`).
    /// Whether one was kept, and whether it cleared the loop's blocked mark.
    fn keep_next(&self, wait: Duration) -> Result<Option<Took>, NetError> {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        let delivery = match self.deliveries.recv_timeout(wait) {
            Ok(delivery) => delivery,
            Err(flume::RecvTimeoutError::Timeout) => return Ok(None),
            Err(flume::RecvTimeoutError::Disconnected) => return Err(NetError::Stopped),
        };
        Ok(Some(self.keep_counted(&mut pending, delivery)))
    }

    /// Keep `delivery` for a send that waits for room, counting its bytes toward the bound
    /// (`room_to_keep`); the count starts again when it keeps into an empty queue.
    fn keep_counted(&self, pending: &mut Pending, delivery: Delivery) -> Took {
        if pending.frames.is_empty() {
            pending.kept_bytes = 0;
        }
        pending.kept_bytes += delivery.bytes;
        self.keep(&mut pending.frames, delivery)
    }

    /// Send `command` to a loop on another thread. While the channel is full (the network
    /// pushes back), what arrives meanwhile is kept for the application within a bound (see
    /// `room_to_keep`): the loop must go on reading the socket that brings it. `wake_loop`
    /// wakes the loop: it must take the commands, and deliver again once a kept delivery
    /// cleared its blocked mark.
    pub(super) fn send_keeping(
        &self,
        mut command: AppCommand,
        wake_loop: &dyn Fn(),
    ) -> Result<(), NetError> {
        loop {
            match self.commands.try_send(command) {
                Ok(()) => break,
                Err(flume::TrySendError::Full(back)) => command = back,
                Err(flume::TrySendError::Disconnected(_)) => return Err(NetError::Stopped),
            }
            wake_loop();
            if !self.may_keep() {
                let sent = self.commands.send(command);
                sent.map_err(|_| NetError::Stopped)?;
                break;
            }
            // Marked before the next try, so room the loop makes after it is not missed:
            // the loop wakes us (an empty delivery) when it takes commands and sees it.
            if !self.signals.send_blocked.swap(true, Ordering::SeqCst) {
                continue;
            }
            // Bounded: another thread reading this node may take the wake-up.
            if let Some(took) = self.keep_next(SEND_RECHECK)? {
                if took.wake_loop {
                    wake_loop();
                }
                // Another thread began to wait for deliveries (it counts itself before
                // it looks at what is kept, so it saw this one or is counted now): it
                // is woken to look, and it reads from here on.
                if self.signals.readers_waiting.load(Ordering::SeqCst) > 0 {
                    self.wake_readers();
                    let sent = self.commands.send(command);
                    sent.map_err(|_| NetError::Stopped)?;
                    break;
                }
            }
        }
        self.signals.send_blocked.store(false, Ordering::SeqCst);
        Ok(())
    }

    /// [`AppClient::send_keeping`] for async code: waits for room without blocking the
    /// thread, and keeps what arrives meanwhile within the same bound. The send and the
    /// delivery channel are polled together: the send's future is never dropped before it
    /// completes (the command would go with it), and each delivery moves into the pending
    /// frames under their lock within one poll, so they stay in delivery order. Once it may
    /// keep no more (the bound, or another reader waits) it only waits for room, as the
    /// blocking send does.
    pub(super) async fn send_keeping_async(
        &self,
        command: AppCommand,
        wake_loop: &(dyn Fn() + Sync),
    ) -> Result<(), NetError> {
        let command = match self.commands.try_send(command) {
            Ok(()) => return Ok(()),
            Err(flume::TrySendError::Full(back)) => back,
            Err(flume::TrySendError::Disconnected(_)) => return Err(NetError::Stopped),
        };
        wake_loop();
        let mut sending = self.commands.send_async(command);
        let mut arriving = Some(self.deliveries.recv_async());
        std::future::poll_fn(|cx| loop {
            if let Poll::Ready(sent) = Pin::new(&mut sending).poll(cx) {
                return Poll::Ready(sent.map_err(|_| NetError::Stopped));
            }
            if !self.may_keep() {
                // Dropped: its waker must not take a wake-up meant for a waiting reader.
                arriving = None;
            }
            let Some(next) = arriving.as_mut() else {
                return Poll::Pending;
            };
            let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            let delivery = match Pin::new(next).poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(Err(_)) => return Poll::Ready(Err(NetError::Stopped)),
                Poll::Ready(Ok(delivery)) => delivery,
            };
            let took = self.keep_counted(&mut pending, delivery);
            drop(pending);
            if took.wake_loop {
                wake_loop();
            }
            if self.signals.readers_waiting.load(Ordering::SeqCst) > 0 {
                // A reader began to wait after it looked at what was kept: it looks again.
                self.wake_readers();
            }
            arriving = Some(self.deliveries.recv_async());
        })
        .await
    }

    /// Wake the threads blocked on the delivery channel (once until one takes the wake-up,
    /// as the loop's notices do): frames were kept for them outside it.
    fn wake_readers(&self) {
        if let Some(deliveries) = self.wake_deliveries.upgrade() {
            self.signals.wake(&deliveries);
        }
    }

    /// Count the caller among those blocked on the delivery channel until the guard goes;
    /// taken before the caller looks at what is pending (see `send_keeping`).
    pub(super) fn waiting_reader(&self) -> WaitingReader<'_> {
        self.signals.readers_waiting.fetch_add(1, Ordering::SeqCst);
        WaitingReader(&self.signals)
    }

    /// Keep the deliveries waiting in the channel while there is room (see
    /// `room_to_keep`): a directly driven node's send that waits for room calls this
    /// between its polls. Returns whether a kept one cleared the loop's blocked mark.
    pub(super) fn keep_waiting(&self) -> Result<bool, NetError> {
        let mut wake_loop = false;
        while self.room_to_keep() {
            match self.keep_next(Duration::ZERO)? {
                Some(took) => wake_loop |= took.wake_loop,
                None => break,
            }
        }
        Ok(wake_loop)
    }
}

#[cfg(test)]
mod tests {
    use super::super::client::tests::{checks_config, deliver};
    use super::*;
    use bytes::BytesMut;
    use std::sync::Arc;
    use std::time::Instant;
    use trellis_core::wire::DataFrame;

    /// The cycle that cut federates publishing to each other: the application waits for
    /// room in the command channel, and the loop (standing in for the network, which
    /// pushes back until this node reads) makes room only once the application took what it
    /// delivered. The waiting send takes the deliveries and keeps them, in order.
    fn a_waiting_send_keeps(send: impl FnOnce(&AppClient, AppCommand) -> Result<(), NetError>) {
        let mut config = checks_config();
        config.command_capacity = 2;
        let (client, port, _) = AppClient::new(&config).expect("channels only");
        let publish = || AppCommand::Publish(BytesMut::from(&b"frame"[..]));
        assert!(client.commands.try_send(publish()).is_ok(), "room for one");
        let (deliveries, signals) = (port.deliveries.clone(), port.signals.clone());
        let mut app = crate::event_loop::AppState::new(port);
        let batches: Vec<Vec<u64>> = vec![vec![1, 2], vec![3], vec![4, 5, 6]];
        let network = std::thread::spawn(move || {
            for batch in batches {
                deliver(&deliveries, &signals, batch);
            }
            let deadline = Instant::now() + Duration::from_secs(10);
            while !deliveries.is_empty() && Instant::now() < deadline {
                std::thread::yield_now();
            }
            let taken = deliveries.is_empty();
            // Room for the send either way, so a failing test ends.
            app.take_commands();
            // The loop's end lives on with the result until the join.
            (taken, app)
        });
        send(&client, publish()).expect("the loop's end is alive");
        let (taken, _app) = network.join().expect("no panic");
        assert!(
            taken,
            "the deliveries were taken while the send waited for room"
        );
        let pending = client.pending.lock().expect("not poisoned");
        let seqs: Vec<u64> = pending.frames.iter().map(DataFrame::seq).collect();
        assert_eq!(seqs, [1, 2, 3, 4, 5, 6], "kept in delivery order");
        assert!(!client.signals.send_blocked.load(Ordering::SeqCst));
    }

    #[test]
    fn a_send_waiting_for_room_keeps_what_arrives_meanwhile() {
        a_waiting_send_keeps(|client, command| client.send_keeping(command, &|| {}));
    }

    /// The same for a send awaited in async code (`Node::publish_async`), whose future
    /// may move to another thread.
    #[test]
    fn an_awaited_send_waiting_for_room_keeps_what_arrives_meanwhile() {
        a_waiting_send_keeps(|client, command| {
            let sending = client.send_keeping_async(command, &|| {});
            fn sendable<F: Future + Send>(future: F) -> F {
                future
            }
            block_on(sendable(sending))
        });
    }

    /// The socket tests' executor.
    mod executor {
        include!("../../tests/common/block_on.rs");
    }
    use executor::block_on;

    /// Two sends waiting for room on two threads keep deliveries in the order they were
    /// delivered: each moves one from the channel to the queue under the queue's lock.
    #[test]
    fn sends_waiting_on_two_threads_keep_deliveries_in_order() {
        let mut config = checks_config();
        config.command_capacity = 2;
        let (client, port, _) = AppClient::new(&config).expect("channels only");
        let client = Arc::new(client);
        let publish = || AppCommand::Publish(BytesMut::from(&b"frame"[..]));
        assert!(client.commands.try_send(publish()).is_ok(), "room for one");
        let senders: Vec<_> = (0..2)
            .map(|_| {
                let client = client.clone();
                std::thread::spawn(move || client.send_keeping(publish(), &|| {}))
            })
            .collect();
        const DELIVERIES: u64 = 500;
        for seq in 1..=DELIVERIES {
            deliver(&port.deliveries, &port.signals, [seq]);
        }
        let deadline = Instant::now() + Duration::from_secs(10);
        while !port.deliveries.is_empty() {
            assert!(Instant::now() < deadline, "the waiting sends kept nothing");
            std::thread::yield_now();
        }
        let mut app = crate::event_loop::AppState::new(port);
        for sender in senders {
            while !sender.is_finished() {
                assert!(Instant::now() < deadline, "a send never found room");
                app.take_commands();
                std::thread::yield_now();
            }
            sender.join().expect("no panic").expect("sent");
        }
        let pending = client.pending.lock().expect("not poisoned");
        let seqs: Vec<u64> = pending.frames.iter().map(DataFrame::seq).collect();
        assert_eq!(seqs, (1..=DELIVERIES).collect::<Vec<_>>());
    }

    /// A send waiting for room keeps nothing while another thread waits on the delivery
    /// channel (it counts itself before it looks at what is pending, as
    /// `Node::recv_or_wake` does); a reader that began to wait after a keep is woken to
    /// look at what was kept.
    #[test]
    fn a_waiting_send_leaves_deliveries_to_a_waiting_reader() {
        let config = checks_config();
        let (client, port, _) = AppClient::new(&config).expect("channels only");
        assert!(client.may_keep(), "no reader waits");
        let counted = client.waiting_reader();
        assert!(
            !client.may_keep(),
            "a reader waits: the send leaves deliveries to it"
        );
        client.wake_readers();
        client.wake_readers();
        assert_eq!(port.deliveries.len(), 1, "one wake-up until it is taken");
        let wake = client.deliveries.try_recv().expect("the wake-up");
        assert!(client.took_batch(wake).woken);
        drop(counted);
        assert!(client.may_keep(), "the reader stopped waiting");
    }

    /// A send waiting for room keeps at most the delivery limits again: past them it waits
    /// without reading, as any send did before.
    #[test]
    fn a_waiting_send_keeps_no_more_than_the_delivery_limits() {
        let mut config = checks_config();
        config.delivery_capacity = 3;
        let (client, port, _) = AppClient::new(&config).expect("channels only");
        for seq in 1..=5u64 {
            deliver(&port.deliveries, &port.signals, [seq]);
        }
        assert!(
            !client.keep_waiting().expect("alive"),
            "the loop was not blocked"
        );
        assert_eq!(client.pending.lock().expect("not poisoned").frames.len(), 3);
        assert_eq!(port.deliveries.len(), 2, "the rest waits in the channel");
    }
}
