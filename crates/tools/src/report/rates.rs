//! Sweeps over the number of participants (RTI-NG's benchmarks): 1 → N throughput against
//! subscribers, N ↔ N symmetric throughput against federates, one-way latency against
//! receivers.

use super::axis::Axis;
use super::cases::rows_table;
use super::html::{figure, number, opt_number, paragraph, Section};
use super::load::{LatencyCase, Run, Summary, SymmetricCase, ThroughputCase};
use super::svg::{LineChart, Mark, Series};
use crate::results::measured;
use std::collections::BTreeMap;

pub(super) fn sections(runs: &[Run]) -> Vec<Section> {
    let mut throughput = Vec::new();
    let mut symmetric = Vec::new();
    let mut latency = Vec::new();
    for run in runs {
        match &run.summary {
            Summary::Throughput(s) => throughput.push((run, s.cases.as_slice())),
            Summary::Symmetric(s) => symmetric.push((run, s.cases.as_slice())),
            Summary::Latency(s) => latency.push((run, s.cases.as_slice())),
            _ => {}
        }
    }
    let mut sections = Vec::new();
    if !throughput.is_empty() {
        sections.push(throughput_section(&throughput));
    }
    if !symmetric.is_empty() {
        sections.push(symmetric_section(&symmetric));
    }
    if !latency.is_empty() {
        sections.push(latency_section(&latency));
    }
    sections
}

/// One line per (run, message size) through the `point` of each case; baselines dashed.
fn sweep<C>(
    chart: &mut LineChart,
    runs: &[(&Run, &[C])],
    size: impl Fn(&C) -> u64,
    point: impl Fn(&C) -> Option<(f64, f64)>,
) {
    for (run, cases) in runs {
        let mut by_size: BTreeMap<u64, Vec<(f64, f64)>> = BTreeMap::new();
        for case in *cases {
            let line = by_size.entry(size(case)).or_default();
            line.extend(point(case));
        }
        for (size, points) in by_size {
            chart.series.push(
                Series::new(
                    format!("{}: {size} B", run.series_name()),
                    Mark::Line,
                    points,
                )
                .dashed(run.is_baseline()),
            );
        }
    }
}

/// Smallest, mean and largest of the finite values, as text.
fn spread(values: &[Option<f64>]) -> String {
    let finite: Vec<f64> = values
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    if finite.is_empty() {
        return "–".to_owned();
    }
    let min = finite.iter().copied().fold(f64::INFINITY, f64::min);
    let max = finite.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mean = finite.iter().sum::<f64>() / finite.len() as f64;
    format!("{} / {} / {}", number(min), number(mean), number(max))
}

fn throughput_section(runs: &[(&Run, &[ThroughputCase])]) -> Section {
    let mut chart = LineChart::new(
        "Throughput per subscriber against the number of subscribers",
        Axis::count("subscribers"),
        Axis::from_zero("messages per second per subscriber (msgs_per_sec)"),
    );
    sweep(
        &mut chart,
        runs,
        |c| c.size as u64,
        |c| measured(c.msgs_per_sec).map(|r| (c.subscribers as f64, r)),
    );
    let mut delivered = LineChart::new(
        "Messages delivered per second, all subscribers together",
        Axis::count("subscribers"),
        Axis::from_zero("delivered messages per second (all subscribers)"),
    );
    sweep(
        &mut delivered,
        runs,
        |c| c.size as u64,
        |c| {
            c.delivered_msgs_per_sec()
                .map(|r| (c.subscribers as f64, r))
        },
    );
    let table = rows_table(
        "1 → N throughput per case",
        &[
            "size (B)",
            "subscribers",
            "sent",
            "received",
            "lost",
            "sender msgs/s",
            "msgs/s per subscriber (mean)",
            "delivered msgs/s, all subscribers",
            "per subscriber msgs/s: min / mean / max",
        ],
        runs,
        |c| {
            let per_subscriber: Vec<Option<f64>> = c
                .per_subscriber_msgs_per_sec
                .iter()
                .map(|&r| measured(r))
                .collect();
            vec![
                c.size.to_string(),
                c.subscribers.to_string(),
                c.sent.to_string(),
                c.received.to_string(),
                c.lost.to_string(),
                opt_number(measured(c.sender_msgs_per_sec)),
                opt_number(measured(c.msgs_per_sec)),
                opt_number(c.delivered_msgs_per_sec()),
                spread(&per_subscriber),
            ]
        },
    );
    Section {
        id: "throughput",
        title: "Throughput against subscribers".to_owned(),
        body: format!(
            "{}{}{}{}",
            paragraph(
                "One publisher sends as fast as it can to N subscribers. The first chart is \
                 the rate each subscriber received (the benchmark's msgs_per_sec, a mean over \
                 subscribers); the second, what was delivered to all of them together (the \
                 sum of the subscribers' rates). One line per run and message size; \
                 baselines dashed."
            ),
            figure(
                chart.render(),
                "Message rate per subscriber against subscriber count."
            ),
            figure(
                delivered.render(),
                "Messages delivered per second, all subscribers together."
            ),
            table.render()
        ),
    }
}

