//! How a wait for callbacks goes on after a service call broke into it
//! (`SharedSession::lock`):
//! the waiting thread (the callback thread, or an evoke) must let the call run, and should
//! come back soon, as a reply to the call may be on its way, but not break again and again a
//! thread that calls services without pause (each break costs both threads a wake-up).

use super::SharedSession;
use std::time::{Duration, Instant};

/// A lone break waits at most this long for the session to be left alone.
const WATCH: Duration = Duration::from_micros(50);
/// The session left alone this long: the call is done and no other follows at once.
const QUIET: Duration = Duration::from_micros(10);
/// Breaks that follow each other make the waiter stay away from this long, doubling each
/// time, up to `AWAY_MOST`: a burst of calls breaks in once a window, not once a call, and
/// what arrives meanwhile waits at most a window.
const AWAY_FIRST: Duration = Duration::from_micros(50);
const AWAY_MOST: Duration = Duration::from_millis(1);
/// A break this long after the one before starts a new streak (a call now and then, as a
/// simulation loop's updates at a few hundred hertz, is served as a lone one).
const STREAK_GAP: Duration = Duration::from_millis(4);

/// Breaks of one waiter since its last wait that ran its course or brought a callback.
#[derive(Debug, Default)]
pub struct StayAway {
    streak: u32,
    last_break: Option<Instant>,
}

impl StayAway {
    /// A service call broke the wait (the session is released): return when the wait should
    /// go on, at the latest at `until`. A lone break returns as soon as the session has been
    /// left alone for `QUIET` (within `WATCH`); the next breaks of a streak stay away longer.
    pub fn after_break<T>(&mut self, shared: &SharedSession<T>, until: Instant) {
        let now = Instant::now();
        let streak = self.count_break(now);
        if streak == 1 && left_alone(shared, (now + WATCH).min(until)) {
            return;
        }
        std::thread::park_timeout(away(streak).min(until.saturating_duration_since(now)));
    }

    /// Count a break at `now` into the streak; returns its place in it (1: a lone break).
    fn count_break(&mut self, now: Instant) -> u32 {
        if self
            .last_break
            .is_some_and(|last| now.duration_since(last) > STREAK_GAP)
        {
            self.streak = 0;
        }
        self.last_break = Some(now);
        self.streak = self.streak.saturating_add(1);
        self.streak
    }

    /// The wait ran its course or brought a callback: the next break is a lone one.
    pub fn reset(&mut self) {
        self.streak = 0;
    }
}

/// How long the `streak`-th break of a streak stays away (the first only if the session is
/// not left alone).
fn away(streak: u32) -> Duration {
    let doublings = streak.saturating_sub(1).min(16);
    AWAY_FIRST.saturating_mul(1 << doublings).min(AWAY_MOST)
}

/// Whether the session is left alone for `QUIET` before `deadline`: neither held nor waited
/// for (the call that broke in may not have woken yet). Looked at without taking it (a take
/// would make the caller's next call break in again).
fn left_alone<T>(shared: &SharedSession<T>, deadline: Instant) -> bool {
    let mut free_since = None;
    loop {
        let now = Instant::now();
        if shared.is_held() || shared.calls_waiting() {
            free_since = None;
        } else if now.duration_since(*free_since.get_or_insert(now)) >= QUIET {
            return true;
        }
        if now >= deadline {
            return false;
        }
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breaks_close_together_stay_away_longer_up_to_the_most() {
        let mut stay = StayAway::default();
        let start = Instant::now();
        let streak: Vec<u32> = (0..8)
            .map(|i| stay.count_break(start + Duration::from_micros(100) * i))
            .collect();
        assert_eq!(streak, [1, 2, 3, 4, 5, 6, 7, 8]);
        let stays: Vec<u128> = streak.iter().map(|&s| away(s).as_micros()).collect();
        assert_eq!(stays, [50, 100, 200, 400, 800, 1000, 1000, 1000]);
        assert_eq!(away(u32::MAX), AWAY_MOST);
    }

    #[test]
    fn a_break_long_after_the_last_or_after_a_reset_is_lone_again() {
        let mut stay = StayAway::default();
        let start = Instant::now();
        assert_eq!(stay.count_break(start), 1);
        assert_eq!(stay.count_break(start + STREAK_GAP), 2);
        let later = start + STREAK_GAP * 3;
        assert_eq!(stay.count_break(later), 1, "past the gap");
        assert_eq!(stay.count_break(later), 2);
        stay.reset();
        assert_eq!(stay.count_break(later), 1, "after a reset");
    }
}
