//! The figures each Trellis process publishes, in the Prometheus text format on
//! `GET /metrics`.
//!
//! - [`process`]: CPU user / system, resident memory, start time and uptime, CPUs, and the
//!   host's network bytes and packets (loopback left out);
//! - [`router`]: a router host's counters and, per link, messages and bytes each way, frames
//!   queued by class, drops by reason, pauses, keep-latest replacements, interest ids
//!   declared each way, whether it is up and its age;
//! - [`federate`]: per federate, objects owned and known, updates, reflects, interactions,
//!   callbacks pending, and the granted logical time when time management is on;
//! - [`render`]: the text format, written by hand; [`serve`]: the HTTP server.
//!
//! Every series carries `process="NAME"`; metric names and labels are the contract the
//! monitor page reads (`crate::monitor`). A router's figures are asked of its event loop
//! once per scrape ([`trellis_net::Host::stats`]): serving them costs the forwarding path
//! nothing between scrapes.

pub mod federate;
mod limited;
pub mod process;
pub mod render;
pub mod router;
pub mod serve;

pub use federate::{FederateBoard, FederateFigures};
pub use process::{ProcessKind, ProcessProbe};
pub use render::{Exposition, Kind};
pub use serve::{MetricsError, MetricsServer};

use std::net::SocketAddr;
use std::sync::Mutex;
use trellis_net::Host;

/// Serve the figures of a router process: its own, and its host's router and links.
pub fn serve_router(
    address: SocketAddr,
    process: &str,
    host: Host,
) -> Result<MetricsServer, MetricsError> {
    serve_process(
        address,
        process,
        ProcessKind::Router,
        move |out| match host.stats() {
            Ok(stats) => router::write_host(out, &stats),
            Err(e) => tracing::debug!(error = %e, "metrics: the router host has stopped"),
        },
    )
}

/// Serve the figures of a process running federates: its own, and each federate's as the
/// federates last published them to `board`.
pub fn serve_federates(
    address: SocketAddr,
    process: &str,
    board: FederateBoard,
) -> Result<MetricsServer, MetricsError> {
    serve_process(address, process, ProcessKind::Federate, move |out| {
        board.write(out)
    })
}

/// Serve, per scrape, the process's own figures followed by what `write_own` adds.
fn serve_process(
    address: SocketAddr,
    process: &str,
    kind: ProcessKind,
    write_own: impl Fn(&mut Exposition) + Send + Sync + 'static,
) -> Result<MetricsServer, MetricsError> {
    let process = process.to_owned();
    let probe = Mutex::new(ProcessProbe::new());
    MetricsServer::start(address, move || {
        let mut out = Exposition::new(&process);
        probe
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .write(&mut out, kind);
        write_own(&mut out);
        out.render()
    })
}
