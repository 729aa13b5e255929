//! The 3CE EC1 matrix across a site link (`scripts/ec1-wan`): per cell, Trellis's
//! throughput against theoretical, reliability and latency beside the raw-socket phase 0
//! measured on the same path. Drawn when matrix runs carry a `lab.json` (they ran in
//! `trellis lab`); the plain matrix sections draw the same runs as charts.

use super::html::{escape, number, opt_number, paragraph, Cell, Section, Table};
use super::load::{LabRecord, MatrixCase, MatrixSummary, Run, Summary};
use super::wan::links_text;
use crate::results::matrix::LeftOut;
use crate::results::measured;

/// A cell reaches its theoretical throughput when it delivers at least this share of it.
const REACHED: f64 = 0.95;

type Cases<'a> = (&'a Run, &'a MatrixSummary, &'a LabRecord);

pub(super) fn section(runs: &[Run]) -> Option<Section> {
    let in_lab: Vec<Cases> = runs
        .iter()
        .filter_map(|run| match (&run.summary, &run.lab) {
            (Summary::Matrix(m), Some(lab)) => Some((run, m, lab)),
            _ => None,
        })
        .collect();
    let (baselines, trellis): (Vec<Cases>, Vec<Cases>) = in_lab
        .into_iter()
        .partition(|(run, _, _)| run.is_baseline());
    if trellis.is_empty() {
        return None;
    }
    let mut body = paragraph(
        "Answers the 3CE EC1 paper's Figures 2 and 3 (phase 0: socket throughput against \
         theoretical, TCP and UDP), Figure 4 (socket latency against payload), Figures 5 and 6 \
         (middleware throughput against theoretical, reliable and best effort), Figures 7 and 8 \
         (latency) and Figures 9 and 10 (reliability), over the test configurations of its \
         Table 1 and the configurations beyond 1 to 1 (1-N, N-1, N-N). The paper's \
         preliminary results come from its LAN; EC1 was also to run over the DREN WAN. Here \
         both phases ran across one emulated site link: the federates in one site and their \
         router in the other, so an update crosses the link twice (federate → router → \
         federate). Phase 0's plain sockets take the same path, through a forwarder in the \
         router's site that copies each byte or datagram straight back (no framing, batching \
         or filtering), so phase 0 is the ceiling of that network path. Theoretical is \
         entities × rate × payload × the senders a receiver hears; throughput, reliability \
         (unique updates received / published) and latency (one way, one clock) are means \
         over receivers. Marked: below 95 % of theoretical, or reliability below 1.",
    );
    for (run, matrix, lab) in &trellis {
        // Phase 0 on the same network: the same site links.
        let paired: Vec<&Cases> = baselines
            .iter()
            .filter(|(_, _, raw_lab)| links_text(raw_lab) == links_text(lab))
            .collect();
        body.push_str(&format!(
            "<h3>{}</h3>{}",
            escape(&run.series_name()),
            paragraph(&format!(
                "{}. Phase 0 from {}.",
                links_text(lab),
                if paired.is_empty() {
                    "no raw run in the lab (none given)".to_owned()
                } else {
                    paired
                        .iter()
                        .map(|(r, _, _)| r.series_name())
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ))
        ));
        let mut rows: Vec<(&MatrixCase, Option<&MatrixCase>)> = matrix
            .cases
            .iter()
            .map(|case| (case, phase0(case, &paired)))
            .collect();
        rows.sort_by(|a, b| super::matrix::order(&a.0.cell(), &b.0.cell()));
        body.push_str(&tally(&rows));
        body.push_str(&table(&rows).render());
        body.push_str(&left_out(
            std::iter::once(*matrix).chain(paired.iter().map(|(_, m, _)| *m)),
        ));
    }
    Some(Section {
        id: "ec1-wan",
        title: "3CE EC1 across a site link: Trellis beside the raw-socket phase 0".to_owned(),
        body,
    })
}

/// The phase 0 case of the same cell: configuration, entities, rate, payload and delivery
/// (raw TCP is reliable, raw UDP best effort).
fn phase0<'a>(case: &MatrixCase, baselines: &[&'a Cases<'a>]) -> Option<&'a MatrixCase> {
    baselines
        .iter()
        .find_map(|(_, matrix, _)| matrix.cases.iter().find(|c| c.cell() == case.cell()))
}

/// The cells these runs left out (`--max-theoretical-mbps`), each named once.
fn left_out<'a>(matrices: impl Iterator<Item = &'a MatrixSummary>) -> String {
    let mut cells: Vec<&LeftOut> = matrices.flat_map(|m| m.left_out.iter()).collect();
    if cells.is_empty() {
        return String::new();
    }
    cells.sort_by(|a, b| super::matrix::order(&a.cell(), &b.cell()));
    let mut named: Vec<String> = cells
        .iter()
        .map(|c| {
            format!(
                "{} ({} Mbps)",
                super::matrix::label(&c.cell()),
                opt_number(measured(c.theoretical_mbps))
            )
        })
        .collect();
    named.dedup();
    paragraph(&format!(
        "Left out, their theoretical throughput above the runs' cap (they would only \
         measure the link's saturation, slowly): {}.",
        named.join(", ")
    ))
}

