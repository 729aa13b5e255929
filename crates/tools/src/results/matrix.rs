//! `summary.json` of the 3CE EC1 characterisation matrix: entity count × update rate ×
//! payload size × delivery × configuration.
//!
//! Hand-written folders (the report's fixtures) give a case only its cell and the figures the
//! report draws, and the summary only its cases: the counts read as 0, the carrier as Trellis
//! over the node API, the seconds as not measured.

use super::{number_or_null, unmeasured, unsaid_api, unsaid_mode};
use super::{unsaid_transport, Api, Mode, Transport};
use serde::{Deserialize, Serialize};

/// Who sends to whom.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Configuration {
    #[serde(rename = "1-1")]
    OneToOne,
    #[serde(rename = "1-N")]
    OneToMany,
    #[serde(rename = "N-1")]
    ManyToOne,
    /// N federates, each sending to and receiving from all the others.
    #[serde(rename = "N-N")]
    ManyToMany,
}

pub const ALL_CONFIGURATIONS: [Configuration; 4] = [
    Configuration::OneToOne,
    Configuration::OneToMany,
    Configuration::ManyToOne,
    Configuration::ManyToMany,
];

impl Configuration {
    /// The name the summary and the command line use.
    pub fn label(self) -> &'static str {
        match self {
            Configuration::OneToOne => "1-1",
            Configuration::OneToMany => "1-N",
            Configuration::ManyToOne => "N-1",
            Configuration::ManyToMany => "N-N",
        }
    }
}

impl std::str::FromStr for Configuration {
    type Err = String;

    fn from_str(text: &str) -> Result<Configuration, String> {
        ALL_CONFIGURATIONS
            .into_iter()
            .find(|c| c.label().eq_ignore_ascii_case(text))
            .ok_or_else(|| format!("a configuration is 1-1, 1-N, N-1 or N-N, not {text:?}"))
    }
}

/// A cell of the grid: what a case and a left-out cell have in common.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MatrixCell {
    pub config: Configuration,
    pub entities: usize,
    pub rate_hz: f64,
    pub size: usize,
    pub transport: Transport,
}

/// A cell of the grid that was not run, and why: its theoretical throughput.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LeftOut {
    pub config: Configuration,
    pub entities: usize,
    pub rate_hz: f64,
    pub size: usize,
    #[serde(default = "unsaid_transport")]
    pub transport: Transport,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub theoretical_mbps: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatrixCase {
    pub entities: usize,
    pub rate_hz: f64,
    pub size: usize,
    #[serde(default = "unsaid_transport")]
    pub transport: Transport,
    pub config: Configuration,
    #[serde(default)]
    pub senders: usize,
    #[serde(default)]
    pub receivers: usize,
    /// Payload megabits per second each receiver took in (mean over receivers): unique
    /// updates over the longer of the case's time and the time to the last one.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub throughput_mbps: f64,
    /// What each receiver would take in if every scheduled update arrived: entities × rate
    /// × payload × 8 / 10⁶ × the senders it hears (N − 1 in N-N).
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub theoretical_mbps: f64,
    /// Unique updates received / updates published to it, mean over receivers.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub reliability: f64,
    /// Over every update received, all receivers together; `None` (null) if none arrived.
    #[serde(default)]
    pub mean_latency_us: Option<f64>,
    /// The standard deviation of latency.
    #[serde(default)]
    pub jitter_us: Option<f64>,
    /// Updates the senders were to send, and did send, all senders together.
    #[serde(default)]
    pub scheduled: u64,
    #[serde(default)]
    pub published: u64,
    /// Unique updates received, all receivers together, and copies of ones already had.
    #[serde(default)]
    pub received: u64,
    #[serde(default)]
    pub duplicates: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatrixSummary {
    #[serde(default = "unsaid_mode")]
    pub mode: Mode,
    /// Raw runs through a hairpin forwarder: its address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_via: Option<String>,
    #[serde(default = "unsaid_api", deserialize_with = "super::api_by_name")]
    pub api: Api,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub seconds: f64,
    /// N of 1-N, N-1 and N-N; 0 where a folder does not say.
    #[serde(default)]
    pub n: usize,
    pub cases: Vec<MatrixCase>,
    /// Cells above `--max-theoretical-mbps`, not run (only their cell and theoretical
    /// throughput are given).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<LeftOut>,
    /// With agents: how send and receipt times were brought onto one clock, and how well.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}

impl MatrixCase {
    pub fn cell(&self) -> MatrixCell {
        MatrixCell {
            config: self.config,
            entities: self.entities,
            rate_hz: self.rate_hz,
            size: self.size,
            transport: self.transport,
        }
    }
}

impl LeftOut {
    pub fn cell(&self) -> MatrixCell {
        MatrixCell {
            config: self.config,
            entities: self.entities,
            rate_hz: self.rate_hz,
            size: self.size,
            transport: self.transport,
        }
    }
}
