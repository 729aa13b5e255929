//! Scraping: once a [`SCRAPE_PERIOD`], every source's exposition is read into the board.
//!
//! Scrapes run concurrently, at most [`MAX_IN_FLIGHT`] at once, each given
//! [`SCRAPE_TIMEOUT`]; a target whose previous scrape is still running is skipped for that
//! period rather than queued, so a hung process costs one slot and never a backlog.

use super::board::Board;
use super::http_get;
use super::prom;
use super::reading::Reading;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Semaphore;

pub const SCRAPE_PERIOD: Duration = Duration::from_secs(1);
pub const SCRAPE_TIMEOUT: Duration = Duration::from_millis(900);
pub const MAX_IN_FLIGHT: usize = 64;

/// Where one node's exposition comes from.
#[derive(Clone)]
pub enum Source {
    /// `GET /metrics` at this address.
    Http(SocketAddr),
    /// Rendered in this process (the demo's own routers and federates): no socket needed.
    Local(Arc<dyn Fn() -> String + Send + Sync>),
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Http(address) => write!(f, "http://{address}/metrics"),
            Source::Local(_) => f.write_str("in-process"),
        }
    }
}

/// A node of the graph and its source.
#[derive(Clone, Debug)]
pub struct Target {
    pub node: usize,
    pub source: Source,
}

async fn fetch(source: &Source) -> Result<String, String> {
    match source {
        Source::Http(address) => http_get::get(*address, "/metrics")
            .await
            .map_err(|e| e.to_string()),
        // Rendering may ask an event loop for its figures: off the runtime's thread.
        Source::Local(render) => {
            let render = render.clone();
            tokio::task::spawn_blocking(move || render())
                .await
                .map_err(|e| e.to_string())
        }
    }
}

struct Scraper {
    board: Arc<Mutex<Board>>,
    target: Target,
    busy: AtomicBool,
    /// Warned once already that the process answering is not the node expected.
    warned: AtomicBool,
}

impl Scraper {
    async fn scrape_once(&self) {
        let text = match tokio::time::timeout(SCRAPE_TIMEOUT, fetch(&self.target.source)).await {
            Ok(Ok(text)) => text,
            Ok(Err(e)) => return tracing::debug!("scrape {:?}: {e}", self.target.source),
            Err(_) => return tracing::debug!("scrape {:?}: timed out", self.target.source),
        };
        let at = Instant::now();
        let exposition = prom::parse(&text);
        if !exposition.bad_lines.is_empty() {
            tracing::debug!(
                "scrape {:?}: lines {:?} unreadable, skipped",
                self.target.source,
                exposition.bad_lines
            );
        }
        let reading = Reading::from_exposition(&exposition);
        let mut board = self.board.lock().expect("board lock");
        let expected = &board.graph().nodes[self.target.node].name;
        if let Some(process) = reading.process.as_deref().filter(|p| p != expected) {
            if !self.warned.swap(true, Ordering::Relaxed) {
                tracing::warn!(
                    "{:?} answers as process {process:?}, not {expected:?}: its figures are ignored",
                    self.target.source
                );
            }
            return;
        }
        board.apply(self.target.node, at, reading);
    }
}

/// Scrape every target once a period, forever (until the task is dropped).
pub async fn scrape_forever(board: Arc<Mutex<Board>>, targets: Vec<Target>) {
    let scrapers: Vec<Arc<Scraper>> = targets
        .into_iter()
        .map(|target| {
            Arc::new(Scraper {
                board: board.clone(),
                target,
                busy: AtomicBool::new(false),
                warned: AtomicBool::new(false),
            })
        })
        .collect();
    let slots = Arc::new(Semaphore::new(MAX_IN_FLIGHT));
    let mut tick = tokio::time::interval(SCRAPE_PERIOD);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        for scraper in &scrapers {
            if scraper.busy.swap(true, Ordering::AcqRel) {
                continue;
            }
            let (scraper, slots) = (scraper.clone(), slots.clone());
            tokio::spawn(async move {
                if let Ok(_slot) = slots.acquire_owned().await {
                    scraper.scrape_once().await;
                }
                scraper.busy.store(false, Ordering::Release);
            });
        }
    }
}
