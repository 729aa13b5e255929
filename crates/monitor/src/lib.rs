//! Seeing a running federation.
//!
//! - [`metrics`]: the figures each router and federate process publishes (per link, per
//!   process, per federate), rendered in the Prometheus text format and served on
//!   `/metrics`.
//! - [`monitor`]: `trellis monitor`, a web page drawing the topology with those figures live.
//! - [`federation`]: a federation's MOM read by a tool federate, for `trellis federation`
//!   and the monitor's federation panel.

// Input from a file, the network or a pipe never panics here: no unwrap outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod federation;
pub mod metrics;
pub mod monitor;
