//! The chaos benchmark: a federation survives the loss and restart of any router, and
//! nothing is lost silently.
//!
//! `trellis up` runs every router of a topology as a process and restarts one that dies.
//! Federates at different attachment points each publish a reliable serial (Vehicle Name)
//! and a best-effort serial (Vehicle Position) at a fixed rate and reflect everyone else's.
//! Every few seconds one router is killed with SIGKILL: a leaf, a mid router and the
//! registry's router in turn, then at random from the seed. Per fault: how long until a
//! federate saw a symptom, how long from the restart until reliable traffic flowed again
//! between every pair, what was delivered, duplicated (must be 0), reported lost, and lost
//! without a report (must be 0), the best-effort delivery ratio, and whether memberships
//! were kept or lost and joined again. A federate that loses its membership joins again:
//! that is the fault's outcome, not the end of the run.

mod federate;
mod ledger;
mod monitor;
mod summary;
mod up;

use super::results::{Meta, Results};
use super::{BenchError, Mode, Setup};
use monitor::Monitor;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
pub use summary::table;
use summary::{field, summarise, write};
use trellis_core::fom::ObjectModel;
use trellis_core::registry::DEFAULT_VOUCH_INTERVAL;
use trellis_core::topology::{generate, GenerateOptions, NodeKind, Shape, Topology};
use up::Up;

pub const DEFAULT_FAULT_EVERY_SECONDS: f64 = 10.0;
pub const DEFAULT_RATE_HZ: f64 = 20.0;
pub const DEFAULT_FEDERATES: usize = 4;

/// Bound on waiting for the federation to be whole again after a fault (a lost
/// federation needs the lease and a rejoin; this is far beyond both).
const RECOVERY_BOUND: Duration = Duration::from_secs(60);
/// Quiet time after a recovery before the next kill may come, so faults do not overlap.
const SETTLE: Duration = Duration::from_secs(1);

/// Where the routers come from.
#[derive(Clone, Debug)]
pub enum ChaosTopology {
    /// A 3-level binary tree, one federate per leaf router, written into the results folder.
    Tree,
    /// Four routers in one clique, one federate each, written into the results folder.
    Mesh,
    /// A topology file as given.
    File(PathBuf),
}

#[derive(Clone, Debug)]
pub struct ChaosOptions {
    /// The `trellis` executable, to run `trellis up`.
    pub trellis: PathBuf,
    pub topology: ChaosTopology,
    /// How long faults keep coming (the first after `fault_every`, the next ones ±20 %).
    pub duration: Duration,
    pub fault_every: Duration,
    /// Updates per second per publisher, of each kind.
    pub rate_hz: f64,
    pub seed: u64,
    /// At most this many federates, at the topology's first attachment points.
    pub federates: usize,
    /// Set on Ctrl-C: no more faults; what was measured is kept.
    pub stop: Arc<AtomicBool>,
}

pub use crate::results::chaos::{ChaosSummary, ChaosTotals, FaultKind, FaultRecord};

/// The federates' attachment points and the routers of each fault kind.
struct Plan {
    topology: Topology,
    file: PathBuf,
    name: String,
    federates: Vec<String>,
    targets: Vec<(FaultKind, Vec<String>)>,
}

/// Run the benchmark into a results folder (`out`, or `results/chaos-<time>`).
pub fn run(
    options: &ChaosOptions,
    command: &str,
    out: Option<&Path>,
) -> Result<(ChaosSummary, Results), BenchError> {
    let (results, plan) = prepare(options, command, out)?;
    let summary = measure(options, &plan, &results)?;
    write(&results, &summary)?;
    for problem in &summary.problems {
        results.fault(problem.clone());
    }
    Ok((summary, results))
}

/// The results folder, with the topology written into it (or named) and recorded in
/// `meta.json`.
fn prepare(
    options: &ChaosOptions,
    command: &str,
    out: Option<&Path>,
) -> Result<(Results, Plan), BenchError> {
    let setup = |topology: Option<PathBuf>| Setup {
        topology,
        ..Setup::default()
    };
    let meta = |setup: &Setup| Meta::new("chaos", command, setup, Mode::Trellis);
    let (results, file) = match &options.topology {
        ChaosTopology::File(file) => {
            let setup = setup(Some(file.clone()));
            (Results::create(out, meta(&setup))?, file.clone())
        }
        shape => {
            let first = Results::create(out, meta(&setup(None)))?;
            let file = first.dir().join("topology.toml");
            std::fs::write(&file, generated(shape)?)?;
            // The same folder again, now that meta.json can describe the topology.
            let setup = setup(Some(file.clone()));
            (Results::create(Some(first.dir()), meta(&setup))?, file)
        }
    };
    let plan = plan(options, file)?;
    Ok((results, plan))
}

