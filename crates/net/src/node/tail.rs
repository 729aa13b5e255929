//! What a caller-driven node ([`super::DirectNode`]) holds to bundle is written within
//! [`TAIL_BOUND`] even when its program makes no further call: a thread of the node's own
//! sleeps until a held bundle is due and then does the write the program did not. Output
//! that a slow receiver pushed back (a full socket, or a router told to wait) moves on the
//! same way: a look at the sockets every bound until it is written.
//!
//! The node's event loop and its held state sit behind one mutex, taken by the program's
//! calls and by this thread. The thread wakes at most once per bound while bundles are
//! held and sleeps on a condition variable otherwise, so a node that never holds costs a
//! sleeping thread and an uncontended lock per call.

use crate::event_loop::EventLoop;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The longest a held publish waits for its write when the program makes no call.
pub const TAIL_BOUND: Duration = Duration::from_millis(1);

/// The event loop a caller-driven node runs, and the bundle it holds.
pub(super) struct Driven {
    pub event_loop: EventLoop,
    /// Bytes of publishes queued to the event loop and not yet routed and written.
    pub held_bytes: usize,
    /// When held publishes were last handed on to be written, if ever.
    pub last_bundle: Option<Instant>,
    /// When the tail writer writes what is held, if it is armed.
    tail_due: Option<Instant>,
    /// A tail writer runs for this node (it bundles): only then is a turn's unsent output
    /// worth looking for.
    writes_tails: bool,
    stopping: bool,
}

impl Driven {
    /// Act on everything queued, held publishes included. Returns whether the tail writer
    /// must be woken: output is left unsent, which only a later look at the sockets sends.
    #[must_use]
    pub fn turn(&mut self) -> bool {
        self.event_loop.turn();
        if self.held_bytes > 0 {
            self.held_bytes = 0;
            self.last_bundle = Some(Instant::now());
        }
        self.writes_tails && self.event_loop.has_unsent_output() && self.arm(Instant::now())
    }

    /// Arm the tail writer unless it is armed. Returns whether this armed it.
    fn arm(&mut self, now: Instant) -> bool {
        let arm = self.tail_due.is_none();
        if arm {
            self.tail_due = Some(now + TAIL_BOUND);
        }
        arm
    }

    /// Count a publish queued and not acted on. Returns whether the tail writer must be
    /// woken to keep the bound for it.
    #[must_use]
    pub fn hold(&mut self, bytes: usize, now: Instant) -> bool {
        self.held_bytes += bytes;
        self.arm(now)
    }
}

pub(super) struct Shared {
    driven: Mutex<Driven>,
    armed: Condvar,
}

impl Shared {
    /// `writes_tails`: a [`TailWriter`] will run on it.
    pub fn new(event_loop: EventLoop, writes_tails: bool) -> Arc<Shared> {
        Arc::new(Shared {
            driven: Mutex::new(Driven {
                event_loop,
                held_bytes: 0,
                last_bundle: None,
                tail_due: None,
                writes_tails,
                stopping: false,
            }),
            armed: Condvar::new(),
        })
    }

    /// The node's event loop and bundle. A panic while it was held (in the program's
    /// thread) leaves state the next call can still use: queues, not invariants.
    pub fn lock(&self) -> MutexGuard<'_, Driven> {
        self.driven.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Wake the tail writer for a bundle just armed (`Driven::hold` said so).
    pub fn wake_tail_writer(&self) {
        self.armed.notify_one();
    }
}

/// The thread that keeps [`TAIL_BOUND`]; stopped and joined on drop.
pub(super) struct TailWriter {
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl TailWriter {
    pub fn start(name: &str, shared: Arc<Shared>) -> std::io::Result<TailWriter> {
        let for_thread = shared.clone();
        let thread = std::thread::Builder::new()
            .name(format!("{name}-tail"))
            .spawn(move || write_tails(&for_thread))?;
        Ok(TailWriter {
            shared,
            thread: Some(thread),
        })
    }
}

impl Drop for TailWriter {
    fn drop(&mut self) {
        self.shared.lock().stopping = true;
        self.shared.armed.notify_one();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn write_tails(shared: &Shared) {
    let mut driven = shared.lock();
    while !driven.stopping {
        let Some(due) = driven.tail_due else {
            driven = shared.armed.wait(driven).unwrap_or_else(|e| e.into_inner());
            continue;
        };
        let now = Instant::now();
        if now < due {
            driven = shared
                .armed
                .wait_timeout(driven, due - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
            continue;
        }
        driven.tail_due = None;
        if driven.event_loop.has_unsent_output() {
            // Writable sockets take what they refused, and the peer's word that it has room
            // is read.
            if let Err(e) = driven.event_loop.wait(Some(Duration::ZERO)) {
                tracing::warn!("tail writer cannot poll the sockets: {e}");
            }
        }
        // What is held is written; output still unsent re-arms this writer, which so needs
        // no waking.
        let _armed = driven.turn();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared() -> Arc<Shared> {
        let (event_loop, _) = EventLoop::new().unwrap();
        Shared::new(event_loop, true)
    }

    #[test]
    fn holding_arms_the_tail_writer_once_per_bundle_and_a_turn_hands_the_bundle_on() {
        let shared = shared();
        let mut driven = shared.lock();
        let now = Instant::now();
        assert!(driven.hold(100, now), "the first held publish arms");
        assert!(!driven.hold(100, now), "armed already");
        assert_eq!(driven.held_bytes, 200);
        assert_eq!(driven.tail_due, Some(now + TAIL_BOUND));
        assert!(!driven.turn(), "nothing unsent: the writer need not wake");
        assert_eq!(driven.held_bytes, 0);
        assert!(driven.last_bundle.is_some());
    }

    #[test]
    fn the_tail_writer_hands_a_held_bundle_on_with_no_call_from_the_program() {
        let shared = shared();
        let _writer = TailWriter::start("test", shared.clone()).unwrap();
        let armed = shared.lock().hold(100, Instant::now());
        assert!(armed);
        shared.wake_tail_writer();
        let deadline = Instant::now() + Duration::from_secs(10);
        while shared.lock().held_bytes > 0 {
            assert!(Instant::now() < deadline, "the tail writer never wrote");
            std::thread::yield_now();
        }
        let driven = shared.lock();
        assert!(driven.last_bundle.is_some());
        assert_eq!(driven.tail_due, None, "disarmed once written");
    }
}
