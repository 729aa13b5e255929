//! The coordinator's live view while faults run: every observation is kept (for the
//! analysis at the end) and is enough to tell when the federation is healthy again.

use super::federate::Observation;
use std::collections::HashMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

pub(crate) struct Monitor {
    events: Receiver<Observation>,
    federates: usize,
    pub(crate) log: Vec<Observation>,
    joined: Vec<bool>,
    /// The latest join or lost membership: traffic from before it proves nothing.
    last_disturbance: Duration,
}

impl Monitor {
    pub(crate) fn new(events: Receiver<Observation>, federates: usize) -> Monitor {
        Monitor {
            events,
            federates,
            log: Vec::new(),
            joined: vec![false; federates],
            last_disturbance: Duration::ZERO,
        }
    }

    /// Take observations until `deadline`.
    pub(crate) fn pump_until(&mut self, deadline: Instant) {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return;
            }
            match self.events.recv_timeout(left) {
                Ok(observation) => self.take(observation),
                Err(RecvTimeoutError::Timeout) => return,
                // Every federate thread has ended: nothing more can come.
                Err(RecvTimeoutError::Disconnected) => {
                    std::thread::sleep(left);
                    return;
                }
            }
        }
    }

    /// Take whatever is queued, without waiting.
    pub(crate) fn pump_now(&mut self) {
        while let Ok(observation) = self.events.try_recv() {
            self.take(observation);
        }
    }

    fn take(&mut self, observation: Observation) {
        match &observation {
            Observation::Joined { federate, at, .. } => {
                self.joined[*federate] = true;
                self.last_disturbance = self.last_disturbance.max(*at);
            }
            Observation::MembershipLost { federate, at, .. } => {
                self.joined[*federate] = false;
                self.last_disturbance = self.last_disturbance.max(*at);
            }
            _ => {}
        }
        self.log.push(observation);
    }

    /// Wait (within `bound`) until every federate is joined and reliable updates sent
    /// after `since` (and after the latest join or lost membership) reached every other
    /// federate. Returns when the last pair first did, on the run's clock.
    pub(crate) fn wait_healthy(&mut self, since: Duration, bound: Duration) -> Option<Duration> {
        let deadline = Instant::now() + bound;
        loop {
            self.pump_now();
            if let Some(at) = self.healthy_at(since) {
                return Some(at);
            }
            if Instant::now() >= deadline {
                return None;
            }
            self.pump_until((Instant::now() + Duration::from_millis(50)).min(deadline));
        }
    }

    fn healthy_at(&self, since: Duration) -> Option<Duration> {
        if self.joined.iter().any(|j| !j) {
            return None;
        }
        let start = since.max(self.last_disturbance);
        // Observations arrive from several threads, so they are only nearly in time order.
        let from = self
            .log
            .partition_point(|o| o.at() + Duration::from_secs(1) < start);
        let mut first: HashMap<(usize, usize), Duration> = HashMap::new();
        for observation in &self.log[from..] {
            if let Observation::Reflected {
                receiver,
                publisher,
                reliable: true,
                sent_at,
                at,
                ..
            } = observation
            {
                if *sent_at >= start {
                    first.entry((*receiver, *publisher)).or_insert(*at);
                }
            }
        }
        let pairs = self.federates * (self.federates - 1);
        (first.len() >= pairs).then(|| first.values().copied().max().unwrap_or(start))
    }
}
