use crate::endpoint::Endpoint;
use thiserror::Error;
use trellis_core::router::PublishError;

#[derive(Debug, Error)]
pub enum NetError {
    #[error("cannot listen on {endpoint}: {source}")]
    Listen {
        endpoint: Endpoint,
        #[source]
        source: std::io::Error,
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
