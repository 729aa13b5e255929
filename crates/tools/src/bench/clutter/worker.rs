//! A worker process (`trellis bench clutter-worker`): runs its share of the federates, one
//! thread each, and follows the coordinator's commands on stdin, answering on stdout.

use super::federate::{unix_nanos, Federate, SecondCounts, DRAIN_LIMIT};
use super::procstat::{self, Usage};
use super::protocol::{
    line, Command, FederateReport, JoinRecord, WorkerMessage, WorkerPlan, WorkerReport,
    WorkerSecond,
};
use crate::bench::BenchError;
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use trellis_core::fom::ObjectModel;

/// Joining, subscribing and greeting, per phase.
const SETUP_BOUND: Duration = Duration::from_secs(120);
/// Registering: a simulator of a million entities takes a while.
const REGISTER_BOUND: Duration = Duration::from_secs(600);
/// The coordinator says finish once every worker reported.
const FINISH_BOUND: Duration = Duration::from_secs(120);
const WAIT_STEP: Duration = Duration::from_millis(5);

/// What the federate threads of one worker share.
pub struct Shared {
    pub plan: WorkerPlan,
    pub model: Arc<ObjectModel>,
    /// When sending starts (unix nanoseconds); 0 until the coordinator says.
    pub start_nanos: AtomicU64,
    pub ready: AtomicUsize,
    expect: Mutex<Option<Arc<Vec<u64>>>>,
    finish: AtomicBool,
    abort: AtomicBool,
    joined: AtomicUsize,
    /// Every federate of every worker subscribed (the coordinator says).
    register_go: AtomicBool,
    registered: AtomicUsize,
    done_sending: AtomicUsize,
    drained: AtomicUsize,
    sent: Mutex<Vec<(u32, u64)>>,
}

impl Shared {
    pub fn aborted(&self) -> bool {
        self.abort.load(Ordering::SeqCst)
    }

    pub fn finishing(&self) -> bool {
        self.finish.load(Ordering::SeqCst)
    }

