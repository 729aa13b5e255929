//! `trellis monitor`: a live web page of the federation drawn on its topology.
//!
//! # How the monitor learns the figures: it scrapes `/metrics`
//!
//! Every Trellis process can serve its figures on `/metrics` in the Prometheus text format
//! (see [`crate::metrics`]). The monitor reads exactly that, once a second per process:
//!
//! - one source of truth: the page and a site's Prometheus show the same numbers, named
//!   the same way, and a figure added for one is there for the other;
//! - the monitor needs no federation membership: it joins nothing, declares no interest,
//!   costs the routers no forwarding, and works while the federation is broken, which is
//!   when an operator needs it most (a router that stopped answering is exactly the
//!   "stale" node to show);
//! - 300 processes are 300 small HTTP requests a second: they run concurrently, at most
//!   [`scrape::MAX_IN_FLIGHT`] at once, each bounded by [`scrape::SCRAPE_TIMEOUT`], and a
//!   process still answering its previous scrape is skipped rather than queued.
//!
//! Subscribing through the federation (a monitor federate on reserved interest ids) would
//! scale like the papers' relay gateways, but would see nothing of a router that lost its
//! links, and adds traffic to what is being measured.
//!
//! # Pieces
//!
//! [`prom`] reads the text format; [`reading`] picks the contract's series out of it;
//! [`rates`] turns two readings into per-second figures; [`graph`] is the topology file as
//! drawn, with what each node's failure cuts off; [`board`] holds the latest figures and
//! composes the frames the pages get; [`history`] keeps each node's last five minutes;
//! [`scrape`] fetches (over HTTP, or from text rendered in this process for the demo);
//! [`server`] serves the page (`assets/`, embedded) and the frames as Server-Sent Events;
//! [`side`] a page beside it (the demo's plan view). [`start`] runs it all on a thread of
//! its own.
//!
//! # The federation panel: the one thing read through the federation
//!
//! Given a federation ([`MonitorSetup::federation`]), the monitor also runs a
//! [`crate::federation::Watcher`]: a tool federate that joins it and reads its MOM as any
//! tool would, for the page's federation panel (`/federation.json`). Figures of processes
//! and links still come from `/metrics` alone; the panel costs the federation one member
//! and one small update per member a second, and shows what only the RTI knows (who is
//! joined, their logical times).

pub mod board;
pub mod graph;
pub mod history;
mod http_get;
pub mod prom;
pub mod rates;
pub mod reading;
pub mod scrape;
pub mod server;
pub mod side;

use crate::federation::{WatchSetup, Watcher};
use board::{Board, COMPOSE_PERIOD};
pub use graph::Graph;
pub use scrape::{Source, Target};
pub use side::SidePage;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use thiserror::Error;

#[derive(Debug, Error)]
pub enum MonitorError {
    #[error("cannot listen on {address}: {source}")]
    Listen {
        address: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start the monitor's runtime: {0}")]
    Runtime(std::io::Error),
    #[error("cannot start the federation view's thread: {0}")]
    FederationView(std::io::Error),
}

/// What to monitor and how to name it on the page.
pub struct MonitorSetup {
    pub graph: Graph,
    pub targets: Vec<Target>,
    /// Shown as the page's title (the topology file's name).
    pub title: String,
    /// A page to serve at `/` beside the monitor, which then moves to `/monitor/`.
    pub side: Option<SidePage>,
    /// A federation to show in the page's federation panel, read from its MOM.
    pub federation: Option<WatchSetup>,
}

impl MonitorSetup {
    /// The topology's nodes, each with a source where the file gives one (the `metrics`
    /// key of `[[router]]`).
    pub fn from_topology(topology: &trellis_core::topology::Topology, title: &str) -> MonitorSetup {
        let targets = topology
            .nodes()
            .iter()
            .enumerate()
            .filter_map(|(node, entry)| {
                entry.metrics.map(|address| Target {
                    node,
                    source: Source::Http(address),
                })
            })
            .collect();
        MonitorSetup {
            graph: Graph::from_topology(topology),
            targets,
            title: title.to_owned(),
            side: None,
            federation: None,
        }
    }
}

/// Once stopped, how long open pages get before their event streams are cut: a page's
/// stream never ends by itself, so a graceful shutdown alone would wait for the browser.
const CLOSE_GRACE: Duration = Duration::from_millis(500);

/// A monitor serving on a thread of its own; dropping it stops the server and its scrapes
/// within [`CLOSE_GRACE`], open pages or not.
pub struct Running {
    address: SocketAddr,
    shutdown: Option<tokio::sync::watch::Sender<bool>>,
    thread: Option<std::thread::JoinHandle<()>>,
    /// The federation panel's tool federate: resigns when dropped.
    watcher: Option<Watcher>,
}

impl Running {
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// `http://ADDRESS/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(true);
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
        // Stops its reports and resigns (the page has stopped asking).
        drop(self.watcher.take());
    }
}

