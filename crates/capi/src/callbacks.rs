//! Callbacks: the table of C function pointers, and their delivery by `trellis_evoke` (the
//! caller's thread, HLA_EVOKED) or the library's thread (HLA_IMMEDIATE). A callback is
//! taken under the session lock and delivered after the lock is released, so user code may
//! call services from inside it.

use crate::deliver::{deliver_other, deliver_values};
use crate::ffi::{entry, put};
use crate::session::{time, Held};
use crate::status::*;
use crate::table::TrellisCallbacks;
use crate::{rti, with_session, Shared, TrellisRti};
use std::cell::Cell;
use std::ffi::CString;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, TimeRepresentation};
use trellis_net::rti::{StayAway, IDLE_SLICE};

/// The longest one wait of the callback thread for a callback. A service call from another
/// thread breaks it at once (`SharedSession::lock`), as stopping the thread does; it bounds only
/// how seldom an idle federate's thread wakes.
const THREAD_SLICE: Duration = Duration::from_millis(100);

/// evokeMultipleCallbacks looks at the clock every this many callbacks while they come.
const CLOCK_EVERY: u32 = 32;

thread_local! {
    static IN_CALLBACK: Cell<bool> = const { Cell::new(false) };
}

/// Marks this thread as delivering callbacks, from an evoke (or the callback thread's start)
/// until it returns: marking each delivery cost two thread-local lookups per callback, and a
/// library loaded into a C++ program reaches each through a call (`__tls_get_addr`).
struct InCallback;

impl InCallback {
    fn set() -> InCallback {
        IN_CALLBACK.with(|c| c.set(true));
        InCallback
    }
}

impl Drop for InCallback {
    fn drop(&mut self) {
        IN_CALLBACK.with(|c| c.set(false));
    }
}

/// Install the callback table (copied).
#[no_mangle]
pub extern "C" fn trellis_set_callbacks(
    handle: *mut TrellisRti,
    callbacks: *const TrellisCallbacks,
) -> TrellisStatus {
    entry(|| {
        let rti = rti(handle)?;
        // SAFETY: header contract.
        let table =
            unsafe { callbacks.as_ref() }.ok_or_else(|| Failure::internal("callbacks is NULL"))?;
        *rti.shared
            .callbacks
            .lock()
            .unwrap_or_else(|e| e.into_inner()) = *table;
        Ok(())
    })
}

/// enableCallbacks (true) / disableCallbacks (false): while disabled, nothing is delivered.
#[no_mangle]
pub extern "C" fn trellis_enable_callbacks(
    handle: *mut TrellisRti,
    enabled: bool,
) -> TrellisStatus {
    with_session(handle, |session| Ok(session.enable_callbacks(enabled)?))
}

/// Callbacks taken from the federate under one lock: the lock is held once per batch, not
/// once per callback; the rest wait in the stash.
const BATCH: usize = 64;

/// Where a callback is delivered from: taken from the stash into it, and after delivery
/// still holding a reflect or an interaction, handed back to the federate at the next lock.
/// The callback alone is moved: a callback with its time representation beside it passed
/// `CALLBACK_BYTES`, and each move became a call to `memcpy`.
struct Slot {
    callback: Option<Callback>,
    /// The logical time representation the callback is delivered in.
    time: TimeRepresentation,
}

impl Slot {
    fn empty() -> Slot {
        Slot {
            callback: None,
            time: TimeRepresentation::Integer64,
        }
    }
}

/// Hand back what `slot` holds to the federate: a reflect's list of values serves a later
/// message.
fn recycle(held: &mut Held, slot: &mut Slot) {
    if let (Some(callback), Ok(rti)) = (slot.callback.as_mut(), held.session.joined()) {
        rti.recycle_values_of(callback);
    }
    // Dropped where it lies, not moved out first.
    slot.callback = None;
}

/// Put the next callback in `slot`, after handing back the one delivered from it before.
fn take(held: &mut Held, wait: Duration, batch: usize, slot: &mut Slot) -> Result<(), Failure> {
    recycle(held, slot);
    if !held.session.callbacks_enabled() {
        return Ok(());
    }
    if held.stash.is_empty() {
        fill(held, wait, batch)?;
    }
    slot.callback = held.stash.pop_front();
    slot.time = held.stash_time;
    Ok(())
}

