//! RTI-NG's interconnects across a WAN: per interconnect, receiver count and bundling delay,
//! the bytes on the site link per update, the receivers' rate and the one-way latency.

use crate::report::axis::Axis;
use crate::report::html::Section;
use crate::report::html::{details, escape, figure, number, opt_number, paragraph, Cell, Table};
use crate::report::load::{Run, Summary};
use crate::report::svg::{LineChart, Mark, Series};
use crate::results::rting::{RtingCase, RtingSummary};

pub(super) fn section(runs: &[Run]) -> Option<Section> {
    let studies: Vec<(&Run, &RtingSummary)> = runs
        .iter()
        .filter_map(|run| match &run.summary {
            Summary::WanRting(s) => Some((run, s)),
            _ => None,
        })
        .collect();
    if studies.is_empty() {
        return None;
    }
    let mut body = paragraph(
        "Answers the RTI-NG paper (Snively and Wilson, hierarchical interconnect): Table 4 \
         (sample network utilisation, 6 receivers, 5 ms bundling: bytes each process wrote), \
         Graphs 2 and 5 (mean receiver throughput, no bundling and 5 ms bundling, sender at \
         the root level), Graphs 11 and 12 (mean latency, no bundling and 5 ms bundling) and \
         the text's 20 ms case (throughput like 5 ms; latency within 2 ms of the bundling \
         timeout), moved across a WAN as its section 3 argues: one sender at one site, its \
         receivers at another. Collocated: every federate attached to one router at the \
         sender's site, which, like a fully connected RTI-NG federate, writes each update once \
         per receiver; centralized: one router at a third site (RTI-NG's distribution node in \
         the fedex process); hierarchical: a router per site. Bytes are the IP bytes the \
         lab's wan namespace sent into the receivers' site during the throughput phase \
         (framing, TCP/IP headers and acknowledgements included), divided by the updates \
         sent. The paper's claim: the hierarchical interconnect sends an update across a WAN \
         link once, the others once per remote receiver.",
    );
    body.push_str(&paragraph(
        "Bundling: off is the paper's no bundling (one frame per write); a delay holds frames \
         that long to write them together. It is set on every link an update takes (the \
         sender's own link and every router's), so a lone update waits the delay at each: \
         twice collocated or centralized, three times hierarchical, where RTI-NG bundled once, \
         in the sender's process. Folders from before the study varied it ran adaptive (the \
         Trellis default: batches form while a write is under way).",
    ));
    for (run, study) in studies {
        body.push_str(&study_body(run, study));
    }
    Some(Section {
        id: "wan-rting",
        title: "RTI-NG across a WAN: bytes on the site link, receiver rate, latency, per \
                bundling delay"
            .to_owned(),
        body,
    })
}

/// The bundling settings of a study, in the order first run.
fn settings(study: &RtingSummary) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    for case in &study.cases {
        if !seen.contains(&case.bundling.as_str()) {
            seen.push(&case.bundling);
        }
    }
    seen
}

/// The interconnects of a study, in the order first run.
fn interconnects(study: &RtingSummary) -> Vec<&str> {
    let mut seen: Vec<&str> = Vec::new();
    for case in &study.cases {
        if !seen.contains(&case.topology.as_str()) {
            seen.push(&case.topology);
        }
    }
    seen
}

/// A bundling setting in words: `off` is the paper's "no bundling".
fn bundling_text(label: &str) -> String {
    match label {
        "off" => "no bundling".to_owned(),
        "adaptive" => "adaptive".to_owned(),
        ms => format!("{} bundling", ms.replace("ms", " ms")),
    }
}

/// One figure: `value` of every case against the receiver count, a line per interconnect
/// and bundling setting.
fn chart(
    study: &RtingSummary,
    title: &str,
    y: Axis,
    value: impl Fn(&RtingCase) -> Option<f64>,
) -> LineChart {
    let mut chart = LineChart::new(title, Axis::count("receivers"), y);
    for bundling in settings(study) {
        for topology in interconnects(study) {
            let points: Vec<(f64, f64)> = study
                .cases
                .iter()
                .filter(|c| c.bundling == bundling && c.topology == topology)
                .filter_map(|c| value(c).map(|v| (c.receivers as f64, v)))
                .collect();
            if !points.is_empty() {
                let name = format!("{topology}, {}", bundling_text(bundling));
                chart.series.push(
                    Series::new(name, Mark::Line, points)
                        .dashed(bundling_is_longest(study, bundling)),
                );
            }
        }
    }
    chart
}

/// Whether `bundling` is the study's longest fixed delay (drawn dashed, to tell the lines of
/// three settings apart beside colour).
fn bundling_is_longest(study: &RtingSummary, bundling: &str) -> bool {
    let ms = |label: &str| label.trim_end_matches("ms").parse::<u64>().ok();
    let longest = settings(study).into_iter().filter_map(ms).max();
    longest.is_some() && ms(bundling) == longest
}

