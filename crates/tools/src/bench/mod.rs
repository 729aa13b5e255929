//! Benchmarks. Each runs its own router on loopback unless given one, and each has a `raw`
//! twin that runs the same workload over plain sockets with no Trellis: the baseline.

mod network;
pub mod pingpong;
mod raw;
pub mod throughput;

use serde::Serialize;
use thiserror::Error;
use trellis_core::wire::TransportClass;
use trellis_net::NetError;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Transport {
    Reliable,
    BestEffort,
}

impl Transport {
    pub fn class(self) -> TransportClass {
        match self {
            Transport::Reliable => TransportClass::Reliable,
            Transport::BestEffort => TransportClass::BestEffort,
        }
    }
}

/// What carried the workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Trellis nodes through a router.
    Trellis,
    /// Plain TCP sockets, one write per message, no router.
    RawTcp,
}

/// Which API the workload uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Api {
    /// HLA federate services: attribute updates and reflections.
    Federate,
    /// The node API: payloads tagged with interest ids.
    Node,
}

#[derive(Debug, Error)]
pub enum BenchError {
    #[error(transparent)]
    Net(#[from] NetError),
    #[error(transparent)]
    Rti(#[from] trellis_net::rti::RtiError),
    #[error("benchmark I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("{0}")]
    Failed(String),
}

/// Interest id the publisher sends on; subscribers also declare one id each of their own so
/// the publisher can tell that all of them have joined before it starts.
pub(crate) const DATA_ID: u32 = 1;
pub(crate) const FIRST_SUBSCRIBER_ID: u32 = 1000;
