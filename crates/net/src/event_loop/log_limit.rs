//! A bound on repeated WARN lines: a thousand hostile connections closing at once must not
//! flood the log (or the disk behind it). Lines past the bound in one second are counted,
//! and the count rides on the next line admitted.

use std::time::Duration;
use trellis_core::Time;

/// Lines admitted per second.
const LINES_PER_SECOND: u32 = 20;
const WINDOW: Duration = Duration::from_secs(1);

pub(crate) struct LogLimit {
    window_start: Time,
    admitted: u32,
    suppressed: u64,
}

impl LogLimit {
    pub(crate) fn new(now: Time) -> LogLimit {
        LogLimit {
            window_start: now,
            admitted: 0,
            suppressed: 0,
        }
    }

    /// Whether a line may be written now: `Some(n)` with the number of lines suppressed
    /// since the last one admitted, or `None` to drop this one (it is counted).
    #[must_use]
    pub(crate) fn admit(&mut self, now: Time) -> Option<u64> {
        if now.since(self.window_start) >= WINDOW {
            self.window_start = now;
            self.admitted = 0;
        }
        if self.admitted >= LINES_PER_SECOND {
            self.suppressed += 1;
            return None;
        }
        self.admitted += 1;
        Some(std::mem::take(&mut self.suppressed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_cut_to_the_rate_and_the_rest_counted_on_the_next_line() {
        let start = Time::ZERO;
        let mut limit = LogLimit::new(start);
        let admitted = (0..1000).filter(|_| limit.admit(start).is_some()).count();
        assert_eq!(admitted, LINES_PER_SECOND as usize);
        let later = start + WINDOW;
        assert_eq!(limit.admit(later), Some(1000 - u64::from(LINES_PER_SECOND)));
        assert_eq!(limit.admit(later), Some(0));
    }
}
