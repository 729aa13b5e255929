//! A testfed run for people and for files: the table printed, and `testfed.csv`.

use super::super::human;
use super::TestfedSummary;

pub(super) const CSV_HEADER: [&str; 17] = [
    "name",
    "at",
    "attributes",
    "rate_hz",
    "size",
    "interaction_rate_hz",
    "ramp_seconds",
    "ramp_rate_hz",
    "updates_sent",
    "ramp_updates_sent",
    "interactions_sent",
    "updates_received",
    "interactions_received",
    "updates_missing",
    "interactions_missing",
    "update_latency_max_us",
    "interaction_latency_max_us",
];

pub(super) fn csv_rows(summary: &TestfedSummary) -> Vec<Vec<String>> {
    let us = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.3}"));
    summary
        .federates
        .iter()
        .map(|f| {
            vec![
                f.name.clone(),
                f.at.clone(),
                f.attributes.to_string(),
                f.rate_hz.to_string(),
                f.size.to_string(),
                f.interaction_rate_hz.to_string(),
                f.ramp_seconds.to_string(),
                f.ramp_rate_hz.to_string(),
                f.updates_sent.to_string(),
                f.ramp_updates_sent.to_string(),
                f.interactions_sent.to_string(),
                f.updates_received.to_string(),
                f.interactions_received.to_string(),
                f.updates_missing.to_string(),
                f.interactions_missing.to_string(),
                us(f.update_latency_max_us),
                us(f.interaction_latency_max_us),
            ]
        })
        .collect()
}

/// The summary for people.
pub fn table(s: &TestfedSummary) -> String {
    let mut text = format!(
        "testfed ({:?} API, attributes {:?}, interactions reliable), {} s:",
        s.api, s.transport, s.seconds
    );
    for f in &s.federates {
        text.push_str(&format!(
            "\n  {:<12} sent {} updates ({} in the ramp), {} interactions; received {} updates, {} interactions; missing {} / {}; max latency {} / {} µs",
            f.name, f.updates_sent, f.ramp_updates_sent, f.interactions_sent,
            f.updates_received, f.interactions_received, f.updates_missing, f.interactions_missing,
            human::us(f.update_latency_max_us), human::us(f.interaction_latency_max_us)
        ));
    }
    human::push_clock(&mut text, &s.clock);
    text
}
