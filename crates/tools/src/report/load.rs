//! Reading results folders: `meta.json` and `summary.json` as `trellis bench --out DIR`
//! writes them, in the types of the results schema (`crate::results`), which says how fields
//! that older folders lack are read.

use super::ReportError;
pub(crate) use crate::results::chaos::{ChaosSummary, ChaosTotals, FaultRecord};
pub(crate) use crate::results::clutter::ClutterSummary;
pub(crate) use crate::results::lab::LabRecord;
pub(crate) use crate::results::latency::{LatencyCase, LatencySummary};
pub(crate) use crate::results::matrix::{MatrixCase, MatrixCell, MatrixSummary};
pub(crate) use crate::results::oneway::{OnewayCase, OnewaySummary};
pub(crate) use crate::results::pingpong::{PingpongSummary, SizeResult};
pub(crate) use crate::results::rting::RtingSummary;
pub(crate) use crate::results::symmetric::{SymmetricCase, SymmetricSummary};
pub(crate) use crate::results::testfed::{FederateResult, TestfedSummary};
pub(crate) use crate::results::throughput::{ThroughputCase, ThroughputSummary};
pub(crate) use crate::results::timestep::{TimestepCase, TimestepSummary};
pub(crate) use crate::results::{Benchmark, Machine, Meta, TopologyMeta};
use serde::de::DeserializeOwned;
use std::path::{Path, PathBuf};

/// The two router layouts the JESPP paper compares.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Shape {
    Tree,
    Mesh,
}

impl Shape {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Shape::Tree => "tree",
            Shape::Mesh => "mesh",
        }
    }
}

impl TopologyMeta {
    /// Tree: no cliques and more than one router. Mesh: the routers form a clique (at least
    /// one clique, depth 1). Otherwise the name or file name says "tree" or "mesh".
    pub(crate) fn shape(&self) -> Option<Shape> {
        if let Some(s) = &self.summary {
            match (s.cliques, s.routers, s.depth) {
                (Some(0), Some(routers), _) if routers > 1 => return Some(Shape::Tree),
                (Some(cliques), _, Some(1)) if cliques >= 1 => return Some(Shape::Mesh),
                _ => {}
            }
        }
        let names = [&self.name, &self.file];
        let says = |word: &str| {
            names
                .iter()
                .filter_map(|n| n.as_deref())
                .any(|n| n.to_lowercase().contains(word))
        };
        match (says("tree"), says("mesh")) {
            (true, false) => Some(Shape::Tree),
            (false, true) => Some(Shape::Mesh),
            _ => None,
        }
    }
}

/// A summary, by benchmark.
pub(crate) enum Summary {
    Pingpong(PingpongSummary),
    Throughput(ThroughputSummary),
    Symmetric(SymmetricSummary),
    Latency(LatencySummary),
    Oneway(OnewaySummary),
    Matrix(MatrixSummary),
    Testfed(TestfedSummary),
    Timestep(TimestepSummary),
    Chaos(ChaosSummary),
    Clutter(ClutterSummary),
    WanRting(RtingSummary),
}

/// One results folder.
pub(crate) struct Run {
    pub dir: PathBuf,
    /// Names the run in charts and tables: the folder's name, or its whole path when two
    /// folders share a name.
    pub label: String,
    pub meta: Meta,
    pub summary: Summary,
    /// `lab.json`: the site lab the benchmark ran in (`trellis lab --bench '... --out DIR'`).
    pub lab: Option<LabRecord>,
}

impl Run {
    /// A raw-socket run (`raw-tcp`, `raw-udp`): a baseline beside the Trellis runs.
    pub(crate) fn is_baseline(&self) -> bool {
        self.meta
            .mode
            .as_deref()
            .is_some_and(|mode| mode.starts_with("raw"))
    }

    /// The run's name in legends: baselines say so.
    pub(crate) fn series_name(&self) -> String {
        match (&self.meta.mode, self.is_baseline()) {
            (Some(mode), true) => format!("{} (baseline, {mode})", self.label),
            _ => self.label.clone(),
        }
    }

    pub(crate) fn shape(&self) -> Option<Shape> {
        self.meta.topology.as_ref().and_then(TopologyMeta::shape)
    }
}

fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, ReportError> {
    let text = std::fs::read_to_string(path).map_err(|error| ReportError::Read {
        path: path.to_owned(),
        error,
    })?;
    serde_json::from_str(&text).map_err(|error| ReportError::Malformed {
        path: path.to_owned(),
        error,
    })
}

fn invalid(path: &Path, message: String) -> ReportError {
    ReportError::Invalid {
        path: path.to_owned(),
        message,
    }
}

fn read_summary(benchmark: Benchmark, path: &Path) -> Result<Summary, ReportError> {
    Ok(match benchmark {
        Benchmark::Pingpong => {
            let summary: PingpongSummary = read_json(path)?;
            for size in &summary.sizes {
                if size.pair_means_us.len() != summary.pairs.len() {
                    return Err(invalid(
                        path,
                        format!(
                            "size {}: {} pair means for {} pairs",
                            size.size,
                            size.pair_means_us.len(),
                            summary.pairs.len()
                        ),
                    ));
                }
            }
            Summary::Pingpong(summary)
        }
        Benchmark::Throughput => Summary::Throughput(read_json(path)?),
        Benchmark::Symmetric => Summary::Symmetric(read_json(path)?),
        Benchmark::Latency => Summary::Latency(read_json(path)?),
        Benchmark::Oneway => Summary::Oneway(read_json(path)?),
        Benchmark::Matrix => Summary::Matrix(read_json(path)?),
        Benchmark::Testfed => Summary::Testfed(read_json(path)?),
        Benchmark::Timestep => Summary::Timestep(read_json(path)?),
        Benchmark::Chaos => Summary::Chaos(read_json(path)?),
        Benchmark::Clutter => Summary::Clutter(read_json(path)?),
        Benchmark::WanRting => Summary::WanRting(read_json(path)?),
    })
}

fn load(dir: &Path) -> Result<(Meta, Summary, Option<LabRecord>), ReportError> {
    if !dir.is_dir() {
        return Err(ReportError::NotAFolder(dir.to_owned()));
    }
    let meta_file = dir.join("meta.json");
    let meta: Meta = read_json(&meta_file)?;
    let benchmark = Benchmark::from_name(&meta.benchmark).ok_or_else(|| {
        invalid(
            &meta_file,
            format!("unknown benchmark {:?}", meta.benchmark),
        )
    })?;
    let summary = read_summary(benchmark, &dir.join("summary.json"))?;
    let lab_file = dir.join("lab.json");
    let lab = lab_file
        .exists()
        .then(|| read_json(&lab_file))
        .transpose()?;
    Ok((meta, summary, lab))
}

/// Every folder, in the order given, each labelled by its name (or its path when names
/// repeat).
pub(crate) fn load_all(dirs: &[PathBuf]) -> Result<Vec<Run>, ReportError> {
    let name = |dir: &Path| {
        dir.file_name().map_or_else(
            || dir.display().to_string(),
            |n| n.to_string_lossy().into_owned(),
        )
    };
    dirs.iter()
        .map(|dir| {
            let (meta, summary, lab) = load(dir)?;
            let short = name(dir);
            let repeated = dirs.iter().filter(|d| name(d) == short).count() > 1;
            Ok(Run {
                dir: dir.clone(),
                label: if repeated {
                    dir.display().to_string()
                } else {
                    short
                },
                meta,
                summary,
                lab,
            })
        })
        .collect()
}
