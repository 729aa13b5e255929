//! From what the workers and the routers reported to one case's figures: totals, per
//! second, per federate and per process.

use super::coordinator::{CaseOutcome, WorkerOutcome};
use super::histogram::Histogram;
use super::protocol::{FederateReport, Role, WorkerMessage};
use crate::results::clutter::{
    CaseSummary, FederateRates, Latency, ProcessRow, ProcessSecond, SecondRow,
};
use serde::{Deserialize, Serialize};

/// p99 latency a sustained case stays under.
pub const SUSTAINED_P99_US: u64 = 100_000;
/// Share of the planned updates a sustained case sends.
pub const SUSTAINED_ACHIEVED: f64 = 0.99;

/// The latency figures of a histogram.
fn latency_of(histogram: &Histogram) -> Latency {
    Latency {
        p50_us: histogram.quantile_us(0.5),
        p99_us: histogram.quantile_us(0.99),
        max_us: histogram.max_us(),
    }
}

/// How the joins of a case went, from the workers' first messages.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct JoinSummary {
    pub federates: usize,
    pub join_p50_us: Option<u64>,
    pub join_max_us: Option<u64>,
    pub connect_p50_us: Option<u64>,
    pub connect_max_us: Option<u64>,
    /// Resident memory the joins added to the workers, per federate.
    pub memory_per_federate_kb: Option<f64>,
    pub register_seconds: f64,
}

pub fn joins<'a>(messages: impl Iterator<Item = &'a WorkerMessage>) -> JoinSummary {
    let mut summary = JoinSummary::default();
    let (mut join_us, mut connect_us, mut grew_kb) = (Vec::new(), Vec::new(), 0u64);
    for message in messages {
        if let WorkerMessage::Joined {
            joins,
            rss_start_kb,
            rss_joined_kb,
            register_seconds,
            ..
        } = message
        {
            summary.federates += joins.len();
            join_us.extend(joins.iter().map(|j| j.join_us));
            connect_us.extend(joins.iter().map(|j| j.connect_us));
            grew_kb += rss_joined_kb.saturating_sub(*rss_start_kb);
            summary.register_seconds = summary.register_seconds.max(*register_seconds);
        }
    }
    summary.join_p50_us = percentile(&mut join_us, 0.5);
    summary.join_max_us = join_us.iter().max().copied();
    summary.connect_p50_us = percentile(&mut connect_us, 0.5);
    summary.connect_max_us = connect_us.iter().max().copied();
    summary.memory_per_federate_kb = ratio(grew_kb as f64, summary.federates as f64);
    summary
}

fn percentile(values: &mut [u64], q: f64) -> Option<u64> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    let rank = ((q * values.len() as f64).ceil() as usize).clamp(1, values.len());
    Some(values[rank - 1])
}

fn ratio(part: f64, whole: f64) -> Option<f64> {
    (whole > 0.0).then(|| part / whole)
}

fn is_role(worker: &WorkerOutcome, role: Role) -> bool {
    worker.federates.iter().all(|f| f.role == role)
}

fn label(w: usize, worker: &WorkerOutcome) -> String {
    let role = if is_role(worker, Role::Viewer) {
        "viewers"
    } else {
        "simulators"
    };
    format!("worker {w} ({role})")
}

