//! When a simulator's updates fall due: update `q` at `q / per_second` seconds after the
//! start, each on its own or, in frames, all those falling due within a frame at the
//! frame's start (a simulation loop computes a frame's states at once and sends them).

use std::time::Duration;

#[derive(Clone, Copy, Debug)]
pub struct Pacing {
    start_nanos: u64,
    per_second: f64,
    /// Updates in the whole run.
    pub planned: u64,
    /// 0: each update when due.
    frame_nanos: u64,
}

impl Pacing {
    pub fn new(start_nanos: u64, per_second: f64, seconds: f64, frame_ms: u32) -> Pacing {
        Pacing {
            start_nanos,
            per_second,
            planned: (per_second * seconds).floor() as u64,
            frame_nanos: u64::from(frame_ms) * 1_000_000,
        }
    }

    /// How many updates are due by `now_nanos`, counting every update of a frame already
    /// begun.
    pub fn due(&self, now_nanos: u64) -> u64 {
        if now_nanos < self.start_nanos {
            return 0;
        }
        let elapsed_nanos = now_nanos - self.start_nanos;
        let until_nanos = match self.frame_nanos {
            0 => elapsed_nanos,
            frame => (elapsed_nanos / frame + 1) * frame - 1,
        };
        ((until_nanos as f64 / 1e9 * self.per_second) as u64 + 1).min(self.planned)
    }

    /// How long to wait at `now_nanos`, with `sent` updates sent, before more are due
    /// (meaningful while `sent` < `planned`): until update `sent` falls due, or in frames
    /// until the next frame begins.
    pub fn wait(&self, sent: u64, now_nanos: u64) -> Duration {
        if sent < self.due(now_nanos) {
            return Duration::ZERO;
        }
        let next_nanos = match self.frame_nanos {
            0 => self.start_nanos + ((sent as f64 / self.per_second) * 1e9) as u64,
            frame if now_nanos < self.start_nanos => self.start_nanos.min(now_nanos + frame),
            frame => {
                let elapsed_nanos = now_nanos - self.start_nanos;
                self.start_nanos + (elapsed_nanos / frame + 1) * frame
            }
        };
        Duration::from_nanos(next_nanos.saturating_sub(now_nanos))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn unframed_updates_fall_due_one_by_one() {
        // 1000 updates a second: one per millisecond, the first at the start.
        let pacing = Pacing::new(0, 1000.0, 1.0, 0);
        assert_eq!(pacing.planned, 1000);
        assert_eq!(pacing.due(0), 1);
        assert_eq!(pacing.due(MS - 1), 1);
        assert_eq!(pacing.due(MS), 2);
        assert_eq!(pacing.wait(1, MS / 2), Duration::from_nanos(MS / 2));
        assert_eq!(pacing.wait(1, MS), Duration::ZERO);
    }

    #[test]
    fn a_frame_sends_everything_due_within_it_at_its_start() {
        // 1000 a second in 10 ms frames: updates 0..10 at 0, 10..20 at 10 ms.
        let pacing = Pacing::new(5 * MS, 1000.0, 1.0, 10);
        assert_eq!(pacing.due(4 * MS), 0);
        assert_eq!(pacing.due(5 * MS), 10);
        assert_eq!(pacing.due(14 * MS), 10);
        assert_eq!(pacing.due(15 * MS), 20);
        assert_eq!(pacing.wait(10, 7 * MS), Duration::from_nanos(8 * MS));
        assert_eq!(pacing.wait(9, 7 * MS), Duration::ZERO);
        assert_eq!(pacing.wait(0, 2 * MS), Duration::from_nanos(3 * MS));
    }

    #[test]
    fn nothing_is_due_past_the_plan() {
        let pacing = Pacing::new(0, 1000.0, 1.0, 300);
        assert_eq!(pacing.due(900 * MS), 1000);
        assert_eq!(pacing.due(5000 * MS), 1000);
    }
}