fn symmetric_section(runs: &[(&Run, &[SymmetricCase])]) -> Section {
    let mut chart = LineChart::new(
        "Symmetric throughput against the number of federates",
        Axis::count("federates (each publishes and subscribes)"),
        Axis::from_zero("total messages per second"),
    );
    sweep(
        &mut chart,
        runs,
        |c| c.size as u64,
        |c| measured(c.total_msgs_per_sec).map(|r| (c.federates as f64, r)),
    );
    let table = rows_table(
        "N ↔ N symmetric throughput per case",
        &[
            "size (B)",
            "federates",
            "sent",
            "received",
            "lost",
            "total msgs/s",
            "per federate msgs/s: min / mean / max",
        ],
        runs,
        |c| {
            let per_federate: Vec<Option<f64>> = c
                .per_federate_msgs_per_sec
                .iter()
                .map(|&r| measured(r))
                .collect();
            vec![
                c.size.to_string(),
                c.federates.to_string(),
                c.sent.to_string(),
                c.received.to_string(),
                c.lost.to_string(),
                opt_number(measured(c.total_msgs_per_sec)),
                spread(&per_federate),
            ]
        },
    );
    Section {
        id: "symmetric",
        title: "Symmetric throughput against federates".to_owned(),
        body: format!(
            "{}{}{}",
            paragraph(
                "Every federate publishes and subscribes to every other; the rate is the sum \
                 over federates of messages received per second."
            ),
            figure(chart.render(), "Total message rate against federate count."),
            table.render()
        ),
    }
}

fn latency_section(runs: &[(&Run, &[LatencyCase])]) -> Section {
    let mut chart = LineChart::new(
        "One-way latency against the number of receivers",
        Axis::count("receivers"),
        Axis::from_zero("mean one-way latency (µs)"),
    );
    sweep(
        &mut chart,
        runs,
        |c| c.size as u64,
        |c| measured(c.mean_us).map(|m| (c.receivers as f64, m)),
    );
    let table = rows_table(
        "Multi-receiver latency per case (µs, one way: half the round trip)",
        &["size (B)", "receivers", "measured", "lost", "mean", "std"],
        runs,
        |c| {
            vec![
                c.size.to_string(),
                c.receivers.to_string(),
                c.count.to_string(),
                c.lost.to_string(),
                opt_number(measured(c.mean_us)),
                opt_number(measured(c.std_us)),
            ]
        },
    );
    Section {
        id: "latency",
        title: "Latency against receivers".to_owned(),
        body: format!(
            "{}{}{}",
            paragraph(
                "One sender, N receivers; one receiver answers, and the one-way latency is half \
                 the round trip."
            ),
            figure(
                chart.render(),
                "Mean one-way latency against receiver count."
            ),
            table.render()
        ),
    }
}
