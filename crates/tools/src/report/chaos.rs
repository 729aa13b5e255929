//! Chaos runs: routers killed with SIGKILL and restarted under `trellis up` while federates
//! exchange updates. Per fault: detection and recovery time, what was delivered,
//! duplicated, reported lost and lost without a report, and the federation's outcome; per
//! run the totals and the verdict, a failure marked where the eye lands first.

use super::html::{count, figure, opt_number, paragraph, Cell, Section, Table};
use super::load::{Chaos, ChaosFault, ChaosTotals, Run, Summary};
use super::svg::{BarChart, Bars};

pub(super) fn section(runs: &[Run]) -> Option<Section> {
    let runs: Vec<(&Run, &Chaos)> = runs
        .iter()
        .filter_map(|run| match &run.summary {
            Summary::Chaos(c) => Some((run, c)),
            _ => None,
        })
        .collect();
    if runs.is_empty() {
        return None;
    }
    let mut body = paragraph(
        "Routers are killed with SIGKILL under trellis up (a leaf, a mid router and the \
         registry's router in turn, then at random by seed) while federates at different \
         leaves publish reliable and best-effort serials and reflect each other's. Detection: \
         kill to the first symptom a federate saw (a loss report, a lost membership, a pair \
         gone silent). Recovery: the restart to reliable traffic flowing again between every \
         pair. Duplicated and unreported must be 0; updates lost with a membership were \
         announced by connectionLost.",
    );
    for (run, chaos) in &runs {
        body.push_str(&run_body(run, chaos));
    }
    Some(Section {
        id: "chaos",
        title: "Chaos: routers killed and restarted".to_owned(),
        body,
    })
}

fn run_body(run: &Run, chaos: &Chaos) -> String {
    let mut out = format!(
        "<h3>{}</h3>{}",
        super::html::escape(&run.series_name()),
        paragraph(&describe(chaos))
    );
    out.push_str(&verdict(chaos));
    if !chaos.faults.is_empty() {
        out.push_str(&figure(
            times_chart(chaos).render(),
            "Seconds from the kill to the first symptom, and from the restart to traffic between every pair.",
        ));
    }
    out.push_str(&faults_table(chaos).render());
    out
}

fn describe(chaos: &Chaos) -> String {
    format!(
        "On {}: {} s of faults, one every {} s, {} Hz per publisher, seed {}.",
        chaos.topology.as_deref().unwrap_or("?"),
        opt_number(chaos.seconds),
        opt_number(chaos.fault_every_seconds),
        opt_number(chaos.rate_hz),
        count(chaos.seed)
    )
}

/// The run's totals as a one-row table, failures marked, and any problem that stopped it.
fn verdict(chaos: &Chaos) -> String {
    let mut table = Table::new(
        "Totals over the whole run",
        [
            "verdict",
            "faults",
            "recovered",
            "delivered",
            "duplicated",
            "reported lost",
            "unreported",
            "lost with a membership",
            "best-effort ratio",
            "memberships lost",
        ]
        .map(String::from)
        .to_vec(),
    );
    if let Some(t) = &chaos.totals {
        table.rows.push(totals_row(chaos.passed, t));
    }
    let mut out = table.render();
    for problem in &chaos.problems {
        out.push_str(&paragraph(&format!("Stopped early: {problem}")));
    }
    out
}

/// `text`, marked when `bad`.
fn mark_if(bad: bool, text: String) -> Cell {
    if bad {
        Cell::marked(text)
    } else {
        Cell::from(text)
    }
}

fn totals_row(passed: Option<bool>, t: &ChaosTotals) -> Vec<Cell> {
    let nonzero = |v: Option<u64>| v.is_some_and(|v| v > 0);
    vec![
        match passed {
            Some(true) => Cell::from("pass"),
            Some(false) => Cell::marked("FAIL"),
            None => Cell::from("–"),
        },
        count(t.faults).into(),
        mark_if(t.recovered < t.faults, count(t.recovered)),
        count(t.delivered).into(),
        mark_if(nonzero(t.duplicated), count(t.duplicated)),
        count(t.reported_lost).into(),
        mark_if(nonzero(t.unreported), count(t.unreported)),
        count(t.lost_with_membership).into(),
        opt_number(t.best_effort_ratio).into(),
        count(t.memberships_lost).into(),
    ]
}

fn times_chart(chaos: &Chaos) -> BarChart {
    let names = chaos
        .faults
        .iter()
        .map(|f| format!("{} {} {}", f.number, f.kind, f.router))
        .collect();
    let mut chart = BarChart::new("Detection and recovery per fault", "seconds", names);
    chart.series = vec![
        Bars::new(
            "detection",
            chaos.faults.iter().map(|f| f.detection_s).collect(),
        ),
        Bars::new(
            "recovery",
            chaos.faults.iter().map(|f| f.recovery_s).collect(),
        ),
    ];
    chart
}

fn faults_table(chaos: &Chaos) -> Table {
    let head = [
        "#",
        "fault",
        "router",
        "killed at (s)",
        "detection (s)",
        "first symptom",
        "recovery (s)",
        "outage (s)",
        "delivered",
        "duplicated",
        "reported lost",
        "unreported",
        "lost with a membership",
        "best-effort ratio",
        "federation",
    ];
    let mut table = Table::new("Per fault", head.map(String::from).to_vec());
    table.rows = chaos.faults.iter().map(fault_row).collect();
    table
}

fn fault_row(f: &ChaosFault) -> Vec<Cell> {
    let nonzero = |v: Option<u64>| v.is_some_and(|v| v > 0);
    vec![
        f.number.to_string().into(),
        f.kind.as_str().into(),
        f.router.as_str().into(),
        opt_number(f.killed_at_s).into(),
        opt_number(f.detection_s).into(),
        f.detected_by.as_deref().unwrap_or("none seen").into(),
        if f.recovered {
            opt_number(f.recovery_s).into()
        } else {
            Cell::marked("never")
        },
        opt_number(f.outage_s).into(),
        count(f.delivered).into(),
        mark_if(nonzero(f.duplicated), count(f.duplicated)),
        count(f.reported_lost).into(),
        mark_if(nonzero(f.unreported), count(f.unreported)),
        count(f.lost_with_membership).into(),
        opt_number(f.best_effort_ratio).into(),
        f.outcome.as_deref().unwrap_or("–").into(),
    ]
}
