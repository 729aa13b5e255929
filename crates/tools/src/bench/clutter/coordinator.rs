//! One case of the clutter benchmark as the coordinator runs it: create the federation,
//! start the worker processes with their share of federates, take them through join,
//! registration, greeting, the run and the accounting, and sample the routers every second.

use super::creator::Creator;
use super::federate::unix_nanos;
use super::geometry::Geometry;
use super::procstat::Usage;
use super::protocol::{line, Command, FederateSpec, Role, WorkerMessage, WorkerPlan, WorkerReport};
use super::routers::Routers;
use super::ClutterOptions;
use crate::bench::agents::hosts::Host;
use crate::bench::BenchError;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::fom::ObjectModel;

/// Joining and registering a million entities takes minutes; greeting takes seconds.
const JOIN_BOUND: Duration = Duration::from_secs(900);
const READY_BOUND: Duration = Duration::from_secs(180);
const REPORT_BOUND: Duration = Duration::from_secs(120);
const EXIT_BOUND: Duration = Duration::from_secs(180);
/// Time between the start command and the first update: every worker reads it first.
const START_LEAD: Duration = Duration::from_millis(500);

/// What the coordinator saw of one worker.
pub struct WorkerOutcome {
    pub federates: Vec<FederateSpec>,
    pub joins: Vec<super::protocol::JoinRecord>,
    pub rss_start_kb: u64,
    pub rss_joined_kb: u64,
    pub rss_registered_kb: u64,
    pub register_seconds: f64,
    pub report: WorkerReport,
}

/// One second of the routers, sampled by the coordinator.
#[derive(Clone, Debug, Default)]
pub struct RouterSecond {
    pub second: u64,
    pub forwarded: Option<u64>,
    /// Per router: CPU seconds used in this second, resident memory.
    pub usage: Vec<(String, Usage)>,
}

pub struct CaseOutcome {
    pub geometry: Geometry,
    pub workers: Vec<WorkerOutcome>,
    pub routers: Vec<RouterSecond>,
    pub routers_in_process: bool,
    /// What went wrong after the measurement (a worker that did not resign cleanly).
    pub faults: Vec<String>,
}

/// What [`with_workers`] brings back.
struct CaseRun {
    workers: Vec<WorkerOutcome>,
    seconds: Vec<RouterSecond>,
    faults: Vec<String>,
}

