//! Tools built on the Trellis library: the benchmarks (and, as they land, topology launch and
//! reports).

// Input from a file, the network or a pipe never panics here: no unwrap outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod bench;
pub mod certs;
pub mod demo;
pub mod hosts;
pub mod report;
pub mod results;
pub mod wan;
