//! `summary.json` of a 1 → N throughput sweep.

use super::{number_or_null, numbers_or_nulls, unmeasured, unsaid_api, unsaid_mode};
use super::{unsaid_transport, Api, Mode, Transport};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThroughputCase {
    pub subscribers: usize,
    pub size: usize,
    /// Absent in hand-written folders.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub seconds: f64,
    /// Messages the sender sent. Absent in hand-written folders, as are `received` and
    /// `lost`: read as 0.
    #[serde(default)]
    pub sent: u64,
    /// Messages received, all receivers together.
    #[serde(default)]
    pub received: u64,
    /// sent × receivers − received.
    #[serde(default)]
    pub lost: u64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub sender_msgs_per_sec: f64,
    /// Received per second per receiver (mean over receivers).
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub msgs_per_sec: f64,
    /// Absent in folders written before the sweep recorded each subscriber.
    #[serde(default, deserialize_with = "numbers_or_nulls")]
    pub per_subscriber_msgs_per_sec: Vec<f64>,
    /// Absent in hand-written folders.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub payload_mb_per_sec: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThroughputSummary {
    /// The carrier, as `meta.json` also says; absent in hand-written folders, as are the
    /// first case's figures below.
    #[serde(default = "unsaid_mode")]
    pub mode: Mode,
    #[serde(default = "unsaid_api", deserialize_with = "super::api_by_name")]
    pub api: Api,
    #[serde(default = "unsaid_transport")]
    pub transport: Transport,
    #[serde(default)]
    pub size: usize,
    pub cases: Vec<ThroughputCase>,
    /// The first case's figures, as the single-case benchmark always reported them.
    #[serde(default)]
    pub subscribers: usize,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub msgs_per_sec: f64,
    #[serde(default)]
    pub sent: u64,
    #[serde(default)]
    pub received: u64,
    #[serde(default)]
    pub lost: u64,
    /// With agents: how times from different processes were compared (see `agents.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}
