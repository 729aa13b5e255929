//! What the coordinator and its worker processes say to each other: one JSON object per
//! line, the coordinator on the worker's stdin, the worker on its stdout (its logs go to
//! stderr). Every wait on the other side is bounded by its caller.

use super::geometry::Geometry;
use super::histogram::Histogram;
use crate::bench::Bundling;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// Where a worker's federates attach.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Target {
    /// A router by address.
    Router(String),
    /// A topology file; each federate names its attachment point.
    Topology(PathBuf),
}

pub use crate::results::clutter::Role;

/// One federate a worker runs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FederateSpec {
    pub role: Role,
    /// Simulator number (0..simulators) or viewer number (0..viewers).
    pub index: u32,
    /// Its node and federate name, unique in the run.
    pub name: String,
    /// Its attachment point in the topology (unused with a router address).
    pub at: String,
}

/// Everything a worker needs, sent as its first line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct WorkerPlan {
    pub worker: u32,
    pub federation: String,
    pub target: Target,
    pub geometry: Geometry,
    pub rate_hz: f64,
    pub seconds: f64,
    /// Simulators send in frames of this many milliseconds (0: each update when due).
    pub frame_ms: u32,
    pub reliable: bool,
    /// The federates' own links bundle as the run's routers do.
    pub bundling: Bundling,
    /// How long each federate's event loop polls before it sleeps.
    pub spin: Duration,
    pub driver: trellis_net::rti::Driver,
    pub federates: Vec<FederateSpec>,
}

/// Coordinator → worker, after the plan.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Command {
    /// Every federate of every worker joined and subscribed: register now.
    Register,
    /// Send from this wall-clock instant (nanoseconds since 1970) for the run's seconds.
    Start { unix_nanos: u64 },
    /// How many updates every simulator sent: receivers work out what they must have got.
    Expect { sent: Vec<u64> },
    /// Resign and exit.
    Finish,
}

/// One federate's join.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct JoinRecord {
    pub name: String,
    /// Connecting its node to the router.
    pub connect_us: u64,
    /// joinFederationExecution: from the call to joined.
    pub join_us: u64,
}

/// One second of one worker, counted by when things happened (sends by send time,
/// reflects by arrival).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WorkerSecond {
    pub second: u64,
    pub updates_sent: u64,
    pub reflects: u64,
    pub latency: Histogram,
    /// CPU seconds the worker process used in this second.
    pub cpu_seconds: f64,
    pub rss_kb: u64,
}

/// What one federate did and got, checked against its interest.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct FederateReport {
    pub name: String,
    pub role: Option<Role>,
    pub index: u32,
    pub entities_owned: u64,
    pub updates_sent: u64,
    pub reflects: u64,
    /// Updates its interest says it must reflect.
    pub expected: u64,
    /// Expected and never reflected.
    pub missing: u64,
    /// Reflected though outside its interest (or not sent at all).
    pub unexpected: u64,
    /// Reflected more than once.
    pub duplicates: u64,
    /// A value that does not decode, or whose position is not where the entity was.
    pub corrupt: u64,
    /// Instances discovered (entities it came to know).
    pub discovered: u64,
    pub connect_us: u64,
    pub join_us: u64,
    /// The RTI's count of what routers let through and the exact checks discarded.
    pub over_delivered: u64,
    /// Reliable messages the RTI reported lost (ReliableMessagesLost).
    pub reported_lost: u64,
}

/// A worker's account at the end.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WorkerReport {
    pub federates: Vec<FederateReport>,
    pub seconds: Vec<WorkerSecond>,
    pub usage_end: super::procstat::Usage,
}

/// Worker → coordinator.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum WorkerMessage {
    /// Every federate joined and subscribed.
    Subscribed,
    /// Every federate joined, subscribed and registered its entities; resident memory
    /// before any joined, once all had joined, and once all had registered.
    Joined {
        joins: Vec<JoinRecord>,
        rss_start_kb: u64,
        rss_joined_kb: u64,
        rss_registered_kb: u64,
        register_seconds: f64,
    },
    /// Every receiver heard every simulator it must hear (interest is in place).
    Ready,
    /// Sending is over: updates sent, by simulator.
    Sent {
        sent: Vec<(u32, u64)>,
    },
    Report(Box<WorkerReport>),
    Failed {
        message: String,
    },
}

/// One line of JSON for `value`.
pub fn line(value: &impl Serialize) -> String {
    // These types hold nothing that fails to serialise (no maps with non-string keys).
    serde_json::to_string(value).unwrap_or_else(|e| format!("{{\"unserialisable\":\"{e}\"}}"))
}