/// Whether the federate has nothing to wait for (`Session::is_idle`): a wait sleeps instead.
fn idle(held: &Held) -> bool {
    held.session.is_idle()
}

/// Take up to `batch` callbacks into the stash: the first waiting up to `wait`, the rest
/// only if ready now. A connectionLost is the last (the session disconnected after it).
fn fill(held: &mut Held, wait: Duration, batch: usize) -> Result<(), Failure> {
    debug_assert!(
        held.stash.is_empty(),
        "one representation for the whole stash"
    );
    let mut wait = wait;
    // Taken before the loop: a connectionLost, the last, disconnects the session.
    held.stash_time = time(&held.session);
    while held.stash.len() < batch {
        let Some(callback) = held.session.evoke_callback(wait)? else {
            break;
        };
        wait = Duration::ZERO;
        let lost = matches!(callback, Callback::ConnectionLost { .. });
        held.stash.push_back(callback);
        if lost {
            break;
        }
    }
    Ok(())
}

/// Whether callbacks are pending: taken already, or queued in the federate library (what
/// the network has not delivered yet does not count: looking would cost a read per evoke).
fn pending(held: &Held) -> bool {
    let taken = held.session.callbacks_enabled() && !held.stash.is_empty();
    taken || held.session.callbacks_pending()
}

/// evokeCallback (multiple false) / evokeMultipleCallbacks (true): wait up to min_seconds
/// for a first callback; with multiple, go on delivering what is ready without waiting, and
/// return once none is ready or max_seconds passed (as OpenRTI does: a federate that looks at
/// each announcement before the next gets them one call at a time). *pending_out (may be
/// NULL): whether callbacks remain pending. CALL_NOT_ALLOWED_FROM_WITHIN_CALLBACK when
/// called from inside a callback.
#[no_mangle]
pub extern "C" fn trellis_evoke(
    handle: *mut TrellisRti,
    min_seconds: f64,
    max_seconds: f64,
    multiple: bool,
    pending_out: *mut bool,
) -> TrellisStatus {
    entry(|| {
        if IN_CALLBACK.with(Cell::get) {
            return Err(Failure::new(
                TRELLIS_ERR_CALL_NOT_ALLOWED_FROM_WITHIN_CALLBACK,
                "evoke was called from inside a callback",
            ));
        }
        let rti = rti(handle)?;
        if !rti.shared.held().session.is_connected() {
            return Err(Failure::new(TRELLIS_ERR_NOT_CONNECTED, "not connected"));
        }
        // The table is read once per evoke: set_callbacks from inside a callback takes effect
        // at the next evoke.
        let callbacks = table(&rti.shared);
        let started = Instant::now();
        let min = started + seconds(min_seconds);
        let max = started + seconds(max_seconds.max(min_seconds));
        let mut slot = Slot::empty();
        // User code runs only inside deliveries, and only it could call evoke again.
        let _inside = InCallback::set();
        if multiple {
            evoke_multiple(rti, &callbacks, min, max, &mut slot)?;
        } else {
            wait_for_first(rti, min, &mut slot)?;
            deliver(&callbacks, &mut slot);
        }
        if slot.callback.is_some() || !pending_out.is_null() {
            let mut held = rti.shared.held();
            recycle(&mut held, &mut slot);
            put(pending_out, pending(&held));
        }
        Ok(())
    })
}

/// The first callback, into the empty `slot`, waiting until `min` for it
/// (`SharedSession::evoke`: a service call from another thread breaks the wait and runs
/// first; a federate that is connected but not joined sleeps instead of polling).
fn wait_for_first(rti: &TrellisRti, min: Instant, slot: &mut Slot) -> Result<(), Failure> {
    let taken = rti.shared.session.evoke(min, idle, |held, wait| {
        take(held, wait, 1, slot)?;
        Ok::<_, Failure>(slot.callback.is_some().then_some(()))
    })?;
    debug_assert_eq!(taken.is_some(), slot.callback.is_some());
    Ok(())
}