struct Worker {
    child: Child,
    stdin: ChildStdin,
    federates: Vec<FederateSpec>,
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Normally it has exited; a case that failed leaves none behind.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Federates spread over processes: simulators round-robin over `processes`, viewers in a
/// process of their own (so a viewer's memory per entity is measured apart). They attach
/// at the topology's points from `first_place` on, so that successive cases use fresh ones
/// while there are enough.
fn assign(
    geometry: &Geometry,
    processes: usize,
    routers: &Routers,
    case: usize,
    first_place: usize,
) -> Vec<Vec<FederateSpec>> {
    let tag = format!("{}-{case}", std::process::id());
    let mut workers = vec![Vec::new(); processes.max(1)];
    for s in 0..geometry.simulators {
        workers[s as usize % processes.max(1)].push(FederateSpec {
            role: Role::Simulator,
            index: s,
            name: format!("sim-{s}-{tag}"),
            at: routers.place(first_place + s as usize),
        });
    }
    let viewers: Vec<FederateSpec> = (0..geometry.viewers)
        .map(|v| FederateSpec {
            role: Role::Viewer,
            index: v,
            name: format!("viewer-{v}-{tag}"),
            at: routers.place(first_place + (geometry.simulators + v) as usize),
        })
        .collect();
    if !viewers.is_empty() {
        workers.push(viewers);
    }
    workers.retain(|w| !w.is_empty());
    workers
}

/// The name a hosts file places worker `w` by.
fn worker_name(w: usize) -> String {
    format!("worker-{w}")
}

/// Start a worker: a child process, or on its host from the hosts file (over ssh its plan
/// and reports travel on ssh's standard input and output).
fn spawn(
    trellis: &Path,
    host: Option<&Host>,
    plan: &WorkerPlan,
    log: &Path,
    messages: std::sync::mpsc::Sender<(usize, Option<WorkerMessage>)>,
) -> Result<Worker, BenchError> {
    const WORKER_ARGS: [&str; 2] = ["bench", "clutter-worker"];
    let mut command = match host {
        Some(host) => host.command(trellis, &WORKER_ARGS, true),
        None => {
            let mut command = Process::new(trellis);
            command.args(WORKER_ARGS);
            command
        }
    };
    let mut child = command
        .env(
            "TRELLIS_LOG",
            std::env::var("TRELLIS_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(log)?)
        .spawn()?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| BenchError::Failed("worker has no stdin".into()))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| BenchError::Failed("worker has no stdout".into()))?;
    writeln!(stdin, "{}", line(plan))?;
    let worker = plan.worker as usize;
    std::thread::spawn(move || {
        for text in BufReader::new(stdout).lines().map_while(Result::ok) {
            let message = serde_json::from_str(&text).unwrap_or_else(|e| WorkerMessage::Failed {
                message: format!("unreadable line from the worker ({e}): {text}"),
            });
            if messages.send((worker, Some(message))).is_err() {
                return;
            }
        }
        let _ = messages.send((worker, None));
    });
    Ok(Worker {
        child,
        stdin,
        federates: plan.federates.clone(),
    })
}

/// What the workers said so far, by worker.
struct Inbox {
    messages: Receiver<(usize, Option<WorkerMessage>)>,
    subscribed: Vec<bool>,
    joined: Vec<Option<WorkerMessage>>,
    ready: Vec<bool>,
    sent: Vec<Option<Vec<(u32, u64)>>>,
    reports: Vec<Option<WorkerReport>>,
}

impl Inbox {
    fn new(messages: Receiver<(usize, Option<WorkerMessage>)>, workers: usize) -> Inbox {
        Inbox {
            messages,
            subscribed: vec![false; workers],
            joined: vec![None; workers],
            ready: vec![false; workers],
            sent: vec![None; workers],
            reports: vec![None; workers],
        }
    }

    /// Take the next message that comes before `until`, if any.
    fn take(&mut self, until: Instant) -> Result<(), BenchError> {
        let left = until.saturating_duration_since(Instant::now());
        let (w, message) = match self.messages.recv_timeout(left) {
            Ok((w, Some(message))) => (w, message),
            Ok((w, None)) => {
                return Err(BenchError::Failed(format!(
                    "worker {w} exited before the run ended (see its log)"
                )))
            }
            Err(RecvTimeoutError::Timeout) => return Ok(()),
            Err(RecvTimeoutError::Disconnected) => {
                return Err(BenchError::Failed(
                    "every worker ended before the run did".into(),
                ))
            }
        };
        match message {
            WorkerMessage::Failed { message } => {
                return Err(BenchError::Failed(format!(
                    "worker {w}: {message} (see its log)"
                )))
            }
            WorkerMessage::Subscribed => self.subscribed[w] = true,
            joined @ WorkerMessage::Joined { .. } => self.joined[w] = Some(joined),
            WorkerMessage::Ready => self.ready[w] = true,
            WorkerMessage::Sent { sent } => self.sent[w] = Some(sent),
            WorkerMessage::Report(report) => self.reports[w] = Some(*report),
        }
        Ok(())
    }

    /// Take messages until `done`, within `bound`.
    fn wait(
        &mut self,
        bound: Duration,
        what: &str,
        done: impl Fn(&Inbox) -> bool,
    ) -> Result<(), BenchError> {
        let deadline = Instant::now() + bound;
        while !done(self) {
            if Instant::now() >= deadline {
                return Err(BenchError::Failed(format!(
                    "{what} did not come within {bound:?}"
                )));
            }
            self.take(deadline)?;
        }
        Ok(())
    }
}

fn tell(workers: &mut [Worker], command: &Command) -> Result<(), BenchError> {
    for worker in workers {
        writeln!(worker.stdin, "{}", line(command))?;
        worker.stdin.flush()?;
    }
    Ok(())
}

/// Where one case runs: its number, the routers, the first attachment point it takes, and
/// the results folder for its logs.
pub struct Place<'a> {
    pub case: usize,
    pub routers: &'a Routers,
    pub first_place: usize,
    pub dir: &'a Path,
}

