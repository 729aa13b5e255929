//! JESPP's tree and mesh of routers across sites: per hop class (pairs whose messages cross
//! the same number of tree links), the tree / mesh time ratio against message size and the
//! cumulative distribution of the pair means.

use super::links_text;
use crate::report::axis::Axis;
use crate::report::html::Table;
use crate::report::html::{details, figure, number, opt_number, paragraph, Cell, Section};
use crate::report::load::{LabRecord, PingpongSummary, Run, Shape, SizeResult, Summary};
use crate::report::svg::{LineChart, Mark, Series};
use crate::results::measured;
use std::collections::BTreeMap;

/// The message size the paper drew its distributions at (Figure 22: 8 KB).
const PAPER_CDF_SIZE: usize = 8192;

/// A ping-pong run made inside the site lab.
struct InLab<'a> {
    run: &'a Run,
    p: &'a PingpongSummary,
    lab: &'a LabRecord,
}

/// Pairs of a tree run whose messages cross `tree_links` links, and the same pairs
/// (matched by master and slave names) in a mesh run.
struct Class<'a> {
    name: String,
    tree: &'a InLab<'a>,
    mesh: &'a InLab<'a>,
    tree_links: usize,
    tree_pairs: Vec<usize>,
    mesh_pairs: Vec<usize>,
}

impl Class<'_> {
    /// Whether the class holds every pair of both runs (a run of one hop class, as the paper
    /// ran them).
    fn whole_runs(&self) -> bool {
        self.tree_pairs.len() == self.tree.p.pairs.len()
            && self.mesh_pairs.len() == self.mesh.p.pairs.len()
    }
}

fn in_lab(runs: &[Run], shape: Shape) -> Vec<InLab<'_>> {
    runs.iter()
        .filter(|run| !run.is_baseline() && run.shape() == Some(shape))
        .filter_map(|run| match (&run.summary, &run.lab) {
            (Summary::Pingpong(p), Some(lab)) => Some(InLab { run, p, lab }),
            _ => None,
        })
        .collect()
}

/// The paper's name for pairs `links` tree links apart: the depth of the path above the
/// leaf routers (2 links: 0-Hop, 6: 2-Hop, 8: 3-Hop).
fn hop_name(links: usize) -> String {
    if links >= 2 && links % 2 == 0 {
        format!("{}-Hop", (links - 2) / 2)
    } else {
        format!("{links} links")
    }
}

