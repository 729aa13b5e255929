//! `summary.json` of a multi-receiver latency run; times are one-way, in microseconds.

use super::{number_or_null, unmeasured, unsaid_api, unsaid_mode};
use super::{unsaid_transport, Api, Mode, Transport};
use serde::{Deserialize, Serialize};

/// Counts absent in hand-written folders read as 0.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LatencyCase {
    pub receivers: usize,
    pub size: usize,
    /// Half the round trip, mean over exchanges.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub mean_us: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub std_us: f64,
    #[serde(default)]
    pub count: usize,
    #[serde(default)]
    pub lost: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LatencySummary {
    /// The carrier, as `meta.json` also says; absent in hand-written folders.
    #[serde(default = "unsaid_mode")]
    pub mode: Mode,
    #[serde(default = "unsaid_api")]
    pub api: Api,
    #[serde(default = "unsaid_transport")]
    pub transport: Transport,
    pub cases: Vec<LatencyCase>,
    /// With agents: how times were handled (see `agents.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}
