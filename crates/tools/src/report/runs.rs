//! The header of each run: what ran, where, on which topology, and whether it finished.

use super::html::{key_values, opt_number, Cell, Section};
use super::load::{Run, Summary, TopologyMeta};
use crate::results::measured;

/// One header per run, in the order given.
pub(super) fn section(runs: &[Run]) -> Section {
    let mut body = String::from("<div class=\"runs\">");
    for run in runs {
        body.push_str(&format!(
            "<div class=\"run\"><h3>{}</h3>{}</div>",
            super::html::escape(&run.series_name()),
            key_values(rows(run))
        ));
    }
    body.push_str("</div>");
    Section {
        id: "runs",
        title: "Runs".to_owned(),
        body,
    }
}

fn rows(run: &Run) -> Vec<(&'static str, Cell)> {
    let meta = &run.meta;
    let mut rows = vec![
        ("Folder", Cell::code(run.dir.display().to_string())),
        ("Benchmark", Cell::from(meta.benchmark.as_str())),
        (
            "Status",
            match (meta.complete, &meta.fault) {
                (_, Some(fault)) => Cell::marked(format!("INCOMPLETE: {fault}")),
                (Some(true), None) => Cell::from("complete"),
                (Some(false), None) => Cell::marked("INTERRUPTED: the run did not finish"),
                (None, None) => Cell::marked("unknown: meta.json does not say whether it finished"),
            },
        ),
    ];
    let text = |v: &Option<String>| v.clone().map(Cell::from);
    let trellis = !run.is_baseline();
    let optional = [
        ("Command", meta.command.clone().map(Cell::code)),
        ("Version", text(&meta.version)),
        ("Machine", meta.machine.as_ref().map(machine)),
        (
            "Mode",
            meta.mode
                .as_ref()
                .map(|mode| mode_cell(mode, run.is_baseline())),
        ),
        // A raw baseline ran no Trellis: its API, transport class and bundling are unused
        // defaults, and the mode already names the socket.
        ("API", text(&meta.api).filter(|_| trellis)),
        ("Transport", text(&meta.transport).filter(|_| trellis)),
        ("Bundling", text(&meta.bundling).filter(|_| trellis)),
        ("TopologyMeta", meta.topology.as_ref().map(topology)),
        (
            "Time",
            time(meta.started_unix, meta.finished_unix).map(Cell::from),
        ),
    ];
    rows.extend(optional.into_iter().filter_map(|(k, v)| v.map(|v| (k, v))));
    if let Summary::Pingpong(p) = &run.summary {
        rows.push((
            "Round trips",
            Cell::from(format!(
                "{} measured, {} lost; mean {} µs, median {} µs, 99th percentile {} µs",
                p.count,
                p.lost,
                opt_number(measured(p.rtt_mean_us)),
                opt_number(measured(p.rtt_p50_us)),
                opt_number(measured(p.rtt_p99_us))
            )),
        ));
    }
    rows
}

fn mode_cell(mode: &str, baseline: bool) -> Cell {
    if baseline {
        Cell::from(format!("{mode} (baseline: plain sockets, no router)"))
    } else {
        Cell::from(mode)
    }
}

fn machine(m: &super::load::Machine) -> Cell {
    let parts = [
        m.cpu.clone(),
        m.cores.map(|c| format!("{c} cores")),
        m.kernel.as_ref().map(|k| format!("kernel {k}")),
        m.hostname.as_ref().map(|h| format!("host {h}")),
    ];
    Cell::from(parts.into_iter().flatten().collect::<Vec<_>>().join(", "))
}

fn topology(t: &TopologyMeta) -> Cell {
    let mut text = match (&t.name, &t.file) {
        (Some(name), Some(file)) => format!("{name} ({file})"),
        (Some(name), None) => name.clone(),
        (None, Some(file)) => file.clone(),
        (None, None) => "unnamed".to_owned(),
    };
    if let Some(shape) = t.shape() {
        text.push_str(&format!(": a {}", shape.name()));
    }
    if let Some(s) = &t.summary {
        let counts = [
            (s.routers, "routers"),
            (s.federates, "federates"),
            (s.cliques, "cliques"),
            (s.links, "links"),
            (s.depth, "depth"),
        ];
        let counts: Vec<String> = counts
            .iter()
            .filter_map(|(v, what)| v.map(|v| format!("{what} {v}")))
            .collect();
        if !counts.is_empty() {
            text.push_str(&format!("; {}", counts.join(", ")));
        }
        if let Some(histogram) = &s.links_histogram {
            let entries: Vec<String> = histogram
                .iter()
                .map(|(links, n)| format!("{links} links: {n}"))
                .collect();
            text.push_str(&format!("; paths by link count: {}", entries.join(", ")));
        }
    }
    Cell::from(text)
}

fn time(started: Option<u64>, finished: Option<u64>) -> Option<String> {
    match (started, finished) {
        (Some(s), Some(f)) => Some(match f.checked_sub(s) {
            Some(d) => format!("{} to {} ({d} s)", utc(s), utc(f)),
            None => format!("{} to {} (finished before it started)", utc(s), utc(f)),
        }),
        (Some(s), None) => Some(format!("started {}", utc(s))),
        (None, Some(f)) => Some(format!("finished {}", utc(f))),
        (None, None) => None,
    }
}

/// Seconds since the Unix epoch as a UTC date and time.
fn utc(secs: u64) -> String {
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let rem = secs % 86_400;
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// (year, month, day) of a day count since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_times_read_as_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(utc(951_782_400 + 3661), "2000-02-29 01:01:01 UTC");
        assert_eq!(utc(1_790_000_000), "2026-09-21 14:13:20 UTC");
        assert!(utc(u64::MAX).ends_with("UTC"));
    }
}
