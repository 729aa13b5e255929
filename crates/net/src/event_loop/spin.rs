//! Whether an event loop that ran out of work polls a while before it sleeps.
//!
//! Waking a thread that sleeps costs a system call on the waker's side and, on virtual
//! machines, tens of microseconds on the sleeper's: at full rate the loops would pay it
//! between nearly every pair of batches. A loop that keeps polling (yielding the CPU between
//! polls) is woken by the data alone. But polling only pays when the next event comes within
//! the budget: a loop whose events are further apart would burn the whole budget every time,
//! as much as a fifth of a core for each loop at ten thousand messages a second. So a loop
//! polls only while its typical wait is shorter than the budget, and sleeps at once when
//! traffic is sparse or absent. The typical wait is a moving average, so one short wait
//! among long ones does not count, over every look at the sockets, those that could not
//! block because work was waiting included: a loop that keeps finding work is busy. (Leaving
//! those out lost the whole gain at full rate, where the loop's real sleeps average longer
//! than the budget: 1.39 against 1.56 M/s, federate throughput, medians of 3.)
//!
//! **A reply expected.** A federate that asked for a time advance waits for one answer, due
//! within a round trip: its waits are typically a round trip long, longer than the budget,
//! so it would sleep, and every grant would pay the wake-up. While its host says a reply is
//! expected ([`SpinPolicy::expect_reply`]), the loop polls up to [`EXPECTED_REPLY_SPIN`]
//! when such replies typically came within that (a moving average of its own): the CPU is
//! spent only while something is owed, at most that long per wait, and not at all when
//! replies are slow anyway (eight federates stepping on two cores, where polling took the
//! CPU the others needed: 2.0 against 2.4 k grants/s each when it always polled). The loop
//! expects a reply, too, after writing to a connection whose far side answers promptly
//! (`super::answer`): a router in a round trip between federates.

use std::time::Duration;

/// [`crate::NodeConfig::spin`] and a router's unless set.
pub const DEFAULT_SPIN: Duration = Duration::from_micros(20);

/// How long a loop whose host expects a reply polls before it sleeps (when spinning is on
/// at all): about two router round trips on loopback.
pub const EXPECTED_REPLY_SPIN: Duration = Duration::from_micros(200);

/// Waits count at most this long in the average: a loop that slept a minute is as idle as
/// one that slept a second, and becomes busy as fast.
pub(super) const LONGEST_WAIT_NS: u64 = 1_000_000_000;

#[derive(Clone, Copy, Debug)]
pub(crate) struct SpinPolicy {
    budget: Duration,
    /// How long waits last until something happens: a moving average, each new wait a
    /// quarter of it. After a long idle, about forty short waits bring it under the budget.
    typical_wait_ns: u64,
    /// The host expects a reply soon: poll up to [`EXPECTED_REPLY_SPIN`] if replies come
    /// that soon.
    reply_expected: bool,
    /// How long waits last while a reply is expected: a moving average as `typical_wait_ns`.
    typical_reply_ns: u64,
}

impl SpinPolicy {
    pub(crate) fn new(budget: Duration) -> SpinPolicy {
        SpinPolicy {
            budget,
            // Until waits have been seen to be short, sleep.
            typical_wait_ns: LONGEST_WAIT_NS,
            reply_expected: false,
            typical_reply_ns: LONGEST_WAIT_NS,
        }
    }

    /// Whether the host expects a reply soon (a time advance requested, not yet granted).
    pub(crate) fn expect_reply(&mut self, expected: bool) {
        self.reply_expected = expected;
    }

    /// How long to poll before sleeping, if at all, for a wait of at most `timeout`.
    pub(crate) fn poll_for(&self, timeout: Duration) -> Option<Duration> {
        if timeout.is_zero() || !self.is_enabled() {
            return None;
        }
        let replies_soon = u128::from(self.typical_reply_ns) < EXPECTED_REPLY_SPIN.as_nanos();
        if self.reply_expected && replies_soon {
            return Some(EXPECTED_REPLY_SPIN.max(self.budget).min(timeout));
        }
        let busy = u128::from(self.typical_wait_ns) < self.budget.as_nanos();
        busy.then(|| self.budget.min(timeout))
    }

