//! `summary.json` of a one-way size × rate matrix (JADS).

use super::{number_or_null, unmeasured, unsaid_api, unsaid_mode};
use super::{unsaid_transport, Api, Mode, Transport};
use serde::{Deserialize, Serialize};

/// One size at one rate. Counts absent in hand-written folders read as 0, the transport as
/// reliable, the data file as "" (none).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OnewayCase {
    pub size: usize,
    pub rate_hz: f64,
    #[serde(default = "unsaid_transport")]
    pub transport: Transport,
    #[serde(default)]
    pub sent: u64,
    #[serde(default)]
    pub received: u64,
    #[serde(default)]
    pub missing: u64,
    /// Latency over the received messages; `None` (null) when nothing arrived.
    #[serde(default)]
    pub min_us: Option<f64>,
    #[serde(default)]
    pub max_us: Option<f64>,
    #[serde(default)]
    pub mean_us: Option<f64>,
    /// The case's data file in the results folder.
    #[serde(default)]
    pub data_file: String,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct OnewaySummary {
    /// The carrier, as `meta.json` also says; absent in hand-written folders, as are the
    /// seconds per case.
    #[serde(default = "unsaid_mode")]
    pub mode: Mode,
    #[serde(default = "unsaid_api")]
    pub api: Api,
    #[serde(default = "unsaid_transport")]
    pub transport: Transport,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub seconds: f64,
    pub cases: Vec<OnewayCase>,
    /// With agents: how send and receipt times were brought onto one clock, and how well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}
