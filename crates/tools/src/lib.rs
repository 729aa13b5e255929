//! Tools built on the Trellis library: the benchmarks (and, as they land, topology launch and
//! reports).

pub mod bench;
pub mod demo;
pub mod report;
pub mod wan;
