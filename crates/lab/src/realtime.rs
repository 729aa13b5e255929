//! Timer precision for the threads whose wake-ups are part of a measurement.
//!
//! The relay releases each packet at its due time; on a busy machine an ordinary thread may
//! wake milliseconds late, which would add to the delay the lab claims. So the relay asks
//! for a real-time (SCHED_FIFO) priority and the smallest timer slack. It blocks between
//! packets, so it takes no CPU from others while idle.

/// Make the calling thread wake on time: timer slack 1 ns and SCHED_FIFO priority 10.
/// Returns false (and changes nothing else) when the system refuses the priority.
pub fn raise_this_thread() -> bool {
    // SAFETY: prctl(PR_SET_TIMERSLACK) and sched_setscheduler(0) act on the calling thread
    // with valid arguments.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
        let param = libc::sched_param { sched_priority: 10 };
        libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) == 0
    }
}
