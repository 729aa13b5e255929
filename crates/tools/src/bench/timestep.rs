//! Time-management step rate: N federates, every one time-regulating (lookahead 1,
//! HLAinteger64Time) and time-constrained, each in a thread of its own, start together at
//! the synchronization point "ReadyToRun" and step in lock-step for a while. Each step a
//! federate sends one zero-size attribute update of its object, stamped at the earliest
//! time it may use, asks timeAdvanceRequest(t + 1) and evokes callbacks until the grant.
//!
//! Per federate count and network (one router, a four-router mesh, or the run's own
//! router or topology): grants per second per federate (the federation's step rate),
//! time-management messages received and sent per grant, and reflections per step (every
//! other federate's update: N − 1).

use super::network::{Network, SETUP_TIMEOUT};
use super::results::Results;
use super::{Api, BenchError, Mode, Setup};
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, Interval, LogicalTime, ObjectId, TimeStats};
use trellis_core::fom::{AttributeHandle, Order};
use trellis_core::topology::{generate, GenerateOptions, Shape};
use trellis_net::rti::{Driver, ResignAction, RtiAmbassador};

pub const DEFAULT_FEDERATES: [usize; 3] = [2, 8, 32];
pub const DEFAULT_SECONDS: f64 = 3.0;
/// Routers of the mesh network.
pub const MESH_ROUTERS: usize = 4;
/// The synchronization point every federate achieves before the measured run.
pub const READY_TO_RUN: &str = "ReadyToRun";
pub const LOOKAHEAD: i64 = 1;
/// Threads are cheap, but each federate holds a connection and an event loop.
const MAX_FEDERATES: usize = 256;
/// Receive-order updates sent until every federate reflected one from every other, so
/// the measured run starts with every subscription known everywhere.
const GREETING_TAG: &[u8] = b"greeting";
const GREETING_EVERY: Duration = Duration::from_millis(10);
/// The tag of the measured, time-stamped updates.
const STEP_TAG: &[u8] = b"step";
/// How long a federate waits for any one grant before it calls the run failed.
const STEP_TIMEOUT: Duration = Duration::from_secs(20);
const POLL: Duration = Duration::from_millis(5);
/// Set in [`Shared::end`] until some federate's time is up.
const NO_END: i64 = i64::MAX;

/// The networks the benchmark runs on by default.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimestepNetwork {
    /// One router on loopback, every federate its child.
    OneRouter,
    /// [`MESH_ROUTERS`] routers in one clique on loopback, federates spread over them
    /// round-robin.
    Mesh,
}

impl TimestepNetwork {
    pub const ALL: [TimestepNetwork; 2] = [TimestepNetwork::OneRouter, TimestepNetwork::Mesh];

    pub fn label(self) -> &'static str {
        match self {
            TimestepNetwork::OneRouter => "one-router",
            TimestepNetwork::Mesh => "mesh",
        }
    }
}

#[derive(Clone, Debug)]
pub struct TimestepOptions {
    /// With a router or a topology in it, every case runs there and `networks` is unused.
    pub setup: Setup,
    /// Federate counts, one case each per network.
    pub federates: Vec<usize>,
    /// Seconds of stepping per case.
    pub seconds: f64,
    pub networks: Vec<TimestepNetwork>,
}

pub use crate::results::timestep::{TimestepCase, TimestepSummary};

const CSV_HEADER: [&str; 13] = [
    "network",
    "routers",
    "federates",
    "seconds",
    "steps",
    "grants",
    "grants_per_sec",
    "min_grants_per_sec",
    "time_messages_received_per_grant",
    "bounds_sent_per_grant",
    "reflects",
    "reflects_per_step",
    "expected_reflects_per_step",
];

fn csv_row(case: &TimestepCase) -> Vec<String> {
    vec![
        case.network.clone(),
        case.routers.to_string(),
        case.federates.to_string(),
        format!("{:.3}", case.seconds),
        case.steps.to_string(),
        case.grants.to_string(),
        format!("{:.1}", case.grants_per_sec),
        format!("{:.1}", case.min_grants_per_sec),
        format!("{:.2}", case.time_messages_received_per_grant),
        format!("{:.2}", case.bounds_sent_per_grant),
        case.reflects.to_string(),
        format!("{:.3}", case.reflects_per_step),
        case.expected_reflects_per_step.to_string(),
    ]
}

