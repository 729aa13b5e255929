//! `summary.json` of the RTI-NG interconnect study run in the site lab
//! (`scripts/wan-results`, written through `crate::wan::write_study`).

use serde::{Deserialize, Serialize};

/// The benchmark name `meta.json` carries for the RTI-NG interconnect study.
pub const RTING_BENCHMARK: &str = "wan-rting";

/// A site link as the study's lab file gave it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LinkModel {
    pub delay_ms: f64,
    pub bandwidth_mbit: Option<f64>,
}

/// `summary.json` of the RTI-NG study: one sender in site `sender`, receivers in site
/// `receivers`, per interconnect and receiver count.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RtingSummary {
    /// Every site link of the lab (all alike).
    pub link: LinkModel,
    /// Payload bytes of each measured update.
    pub payload: u64,
    /// Updates sent as fast as the sender could in the throughput phase.
    pub updates: u64,
    /// Updates sent one at a time, paced, in the latency phase.
    pub latency_updates: u64,
    pub cases: Vec<RtingCase>,
}

/// One interconnect with one receiver count.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RtingCase {
    /// `collocated`, `centralized` or `hierarchical`.
    pub topology: String,
    /// Where the routers ran, in words.
    pub routers: String,
    /// How every link of the case bundled (the sender's and each router's): `off` (one
    /// frame per write, the paper's no bundling), `adaptive`, or a delay such as `5ms`.
    /// Folders written before the study varied it ran with the default, adaptive.
    #[serde(default = "adaptive")]
    pub bundling: String,
    pub receivers: u64,
    /// Bytes the wan namespace sent into the receivers' site during the throughput phase
    /// (IP packets: headers, acknowledgements and Trellis framing included).
    pub site_link_bytes: u64,
    pub bytes_per_update: f64,
    /// Updates per second each receiver got in the throughput phase: mean and slowest.
    pub receiver_rate_mean: f64,
    pub receiver_rate_min: f64,
    /// Measured updates every receiver got in the throughput phase, out of `updates` each.
    pub received: u64,
    /// One-way latency sender → receiver of the paced updates, every receiver's samples.
    pub latency_mean_us: Option<f64>,
    pub latency_max_us: Option<f64>,
}

fn adaptive() -> String {
    "adaptive".to_owned()
}