/// Every hop class of every (tree run, mesh run) couple sharing pairs.
fn classes<'a>(trees: &'a [InLab<'a>], meshes: &'a [InLab<'a>]) -> Vec<Class<'a>> {
    let mut out = Vec::new();
    for tree in trees {
        for mesh in meshes {
            let mut groups: BTreeMap<usize, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
            for (i, pair) in tree.p.pairs.iter().enumerate() {
                let same = mesh
                    .p
                    .pairs
                    .iter()
                    .position(|m| m.master == pair.master && m.slave == pair.slave);
                if let Some(j) = same {
                    let group = groups.entry(pair.links).or_default();
                    group.0.push(i);
                    group.1.push(j);
                }
            }
            for (tree_links, (tree_pairs, mesh_pairs)) in groups {
                let mut mesh_links: Vec<usize> =
                    mesh_pairs.iter().map(|&j| mesh.p.pairs[j].links).collect();
                mesh_links.sort_unstable();
                mesh_links.dedup();
                let mesh_links: Vec<String> = mesh_links.iter().map(usize::to_string).collect();
                out.push(Class {
                    name: format!(
                        "{} ({tree_links} tree links, {} mesh)",
                        hop_name(tree_links),
                        mesh_links.join("/")
                    ),
                    tree,
                    mesh,
                    tree_links,
                    tree_pairs,
                    mesh_pairs,
                });
            }
        }
    }
    out.sort_by_key(|c| c.tree_links);
    // Two classes of one name (several couples): say which runs each came from.
    let names: Vec<String> = out.iter().map(|c| c.name.clone()).collect();
    for class in &mut out {
        if names.iter().filter(|n| **n == class.name).count() > 1 {
            class.name = format!(
                "{}: {} / {}",
                class.name, class.tree.run.label, class.mesh.run.label
            );
        }
    }
    out
}

fn size_of(p: &PingpongSummary, size: usize) -> Option<&SizeResult> {
    p.sizes.iter().find(|s| s.size == size)
}

/// The finite pair means of `pairs` at one size.
fn means(size: &SizeResult, pairs: &[usize]) -> Vec<f64> {
    pairs
        .iter()
        .filter_map(|&i| size.pair_means_us.get(i).copied().and_then(measured))
        .filter(|v| v.is_finite())
        .collect()
}

fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

fn quotient(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    let q = a? / b?;
    q.is_finite().then_some(q)
}

/// The sizes both runs of a class measured, ascending.
fn sizes(class: &Class) -> Vec<usize> {
    let mut sizes: Vec<usize> = class
        .tree
        .p
        .sizes
        .iter()
        .map(|s| s.size)
        .filter(|&s| size_of(class.mesh.p, s).is_some())
        .collect();
    sizes.sort_unstable();
    sizes
}

/// Tree mean / mesh mean of the class's pairs at `size` (plain means of every pair mean).
fn ratio(class: &Class, size: usize) -> Option<f64> {
    let t = size_of(class.tree.p, size)?;
    let m = size_of(class.mesh.p, size)?;
    quotient(
        mean(&means(t, &class.tree_pairs)),
        mean(&means(m, &class.mesh_pairs)),
    )
}

pub(super) fn section(runs: &[Run]) -> Option<Section> {
    let (trees, meshes) = (in_lab(runs, Shape::Tree), in_lab(runs, Shape::Mesh));
    let classes = classes(&trees, &meshes);
    if classes.is_empty() {
        return None;
    }
    let mut body = paragraph(
        "Answers the JESPP paper (Davis et al., 2005): Figures 19 and 20 (throughput \
         enhancement of mesh routers over tree routers, R = mean tree time / mean mesh time, \
         against message size; the paper: the mesh 2–4× faster for 2- and 3-Hop pairs at \
         1–10 KB), from Figures 17 and 18 (message times against size), with Table 1's link \
         counts (tree 2 / 6 / 8 links for 0- / 2- / 3-Hop pairs, mesh 2 / 3 / 3), and Figure \
         22 (cumulative distributions of the pair mean times at 8 KB: narrow for the mesh, a \
         plateau for the tree's 2- and 3-Hop pairs, which the paper puts down to contention \
         at the upper tree routers). Here rtiperf pairs ran on the paper's tree (three levels \
         of routers above the leaves) and on a mesh inside the site lab, every router in a \
         site of its own and every link (router to router, federate to router) a site link, \
         so a link costs a wide-area hop as it did between the paper's machines rather than a \
         loopback wake-up. As in the paper, each hop class is a run of its own with all its \
         pairs exchanging at once; the same pairs ran on the mesh.",
    );
    body.push_str(&paragraph(
        "A pair's time is its mean round trip over the exchanges of one size. A class's time \
         is the plain mean of its pair means (the paper discarded the two largest of 48 \
         pairs; with a handful of pairs that would drop the tail this section is about, so \
         the table gives the benchmark's two-discarded means beside it when a run holds one \
         class).",
    ));
    let mut couples: Vec<(&InLab, &InLab)> = Vec::new();
    for class in &classes {
        let key = (class.tree, class.mesh);
        if !couples
            .iter()
            .any(|(t, m)| std::ptr::eq(*t, key.0) && std::ptr::eq(*m, key.1))
        {
            couples.push(key);
        }
    }
    let labs: Vec<String> = couples
        .iter()
        .map(|(t, m)| {
            format!(
                "{}: {}; {}: {}.",
                t.run.label,
                links_text(t.lab),
                m.run.label,
                links_text(m.lab)
            )
        })
        .collect();
    body.push_str(&paragraph(&format!("Site lab: {}", labs.join(" "))));

    body.push_str(&figure(
        ratio_chart(&classes).render(),
        "Above the dotted line at 1 the mesh was faster. One line per hop class.",
    ));
    body.push_str(&ratio_table(&classes).render());

    let all_sizes: Vec<usize> = {
        let mut s: Vec<usize> = classes.iter().flat_map(sizes).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    if let Some(&main) = all_sizes
        .iter()
        .min_by_key(|&&s| s.abs_diff(PAPER_CDF_SIZE))
    {
        body.push_str(&figure(
            cdf_chart(&classes, main).render(),
            &format!(
                "Figure 22's view at {main} B: the share of pairs whose mean round trip was at \
                 or below x. Solid: tree, dashed: mesh. A plateau is two populations of pairs."
            ),
        ));
        let others: String = all_sizes
            .iter()
            .filter(|&&s| s != main)
            .map(|&s| {
                figure(
                    cdf_chart(&classes, s).render(),
                    "Solid: tree, dashed: mesh.",
                )
            })
            .collect();
        if !others.is_empty() {
            body.push_str(&details(
                "The same distributions at every other message size",
                others,
            ));
        }
    }
    Some(Section {
        id: "wan-jespp",
        title: "JESPP across sites: tree / mesh time ratio against message size, pair-means \
                distributions"
            .to_owned(),
        body,
    })
}

fn ratio_chart(classes: &[Class]) -> LineChart {
    let mut chart = LineChart::new(
        "Tree / mesh time ratio against message size (Figures 19, 20)",
        Axis::log("message size (bytes, log scale)"),
        Axis::from_zero("mean tree time / mean mesh time"),
    );
    chart.reference = Some((1.0, "equal times".to_owned()));
    for class in classes {
        let points = sizes(class)
            .into_iter()
            .filter_map(|s| ratio(class, s).map(|r| (s as f64, r)))
            .collect();
        chart
            .series
            .push(Series::new(class.name.clone(), Mark::Line, points));
    }
    chart
}

fn ms(us: Option<f64>) -> String {
    opt_number(us.map(|us| us / 1e3))
}

fn ratio_table(classes: &[Class]) -> Table {
    let mut table = Table::new(
        "Per message size and hop class: mean round trips and their ratio",
        [
            "size (B)",
            "hop class",
            "pairs",
            "tree mean (ms)",
            "mesh mean (ms)",
            "tree / mesh",
            "tree / mesh, two largest discarded",
            "tree pairs: fastest – slowest (ms)",
            "mesh pairs: fastest – slowest (ms)",
        ]
        .map(str::to_owned)
        .to_vec(),
    );
    let mut rows: Vec<(usize, usize, Vec<Cell>)> = Vec::new();
    for class in classes {
        for size in sizes(class) {
            let (Some(t), Some(m)) = (size_of(class.tree.p, size), size_of(class.mesh.p, size))
            else {
                continue;
            };
            let (tv, mv) = (means(t, &class.tree_pairs), means(m, &class.mesh_pairs));
            let spread = |v: &[f64]| {
                let lo = v.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                if v.is_empty() {
                    "–".to_owned()
                } else {
                    format!("{} – {}", number(lo / 1e3), number(hi / 1e3))
                }
            };
            let paper = class
                .whole_runs()
                .then(|| quotient(measured(t.mean_us), measured(m.mean_us)))
                .flatten();
            rows.push((
                size,
                class.tree_links,
                vec![
                    Cell::from(size.to_string()),
                    Cell::from(class.name.as_str()),
                    Cell::from(tv.len().to_string()),
                    Cell::from(ms(mean(&tv))),
                    Cell::from(ms(mean(&mv))),
                    Cell::from(opt_number(ratio(class, size))),
                    Cell::from(opt_number(paper)),
                    Cell::from(spread(&tv)),
                    Cell::from(spread(&mv)),
                ],
            ));
        }
    }
    rows.sort_by_key(|(size, links, _)| (*size, *links));
    table.rows = rows.into_iter().map(|(_, _, row)| row).collect();
    table
}

/// The cumulative distribution of `values`: (value, share at or below it).
fn cumulative(mut values: Vec<f64>) -> Vec<(f64, f64)> {
    values.sort_by(f64::total_cmp);
    let n = values.len() as f64;
    values
        .into_iter()
        .enumerate()
        .map(|(k, v)| (v, (k + 1) as f64 / n))
        .collect()
}

fn cdf_chart(classes: &[Class], size: usize) -> LineChart {
    let mut chart = LineChart::new(
        format!("Cumulative distribution of pair mean times at {size} B (Figure 22)"),
        Axis::log("pair mean round trip (ms, log scale)"),
        Axis::from_zero("fraction of pairs at or below"),
    );
    for (shape, dashed) in [("tree", false), ("mesh", true)] {
        for class in classes {
            let (run, pairs) = if dashed {
                (class.mesh.p, &class.mesh_pairs)
            } else {
                (class.tree.p, &class.tree_pairs)
            };
            let Some(s) = size_of(run, size) else {
                continue;
            };
            let values = means(s, pairs).into_iter().map(|us| us / 1e3).collect();
            chart.series.push(
                Series::new(
                    format!("{shape}, {}", class.name),
                    Mark::Line,
                    cumulative(values),
                )
                .dashed(dashed),
            );
        }
    }
    chart
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_names_follow_the_papers_table_1() {
        assert_eq!(hop_name(2), "0-Hop");
        assert_eq!(hop_name(6), "2-Hop");
        assert_eq!(hop_name(8), "3-Hop");
        assert_eq!(hop_name(3), "3 links");
    }

    #[test]
    fn the_cumulative_distribution_climbs_to_one_in_order() {
        let points = cumulative(vec![3.0, 1.0, 2.0, 10.0]);
        assert_eq!(
            points,
            vec![(1.0, 0.25), (2.0, 0.5), (3.0, 0.75), (10.0, 1.0)]
        );
    }
}
