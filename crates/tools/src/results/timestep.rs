//! `summary.json` of a time-management step-rate run.

use super::{number_or_null, unmeasured, unsaid_api, unsaid_mode};
use super::{unsaid_transport, Api, Mode, Transport};
use serde::{Deserialize, Serialize};

/// One network and federate count. Numbers absent in hand-written folders read as not
/// measured, counts as 0.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TimestepCase {
    /// "one-router", "mesh", or the given router's address / topology file's stem.
    pub network: String,
    /// Routers the federates sit under (0 when the network was given as a router address
    /// or a topology whose routers were not counted).
    #[serde(default)]
    pub routers: usize,
    pub federates: usize,
    /// Measured seconds, mean over federates (from "ReadyToRun" to the last grant).
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub seconds: f64,
    /// Logical time every federate advanced in the measured run.
    #[serde(default)]
    pub steps: u64,
    /// Grants received, all federates together.
    #[serde(default)]
    pub grants: u64,
    /// Grants per second per federate (mean over federates): the federation's step rate.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub grants_per_sec: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub min_grants_per_sec: f64,
    /// Time-management messages a federate received per grant (mean over federates).
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub time_messages_received_per_grant: f64,
    /// Time-management messages (bounds) a federate sent per grant.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub bounds_sent_per_grant: f64,
    /// Time-stamped reflections, all federates together.
    #[serde(default)]
    pub reflects: u64,
    /// Reflections per federate per step; N − 1 when nothing is lost.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub reflects_per_step: f64,
    #[serde(default)]
    pub expected_reflects_per_step: usize,
    /// Late or refused time-stamped messages, all federates together (0 expected).
    #[serde(default)]
    pub late_time_stamped: u64,
    #[serde(default)]
    pub queue_overflow: u64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TimestepSummary {
    /// The carrier, as `meta.json` also says; absent in hand-written folders, as are the
    /// time representation and lookahead.
    #[serde(default = "unsaid_mode")]
    pub mode: Mode,
    #[serde(default = "unsaid_api")]
    pub api: Api,
    #[serde(default = "unsaid_transport")]
    pub transport: Transport,
    #[serde(default)]
    pub time_representation: String,
    #[serde(default)]
    pub lookahead: i64,
    pub cases: Vec<TimestepCase>,
}