/// Run one case: `geometry` at `place`.
pub fn run_case(
    options: &ClutterOptions,
    geometry: Geometry,
    place: &Place<'_>,
) -> Result<CaseOutcome, BenchError> {
    let Place {
        case,
        routers,
        first_place,
        ..
    } = *place;
    let creator_place = first_place + (geometry.simulators + geometry.viewers) as usize;
    let federation = format!("clutter-{}-{case}", std::process::id());
    let model = Arc::new(
        ObjectModel::from_sources(&[("trellis-demo.xml", crate::demo::DEMO_FOM)])
            .map_err(|e| BenchError::Failed(e.to_string()))?,
    );
    let name = format!("creator-{federation}");
    let config = routers.creator(&federation, &name, creator_place)?;
    let creator = Creator::start(config, &model, &name)?;
    let outcome = with_workers(options, &geometry, place, &federation);
    creator.finish();
    outcome.map(|run| CaseOutcome {
        geometry,
        workers: run.workers,
        routers: run.seconds,
        routers_in_process: routers.in_process(),
        faults: run.faults,
    })
}

fn with_workers(
    options: &ClutterOptions,
    geometry: &Geometry,
    place: &Place<'_>,
    federation: &str,
) -> Result<CaseRun, BenchError> {
    let (case, routers, dir) = (place.case, place.routers, place.dir);
    let (sender, messages) = channel();
    let shares = assign(
        geometry,
        options.processes,
        routers,
        case,
        place.first_place,
    );
    let names: Vec<String> = (0..shares.len()).map(worker_name).collect();
    let hosts = match &options.hosts {
        Some(file) => file.placement(&names)?.into_iter().map(Some).collect(),
        None => vec![None; names.len()],
    };
    let mut workers = Vec::new();
    for ((w, federates), host) in shares.into_iter().enumerate().zip(hosts) {
        let plan = WorkerPlan {
            worker: w as u32,
            federation: federation.to_owned(),
            target: routers.target().clone(),
            geometry: geometry.clone(),
            rate_hz: options.rate_hz,
            seconds: options.seconds,
            frame_ms: options.frame_ms,
            reliable: options.setup.transport == crate::bench::Transport::Reliable,
            bundling: options.setup.bundling,
            spin: options.setup.spin,
            driver: options.driver,
            federates,
        };
        let log = dir.join(format!("case-{case}-worker-{w}.log"));
        workers.push(spawn(&options.trellis, host, &plan, &log, sender.clone())?);
    }
    drop(sender);
    let mut inbox = Inbox::new(messages, workers.len());
    inbox.wait(JOIN_BOUND, "every worker's joins and subscriptions", |i| {
        i.subscribed.iter().all(|s| *s)
    })?;
    tell(&mut workers, &Command::Register)?;
    inbox.wait(JOIN_BOUND, "every worker's joins and registrations", |i| {
        i.joined.iter().all(Option::is_some)
    })?;
    // Kept even if the exchange then fails: how joining went is a result of its own.
    let joins = super::summary::joins(inbox.joined.iter().flatten());
    let file = dir.join(format!("case-{case}-joins.json"));
    std::fs::write(&file, line(&joins) + "\n")?;
    inbox.wait(
        READY_BOUND,
        "readiness (every receiver hearing its simulators)",
        |i| i.ready.iter().all(|r| *r),
    )?;
    let start = unix_nanos() + START_LEAD.as_nanos() as u64;
    tell(&mut workers, &Command::Start { unix_nanos: start })?;
    let seconds = sample_until_sent(options, routers, &mut inbox, start)?;
    let mut sent = vec![0u64; geometry.simulators as usize];
    for (s, count) in inbox.sent.iter().flatten().flatten() {
        if let Some(slot) = sent.get_mut(*s as usize) {
            *slot = *count;
        }
    }
    tell(&mut workers, &Command::Expect { sent })?;
    inbox.wait(REPORT_BOUND, "every worker's report", |i| {
        i.reports.iter().all(Option::is_some)
    })?;
    tell(&mut workers, &Command::Finish)?;
    let faults = wait_exits(&mut workers);
    let (joined, reports) = (
        std::mem::take(&mut inbox.joined),
        std::mem::take(&mut inbox.reports),
    );
    let outcomes = workers
        .iter()
        .zip(joined)
        .zip(reports)
        .map(|((worker, joined), report)| outcome(worker, joined, report))
        .collect::<Result<_, _>>()?;
    Ok(CaseRun {
        workers: outcomes,
        seconds,
        faults,
    })
}

