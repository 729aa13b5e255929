//! What a benchmark's coordinator and its agent processes say to each other over TCP: one
//! JSON object per line, at most [`MAX_LINE_BYTES`] each. Every wait on the other side is
//! bounded by its caller (socket read timeouts or a deadline on the event channel).

use super::super::matrix;
use super::super::oneway::{Arrivals, CasePlan};
use super::super::testfed::TestfedConfig;
use super::super::{Api, BenchError, Transport};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI64, Ordering};

/// The longest line either side accepts: a master's round trips for one size (a
/// million exchanges at about 10 bytes each) fit with room to spare.
pub const MAX_LINE_BYTES: usize = 32 << 20;

/// Where an agent's federates attach.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Target {
    /// A router by address (the coordinator's own on loopback, or `--router`).
    Router(String),
    /// A topology file whose routers already run; federates name their attachment point.
    Topology(PathBuf),
}

/// Everything an agent needs before it runs federates.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct AgentSetup {
    pub target: Target,
    pub transport: Transport,
    pub bundling: String,
    pub api: Api,
    pub spin_us: u64,
    /// The federation execution the coordinator created (federate API only).
    pub federation: Option<String>,
}

/// Coordinator → agent.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum ToAgent {
    Setup(AgentSetup),
    /// Answer with [`FromAgent::Clock`] at once: one sample of the clock offset.
    ClockProbe,
    /// What the probes found: the agent's clock minus the coordinator's, and when the
    /// coordinator's run began (its wall clock). The agent reads the run's clock through
    /// them (`oneway::Clock::shifted`), so times it stamps compare with other agents'.
    ClockOffset {
        offset_nanos: i64,
        began_unix_nanos: u64,
    },
    /// Be pingpong pair `pair`'s master at attachment point `at` (channel = pair).
    PingMaster {
        at: String,
        pair: usize,
    },
    /// Be pingpong pair `pair`'s slave at `at`.
    PingSlave {
        at: String,
        pair: usize,
    },
    /// Master: measure one size.
    Measure {
        index: usize,
        size: usize,
        exchanges: usize,
    },
    /// Be a throughput receiver at `at`.
    Receive {
        at: String,
    },
    /// Be the throughput sender at `at`, of `size`-byte updates.
    Send {
        at: String,
        size: usize,
    },
    /// Be a party of a many-party benchmark at `at`, doing `task` (see [`PartyTask`]).
    Party {
        at: String,
        task: PartyTask,
    },
    /// Every party said it is warmed up: begin measuring.
    Go,
    /// The barrier: every agent is ready, begin (slaves echo, the sender warms up).
    Start,
    /// Sender: the warm-up reached every receiver; send measured updates for `seconds`.
    Measured {
        seconds: f64,
    },
    /// Receiver: the sender sent `expected`; report once they arrived (or went quiet).
    Drain {
        expected: u64,
    },
    /// One-way: run this case (the receiver first, then the sender).
    OnewayCase(CasePlan),
    /// One-way sender: the receiver has what it will get; stop driving the node.
    Drained,
    /// A coordinated run (testfed, matrix): start sending at this time on the run's
    /// clock (nanoseconds).
    StartAt {
        nanos: u64,
    },
    /// A coordinated run: every party finished sending; the others than this one sent
    /// these.
    OthersSent {
        updates: u64,
        interactions: u64,
    },
    /// A coordinated run: every party has what it will get; lingering may end.
    AllDrained,
    /// Resign, report, exit.
    Finish,
}

/// What a party agent does: the roles the many-party benchmarks are made of. Each runs
/// the benchmark's own per-federate code, the same as in one process.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum PartyTask {
    /// Symmetric: party `me` of `n` sends `size`-byte messages flat out for `seconds` and
    /// counts what the others send (warm-up: greet until it heard all, say warmed, go).
    Flood {
        me: usize,
        n: usize,
        size: usize,
        seconds: f64,
    },
    /// Latency's sender: exchanges of `size` bytes targeting `receivers` echoers in turn;
    /// half of each round trip on its own clock.
    Ping {
        receivers: usize,
        size: usize,
        exchanges: usize,
    },
    /// Latency's receivers: answer each message that names `index`, until finished.
    Echo { index: u32 },
    /// One-way's sender: warm up until told, then send each case it is given on its
    /// schedule, stamped on the run's clock.
    OnewaySend,
    /// One-way's receiver: say when warmed up, then note each case's arrivals.
    OnewayReceive,
    /// Testfed: load federate `me` of `config`.
    Load { me: usize, config: TestfedConfig },
    /// The matrix: party `party` of case `plan`.
    Matrix {
        plan: matrix::CasePlan,
        party: usize,
    },
}

