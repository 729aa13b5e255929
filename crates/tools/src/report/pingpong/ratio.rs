//! The JESPP paper's mesh / tree comparison: R = (mean tree time) / (mean mesh time) against
//! message size, overall and per hop count of the tree.

use super::{group_mean, hop_groups, links, mean_name, overall, size_axis, size_of, PingpongRun};
use crate::report::axis::Axis;
use crate::report::html::{figure, opt_number, paragraph, Cell, Section, Table};
use crate::report::load::{PingpongSummary, Shape, SizeResult};
use crate::report::svg::{LineChart, Mark, Series};
use std::collections::HashMap;

/// A chart and table for every (tree run, mesh run) combination with a pair in common;
/// `None` without one.
pub(super) fn section(runs: &[PingpongRun]) -> Option<Section> {
    let of_shape = |shape| -> Vec<&PingpongRun> {
        runs.iter()
            .filter(|(r, _)| !r.is_baseline() && r.shape() == Some(shape))
            .collect()
    };
    let (trees, meshes) = (of_shape(Shape::Tree), of_shape(Shape::Mesh));
    if trees.is_empty() || meshes.is_empty() {
        return None;
    }
    let mut body = paragraph(
        "The JESPP paper's comparison: R = (mean tree time) / (mean mesh time) at each message \
         size both runs measured. R above 1 means the mesh was faster. Per-hop lines take the \
         pairs with that many links in the tree and the same pairs (matched by master and \
         slave names) in the mesh, and divide the plain means of their pair means.",
    );
    // Runs of different pairs (the WAN study's hop classes, each a run of its own) are not
    // compared: their means would set one set of pairs against another.
    let couples: Vec<(&PingpongRun, &PingpongRun)> = trees
        .iter()
        .flat_map(|t| meshes.iter().map(move |m| (*t, *m)))
        .filter(|((_, t), (_, m))| share_a_pair(t, m))
        .collect();
    if couples.is_empty() {
        return None;
    }
    let several = couples.len() > 1;
    for (tree, mesh) in couples {
        body.push_str(&compare(tree, mesh, several));
    }
    Some(Section {
        id: "tree-mesh-ratio",
        title: "Tree / mesh time ratio against message size".to_owned(),
        body,
    })
}

/// Whether the runs have a pair in common (the same master and slave), or one names none
/// (nothing says its pairs differ).
fn share_a_pair(t: &PingpongSummary, m: &PingpongSummary) -> bool {
    t.pairs.is_empty()
        || m.pairs.is_empty()
        || t.pairs.iter().any(|a| {
            m.pairs
                .iter()
                .any(|b| a.master == b.master && a.slave == b.slave)
        })
}

/// `a / b` when both exist and the quotient is finite.
fn quotient(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    let q = a? / b?;
    q.is_finite().then_some(q)
}

/// Per hop count of the tree, the ratio at each of `sizes` for the pairs both runs have.
fn per_hop(
    t: &PingpongSummary,
    m: &PingpongSummary,
    sizes: &[(&SizeResult, &SizeResult)],
) -> Vec<(usize, Vec<Option<f64>>)> {
    let in_mesh: HashMap<(&str, &str), usize> = m
        .pairs
        .iter()
        .enumerate()
        .map(|(i, p)| ((p.master.as_str(), p.slave.as_str()), i))
        .collect();
    let mut hops = Vec::new();
    for (count, pairs) in hop_groups(t) {
        let (tree_pairs, mesh_pairs): (Vec<usize>, Vec<usize>) = pairs
            .iter()
            .filter_map(|&i| {
                let pair = &t.pairs[i];
                let key = (pair.master.as_str(), pair.slave.as_str());
                in_mesh.get(&key).map(|&j| (i, j))
            })
            .unzip();
        if tree_pairs.is_empty() {
            continue;
        }
        let ratios = sizes
            .iter()
            .map(|(ts, ms)| quotient(group_mean(ts, &tree_pairs), group_mean(ms, &mesh_pairs)))
            .collect();
        hops.push((count, ratios));
    }
    hops
}

/// The chart and table of one tree run against one mesh run.
fn compare((tree, t): &PingpongRun, (mesh, m): &PingpongRun, several: bool) -> String {
    let prefix = if several {
        format!("{} / {}: ", tree.label, mesh.label)
    } else {
        String::new()
    };
    let title = format!("Tree / mesh time ratio: {} / {}", tree.label, mesh.label);
    let sizes: Vec<(&SizeResult, &SizeResult)> = t
        .sizes
        .iter()
        .filter_map(|ts| size_of(m, ts.size).map(|ms| (ts, ms)))
        .collect();
    let ratios: Vec<Option<f64>> = sizes
        .iter()
        .map(|(ts, ms)| quotient(overall(ts).mean_us, overall(ms).mean_us))
        .collect();
    let hops = per_hop(t, m, &sizes);

    let points = |ratios: &[Option<f64>]| -> Vec<(f64, f64)> {
        sizes
            .iter()
            .zip(ratios)
            .filter_map(|((ts, _), r)| r.map(|r| (ts.size as f64, r)))
            .collect()
    };
    let mut chart = LineChart::new(
        title.clone(),
        size_axis(),
        Axis::from_zero("tree time / mesh time"),
    );
    chart.reference = Some((1.0, "equal times".to_owned()));
    let name = format!("{prefix}{} / {}", mean_name(t), mean_name(m));
    chart
        .series
        .push(Series::new(name, Mark::Line, points(&ratios)));
    for (count, ratios) in &hops {
        let name = format!("{prefix}pairs with {} in the tree", links(*count));
        chart
            .series
            .push(Series::new(name, Mark::Line, points(ratios)));
    }

    let mut head = vec![
        "size (B)".to_owned(),
        format!("tree mean (µs): {}", tree.label),
        format!("mesh mean (µs): {}", mesh.label),
        "ratio tree / mesh".to_owned(),
    ];
    head.extend(
        hops.iter()
            .map(|(count, _)| format!("ratio, {} in the tree", links(*count))),
    );
    let mut table = Table::new(title, head);
    for (k, (ts, ms)) in sizes.iter().enumerate() {
        let mut row: Vec<Cell> = vec![
            ts.size.to_string().into(),
            opt_number(overall(ts).mean_us).into(),
            opt_number(overall(ms).mean_us).into(),
            opt_number(ratios[k]).into(),
        ];
        row.extend(hops.iter().map(|(_, r)| opt_number(r[k]).into()));
        table.rows.push(row);
    }
    figure(
        chart.render(),
        "Above the dotted line at 1 the mesh was faster.",
    ) + &table.render()
}
