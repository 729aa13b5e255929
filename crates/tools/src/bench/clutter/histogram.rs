//! A small log-linear latency histogram: 16 buckets per power of two (each at most 6.25 %
//! wide), counts kept sparse so it crosses process boundaries as a short list and merges
//! by adding. Quantiles are reported as the upper edge of their bucket (never flattering);
//! the maximum is kept exactly.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

const SUB_BUCKETS: u64 = 16;
const SUB_BITS: u32 = 4;

/// Latencies in microseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Bucket index → count.
    buckets: BTreeMap<u16, u64>,
    count: u64,
    max_us: u64,
}

fn bucket(value_us: u64) -> u16 {
    if value_us < SUB_BUCKETS {
        return value_us as u16;
    }
    let octave = 63 - value_us.leading_zeros();
    let sub = (value_us >> (octave - SUB_BITS)) & (SUB_BUCKETS - 1);
    ((u64::from(octave - SUB_BITS + 1)) * SUB_BUCKETS + sub) as u16
}

/// The first value past bucket `index`.
fn upper_edge(index: u16) -> u64 {
    let index = u64::from(index);
    if index < SUB_BUCKETS {
        return index + 1;
    }
    let octave = index / SUB_BUCKETS + u64::from(SUB_BITS) - 1;
    let sub = index % SUB_BUCKETS;
    (SUB_BUCKETS + sub + 1) << (octave - u64::from(SUB_BITS))
}

impl Histogram {
    pub fn record(&mut self, value_us: u64) {
        *self.buckets.entry(bucket(value_us)).or_default() += 1;
        self.count += 1;
        self.max_us = self.max_us.max(value_us);
    }

    pub fn merge(&mut self, other: &Histogram) {
        for (&index, &count) in &other.buckets {
            *self.buckets.entry(index).or_default() += count;
        }
        self.count += other.count;
        self.max_us = self.max_us.max(other.max_us);
    }

    #[cfg(test)]
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The value at or below which `q` (0–1) of the recordings fall, as its bucket's upper
    /// edge (capped at the exact maximum); `None` when empty.
    pub fn quantile_us(&self, q: f64) -> Option<u64> {
        if self.count == 0 {
            return None;
        }
        let rank = ((q * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (&index, &count) in &self.buckets {
            seen += count;
            if seen >= rank {
                return Some((upper_edge(index) - 1).min(self.max_us));
            }
        }
        Some(self.max_us)
    }

    pub fn max_us(&self) -> Option<u64> {
        (self.count > 0).then_some(self.max_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_falls_in_a_bucket_that_holds_it() {
        for value in (0..100_000u64).chain([1 << 40, u64::MAX / 2]) {
            let index = bucket(value);
            let upper = upper_edge(index);
            assert!(
                value < upper,
                "{value} ≥ upper edge {upper} of bucket {index}"
            );
            if index > 0 {
                assert!(value >= upper_edge(index - 1), "{value} below its bucket");
            }
            // At most 1/16 wide (exact below 16).
            assert!((upper - upper_edge(index.saturating_sub(1))) * 16 <= upper.max(16));
        }
    }

    #[test]
    fn quantiles_come_within_a_bucket_and_never_below_the_truth() {
        let mut h = Histogram::default();
        for v in 1..=1000u64 {
            h.record(v);
        }
        let p50 = h.quantile_us(0.5).unwrap();
        assert!((500..=532).contains(&p50), "p50 {p50}");
        let p99 = h.quantile_us(0.99).unwrap();
        assert!((990..=1000).contains(&p99), "p99 {p99}");
        assert_eq!(h.max_us(), Some(1000));
        let mut other = Histogram::default();
        other.record(5000);
        h.merge(&other);
        assert_eq!(h.count(), 1001);
        assert_eq!(h.quantile_us(1.0), Some(5000));
        assert_eq!(Histogram::default().quantile_us(0.5), None);
    }
}
