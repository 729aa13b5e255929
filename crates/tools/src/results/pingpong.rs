//! `summary.json` of a ping-pong (rtiperf) run; times are round trips in microseconds.

use super::{number_or_null, numbers_or_nulls, unmeasured, unsaid_api, unsaid_mode};
use super::{unsaid_transport, Api, Mode, Transport};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PairInfo {
    pub master: String,
    pub slave: String,
    /// Links a message crosses between them (0 for raw sockets).
    pub links: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SizeResult {
    pub size: usize,
    /// Mean round trip over pairs, the two largest pair means left out.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub mean_us: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub std_us: f64,
    /// Every pair's mean round trip, in the order of `pairs`.
    #[serde(deserialize_with = "numbers_or_nulls")]
    pub pair_means_us: Vec<f64>,
    #[serde(default, deserialize_with = "numbers_or_nulls")]
    pub discarded_us: Vec<f64>,
    /// Absent in hand-written folders: read as 0.
    #[serde(default)]
    pub lost: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PingpongSummary {
    /// The carrier, as `meta.json` also says; absent in hand-written folders.
    #[serde(default = "unsaid_mode")]
    pub mode: Mode,
    #[serde(default = "unsaid_api", deserialize_with = "super::api_by_name")]
    pub api: Api,
    #[serde(default = "unsaid_transport")]
    pub transport: Transport,
    pub pairs: Vec<PairInfo>,
    pub sizes: Vec<SizeResult>,
    /// Round trips measured, every size and pair together. Absent in hand-written folders,
    /// as is `lost`: read as 0.
    #[serde(default)]
    pub count: usize,
    #[serde(default)]
    pub lost: usize,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub rtt_p50_us: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub rtt_p99_us: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub rtt_mean_us: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub rtt_min_us: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub rtt_max_us: f64,
    /// With agents: how times from different processes were compared (see `agents.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}

/// Pairs a run needs before its two largest pair means are treated as outliers and left
/// out of the overall mean. rtiperf's rule was made for 48 pairs, where two stragglers are
/// noise; in a run of a handful of pairs the two largest are usually the longest paths,
/// which the mean must keep.
pub const OUTLIER_RULE_MIN_PAIRS: usize = 10;

/// The overall round trip of one message size over the pairs, as the report states it.
#[derive(Clone, Debug, PartialEq)]
pub struct OverallMean {
    /// Mean of the pair means kept; `None` when no pair has a mean.
    pub mean_us: Option<f64>,
    /// Their population standard deviation.
    pub std_us: Option<f64>,
    /// Pair means that went into the mean.
    pub kept: usize,
    /// Indices (into `pair_means_us`) of the pair means left out, largest first.
    pub discarded: Vec<usize>,
}

impl OverallMean {
    /// Whether the outlier rule applied (something was discarded).
    pub fn trimmed(&self) -> bool {
        !self.discarded.is_empty()
    }
}

impl SizeResult {
    /// The mean over pairs: every measured pair mean, or, with at least
    /// [`OUTLIER_RULE_MIN_PAIRS`] of them, all but the two largest.
    pub fn overall_mean(&self) -> OverallMean {
        let mut measured: Vec<(usize, f64)> = self
            .pair_means_us
            .iter()
            .copied()
            .enumerate()
            .filter(|(_, v)| v.is_finite())
            .collect();
        // Largest first; equal means keep pair order, so the marks are reproducible.
        measured.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let discard = if measured.len() >= OUTLIER_RULE_MIN_PAIRS {
            2
        } else {
            0
        };
        let discarded = measured[..discard].iter().map(|&(i, _)| i).collect();
        let kept: Vec<f64> = measured[discard..].iter().map(|&(_, v)| v).collect();
        let n = kept.len() as f64;
        let mean = (!kept.is_empty()).then(|| kept.iter().sum::<f64>() / n);
        let std = mean.map(|m| (kept.iter().map(|v| (v - m).powi(2)).sum::<f64>() / n).sqrt());
        OverallMean {
            mean_us: mean,
            std_us: std,
            kept: kept.len(),
            discarded,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn size(pair_means_us: Vec<f64>) -> SizeResult {
        SizeResult {
            size: 64,
            mean_us: f64::NAN,
            std_us: f64::NAN,
            pair_means_us,
            discarded_us: Vec::new(),
            lost: 0,
        }
    }

    #[test]
    fn a_run_of_few_pairs_keeps_its_longest_paths_in_the_mean() {
        // Four pairs, the two farthest slowest: rtiperf's rule would report 15.
        let overall = size(vec![10.0, 20.0, 300.0, 400.0]).overall_mean();
        assert_eq!(overall.mean_us, Some(182.5));
        assert_eq!(overall.kept, 4);
        assert!(!overall.trimmed());
    }

    #[test]
    fn enough_pairs_make_the_two_largest_outliers() {
        let mut means: Vec<f64> = (1..=OUTLIER_RULE_MIN_PAIRS - 2).map(|_| 10.0).collect();
        means.insert(3, 500.0);
        means.push(900.0);
        means.push(f64::NAN); // a pair that measured nothing counts for nothing
        let overall = size(means).overall_mean();
        assert_eq!(overall.discarded, vec![OUTLIER_RULE_MIN_PAIRS - 1, 3]);
        assert_eq!(overall.mean_us, Some(10.0));
        assert_eq!(overall.std_us, Some(0.0));
        assert_eq!(overall.kept, OUTLIER_RULE_MIN_PAIRS - 2);
    }

    #[test]
    fn no_measured_pair_gives_no_mean() {
        let overall = size(vec![f64::NAN, f64::NAN]).overall_mean();
        assert_eq!(overall.mean_us, None);
        assert_eq!(overall.std_us, None);
    }
}