/// The text of the generated topology, on free loopback ports.
fn generated(shape: &ChaosTopology) -> Result<String, BenchError> {
    let shape = match shape {
        ChaosTopology::Mesh => Shape::Mesh {
            routers: 4,
            federates: 1,
        },
        _ => Shape::Tree {
            fanout: 2,
            levels: 3,
            federates: 1,
        },
    };
    let failed = |e: &dyn std::fmt::Display| BenchError::Failed(format!("topology: {e}"));
    let trial = generate(&shape, &GenerateOptions::default()).map_err(|e| failed(&e))?;
    let ports: usize = trial.nodes().iter().map(|n| n.listen.len()).sum();
    let options = GenerateOptions {
        base_port: free_ports(ports as u16)?,
        ..GenerateOptions::default()
    };
    let topology = generate(&shape, &options).map_err(|e| failed(&e))?;
    topology.to_toml().map_err(|e| failed(&e))
}

/// The first of `count` consecutive ports free on loopback, checked by binding them all.
fn free_ports(count: u16) -> Result<u16, BenchError> {
    for attempt in 0..200u32 {
        let base = 20_000 + (std::process::id() % 300 * 100 + attempt * 173) % 40_000;
        let base = base as u16;
        let held: Vec<_> = (0..count)
            .map_while(|i| std::net::TcpListener::bind(("127.0.0.1", base + i)).ok())
            .collect();
        if held.len() == count as usize {
            return Ok(base);
        }
    }
    Err(BenchError::Failed(format!(
        "no {count} consecutive free ports on loopback"
    )))
}

fn plan(options: &ChaosOptions, file: PathBuf) -> Result<Plan, BenchError> {
    let text = std::fs::read_to_string(&file)?;
    let topology = Topology::from_toml(&text)
        .map_err(|e| BenchError::Failed(format!("{}: {e}", file.display())))?;
    let federates: Vec<String> = topology
        .federates()
        .take(options.federates)
        .map(|n| n.name.clone())
        .collect();
    if federates.len() < 2 {
        return Err(BenchError::Failed(format!(
            "{}: chaos needs at least two federates in the topology",
            file.display()
        )));
    }
    let targets = targets(&topology);
    if targets.is_empty() {
        return Err(BenchError::Failed(format!(
            "{}: no router to kill",
            file.display()
        )));
    }
    let name = file
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let name = match (&options.topology, name.as_str()) {
        (ChaosTopology::Tree, _) => "tree".to_owned(),
        (ChaosTopology::Mesh, _) => "mesh".to_owned(),
        (_, stem) => stem.to_owned(),
    };
    Ok(Plan {
        topology,
        file,
        name,
        federates,
        targets,
    })
}

/// The routers of each kind present: leaves (federates below them), mid routers (a parent
/// and routers below), the registry's router. A router counts once, the registry first.
fn targets(topology: &Topology) -> Vec<(FaultKind, Vec<String>)> {
    let nodes = topology.nodes();
    let registry = topology.registry_host();
    let below = |i: usize, kind: NodeKind| {
        nodes
            .iter()
            .any(|n| n.kind == kind && n.parent.as_ref().is_some_and(|p| p.node == i))
    };
    let mut leaf = Vec::new();
    let mut mid = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        if node.kind != NodeKind::Router || Some(i) == registry {
            continue;
        }
        if node.parent.is_some() && below(i, NodeKind::Router) {
            mid.push(node.name.clone());
        } else if below(i, NodeKind::Federate) {
            leaf.push(node.name.clone());
        }
    }
    let registry: Vec<String> = registry
        .filter(|&i| nodes[i].kind == NodeKind::Router)
        .map(|i| vec![nodes[i].name.clone()])
        .unwrap_or_default();
    [
        (FaultKind::Leaf, leaf),
        (FaultKind::Mid, mid),
        (FaultKind::Registry, registry),
    ]
    .into_iter()
    .filter(|(_, routers)| !routers.is_empty())
    .collect()
}

/// Which router to kill next: each kind once in turn, then kinds and routers at random;
/// and how long until then.
struct Schedule {
    state: u64,
    targets: Vec<(FaultKind, Vec<String>)>,
    done: usize,
}