    /// Whether waits are timed at all (they need a clock read each).
    pub(crate) fn is_enabled(&self) -> bool {
        !self.budget.is_zero()
    }

    /// A wait ended after `waited`.
    pub(crate) fn waited(&mut self, waited: Duration) {
        let waited_ns = (waited.as_nanos() as u64).min(LONGEST_WAIT_NS);
        self.typical_wait_ns = moved_average(self.typical_wait_ns, waited_ns);
        if self.reply_expected {
            self.typical_reply_ns = moved_average(self.typical_reply_ns, waited_ns);
        }
    }
}

/// `average` moved a quarter of the way toward `sample`.
pub(super) fn moved_average(average: u64, sample: u64) -> u64 {
    average - average / 4 + sample / 4
}

#[cfg(test)]
mod tests {
    use super::*;

    const US: Duration = Duration::from_micros(1);

    fn after(waits: &[Duration]) -> SpinPolicy {
        let mut spin = SpinPolicy::new(20 * US);
        for &w in waits {
            spin.waited(w);
        }
        spin
    }

    #[test]
    fn polls_only_while_waits_are_typically_shorter_than_the_budget() {
        assert_eq!(
            after(&[]).poll_for(1000 * US),
            None,
            "no wait seen yet: sleep"
        );
        let busy = [5 * US; 60];
        assert_eq!(after(&busy).poll_for(1000 * US), Some(20 * US));
        assert_eq!(
            after(&busy).poll_for(8 * US),
            Some(8 * US),
            "never past the timeout"
        );
        assert_eq!(after(&busy).poll_for(Duration::ZERO), None);
        let sparse = [60 * US; 60];
        assert_eq!(
            after(&sparse).poll_for(1000 * US),
            None,
            "sparse traffic: sleep"
        );
        let mut one_short_among_long = sparse.to_vec();
        one_short_among_long.push(US);
        assert_eq!(after(&one_short_among_long).poll_for(1000 * US), None);
        let mut busy_again = sparse.to_vec();
        busy_again.extend([2 * US; 10]);
        assert_eq!(after(&busy_again).poll_for(1000 * US), Some(20 * US));
        let mut idle_after_busy = busy.to_vec();
        idle_after_busy.push(Duration::from_secs(3600));
        assert_eq!(after(&idle_after_busy).poll_for(1000 * US), None);
    }

    #[test]
    fn a_zero_budget_never_polls() {
        let mut spin = SpinPolicy::new(Duration::ZERO);
        spin.waited(Duration::ZERO);
        spin.expect_reply(true);
        assert!(!spin.is_enabled());
        assert_eq!(spin.poll_for(1000 * US), None);
    }

    #[test]
    fn an_expected_reply_polls_longer_while_replies_come_soon() {
        let mut spin = after(&[60 * US; 60]);
        assert_eq!(spin.poll_for(1000 * US), None, "sparse traffic: sleep");
        spin.expect_reply(true);
        assert_eq!(spin.poll_for(1000 * US), None, "no reply seen yet: sleep");
        for _ in 0..60 {
            spin.waited(60 * US);
        }
        assert_eq!(spin.poll_for(1000 * US), Some(EXPECTED_REPLY_SPIN));
        assert_eq!(
            spin.poll_for(50 * US),
            Some(50 * US),
            "never past the timeout"
        );
        assert_eq!(spin.poll_for(Duration::ZERO), None);
        spin.expect_reply(false);
        assert_eq!(
            spin.poll_for(1000 * US),
            None,
            "answered: back to the typical wait"
        );
        spin.expect_reply(true);
        for _ in 0..60 {
            spin.waited(500 * US);
        }
        assert_eq!(
            spin.poll_for(1000 * US),
            None,
            "replies slower than the window: sleep"
        );
    }
}
