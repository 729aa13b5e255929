//! What the demo's federate threads share with the thread that prints every second: the
//! synchronization point reached, and each time-managed federate's granted logical time.
//! Lock-free, so a printer never stalls a federate between two steps.

use super::say::Say;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

/// One time-managed federate's clock as the printer sees it.
#[derive(Default)]
pub(super) struct Clock {
    /// The last granted logical time, in steps.
    granted: AtomicI64,
    grants: AtomicU64,
}

impl Clock {
    pub(super) fn granted(&self, time: i64) {
        self.granted.store(time, Ordering::SeqCst);
        self.grants.fetch_add(1, Ordering::SeqCst);
    }
}

/// The whole demo's start and clocks.
#[derive(Default)]
pub(super) struct Board {
    /// Federates that got FederationSynchronized for the demo's synchronization point.
    synchronized: AtomicUsize,
    announced_once: AtomicBool,
    clocks: Vec<(String, Clock)>,
    /// Where the federates' own lines go (the synchronization).
    say: Option<Arc<Say>>,
}

/// Granted time across federates at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GrantedTime {
    pub min: i64,
    pub max: i64,
    /// Grants so far, all federates together.
    pub grants: u64,
}

impl Board {
    /// A board with a clock for each of these time-managed federates.
    pub(super) fn with_clocks(names: &[&str]) -> Board {
        Board {
            clocks: names
                .iter()
                .map(|n| (n.to_string(), Clock::default()))
                .collect(),
            ..Board::default()
        }
    }

    /// The federates' lines go to `say`.
    pub(super) fn saying_to(mut self, say: Arc<Say>) -> Board {
        self.say = Some(say);
        self
    }

    pub(super) fn say(&self, text: std::fmt::Arguments) {
        if let Some(say) = &self.say {
            say.line(text);
        }
    }

    pub(super) fn clock(&self, name: &str) -> Option<&Clock> {
        self.clocks.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    /// One federate saw the federation synchronized; true for the first one only, so one
    /// line gets printed for the whole federation.
    pub(super) fn synchronized(&self) -> bool {
        self.synchronized.fetch_add(1, Ordering::SeqCst);
        !self.announced_once.swap(true, Ordering::SeqCst)
    }

    pub(super) fn synchronized_federates(&self) -> usize {
        self.synchronized.load(Ordering::SeqCst)
    }

    /// Each time-managed federate's last granted logical time, in the board's order.
    pub(super) fn granted_by_federate(&self) -> Vec<(&str, i64)> {
        self.clocks
            .iter()
            .map(|(name, c)| (name.as_str(), c.granted.load(Ordering::SeqCst)))
            .collect()
    }

    /// `None` when no federate is time-managed.
    pub(super) fn granted_time(&self) -> Option<GrantedTime> {
        let times = self
            .clocks
            .iter()
            .map(|(_, c)| c.granted.load(Ordering::SeqCst));
        Some(GrantedTime {
            min: times.clone().min()?,
            max: times.max()?,
            grants: self
                .clocks
                .iter()
                .map(|(_, c)| c.grants.load(Ordering::SeqCst))
                .sum(),
        })
    }
}