fn share(c: &MatrixCase) -> Option<f64> {
    let s = measured(c.throughput_mbps)? / measured(c.theoretical_mbps)?;
    s.is_finite().then_some(s)
}

fn reached(c: &MatrixCase) -> bool {
    share(c).is_some_and(|s| s >= REACHED)
}

/// Throughput with its share of theoretical: `1.23 (99 %)`.
fn throughput(c: &MatrixCase) -> Cell {
    let text = match (measured(c.throughput_mbps), share(c)) {
        (Some(t), Some(s)) => format!("{} ({:.0} %)", number(t), s * 100.0),
        (t, _) => opt_number(t),
    };
    if reached(c) {
        Cell::from(text)
    } else {
        Cell::marked(text)
    }
}

fn reliability(c: &MatrixCase) -> Cell {
    let text = opt_number(measured(c.reliability));
    if c.reliability >= 1.0 {
        Cell::from(text)
    } else {
        Cell::marked(text)
    }
}

fn ms(us: Option<f64>) -> String {
    opt_number(us.map(|us| us / 1e3))
}

fn table(rows: &[(&MatrixCase, Option<&MatrixCase>)]) -> Table {
    let mut table = Table::new(
        "Per cell: phase 0 (raw sockets) and Trellis on the same site link",
        [
            "cell",
            "theoretical (Mbps)",
            "phase 0 (Mbps, % of theoretical)",
            "Trellis (Mbps, % of theoretical)",
            "phase 0 reliability",
            "Trellis reliability",
            "phase 0 latency (ms)",
            "Trellis latency (ms)",
            "Trellis jitter (ms)",
            "Trellis − phase 0 latency (ms)",
        ]
        .map(str::to_owned)
        .to_vec(),
    );
    let none = || Cell::from("–");
    for (case, raw) in rows {
        let added = raw
            .and_then(|r| Some(case.mean_latency_us? - r.mean_latency_us?))
            .map(|us| us / 1e3);
        table.rows.push(vec![
            Cell::from(super::matrix::label(&case.cell())),
            Cell::from(opt_number(measured(case.theoretical_mbps))),
            raw.map_or_else(none, throughput),
            throughput(case),
            raw.map_or_else(none, reliability),
            reliability(case),
            raw.map_or_else(none, |r| Cell::from(ms(r.mean_latency_us))),
            Cell::from(ms(case.mean_latency_us)),
            Cell::from(ms(case.jitter_us)),
            Cell::from(opt_number(added)),
        ]);
    }
    table
}

/// The run in a sentence: cells at theoretical and fully delivered, for both phases, and
/// the latency Trellis adds over the path's own.
fn tally(rows: &[(&MatrixCase, Option<&MatrixCase>)]) -> String {
    let count = |f: &dyn Fn(&MatrixCase) -> bool, cases: &mut dyn Iterator<Item = &MatrixCase>| {
        let (mut yes, mut all) = (0, 0);
        for c in cases {
            all += 1;
            yes += usize::from(f(c));
        }
        format!("{yes} of {all}")
    };
    let whole = |c: &MatrixCase| c.reliability >= 1.0;
    let added: Vec<f64> = rows
        .iter()
        .filter_map(|(c, r)| Some(c.mean_latency_us? - r.as_ref()?.mean_latency_us?))
        .collect();
    let added = if added.is_empty() {
        String::new()
    } else {
        let mut sorted = added.clone();
        sorted.sort_by(f64::total_cmp);
        format!(
            " Trellis added {} ms of latency to the path's own in the median cell \
             ({} to {} ms).",
            number(sorted[sorted.len() / 2] / 1e3),
            number(sorted[0] / 1e3),
            number(sorted[sorted.len() - 1] / 1e3)
        )
    };
    paragraph(&format!(
        "At theoretical throughput (≥ 95 %): Trellis {} cells, phase 0 {}. Every update \
         delivered: Trellis {}, phase 0 {}.{added}",
        count(&reached, &mut rows.iter().map(|(c, _)| *c)),
        count(&reached, &mut rows.iter().filter_map(|(_, r)| *r)),
        count(&whole, &mut rows.iter().map(|(c, _)| *c)),
        count(&whole, &mut rows.iter().filter_map(|(_, r)| *r)),
    ))
}
