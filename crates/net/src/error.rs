use crate::endpoint::Endpoint;
use thiserror::Error;
use trellis_core::router::PublishError;

#[derive(Debug, Error)]
pub enum NetError {
    /// The reason is in the message (not a `source`: a report of the chain would say it
    /// twice).
    #[error("cannot listen on {endpoint}: {error}{}", in_use_hint(error))]
    Listen {
        endpoint: Endpoint,
        error: std::io::Error,
    },
    #[error("cannot connect to {endpoint}: {why}")]
    Connect { endpoint: Endpoint, why: String },
    #[error("{0} cannot be used here: {1}")]
    Unsupported(Endpoint, &'static str),
    #[error("the event loop has stopped")]
    Stopped,
    #[error("timed out after {0:?} waiting for {1}")]
    Timeout(std::time::Duration, &'static str),
    #[error(transparent)]
    Publish(#[from] PublishError),
    #[error("topology plan: {0}")]
    Plan(String),
    #[error(transparent)]
    Tls(#[from] crate::tls::TlsError),
    #[error("event loop I/O: {0}")]
    Io(#[from] std::io::Error),
}

/// What a taken port most likely means.
fn in_use_hint(error: &std::io::Error) -> &'static str {
    match error.kind() {
        std::io::ErrorKind::AddrInUse => " (another process is listening there)",
        _ => "",
    }
}
