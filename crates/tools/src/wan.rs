//! Results of the papers' WAN studies run in the site lab (`scripts/wan-results`): writing a
//! study's folder. Its summary's types are the results schema's (`crate::results::rting`),
//! which `trellis report` reads back.

use serde::{Deserialize, Serialize};
use std::path::Path;

pub use crate::results::rting::{LinkModel, RtingCase, RtingSummary, RTING_BENCHMARK};

/// `meta.json` of a study folder: enough for `trellis report` to know what it holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StudyMeta {
    pub benchmark: String,
    pub command: String,
    pub version: String,
    pub started_unix: u64,
    pub finished_unix: u64,
    pub complete: bool,
}

/// Why a study folder could not be written.
#[derive(Debug, thiserror::Error)]
#[error("writing {path}: {source}")]
pub struct WriteError {
    path: String,
    #[source]
    source: std::io::Error,
}

/// Write `meta.json` and `summary.json` of a study into `dir` (made if missing).
pub fn write_study<T: Serialize>(
    dir: &Path,
    meta: &StudyMeta,
    summary: &T,
) -> Result<(), WriteError> {
    let fail = |path: &Path| {
        let path = path.display().to_string();
        move |source| WriteError { path, source }
    };
    std::fs::create_dir_all(dir).map_err(fail(dir))?;
    for (name, value) in [
        ("meta.json", serde_json::to_string_pretty(meta)),
        ("summary.json", serde_json::to_string_pretty(summary)),
    ] {
        let path = dir.join(name);
        let text = value.map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e));
        std::fs::write(&path, text.map_err(fail(&path))? + "\n").map_err(fail(&path))?;
    }
    Ok(())
}
