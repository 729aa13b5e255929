//! Clutter runs: per case the planned and achieved update rate, delivery against interest
//! (missing, unexpected, duplicates: exactness and completeness), latency, join times,
//! memory per federate and per entity, router forwards and each process's CPU and memory;
//! the JESPP scalability verdict over the sweep; per-second rows folded away.

use super::html::{count, details, escape, opt_number, paragraph, Cell, Section, Table};
use super::load::{ClutterSummary, Run, Summary};
use crate::results::clutter::{frames, CaseSummary, Scalability, SCALABILITY_FACTOR};

pub(super) fn section(runs: &[Run]) -> Option<Section> {
    let runs: Vec<(&Run, &ClutterSummary)> = runs
        .iter()
        .filter_map(|run| match &run.summary {
            Summary::Clutter(c) => Some((run, c)),
            _ => None,
        })
        .collect();
    if runs.is_empty() {
        return None;
    }
    let mut body = paragraph(
        "Simulators own N entities moving on a map and update each at R Hz with a 100-byte \
         entity state in the region of its current cell; each subscribes to its area and a \
         band around it, viewers to a window. Every receiver works out from the seeded motion \
         exactly which updates its interest calls for: missing must be 0 when reliable, \
         unexpected (outside the interest), duplicates and corrupt must be 0. Sustained: \
         achieved ≥ 99 % of planned, exact, complete when reliable, p99 < 100 ms.",
    );
    for (run, clutter) in &runs {
        body.push_str(&run_body(run, clutter));
    }
    Some(Section {
        id: "clutter",
        title: "Clutter: entities on a map, interest by region".to_owned(),
        body,
    })
}

fn run_body(run: &Run, clutter: &ClutterSummary) -> String {
    let mut out = format!(
        "<h3>{}</h3>{}",
        escape(&run.series_name()),
        paragraph(&format!(
            "{} Hz, {} s per case, {}, {:?} nodes, {} delivery; areas of {} units, margin {}, viewer window {}.",
            opt_number(Some(clutter.rate_hz)),
            opt_number(Some(clutter.seconds)),
            frames(clutter.frame_ms),
            clutter.driver,
            clutter.transport.name(),
            clutter.area_units,
            clutter.margin_units,
            clutter.viewer_window_units,
        ))
    );
    out.push_str(&delivery_table(&clutter.cases).render());
    out.push_str(&cost_table(&clutter.cases).render());
    if let Some(scalability) = &clutter.scalability {
        out.push_str(&paragraph(&scalability_text(scalability)));
    }
    for case in &clutter.cases {
        out.push_str(&details(
            &format!("{} entities: per process and per second", case.entities),
            format!(
                "{}{}",
                processes_table(case).render(),
                seconds_table(case).render()
            ),
        ));
    }
    out
}

fn ms(v: Option<u64>) -> String {
    opt_number(v.map(|us| us as f64 / 1000.0))
}

/// `text`, marked when `bad`.
fn mark_if(bad: bool, text: String) -> Cell {
    if bad {
        Cell::marked(text)
    } else {
        Cell::from(text)
    }
}

fn heads(names: &[&str]) -> Vec<String> {
    names.iter().map(|s| s.to_string()).collect()
}