/// A table with a row per interconnect and receiver count and a column per bundling setting.
fn pivot(study: &RtingSummary, caption: &str, value: impl Fn(&RtingCase) -> String) -> Table {
    let bundlings = settings(study);
    let mut head = vec!["interconnect".to_owned(), "receivers".to_owned()];
    head.extend(bundlings.iter().map(|b| bundling_text(b)));
    let mut table = Table::new(caption, head);
    for topology in interconnects(study) {
        let mut counts: Vec<u64> = study
            .cases
            .iter()
            .filter(|c| c.topology == topology)
            .map(|c| c.receivers)
            .collect();
        counts.sort_unstable();
        counts.dedup();
        for n in counts {
            let mut row = vec![Cell::from(topology), Cell::from(n.to_string())];
            for bundling in &bundlings {
                let case = study.cases.iter().find(|c| {
                    c.topology == topology && c.receivers == n && c.bundling == *bundling
                });
                row.push(Cell::from(case.map_or_else(|| "–".to_owned(), &value)));
            }
            table.rows.push(row);
        }
    }
    table
}

fn study_body(run: &Run, study: &RtingSummary) -> String {
    let link = &study.link;
    let mut out = format!(
        "<h3>{}</h3>{}",
        escape(&run.series_name()),
        paragraph(&format!(
            "Site links of {} ms one way{}; {} updates of {} bytes as fast as the sender \
             could (rates), then {} paced ones (one-way latency, one clock); bundling: {}.",
            number(link.delay_ms),
            link.bandwidth_mbit
                .map(|m| format!(" at {} Mbit/s", number(m)))
                .unwrap_or_default(),
            study.updates,
            study.payload,
            study.latency_updates,
            settings(study)
                .iter()
                .map(|b| bundling_text(b))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    );
    let payload = study.payload as f64;
    out.push_str(&figure(
        chart(
            study,
            "Site-link bytes per update (Table 4)",
            Axis::from_zero("bytes into the receivers' site per update"),
            |c| Some(c.bytes_per_update),
        )
        .render(),
        "Once per update is one payload plus headers; collocated and centralized grow with the \
         receivers, hierarchical stays flat. Dashed: the longest bundling delay.",
    ));
    out.push_str(
        &pivot(
            study,
            "Site-link bytes per update (payload copies in brackets)",
            |c| {
                format!(
                    "{} ({})",
                    number(c.bytes_per_update),
                    number(c.bytes_per_update / payload)
                )
            },
        )
        .render(),
    );
    out.push_str(&figure(
        chart(
            study,
            "Mean receiver throughput (Graphs 2 and 5)",
            Axis::from_zero("updates/s per receiver"),
            |c| Some(c.receiver_rate_mean),
        )
        .render(),
        "Each receiver's updates per second while the sender sent as fast as it could, \
         averaged over the receivers.",
    ));
    out.push_str(
        &pivot(study, "Updates/s per receiver: mean (slowest)", |c| {
            format!(
                "{} ({})",
                number(c.receiver_rate_mean),
                number(c.receiver_rate_min)
            )
        })
        .render(),
    );
    out.push_str(&figure(
        chart(
            study,
            "Mean one-way latency (Graphs 11 and 12)",
            Axis::from_zero("ms, sender to receiver"),
            |c| c.latency_mean_us.map(|us| us / 1e3),
        )
        .render(),
        "Paced updates, one at a time: the site links' delay plus the bundling delay at \
         every link that bundles.",
    ));
    out.push_str(
        &pivot(study, "One-way latency (ms): mean (max)", |c| {
            format!(
                "{} ({})",
                opt_number(c.latency_mean_us.map(|us| us / 1e3)),
                opt_number(c.latency_max_us.map(|us| us / 1e3))
            )
        })
        .render(),
    );
    out.push_str(&details("Every case", every_case(study).render()));
    out
}

fn every_case(study: &RtingSummary) -> Table {
    let mut table = Table::new(
        "Per interconnect, bundling and receiver count",
        [
            "interconnect",
            "routers",
            "bundling",
            "receivers",
            "site-link bytes per update",
            "payload copies per update",
            "updates/s per receiver (mean)",
            "slowest receiver",
            "received / sent to all",
            "latency mean (ms)",
            "latency max (ms)",
        ]
        .map(str::to_owned)
        .to_vec(),
    );
    for case in &study.cases {
        let expected = case.receivers * study.updates;
        let received = format!("{} / {expected}", case.received);
        table.rows.push(vec![
            Cell::from(case.topology.as_str()),
            Cell::from(case.routers.as_str()),
            Cell::from(bundling_text(&case.bundling)),
            Cell::from(case.receivers.to_string()),
            Cell::from(number(case.bytes_per_update)),
            Cell::from(number(case.bytes_per_update / study.payload as f64)),
            Cell::from(number(case.receiver_rate_mean)),
            Cell::from(number(case.receiver_rate_min)),
            if case.received < expected {
                Cell::marked(received)
            } else {
                Cell::from(received)
            },
            Cell::from(opt_number(case.latency_mean_us.map(|us| us / 1e3))),
            Cell::from(opt_number(case.latency_max_us.map(|us| us / 1e3))),
        ]);
    }
    table
}
