//! Waking the event loop from other threads, with at most one wake-up syscall per sleep.

use mio::Waker;
use std::sync::atomic::{AtomicBool, Ordering};

pub(crate) struct Wakeup {
    waker: Waker,
    /// Set by the loop just before it blocks. Senders only pay for a wake-up (an eventfd
    /// write) when the loop may actually be asleep.
    sleeping: AtomicBool,
}

impl Wakeup {
    pub(crate) fn new(waker: Waker) -> Wakeup {
        Wakeup {
            waker,
            sleeping: AtomicBool::new(false),
        }
    }

    pub(crate) fn wake(&self) {
        if self.sleeping.swap(false, Ordering::SeqCst) {
            // A failed wake means the loop is gone; the caller notices on its channel.
            let _ = self.waker.wake();
        }
    }

    /// Wake the loop even if it has not said it sleeps: for a wake-up that no channel the
    /// loop checks before it sleeps announces. Left unread, it makes the next poll return.
    pub(crate) fn wake_now(&self) {
        self.sleeping.store(false, Ordering::SeqCst);
        let _ = self.waker.wake();
    }

    /// The loop is about to block. It must check its channels once more after this.
    pub(crate) fn going_to_sleep(&self) {
        self.sleeping.store(true, Ordering::SeqCst);
    }

    pub(crate) fn awake(&self) {
        self.sleeping.store(false, Ordering::SeqCst);
    }
}
