//! `summary.json` of an N ↔ N symmetric run.

use super::{number_or_null, numbers_or_nulls, unmeasured, unsaid_api, unsaid_mode};
use super::{unsaid_transport, Api, Mode, Transport};
use serde::{Deserialize, Serialize};

/// Counts absent in hand-written folders read as 0.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SymmetricCase {
    pub federates: usize,
    pub size: usize,
    #[serde(default, deserialize_with = "numbers_or_nulls")]
    pub per_federate_msgs_per_sec: Vec<f64>,
    /// Messages received per second, all federates together.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub total_msgs_per_sec: f64,
    #[serde(default)]
    pub sent: u64,
    #[serde(default)]
    pub received: u64,
    /// Every message should reach every other federate: sent × (federates − 1) − received.
    #[serde(default)]
    pub lost: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SymmetricSummary {
    /// The carrier, as `meta.json` also says; absent in hand-written folders.
    #[serde(default = "unsaid_mode")]
    pub mode: Mode,
    #[serde(default = "unsaid_api")]
    pub api: Api,
    #[serde(default = "unsaid_transport")]
    pub transport: Transport,
    pub cases: Vec<SymmetricCase>,
    /// With agents: how times were handled (see `agents.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}
