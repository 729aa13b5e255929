//! A page served beside the monitor (the demo's plan view): its own HTML and script, and a
//! live feed of JSON the page polls by Server-Sent Events every [`FEED_PERIOD`]. With a
//! side page, it takes `/` and the monitor moves to `/monitor/`.
//!
//! - `GET /` the side page; `GET /side.js` its script;
//! - `GET /feed` one `data:` line per period with what `feed` returns (nothing is sent
//!   while it returns the same text as last time).

use super::server::{asset, PageSlot, Shared};
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

pub const FEED_PERIOD: Duration = Duration::from_millis(250);

/// What a side page serves.
#[derive(Clone)]
pub struct SidePage {
    pub html: &'static str,
    pub script: &'static str,
    /// The current state as JSON text, called once per period per open page.
    pub feed: Arc<dyn Fn() -> String + Send + Sync>,
}

struct FeedState {
    side: SidePage,
    /// Counts the side page's feeds among the monitor's pages.
    monitor: Arc<Shared>,
}

pub fn routes(side: SidePage, monitor: Arc<Shared>) -> Router {
    let (html, script) = (side.html, side.script);
    Router::new()
        .route(
            "/",
            get(move || async move { asset(html, "text/html; charset=utf-8") }),
        )
        .route(
            "/side.js",
            get(move || async move { asset(script, "text/javascript") }),
        )
        .route("/feed", get(feed))
        .with_state(Arc::new(FeedState { side, monitor }))
}

async fn feed(State(state): State<Arc<FeedState>>) -> Response {
    let Some(slot) = PageSlot::take(&state.monitor) else {
        return (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            "too many pages open",
        )
            .into_response();
    };
    let mut tick = tokio::time::interval(FEED_PERIOD);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let stream = futures_util::stream::unfold(
        (tick, String::new(), state, slot),
        |(mut tick, mut last, state, slot)| async move {
            loop {
                tick.tick().await;
                let now = (state.side.feed)();
                if now != last {
                    last.clone_from(&now);
                    let event = Ok::<_, Infallible>(Event::default().data(now));
                    return Some((event, (tick, last, state, slot)));
                }
            }
        },
    );
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}
