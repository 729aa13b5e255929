//! `summary.json` of a chaos run: routers killed and restarted under `trellis up`.

use super::{number_or_null, unmeasured};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// A router with federates attached.
    Leaf,
    /// A router between others (it has a parent and routers below it).
    Mid,
    /// The router that holds the federation registry.
    Registry,
}

impl FaultKind {
    pub fn label(self) -> &'static str {
        match self {
            FaultKind::Leaf => "leaf",
            FaultKind::Mid => "mid",
            FaultKind::Registry => "registry",
        }
    }
}

/// One kill and what followed it, until the next kill (or the end). Counts absent in
/// hand-written folders read as 0.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FaultRecord {
    pub number: usize,
    pub kind: FaultKind,
    pub router: String,
    /// When the kill came, from the start of the run.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub killed_at_s: f64,
    /// Kill → `trellis up` saying it restarted the router.
    #[serde(default)]
    pub restarted_after_s: Option<f64>,
    /// Kill → the first symptom a federate saw.
    #[serde(default)]
    pub detection_s: Option<f64>,
    #[serde(default)]
    pub detected_by: Option<String>,
    /// Restart → reliable traffic flowing again between every pair of federates.
    #[serde(default)]
    pub recovery_s: Option<f64>,
    /// Kill → the same.
    #[serde(default)]
    pub outage_s: Option<f64>,
    pub recovered: bool,
    /// Reliable updates reflected in the window.
    #[serde(default)]
    pub delivered: u64,
    #[serde(default)]
    pub duplicated: u64,
    #[serde(default)]
    pub reported_lost: u64,
    /// Serials skipped within streams (what loss reports must cover).
    #[serde(default)]
    pub missing: u64,
    #[serde(default)]
    pub unreported: u64,
    /// Sent to or by a federate whose membership then ended (it heard connectionLost).
    #[serde(default)]
    pub lost_with_membership: u64,
    #[serde(default)]
    pub best_effort_expected: u64,
    #[serde(default)]
    pub best_effort_delivered: u64,
    #[serde(default)]
    pub best_effort_ratio: Option<f64>,
    #[serde(default)]
    pub memberships_lost: usize,
    /// Why the first lost membership ended (its connectionLost).
    #[serde(default)]
    pub membership_fault: Option<String>,
    /// "memberships kept", or what was lost and when it was joined again.
    #[serde(default)]
    pub outcome: String,
}

/// Over the whole run. Counts absent in hand-written folders read as 0.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ChaosTotals {
    pub faults: usize,
    pub recovered: usize,
    pub delivered: u64,
    pub duplicated: u64,
    pub reported_lost: u64,
    pub missing: u64,
    pub unreported: u64,
    pub lost_with_membership: u64,
    pub best_effort_expected: u64,
    pub best_effort_delivered: u64,
    pub best_effort_ratio: Option<f64>,
    pub memberships_lost: usize,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ChaosSummary {
    /// "tree", "mesh" or the file's stem. Absent in hand-written folders, as are the
    /// settings below (numbers read as not measured, counts as 0).
    #[serde(default)]
    pub topology: String,
    #[serde(default)]
    pub routers: usize,
    #[serde(default)]
    pub federates: Vec<String>,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub seconds: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub fault_every_seconds: f64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub rate_hz: f64,
    #[serde(default)]
    pub seed: u64,
    pub faults: Vec<FaultRecord>,
    /// Over the whole run, the time before the first fault included.
    #[serde(default)]
    pub totals: ChaosTotals,
    /// No duplicate, no unreported loss, every fault recovered. Absent: read as not passed.
    #[serde(default)]
    pub passed: bool,
    /// What kept the run from going on (a router not restarted, a federation that did
    /// not recover); the run stops there and keeps its measurements.
    #[serde(default)]
    pub problems: Vec<String>,
}