/// evokeMultipleCallbacks: the first callback as evokeCallback waits for it, then whatever
/// is ready at once, until none is or `max` passed.
fn evoke_multiple(
    rti: &TrellisRti,
    callbacks: &TrellisCallbacks,
    min: Instant,
    max: Instant,
    slot: &mut Slot,
) -> Result<(), Failure> {
    wait_for_first(rti, min, slot)?;
    if slot.callback.is_none() {
        return Ok(());
    }
    deliver(callbacks, slot);
    // Few clock readings: at full rate this loop runs once per message.
    let mut delivered = 1u32;
    loop {
        // A statement of its own: the session's lock is released before the callback, which
        // may call services (a `while let` would hold it through the body: deadlock).
        take(&mut rti.shared.held(), Duration::ZERO, BATCH, slot)?;
        if slot.callback.is_none() {
            break;
        }
        deliver(callbacks, slot);
        delivered += 1;
        if delivered % CLOCK_EVERY == 0 && Instant::now() >= max {
            break;
        }
    }
    Ok(())
}

fn seconds(value: f64) -> Duration {
    if value.is_finite() && value > 0.0 {
        Duration::from_secs_f64(value.min(1.0e6))
    } else {
        Duration::ZERO
    }
}

/// HLA_IMMEDIATE: a library thread delivers callbacks as they come, one at a time.
#[no_mangle]
pub extern "C" fn trellis_start_callback_thread(handle: *mut TrellisRti) -> TrellisStatus {
    entry(|| {
        let rti = rti(handle)?;
        let mut thread = rti
            .callback_thread
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if thread.is_some() {
            return Ok(());
        }
        rti.shared.stop.store(false, Ordering::SeqCst);
        let shared = Arc::clone(&rti.shared);
        let spawned = std::thread::Builder::new()
            .name("trellis-callbacks".into())
            .spawn(move || callback_thread(&shared))
            .map_err(|e| Failure::internal(format!("cannot start the callback thread: {e}")))?;
        *thread = Some(spawned);
        Ok(())
    })
}

fn callback_thread(shared: &Shared) {
    let mut slot = Slot::empty();
    let mut stay_away = StayAway::default();
    // This thread runs user code only inside deliveries.
    let _inside = InCallback::set();
    while !shared.stop.load(Ordering::SeqCst) {
        let wait = |held: &mut Held| take(held, THREAD_SLICE, BATCH, &mut slot);
        // Not breaking in: an evoke on another thread goes first.
        let (taken, waited) = shared.session.wait_once(false, idle, wait);
        match taken {
            Ok(()) if slot.callback.is_some() => {
                stay_away.reset();
                deliver(&table(shared), &mut slot);
            }
            Ok(()) if waited.idle => std::thread::park_timeout(IDLE_SLICE),
            Ok(()) if waited.broken => {
                stay_away.after_break(&shared.session, Instant::now() + THREAD_SLICE)
            }
            // The wait ran its course: wait again.
            Ok(()) => stay_away.reset(),
            Err(failure) => {
                let table = table(shared);
                let text = CString::new(failure.message).unwrap_or_default();
                if let Some(f) = table.connection_lost {
                    // SAFETY: the caller's function, given for this.
                    unsafe { f(table.user, text.as_ptr()) };
                }
                return;
            }
        }
    }
}

/// Stop and join the callback thread, if one runs (not from the thread itself).
pub(crate) fn stop_thread(rti: &TrellisRti) {
    rti.shared.stop.store(true, Ordering::SeqCst);
    rti.shared.session.interrupt();
    let thread = rti
        .callback_thread
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    if let Some(thread) = thread {
        if thread.thread().id() != std::thread::current().id() {
            thread.thread().unpark();
            let _ = thread.join();
        }
    }
}

/// The callback table as installed now (copied: it is a few pointers).
fn table(shared: &Shared) -> TrellisCallbacks {
    *shared.callbacks.lock().unwrap_or_else(|e| e.into_inner())
}

/// Deliver the callback in `slot`, if any: a reflect or an interaction where it lies (it
/// stays, to be handed back to the federate), anything else taken from it.
fn deliver(table: &TrellisCallbacks, slot: &mut Slot) {
    let delivered =
        (slot.callback.as_ref()).is_some_and(|callback| deliver_values(table, callback, slot.time));
    if !delivered {
        if let Some(callback) = slot.callback.take() {
            deliver_other(table, callback, slot.time);
        }
    }
}
