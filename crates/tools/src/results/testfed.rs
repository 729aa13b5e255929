//! `summary.json` of a testfed load run.

use super::{number_or_null, unmeasured, unsaid_api, unsaid_mode};
use super::{unsaid_transport, Api, Mode, Transport};
use serde::{Deserialize, Serialize};

/// One federate's load and what it measured. Hand-written folders give only some of it:
/// absent numbers read as not measured, counts as 0, text as "".
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FederateResult {
    pub name: String,
    /// The attachment point it ran at.
    #[serde(default)]
    pub at: String,
    #[serde(default)]
    pub attributes: usize,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub rate_hz: f64,
    #[serde(default)]
    pub size: usize,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub interaction_rate_hz: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub ramp_seconds: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub ramp_rate_hz: f64,
    #[serde(default)]
    pub updates_sent: u64,
    /// Of `updates_sent`, those sent during the ramp.
    #[serde(default)]
    pub ramp_updates_sent: u64,
    #[serde(default)]
    pub interactions_sent: u64,
    #[serde(default)]
    pub updates_received: u64,
    #[serde(default)]
    pub interactions_received: u64,
    /// What the others sent that never arrived here.
    #[serde(default)]
    pub updates_missing: u64,
    #[serde(default)]
    pub interactions_missing: u64,
    /// Latency of what arrived here; `None` (null) when nothing did.
    #[serde(default)]
    pub update_latency_mean_us: Option<f64>,
    #[serde(default)]
    pub update_latency_max_us: Option<f64>,
    #[serde(default)]
    pub interaction_latency_mean_us: Option<f64>,
    #[serde(default)]
    pub interaction_latency_max_us: Option<f64>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TestfedSummary {
    /// The carrier, as `meta.json` also says; absent in hand-written folders, as are the
    /// seconds.
    #[serde(default = "unsaid_mode")]
    pub mode: Mode,
    #[serde(default = "unsaid_api")]
    pub api: Api,
    /// Of attribute updates; interactions are reliable.
    #[serde(default = "unsaid_transport")]
    pub transport: Transport,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub seconds: f64,
    pub federates: Vec<FederateResult>,
    /// With agents: how send and receipt times were brought onto one clock, and how well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}
