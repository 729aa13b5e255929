//! Each node's last minutes, one sample a second, for the plots shown when a node is
//! clicked. Bounded: [`HISTORY_SAMPLES`] per node, the oldest dropped first (300 nodes ×
//! 300 samples × 7 numbers is about 5 MB).

use serde::Serialize;
use std::collections::VecDeque;

/// Five minutes of one-second samples.
pub const HISTORY_SAMPLES: usize = 300;

/// One second of one node. `None` where the node has no such figure (a federate seen only
/// through its router has no CPU); serialized as `null`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Sample {
    /// Unix milliseconds.
    pub t: u64,
    pub cpu_user: Option<f64>,
    pub cpu_system: Option<f64>,
    pub memory_bytes: Option<f64>,
    pub rate_in: Option<f64>,
    pub rate_out: Option<f64>,
    pub queue: Option<f64>,
}

#[derive(Clone, Debug, Default)]
pub struct History {
    samples: VecDeque<Sample>,
}

impl History {
    pub fn push(&mut self, sample: Sample) {
        if self.samples.len() == HISTORY_SAMPLES {
            self.samples.pop_front();
        }
        self.samples.push_back(sample);
    }

    pub fn samples(&self) -> impl Iterator<Item = &Sample> {
        self.samples.iter()
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_five_minutes_only() {
        let mut history = History::default();
        for t in 0..(HISTORY_SAMPLES as u64 + 50) {
            history.push(Sample {
                t,
                ..Sample::default()
            });
        }
        assert_eq!(history.len(), HISTORY_SAMPLES);
        assert_eq!(history.samples().next().unwrap().t, 50);
        assert_eq!(
            history.samples().last().unwrap().t,
            HISTORY_SAMPLES as u64 + 49
        );
    }
}
