//! Ping-pong (rtiperf) sections, after the JESPP paper: mean round-trip time against message
//! size, one line per hop count; the tree / mesh time ratio against message size; and the
//! spread of the pair means behind each mean, with any discarded ones marked.
//!
//! The overall mean over pairs is the report's own ([`SizeResult::overall_mean`]): the two
//! largest pair means are left out only in runs of [`OUTLIER_RULE_MIN_PAIRS`] pairs or
//! more, whatever the benchmark's `mean_us` says, so a run of a few pairs keeps its
//! longest paths in its mean.

mod latency;
mod pairs;
mod ratio;

use super::axis::Axis;
use super::html::{plural, Section};
use super::load::{PingpongSummary, Run, SizeResult, Summary};
use crate::results::measured;
use crate::results::pingpong::{OverallMean, OUTLIER_RULE_MIN_PAIRS};
use std::collections::BTreeMap;

/// A ping-pong run and its summary.
type PingpongRun<'a> = (&'a Run, &'a PingpongSummary);

pub(super) fn sections(runs: &[Run]) -> Vec<Section> {
    let runs: Vec<PingpongRun> = runs
        .iter()
        .filter_map(|run| match &run.summary {
            Summary::Pingpong(p) => Some((run, p)),
            _ => None,
        })
        .collect();
    if runs.is_empty() {
        return Vec::new();
    }
    let mut sections = vec![latency::section(&runs)];
    sections.extend(ratio::section(&runs));
    sections.push(pairs::section(&runs));
    sections
}

/// How the overall mean is taken, in the words of the sections' first paragraphs.
fn mean_rule() -> String {
    format!(
        "The overall mean is the plain mean of every pair's mean round trip. Only in runs of \
         at least {OUTLIER_RULE_MIN_PAIRS} pairs are the two largest pair means discarded \
         first, as outliers (rtiperf's rule, made for 48 pairs); in a smaller run the largest \
         are usually the longest paths, so they stay in."
    )
}

/// The name of a run's overall mean, saying how it was taken.
fn mean_name(p: &PingpongSummary) -> String {
    let pairs = p.pairs.len();
    if pairs >= OUTLIER_RULE_MIN_PAIRS {
        format!("mean of {pairs} pairs, two largest discarded")
    } else {
        format!("mean of all {}", plural(pairs, "pair"))
    }
}

/// The overall mean of one size (see [`SizeResult::overall_mean`]).
fn overall(size: &SizeResult) -> OverallMean {
    size.overall_mean()
}

fn size_axis() -> Axis {
    Axis::log("message size (bytes, log scale)")
}

fn time_axis(what: &str) -> Axis {
    Axis::log(format!("{what} (µs, log scale)"))
}

/// "1 link", "4 links".
fn links(n: usize) -> String {
    if n == 1 {
        "1 link".to_owned()
    } else {
        format!("{n} links")
    }
}

/// Pair indices grouped by how many links the pair's messages cross.
fn hop_groups(p: &PingpongSummary) -> BTreeMap<usize, Vec<usize>> {
    let mut groups: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, pair) in p.pairs.iter().enumerate() {
        groups.entry(pair.links).or_default().push(i);
    }
    groups
}

/// Pair `i`'s mean at one size, if it has one.
fn pair_mean(size: &SizeResult, i: usize) -> Option<f64> {
    size.pair_means_us.get(i).copied().and_then(measured)
}

/// Plain mean of the finite pair means of `pairs` at one size.
fn group_mean(size: &SizeResult, pairs: &[usize]) -> Option<f64> {
    let values: Vec<f64> = pairs
        .iter()
        .filter_map(|&i| pair_mean(size, i))
        .filter(|v| v.is_finite())
        .collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// (size, overall mean) of every size that has a mean.
fn mean_points(p: &PingpongSummary) -> Vec<(f64, f64)> {
    p.sizes
        .iter()
        .filter_map(|s| overall(s).mean_us.map(|m| (s.size as f64, m)))
        .collect()
}

fn size_of(p: &PingpongSummary, size: usize) -> Option<&SizeResult> {
    p.sizes.iter().find(|s| s.size == size)
}