/// Serve the monitor of `setup` on `listen` (port 0: any free port).
pub fn start(setup: MonitorSetup, listen: SocketAddr) -> Result<Running, MonitorError> {
    let listener = std::net::TcpListener::bind(listen)
        .and_then(|l| l.set_nonblocking(true).map(|()| l))
        .map_err(|source| MonitorError::Listen {
            address: listen,
            source,
        })?;
    let address = listener.local_addr().map_err(MonitorError::Runtime)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(MonitorError::Runtime)?;
    let sources: Vec<usize> = setup.targets.iter().map(|t| t.node).collect();
    let board = Arc::new(Mutex::new(Board::new(Arc::new(setup.graph), &sources)));
    let watcher = (setup.federation)
        .map(Watcher::start)
        .transpose()
        .map_err(MonitorError::FederationView)?;
    let panel = watcher.as_ref().map(Watcher::panel);
    let shared = server::Shared::new(board.clone(), setup.title, panel);
    let (shutdown, stopped) = tokio::sync::watch::channel(false);
    let (targets, side) = (setup.targets, setup.side);
    let thread = std::thread::Builder::new()
        .name("monitor".into())
        .spawn(move || {
            runtime.block_on(async move {
                let listener = match tokio::net::TcpListener::from_std(listener) {
                    Ok(listener) => listener,
                    Err(e) => return tracing::error!("monitor listener: {e}"),
                };
                let app = match side {
                    None => server::routes(shared.clone(), ""),
                    Some(side) => server::routes(shared.clone(), "/monitor")
                        .merge(side::routes(side, shared.clone())),
                };
                tokio::spawn(scrape::scrape_forever(board, targets));
                tokio::spawn(compose_forever(shared));
                let mut stopping = stopped.clone();
                let served = axum::serve(listener, app).with_graceful_shutdown(async move {
                    let _ = stopping.wait_for(|stop| *stop).await;
                });
                let mut stopping = stopped;
                tokio::select! {
                    served = served => {
                        if let Err(e) = served {
                            tracing::error!("monitor server: {e}");
                        }
                    }
                    // Leaving block_on drops the runtime, and with it every open stream.
                    _ = async {
                        let _ = stopping.wait_for(|stop| *stop).await;
                        tokio::time::sleep(CLOSE_GRACE).await;
                    } => tracing::debug!("monitor: closed the pages still open"),
                }
            })
        })
        .map_err(MonitorError::Runtime)?;
    Ok(Running {
        address,
        shutdown: Some(shutdown),
        thread: Some(thread),
        watcher,
    })
}

/// Every [`COMPOSE_PERIOD`], the rows that changed go to every page; once a second each
/// node's figures go to its history.
async fn compose_forever(shared: Arc<server::Shared>) {
    let mut tick = tokio::time::interval(COMPOSE_PERIOD);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut recorded = Instant::now();
    loop {
        tick.tick().await;
        let now = Instant::now();
        let frame = {
            let mut board = shared.board.lock().expect("board lock");
            if now.duration_since(recorded) >= Duration::from_secs(1) {
                board.record_history(now);
                recorded = now;
            }
            board.compose(now)
        };
        if frame.rows > 0 {
            // No page listening is fine.
            let _ = shared.frames.send(frame.json);
        }
    }
}
