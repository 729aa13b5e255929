//! `summary.json` of a clutter run (`trellis bench clutter`): the run's settings, each
//! case's figures (per second, per process and per federate), and the JESPP scalability
//! verdict over the sweep. Every field was written from the first version on, except those
//! that say otherwise.

use super::Transport;
use serde::{Deserialize, Serialize};
use trellis_net::rti::Driver;

/// Per-federate rates at the largest N may be at most this many times those at the
/// smallest for the scalability condition to hold.
pub const SCALABILITY_FACTOR: f64 = 1.5;

/// Which federates a worker runs: simulators own entities, viewers watch a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Role {
    Simulator,
    Viewer,
}

/// The JESPP conditions over the sweep: each federate's in and out rates stay bounded as N
/// grows while its interest stays fixed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Scalability {
    /// Every case gives each simulator the same number of entities (±1) and the same
    /// area, margin and viewer window: the interest per federate is fixed.
    pub interest_fixed: bool,
    pub smallest_entities: u64,
    pub largest_entities: u64,
    pub max_out_smallest: f64,
    pub max_out_largest: f64,
    pub max_in_smallest: f64,
    pub max_in_largest: f64,
    /// Interest fixed, and the largest N's per-federate rates within
    /// [`SCALABILITY_FACTOR`] of the smallest's.
    pub holds: bool,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ClutterSummary {
    pub transport: Transport,
    #[serde(default)]
    pub topology: Option<String>,
    pub processes: usize,
    pub rate_hz: f64,
    pub seconds: f64,
    /// Absent in results from before frames: each update was sent when due.
    #[serde(default)]
    pub frame_ms: u32,
    /// Absent in results from before the choice: direct.
    #[serde(default = "unsaid_driver")]
    pub driver: Driver,
    pub area_units: u32,
    pub margin_units: u32,
    pub viewer_window_units: u32,
    pub seed: u64,
    #[serde(default)]
    pub cases: Vec<CaseSummary>,
    /// With two or more cases.
    pub scalability: Option<Scalability>,
    /// Every case exact, and complete when reliable.
    pub passed: bool,
}

fn unsaid_driver() -> Driver {
    Driver::Direct
}

/// How simulators paced their updates, in words.
pub fn frames(frame_ms: u32) -> String {
    match frame_ms {
        0 => "each update when due".into(),
        ms => format!("frames of {ms} ms"),
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Latency {
    pub p50_us: Option<u64>,
    pub p99_us: Option<u64>,
    pub max_us: Option<u64>,
}

/// One second of the run, all processes together.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SecondRow {
    pub second: u64,
    /// Updates the plan calls for in this second (0 once sending is over).
    pub planned_updates: u64,
    pub updates_sent: u64,
    pub reflects: u64,
    pub latency: Latency,
    /// Data frames the routers forwarded; `None` when they run in other processes.
    pub router_forwards: Option<u64>,
}

/// One process over one second.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ProcessSecond {
    pub second: u64,
    pub process: String,
    pub cpu_percent: f64,
    pub rss_kb: u64,
}

/// One process over the run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ProcessRow {
    pub process: String,
    pub federates: usize,
    /// Mean CPU over the run's seconds (100 = one core).
    pub cpu_percent: f64,
    pub rss_max_kb: u64,
}

/// A federate's traffic over the run.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct FederateRates {
    pub name: String,
    pub role: Option<Role>,
    pub out_per_second: f64,
    pub in_per_second: f64,
    pub expected_per_second: f64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct CaseSummary {
    pub entities: u64,
    pub simulators: u32,
    pub viewers: u32,
    pub processes: usize,
    pub rate_hz: f64,
    pub seconds: f64,
    pub reliable: bool,
    pub planned_updates: u64,
    pub updates_sent: u64,
    pub planned_per_second: f64,
    pub achieved_per_second: f64,
    /// updates_sent / planned_updates.
    pub achieved_ratio: f64,
    pub reflects: u64,
    pub expected: u64,
    pub missing: u64,
    pub unexpected: u64,
    pub duplicates: u64,
    pub corrupt: u64,
    pub reported_lost: u64,
    pub over_delivered: u64,
    /// Expected reflects that arrived / expected (completeness); `None` when nothing was
    /// expected.
    pub delivery_ratio: Option<f64>,
    /// Nothing unexpected, duplicated or corrupt arrived.
    pub exact: bool,
    /// Nothing expected is missing.
    pub complete: bool,
    pub latency: Latency,
    pub join_p50_us: Option<u64>,
    pub join_max_us: Option<u64>,
    pub connect_p50_us: Option<u64>,
    /// Longest registration of a worker's entities.
    pub register_seconds: f64,
    /// Resident memory the joins added, per federate.
    pub memory_per_federate_kb: Option<f64>,
    /// Resident memory registration added to the simulator processes, per entity owned.
    pub simulator_bytes_per_entity: Option<f64>,
    /// The simulator processes' resident memory at the end, per entity owned.
    pub simulator_rss_bytes_per_entity: Option<f64>,
    /// Resident memory the viewer process grew by during the run, per entity the viewers
    /// came to know.
    pub viewer_bytes_per_entity: Option<f64>,
    pub viewer_entities_known: u64,
    pub router_forwards_per_second: Option<f64>,
    pub max_out_per_second: f64,
    pub max_in_per_second: f64,
    /// Achieved ≥ 99 % of planned, reliable delivery complete, exact, p99 < 100 ms.
    pub sustained: bool,
    pub seconds_rows: Vec<SecondRow>,
    pub process_seconds: Vec<ProcessSecond>,
    pub process_rows: Vec<ProcessRow>,
    pub federates: Vec<FederateRates>,
}
