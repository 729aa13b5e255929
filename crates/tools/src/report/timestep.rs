//! The time-management step rate: per network and federate count, grants per second per
//! federate and time-management messages per grant.

use super::cases::rows_table;
use super::html::{opt_number, paragraph, Section};
use super::load::{Run, Summary, TimestepCase};
use crate::results::measured;

pub(super) fn section(runs: &[Run]) -> Option<Section> {
    let runs: Vec<(&Run, &[TimestepCase])> = runs
        .iter()
        .filter_map(|run| match &run.summary {
            Summary::Timestep(t) => Some((run, t.cases.as_slice())),
            _ => None,
        })
        .collect();
    if runs.is_empty() {
        return None;
    }
    let table = rows_table(
        "Time-step rate",
        &[
            "network",
            "federates",
            "grants/s per federate",
            "time messages received per grant",
            "bounds sent per grant",
            "reflections per step",
        ],
        &runs,
        |c| {
            vec![
                c.network.clone(),
                c.federates.to_string(),
                opt_number(measured(c.grants_per_sec)),
                opt_number(measured(c.time_messages_received_per_grant)),
                opt_number(measured(c.bounds_sent_per_grant)),
                opt_number(measured(c.reflects_per_step)),
            ]
        },
    );
    Some(Section {
        id: "timestep",
        title: "Time-step rate".to_owned(),
        body: format!(
            "{}{}",
            paragraph(
                "Every federate is time-regulating (lookahead 1) and time-constrained; each step \
                 it sends one time-stamped update and asks timeAdvanceRequest(t + 1). Reflections \
                 per step are N − 1 when nothing is lost."
            ),
            table.render()
        ),
    })
}