/// The case's figures.
pub fn summarise(
    outcome: &CaseOutcome,
    processes: usize,
    rate_hz: f64,
    seconds: f64,
    reliable: bool,
) -> CaseSummary {
    let g = &outcome.geometry;
    let reports: Vec<&FederateReport> = outcome
        .workers
        .iter()
        .flat_map(|w| &w.report.federates)
        .collect();
    let sum = |f: fn(&FederateReport) -> u64| reports.iter().map(|r| f(r)).sum::<u64>();
    let planned_updates = (0..g.simulators)
        .map(|s| (g.owned(s).1 as f64 * rate_hz * seconds).floor() as u64)
        .sum();
    let updates_sent = sum(|r| r.updates_sent);
    let expected = sum(|r| r.expected);
    let missing = sum(|r| r.missing);
    let (unexpected, duplicates, corrupt) = (
        sum(|r| r.unexpected),
        sum(|r| r.duplicates),
        sum(|r| r.corrupt),
    );
    let mut latency = Histogram::default();
    for worker in &outcome.workers {
        for second in &worker.report.seconds {
            latency.merge(&second.latency);
        }
    }
    let latency = latency_of(&latency);
    let mut joins: Vec<u64> = outcome
        .workers
        .iter()
        .flat_map(|w| w.joins.iter().map(|j| j.join_us))
        .collect();
    let mut connects: Vec<u64> = outcome
        .workers
        .iter()
        .flat_map(|w| w.joins.iter().map(|j| j.connect_us))
        .collect();
    let delivery_ratio = ratio((expected - missing.min(expected)) as f64, expected as f64);
    let achieved_ratio = ratio(updates_sent as f64, planned_updates as f64).unwrap_or(0.0);
    let exact = unexpected == 0 && duplicates == 0 && corrupt == 0;
    let complete = missing == 0;
    let federates = rates(&reports, seconds);
    let seconds_rows = second_rows(outcome, g.entities as f64 * rate_hz, seconds);
    let (process_seconds, process_rows) = processes_usage(outcome, seconds);
    let forwards: Option<u64> = outcome.routers.iter().map(|r| r.forwarded).sum();
    let sustained = achieved_ratio >= SUSTAINED_ACHIEVED
        && exact
        && (!reliable || complete)
        && latency.p99_us.is_some_and(|p99| p99 < SUSTAINED_P99_US);
    let memory = memory(outcome);
    CaseSummary {
        entities: g.entities,
        simulators: g.simulators,
        viewers: g.viewers,
        processes,
        rate_hz,
        seconds,
        reliable,
        planned_updates,
        updates_sent,
        planned_per_second: g.entities as f64 * rate_hz,
        achieved_per_second: updates_sent as f64 / seconds,
        achieved_ratio,
        reflects: sum(|r| r.reflects),
        expected,
        missing,
        unexpected,
        duplicates,
        corrupt,
        reported_lost: sum(|r| r.reported_lost),
        over_delivered: sum(|r| r.over_delivered),
        delivery_ratio,
        exact,
        complete,
        latency,
        join_p50_us: percentile(&mut joins, 0.5),
        join_max_us: joins.iter().max().copied(),
        connect_p50_us: percentile(&mut connects, 0.5),
        register_seconds: outcome
            .workers
            .iter()
            .map(|w| w.register_seconds)
            .fold(0.0, f64::max),
        memory_per_federate_kb: memory.per_federate_kb,
        simulator_bytes_per_entity: memory.simulator_per_entity,
        simulator_rss_bytes_per_entity: memory.simulator_rss_per_entity,
        viewer_bytes_per_entity: memory.viewer_per_entity,
        viewer_entities_known: memory.viewer_known,
        router_forwards_per_second: forwards
            .map(|f| f as f64 / outcome.routers.len().max(1) as f64),
        max_out_per_second: federates
            .iter()
            .map(|f| f.out_per_second)
            .fold(0.0, f64::max),
        max_in_per_second: federates
            .iter()
            .map(|f| f.in_per_second)
            .fold(0.0, f64::max),
        sustained,
        seconds_rows,
        process_seconds,
        process_rows,
        federates,
    }
}

struct Memory {
    per_federate_kb: Option<f64>,
    simulator_per_entity: Option<f64>,
    simulator_rss_per_entity: Option<f64>,
    viewer_per_entity: Option<f64>,
    viewer_known: u64,
}

fn memory(outcome: &CaseOutcome) -> Memory {
    let workers = &outcome.workers;
    let federates: usize = workers.iter().map(|w| w.federates.len()).sum();
    let joined_kb: u64 = workers
        .iter()
        .map(|w| w.rss_joined_kb.saturating_sub(w.rss_start_kb))
        .sum();
    let simulators: Vec<&WorkerOutcome> = workers
        .iter()
        .filter(|w| is_role(w, Role::Simulator))
        .collect();
    let owned: u64 = simulators
        .iter()
        .flat_map(|w| &w.report.federates)
        .map(|f| f.entities_owned)
        .sum();
    let registered_kb: u64 = simulators
        .iter()
        .map(|w| w.rss_registered_kb.saturating_sub(w.rss_joined_kb))
        .sum();
    let simulator_rss_kb: u64 = simulators.iter().map(|w| w.report.usage_end.rss_kb).sum();
    let viewers: Vec<&WorkerOutcome> = workers
        .iter()
        .filter(|w| is_role(w, Role::Viewer))
        .collect();
    let viewer_known: u64 = viewers
        .iter()
        .flat_map(|w| &w.report.federates)
        .map(|f| f.discovered)
        .sum();
    let viewer_grew_kb: u64 = viewers
        .iter()
        .map(|w| {
            w.report
                .usage_end
                .rss_kb
                .saturating_sub(w.rss_registered_kb)
        })
        .sum();
    Memory {
        per_federate_kb: ratio(joined_kb as f64, federates as f64),
        simulator_per_entity: ratio(registered_kb as f64 * 1024.0, owned as f64),
        simulator_rss_per_entity: ratio(simulator_rss_kb as f64 * 1024.0, owned as f64),
        viewer_per_entity: ratio(viewer_grew_kb as f64 * 1024.0, viewer_known as f64),
        viewer_known,
    }
}