impl Schedule {
    fn new(seed: u64, targets: Vec<(FaultKind, Vec<String>)>) -> Schedule {
        Schedule {
            state: seed,
            targets,
            done: 0,
        }
    }

    /// splitmix64: enough to spread faults reproducibly from a seed.
    fn random(&mut self, below: usize) -> usize {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % below.max(1) as u64) as usize
    }

    /// A factor in [0.8, 1.2) for the time to the next fault. Faults exactly a period
    /// apart phase-lock with the federation's own periodic timers (vouches every 2 s): a
    /// lost membership then shows up a little later at each fault, and the recovery times
    /// drift instead of sampling the whole interval.
    fn jitter(&mut self) -> f64 {
        0.8 + self.random(1000) as f64 * 0.0004
    }

    fn next(&mut self) -> (FaultKind, String) {
        let kind = if self.done < self.targets.len() {
            self.done
        } else {
            self.random(self.targets.len())
        };
        self.done += 1;
        let count = self.targets[kind].1.len();
        let router = self.random(count);
        let (kind, routers) = &self.targets[kind];
        (*kind, routers[router].clone())
    }
}

/// When one fault happened, as the coordinator saw it.
struct FaultTimes {
    kind: FaultKind,
    router: String,
    killed_at: Duration,
    restarted_at: Option<Duration>,
}

/// Start the routers and federates, run the faults, stop everything, account.
fn measure(
    options: &ChaosOptions,
    plan: &Plan,
    results: &Results,
) -> Result<ChaosSummary, BenchError> {
    let clock = Instant::now();
    let every = options.fault_every.as_secs_f64().max(0.1);
    // One router may be picked for every fault of a minute: never let the limit refuse.
    let max_restarts = ((60.0 / every).ceil() as usize + 2).max(5);
    let mut up = Up::start(
        &options.trellis,
        &plan.file,
        max_restarts,
        &results.dir().join("routers.log"),
        clock,
    )?;
    let (sending, stop) = (
        Arc::new(AtomicBool::new(true)),
        Arc::new(AtomicBool::new(false)),
    );
    let (events, incoming) = std::sync::mpsc::channel();
    let shared = federate::Shared {
        federation: format!("Chaos{}", std::process::id()),
        model: Arc::new(
            ObjectModel::from_sources(&[("trellis-demo.xml", crate::demo::DEMO_FOM)])
                .map_err(|e| BenchError::Failed(e.to_string()))?,
        ),
        names: Arc::new(plan.federates.clone()),
        clock,
        period: Duration::from_secs_f64(1.0 / options.rate_hz.max(0.1)),
        sending: sending.clone(),
        stop: stop.clone(),
        events,
    };
    let plans = plan
        .federates
        .iter()
        .map(|name| plan.topology.plan(name))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| BenchError::Failed(e.to_string()))?;
    let threads = federate::spawn_all(plans, &shared)?;
    drop(shared);
    let mut monitor = Monitor::new(incoming, plan.federates.len());
    let mut problems = Vec::new();
    let faults = match monitor.wait_healthy(Duration::ZERO, RECOVERY_BOUND) {
        Some(_) => faults(options, plan, &mut up, &mut monitor, clock, &mut problems),
        None => {
            problems.push("the federates never exchanged updates before the first fault".into());
            Vec::new()
        }
    };
    sending.store(false, Ordering::SeqCst);
    monitor.pump_until(Instant::now() + drain_time(options));
    stop.store(true, Ordering::SeqCst);
    for thread in threads {
        let _ = thread.join();
    }
    monitor.pump_now();
    up.stop();
    results.write_file("up.log", &up.log())?;
    let rows = membership_events(&monitor.log, &plan.federates);
    results.write_csv(
        "events.csv",
        &["at_s", "federate", "event", "detail"],
        &rows,
    )?;
    Ok(summarise(options, plan, &monitor, &faults, problems))
}

/// How long the last updates get to arrive once sending stops: many send periods, and at
/// least a second (they need milliseconds when the federation is whole).
fn drain_time(options: &ChaosOptions) -> Duration {
    Duration::from_secs_f64((10.0 / options.rate_hz.max(0.1)).max(1.0))
}

