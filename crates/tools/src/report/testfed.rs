//! The testfed load generator (JADS): per federate, its load and what it sent and received.

use super::cases::rows_table;
use super::html::{figure, opt_number, paragraph, Section};
use super::load::{FederateResult, Run, Summary};
use super::svg::{BarChart, Bars};
use crate::results::measured;

pub(super) fn section(runs: &[Run]) -> Option<Section> {
    let runs: Vec<(&Run, &[FederateResult])> = runs
        .iter()
        .filter_map(|run| match &run.summary {
            Summary::Testfed(t) => Some((run, t.federates.as_slice())),
            _ => None,
        })
        .collect();
    if runs.is_empty() {
        return None;
    }
    let several = runs.len() > 1;
    let mut names = Vec::new();
    let mut sent = Vec::new();
    let mut received = Vec::new();
    let mut interactions = Vec::new();
    for (run, federates) in &runs {
        for f in *federates {
            names.push(if several {
                format!("{}: {}", run.label, f.name)
            } else {
                f.name.clone()
            });
            sent.push(Some(f.updates_sent as f64));
            received.push(Some(f.updates_received as f64));
            interactions.push(Some(f.interactions_sent as f64));
        }
    }
    let mut chart = BarChart::new("Testfed load per federate", "count", names);
    chart.series = vec![
        Bars::new("updates sent", sent),
        Bars::new("updates received", received),
        Bars::new("interactions sent", interactions),
    ];
    let table = rows_table(
        "Testfed federates",
        &[
            "federate",
            "attributes",
            "update rate (Hz)",
            "size (B)",
            "interaction rate (Hz)",
            "ramp (s)",
            "updates sent",
            "interactions sent",
            "updates received",
        ],
        &runs,
        |f| {
            vec![
                f.name.clone(),
                f.attributes.to_string(),
                opt_number(measured(f.rate_hz)),
                f.size.to_string(),
                opt_number(measured(f.interaction_rate_hz)),
                opt_number(measured(f.ramp_seconds)),
                f.updates_sent.to_string(),
                f.interactions_sent.to_string(),
                f.updates_received.to_string(),
            ]
        },
    );
    Some(Section {
        id: "testfed",
        title: "Testfed load".to_owned(),
        body: format!(
            "{}{}{}",
            paragraph(
                "The testfed load generator: each federate updates its attributes at its rate \
                 after a ramp-up, and sends interactions."
            ),
            figure(chart.render(), "Updates and interactions per federate."),
            table.render()
        ),
    })
}
