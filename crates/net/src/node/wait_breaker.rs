//! [`WaitBreaker`]: cuts a node's wait for messages short from another thread.
//!
//! A program may wait for messages on one thread (an HLA federate's evoke, or the callback
//! thread of `HLA_IMMEDIATE`) while another calls services on the same federate (its
//! simulation loop sending updates). The waiting thread holds the federate while it waits,
//! so without a way to end the wait the service would wait for it: up to the evoke's whole
//! timeout.

use crate::event_loop::{AppSignals, Delivery};
use crate::wake::Wakeup;
use std::sync::Arc;

/// Ends a node's current wait for messages, or its next one if none is under way: it
/// returns as woken (`recv_or_wake` gives `None`), and the node's `take_wait_broken` says
/// why. Cheap to clone; harmless once the node is gone.
#[derive(Clone)]
pub struct WaitBreaker {
    signals: Arc<AppSignals>,
    /// The delivery channel a threaded node's wait sleeps on (weak: it still closes when
    /// the loop stops).
    deliveries: flume::WeakSender<Delivery>,
    /// The event loop a directly driven node's wait sleeps in, which no delivery wakes.
    event_loop: Option<Arc<Wakeup>>,
}

impl WaitBreaker {
    pub(super) fn new(
        signals: Arc<AppSignals>,
        deliveries: flume::WeakSender<Delivery>,
        event_loop: Option<Arc<Wakeup>>,
    ) -> WaitBreaker {
        WaitBreaker {
            signals,
            deliveries,
            event_loop,
        }
    }

    /// Break the wait. The mark is set before the wake-ups, so a wait they end finds it.
    pub fn interrupt(&self) {
        self.signals.break_wait();
        if let Some(deliveries) = self.deliveries.upgrade() {
            self.signals.wake(&deliveries);
        }
        if let Some(event_loop) = &self.event_loop {
            // Whether or not the loop has said it sleeps: a wake-up left unread only makes
            // its next poll return at once.
            event_loop.wake_now();
        }
    }
}

impl std::fmt::Debug for WaitBreaker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WaitBreaker").finish_non_exhaustive()
    }
}