/// Kill routers until the duration is over (or Ctrl-C, or a fault the run cannot go on
/// from, which is added to `problems`).
fn faults(
    options: &ChaosOptions,
    plan: &Plan,
    up: &mut Up,
    monitor: &mut Monitor,
    clock: Instant,
    problems: &mut Vec<String>,
) -> Vec<FaultTimes> {
    let mut schedule = Schedule::new(options.seed, plan.targets.clone());
    let mut faults = Vec::new();
    let end = clock.elapsed() + options.duration;
    let mut next_kill = clock.elapsed() + options.fault_every;
    while next_kill < end && !options.stop.load(Ordering::SeqCst) {
        monitor.pump_until(clock + next_kill);
        let (kind, router) = schedule.next();
        let number = faults.len() + 1;
        match one_fault(up, monitor, clock, kind, &router) {
            Ok((times, healthy)) => {
                let every = options.fault_every.mul_f64(schedule.jitter());
                next_kill = (times.killed_at + every).max(healthy + SETTLE);
                faults.push(times);
            }
            Err((times, problem)) => {
                faults.extend(times);
                problems.push(format!(
                    "fault {number} ({} {router}): {problem}",
                    kind.label()
                ));
                break;
            }
        }
    }
    faults
}

type FaultOutcome = Result<(FaultTimes, Duration), (Option<FaultTimes>, String)>;

/// Kill `router`, wait for `trellis up` to restart it and for the federation to be whole
/// again. Returns the times and when it was whole.
fn one_fault(
    up: &mut Up,
    monitor: &mut Monitor,
    clock: Instant,
    kind: FaultKind,
    router: &str,
) -> FaultOutcome {
    let killed_at = clock.elapsed();
    up.kill_router(router).map_err(|e| (None, e.to_string()))?;
    let mut times = FaultTimes {
        kind,
        router: router.to_owned(),
        killed_at,
        restarted_at: None,
    };
    let exited = up.wait_for(&format!("router {router} exited"), Duration::from_secs(30));
    match exited {
        Ok((at, line)) if line.contains("restarted it") => times.restarted_at = Some(at),
        Ok((_, line)) => return Err((Some(times), format!("not restarted: {line}"))),
        Err(e) => return Err((Some(times), e.to_string())),
    }
    if let Err(e) = up.wait_for(&format!("router {router} is back"), RECOVERY_BOUND) {
        return Err((Some(times), e.to_string()));
    }
    match settled(monitor, clock, times.restarted_at.unwrap_or(killed_at)) {
        Some(healthy) => Ok((times, healthy)),
        None => Err((
            Some(times),
            format!("reliable traffic did not flow between every pair within {RECOVERY_BOUND:?}"),
        )),
    }
}

/// Healthy after `restarted`, and still so once memberships had time to be found lost: a
/// federate whose registry restarted without it hears so within a vouch interval, which
/// may be after traffic already flows again. Returns when it was healthy last.
fn settled(monitor: &mut Monitor, clock: Instant, restarted: Duration) -> Option<Duration> {
    let notice = restarted + 2 * DEFAULT_VOUCH_INTERVAL;
    monitor.wait_healthy(restarted, RECOVERY_BOUND)?;
    monitor.pump_until(clock + notice);
    monitor.wait_healthy(restarted, RECOVERY_BOUND)
}

/// Joins, lost memberships and loss reports, in time order: the timeline behind each
/// fault's figures (updates themselves are too many to list).
fn membership_events(log: &[federate::Observation], names: &[String]) -> Vec<Vec<String>> {
    use federate::Observation as O;
    let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| i.to_string());
    let mut rows: Vec<(Duration, Vec<String>)> = log
        .iter()
        .filter_map(|o| {
            let (federate, event, detail) = match o {
                O::Joined { federate, .. } => (*federate, "joined", String::new()),
                O::MembershipLost { federate, why, .. } => {
                    (*federate, "membership lost", why.clone())
                }
                O::Lost {
                    receiver,
                    publisher,
                    count,
                    ..
                } => (
                    *receiver,
                    "reliable loss reported",
                    format!(
                        "{count} from {}",
                        publisher.map_or_else(|| "?".into(), name)
                    ),
                ),
                O::Sent { .. } | O::Reflected { .. } => return None,
            };
            let at = o.at();
            Some((
                at,
                vec![
                    format!("{:.3}", at.as_secs_f64()),
                    name(federate),
                    event.into(),
                    field(detail),
                ],
            ))
        })
        .collect();
    rows.sort_by_key(|(at, _)| *at);
    rows.into_iter().map(|(_, row)| row).collect()
}

#[cfg(test)]
mod tests;
