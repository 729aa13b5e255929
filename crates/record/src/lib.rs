//! `trellis record`, `trellis replay` and `trellis record inspect`: a federate that writes
//! everything a federation publishes to a chunked, checksummed, indexed file, a federate
//! that publishes it again, and the file's summary and export. docs/recorder.md has the
//! file format.

// Input from a file, the network or a caller never panics here: no unwrap outside tests.
#![cfg_attr(not(test), deny(clippy::unwrap_used))]

pub mod export;
pub mod format;
pub mod reader;
pub mod recorder;
pub mod replay;
pub mod writer;

pub use format::{GapCause, Header, Record, Sent};
pub use reader::Recording;
pub use writer::{RecordWriter, WriterLimits};

use thiserror::Error;
use trellis_core::fom::FomErrors;
use trellis_net::rti::RtiError;

#[derive(Debug, Error)]
pub enum RecordError {
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    #[error("{0} is not a Trellis recording (it does not start with TRELREC1)")]
    NotARecording(String),
    #[error("the recording is damaged at byte {offset}: {what}")]
    Corrupt { offset: u64, what: String },
    #[error(
        "the recording is of format version {0}, newer than this trellis reads ({max})",
        max = format::FORMAT_VERSION
    )]
    Version(u64),
    #[error("a chunk of {0} bytes is larger than a chunk may be")]
    TooLarge(usize),
    #[error(transparent)]
    Rti(#[from] RtiError),
    #[error("the object model: {0}")]
    Fom(#[from] FomErrors),
    #[error("{0}")]
    Invalid(String),
    #[error("export: {0}")]
    Export(String),
}

/// Wall-clock nanoseconds since 1970 (0 if the clock is before it).
pub fn wall_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}
