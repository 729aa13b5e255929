//! Reliable data a benchmark lost. A run that lost any did not measure what it claims (a
//! rate over messages that never arrived, a latency over the survivors), so it is recorded as
//! a fault: `meta.json` says it is not complete and the command exits non-zero. Best-effort
//! losses are what best effort means, and are reported, not judged. The chaos benchmark kills
//! routers on purpose: its losses are its result, judged by its own rules.

use super::clutter::ClutterSummary;
use super::latency::LatencySummary;
use super::matrix::MatrixSummary;
use super::oneway::OnewaySummary;
use super::pingpong::PingpongSummary;
use super::results::Results;
use super::symmetric::SymmetricSummary;
use super::testfed::TestfedSummary;
use super::throughput::ThroughputSummary;
use super::timestep::TimestepSummary;
use super::Transport;

/// What a benchmark's summary says about reliable data that never arrived.
pub trait ReliableLoss {
    /// `None` when nothing sent reliably went missing; otherwise what, in words.
    fn reliable_loss(&self) -> Option<String>;
}

/// Record `summary`'s reliable loss, if any, as a fault of the run.
pub fn record_reliable_loss(results: &Results, summary: &impl ReliableLoss) {
    if let Some(loss) = summary.reliable_loss() {
        results.fault(format!("reliable data lost: {loss}"));
    }
}

/// "N of M reliable messages never arrived" when `transport` is reliable and `lost` > 0.
fn lost_of(transport: Transport, lost: u64, expected: u64) -> Option<String> {
    (transport == Transport::Reliable && lost > 0)
        .then(|| format!("{lost} of {expected} reliable messages never arrived"))
}

/// [`lost_of`] over cases that each count (lost, received).
fn cases_lost_of(transport: Transport, cases: impl Iterator<Item = (u64, u64)>) -> Option<String> {
    let (lost, received) = cases.fold((0, 0), |(l, r), (lost, got)| (l + lost, r + got));
    lost_of(transport, lost, received + lost)
}

impl ReliableLoss for ThroughputSummary {
    fn reliable_loss(&self) -> Option<String> {
        cases_lost_of(
            self.transport,
            self.cases.iter().map(|c| (c.lost, c.received)),
        )
    }
}

impl ReliableLoss for SymmetricSummary {
    fn reliable_loss(&self) -> Option<String> {
        cases_lost_of(
            self.transport,
            self.cases.iter().map(|c| (c.lost, c.received)),
        )
    }
}

impl ReliableLoss for PingpongSummary {
    fn reliable_loss(&self) -> Option<String> {
        let (lost, count) = (self.lost as u64, self.count as u64);
        lost_of(self.transport, lost, count + lost)
    }
}

impl ReliableLoss for LatencySummary {
    fn reliable_loss(&self) -> Option<String> {
        let cases = self.cases.iter().map(|c| (c.lost as u64, c.count as u64));
        cases_lost_of(self.transport, cases)
    }
}

impl ReliableLoss for OnewaySummary {
    fn reliable_loss(&self) -> Option<String> {
        let reliable = || {
            self.cases
                .iter()
                .filter(|c| c.transport == Transport::Reliable)
        };
        let lost = reliable().map(|c| c.missing).sum();
        lost_of(Transport::Reliable, lost, reliable().map(|c| c.sent).sum())
    }
}

impl ReliableLoss for MatrixSummary {
    fn reliable_loss(&self) -> Option<String> {
        let short: Vec<String> = self
            .cases
            .iter()
            .filter(|c| c.transport == Transport::Reliable && c.reliability < 1.0)
            .map(|c| {
                format!(
                    "{} entities at {} Hz, {} B: reliability {:.6}",
                    c.entities, c.rate_hz, c.size, c.reliability
                )
            })
            .collect();
        (!short.is_empty()).then(|| short.join(", "))
    }
}

impl ReliableLoss for TestfedSummary {
    fn reliable_loss(&self) -> Option<String> {
        let updates: u64 = self.federates.iter().map(|f| f.updates_missing).sum();
        // Interactions are sent reliably whatever the updates' transport.
        let interactions: u64 = self.federates.iter().map(|f| f.interactions_missing).sum();
        let updates = if self.transport == Transport::Reliable {
            updates
        } else {
            0
        };
        (updates + interactions > 0)
            .then(|| format!("{updates} updates and {interactions} interactions never arrived"))
    }
}

impl ReliableLoss for ClutterSummary {
    fn reliable_loss(&self) -> Option<String> {
        let missing: u64 = self
            .cases
            .iter()
            .filter(|c| c.reliable)
            .map(|c| c.missing)
            .sum();
        (missing > 0).then(|| format!("{missing} expected reflections never arrived"))
    }
}

/// Time-stepped federates cannot lose a message unnoticed: a missing one holds every grant
/// after it, and the run fails on its own.
impl ReliableLoss for TimestepSummary {
    fn reliable_loss(&self) -> Option<String> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::throughput::ThroughputCase;
    use crate::bench::{Api, Mode};

    fn throughput(transport: Transport, lost: u64) -> ThroughputSummary {
        ThroughputSummary {
            mode: Mode::Trellis,
            api: Api::Node,
            transport,
            size: 64,
            subscribers: 1,
            msgs_per_sec: 1000.0,
            sent: 1000,
            received: 1000 - lost,
            lost,
            cases: vec![ThroughputCase {
                subscribers: 1,
                size: 64,
                seconds: 1.0,
                sent: 1000,
                received: 1000 - lost,
                lost,
                sender_msgs_per_sec: 1000.0,
                msgs_per_sec: 1000.0,
                per_subscriber_msgs_per_sec: vec![1000.0],
                payload_mb_per_sec: 0.064,
            }],
            clock: None,
        }
    }

    #[test]
    fn reliable_loss_is_a_fault_and_best_effort_loss_is_not() {
        assert_eq!(
            throughput(Transport::Reliable, 7)
                .reliable_loss()
                .as_deref(),
            Some("7 of 1000 reliable messages never arrived")
        );
        assert_eq!(throughput(Transport::Reliable, 0).reliable_loss(), None);
        assert_eq!(throughput(Transport::BestEffort, 7).reliable_loss(), None);
    }

    #[test]
    fn a_run_that_lost_reliable_data_is_not_complete() {
        let dir = std::env::temp_dir().join(format!("trellis-losses-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let setup = crate::bench::Setup::default();
        let meta = crate::bench::results::Meta::new("throughput", "test", &setup, Mode::Trellis);
        let mut results = Results::create(Some(&dir), meta).unwrap();
        record_reliable_loss(&results, &throughput(Transport::Reliable, 922));
        results.finish(true).unwrap();
        assert_eq!(results.meta().complete, Some(false));
        let fault = results.meta().fault.clone().unwrap_or_default();
        assert!(fault.contains("922 of 1000 reliable"), "{fault}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
