//! `summary.json` of a ping-pong (rtiperf) run; times are round trips in microseconds.

use super::{number_or_null, numbers_or_nulls, unmeasured, unsaid_api, unsaid_mode};
use super::{unsaid_transport, Api, Mode, Transport};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PairInfo {
    pub master: String,
    pub slave: String,
    /// Links a message crosses between them (0 for raw sockets).
    pub links: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SizeResult {
    pub size: usize,
    /// Mean round trip over pairs, the two largest pair means left out.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub mean_us: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub std_us: f64,
    /// Every pair's mean round trip, in the order of `pairs`.
    #[serde(deserialize_with = "numbers_or_nulls")]
    pub pair_means_us: Vec<f64>,
    #[serde(default, deserialize_with = "numbers_or_nulls")]
    pub discarded_us: Vec<f64>,
    /// Absent in hand-written folders: read as 0.
    #[serde(default)]
    pub lost: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PingpongSummary {
    /// The carrier, as `meta.json` also says; absent in hand-written folders.
    #[serde(default = "unsaid_mode")]
    pub mode: Mode,
    #[serde(default = "unsaid_api", deserialize_with = "super::api_by_name")]
    pub api: Api,
    #[serde(default = "unsaid_transport")]
    pub transport: Transport,
    pub pairs: Vec<PairInfo>,
    pub sizes: Vec<SizeResult>,
    /// Round trips measured, every size and pair together. Absent in hand-written folders,
    /// as is `lost`: read as 0.
    #[serde(default)]
    pub count: usize,
    #[serde(default)]
    pub lost: usize,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub rtt_p50_us: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub rtt_p99_us: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub rtt_mean_us: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub rtt_min_us: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub rtt_max_us: f64,
    /// With agents: how times from different processes were compared (see `agents.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}