fn delivery_table(cases: &[CaseSummary]) -> Table {
    let mut table = Table::new(
        "Rate and delivery against interest",
        heads(&[
            "entities",
            "simulators",
            "viewers",
            "planned /s",
            "achieved /s",
            "achieved %",
            "reflects",
            "expected",
            "missing",
            "unexpected",
            "duplicates",
            "delivery ratio",
            "p50 ms",
            "p99 ms",
            "max ms",
            "verdict",
        ]),
    );
    for c in cases {
        table.rows.push(vec![
            c.entities.to_string().into(),
            c.simulators.to_string().into(),
            c.viewers.to_string().into(),
            opt_number(Some(c.planned_per_second)).into(),
            opt_number(Some(c.achieved_per_second)).into(),
            mark_if(
                c.achieved_ratio < 0.99,
                opt_number(Some(c.achieved_ratio * 100.0)),
            ),
            c.reflects.to_string().into(),
            c.expected.to_string().into(),
            mark_if(c.missing > 0, c.missing.to_string()),
            mark_if(c.unexpected > 0, c.unexpected.to_string()),
            mark_if(c.duplicates > 0, c.duplicates.to_string()),
            opt_number(c.delivery_ratio).into(),
            ms(c.latency.p50_us).into(),
            mark_if(
                c.latency.p99_us.is_some_and(|p| p >= 100_000),
                ms(c.latency.p99_us),
            ),
            ms(c.latency.max_us).into(),
            mark_if(
                !c.sustained,
                (if c.sustained {
                    "sustained"
                } else {
                    "not sustained"
                })
                .to_owned(),
            ),
        ]);
    }
    table
}

fn cost_table(cases: &[CaseSummary]) -> Table {
    let mut table = Table::new(
        "Joins, memory and forwarding",
        heads(&[
            "entities",
            "join p50 ms",
            "join max ms",
            "KiB per federate",
            "B per entity (simulator)",
            "simulator RSS per entity B",
            "B per entity (viewer)",
            "entities viewers knew",
            "registering s",
            "router forwards /s",
            "max out /s per federate",
            "max in /s per federate",
        ]),
    );
    for c in cases {
        table.rows.push(vec![
            c.entities.to_string().into(),
            ms(c.join_p50_us).into(),
            ms(c.join_max_us).into(),
            opt_number(c.memory_per_federate_kb).into(),
            opt_number(c.simulator_bytes_per_entity).into(),
            opt_number(c.simulator_rss_bytes_per_entity).into(),
            opt_number(c.viewer_bytes_per_entity).into(),
            c.viewer_entities_known.to_string().into(),
            opt_number(Some(c.register_seconds)).into(),
            opt_number(c.router_forwards_per_second).into(),
            opt_number(Some(c.max_out_per_second)).into(),
            opt_number(Some(c.max_in_per_second)).into(),
        ]);
    }
    table
}

fn scalability_text(s: &Scalability) -> String {
    format!(
        "Scalability (JESPP), {} → {} entities: the busiest federate's out rate {} → {} /s and in \
         rate {} → {} /s; interest per federate {}; the condition (rates within {}× as N grows) \
         {}.",
        s.smallest_entities,
        s.largest_entities,
        opt_number(Some(s.max_out_smallest)),
        opt_number(Some(s.max_out_largest)),
        opt_number(Some(s.max_in_smallest)),
        opt_number(Some(s.max_in_largest)),
        if s.interest_fixed {
            "fixed"
        } else {
            "not fixed"
        },
        SCALABILITY_FACTOR,
        if s.holds { "holds" } else { "does not hold" },
    )
}

fn processes_table(case: &CaseSummary) -> Table {
    let mut table = Table::new(
        "Processes over the run",
        heads(&["process", "federates", "CPU %", "RSS max MiB"]),
    );
    for p in &case.process_rows {
        table.rows.push(vec![
            p.process.clone().into(),
            p.federates.to_string().into(),
            opt_number(Some(p.cpu_percent)).into(),
            opt_number(Some(p.rss_max_kb as f64 / 1024.0)).into(),
        ]);
    }
    table
}

fn seconds_table(case: &CaseSummary) -> Table {
    let mut table = Table::new(
        "Per second",
        heads(&[
            "second",
            "planned",
            "sent",
            "reflects",
            "p50 ms",
            "p99 ms",
            "max ms",
            "router forwards",
        ]),
    );
    for s in &case.seconds_rows {
        table.rows.push(vec![
            s.second.to_string().into(),
            s.planned_updates.to_string().into(),
            s.updates_sent.to_string().into(),
            s.reflects.to_string().into(),
            ms(s.latency.p50_us).into(),
            ms(s.latency.p99_us).into(),
            ms(s.latency.max_us).into(),
            count(s.router_forwards).into(),
        ]);
    }
    table
}
