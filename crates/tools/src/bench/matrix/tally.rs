//! What a receiver of the matrix counts: the header each update carries, unique updates
//! by bit, duplicates, and latency's mean and spread kept as values come.

use super::{CasePlan, GREETING};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Header {
    pub(super) sender: u32,
    pub(super) entity: u32,
    pub(super) serial: u64,
    pub(super) sent_nanos: u64,
}

impl Header {
    pub(super) fn encode(self, payload: &mut [u8]) {
        payload[..4].copy_from_slice(&self.sender.to_le_bytes());
        payload[4..8].copy_from_slice(&self.entity.to_le_bytes());
        payload[8..16].copy_from_slice(&self.serial.to_le_bytes());
        payload[16..24].copy_from_slice(&self.sent_nanos.to_le_bytes());
    }

    pub(super) fn decode(payload: &[u8]) -> Option<Header> {
        let u32_at = |at: usize| {
            Some(u32::from_le_bytes(
                payload.get(at..at + 4)?.try_into().ok()?,
            ))
        };
        let u64_at = |at: usize| {
            Some(u64::from_le_bytes(
                payload.get(at..at + 8)?.try_into().ok()?,
            ))
        };
        Some(Header {
            sender: u32_at(0)?,
            entity: u32_at(4)?,
            serial: u64_at(8)?,
            sent_nanos: u64_at(16)?,
        })
    }
}

/// Mean and standard deviation kept as values come (Welford), so that a case of many
/// updates needs no memory per update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(super) struct Spread {
    pub(super) count: u64,
    pub(super) mean: f64,
    /// Sum of squared differences from the mean.
    pub(super) m2: f64,
}

impl Spread {
    pub(super) fn add(&mut self, value: f64) {
        self.count += 1;
        let delta = value - self.mean;
        self.mean += delta / self.count as f64;
        self.m2 += delta * (value - self.mean);
    }

    /// Pool another spread into this one (Chan et al.).
    pub(super) fn merge(&mut self, other: &Spread) {
        if other.count == 0 {
            return;
        }
        let count = self.count + other.count;
        let delta = other.mean - self.mean;
        self.mean += delta * other.count as f64 / count as f64;
        self.m2 += other.m2 + delta * delta * (self.count * other.count) as f64 / count as f64;
        self.count = count;
    }

    /// Mean and population standard deviation; `None` for no values.
    pub(super) fn mean_std(&self) -> Option<(f64, f64)> {
        (self.count > 0).then(|| (self.mean, (self.m2 / self.count as f64).max(0.0).sqrt()))
    }
}

/// What one receiver got. Its figures travel from agents; the bits stay where they were
/// counted.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Tally {
    /// Per party: a bit per update (entity × tick) that arrived; empty for parties not
    /// heard.
    #[serde(skip)]
    pub(super) seen: Vec<Vec<u64>>,
    /// Per party: whether its greeting arrived.
    #[serde(skip)]
    pub(super) greeted: Vec<bool>,
    pub(super) ticks: u64,
    /// Updates each sender schedules: entities × ticks.
    pub(super) updates: u64,
    pub(super) unique: u64,
    pub(super) duplicates: u64,
    pub(super) latency_us: Spread,
    /// When the last new update arrived, nanoseconds on the case's clock.
    pub(super) last_nanos: u64,
}

impl Tally {
    pub(super) fn new(plan: &CasePlan, heard: impl Iterator<Item = usize>) -> Tally {
        let mut seen = vec![Vec::new(); plan.roles.len()];
        for sender in heard {
            seen[sender] = vec![0; plan.updates_per_sender().div_ceil(64) as usize];
        }
        Tally {
            seen,
            greeted: vec![false; plan.roles.len()],
            ticks: plan.ticks,
            updates: plan.updates_per_sender(),
            unique: 0,
            duplicates: 0,
            latency_us: Spread::default(),
            last_nanos: 0,
        }
    }

