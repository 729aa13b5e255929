//! Whether a connection's far side answers what the loop writes to it, and how soon.
//!
//! A router between two federates in a round trip, or in a time step, forwards a message
//! and then waits for the answer it provokes: its waits are a hop and a turn-around long,
//! longer than the spin budget, so it would sleep and every hop would pay a thread wake-up
//! (on this project's 2-core test machine: 86 µs round trips through a sleeping router
//! against 55 µs through one polling for 100 µs, and 63 µs for a copy-only relay). Polling
//! longer for every wait, though, spends a core between the messages of a steady one-way
//! stream (a router at 10,000 messages a second: 13 % of a core asleep, 84 % polling).
//!
//! So the loop watches each connection: how soon after it writes to it the next bytes
//! arrive (the answer), and how far apart its arrivals are anyway (the gap). A far side
//! that answers within [`EXPECTED_REPLY_SPIN`] and clearly sooner than its gap is in an
//! exchange of requests and replies; while the loop awaits such an answer it polls for it
//! (see [`super::spin::SpinPolicy::expect_reply`]), as a federate awaiting a time grant
//! does. A far side that sends on its own answers no sooner than it would send anyway
//! (the time to its next message does not depend on when we wrote), however fast it is:
//! for it, and for one that answers slowly or never, the loop sleeps as before.

use super::spin::{moved_average, EXPECTED_REPLY_SPIN, LONGEST_WAIT_NS};
use trellis_core::Time;

/// What the loop knows about one connection's answers.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AnswerWatch {
    /// When the loop first wrote to it since it last heard from it.
    written_at: Option<Time>,
    /// When the loop last heard from it.
    heard_at: Option<Time>,
    /// From a write to the next arrival: a moving average as the spin policy's.
    typical_answer_ns: u64,
    /// Between arrivals: a moving average.
    typical_gap_ns: u64,
    /// Counted among the prompt answers the loop awaits (`EventLoop::answers_awaited`).
    awaited: bool,
}

impl Default for AnswerWatch {
    fn default() -> AnswerWatch {
        AnswerWatch {
            written_at: None,
            heard_at: None,
            // Until answers have been seen to come soon, they are not awaited.
            typical_answer_ns: LONGEST_WAIT_NS,
            typical_gap_ns: LONGEST_WAIT_NS,
            awaited: false,
        }
    }
}

impl AnswerWatch {
    /// Whether this far side answers promptly: within the reply window, and in at most two
    /// thirds of its usual gap (a far side sending on its own answers in about its gap).
    fn answers_promptly(&self) -> bool {
        u128::from(self.typical_answer_ns) < EXPECTED_REPLY_SPIN.as_nanos()
            && self.typical_answer_ns.saturating_mul(3) < self.typical_gap_ns.saturating_mul(2)
    }

    /// The loop wrote to it at `now`. Whether the loop now awaits a prompt answer that it
    /// did not before (the caller counts it).
    #[must_use]
    pub(crate) fn wrote(&mut self, now: Time) -> bool {
        if self.written_at.is_some() {
            return false;
        }
        self.written_at = Some(now);
        debug_assert!(!self.awaited, "an answer is awaited only after a write");
        self.awaited = self.answers_promptly();
        self.awaited
    }

    /// Bytes from it arrived at `now`. Whether they answered an awaited prompt answer (the
    /// caller stops counting it).
    #[must_use]
    pub(crate) fn heard(&mut self, now: Time) -> bool {
        let since = |earlier: Time| (now.since(earlier).as_nanos() as u64).min(LONGEST_WAIT_NS);
        if let Some(heard_at) = self.heard_at.replace(now) {
            self.typical_gap_ns = moved_average(self.typical_gap_ns, since(heard_at));
        }
        if let Some(written_at) = self.written_at.take() {
            self.typical_answer_ns = moved_average(self.typical_answer_ns, since(written_at));
        }
        std::mem::take(&mut self.awaited)
    }

    /// Whether the loop counts it among the answers it awaits (the connection goes: the
    /// caller stops counting it).
    pub(crate) fn is_awaited(&self) -> bool {
        self.awaited
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const US: Duration = Duration::from_micros(1);

    /// Drive a watch through `rounds` of: write at `t`, hear at `t + answer`, next round
    /// `gap` after the previous hearing. How many writes ended up awaited.
    fn awaited_of(answer: Duration, gap: Duration, rounds: u32) -> (AnswerWatch, u32) {
        let mut watch = AnswerWatch::default();
        let mut heard = Time::ZERO + Duration::from_secs(1);
        let mut awaited = 0;
        for _ in 0..rounds {
            let write = heard + (gap - answer);
            let counted = watch.wrote(write);
            heard = write + answer;
            assert_eq!(watch.heard(heard), counted, "uncounted as it was counted");
            awaited += u32::from(counted);
        }
        (watch, awaited)
    }

    #[test]
    fn a_far_side_that_answers_each_write_soon_is_awaited() {
        // A router's side of a round trip: it forwards, the federate answers in half the
        // round trip, the next request comes after the other half.
        let (watch, awaited) = awaited_of(20 * US, 40 * US, 100);
        assert!(watch.answers_promptly());
        assert!(
            awaited > 50,
            "awaited once the answers were seen: {awaited}"
        );
        assert!(!watch.is_awaited(), "answered");
    }

    #[test]
    fn a_far_side_that_sends_on_its_own_is_not_awaited_however_fast() {
        // Its next message comes a gap after its last, whenever we wrote.
        let (watch, awaited) = awaited_of(38 * US, 40 * US, 200);
        assert!(!watch.answers_promptly());
        assert_eq!(awaited, 0);
    }

    #[test]
    fn slow_answers_are_not_awaited() {
        let (watch, awaited) = awaited_of(300 * US, 1000 * US, 200);
        assert!(!watch.answers_promptly(), "slower than the reply window");
        assert_eq!(awaited, 0);
    }

    #[test]
    fn writes_before_an_answer_are_awaited_once_and_a_silent_far_side_never() {
        let (mut watch, _) = awaited_of(20 * US, 40 * US, 100);
        let now = Time::ZERO + Duration::from_secs(10);
        assert!(watch.wrote(now), "a prompt answer is awaited");
        assert!(!watch.wrote(now + US), "the same answer: counted once");
        assert!(watch.is_awaited());
        assert!(watch.heard(now + 20 * US));
        assert!(!watch.heard(now + 40 * US), "nothing was awaited any more");
        let mut silent = AnswerWatch::default();
        for i in 0..100u64 {
            assert!(!silent.wrote(now + Duration::from_micros(i)));
        }
    }
}
