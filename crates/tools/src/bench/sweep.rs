//! The loop every benchmark's cases run in: stop early on a signal, and after each case
//! rewrite the summary and the CSV, so a run cut short keeps every case it measured.

use super::results::Results;
use super::{BenchError, Setup};
use indicatif::ProgressBar;
use serde::Serialize;

pub(crate) struct Sweep<'a> {
    results: &'a Results,
    setup: &'a Setup,
    csv_name: &'static str,
    csv_header: &'a [&'a str],
    rows: Vec<Vec<String>>,
    progress: ProgressBar,
}

impl<'a> Sweep<'a> {
    /// `cases` cases, shown as `what` on a terminal; one CSV row each in `csv_name`.
    pub(crate) fn new(
        results: &'a Results,
        setup: &'a Setup,
        what: &str,
        cases: usize,
        csv_name: &'static str,
        csv_header: &'a [&'a str],
    ) -> Sweep<'a> {
        Sweep {
            results,
            setup,
            csv_name,
            csv_header,
            rows: Vec::with_capacity(cases),
            progress: super::progress::bar(cases as u64, what),
        }
    }

    /// Whether the run was told to stop (SIGINT, SIGTERM): no more cases.
    pub(crate) fn stopped(&self) -> bool {
        self.setup.stopped()
    }

    /// A case was measured: `summary` holds it, `row` is its CSV line.
    pub(crate) fn record(
        &mut self,
        summary: &impl Serialize,
        row: Vec<String>,
    ) -> Result<(), BenchError> {
        debug_assert_eq!(row.len(), self.csv_header.len(), "{}", self.csv_name);
        self.rows.push(row);
        self.results.write_summary(summary)?;
        self.results
            .write_csv(self.csv_name, self.csv_header, &self.rows)?;
        self.progress.inc(1);
        Ok(())
    }
}

impl Drop for Sweep<'_> {
    fn drop(&mut self) {
        self.progress.finish_and_clear();
    }
}
