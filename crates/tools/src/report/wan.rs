//! The papers' WAN studies, run in the site lab (`scripts/wan-results`): RTI-NG's
//! interconnects with a sender and its receivers at two sites, and JESPP's tree and mesh of
//! routers with every router at a site of its own. Each section names the figure it answers.

use super::html::{escape, number, opt_number, paragraph, Cell, Section, Table};
use super::load::{LabRecord, Run, Shape, Summary};
use crate::wan::RtingSummary;

pub(super) fn sections(runs: &[Run]) -> Vec<Section> {
    let mut sections = Vec::new();
    sections.extend(rting(runs));
    sections.extend(jespp(runs));
    sections
}

fn rting(runs: &[Run]) -> Option<Section> {
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
        "Answers the RTI-NG paper's Table 4 (network utilisation: bytes each process wrote), \
         Graph 2 (mean receiver throughput, no bundling) and Graph 11 (mean latency, no \
         bundling), moved across a WAN as its section 3 argues: one sender at one site, its \
         receivers at another. Collocated: every federate attached to one router at the \
         sender's site, which, like a fully connected RTI-NG federate, writes each update once \
         per receiver; centralized: one router at a third site; hierarchical: a router per \
         site. Bytes are the IP bytes the lab's wan namespace sent into the receivers' site \
         during the throughput phase (framing, TCP/IP headers and acknowledgements included), \
         divided by the updates sent. The paper's claim: the hierarchical interconnect sends \
         an update across a WAN link once, the others once per remote receiver.",
    );
    for (run, study) in studies {
        let link = &study.link;
        body.push_str(&format!(
            "<h3>{}</h3>{}",
            escape(&run.series_name()),
            paragraph(&format!(
                "Site links of {} ms one way{}; {} updates of {} bytes as fast as the sender \
                 could (rates), then {} paced ones (one-way latency, one clock).",
                number(link.delay_ms),
                link.bandwidth_mbit
                    .map(|m| format!(" at {} Mbit/s", number(m)))
                    .unwrap_or_default(),
                study.updates,
                study.payload,
                study.latency_updates
            ))
        ));
        let mut table = Table::new(
            "Per interconnect and receiver count",
            [
                "interconnect",
                "routers",
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
        body.push_str(&table.render());
    }
    Some(Section {
        id: "wan-rting",
        title: "RTI-NG across a WAN: bytes on the site link, receiver rate, latency".to_owned(),
        body,
    })
}

/// The lab's links in words: `22 links of 2 ms, 100 Mbit/s`.
fn links_text(lab: &LabRecord) -> String {
    let mut kinds: Vec<String> = lab
        .links
        .iter()
        .map(|l| {
            let rate = l
                .bandwidth_mbit
                .map(|m| format!(" at {} Mbit/s", number(m)))
                .unwrap_or_default();
            let loss = l
                .loss_percent
                .filter(|&p| p > 0.0)
                .map(|p| format!(", {} % loss", number(p)))
                .unwrap_or_default();
            format!("{} ms one way{rate}{loss}", number(l.delay_ms))
        })
        .collect();
    let total = kinds.len();
    kinds.sort();
    kinds.dedup();
    format!("{total} site links of {}", kinds.join("; "))
}

fn jespp(runs: &[Run]) -> Option<Section> {
    let in_lab = |shape| -> Vec<(&Run, &super::load::Pingpong, &LabRecord)> {
        runs.iter()
            .filter(|run| run.shape() == Some(shape))
            .filter_map(|run| match (&run.summary, &run.lab) {
                (Summary::Pingpong(p), Some(lab)) => Some((run, p, lab)),
                _ => None,
            })
            .collect()
    };
    let (trees, meshes) = (in_lab(Shape::Tree), in_lab(Shape::Mesh));
    if trees.is_empty() || meshes.is_empty() {
        return None;
    }
    let mut body = paragraph(
        "Answers the JESPP paper's Figure 19 (throughput enhancement of mesh routers over tree \
         routers against message size), from Figures 17 and 18 (message times against size \
         for each): the paper measured the mesh 2–4× faster for pairs 2 and 3 router hops \
         apart. Here the same rtiperf pairs ran on the tree and on the mesh inside the site \
         lab, every router in a site of its own and every link (router to router, federate \
         to router) a site link, so a link costs a wide-area hop as it did between the \
         paper's machines rather than a loopback wake-up. Each pair's time is its mean round \
         trip; the ratio is tree time / mesh time for the same pair (above 1: the mesh was \
         faster).",
    );
    for (tree_run, tree, tree_lab) in &trees {
        for (mesh_run, mesh, mesh_lab) in &meshes {
            body.push_str(&format!(
                "<h3>{} / {}</h3>{}",
                escape(&tree_run.series_name()),
                escape(&mesh_run.series_name()),
                paragraph(&format!(
                    "Tree: {}. Mesh: {}.",
                    links_text(tree_lab),
                    links_text(mesh_lab)
                ))
            ));
            let mut table = Table::new(
                "Tree / mesh time per pair and message size",
                [
                    "size (B)",
                    "pair",
                    "tree links",
                    "mesh links",
                    "tree round trip (ms)",
                    "mesh round trip (ms)",
                    "tree / mesh",
                ]
                .map(str::to_owned)
                .to_vec(),
            );
            for tree_size in &tree.sizes {
                let Some(mesh_size) = mesh.sizes.iter().find(|s| s.size == tree_size.size) else {
                    continue;
                };
                for (t, pair) in tree.pairs.iter().enumerate() {
                    let Some(m) = mesh
                        .pairs
                        .iter()
                        .position(|p| p.master == pair.master && p.slave == pair.slave)
                    else {
                        continue;
                    };
                    let tree_us = tree_size.pair_means_us.get(t).copied().flatten();
                    let mesh_us = mesh_size.pair_means_us.get(m).copied().flatten();
                    let ratio = tree_us
                        .zip(mesh_us)
                        .map(|(a, b)| a / b)
                        .filter(|r| r.is_finite());
                    table.rows.push(vec![
                        Cell::from(tree_size.size.to_string()),
                        Cell::from(format!("{} ↔ {}", pair.master, pair.slave)),
                        Cell::from(pair.links.to_string()),
                        Cell::from(mesh.pairs[m].links.to_string()),
                        Cell::from(opt_number(tree_us.map(|us| us / 1e3))),
                        Cell::from(opt_number(mesh_us.map(|us| us / 1e3))),
                        Cell::from(opt_number(ratio)),
                    ]);
                }
            }
            body.push_str(&table.render());
        }
    }
    Some(Section {
        id: "wan-jespp",
        title: "JESPP across sites: tree / mesh time ratio against message size".to_owned(),
        body,
    })
}