    pub fn expected(&self) -> Option<Arc<Vec<u64>>> {
        self.expect
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

type Account = (FederateReport, BTreeMap<u64, SecondCounts>);

/// Run a worker: plan on the first line of `input`, then commands; messages on stdout.
pub fn main(input: impl BufRead + Send + 'static) -> Result<(), BenchError> {
    let mut lines = input.lines();
    let first = lines
        .next()
        .ok_or_else(|| BenchError::Failed("no plan on stdin".into()))??;
    let plan: WorkerPlan =
        serde_json::from_str(&first).map_err(|e| BenchError::Failed(format!("plan: {e}")))?;
    let model = Arc::new(
        ObjectModel::from_sources(&[("trellis-demo.xml", crate::demo::DEMO_FOM)])
            .map_err(|e| BenchError::Failed(e.to_string()))?,
    );
    let shared = Arc::new(Shared {
        plan,
        model,
        start_nanos: AtomicU64::new(0),
        ready: AtomicUsize::new(0),
        expect: Mutex::new(None),
        finish: AtomicBool::new(false),
        abort: AtomicBool::new(false),
        joined: AtomicUsize::new(0),
        register_go: AtomicBool::new(false),
        registered: AtomicUsize::new(0),
        done_sending: AtomicUsize::new(0),
        drained: AtomicUsize::new(0),
        sent: Mutex::new(Vec::new()),
    });
    follow_commands(lines, shared.clone());
    let outcome = phases(&shared);
    if let Err(e) = &outcome {
        shared.abort.store(true, Ordering::SeqCst);
        say(&WorkerMessage::Failed {
            message: e.to_string(),
        });
    }
    outcome
}

fn say(message: &WorkerMessage) {
    let mut out = std::io::stdout().lock();
    // The coordinator gone means nobody is left to tell.
    let _ = writeln!(out, "{}", line(message));
    let _ = out.flush();
}

/// Apply the coordinator's commands as they come; its stdin closing aborts the worker.
fn follow_commands(
    lines: impl Iterator<Item = std::io::Result<String>> + Send + 'static,
    shared: Arc<Shared>,
) {
    std::thread::spawn(move || {
        for text in lines.map_while(Result::ok) {
            match serde_json::from_str::<Command>(&text) {
                Ok(Command::Register) => shared.register_go.store(true, Ordering::SeqCst),
                Ok(Command::Start { unix_nanos }) => {
                    shared.start_nanos.store(unix_nanos, Ordering::SeqCst)
                }
                Ok(Command::Expect { sent }) => {
                    *shared.expect.lock().unwrap_or_else(|e| e.into_inner()) = Some(Arc::new(sent));
                }
                Ok(Command::Finish) => {
                    shared.finish.store(true, Ordering::SeqCst);
                    return;
                }
                Err(e) => {
                    eprintln!(
                        "clutter worker: ignoring a command that does not parse ({e}): {text}"
                    );
                }
            }
        }
        shared.abort.store(true, Ordering::SeqCst);
        shared.finish.store(true, Ordering::SeqCst);
    });
}

/// Wait until `done` holds, within `bound`, unless the worker aborts.
fn wait(
    shared: &Shared,
    what: &str,
    bound: Duration,
    done: impl Fn() -> bool,
) -> Result<(), BenchError> {
    let deadline = Instant::now() + bound;
    while !done() {
        if shared.aborted() {
            return Err(BenchError::Failed(format!(
                "aborted while waiting for {what}"
            )));
        }
        if Instant::now() > deadline {
            return Err(BenchError::Failed(format!(
                "{what} did not happen within {bound:?}"
            )));
        }
        std::thread::sleep(WAIT_STEP);
    }
    Ok(())
}

fn phases(shared: &Arc<Shared>) -> Result<(), BenchError> {
    let n = shared.plan.federates.len();
    let usage_start = procstat::own();
    let (joins, joined) = channel();
    let (accounts, accounted) = channel();
    let threads: Vec<_> = shared
        .plan
        .federates
        .iter()
        .cloned()
        .map(|spec| {
            let (shared, joins, accounts) = (shared.clone(), joins.clone(), accounts.clone());
            std::thread::Builder::new()
                .name(spec.name.chars().take(15).collect())
                .spawn(move || {
                    let name = spec.name.clone();
                    let outcome = life(spec, &shared, joins, accounts);
                    if let Err(e) = &outcome {
                        eprintln!("clutter worker: {name}: {e}");
                        shared.abort.store(true, Ordering::SeqCst);
                    }
                    outcome
                })
        })
        .collect::<Result<_, _>>()?;
    drop((joins, accounts));
    let count = |c: &AtomicUsize| c.load(Ordering::SeqCst);
    wait(shared, "every federate to join", SETUP_BOUND, || {
        count(&shared.joined) == n
    })?;
    let joins: Vec<JoinRecord> = joined.try_iter().collect();
    let rss_joined_kb = procstat::own().rss_kb;
    say(&WorkerMessage::Subscribed);
    wait(shared, "the word to register", SETUP_BOUND, || {
        shared.register_go.load(Ordering::SeqCst)
    })?;
    let registering = Instant::now();
    wait(
        shared,
        "every simulator to register",
        REGISTER_BOUND,
        || count(&shared.registered) == n,
    )?;
    say(&WorkerMessage::Joined {
        joins,
        rss_start_kb: usage_start.rss_kb,
        rss_joined_kb,
        rss_registered_kb: procstat::own().rss_kb,
        register_seconds: registering.elapsed().as_secs_f64(),
    });
    wait(
        shared,
        "every receiver to hear its simulators",
        SETUP_BOUND,
        || count(&shared.ready) == n,
    )?;
    say(&WorkerMessage::Ready);
    wait(shared, "the start", SETUP_BOUND, || {
        shared.start_nanos.load(Ordering::SeqCst) != 0
    })?;
    let mut seconds = sample_seconds(shared, || count(&shared.done_sending) == n)?;
    let sent = shared
        .sent
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .clone();
    say(&WorkerMessage::Sent { sent });
    seconds.extend(sample_more(shared, seconds.len() as u64, || {
        count(&shared.drained) == n
    })?);
    let report = merge(accounted.try_iter().collect(), seconds);
    say(&WorkerMessage::Report(Box::new(report)));
    wait(shared, "finish", FINISH_BOUND, || shared.finishing())?;
    let mut faults = Vec::new();
    for thread in threads {
        match thread.join() {
            Ok(Ok(())) => {}
            Ok(Err(e)) => faults.push(e.to_string()),
            Err(_) => faults.push("a federate thread panicked".into()),
        }
    }
    if !faults.is_empty() {
        return Err(BenchError::Failed(faults.join("; ")));
    }
    Ok(())
}

/// One federate's whole life; its account goes to `accounts` before it leaves.
fn life(
    spec: super::protocol::FederateSpec,
    shared: &Shared,
    joins: Sender<JoinRecord>,
    accounts: Sender<Account>,
) -> Result<(), BenchError> {
    let (mut federate, record) = Federate::join(spec, shared)?;
    federate.subscribe()?;
    let _ = joins.send(record);
    shared.joined.fetch_add(1, Ordering::SeqCst);
    if !federate.pump_until(2 * SETUP_BOUND, |_| {
        shared.register_go.load(Ordering::SeqCst)
    })? {
        return Err(BenchError::Failed("never told to register".into()));
    }
    federate.register()?;
    shared.registered.fetch_add(1, Ordering::SeqCst);
    if federate.greet(SETUP_BOUND + REGISTER_BOUND)?.is_none() {
        return Err(BenchError::Failed("no start came".into()));
    }
    let sent = federate.run()?;
    if let Some(simulator) = federate.simulator() {
        shared
            .sent
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((simulator, sent));
    }
    shared.done_sending.fetch_add(1, Ordering::SeqCst);
    federate.drain()?;
    let seconds = std::mem::take(&mut federate.seconds);
    let _ = accounts.send((federate.account(), seconds));
    federate.unsubscribe()?;
    shared.drained.fetch_add(1, Ordering::SeqCst);
    federate.leave(FINISH_BOUND + DRAIN_LIMIT)
}

/// This process's CPU and memory at every whole second after the start, until `done`.
fn sample_seconds(
    shared: &Shared,
    done: impl Fn() -> bool,
) -> Result<Vec<WorkerSecond>, BenchError> {
    sample_more(shared, 0, done)
}

fn sample_more(
    shared: &Shared,
    from: u64,
    done: impl Fn() -> bool,
) -> Result<Vec<WorkerSecond>, BenchError> {
    let start = shared.start_nanos.load(Ordering::SeqCst);
    let bound = Duration::from_secs_f64(shared.plan.seconds) + 3 * DRAIN_LIMIT;
    let deadline = Instant::now() + bound;
    let mut rows = Vec::new();
    let mut last: Usage = procstat::own();
    let mut second = from;
    while !done() {
        if shared.aborted() {
            return Err(BenchError::Failed(
                "aborted during the run: a federate failed (its error is logged above)".into(),
            ));
        }
        if Instant::now() > deadline {
            return Err(BenchError::Failed(format!(
                "the run did not end within {bound:?}"
            )));
        }
        let boundary = start + (second + 1) * 1_000_000_000;
        let now = unix_nanos();
        if now >= boundary {
            let usage = procstat::own();
            rows.push(WorkerSecond {
                second,
                cpu_seconds: usage.cpu_seconds - last.cpu_seconds,
                rss_kb: usage.rss_kb,
                ..WorkerSecond::default()
            });
            last = usage;
            second += 1;
        }
        std::thread::sleep(WAIT_STEP);
    }
    Ok(rows)
}

/// The worker's report: every federate's account, and the per-second counts of all of
/// them added into the process's per-second rows.
fn merge(accounts: Vec<Account>, mut seconds: Vec<WorkerSecond>) -> WorkerReport {
    let mut federates = Vec::new();
    for (report, counts) in accounts {
        for (second, c) in counts {
            let index = seconds
                .iter()
                .position(|r| r.second == second)
                .unwrap_or_else(|| {
                    seconds.push(WorkerSecond {
                        second,
                        ..WorkerSecond::default()
                    });
                    seconds.len() - 1
                });
            let row = &mut seconds[index];
            row.updates_sent += c.updates_sent;
            row.reflects += c.reflects;
            row.latency.merge(&c.latency);
        }
        federates.push(report);
    }
    seconds.sort_by_key(|r| r.second);
    WorkerReport {
        federates,
        seconds,
        usage_end: procstat::own(),
    }
}
