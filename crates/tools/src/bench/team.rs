//! How the parties of a benchmark coordinate while they run (testfed's load federates, the
//! matrix's parties): the [`Team`] they report to, and the [`StartGate`] a team in one
//! process shares (agents coordinate through the coordinator instead, `agents::team`).

use super::network::SETUP_TIMEOUT;
use super::oneway::Clock;
use super::BenchError;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// The start is set this far ahead so that every party of a team in one process sees it
/// before it is due.
pub(crate) const START_LEAD: Duration = Duration::from_millis(20);

/// How the parties of a benchmark coordinate while they run (testfed's load federates,
/// the matrix's parties): `R` is what a party reports when it finished sending and when it
/// has what it will get. Queries are polled by each party between its sends and receipts;
/// none of them blocks.
pub(crate) trait Team<R> {
    /// Another federate failed, or the run was given up: stop.
    fn aborted(&self) -> bool;
    /// Federate `me` heard every other's greeting (said once).
    fn heard_all(&self, me: usize) -> Result<(), BenchError>;
    /// When sending starts, nanoseconds on the run's clock, once it is set.
    fn start(&self) -> Result<Option<u64>, BenchError>;
    /// Federate `me` finished sending; `report` says what it sent.
    fn done_sending(&self, me: usize, report: &R) -> Result<(), BenchError>;
    /// Once every party finished sending: what the others than `me` sent (updates, and
    /// interactions where the benchmark sends any).
    fn sent_by_others(&self, me: usize) -> Result<Option<(u64, u64)>, BenchError>;
    /// Federate `me` has what it will get; `report` says what it sent and got.
    fn drained(&self, me: usize, report: &R) -> Result<(), BenchError>;
    /// Every federate has what it will get: lingering may end.
    fn all_drained(&self) -> Result<bool, BenchError>;
    /// A step after the measurement (`who`'s `step`): a failure is a fault to record, not
    /// a reason to drop the counts.
    fn after_measurement(&self, who: &str, step: &str, outcome: Result<(), BenchError>);
}

/// What every party of a team in one process shares, whatever it counts besides: who heard
/// everyone, when sending starts, who drained, and whether to stop.
#[derive(Default)]
pub(crate) struct StartGate {
    ready: AtomicUsize,
    /// When sending starts, nanoseconds on the run's clock; 0 until set.
    start_nanos: AtomicU64,
    drained: AtomicUsize,
    /// A party failed, or the start never came: everyone stops.
    abort: AtomicBool,
}

impl StartGate {
    pub(crate) fn aborted(&self) -> bool {
        self.abort.load(Ordering::SeqCst)
    }

    pub(crate) fn abort(&self) {
        self.abort.store(true, Ordering::SeqCst);
    }

    pub(crate) fn heard_all(&self) {
        self.ready.fetch_add(1, Ordering::SeqCst);
    }

    pub(crate) fn start(&self) -> Option<u64> {
        match self.start_nanos() {
            0 => None,
            start => Some(start),
        }
    }

    /// When sending starts; 0 until set.
    pub(crate) fn start_nanos(&self) -> u64 {
        self.start_nanos.load(Ordering::SeqCst)
    }

    pub(crate) fn set_start(&self, nanos: u64) {
        self.start_nanos.store(nanos, Ordering::SeqCst);
    }

    pub(crate) fn drained_one(&self) {
        self.drained.fetch_add(1, Ordering::SeqCst);
    }

    pub(crate) fn drained(&self) -> usize {
        self.drained.load(Ordering::SeqCst)
    }

    /// Set the start `START_LEAD` ahead once `parties` heard everyone, within
    /// `SETUP_TIMEOUT`; past it everyone stops and the error says that `who` did not hear
    /// each other. A party that failed meanwhile reports why itself.
    pub(crate) fn start_when_ready(
        &self,
        parties: usize,
        clock: Clock,
        who: &str,
    ) -> Result<(), BenchError> {
        let deadline = Instant::now() + SETUP_TIMEOUT;
        while self.ready.load(Ordering::SeqCst) < parties {
            if self.aborted() {
                return Ok(());
            }
            if Instant::now() > deadline {
                self.abort();
                return Err(BenchError::Failed(format!(
                    "{who} did not hear each other within {SETUP_TIMEOUT:?}"
                )));
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        self.set_start(clock.nanos() + START_LEAD.as_nanos() as u64);
        Ok(())
    }
}
