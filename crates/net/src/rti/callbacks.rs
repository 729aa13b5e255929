//! Callbacks: the network's messages taken in, and the federate's callbacks handed out
//! (HLA's evokeCallback and evokeMultipleCallbacks, and an async stream with the thread
//! driver).

use super::{reporting, RtiAmbassador, RtiError};
use crate::node::Message;
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;

impl RtiAmbassador {
    fn take_message(&mut self, message: Message) -> Result<(), RtiError> {
        self.tell_time();
        if let Some(joined) = self.joined.as_mut() {
            self.senders.learn(message.source(), message.payload());
            joined.federate.handle_data(message.into_frame());
        }
        self.flush_actions()
    }

    /// The next callback, doing the network's work for at most `timeout` while none is
    /// ready (HLA's evokeCallback).
    pub fn evoke_callback(&mut self, timeout: Duration) -> Result<Option<Callback>, RtiError> {
        // A callback ready at once costs no clock read: at full rate this runs once per
        // message, and the clock was about 5 % of the receiving federate's time. Before a
        // wait, which reads the sockets itself, only what has arrived already is looked at:
        // reading them first too cost a system call per callback (a ping-pong's every hop).
        // The callback is returned as it came (not unwrapped and wrapped again), so it is
        // written once into the caller's place: each move of it cost ~10 % of this thread.
        let waits = !timeout.is_zero();
        let now = self.callback_now(!waits);
        if !waits || !matches!(now, Ok(None)) {
            return now;
        }
        // A federate waiting for its grant polls longer before it sleeps: the grant is due
        // within a round trip, and a wake-up would cost about as much again.
        let advancing = (self.joined.as_ref()).is_some_and(|j| j.federate.is_time_advancing());
        self.link.expect_reply(advancing);
        // One clock read per wait: the first slice is the whole timeout.
        let deadline = Instant::now() + timeout;
        let mut left = timeout;
        loop {
            let slice = self.watch_slice(left);
            match self.link.recv_or_wake(&mut self.arrived, slice)? {
                Some(message) => self.take_message(message)?,
                None if left.is_zero() || Instant::now() >= deadline => return Ok(None),
                None => {}
            }
            let now = self.callback_now(true);
            // Broken by another thread's service call (`wait_breaker`): it goes first.
            if !matches!(now, Ok(None)) || self.link.take_wait_broken() {
                return now;
            }
            left = deadline.saturating_duration_since(Instant::now());
        }
    }

    /// What another thread uses to end a wait of `evoke_callback` early, so a service it
    /// calls on this federate (behind the caller's lock) need not wait for the wait.
    pub fn wait_breaker(&self) -> crate::node::WaitBreaker {
        self.link.wait_breaker()
    }

    /// Whether callbacks are queued already (HLA's "callbacks pending" after an evoke),
    /// without reading the network.
    pub fn callbacks_queued(&self) -> bool {
        self.joined
            .as_ref()
            .is_some_and(|j| j.federate.has_callbacks())
    }

    /// A callback that is ready now: queued already, or made by the messages that arrived
    /// (with `read_sockets`, the sockets are read for them once more).
    fn callback_now(&mut self, read_sockets: bool) -> Result<Option<Callback>, RtiError> {
        loop {
            if self.may_have_callback() {
                let ready = self.ready_callback();
                if !matches!(ready, Ok(None)) {
                    return ready;
                }
            }
            let arrived = if read_sockets {
                self.link.recv_or_wake(&mut self.arrived, Duration::ZERO)?
            } else {
                self.link.try_recv(&mut self.arrived)?
            };
            match arrived {
                Some(message) => self.take_message(message)?,
                None => return self.ready_callback(),
            }
        }
    }

    /// Whether [`RtiAmbassador::ready_callback`] may find anything before the network is
    /// read. With nothing queued and the advisories not watched it can only find a lost
    /// link or lost messages, and those are still found after the read (before the read's
    /// own callbacks, or before answering that none is ready): the node's counters are
    /// then looked at once per callback, not twice.
    fn may_have_callback(&self) -> bool {
        self.joined
            .as_ref()
            .is_some_and(|j| j.federate.has_callbacks() || j.federate.wants_network_interest())
    }

    /// The next callback without reading the network: the membership's and reliable
    /// losses' first, then the federate's.
    fn ready_callback(&mut self) -> Result<Option<Callback>, RtiError> {
        if let Some(lost) = self.watch_connection() {
            return Ok(Some(lost));
        }
        if let Some(lost) = self.watch_reliable_losses() {
            return Ok(Some(lost));
        }
        self.watch_network_interest()?;
        self.tell_time();
        self.tell_mom()?;
        let Some(joined) = self.joined.as_mut() else {
            return Ok(None);
        };
        let callback = joined.federate.poll_callback();
        if let Some(callback) = &callback {
            if joined.federate.reports_invocations() {
                reporting::report_callback(&mut joined.federate, callback, self.wall.unix_nanos());
                self.flush_actions()?;
            }
        }
        // A connectionLost from the federate itself (the federation resigned it) ends the
        // membership here too. Any other callback is returned as it is, not moved through a
        // function of its own: this runs once per reflect.
        match callback {
            Some(Callback::ConnectionLost { fault }) => Ok(Some(self.lose_membership(fault))),
            other => Ok(other),
        }
    }

    /// Hand back a callback the application is done with: the list of values of a reflect
    /// or an interaction serves a later one, and receiving allocates nothing in steady state
    /// (`tests/federate_allocations.rs`). Optional: a callback not handed back is merely not
    /// reused.
    pub fn recycle(&mut self, mut callback: Callback) {
        self.recycle_values_of(&mut callback);
    }

    /// [`RtiAmbassador::recycle`] where the callback lies: its list of values is taken, and
    /// the callback, left without values, is not moved (the C ABI hands back from its slot).
    pub fn recycle_values_of(&mut self, callback: &mut Callback) {
        if let Some(joined) = self.joined.as_mut() {
            joined.federate.recycle_values_of(callback);
        }
    }

    /// Every callback ready within `timeout`, at most `max`.
    pub fn evoke_multiple_callbacks(
        &mut self,
        timeout: Duration,
        max: usize,
    ) -> Result<Vec<Callback>, RtiError> {
        let deadline = Instant::now() + timeout;
        let mut out = Vec::new();
        while out.len() < max {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.evoke_callback(left)? {
                Some(callback) => out.push(callback),
                None => break,
            }
        }
        Ok(out)
    }

    /// The next callback, awaited (thread driver only).
    pub async fn next_callback(&mut self) -> Result<Callback, RtiError> {
        loop {
            if let Some(callback) = self.ready_callback()? {
                return Ok(callback);
            }
            let message = match self.link.recv_async(&mut self.arrived).await {
                Some(received) => received?,
                None => return Err(RtiError::AsyncNeedsThreadDriver),
            };
            self.take_message(message)?;
        }
    }
}
