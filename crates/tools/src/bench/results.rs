//! A results folder per run: `meta.json` (the exact command, version, machine, topology,
//! whether the run completed), `summary.json` (what `--json` prints), CSV tables, and any
//! per-case data files. Written as cases finish, so an interrupted run keeps them.

use super::{Api, Bundling, Mode, Setup, Transport};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};
use trellis_core::topology::{Summary, Topology};

#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    pub cores: usize,
    pub kernel: String,
    pub hostname: String,
    pub cpu: String,
}

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
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        kernel: read("/proc/sys/kernel/osrelease"),
        hostname: read("/proc/sys/kernel/hostname"),
        cpu,
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct TopologyMeta {
    pub file: String,
    /// The file's stem: "tree" for tree.toml.
    pub name: String,
    pub summary: Summary,
}

#[derive(Clone, Debug, Serialize)]
pub struct Meta {
    pub benchmark: String,
    pub command: String,
    pub version: String,
    pub machine: Machine,
    pub topology: Option<TopologyMeta>,
    pub mode: Mode,
    pub api: Api,
    pub transport: Transport,
    pub bundling: String,
    pub started_unix: u64,
    pub finished_unix: Option<u64>,
    pub complete: bool,
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl Meta {
    /// The description of a run of `benchmark` with `setup`, started now.
    pub fn new(benchmark: &str, command: &str, setup: &Setup, mode: Mode) -> Meta {
        let topology = setup.topology.as_ref().and_then(|file| {
            let text = std::fs::read_to_string(file).ok()?;
            let topology = Topology::from_toml(&text).ok()?;
            Some(TopologyMeta {
                file: file.display().to_string(),
                name: file
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                summary: topology.summary(),
            })
        });
        Meta {
            benchmark: benchmark.to_owned(),
            command: command.to_owned(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
            machine: machine(),
            topology,
            mode,
            api: setup.api,
            transport: setup.transport,
            bundling: Bundling::label(setup.bundling),
            started_unix: unix_now(),
            finished_unix: None,
            complete: false,
        }
    }
}

pub struct Results {
    dir: PathBuf,
    meta: Meta,
}

impl Results {
    /// Create `out`, or `results/<benchmark>-<time>` without one, and write `meta.json`.
    pub fn create(out: Option<&Path>, meta: Meta) -> std::io::Result<Results> {
        let dir = match out {
            Some(dir) => dir.to_path_buf(),
            None => {
                let base = PathBuf::from("results")
                    .join(format!("{}-{}", meta.benchmark, meta.started_unix));
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
        let results = Results { dir, meta };
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

    /// Record the end of the run: finished time and whether every case ran.
    pub fn finish(&mut self, complete: bool) -> std::io::Result<()> {
        self.meta.finished_unix = Some(unix_now());
        self.meta.complete = complete;
        self.write_json("meta.json", &self.meta)
    }
}
