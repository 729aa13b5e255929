use crate::endpoint::Endpoint;
use thiserror::Error;
use trellis_core::router::PublishError;

/// Why a node, host or router runtime failed; each message names the endpoint or limit.
#[derive(Debug, Error)]
pub enum NetError {
    /// The reason is in the message (not a `source`: a report of the chain would say it
    /// twice).
    #[error("cannot listen on {endpoint}: {error}{}", in_use_hint(error))]
    Listen {
        /// The address asked for.
        endpoint: Endpoint,
        /// What the system said.
        error: std::io::Error,
    },
    /// No link to the router at the endpoint could be made.
    #[error("cannot connect to {endpoint}: {why}")]
    Connect {
        /// Where the dial went.
        endpoint: Endpoint,
        /// The step that failed, for the user.
        why: String,
    },
    /// This kind of endpoint cannot serve the role asked of it (for example UDP as a dial).
    #[error("{0} cannot be used here: {1}")]
    Unsupported(Endpoint, &'static str),
    /// The event loop thread ended (its host stopped, or it failed): no service can run.
    #[error("the event loop has stopped")]
    Stopped,
    /// A bounded wait ran out; the text names what was awaited.
    #[error("timed out after {0:?} waiting for {1}")]
    Timeout(std::time::Duration, &'static str),
    /// The router refused a publish (unknown interest id, too many ids, frame too large).
    #[error(transparent)]
    Publish(#[from] PublishError),
    /// A topology plan could not be turned into node or host settings.
    #[error("topology plan: {0}")]
    Plan(String),
    /// TLS certificates or keys could not be loaded or used.
    #[error(transparent)]
    Tls(#[from] crate::tls::TlsError),
    /// An I/O error of the event loop itself (its poller or wake-up pipe).
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
