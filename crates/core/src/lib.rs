//! The sans-IO heart of Trellis.
//!
//! Nothing in this crate touches a socket, a thread or a clock: callers feed it bytes and the
//! current [`Time`], and drain what it wants to send. That is what lets one deterministic
//! simulator run a whole network of routers in a single thread, and the same state machines
//! run under the `trellis-net` event loop in production.

// Input from a file, the network or a pipe never panics here: no unwrap outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]
// Functions under 70 lines (clippy.toml), as TigerBeetle keeps them: one idea each.
#![cfg_attr(not(test), deny(clippy::too_many_lines))]
#![warn(missing_docs)]

pub mod encoding;
pub mod federate;
pub mod fom;
pub mod interest;
pub mod policy;
pub mod registry;
pub mod router;
pub mod sim;
pub mod time;
pub mod topology;
pub mod wire;

pub use interest::InterestId;
pub use router::{Router, RouterConfig};
pub use time::Time;
