//! Round-trip time against message size: per run, a line per hop count and the run's mean,
//! with the baselines' means dashed; then every run's mean on one chart.

use super::{
    group_mean, hop_groups, links, mean_name, mean_points, mean_rule, overall, size_axis, size_of,
    time_axis, PingpongRun,
};
use crate::report::html::{figure, opt_number, paragraph, plural, Cell, Section, Table};
use crate::report::svg::{LineChart, Mark, Series};
use crate::results::pingpong::OUTLIER_RULE_MIN_PAIRS;

pub(super) fn section(runs: &[PingpongRun]) -> Section {
    let mut body = paragraph(&format!(
        "Mean round-trip time of the ping-pong pairs against message size. Each run gets a \
         line per hop count (pairs grouped by the number of links their messages cross; a \
         plain mean of that group's pair means) and its overall mean. {} Raw-socket \
         baselines are dashed.",
        mean_rule()
    ));
    let baselines: Vec<&PingpongRun> = runs.iter().filter(|(r, _)| r.is_baseline()).collect();
    for run in runs {
        let others: Vec<&PingpongRun> = baselines
            .iter()
            .copied()
            .filter(|b| !std::ptr::eq(b.0, run.0))
            .collect();
        body.push_str(&one_run(run, &others));
    }
    if runs.len() > 1 {
        body.push_str(&every_run(runs));
    }
    Section {
        id: "pingpong-latency",
        title: "Ping-pong: round-trip time against message size".to_owned(),
        body,
    }
}

/// One run's chart and table, with `baselines` beside it.
fn one_run((run, p): &PingpongRun, baselines: &[&PingpongRun]) -> String {
    let groups = hop_groups(p);
    let mut chart = LineChart::new(
        format!(
            "Round-trip time against message size: {}",
            run.series_name()
        ),
        size_axis(),
        time_axis("round-trip time"),
    );
    for (&count, pairs) in &groups {
        let points = p
            .sizes
            .iter()
            .filter_map(|s| group_mean(s, pairs).map(|m| (s.size as f64, m)))
            .collect();
        let name = format!("{} ({})", links(count), plural(pairs.len(), "pair"));
        chart.series.push(Series::new(name, Mark::Line, points));
    }
    chart
        .series
        .push(Series::new(mean_name(p), Mark::Line, mean_points(p)));
    for (b, bp) in baselines {
        let series = Series::new(b.series_name(), Mark::Line, mean_points(bp));
        chart.series.push(series.dashed(true));
    }
    let mut head = vec!["size (B)".to_owned(), mean_name(p), "std".to_owned()];
    head.extend(groups.keys().map(|&count| links(count)));
    head.extend(baselines.iter().map(|(b, _)| b.series_name()));
    let mut table = Table::new(
        format!(
            "{}: round-trip time (µs) by message size",
            run.series_name()
        ),
        head,
    );
    for s in &p.sizes {
        let mean = overall(s);
        let mut row: Vec<Cell> = vec![
            s.size.to_string().into(),
            opt_number(mean.mean_us).into(),
            opt_number(mean.std_us).into(),
        ];
        for pairs in groups.values() {
            row.push(opt_number(group_mean(s, pairs)).into());
        }
        for (_, bp) in baselines {
            row.push(opt_number(size_of(bp, s.size).and_then(|b| overall(b).mean_us)).into());
        }
        table.rows.push(row);
    }
    figure(
        chart.render(),
        "Lines per hop count are plain means of that group's pair means.",
    ) + &table.render()
}

/// Every run's overall mean on one chart.
fn every_run(runs: &[PingpongRun]) -> String {
    let mut chart = LineChart::new(
        "Mean round-trip time of every run",
        size_axis(),
        time_axis("round-trip time"),
    );
    let mut head = vec!["size (B)".to_owned()];
    for (run, p) in runs {
        let series = Series::new(run.series_name(), Mark::Line, mean_points(p));
        chart.series.push(series.dashed(run.is_baseline()));
        head.push(run.series_name());
    }
    let mut table = Table::new(
        format!(
            "Mean round-trip time (µs; the two largest pair means discarded only in runs of \
             {OUTLIER_RULE_MIN_PAIRS} pairs or more)"
        ),
        head,
    );
    let mut sizes: Vec<usize> = runs
        .iter()
        .flat_map(|(_, p)| p.sizes.iter().map(|s| s.size))
        .collect();
    sizes.sort_unstable();
    sizes.dedup();
    for size in sizes {
        let mut row: Vec<Cell> = vec![size.to_string().into()];
        for (_, p) in runs {
            row.push(opt_number(size_of(p, size).and_then(|s| overall(s).mean_us)).into());
        }
        table.rows.push(row);
    }
    figure(chart.render(), "Baselines are dashed.") + &table.render()
}
