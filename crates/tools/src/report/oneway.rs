//! The JADS one-way size × rate matrix: mean, min and max latency per case, and the MISSING
//! records (serials sent but never received).

use super::cases::CaseMatrix;
use super::html::{figure, number, opt_number, paragraph, Section};
use super::load::{OnewayCase, OnewaySummary, Run, Summary};
use std::cmp::Ordering;

pub(super) fn section(runs: &[Run]) -> Option<Section> {
    let runs: Vec<(&Run, &[OnewayCase])> = runs
        .iter()
        .filter_map(|run| match &run.summary {
            Summary::Oneway(OnewaySummary { cases, .. }) => Some((run, cases.as_slice())),
            _ => None,
        })
        .collect();
    if runs.is_empty() {
        return None;
    }
    let m = CaseMatrix::new(&runs, label, order);
    let mut latency = m.chart(
        "One-way latency per case: mean, whiskers from min to max",
        "one-way latency (µs)",
        |c| c.mean_us,
    );
    for (series, run_cases) in latency.series.iter_mut().zip(&m.cases) {
        series.whiskers = run_cases
            .iter()
            .map(|c| c.and_then(|c| c.min_us.zip(c.max_us)))
            .collect();
    }
    let missing = m.chart(
        "MISSING records per case, as a share of updates sent",
        "MISSING (% of sent)",
        |c| (c.sent > 0).then(|| 100.0 * c.missing as f64 / c.sent as f64),
    );
    let table = m.table(
        "One-way cases: sent, received, MISSING, and latency (µs)",
        &[
            ("sent", &|c: &OnewayCase| c.sent.to_string()),
            ("received", &|c: &OnewayCase| c.received.to_string()),
            ("MISSING", &|c: &OnewayCase| c.missing.to_string()),
            ("min", &|c: &OnewayCase| opt_number(c.min_us)),
            ("mean", &|c: &OnewayCase| opt_number(c.mean_us)),
            ("max", &|c: &OnewayCase| opt_number(c.max_us)),
            ("data file", &|c: &OnewayCase| {
                if c.data_file.is_empty() {
                    "–".to_owned()
                } else {
                    c.data_file.clone()
                }
            }),
        ],
    );
    Some(Section {
        id: "oneway",
        title: "One-way latency by message size and rate".to_owned(),
        body: [
            paragraph(
                "The JADS one-way tests: every update carries a serial number and its send \
                 time; the receiver records the latency of each, and a serial that never \
                 arrives is a MISSING record. A case with nothing received has no latency bar.",
            ),
            figure(
                latency.render(),
                &m.caption("Mean one-way latency; whiskers span min to max."),
            ),
            figure(
                missing.render(),
                &m.caption("MISSING records per case and run, in percent of the updates sent."),
            ),
            table.render(),
        ]
        .concat(),
    })
}

/// `17 B @ 5 Hz reliable`.
fn label(c: &OnewayCase) -> String {
    let label = format!("{} B @ {} Hz", c.size, number(c.rate_hz));
    format!("{label} {}", c.transport.name())
}

/// Size, then rate, then transport.
fn order(a: &OnewayCase, b: &OnewayCase) -> Ordering {
    a.size
        .cmp(&b.size)
        .then(a.rate_hz.total_cmp(&b.rate_hz))
        .then(a.transport.name().cmp(b.transport.name()))
}