/// Agent → coordinator.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum FromAgent {
    Hello {
        name: String,
        pid: u32,
    },
    /// The agent's wall clock, nanoseconds since 1970, read on receipt of the probe.
    Clock {
        unix_nanos: u64,
    },
    /// Joined and subscribed as told.
    Ready,
    /// A master's round trips for one size, in nanoseconds.
    RoundTrips {
        pair: usize,
        rtt_nanos: Vec<u64>,
        lost: usize,
    },
    /// A receiver reflected a warm-up update (a symmetric party: heard every other).
    Warmed,
    /// A symmetric party's measured run: sent, received, and the time from its start to
    /// its last receipt, on its own clock.
    Counted {
        sent: u64,
        received: u64,
        elapsed_nanos: u64,
    },
    /// A latency sender's half round trips (µs, each on its own clock) and losses.
    HalfRoundTrips {
        one_way_us: Vec<f64>,
        lost: usize,
    },
    /// The sender's measured run, by its own clock.
    Sent {
        sent: u64,
        began_unix_nanos: u64,
        send_nanos: u64,
    },
    /// A receiver's count and the time of its last receipt, by its own clock.
    Received {
        received: u64,
        last_unix_nanos: u64,
    },
    /// A one-way receiver's case: per serial, send and receipt time on the run's clock.
    Arrivals {
        arrivals: Arrivals,
    },
    /// A party of a coordinated run (`agents::team`) finished sending, or has what it
    /// will get: its report, of the benchmark's own type (testfed: `Counts`, matrix:
    /// `PartyReport`).
    TeamReport(serde_json::Value),
    /// Resigned; what went wrong after the measurement, if anything.
    Finished {
        fault: Option<String>,
    },
    /// The agent gave up: why.
    Failed {
        message: String,
    },
}

/// Added to this process's wall clock readings: 0 but in tests ([`skew_for_test`]).
static SKEW_NANOS: AtomicI64 = AtomicI64::new(0);

/// Test hook for agents on one machine, which share one clock: the variable
/// `TRELLIS_AGENT_TEST_SKEW=NAME:MILLIS[,NAME:MILLIS...]` sets agent NAME's clock MILLIS
/// ahead (negative: behind), as if it ran on a host whose clock is off, so a test can see
/// the measured offsets correct it. Agents only; the coordinator keeps the true clock.
pub fn skew_for_test(agent: &str) {
    let Ok(spec) = std::env::var("TRELLIS_AGENT_TEST_SKEW") else {
        return;
    };
    for entry in spec.split(',') {
        if let Some((name, millis)) = entry.split_once(':') {
            if name.trim() == agent {
                if let Ok(millis) = millis.trim().parse::<i64>() {
                    SKEW_NANOS.store(millis.saturating_mul(1_000_000), Ordering::Relaxed);
                }
            }
        }
    }
}

/// This machine's wall clock in nanoseconds since 1970 (0 before it).
pub fn unix_nanos() -> u64 {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128);
    (now + SKEW_NANOS.load(Ordering::Relaxed) as i128).max(0) as u64
}

/// Write one message as a line.
pub fn send(stream: &mut TcpStream, message: &impl Serialize) -> Result<(), BenchError> {
    let mut line = serde_json::to_vec(message)
        .map_err(|e| BenchError::Failed(format!("encoding a control message: {e}")))?;
    line.push(b'\n');
    stream.write_all(&line)?;
    Ok(())
}

/// Read one message; `None` when the other side closed the connection. A line longer than
/// [`MAX_LINE_BYTES`] or one that is not a message is an error naming `peer`.
pub fn receive<T: DeserializeOwned>(
    reader: &mut BufReader<TcpStream>,
    peer: &str,
) -> Result<Option<T>, BenchError> {
    let mut line = Vec::new();
    let read = reader
        .by_ref()
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', &mut line)?;
    if read == 0 {
        return Ok(None);
    }
    if line.last() != Some(&b'\n') {
        return Err(BenchError::Failed(if line.len() > MAX_LINE_BYTES {
            format!("{peer}: a control line longer than {MAX_LINE_BYTES} bytes")
        } else {
            format!("{peer}: the connection closed in the middle of a line")
        }));
    }
    serde_json::from_slice(&line).map(Some).map_err(|e| {
        BenchError::Failed(format!(
            "{peer}: not a control message ({e}): {:?}",
            String::from_utf8_lossy(&line[..line.len().min(200)])
        ))
    })
}
