//! Everything of Trellis that talks to the world: TCP, UDP and memory pipes, the event loop
//! that drives the sans-IO core, and the node API programs use.

// Input from a file, the network or a pipe never panics here: no unwrap outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]
// Functions under 70 lines (clippy.toml), as TigerBeetle keeps them: one idea each.
#![cfg_attr(not(test), deny(clippy::too_many_lines))]
#![warn(missing_docs)]

mod clock;
mod endpoint;
mod error;
mod event_loop;
mod node;
pub mod plan;
pub mod rti;
mod runtime;
pub mod tls;
mod wake;

pub use endpoint::{Endpoint, EndpointError};
pub use error::NetError;
pub use event_loop::DEFAULT_SPIN;
pub use node::{
    Attachment, DirectNode, LinkEvent, Message, Node, NodeConfig, BUNDLE_BYTES,
    DEFAULT_BUNDLE_HOLD, TAIL_BOUND,
};
pub use runtime::{
    AcceptRefusals, DialConfig, Host, HostConfig, HostStats, Runtime, DEFAULT_MAX_ATTEMPTS,
    DEFAULT_MAX_LINKS_PER_ADDRESS, DEFAULT_MAX_LINKS_PER_IDENTITY, DEFAULT_RESERVED_ROUTER_SLOTS,
};
pub use tls::{TlsConfig, TlsError};