/// The summary as a table for people.
pub fn table(summary: &TimestepSummary) -> String {
    let mut text = format!(
        "timestep ({}, lookahead {}, TAR t+1, one zero-size update per step):\n",
        summary.time_representation, summary.lookahead
    );
    text.push_str(&format!(
        "  {:<12} {:>7} {:>9} {:>7} {:>12} {:>11} {:>12} {:>11} {:>13}\n",
        "network",
        "routers",
        "federates",
        "steps",
        "grants/s/fed",
        "min grant/s",
        "tm recv/grant",
        "sent/grant",
        "reflects/step"
    ));
    for c in &summary.cases {
        text.push_str(&format!(
            "  {:<12} {:>7} {:>9} {:>7} {:>12.1} {:>11.1} {:>12.2} {:>11.2} {:>8.3} (={})\n",
            c.network,
            c.routers,
            c.federates,
            c.steps,
            c.grants_per_sec,
            c.min_grants_per_sec,
            c.time_messages_received_per_grant,
            c.bounds_sent_per_grant,
            c.reflects_per_step,
            c.expected_reflects_per_step
        ));
    }
    text.pop();
    text
}

fn check(options: &TimestepOptions) -> Result<(), BenchError> {
    if options.federates.is_empty() {
        return Err(BenchError::Failed("no federate counts to run".into()));
    }
    if let Some(&n) = options
        .federates
        .iter()
        .find(|&&n| !(2..=MAX_FEDERATES).contains(&n))
    {
        return Err(BenchError::Failed(format!(
            "a time-step case needs 2 to {MAX_FEDERATES} federates, not {n}"
        )));
    }
    if !(options.seconds.is_finite() && options.seconds > 0.0 && options.seconds <= 3600.0) {
        return Err(BenchError::Failed(format!(
            "seconds must be above 0 and at most 3600, not {}",
            options.seconds
        )));
    }
    if options.networks.is_empty() && given_network(&options.setup).is_none() {
        return Err(BenchError::Failed("no network to run on".into()));
    }
    if options.setup.api == Api::Node {
        return Err(BenchError::Failed(
            "timestep exercises HLA time management; it has no node-API form".into(),
        ));
    }
    Ok(())
}

/// The label of the router or topology the setup names, if it names one.
fn given_network(setup: &Setup) -> Option<String> {
    if let Some(file) = &setup.topology {
        return Some(file.file_stem().map_or_else(
            || file.display().to_string(),
            |s| s.to_string_lossy().into_owned(),
        ));
    }
    setup.router.as_ref().map(|r| r.to_string())
}

pub fn run(options: &TimestepOptions, results: &Results) -> Result<TimestepSummary, BenchError> {
    check(options)?;
    let setup = &options.setup;
    let mut summary = TimestepSummary {
        mode: Mode::Trellis,
        api: setup.api,
        transport: setup.transport,
        time_representation: "HLAinteger64Time".into(),
        lookahead: LOOKAHEAD,
        cases: Vec::new(),
    };
    let networks: Vec<Option<TimestepNetwork>> = match given_network(setup) {
        Some(_) => vec![None],
        None => options.networks.iter().copied().map(Some).collect(),
    };
    let total = (networks.len() * options.federates.len()) as u64;
    let progress = super::progress::bar(total, "timestep cases");
    let mut rows = Vec::new();
    for network in networks {
        for &n in &options.federates {
            if setup.stopped() {
                break;
            }
            let case = match network {
                None => case(
                    options,
                    n,
                    &given_network(setup).unwrap_or_default(),
                    0,
                    setup,
                    results,
                )?,
                Some(TimestepNetwork::OneRouter) => case(
                    options,
                    n,
                    TimestepNetwork::OneRouter.label(),
                    1,
                    setup,
                    results,
                )?,
                Some(TimestepNetwork::Mesh) => {
                    let mesh = mesh_setup(setup, n, results)?;
                    case(
                        options,
                        n,
                        TimestepNetwork::Mesh.label(),
                        MESH_ROUTERS,
                        &mesh,
                        results,
                    )?
                }
            };
            rows.push(csv_row(&case));
            summary.cases.push(case);
            results.write_summary(&summary)?;
            results.write_csv("timestep.csv", &CSV_HEADER, &rows)?;
            progress.inc(1);
        }
    }
    progress.finish_and_clear();
    Ok(summary)
}