    /// Whether every sender this receiver hears has greeted it.
    pub(super) fn greeted_all(&self) -> bool {
        self.seen
            .iter()
            .zip(&self.greeted)
            .all(|(seen, greeted)| seen.is_empty() || *greeted)
    }

    /// An update with `header`, stamped `stamp`, arrived at `now` (both on the case's
    /// clock). Anything not from a heard sender's schedule is ignored.
    pub(super) fn record(&mut self, header: Header, stamp: u64, now: u64) {
        let sender = header.sender as usize;
        if header.serial == GREETING {
            if let Some(greeted) = self.greeted.get_mut(sender) {
                *greeted = true;
            }
            return;
        }
        let Some(seen) = self.seen.get_mut(sender) else {
            return;
        };
        if header.serial >= self.ticks {
            return;
        }
        let index = u64::from(header.entity) * self.ticks + header.serial;
        if index >= self.updates {
            return;
        }
        let bit = 1u64 << (index % 64);
        let Some(word) = seen.get_mut((index / 64) as usize) else {
            return;
        };
        if *word & bit != 0 {
            self.duplicates += 1;
            return;
        }
        *word |= bit;
        self.unique += 1;
        self.latency_us.add(now.saturating_sub(stamp) as f64 / 1e3);
        self.last_nanos = self.last_nanos.max(now);
    }

    /// The figures without the bits: what a report carries.
    pub(super) fn figures(&self) -> Tally {
        Tally {
            seen: Vec::new(),
            greeted: Vec::new(),
            ..*self
        }
    }

    /// Add what another reader of the same receiver counted (from other senders).
    pub(super) fn absorb(&mut self, other: Tally) {
        self.unique += other.unique;
        self.duplicates += other.duplicates;
        self.latency_us.merge(&other.latency_us);
        self.last_nanos = self.last_nanos.max(other.last_nanos);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::matrix::tests::plan;
    use crate::bench::matrix::{Configuration, GREETING, HEADER_BYTES};
    use crate::bench::stats::mean_std;

    #[test]
    fn a_spread_pools_like_one_long_series() {
        let values = [3.0, 5.0, 7.5, 1.0, 12.0, 4.25];
        let mut whole = Spread::default();
        values.iter().for_each(|&v| whole.add(v));
        let (mut left, mut right) = (Spread::default(), Spread::default());
        values[..2].iter().for_each(|&v| left.add(v));
        values[2..].iter().for_each(|&v| right.add(v));
        left.merge(&right);
        let (mean, std) = mean_std(&values).unwrap();
        for spread in [whole, left] {
            let (m, s) = spread.mean_std().unwrap();
            assert!((m - mean).abs() < 1e-12 && (s - std).abs() < 1e-12);
        }
        assert_eq!(Spread::default().mean_std(), None);
    }

    #[test]
    fn a_tally_counts_unique_updates_once() {
        let plan = plan(Configuration::OneToOne);
        let mut tally = Tally::new(&plan, plan.heard_by(1));
        let header = |entity, serial| Header {
            sender: 0,
            entity,
            serial,
            sent_nanos: 0,
        };
        assert!(!tally.greeted_all());
        tally.record(header(0, GREETING), 0, 10);
        assert!(tally.greeted_all());
        tally.record(header(1, 4), 1_000, 3_000);
        tally.record(header(1, 4), 1_000, 4_000);
        tally.record(header(2, 0), 1_000, 4_000);
        tally.record(header(0, 5), 1_000, 4_000);
        tally.record(
            Header {
                sender: 1,
                ..header(0, 0)
            },
            0,
            1,
        );
        assert_eq!((tally.unique, tally.duplicates), (1, 1));
        assert_eq!(tally.latency_us.mean_std(), Some((2.0, 0.0)));
        let mut payload = vec![0u8; HEADER_BYTES];
        header(7, 9).encode(&mut payload);
        assert_eq!(Header::decode(&payload), Some(header(7, 9)));
    }
}
