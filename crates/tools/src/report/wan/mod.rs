//! The papers' WAN studies, run in the site lab (`scripts/wan-results`): RTI-NG's
//! interconnects with a sender and its receivers at two sites, per bundling delay, and
//! JESPP's tree and mesh of routers with every router at a site of its own, per hop class.
//! Each section names the paper's figures and tables it answers.

mod jespp;
mod rting;

use super::html::{number, Section};
use super::load::{LabRecord, Run};

pub(super) fn sections(runs: &[Run]) -> Vec<Section> {
    let mut sections = Vec::new();
    sections.extend(rting::section(runs));
    sections.extend(jespp::section(runs));
    sections
}

/// The lab's site links in words: `22 site links of 2 ms one way at 100 Mbit/s`, or
/// `1 site link of 20 ms one way, no rate limit`.
pub(super) fn links_text(lab: &LabRecord) -> String {
    let mut kinds: Vec<String> = lab
        .links
        .iter()
        .map(|l| {
            let rate = l.bandwidth_mbit.map_or_else(
                || ", no rate limit".to_owned(),
                |m| format!(" at {} Mbit/s", number(m)),
            );
            let loss = if l.loss_percent > 0.0 {
                format!(", {} % loss", number(l.loss_percent))
            } else {
                String::new()
            };
            format!("{} ms one way{rate}{loss}", number(l.delay_ms))
        })
        .collect();
    let total = kinds.len();
    kinds.sort();
    kinds.dedup();
    let plural = if total == 1 { "" } else { "s" };
    format!("{total} site link{plural} of {}", kinds.join("; "))
}