/// A setup on a mesh of [`MESH_ROUTERS`] routers with room for `n` federates, written to
/// the results folder (so the run can be repeated on it) on free loopback ports.
fn mesh_setup(setup: &Setup, n: usize, results: &Results) -> Result<Setup, BenchError> {
    let shape = Shape::Mesh {
        routers: MESH_ROUTERS,
        federates: n.div_ceil(MESH_ROUTERS),
    };
    let options = GenerateOptions {
        base_port: free_ports(MESH_ROUTERS)?,
        ..GenerateOptions::default()
    };
    let topology = generate(&shape, &options).map_err(|e| BenchError::Failed(e.to_string()))?;
    let text = topology
        .to_toml()
        .map_err(|e| BenchError::Failed(format!("mesh topology: {e}")))?;
    let file: PathBuf = results.dir().join(format!("mesh-{n}.toml"));
    std::fs::write(&file, text)?;
    Ok(Setup {
        topology: Some(file),
        routers_running: false,
        router: None,
        ..setup.clone()
    })
}

/// The first of `count` consecutive loopback ports that are free now.
fn free_ports(count: usize) -> Result<u16, BenchError> {
    for _ in 0..50 {
        let probe = std::net::TcpListener::bind("127.0.0.1:0")?;
        let base = probe.local_addr()?.port();
        drop(probe);
        let Some(last) = base.checked_add(count as u16) else {
            continue;
        };
        let free = (base..last).all(|p| std::net::TcpListener::bind(("127.0.0.1", p)).is_ok());
        if free {
            return Ok(base);
        }
    }
    Err(BenchError::Failed(format!(
        "found no {count} consecutive free loopback ports"
    )))
}

/// Attachment points for `n` federates: on a generated mesh one router after another,
/// so even two federates sit under different routers; elsewhere the first `n`.
fn places(network: &Network, n: usize, routers: usize) -> Result<Vec<String>, BenchError> {
    let attachments = network.attachments();
    if routers <= 1 {
        return attachments.take(n);
    }
    let per_router = n.div_ceil(routers);
    let all = attachments.take(per_router * routers)?;
    Ok((0..n)
        .map(|i| all[(i % routers) * per_router + i / routers].clone())
        .collect())
}

/// What the federates share while they run.
struct Shared {
    /// Federates that reflected a greeting from every other.
    heard_all: AtomicUsize,
    /// The logical time everyone stops at, set by the first federate whose time is up.
    end: AtomicI64,
    abort: AtomicBool,
}

/// What one federate measured.
struct Outcome {
    elapsed: Duration,
    steps: u64,
    reflects: u64,
    stats: TimeStats,
}

