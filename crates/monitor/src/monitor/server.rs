//! The page's HTTP side (axum): the embedded page, the topology as JSON, the frames as
//! Server-Sent Events, a node's history as JSON.
//!
//! - `GET /` the page; `/monitor.js`, `/monitor.css` its script and style (embedded in the
//!   binary: nothing is fetched from anywhere else).
//! - `GET /graph.json` nodes, links and cliques of the topology file, and per node the
//!   federates its failure cuts off.
//! - `GET /events` one `data:` line per frame (see `board`): first every row, then what
//!   changed; a page that falls more than [`FRAME_BACKLOG`] frames behind gets every row
//!   again instead of the frames it missed. At most [`MAX_PAGES`] pages at once.
//! - `GET /history/{node}` that node's last minutes, one sample a second.
//! - `GET /federation.json` the federation panel ([`crate::federation::Panel`]), or
//!   `{"watching": false}` when the monitor was given no federation.

use super::board::{Board, Frame};
use crate::federation::Panel;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use tokio::sync::broadcast;

/// Pages served at once; one more is told 503.
pub const MAX_PAGES: usize = 32;
/// Frames a page may be behind before it is sent every row again (6 s at 10 frames a second).
pub const FRAME_BACKLOG: usize = 64;

const PAGE: &str = include_str!("../../assets/monitor.html");
const SCRIPT: &str = include_str!("../../assets/monitor.js");
const PLOT_SCRIPT: &str = include_str!("../../assets/plot.js");
const STYLE: &str = include_str!("../../assets/monitor.css");

/// What the handlers share.
pub struct Shared {
    pub board: Arc<Mutex<Board>>,
    pub frames: broadcast::Sender<Arc<str>>,
    /// The topology as the page reads it, built once.
    pub graph_json: String,
    pub title: String,
    /// The federation panel, when the monitor watches a federation.
    pub federation: Option<Arc<Mutex<Panel>>>,
    pages: AtomicUsize,
}

impl Shared {
    pub fn new(
        board: Arc<Mutex<Board>>,
        title: String,
        federation: Option<Arc<Mutex<Panel>>>,
    ) -> Arc<Shared> {
        let graph_json = {
            let board = board.lock().expect("board lock");
            let graph = board.graph();
            serde_json::json!({
                "title": title,
                "nodes": graph.nodes,
                "links": graph.links,
                "cliques": graph.cliques,
                "cut": graph.cut_off,
            })
            .to_string()
        };
        Arc::new(Shared {
            board,
            frames: broadcast::channel(FRAME_BACKLOG).0,
            graph_json,
            title,
            federation,
            pages: AtomicUsize::new(0),
        })
    }

    fn snapshot(&self) -> Frame {
        self.board.lock().expect("board lock").snapshot()
    }
}

/// The monitor's routes under `prefix` ("" at the root, or "/monitor" beside a side page).
/// The page names its files relatively, so it works under any prefix.
pub fn routes(shared: Arc<Shared>, prefix: &str) -> Router {
    let at = |path: &str| format!("{prefix}{path}");
    Router::new()
        .route(
            &at("/"),
            get(|| async { asset(PAGE, "text/html; charset=utf-8") }),
        )
        .route(
            &at("/monitor.js"),
            get(|| async { asset(SCRIPT, "text/javascript") }),
        )
        .route(
            &at("/plot.js"),
            get(|| async { asset(PLOT_SCRIPT, "text/javascript") }),
        )
        .route(
            &at("/monitor.css"),
            get(|| async { asset(STYLE, "text/css") }),
        )
        .route(&at("/graph.json"), get(graph))
        .route(&at("/events"), get(events))
        .route(&at("/history/{node}"), get(history))
        .route(&at("/federation.json"), get(federation))
        .with_state(shared)
}

pub(super) fn asset(body: &'static str, content_type: &'static str) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn graph(State(shared): State<Arc<Shared>>) -> Response {
    (
        [(header::CONTENT_TYPE, "application/json")],
        shared.graph_json.clone(),
    )
        .into_response()
}

async fn history(State(shared): State<Arc<Shared>>, Path(node): Path<usize>) -> Response {
    let board = shared.board.lock().expect("board lock");
    let Some(history) = board.history(node) else {
        return (StatusCode::NOT_FOUND, format!("no node {node}")).into_response();
    };
    let samples: Vec<_> = history.samples().collect();
    let body = serde_json::to_string(&samples).unwrap_or_else(|_| "[]".into());
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn federation(State(shared): State<Arc<Shared>>) -> Response {
    let body = match &shared.federation {
        None => serde_json::json!({ "watching": false }).to_string(),
        Some(panel) => {
            let panel = panel
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let mut json = serde_json::to_value(&*panel).unwrap_or_default();
            json["watching"] = serde_json::Value::Bool(true);
            json.to_string()
        }
    };
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}

/// Counts a page in while its event stream lives.
pub(super) struct PageSlot(Arc<Shared>);

impl PageSlot {
    pub(super) fn take(shared: &Arc<Shared>) -> Option<PageSlot> {
        let taken = shared.pages.fetch_add(1, Ordering::AcqRel);
        let slot = PageSlot(shared.clone());
        (taken < MAX_PAGES).then_some(slot)
    }
}

impl Drop for PageSlot {
    fn drop(&mut self) {
        self.0.pages.fetch_sub(1, Ordering::AcqRel);
    }
}

async fn events(State(shared): State<Arc<Shared>>) -> Response {
    let Some(slot) = PageSlot::take(&shared) else {
        let text = format!("more than {MAX_PAGES} pages open");
        return (StatusCode::SERVICE_UNAVAILABLE, text).into_response();
    };
    // Subscribe before the snapshot: a frame in between is applied twice, harmlessly
    // (rows carry values, not differences).
    let receiver = shared.frames.subscribe();
    let first = Some(shared.snapshot().json);
    let stream = futures_util::stream::unfold(
        (first, receiver, slot),
        |(first, mut receiver, slot)| async move {
            let json = match first {
                Some(json) => json,
                None => match receiver.recv().await {
                    Ok(json) => json,
                    Err(broadcast::error::RecvError::Lagged(_)) => slot.0.snapshot().json,
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
            };
            let event = Ok::<_, Infallible>(Event::default().data(&*json));
            Some((event, (None, receiver, slot)))
        },
    );
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}
