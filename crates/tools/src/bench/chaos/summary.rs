//! A chaos run's results: one record per fault, the totals, the verdict, and how they are
//! written (`chaos.csv`) and printed.

use super::super::results::Results;
use super::super::BenchError;
use super::ledger::{Counts, Ledger, WindowView};
use super::monitor::Monitor;
use super::{ChaosOptions, ChaosSummary, ChaosTotals, FaultRecord, FaultTimes, Plan};
use std::time::Duration;

fn seconds(d: Duration) -> f64 {
    (d.as_secs_f64() * 1000.0).round() / 1000.0
}

fn ratio(delivered: u64, expected: u64) -> Option<f64> {
    (expected > 0).then(|| delivered as f64 / expected as f64)
}

pub(super) fn summarise(
    options: &ChaosOptions,
    plan: &Plan,
    monitor: &Monitor,
    faults: &[FaultTimes],
    problems: Vec<String>,
) -> ChaosSummary {
    let starts: Vec<Duration> = faults.iter().map(|f| f.killed_at).collect();
    let restarts: Vec<Option<Duration>> = faults.iter().map(|f| f.restarted_at).collect();
    let stall = Duration::from_secs_f64(3.0 / options.rate_hz.max(0.1)) + Duration::from_millis(50);
    let ledger = Ledger {
        log: &monitor.log,
        starts: &starts,
        recover_since: &restarts,
        names: &plan.federates,
        stall,
    };
    let (views, total) = ledger.account();
    let records: Vec<FaultRecord> = faults
        .iter()
        .zip(&views[1..])
        .enumerate()
        .map(|(i, (fault, view))| record(i + 1, fault, view, plan.federates.len()))
        .collect();
    let totals = totals(&records, &total);
    ChaosSummary {
        topology: plan.name.clone(),
        routers: plan.topology.routers().count(),
        federates: plan.federates.clone(),
        seconds: options.duration.as_secs_f64(),
        fault_every_seconds: options.fault_every.as_secs_f64(),
        rate_hz: options.rate_hz,
        seed: options.seed,
        passed: totals.duplicated == 0
            && totals.unreported == 0
            && totals.recovered == totals.faults
            && problems.is_empty(),
        faults: records,
        totals,
        problems,
    }
}

fn record(number: usize, fault: &FaultTimes, view: &WindowView, federates: usize) -> FaultRecord {
    let c = &view.counts;
    let after = |at: Duration| seconds(at.saturating_sub(fault.killed_at));
    FaultRecord {
        number,
        kind: fault.kind,
        router: fault.router.clone(),
        killed_at_s: seconds(fault.killed_at),
        restarted_after_s: fault.restarted_at.map(after),
        detection_s: view.detected.as_ref().map(|(at, _)| after(*at)),
        detected_by: view.detected.as_ref().map(|(_, by)| by.clone()),
        recovery_s: view
            .recovered
            .zip(fault.restarted_at)
            .map(|(done, restart)| seconds(done.saturating_sub(restart))),
        outage_s: view.recovered.map(after),
        recovered: view.recovered.is_some(),
        delivered: c.delivered,
        duplicated: c.duplicated,
        reported_lost: c.reported_lost,
        missing: c.missing,
        unreported: c.unreported,
        lost_with_membership: c.lost_with_membership,
        best_effort_expected: c.best_effort_expected,
        best_effort_delivered: c.best_effort_delivered,
        best_effort_ratio: ratio(c.best_effort_delivered, c.best_effort_expected),
        memberships_lost: c.memberships_lost,
        membership_fault: c.membership_fault.clone(),
        outcome: outcome(c, fault.killed_at, federates),
    }
}

/// The federation-level outcome of one fault.
fn outcome(c: &Counts, killed_at: Duration, federates: usize) -> String {
    if c.memberships_lost == 0 {
        return "memberships kept".into();
    }
    let what = if c.memberships_lost >= federates {
        "federation lost".to_owned()
    } else {
        format!("{} of {federates} memberships lost", c.memberships_lost)
    };
    match c.last_rejoin {
        Some(at) => format!(
            "{what}, rejoined after {:.2} s",
            at.saturating_sub(killed_at).as_secs_f64()
        ),
        None => format!("{what}, not rejoined"),
    }
}

fn totals(records: &[FaultRecord], total: &Counts) -> ChaosTotals {
    ChaosTotals {
        faults: records.len(),
        recovered: records.iter().filter(|r| r.recovered).count(),
        delivered: total.delivered,
        duplicated: total.duplicated,
        reported_lost: total.reported_lost,
        missing: total.missing,
        unreported: total.unreported,
        lost_with_membership: total.lost_with_membership,
        best_effort_expected: total.best_effort_expected,
        best_effort_delivered: total.best_effort_delivered,
        best_effort_ratio: ratio(total.best_effort_delivered, total.best_effort_expected),
        memberships_lost: total.memberships_lost,
    }
}

const CSV_HEADER: [&str; 21] = [
    "number",
    "kind",
    "router",
    "killed_at_s",
    "restarted_after_s",
    "detection_s",
    "detected_by",
    "recovery_s",
    "outage_s",
    "recovered",
    "delivered",
    "duplicated",
    "reported_lost",
    "missing",
    "unreported",
    "lost_with_membership",
    "best_effort_expected",
    "best_effort_delivered",
    "best_effort_ratio",
    "memberships_lost",
    "outcome",
];

