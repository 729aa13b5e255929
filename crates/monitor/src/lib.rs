//! Seeing a running federation.
//!
//! - [`metrics`]: the figures each router and federate process publishes (per link, per
//!   process, per federate), rendered in the Prometheus text format and served on
//!   `/metrics`.
//! - [`monitor`]: `trellis monitor`, a web page drawing the topology with those figures live.

// Input from a file, the network or a pipe never panics here: no unwrap outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod metrics;
pub mod monitor;
