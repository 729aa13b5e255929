//! `lab.json`: the site lab a benchmark ran in (`trellis lab --bench '... --out DIR'`) and
//! the bytes that crossed its site links, beside the benchmark's own files, so a report can
//! say what network the numbers were measured on.
//!
//! Fields are in alphabetical order: the file was first written from a `serde_json` map,
//! which orders keys so, and a record written from this type reads the same, byte for byte.
//! Hand-written folders (the report's tests) give only the links' delay, rate and loss: the
//! sites read as empty, the loss as 0.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabRecord {
    /// The site the benchmark's federates ran in.
    #[serde(default)]
    pub federate_site: String,
    /// The lab file, as given on the command line.
    #[serde(default)]
    pub lab_file: Option<String>,
    pub links: Vec<LabLink>,
    /// Router name → the site it ran in.
    #[serde(default)]
    pub placement: BTreeMap<String, String>,
    /// Raw baselines: the forwarder in the router site their sockets went through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_via: Option<String>,
    /// The site the router ran in (without a topology file).
    #[serde(default)]
    pub router_site: String,
    /// Site → bytes the site links carried into it while the benchmark ran.
    #[serde(default)]
    pub site_link_bytes_in: BTreeMap<String, u64>,
    /// The topology file the routers were placed from, when one was given.
    #[serde(default)]
    pub topology_file: Option<String>,
}

/// One site link.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabLink {
    /// `None`: no rate limit.
    pub bandwidth_mbit: Option<f64>,
    /// One way.
    pub delay_ms: f64,
    #[serde(default)]
    pub loss_percent: f64,
    /// The two sites the link joins.
    #[serde(default)]
    pub sites: Vec<String>,
}
