//! A results folder per run: `meta.json` (the exact command, version, machine, topology,
//! whether the run completed and, when it did not, the fault that stopped it or that it
//! met on the way), `summary.json` (what `--json` prints), CSV tables, and any
//! per-case data files. Written as cases finish, so an interrupted run keeps them.

use super::{Bundling, Mode, Setup};
pub use crate::results::{Machine, Meta, TopologyMeta, TopologySummary};
use serde::Serialize;
use std::fmt::Display;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};
use trellis_core::topology::{Summary, Topology};

/// What this machine is, read from /proc.
pub fn machine() -> Machine {
    let read = |path: &str| {
        std::fs::read_to_string(path)
            .unwrap_or_default()
            .trim()
            .to_owned()
    };
    let cpu = read("/proc/cpuinfo")
        .lines()
        .find_map(|l| {
            l.strip_prefix("model name")
                .map(|v| v.trim_start_matches([' ', '\t', ':']).to_owned())
        })
        .unwrap_or_default();
    Machine {
        cores: Some(std::thread::available_parallelism().map_or(1, |n| n.get()) as u64),
        kernel: Some(read("/proc/sys/kernel/osrelease")),
        hostname: Some(read("/proc/sys/kernel/hostname")),
        cpu: Some(cpu),
    }
}

