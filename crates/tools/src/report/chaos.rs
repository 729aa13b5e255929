//! ChaosSummary runs: routers killed with SIGKILL and restarted under `trellis up` while federates
//! exchange updates. Per fault: detection and recovery time, what was delivered,
//! duplicated, reported lost and lost without a report, and the federation's outcome; per
//! run the totals and the verdict, a failure marked where the eye lands first.

use super::html::{figure, opt_number, paragraph, Cell, Section, Table};
use super::load::{ChaosSummary, ChaosTotals, FaultRecord, Run, Summary};
use super::svg::{BarChart, Bars};
use crate::results::measured;

pub(super) fn section(runs: &[Run]) -> Option<Section> {
    let runs: Vec<(&Run, &ChaosSummary)> = runs
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

fn run_body(run: &Run, chaos: &ChaosSummary) -> String {
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

fn describe(chaos: &ChaosSummary) -> String {
    format!(
        "On {}: {} s of faults, one every {} s, {} Hz per publisher, seed {}.",
        if chaos.topology.is_empty() {
            "?"
        } else {
            &chaos.topology
        },
        opt_number(measured(chaos.seconds)),
        opt_number(measured(chaos.fault_every_seconds)),
        opt_number(measured(chaos.rate_hz)),
        chaos.seed
    )
}

/// The run's totals as a one-row table, failures marked, and any problem that stopped it.
fn verdict(chaos: &ChaosSummary) -> String {
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
    table.rows.push(totals_row(chaos.passed, &chaos.totals));
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

fn totals_row(passed: bool, t: &ChaosTotals) -> Vec<Cell> {
    vec![
        if passed {
            Cell::from("pass")
        } else {
            Cell::marked("FAIL")
        },
        t.faults.to_string().into(),
        mark_if(t.recovered < t.faults, t.recovered.to_string()),
        t.delivered.to_string().into(),
        mark_if(t.duplicated > 0, t.duplicated.to_string()),
        t.reported_lost.to_string().into(),
        mark_if(t.unreported > 0, t.unreported.to_string()),
        t.lost_with_membership.to_string().into(),
        opt_number(t.best_effort_ratio).into(),
        t.memberships_lost.to_string().into(),
    ]
}

fn times_chart(chaos: &ChaosSummary) -> BarChart {
    let names = chaos
        .faults
        .iter()
        .map(|f| format!("{} {} {}", f.number, f.kind.label(), f.router))
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

fn faults_table(chaos: &ChaosSummary) -> Table {
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

fn fault_row(f: &FaultRecord) -> Vec<Cell> {
    vec![
        f.number.to_string().into(),
        f.kind.label().into(),
        f.router.as_str().into(),
        opt_number(measured(f.killed_at_s)).into(),
        opt_number(f.detection_s).into(),
        f.detected_by.as_deref().unwrap_or("none seen").into(),
        if f.recovered {
            opt_number(f.recovery_s).into()
        } else {
            Cell::marked("never")
        },
        opt_number(f.outage_s).into(),
        f.delivered.to_string().into(),
        mark_if(f.duplicated > 0, f.duplicated.to_string()),
        f.reported_lost.to_string().into(),
        mark_if(f.unreported > 0, f.unreported.to_string()),
        f.lost_with_membership.to_string().into(),
        opt_number(f.best_effort_ratio).into(),
        if f.outcome.is_empty() {
            "–".into()
        } else {
            f.outcome.as_str().into()
        },
    ]
}
