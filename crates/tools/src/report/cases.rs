//! Runs made of cases (a configuration each): as the categories of bar charts, shared by
//! every run of the benchmark so that baselines stand beside the Trellis runs, and as rows of
//! tables.

use super::html::{Cell, Table};
use super::load::Run;
use super::svg::{BarChart, Bars};
use std::cmp::Ordering;
use std::collections::HashSet;

/// A table column: its heading and the text of a case's value.
pub(super) type Column<'a, C> = (&'a str, &'a dyn Fn(&C) -> String);

pub(super) struct CaseMatrix<'a, C> {
    runs: &'a [(&'a Run, &'a [C])],
    /// The distinct case names over all runs, in order.
    pub labels: Vec<String>,
    /// Per run, its case (if any) under each label.
    pub cases: Vec<Vec<Option<&'a C>>>,
}

impl<'a, C> CaseMatrix<'a, C> {
    /// Cases named by `label`, sorted by `order`.
    pub(super) fn new(
        runs: &'a [(&'a Run, &'a [C])],
        label: impl Fn(&C) -> String,
        order: impl Fn(&C, &C) -> Ordering,
    ) -> CaseMatrix<'a, C> {
        let mut all: Vec<&C> = runs.iter().flat_map(|(_, cases)| cases.iter()).collect();
        all.sort_by(|a, b| order(a, b));
        let mut seen = HashSet::new();
        let labels: Vec<String> = all
            .into_iter()
            .map(&label)
            .filter(|l| seen.insert(l.clone()))
            .collect();
        let cases = runs
            .iter()
            .map(|(_, cases)| {
                labels
                    .iter()
                    .map(|l| cases.iter().find(|c| label(c) == *l))
                    .collect()
            })
            .collect();
        CaseMatrix {
            runs,
            labels,
            cases,
        }
    }

    /// A bar chart of `value`, one series per run (baselines pale).
    pub(super) fn chart(
        &self,
        title: &str,
        y_label: &str,
        value: impl Fn(&C) -> Option<f64>,
    ) -> BarChart {
        let mut chart = BarChart::new(title, y_label, self.labels.clone());
        chart.series = self
            .runs
            .iter()
            .zip(&self.cases)
            .map(|((run, _), cases)| {
                let values = cases.iter().map(|c| c.and_then(&value)).collect();
                Bars::new(run.series_name(), values).baseline(run.is_baseline())
            })
            .collect();
        chart
    }

    /// A table with one row per case and, per run, one column per `(heading, value)`.
    pub(super) fn table(&self, caption: &str, columns: &[Column<C>]) -> Table {
        let mut head = vec!["case".to_owned()];
        for (run, _) in self.runs {
            head.extend(
                columns
                    .iter()
                    .map(|(h, _)| format!("{h}: {}", run.series_name())),
            );
        }
        let mut table = Table::new(caption, head);
        for (k, label) in self.labels.iter().enumerate() {
            let mut row = vec![label.as_str().into()];
            for run_cases in &self.cases {
                for (_, value) in columns {
                    row.push(run_cases[k].map_or_else(|| "–".to_owned(), value).into());
                }
            }
            table.rows.push(row);
        }
        table
    }

    /// `caption`, and what the pale bars are when some run is a baseline.
    pub(super) fn caption(&self, caption: &str) -> String {
        if self.runs.iter().any(|(run, _)| run.is_baseline()) {
            format!("{caption} Pale dashed bars are raw-socket baselines.")
        } else {
            caption.to_owned()
        }
    }
}

/// A table with a row per case of every run, the run named in the first column.
pub(super) fn rows_table<C>(
    caption: &str,
    head: &[&str],
    runs: &[(&Run, &[C])],
    row: impl Fn(&C) -> Vec<String>,
) -> Table {
    let mut header = vec!["run".to_owned()];
    header.extend(head.iter().map(|h| h.to_string()));
    let mut table = Table::new(caption, header);
    for (run, cases) in runs {
        for case in *cases {
            let mut cells: Vec<Cell> = vec![run.series_name().into()];
            cells.extend(row(case).into_iter().map(Cell::from));
            table.rows.push(cells);
        }
    }
    table
}