fn topology_summary(summary: Summary) -> TopologySummary {
    TopologySummary {
        routers: Some(summary.routers as u64),
        federates: Some(summary.federates as u64),
        cliques: Some(summary.cliques as u64),
        links: Some(summary.links as u64),
        depth: Some(summary.depth as u64),
        links_histogram: Some(
            summary
                .links_histogram
                .into_iter()
                .map(|(links, pairs)| (links as u64, pairs))
                .collect(),
        ),
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The harness's constructor: it reads the machine and the topology file, which the
/// schema leaves to its writers.
impl Meta {
    /// The description of a run of `benchmark` with `setup`, started now.
    pub fn new(benchmark: &str, command: &str, setup: &Setup, mode: Mode) -> Meta {
        let topology = setup.topology.as_ref().and_then(|file| {
            let text = std::fs::read_to_string(file).ok()?;
            let topology = Topology::from_toml(&text).ok()?;
            Some(TopologyMeta {
                file: Some(file.display().to_string()),
                name: Some(
                    file.file_stem()
                        .map(|s| s.to_string_lossy().into_owned())
                        .unwrap_or_default(),
                ),
                summary: Some(topology_summary(topology.summary())),
            })
        });
        Meta {
            benchmark: benchmark.to_owned(),
            command: Some(command.to_owned()),
            version: Some(env!("CARGO_PKG_VERSION").to_owned()),
            machine: Some(machine()),
            topology,
            mode: Some(mode.name().to_owned()),
            api: Some(setup.api.name().to_owned()),
            transport: Some(setup.transport.name().to_owned()),
            bundling: Some(Bundling::label(setup.bundling)),
            started_unix: Some(unix_now()),
            finished_unix: None,
            complete: Some(false),
            fault: None,
        }
    }
}

pub struct Results {
    dir: PathBuf,
    meta: Meta,
    /// Faults met so far; the run goes on and keeps its measurements.
    faults: Mutex<Vec<String>>,
}

impl Results {
    /// Create `out`, or `results/<benchmark>-<time>` without one, and write `meta.json`.
    pub fn create(out: Option<&Path>, meta: Meta) -> std::io::Result<Results> {
        let dir = match out {
            Some(dir) => dir.to_path_buf(),
            None => {
                let base = PathBuf::from("results").join(format!(
                    "{}-{}",
                    meta.benchmark,
                    meta.started_unix.unwrap_or(0)
                ));
                let mut dir = base.clone();
                let mut n = 1;
                while dir.exists() {
                    n += 1;
                    dir = PathBuf::from(format!("{}-{n}", base.display()));
                }
                dir
            }
        };
        std::fs::create_dir_all(&dir)?;
        let results = Results {
            dir,
            meta,
            faults: Mutex::default(),
        };
        results.write_json("meta.json", &results.meta)?;
        Ok(results)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn write_json(&self, name: &str, value: &impl Serialize) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(value).map_err(std::io::Error::other)?;
        std::fs::write(self.dir.join(name), text + "\n")
    }

    /// The benchmark's summary (what `--json` prints), rewritten as cases finish.
    pub fn write_summary(&self, summary: &impl Serialize) -> std::io::Result<()> {
        self.write_json("summary.json", summary)
    }

    pub fn write_csv(
        &self,
        name: &str,
        header: &[&str],
        rows: &[Vec<String>],
    ) -> std::io::Result<()> {
        let mut text = header.join(",");
        text.push('\n');
        for row in rows {
            text.push_str(&row.join(","));
            text.push('\n');
        }
        std::fs::write(self.dir.join(name), text)
    }

    pub fn write_file(&self, name: &str, text: &str) -> std::io::Result<()> {
        std::fs::write(self.dir.join(name), text)
    }

    /// Record a fault: the run keeps what it measured, but will not be complete.
    pub fn fault(&self, fault: impl Into<String>) {
        self.faults
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(fault.into());
    }

    /// A step after a measurement (a resign, a destroy) by `who`: its failure is a fault
    /// to record, not a reason to discard what was measured.
    pub fn after_measurement<E: Display>(&self, who: &str, step: &str, result: Result<(), E>) {
        if let Err(e) = result {
            self.fault(format!("{who}: {step} failed: {e}"));
        }
    }

    /// The faults met so far, joined by "; ", or `None` when there were none.
    pub fn faults(&self) -> Option<String> {
        let faults = self.faults.lock().unwrap_or_else(|e| e.into_inner());
        (!faults.is_empty()).then(|| faults.join("; "))
    }

    /// Record the end of the run: finished time, whether every case ran, and the faults
    /// met (a run with a fault is never complete).
    pub fn finish(&mut self, complete: bool) -> std::io::Result<()> {
        self.meta.finished_unix = Some(unix_now());
        self.meta.fault = self.faults();
        self.meta.complete = Some(complete && self.meta.fault.is_none());
        self.write_json("meta.json", &self.meta)
    }

    /// The description written to `meta.json`.
    pub fn meta(&self) -> &Meta {
        &self.meta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(tag: &str) -> Results {
        let dir =
            std::env::temp_dir().join(format!("trellis-results-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let meta = Meta::new("throughput", "test", &Setup::default(), Mode::Trellis);
        Results::create(Some(&dir), meta).unwrap()
    }

    fn meta(results: &Results) -> serde_json::Value {
        let text = std::fs::read_to_string(results.dir().join("meta.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn a_failed_teardown_keeps_the_measurement_and_names_the_fault() {
        let mut results = results("teardown");
        results
            .write_summary(&serde_json::json!({"msgs_per_sec": 1234.5}))
            .unwrap();
        results.after_measurement("receiver-1", "resign", Ok::<(), String>(()));
        results.after_measurement("receiver-2", "resign", Err("link lost"));
        results.after_measurement("sender", "resign", Err("not connected"));
        results.finish(true).unwrap();
        let meta = meta(&results);
        assert_eq!(meta["complete"], false);
        assert_eq!(
            meta["fault"],
            "receiver-2: resign failed: link lost; sender: resign failed: not connected"
        );
        let summary = std::fs::read_to_string(results.dir().join("summary.json")).unwrap();
        assert!(summary.contains("1234.5"));
        std::fs::remove_dir_all(results.dir()).unwrap();
    }

    #[test]
    fn a_run_without_faults_is_complete_and_says_fault_null() {
        let mut results = results("clean");
        assert_eq!(meta(&results)["fault"], serde_json::Value::Null);
        results.after_measurement("sender", "resign", Ok::<(), String>(()));
        results.finish(true).unwrap();
        let meta = meta(&results);
        assert_eq!(meta["complete"], true);
        assert!(meta.as_object().unwrap().contains_key("fault"));
        assert_eq!(meta["fault"], serde_json::Value::Null);
        std::fs::remove_dir_all(results.dir()).unwrap();
    }
}
