//! Seeing a running federation.
//!
//! - [`metrics`]: the figures each router and federate process publishes (per link, per
//!   process, per federate), rendered in the Prometheus text format and served on
//!   `/metrics`.
//! - [`monitor`]: `trellis monitor`, a web page drawing the topology with those figures live.

pub mod metrics;
pub mod monitor;