/// A CSV field: quoted when it holds a comma or a quote.
pub(super) fn field(text: String) -> String {
    if text.contains([',', '"']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

fn csv_row(r: &FaultRecord) -> Vec<String> {
    let opt = |v: Option<f64>| v.map_or_else(String::new, |v| v.to_string());
    vec![
        r.number.to_string(),
        r.kind.label().to_owned(),
        field(r.router.clone()),
        r.killed_at_s.to_string(),
        opt(r.restarted_after_s),
        opt(r.detection_s),
        field(r.detected_by.clone().unwrap_or_default()),
        opt(r.recovery_s),
        opt(r.outage_s),
        r.recovered.to_string(),
        r.delivered.to_string(),
        r.duplicated.to_string(),
        r.reported_lost.to_string(),
        r.missing.to_string(),
        r.unreported.to_string(),
        r.lost_with_membership.to_string(),
        r.best_effort_expected.to_string(),
        r.best_effort_delivered.to_string(),
        opt(r.best_effort_ratio),
        r.memberships_lost.to_string(),
        field(r.outcome.clone()),
    ]
}

/// `summary.json`, `faults.json` and `faults.csv`.
pub(super) fn write(results: &Results, summary: &ChaosSummary) -> Result<(), BenchError> {
    results.write_summary(summary)?;
    results.write_json("faults.json", &summary.faults)?;
    let rows: Vec<Vec<String>> = summary.faults.iter().map(csv_row).collect();
    results.write_csv("faults.csv", &CSV_HEADER, &rows)?;
    Ok(())
}

/// Seconds for the table: "-" when there is no figure.
fn secs(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.3}"))
}

/// The per-fault table, the totals and the verdict, for people.
pub fn table(s: &ChaosSummary) -> String {
    let mut out = format!(
        "chaos on {} ({} routers; federates {}), {} s, a fault every {} s, {} Hz per publisher, seed {}\n",
        s.topology,
        s.routers,
        s.federates.join(" "),
        s.seconds,
        s.fault_every_seconds,
        s.rate_hz,
        s.seed
    );
    out.push_str(&format!(
        "{:>3} {:>7} {:<8} {:<10} {:>8} {:>9} {:>8} {:>9} {:>4} {:>8} {:>6} {:>8} {:>7}  {:<32} federation\n",
        "#", "kill s", "fault", "router", "detect s", "recover s", "outage s", "delivered", "dup",
        "rep lost", "unrep", "w/ memb", "BE", "first symptom"
    ));
    for r in &s.faults {
        out.push_str(&format!(
            "{:>3} {:>7.1} {:<8} {:<10} {:>8} {:>9} {:>8} {:>9} {:>4} {:>8} {:>6} {:>8} {:>7}  {:<32} {}\n",
            r.number,
            r.killed_at_s,
            r.kind.label(),
            r.router,
            secs(r.detection_s),
            if r.recovered { secs(r.recovery_s) } else { "NEVER".into() },
            secs(r.outage_s),
            r.delivered,
            r.duplicated,
            r.reported_lost,
            r.unreported,
            r.lost_with_membership,
            r.best_effort_ratio.map_or_else(|| "-".into(), |v| format!("{v:.3}")),
            r.detected_by.as_deref().unwrap_or("none seen"),
            r.outcome,
        ));
    }
    out.push_str(&totals_line(&s.totals));
    out.push_str(&verdict(s));
    out
}

fn totals_line(t: &ChaosTotals) -> String {
    format!(
        "totals (whole run): {} faults, {} recovered; reliable: delivered {}, duplicated {}, reported lost {} (gaps {}), unreported {}, lost with a membership {}; best effort: {} of {} ({}); memberships lost {}\n",
        t.faults,
        t.recovered,
        t.delivered,
        t.duplicated,
        t.reported_lost,
        t.missing,
        t.unreported,
        t.lost_with_membership,
        t.best_effort_delivered,
        t.best_effort_expected,
        t.best_effort_ratio.map_or_else(|| "-".into(), |v| format!("{v:.3}")),
        t.memberships_lost
    )
}

/// PASS, or every reason it is not, loudly.
fn verdict(s: &ChaosSummary) -> String {
    let t = &s.totals;
    let mut out = String::new();
    if t.duplicated > 0 {
        out.push_str(&format!(
            "FAIL: {} reliable updates were DELIVERED TWICE\n",
            t.duplicated
        ));
    }
    if t.unreported > 0 {
        out.push_str(&format!(
            "FAIL: {} reliable updates were LOST WITHOUT A REPORT (silent loss)\n",
            t.unreported
        ));
    }
    if t.recovered < t.faults {
        out.push_str(&format!(
            "FAIL: {} of {} faults never recovered\n",
            t.faults - t.recovered,
            t.faults
        ));
    }
    for problem in &s.problems {
        out.push_str(&format!("FAIL: {problem}\n"));
    }
    if out.is_empty() {
        out.push_str("PASS: no duplicate, no unreported loss, every fault recovered\n");
    }
    out
}
