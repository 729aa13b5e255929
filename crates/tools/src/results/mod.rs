//! The results schema: what `meta.json` and each benchmark's `summary.json` hold. One set of
//! types for both sides — the harness (`bench`) fills and writes them, the report (`report`)
//! reads them — so a field cannot be written under one name and read under another.
//!
//! Reading is liberal, as folders written by older versions (and by hand) lack fields:
//! - a number a writer leaves unmeasured is NaN, which JSON stores as `null`; it reads back
//!   as NaN, and a missing one reads as NaN too (`default = "unmeasured"`);
//! - fields added after the first results were written are `#[serde(default)]` (or
//!   `Option`), each saying so;
//! - fields this schema does not know are ignored.

pub mod chaos;
pub mod clutter;
pub mod lab;
pub mod latency;
pub mod matrix;
pub mod meta;
pub mod oneway;
pub mod pingpong;
pub mod rting;
pub mod symmetric;
pub mod testfed;
pub mod throughput;
pub mod timestep;

pub use meta::{Benchmark, Machine, Meta, TopologyMeta, TopologySummary};

use serde::{Deserialize, Deserializer, Serialize};

/// Which API the workload uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Api {
    /// HLA federate services: attribute updates and reflections.
    Federate,
    /// The node API: payloads tagged with interest ids.
    Node,
}

/// The transport class the workload's messages use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    Reliable,
    BestEffort,
}

/// What carried the workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Trellis through routers.
    Trellis,
    /// Plain TCP sockets, one write per message, no router.
    RawTcp,
    /// Plain UDP datagrams, one per message, no router.
    RawUdp,
}

impl Mode {
    /// The name `meta.json` and the summaries carry ("trellis", "raw-tcp", "raw-udp").
    pub fn name(self) -> &'static str {
        match self {
            Mode::Trellis => "trellis",
            Mode::RawTcp => "raw-tcp",
            Mode::RawUdp => "raw-udp",
        }
    }
}

impl Api {
    pub fn name(self) -> &'static str {
        match self {
            Api::Federate => "federate",
            Api::Node => "node",
        }
    }
}

impl Transport {
    pub fn name(self) -> &'static str {
        match self {
            Transport::Reliable => "reliable",
            Transport::BestEffort => "best-effort",
        }
    }
}

/// A summary's carrier, where a folder (written by hand, or by the first harness) does not
/// say: the report takes the carrier from `meta.json`, never from here.
pub(crate) fn unsaid_mode() -> Mode {
    Mode::Trellis
}

pub(crate) fn unsaid_api() -> Api {
    Api::Node
}

/// A summary's `api`: the Rust harness's names, and `cpp-1516e`, which the C++ benchmark
/// federates (`cpp/examples/bench`) write: the standard C++ API is the federate services
/// over the federate library, so it reads as `federate` here (the report names the C++ API
/// from `meta.json`, which keeps the text).
pub(crate) fn api_by_name<'de, D: Deserializer<'de>>(d: D) -> Result<Api, D::Error> {
    let name = String::deserialize(d)?;
    match name.as_str() {
        "federate" | "cpp-1516e" => Ok(Api::Federate),
        "node" => Ok(Api::Node),
        other => Err(serde::de::Error::unknown_variant(
            other,
            &["federate", "node", "cpp-1516e"],
        )),
    }
}

pub(crate) fn unsaid_transport() -> Transport {
    Transport::Reliable
}

/// What the writers put in a number they could not measure; JSON stores it as `null`.
pub(crate) fn unmeasured() -> f64 {
    f64::NAN
}

/// A number, or `null` for one not measured (NaN, which JSON cannot carry).
pub(crate) fn number_or_null<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// A list of numbers, each one `null` when not measured.
pub(crate) fn numbers_or_nulls<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    let numbers = Vec::<Option<f64>>::deserialize(d)?;
    Ok(numbers.into_iter().map(|n| n.unwrap_or(f64::NAN)).collect())
}

/// A number read from a results file, `None` when it was not measured (`null`, missing).
pub fn measured(number: f64) -> Option<f64> {
    (!number.is_nan()).then_some(number)
}

#[cfg(test)]
mod tests;
