//! [`SharedSession`]: one federate's session shared by the threads of a program that calls
//! services on one thread while another waits for callbacks.
//!
//! An evoke holds the session while it waits (the wait drives the federate's node). A
//! service called meanwhile from another thread (an `HLA_IMMEDIATE` federate's simulation
//! loop while a library thread waits, or any program that evokes on a thread of its own)
//! would wait for the evoke to end: up to its whole timeout, and a node left undriven that
//! long loses its router link. So a call that finds the session held breaks the wait
//! ([`EvokeBreaker`]) and is let in first; the waiter stays away a little
//! ([`StayAway`]) and then waits again. The C ABI and the Python ambassador both keep their
//! session here.

use super::stay_away::StayAway;
use super::EvokeBreaker;
use parking_lot::{Mutex, MutexGuard};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long a federate that is connected but not joined sleeps between looks at its session
/// while an evoke waits (nothing arrives from the network for it; another thread may join).
pub const IDLE_SLICE: Duration = Duration::from_millis(20);

/// The session (with whatever its holder keeps beside it, `T`) behind one lock, taken by
/// service calls and by waits for callbacks.
#[derive(Debug)]
pub struct SharedSession<T> {
    held: Mutex<T>,
    /// Calls (services, evokes) that found the session held and wait for it (see `lock`).
    calls_waiting: AtomicUsize,
    /// Ends the wait of an evoke holding the session.
    evoke_breaker: EvokeBreaker,
}

/// The session taken by one thread; released when dropped.
pub type SessionGuard<'a, T> = MutexGuard<'a, T>;

/// What one wait for callbacks saw besides what it took, read before it let the session go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Waited {
    /// The federate had nothing to wait for (`Session::is_idle`).
    pub idle: bool,
    /// A call broke the wait and waits for the session.
    pub broken: bool,
}

impl<T> SharedSession<T> {
    /// Share `value`, whose session's evokes `evoke_breaker` breaks
    /// (`Session::evoke_breaker`).
    pub fn new(value: T, evoke_breaker: EvokeBreaker) -> SharedSession<T> {
        SharedSession {
            held: Mutex::new(value),
            calls_waiting: AtomicUsize::new(0),
            evoke_breaker,
        }
    }

    /// The session, for a call on one of the federate's threads (a service or an evoke): if
    /// a thread holds it waiting for callbacks, the wait is broken and the holder lets this
    /// call in before it waits again.
    pub fn lock(&self) -> SessionGuard<'_, T> {
        if let Some(held) = self.held.try_lock() {
            return held;
        }
        let before = self.calls_waiting.fetch_add(1, Ordering::SeqCst);
        assert!(before < usize::MAX, "calls waiting counted without bound");
        // Counted first: the holder, woken, must see this call waiting.
        self.evoke_breaker.interrupt();
        let held = self.held.lock();
        let before = self.calls_waiting.fetch_sub(1, Ordering::SeqCst);
        assert!(before > 0, "a call stopped waiting that was not counted");
        held
    }

    /// The session if no thread holds it now, without waiting or breaking a wait: for a
    /// caller that must let go of something (Python's GIL) before it may block in `lock`.
    pub fn try_lock(&self) -> Option<SessionGuard<'_, T>> {
        self.held.try_lock()
    }

    /// Whether a call waits for the session: it is counted from before it breaks the
    /// holder's wait until it has the session.
    pub fn calls_waiting(&self) -> bool {
        self.calls_waiting.load(Ordering::SeqCst) > 0
    }

    /// Whether any thread holds the session now (looked at without taking it).
    pub fn is_held(&self) -> bool {
        self.held.is_locked()
    }

    /// End the wait of the thread holding the session now (or its next wait), as a call
    /// does: for a program stopping a thread that waits for callbacks.
    pub fn interrupt(&self) {
        self.evoke_breaker.interrupt();
    }

    /// The session, to wait for callbacks on: never while a call waits for it (such a call
    /// is handed the lock directly, so this thread cannot take it back before the call
    /// runs, whoever wakes first). `break_in`: an evoke takes it as any call does, breaking
    /// another thread's wait; a thread that only waits (a library's callback thread) waits
    /// its turn.
    pub fn lock_to_wait(&self, break_in: bool) -> SessionGuard<'_, T> {
        loop {
            let held = if break_in {
                self.lock()
            } else {
                self.held.lock()
            };
            if !self.calls_waiting() {
                return held;
            }
            MutexGuard::unlock_fair(held);
            // A waiting call that has not parked yet takes the lock now.
            std::thread::yield_now();
        }
    }

    /// `wait` with the session held to wait on (`lock_to_wait`), released when it returns;
    /// `idle` is read before `wait` runs (a connectionLost it takes makes any session idle).
    pub fn wait_once<R>(
        &self,
        break_in: bool,
        idle: impl FnOnce(&T) -> bool,
        wait: impl FnOnce(&mut T) -> R,
    ) -> (R, Waited) {
        let mut held = self.lock_to_wait(break_in);
        let idle = idle(&held);
        let taken = wait(&mut held);
        let broken = self.calls_waiting();
        (taken, Waited { idle, broken })
    }

    /// An evoke: wait until `until` for what `take` finds, giving `take` the time left each
    /// time it runs. A call from another thread that breaks the wait runs before the wait
    /// goes on; an idle session (`idle`) is looked at every `IDLE_SLICE` instead of waited
    /// on. `Ok(None)`: nothing came in time.
    pub fn evoke<R, E>(
        &self,
        until: Instant,
        idle: impl Fn(&T) -> bool,
        mut take: impl FnMut(&mut T, Duration) -> Result<Option<R>, E>,
    ) -> Result<Option<R>, E> {
        let mut stay_away = StayAway::default();
        loop {
            let left = until.saturating_duration_since(Instant::now());
            let (taken, waited) = self.wait_once(true, &idle, |held| take(held, left));
            if let Some(found) = taken? {
                return Ok(Some(found));
            }
            if left.is_zero() {
                return Ok(None);
            }
            if waited.idle {
                std::thread::sleep(IDLE_SLICE.min(until.saturating_duration_since(Instant::now())));
            } else if waited.broken {
                stay_away.after_break(self, until);
            }
            // Else the wait ran its course (or ended for nothing): one more look, if time is
            // left.
        }
    }
}
