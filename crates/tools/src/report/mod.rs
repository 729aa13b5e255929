//! `trellis report`: one self-contained HTML page summarising benchmark results folders
//! (`trellis bench <name> --out DIR`). Charts are inline SVG drawn here; the page fetches
//! nothing (no scripts, fonts, stylesheets or images) and escapes every text it read.
//!
//! Sections appear only when the inputs hold their data: run headers; ping-pong round trips
//! against message size per hop count; the tree / mesh time ratio; distributions of pair
//! means; the EC1 matrix (throughput against theoretical, reliability, latency and jitter);
//! the EC1 matrix across a site link beside its raw-socket phase 0; the one-way size × rate
//! matrix; throughput, symmetric and latency sweeps; testfed load;
//! chaos runs (per killed router: detection, recovery, losses and the verdict); clutter runs
//! (rate, delivery against interest, latency, memory, the scalability verdict); the papers'
//! WAN studies run in the site lab (RTI-NG's interconnects, JESPP's tree and mesh by site).
//! Raw-socket runs (`mode` raw-tcp / raw-udp) are drawn beside the Trellis runs as dashed
//! lines or pale bars, labelled as baselines.

mod axis;
mod cases;
mod chaos;
mod clutter;
mod ec1;
mod html;
pub(crate) mod load;
mod matrix;
mod oneway;
mod pingpong;
mod rates;
mod runs;
mod svg;
mod testfed;
mod timestep;
mod wan;

use std::path::{Path, PathBuf};

/// Why no report could be written. Every variant names the offending file or folder, and
/// carries the underlying error in its message (not as a separate source, so that chains
/// of causes do not print it twice).
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("no results folders given")]
    NoInput,
    #[error("{0}: not a results folder (no such directory)")]
    NotAFolder(PathBuf),
    #[error("cannot read {path}: {error}")]
    Read {
        path: PathBuf,
        error: std::io::Error,
    },
    #[error("{path}: malformed: {error}")]
    Malformed {
        path: PathBuf,
        error: serde_json::Error,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("cannot write {path}: {error}")]
    Write {
        path: PathBuf,
        error: std::io::Error,
    },
}

impl ReportError {
    /// Whether the error is in the inputs (as opposed to writing the report).
    pub fn is_input_error(&self) -> bool {
        !matches!(self, ReportError::Write { .. })
    }
}

const METHOD: &str = "All processes ran on one machine and every time was read from one \
    monotonic clock (Rust std::time::Instant): round trips are measured by the sender; one-way \
    latency subtracts the send time carried in the message from the receive time read on the \
    same clock.";

/// The report on `dirs` (results folders, in the order given) as one HTML document.
pub fn render(dirs: &[PathBuf]) -> Result<String, ReportError> {
    if dirs.is_empty() {
        return Err(ReportError::NoInput);
    }
    let runs = load::load_all(dirs)?;
    let mut sections = vec![runs::section(&runs)];
    sections.extend(pingpong::sections(&runs));
    sections.extend(matrix::sections(&runs));
    sections.extend(ec1::section(&runs));
    sections.extend(oneway::section(&runs));
    sections.extend(rates::sections(&runs));
    sections.extend(testfed::section(&runs));
    sections.extend(timestep::section(&runs));
    sections.extend(chaos::section(&runs));
    sections.extend(clutter::section(&runs));
    sections.extend(wan::sections(&runs));
    let intro = format!(
        "{}<p class=\"method\"><strong>How latency was measured.</strong> {}</p>",
        html::paragraph(&format!(
            "{}. Sizes are payload bytes; times are microseconds.",
            html::plural(runs.len(), "results folder")
        )),
        html::escape(METHOD)
    );
    Ok(html::page(&intro, &sections))
}

/// [`render`], written to `out`.
pub fn write(dirs: &[PathBuf], out: &Path) -> Result<(), ReportError> {
    let page = render(dirs)?;
    std::fs::write(out, page).map_err(|error| ReportError::Write {
        path: out.to_owned(),
        error,
    })
}