fn rates(reports: &[&FederateReport], seconds: f64) -> Vec<FederateRates> {
    reports
        .iter()
        .map(|r| FederateRates {
            name: r.name.clone(),
            role: r.role,
            out_per_second: r.updates_sent as f64 / seconds,
            in_per_second: r.reflects as f64 / seconds,
            expected_per_second: r.expected as f64 / seconds,
        })
        .collect()
}

fn second_rows(outcome: &CaseOutcome, planned_per_second: f64, seconds: f64) -> Vec<SecondRow> {
    let last = outcome
        .workers
        .iter()
        .flat_map(|w| w.report.seconds.iter().map(|s| s.second))
        .max()
        .unwrap_or(0);
    (0..=last)
        .map(|second| {
            let mut row = SecondRow {
                second,
                planned_updates: if (second as f64) < seconds {
                    (planned_per_second * (seconds - second as f64).min(1.0)).round() as u64
                } else {
                    0
                },
                router_forwards: outcome
                    .routers
                    .iter()
                    .find(|r| r.second == second)
                    .and_then(|r| r.forwarded),
                ..SecondRow::default()
            };
            let mut latency = Histogram::default();
            for s in outcome
                .workers
                .iter()
                .flat_map(|w| &w.report.seconds)
                .filter(|s| s.second == second)
            {
                row.updates_sent += s.updates_sent;
                row.reflects += s.reflects;
                latency.merge(&s.latency);
            }
            row.latency = latency_of(&latency);
            row
        })
        .collect()
}

/// Every process per second (workers from their own samples, routers from the
/// coordinator's), and over the run's seconds.
fn processes_usage(outcome: &CaseOutcome, seconds: f64) -> (Vec<ProcessSecond>, Vec<ProcessRow>) {
    let mut per_second = Vec::new();
    let mut rows = Vec::new();
    let in_run = |second: u64| (second as f64) < seconds.ceil();
    for (w, worker) in outcome.workers.iter().enumerate() {
        let process = label(w, worker);
        let samples: Vec<_> = worker
            .report
            .seconds
            .iter()
            .filter(|s| s.rss_kb > 0)
            .collect();
        for s in &samples {
            per_second.push(ProcessSecond {
                second: s.second,
                process: process.clone(),
                cpu_percent: s.cpu_seconds * 100.0,
                rss_kb: s.rss_kb,
            });
        }
        let cpu: f64 = samples
            .iter()
            .filter(|s| in_run(s.second))
            .map(|s| s.cpu_seconds)
            .sum();
        rows.push(ProcessRow {
            process,
            federates: worker.federates.len(),
            cpu_percent: cpu * 100.0 / seconds,
            rss_max_kb: samples
                .iter()
                .map(|s| s.rss_kb)
                .max()
                .unwrap_or(worker.report.usage_end.rss_kb),
        });
    }
    let mut routers: Vec<ProcessRow> = Vec::new();
    for second in &outcome.routers {
        for (name, usage) in &second.usage {
            let process = if outcome.routers_in_process {
                format!("{name} (thread of the coordinator)")
            } else {
                name.clone()
            };
            per_second.push(ProcessSecond {
                second: second.second,
                process: process.clone(),
                cpu_percent: usage.cpu_seconds * 100.0,
                rss_kb: usage.rss_kb,
            });
            let index = match routers.iter().position(|r| r.process == process) {
                Some(index) => index,
                None => {
                    routers.push(ProcessRow {
                        process,
                        ..ProcessRow::default()
                    });
                    routers.len() - 1
                }
            };
            let row = &mut routers[index];
            if in_run(second.second) {
                row.cpu_percent += usage.cpu_seconds * 100.0 / seconds;
            }
            row.rss_max_kb = row.rss_max_kb.max(usage.rss_kb);
        }
    }
    rows.extend(routers);
    (per_second, rows)
}