fn case(
    options: &TimestepOptions,
    n: usize,
    label: &str,
    routers: usize,
    setup: &Setup,
    results: &Results,
) -> Result<TimestepCase, BenchError> {
    let network = Network::start(setup)?;
    let places = places(&network, n, routers)?;
    let federation = network.federation(&places[0])?;
    let mut federates = Vec::with_capacity(n);
    for place in &places {
        let rti = network.federate(&federation, place, Driver::Direct, true)?;
        federates.push(Stepper::new(rti, n)?);
    }
    let shared = Shared {
        heard_all: AtomicUsize::new(0),
        end: AtomicI64::new(NO_END),
        abort: AtomicBool::new(false),
    };
    let outcomes = std::thread::scope(|scope| {
        let threads: Vec<_> = federates
            .into_iter()
            .enumerate()
            .map(|(me, mut stepper)| {
                let shared = &shared;
                let stop = &setup.stop;
                let seconds = options.seconds;
                scope.spawn(move || {
                    let outcome = stepper.run(me, shared, seconds, stop);
                    if outcome.is_err() {
                        shared.abort.store(true, Ordering::SeqCst);
                    } else {
                        // After the measurement: a failure is a fault, the steps stay.
                        let resigned = stepper
                            .rti
                            .resign_federation_execution(ResignAction::default());
                        results.after_measurement(
                            &format!("federate-{}", me + 1),
                            "resign",
                            resigned,
                        );
                    }
                    outcome
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|t| {
                t.join()
                    .map_err(|_| BenchError::Failed("a stepping federate panicked".into()))
                    .and_then(|o| o)
            })
            .collect::<Vec<_>>()
    });
    // A failure is the cause; federates that stopped because of it have nothing to add.
    let outcomes = outcomes.into_iter().collect::<Result<Vec<_>, _>>()?;
    let outcomes = outcomes
        .into_iter()
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| BenchError::Failed("stepping federates stopped early".into()))?;
    Ok(summarise(label, routers, n, &outcomes))
}

fn summarise(label: &str, routers: usize, n: usize, outcomes: &[Outcome]) -> TimestepCase {
    let federates = outcomes.len().max(1) as f64;
    let rates: Vec<f64> = outcomes
        .iter()
        .map(|o| o.stats.grants as f64 / o.elapsed.as_secs_f64().max(1e-9))
        .collect();
    let grants: u64 = outcomes.iter().map(|o| o.stats.grants).sum();
    let per_grant = |count: u64| count as f64 / grants.max(1) as f64;
    let steps: u64 = outcomes.iter().map(|o| o.steps).sum();
    let reflects: u64 = outcomes.iter().map(|o| o.reflects).sum();
    TimestepCase {
        network: label.to_owned(),
        routers,
        federates: n,
        seconds: outcomes
            .iter()
            .map(|o| o.elapsed.as_secs_f64())
            .sum::<f64>()
            / federates,
        steps: outcomes.iter().map(|o| o.steps).max().unwrap_or(0),
        grants,
        grants_per_sec: rates.iter().sum::<f64>() / federates,
        min_grants_per_sec: rates.iter().copied().fold(f64::INFINITY, f64::min),
        time_messages_received_per_grant: per_grant(
            outcomes
                .iter()
                .map(|o| o.stats.time_messages_received)
                .sum(),
        ),
        bounds_sent_per_grant: per_grant(outcomes.iter().map(|o| o.stats.bounds_sent).sum()),
        reflects,
        reflects_per_step: reflects as f64 / steps.max(1) as f64,
        expected_reflects_per_step: n - 1,
        late_time_stamped: outcomes.iter().map(|o| o.stats.late_time_stamped).sum(),
        queue_overflow: outcomes.iter().map(|o| o.stats.queue_overflow).sum(),
    }
}

/// One joined federate and what its callbacks told it so far.
struct Stepper {
    rti: RtiAmbassador,
    object: ObjectId,
    attribute: AttributeHandle,
    federates: usize,
    /// Objects whose greeting it reflected.
    heard: BTreeSet<ObjectId>,
    regulating: bool,
    constrained: bool,
    announced: bool,
    synchronized: bool,
    sync_failure: Option<String>,
    granted: Option<LogicalTime>,
    /// Time-stamped step updates reflected.
    reflects: u64,
}

fn subtract(later: TimeStats, earlier: TimeStats) -> TimeStats {
    TimeStats {
        grants: later.grants - earlier.grants,
        bounds_sent: later.bounds_sent - earlier.bounds_sent,
        time_messages_received: later.time_messages_received - earlier.time_messages_received,
        late_time_stamped: later.late_time_stamped - earlier.late_time_stamped,
        queue_overflow: later.queue_overflow - earlier.queue_overflow,
    }
}

impl Stepper {
    fn new(mut rti: RtiAmbassador, federates: usize) -> Result<Stepper, BenchError> {
        let vehicle = rti.object_class_handle("Vehicle")?;
        let attribute = rti.attribute_handle(vehicle, "Position")?;
        rti.subscribe_object_class_attributes(vehicle, &[attribute])?;
        rti.publish_object_class_attributes(vehicle, &[attribute])?;
        let object = rti.register_object_instance(vehicle)?;
        Ok(Stepper {
            rti,
            object,
            attribute,
            federates,
            heard: BTreeSet::new(),
            regulating: false,
            constrained: false,
            announced: false,
            synchronized: false,
            sync_failure: None,
            granted: None,
            reflects: 0,
        })
    }

    /// Greet, turn time management on, synchronize, step (the caller resigns). `None` when
    /// another federate failed first.
    fn run(
        &mut self,
        me: usize,
        shared: &Shared,
        seconds: f64,
        stop: &AtomicBool,
    ) -> Result<Option<Outcome>, BenchError> {
        if !self.greet(shared)? {
            return Ok(None);
        }
        self.rti
            .enable_time_regulation(Interval::Integer(LOOKAHEAD))?;
        if !self.wait(shared, SETUP_TIMEOUT, "time regulation enabled", |s| {
            s.regulating
        })? {
            return Ok(None);
        }
        self.rti.enable_time_constrained()?;
        if !self.wait(shared, SETUP_TIMEOUT, "time constrained enabled", |s| {
            s.constrained
        })? {
            return Ok(None);
        }
        if !self.synchronize(me, shared)? {
            return Ok(None);
        }
        self.step(shared, seconds, stop)
    }

    fn on(&mut self, callback: Callback) {
        match callback {
            Callback::ReflectAttributeValues {
                object,
                tag,
                received_order,
                ..
            } => {
                if tag.as_ref() == GREETING_TAG {
                    self.heard.insert(object);
                } else if tag.as_ref() == STEP_TAG && received_order == Order::TimeStamp {
                    self.reflects += 1;
                }
            }
            Callback::TimeRegulationEnabled { .. } => self.regulating = true,
            Callback::TimeConstrainedEnabled { .. } => self.constrained = true,
            Callback::AnnounceSynchronizationPoint { label, .. } if label == READY_TO_RUN => {
                self.announced = true;
            }
            Callback::FederationSynchronized { label, .. } if label == READY_TO_RUN => {
                self.synchronized = true;
            }
            Callback::SynchronizationPointRegistrationFailed { label, reason }
                if label == READY_TO_RUN =>
            {
                self.sync_failure = Some(format!("{reason:?}"));
            }
            Callback::TimeAdvanceGrant { time } => self.granted = Some(time),
            _ => {}
        }
    }

    /// Evoke callbacks until `done`, within `limit`; false when another federate failed.
    fn wait(
        &mut self,
        shared: &Shared,
        limit: Duration,
        what: &str,
        done: impl Fn(&Stepper) -> bool,
    ) -> Result<bool, BenchError> {
        let deadline = Instant::now() + limit;
        while !done(self) {
            if shared.abort.load(Ordering::Relaxed) {
                return Ok(false);
            }
            if Instant::now() > deadline {
                return Err(BenchError::Failed(format!(
                    "{}: no {what} within {limit:?}",
                    self.rti.federate_name().unwrap_or("a federate")
                )));
            }
            if let Some(callback) = self.rti.evoke_callback(POLL)? {
                self.on(callback);
            }
        }
        Ok(true)
    }

    /// Send receive-order greetings until every federate reflected one from every other:
    /// interest, once through, stays, so every measured update then reaches everyone.
    fn greet(&mut self, shared: &Shared) -> Result<bool, BenchError> {
        let deadline = Instant::now() + SETUP_TIMEOUT;
        let mut counted = false;
        let mut next_greeting = Instant::now();
        let empty: &[u8] = &[];
        while shared.heard_all.load(Ordering::SeqCst) < self.federates {
            if shared.abort.load(Ordering::Relaxed) {
                return Ok(false);
            }
            if Instant::now() > deadline {
                return Err(BenchError::Failed(format!(
                    "{}: heard {} of the other {} federates within {SETUP_TIMEOUT:?}",
                    self.rti.federate_name().unwrap_or("a federate"),
                    self.heard.len(),
                    self.federates - 1
                )));
            }
            if Instant::now() >= next_greeting {
                self.rti.update_attribute_values(
                    self.object,
                    &[(self.attribute, empty)],
                    GREETING_TAG,
                )?;
                next_greeting += GREETING_EVERY;
            }
            if let Some(callback) = self.rti.evoke_callback(POLL)? {
                self.on(callback);
            }
            if !counted && self.heard.len() + 1 >= self.federates {
                counted = true;
                shared.heard_all.fetch_add(1, Ordering::SeqCst);
            }
        }
        Ok(true)
    }

    /// The first federate registers "ReadyToRun" for the whole federation; each achieves
    /// it once announced and returns when the federation is synchronized.
    fn synchronize(&mut self, me: usize, shared: &Shared) -> Result<bool, BenchError> {
        if me == 0 {
            self.rti
                .register_federation_synchronization_point(READY_TO_RUN, b"", &[])?;
        }
        if !self.wait(shared, SETUP_TIMEOUT, "announcement of ReadyToRun", |s| {
            s.announced || s.sync_failure.is_some()
        })? {
            return Ok(false);
        }
        if let Some(reason) = &self.sync_failure {
            return Err(BenchError::Failed(format!(
                "registering {READY_TO_RUN} failed: {reason}"
            )));
        }
        self.rti
            .synchronization_point_achieved(READY_TO_RUN, true)?;
        self.wait(shared, SETUP_TIMEOUT, "federation synchronized", |s| {
            s.synchronized
        })
    }

    /// Step until this federate's time is up (or another's), then up to the common end.
    fn step(
        &mut self,
        shared: &Shared,
        seconds: f64,
        stop: &AtomicBool,
    ) -> Result<Option<Outcome>, BenchError> {
        let began = Instant::now();
        let run_for = Duration::from_secs_f64(seconds);
        let stats_before = self.rti.federate()?.time_stats();
        let first = self.rti.query_logical_time()?.as_i64();
        let reflects_before = self.reflects;
        let empty: &[u8] = &[];
        loop {
            let now = self.rti.query_logical_time()?.as_i64();
            if now >= shared.end.load(Ordering::SeqCst) {
                break;
            }
            if began.elapsed() >= run_for || stop.load(Ordering::Relaxed) {
                // Nobody is more than a step ahead of the slowest federate: two steps on
                // from here, everyone can still meet.
                let _ = shared.end.compare_exchange(
                    NO_END,
                    now + 2,
                    Ordering::SeqCst,
                    Ordering::SeqCst,
                );
                if now >= shared.end.load(Ordering::SeqCst) {
                    break;
                }
            }
            let stamp = self.rti.federate()?.earliest_time_stamp();
            self.rti.update_attribute_values_at(
                self.object,
                &[(self.attribute, empty)],
                STEP_TAG,
                stamp,
                None,
            )?;
            let next = LogicalTime::from_i64(now + 1);
            self.granted = None;
            self.rti.time_advance_request(next)?;
            let what = format!("grant of timeAdvanceRequest({})", now + 1);
            if !self.wait(shared, STEP_TIMEOUT, &what, |s| s.granted.is_some())? {
                return Ok(None);
            }
            if self.granted != Some(next) {
                return Err(BenchError::Failed(format!(
                    "timeAdvanceRequest({}) granted at {:?}",
                    now + 1,
                    self.granted.map(LogicalTime::as_i64)
                )));
            }
        }
        let elapsed = began.elapsed();
        let last = self.rti.query_logical_time()?.as_i64();
        Ok(Some(Outcome {
            elapsed,
            steps: (last - first).max(0) as u64,
            reflects: self.reflects - reflects_before,
            stats: subtract(self.rti.federate()?.time_stats(), stats_before),
        }))
    }
}
