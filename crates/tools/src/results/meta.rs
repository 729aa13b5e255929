//! `meta.json`: what ran, where, how, and whether it finished. The harness writes every
//! field; the RTI-NG study (`crate::wan`) and older or hand-written folders write fewer, so
//! all but `benchmark` are optional and `#[serde(default)]`.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The benchmarks a results folder can hold, by the name `meta.json` gives them.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Benchmark {
    Pingpong,
    Throughput,
    Symmetric,
    Latency,
    Oneway,
    Matrix,
    Testfed,
    Timestep,
    Chaos,
    Clutter,
    /// The RTI-NG interconnect study in the site lab (`scripts/wan-results`).
    WanRting,
}

impl Benchmark {
    const ALL: [Benchmark; 11] = [
        Benchmark::Pingpong,
        Benchmark::Throughput,
        Benchmark::Symmetric,
        Benchmark::Latency,
        Benchmark::Oneway,
        Benchmark::Matrix,
        Benchmark::Testfed,
        Benchmark::Timestep,
        Benchmark::Chaos,
        Benchmark::Clutter,
        Benchmark::WanRting,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Benchmark::Pingpong => "pingpong",
            Benchmark::Throughput => "throughput",
            Benchmark::Symmetric => "symmetric",
            Benchmark::Latency => "latency",
            Benchmark::Oneway => "oneway",
            Benchmark::Matrix => "matrix",
            Benchmark::Testfed => "testfed",
            Benchmark::Timestep => "timestep",
            Benchmark::Chaos => "chaos",
            Benchmark::Clutter => "clutter",
            Benchmark::WanRting => super::rting::RTING_BENCHMARK,
        }
    }

    /// The benchmark `meta.json` names, or `None` for a name no version wrote.
    pub fn from_name(name: &str) -> Option<Benchmark> {
        Benchmark::ALL.into_iter().find(|b| b.name() == name)
    }
}

/// `meta.json`.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Meta {
    /// A [`Benchmark`]'s name.
    pub benchmark: String,
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default)]
    pub version: Option<String>,
    /// Absent in RTI-NG study folders.
    #[serde(default)]
    pub machine: Option<Machine>,
    #[serde(default)]
    pub topology: Option<TopologyMeta>,
    /// A [`super::Mode`]'s name; text, so that a folder naming a carrier this version does
    /// not know still loads. Absent in RTI-NG study folders, as are `api`, `transport` and
    /// `bundling`.
    #[serde(default)]
    pub mode: Option<String>,
    /// An [`super::Api`]'s name.
    #[serde(default)]
    pub api: Option<String>,
    /// A [`super::Transport`]'s name.
    #[serde(default)]
    pub transport: Option<String>,
    /// "off", "adaptive" or the fixed delay ("5ms").
    #[serde(default)]
    pub bundling: Option<String>,
    #[serde(default)]
    pub started_unix: Option<u64>,
    /// `null` while the run goes on.
    #[serde(default)]
    pub finished_unix: Option<u64>,
    /// `false` while the run goes on and after a fault; absent: the folder does not say.
    #[serde(default)]
    pub complete: Option<bool>,
    /// What went wrong, when something did: the error that ended the run, or the faults
    /// met after measurements (a failed resign), joined by "; ". `complete` is false then.
    /// Absent in folders written before faults were recorded.
    #[serde(default)]
    pub fault: Option<String>,
}

/// The machine a run ran on.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Machine {
    #[serde(default)]
    pub cores: Option<u64>,
    #[serde(default)]
    pub kernel: Option<String>,
    #[serde(default)]
    pub hostname: Option<String>,
    #[serde(default)]
    pub cpu: Option<String>,
}

/// The topology file a run used.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TopologyMeta {
    #[serde(default)]
    pub file: Option<String>,
    /// The file's stem: "tree" for tree.toml.
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub summary: Option<TopologySummary>,
}

/// `trellis_core::topology::Summary` as `meta.json` holds it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct TopologySummary {
    #[serde(default)]
    pub routers: Option<u64>,
    #[serde(default)]
    pub federates: Option<u64>,
    #[serde(default)]
    pub cliques: Option<u64>,
    #[serde(default)]
    pub links: Option<u64>,
    #[serde(default)]
    pub depth: Option<u64>,
    /// For each number of links between two federates (the key, as text in JSON), how many
    /// pairs of federates are that far apart.
    #[serde(default)]
    pub links_histogram: Option<BTreeMap<u64, u64>>,
}
