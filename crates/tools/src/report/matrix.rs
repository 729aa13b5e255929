//! The 3CE EC1 characterisation matrix: throughput against theoretical, reliability, latency
//! and jitter per case (configuration × entities × rate × payload × delivery).

use super::cases::CaseMatrix;
use super::html::{figure, number, opt_number, paragraph, Section};
use super::load::{MatrixCase, MatrixCell, MatrixSummary, Run, Summary};
use super::svg::Bars;
use crate::results::measured;
use crate::results::Transport;
use std::cmp::Ordering;

const CASE_NAMES: &str = "Cases are named by configuration, entities (e), update rate, \
                          payload and delivery (rel: reliable, BE: best effort).";

pub(super) fn sections(runs: &[Run]) -> Vec<Section> {
    let runs: Vec<(&Run, &[MatrixCase])> = runs
        .iter()
        .filter_map(|run| match &run.summary {
            Summary::Matrix(MatrixSummary { cases, .. }) => Some((run, cases.as_slice())),
            _ => None,
        })
        .collect();
    if runs.is_empty() {
        return Vec::new();
    }
    let matrix = CaseMatrix::new(
        &runs,
        |c| label(&c.cell()),
        |a, b| order(&a.cell(), &b.cell()),
    );
    vec![throughput(&matrix), reliability(&matrix), timing(&matrix)]
}

/// `1-N 10e 20Hz 128B rel`: configuration, entities, update rate, payload, delivery.
pub(super) fn label(c: &MatrixCell) -> String {
    let delivery = match c.transport {
        Transport::Reliable => "rel",
        Transport::BestEffort => "BE",
    };
    format!(
        "{} {}e {}Hz {}B {delivery}",
        c.config.label(),
        c.entities,
        number(c.rate_hz),
        c.size,
    )
}

/// The paper's order: configuration, entities, rate, payload, delivery (by name, as the
/// summary spells them).
pub(super) fn order(a: &MatrixCell, b: &MatrixCell) -> Ordering {
    (a.config.label(), a.entities)
        .cmp(&(b.config.label(), b.entities))
        .then(a.rate_hz.total_cmp(&b.rate_hz))
        .then(a.size.cmp(&b.size))
        .then(a.transport.name().cmp(b.transport.name()))
}

/// Actual throughput in percent of theoretical.
fn share(c: &MatrixCase) -> Option<f64> {
    let percent = 100.0 * measured(c.throughput_mbps)? / measured(c.theoretical_mbps)?;
    percent.is_finite().then_some(percent)
}

fn throughput(m: &CaseMatrix<MatrixCase>) -> Section {
    let mut chart = m.chart("Throughput against theoretical", "throughput (Mbps)", |c| {
        measured(c.throughput_mbps)
    });
    for series in &mut chart.series {
        series.name = format!("actual: {}", series.name);
    }
    let theoretical = (0..m.labels.len())
        .map(|k| {
            m.cases
                .iter()
                .find_map(|run| run[k])
                .and_then(|c| measured(c.theoretical_mbps))
        })
        .collect();
    chart.series.push(Bars::new(
        "theoretical (entities × rate × payload)",
        theoretical,
    ));
    let percent = m.chart(
        "Throughput as a share of theoretical",
        "actual / theoretical (%)",
        share,
    );
    let table = m.table(
        "Throughput (Mbps) against theoretical, per case",
        &[
            ("theoretical", &|c: &MatrixCase| {
                opt_number(measured(c.theoretical_mbps))
            }),
            ("actual", &|c: &MatrixCase| {
                opt_number(measured(c.throughput_mbps))
            }),
            ("% of theoretical", &|c: &MatrixCase| opt_number(share(c))),
        ],
    );
    Section {
        id: "matrix-throughput",
        title: "Matrix: throughput against theoretical".to_owned(),
        body: [
            paragraph(&format!(
                "The 3CE EC1 matrix: data delivered to the subscribers (Mbps) beside the \
                 theoretical throughput, entity count × update rate × payload size. {CASE_NAMES}"
            )),
            figure(chart.render(), &m.caption("Throughput per case and run.")),
            figure(
                percent.render(),
                &m.caption("Actual throughput in percent of theoretical."),
            ),
            table.render(),
        ]
        .concat(),
    }
}

fn reliability(m: &CaseMatrix<MatrixCase>) -> Section {
    let chart = m.chart(
        "Reliability: unique updates received / published",
        "reliability (0 to 1)",
        |c| measured(c.reliability),
    );
    let table = m.table(
        "Reliability per case",
        &[("reliability", &|c: &MatrixCase| {
            opt_number(measured(c.reliability))
        })],
    );
    Section {
        id: "matrix-reliability",
        title: "Matrix: reliability".to_owned(),
        body: [
            paragraph(&format!(
                "Unique updates received divided by updates published; 1 is every update. \
                 {CASE_NAMES}"
            )),
            figure(chart.render(), &m.caption("Reliability per case and run.")),
            table.render(),
        ]
        .concat(),
    }
}

fn timing(m: &CaseMatrix<MatrixCase>) -> Section {
    let latency = m.chart(
        "Mean one-way latency per case",
        "mean one-way latency (µs)",
        |c| c.mean_latency_us,
    );
    let jitter = m.chart(
        "Jitter per case (standard deviation of latency)",
        "jitter (µs)",
        |c| c.jitter_us,
    );
    let table = m.table(
        "One-way latency and jitter per case (µs)",
        &[
            ("mean latency", &|c: &MatrixCase| {
                opt_number(c.mean_latency_us)
            }),
            ("jitter", &|c: &MatrixCase| opt_number(c.jitter_us)),
        ],
    );
    Section {
        id: "matrix-latency",
        title: "Matrix: latency and jitter".to_owned(),
        body: [
            paragraph(&format!(
                "One-way latency (receive time minus the send time carried in the update) \
                 and jitter, its standard deviation. {CASE_NAMES}"
            )),
            figure(
                latency.render(),
                &m.caption("Mean one-way latency per case and run."),
            ),
            figure(jitter.render(), &m.caption("Jitter per case and run.")),
            table.render(),
        ]
        .concat(),
    }
}
