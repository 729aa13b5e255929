//! Distributions of pair means, per run: a strip plot against message size, the cumulative
//! distribution at each size, and the table of every pair mean, any discarded marked.

use super::{
    hop_groups, links, mean_name, mean_rule, overall, pair_mean, size_axis, time_axis, PingpongRun,
};
use crate::report::axis::Axis;
use crate::report::html::{details, escape, figure, opt_number, paragraph, Cell, Section, Table};
use crate::report::load::{PingpongSummary, SizeResult};
use crate::report::svg::{LineChart, Mark, Series};

const DISCARDED: &str = "discarded (two largest)";

pub(super) fn section(runs: &[PingpongRun]) -> Section {
    let mut body = paragraph(&format!(
        "Each ping-pong pair's mean round-trip time, per message size. A narrow distribution \
         means every pair saw the same service; a plateau in the cumulative distribution means \
         two populations (in the JESPP paper, contention at the upper tree routers). {} \
         Crosses mark the pair means an overall mean discarded.",
        mean_rule()
    ));
    for (run, p) in runs {
        let marks: Vec<Vec<bool>> = p.sizes.iter().map(discarded).collect();
        body.push_str(&format!("<h3>{}</h3>", escape(&run.series_name())));
        body.push_str(&figure(
            strip(&run.series_name(), p, &marks).render(),
            "One dot per pair and size, coloured by hop count; crosses mark discarded means.",
        ));
        body.push_str(&figure(
            cdf(&run.series_name(), p, &marks).render(),
            "One curve per message size: the share of pairs whose mean was at or below x.",
        ));
        body.push_str(&details(
            &format!("Every pair mean of {} (µs)", run.series_name()),
            table(&run.series_name(), p, &marks).render(),
        ));
    }
    Section {
        id: "pair-distributions",
        title: "Distributions of pair means".to_owned(),
        body,
    }
}

/// Which pair means of one size the overall mean left out.
fn discarded(size: &SizeResult) -> Vec<bool> {
    let mut marked = vec![false; size.pair_means_us.len()];
    for i in overall(size).discarded {
        marked[i] = true;
    }
    marked
}

/// Pair means against size: dots per hop count, crosses on the discarded ones.
fn strip(name: &str, p: &PingpongSummary, marks: &[Vec<bool>]) -> LineChart {
    let mut chart = LineChart::new(
        format!("Pair means against message size: {name}"),
        size_axis(),
        time_axis("pair mean round-trip time"),
    );
    for (count, pairs) in hop_groups(p) {
        let points = p
            .sizes
            .iter()
            .flat_map(|s| {
                pairs
                    .iter()
                    .filter_map(move |&i| pair_mean(s, i).map(|v| (s.size as f64, v)))
            })
            .collect();
        chart
            .series
            .push(Series::new(links(count), Mark::Dots, points));
    }
    let crosses: Vec<(f64, f64)> = p
        .sizes
        .iter()
        .zip(marks)
        .flat_map(|(s, m)| {
            (0..m.len())
                .filter(|&i| m[i])
                .filter_map(move |i| pair_mean(s, i).map(|v| (s.size as f64, v)))
        })
        .collect();
    // A run too small for the outlier rule discards nothing: no crosses in its legend.
    if !crosses.is_empty() {
        chart
            .series
            .push(Series::new(DISCARDED, Mark::Crosses, crosses));
    }
    chart
}

/// The cumulative distribution of pair means, one curve per size, crosses on the discarded.
fn cdf(name: &str, p: &PingpongSummary, marks: &[Vec<bool>]) -> LineChart {
    let mut chart = LineChart::new(
        format!("Cumulative distribution of pair means: {name}"),
        time_axis("pair mean round-trip time"),
        Axis::from_zero("fraction of pairs at or below"),
    );
    let mut crosses = Vec::new();
    for (s, m) in p.sizes.iter().zip(marks) {
        let mut values: Vec<(f64, bool)> = s
            .pair_means_us
            .iter()
            .zip(m)
            .filter(|(v, _)| v.is_finite())
            .map(|(&v, &d)| (v, d))
            .collect();
        values.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n = values.len() as f64;
        let mut points = Vec::new();
        for (k, (v, d)) in values.into_iter().enumerate() {
            let point = (v, (k + 1) as f64 / n);
            points.push(point);
            if d {
                crosses.push(point);
            }
        }
        chart
            .series
            .push(Series::new(format!("{} B", s.size), Mark::Line, points));
    }
    // A run too small for the outlier rule discards nothing: no crosses in its legend.
    if !crosses.is_empty() {
        chart
            .series
            .push(Series::new(DISCARDED, Mark::Crosses, crosses));
    }
    chart
}

/// Every pair mean: a row per pair, a column per size; then the mean, std and discarded.
fn table(name: &str, p: &PingpongSummary, marks: &[Vec<bool>]) -> Table {
    let mut head = vec!["pair (master → slave)".to_owned(), "links".to_owned()];
    head.extend(p.sizes.iter().map(|s| format!("{} B", s.size)));
    let mut table = Table::new(
        format!("{name}: mean round-trip time of each pair (µs); discarded values in red"),
        head,
    );
    for (i, pair) in p.pairs.iter().enumerate() {
        let mut row: Vec<Cell> = vec![
            format!("{} → {}", pair.master, pair.slave).into(),
            pair.links.to_string().into(),
        ];
        for (s, m) in p.sizes.iter().zip(marks) {
            let text = opt_number(pair_mean(s, i));
            row.push(if m[i] {
                Cell::marked(format!("{text} (discarded)"))
            } else {
                text.into()
            });
        }
        table.rows.push(row);
    }
    let footer = |name: &str, value: &dyn Fn(&SizeResult) -> String| {
        let mut row: Vec<Cell> = vec![name.into(), "".into()];
        row.extend(p.sizes.iter().map(|s| Cell::from(value(s))));
        row
    };
    table
        .rows
        .push(footer(&mean_name(p), &|s| opt_number(overall(s).mean_us)));
    table
        .rows
        .push(footer("std", &|s| opt_number(overall(s).std_us)));
    table.rows.push(footer("discarded", &|s| {
        let values: Vec<String> = overall(s)
            .discarded
            .iter()
            .map(|&i| opt_number(pair_mean(s, i)))
            .collect();
        if values.is_empty() {
            "none".to_owned()
        } else {
            values.join(", ")
        }
    }));
    table
}
