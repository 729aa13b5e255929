//! The characterisation harness: the papers' measurement methods on any topology, beside
//! raw-socket baselines, written to a results folder (see [`results`]).
//!
//! Every benchmark runs on its own router on loopback, on a router given by address, or on
//! every router of a topology file started in this process; publishers and subscribers sit
//! on the topology's named attachment points. Raw twins run the same workload over plain
//! sockets with no Trellis.

pub mod agents;
pub mod chaos;
pub mod clutter;
pub mod hairpin;
pub mod human;
pub mod latency;
pub mod losses;
pub mod matrix;
pub mod mom_watcher;
mod network;
pub mod oneway;
pub mod pingpong;
mod progress;
mod raw;
pub mod results;
mod sides;
mod stats;
mod sweep;
pub mod symmetric;
mod team;
pub mod testfed;
pub mod throughput;
pub mod timestep;

pub use network::Attachments;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use thiserror::Error;
use trellis_core::router::LinkConfig;
use trellis_core::wire::TransportClass;
use trellis_net::Endpoint;
use trellis_net::NetError;

/// The carrier and API of a run are part of the results schema, shared with the report.
pub use crate::results::{Api, Mode, Transport};

impl Transport {
    pub fn class(self) -> TransportClass {
        match self {
            Transport::Reliable => TransportClass::Reliable,
            Transport::BestEffort => TransportClass::BestEffort,
        }
    }
}

impl Mode {
    /// The mode of a run with this raw baseline, or of a Trellis run when there is none.
    pub fn carrying(raw: Option<Raw>) -> Mode {
        match raw {
            None => Mode::Trellis,
            Some(Raw::Tcp) => Mode::RawTcp,
            Some(Raw::Udp) => Mode::RawUdp,
        }
    }
}

/// The raw-socket baselines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Raw {
    Tcp,
    Udp,
}

/// How frames are bundled into writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Bundling {
    /// One frame per write.
    Off,
    /// Frames queued while a write is under way leave together; an idle link writes at
    /// once (the default).
    Adaptive,
    /// Hold frames this long to bundle them (the papers' 5 ms, 20 ms).
    Fixed(Duration),
}

impl Bundling {
    /// Link settings for this bundling.
    pub fn link_config(self) -> LinkConfig {
        let mut config = LinkConfig::default();
        match self {
            // A batch always carries at least one frame: a one-byte limit means one each.
            Bundling::Off => config.batch_limit_bytes = 1,
            Bundling::Adaptive => {}
            Bundling::Fixed(delay) => config.bundling_delay = delay,
        }
        config
    }

    pub fn label(self) -> String {
        match self {
            Bundling::Off => "off".into(),
            Bundling::Adaptive => "adaptive".into(),
            Bundling::Fixed(d) => format!("{}ms", d.as_millis()),
        }
    }
}

impl std::str::FromStr for Bundling {
    type Err = String;

    fn from_str(text: &str) -> Result<Bundling, String> {
        match text {
            "off" => Ok(Bundling::Off),
            "adaptive" => Ok(Bundling::Adaptive),
            ms => ms
                .trim_end_matches("ms")
                .parse::<u64>()
                .map(|ms| Bundling::Fixed(Duration::from_millis(ms)))
                .map_err(|_| format!("bundling is off, adaptive or a delay in ms, not {text:?}")),
        }
    }
}

/// Where and how every benchmark runs.
#[derive(Clone, Debug)]
pub struct Setup {
    /// A running router to use instead of starting one.
    pub router: Option<Endpoint>,
    /// A topology file: its routers start in this process (unless `routers_running`), and
    /// federates attach at its named attachment points.
    pub topology: Option<PathBuf>,
    /// The topology's routers are already running (`trellis up`).
    pub routers_running: bool,
    pub transport: Transport,
    pub bundling: Bundling,
    pub api: Api,
    /// How long event loops poll before they sleep.
    pub spin: Duration,
    /// How long nodes driven on the caller's thread hold publishes to bundle them
    /// (`NodeConfig::bundle_hold`; zero writes each at once).
    pub bundle_hold: Duration,
    /// Set on Ctrl-C: benchmarks stop after the case under way and keep what finished.
    pub stop: Arc<AtomicBool>,
}

impl Default for Setup {
    fn default() -> Self {
        Setup {
            router: None,
            topology: None,
            routers_running: false,
            transport: Transport::Reliable,
            bundling: Bundling::Adaptive,
            api: Api::Federate,
            spin: trellis_net::DEFAULT_SPIN,
            bundle_hold: trellis_net::DEFAULT_BUNDLE_HOLD,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }
}

impl Setup {
    pub(crate) fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

#[derive(Debug, Error)]
pub enum BenchError {
    #[error(transparent)]
    Net(#[from] NetError),
    #[error(transparent)]
    Rti(#[from] trellis_net::rti::RtiError),
    #[error("benchmark I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Hosts(#[from] crate::hosts::HostsError),
    #[error("{0}")]
    Failed(String),
}

/// Interest id the publisher sends on; subscribers also declare one id each of their own so
/// the publisher can tell that all of them have joined before it starts.
pub(crate) const DATA_ID: u32 = 1;
pub(crate) const FIRST_SUBSCRIBER_ID: u32 = 1000;
