//! DIS (IEEE 1278.1) for Trellis: the four PDUs the gateway exchanges (`pdu`), their RPR
//! FOM 2.0 encodings (`rpr`), and the gateway federate that joins a federation and
//! translates between the two (`gateway`; `trellis gateway dis` runs it).
//!
//! The PDU codec is this crate's own rather than the `dis-rs` crate's: `dis-rs` 0.14 needs
//! Rust 1.91 (the workspace supports 1.85), 0.13 builds all of SISO-REF-010's
//! enumerations from a 1.4 MB XML file in its build script for 4 PDUs of its 72, and the
//! gateway wants a decoder it can show never panics on any bytes (`pdu` is fuzzed by
//! property tests).

// Input from the network never panics here: no unwrap outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod gateway;
pub mod pdu;
pub mod rpr;

pub use gateway::{Counts, Gateway, GatewayConfig, GatewayError};
