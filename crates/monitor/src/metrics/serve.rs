//! `GET /metrics` over HTTP: a small axum server on a thread of its own with a
//! current-thread tokio runtime, bound before `start` returns (so a port in use is an
//! error there), stopped when dropped.
//!
//! Bounded everywhere: at most [`MAX_CONNECTIONS`] connections at once (further ones wait
//! in the kernel's backlog), a connection that moves no byte for [`IDLE_TIMEOUT`] is
//! closed, and a scrape whose figures take longer than [`GATHER_TIMEOUT`] is answered 503.

use super::limited::LimitedListener;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use std::net::SocketAddr;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;
use thiserror::Error;

/// Most HTTP connections served at once.
pub const MAX_CONNECTIONS: usize = 16;
/// A connection idle this long (no byte read or written) is closed.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest a scrape waits for the figures (the event loop answering its stats request).
pub const GATHER_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, Error)]
pub enum MetricsError {
    #[error("cannot serve metrics on {address}: {source}")]
    Bind {
        address: SocketAddr,
        source: std::io::Error,
    },
    #[error("cannot start the metrics server thread: {0}")]
    Thread(std::io::Error),
}

/// Produces the text of one scrape. Called on a blocking thread, once per request.
pub type Gather = Arc<dyn Fn() -> String + Send + Sync>;

/// A running `/metrics` server; dropping it stops it.
pub struct MetricsServer {
    address: SocketAddr,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl MetricsServer {
    /// Bind `address` and serve `gather`'s text on `/metrics` until dropped.
    pub fn start(
        address: SocketAddr,
        gather: impl Fn() -> String + Send + Sync + 'static,
    ) -> Result<MetricsServer, MetricsError> {
        let bind_error = |source| MetricsError::Bind { address, source };
        let listener = std::net::TcpListener::bind(address).map_err(bind_error)?;
        listener.set_nonblocking(true).map_err(bind_error)?;
        let bound = listener.local_addr().map_err(bind_error)?;
        let (stop, stopped) = tokio::sync::oneshot::channel();
        let gather: Gather = Arc::new(gather);
        let thread = std::thread::Builder::new()
            .name(format!("metrics-{}", bound.port()))
            .spawn(move || run(listener, gather, stopped))
            .map_err(MetricsError::Thread)?;
        Ok(MetricsServer {
            address: bound,
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Where it listens (a port 0 asked for is the port chosen).
    pub fn address(&self) -> SocketAddr {
        self.address
    }
}

impl Drop for MetricsServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn run(
    listener: std::net::TcpListener,
    gather: Gather,
    stopped: tokio::sync::oneshot::Receiver<()>,
) {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(2)
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!(error = %e, "metrics server: cannot start its runtime");
            return;
        }
    };
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::from_std(listener) {
            Ok(listener) => LimitedListener::new(listener, MAX_CONNECTIONS, IDLE_TIMEOUT),
            Err(e) => {
                tracing::error!(error = %e, "metrics server: cannot use its socket");
                return;
            }
        };
        let app = axum::Router::new()
            .route("/metrics", get(metrics))
            .route(
                "/",
                get(|| async { "Trellis figures for Prometheus: GET /metrics\n" }),
            )
            .with_state(gather);
        // Not a graceful shutdown: a scraper's idle keep-alive connection must not hold the
        // process's exit; the runtime's end below drops every connection.
        tokio::select! {
            result = axum::serve(listener, app) => {
                if let Err(e) = result {
                    tracing::warn!(error = %e, "metrics server stopped");
                }
            }
            _ = stopped => {}
        }
    });
    runtime.shutdown_timeout(GATHER_TIMEOUT);
}

async fn metrics(State(gather): State<Gather>) -> Response {
    let task = tokio::task::spawn_blocking(move || gather());
    match tokio::time::timeout(GATHER_TIMEOUT, task).await {
        Ok(Ok(text)) => (
            [(
                header::CONTENT_TYPE,
                "text/plain; version=0.0.4; charset=utf-8",
            )],
            text,
        )
            .into_response(),
        Ok(Err(_)) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            "gathering the figures failed\n",
        )
            .into_response(),
        Err(_) => (
            StatusCode::SERVICE_UNAVAILABLE,
            "the figures took too long to gather\n",
        )
            .into_response(),
    }
}