fn outcome(
    worker: &Worker,
    joined: Option<WorkerMessage>,
    report: Option<WorkerReport>,
) -> Result<WorkerOutcome, BenchError> {
    let Some(WorkerMessage::Joined {
        joins,
        rss_start_kb,
        rss_joined_kb,
        rss_registered_kb,
        register_seconds,
    }) = joined
    else {
        return Err(BenchError::Failed(
            "a worker's first message was not its joins".into(),
        ));
    };
    let report = report.ok_or_else(|| BenchError::Failed("a worker sent no report".into()))?;
    Ok(WorkerOutcome {
        federates: worker.federates.clone(),
        joins,
        rss_start_kb,
        rss_joined_kb,
        rss_registered_kb,
        register_seconds,
        report,
    })
}

/// Routers' counters at the previous second boundary.
struct RouterSample {
    forwarded: Option<u64>,
    usage: Vec<(String, Usage)>,
}

impl RouterSample {
    fn now(routers: &Routers) -> RouterSample {
        RouterSample {
            forwarded: routers.forwarded(),
            usage: routers.usage(),
        }
    }

    /// The second that ends now, and this reading as the next one's start.
    fn next(&mut self, routers: &Routers, second: u64) -> RouterSecond {
        let now = RouterSample::now(routers);
        let usage = now
            .usage
            .iter()
            .map(|(name, u)| {
                let before = self
                    .usage
                    .iter()
                    .find(|(n, _)| n == name)
                    .map_or(0.0, |(_, b)| b.cpu_seconds);
                (
                    name.clone(),
                    Usage {
                        cpu_seconds: u.cpu_seconds - before,
                        rss_kb: u.rss_kb,
                    },
                )
            })
            .collect();
        let forwarded = match (now.forwarded, self.forwarded) {
            (Some(now), Some(before)) => Some(now - before),
            _ => None,
        };
        *self = now;
        RouterSecond {
            second,
            forwarded,
            usage,
        }
    }
}

/// Sample the routers every second from the start until every worker said what its
/// simulators sent.
fn sample_until_sent(
    options: &ClutterOptions,
    routers: &Routers,
    inbox: &mut Inbox,
    start: u64,
) -> Result<Vec<RouterSecond>, BenchError> {
    let bound = Duration::from_secs_f64(options.seconds) + REPORT_BOUND;
    let deadline = Instant::now() + bound;
    while unix_nanos() < start {
        std::thread::sleep(Duration::from_millis(1));
    }
    let mut last = RouterSample::now(routers);
    let mut seconds = Vec::new();
    while !inbox.sent.iter().all(Option::is_some) {
        if Instant::now() >= deadline {
            return Err(BenchError::Failed(format!(
                "the workers did not say what they sent within {bound:?}"
            )));
        }
        let boundary = start + (seconds.len() as u64 + 1) * 1_000_000_000;
        let wait = Duration::from_nanos(boundary.saturating_sub(unix_nanos()));
        inbox.take((Instant::now() + wait).min(deadline))?;
        if unix_nanos() >= boundary {
            seconds.push(last.next(routers, seconds.len() as u64));
        }
    }
    Ok(seconds)
}

/// Every worker gets a bound to resign and exit; one that overruns it is killed (its
/// `Drop`). Returns what went wrong, as faults after the measurement.
fn wait_exits(workers: &mut [Worker]) -> Vec<String> {
    let deadline = Instant::now() + EXIT_BOUND;
    let mut faults = Vec::new();
    for (w, worker) in workers.iter_mut().enumerate() {
        while matches!(worker.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        match worker.child.try_wait() {
            Ok(Some(status)) if status.success() => {}
            Ok(Some(status)) => faults.push(format!(
                "worker {w} ended with {status} after the measurement (see its log)"
            )),
            _ => faults.push(format!(
                "worker {w} did not resign and exit within {EXIT_BOUND:?}"
            )),
        }
    }
    faults
}
