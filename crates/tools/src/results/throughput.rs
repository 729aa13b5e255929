//! `summary.json` of a 1 → N throughput sweep.

use super::{number_or_null, numbers_or_nulls, unmeasured, unsaid_api, unsaid_mode};
use super::{unsaid_transport, Api, Mode, Transport};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThroughputCase {
    pub subscribers: usize,
    pub size: usize,
    /// Absent in hand-written folders.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub seconds: f64,
    /// Messages the sender sent. Absent in hand-written folders, as are `received` and
    /// `lost`: read as 0.
    #[serde(default)]
    pub sent: u64,
    /// Messages received, all receivers together.
    #[serde(default)]
    pub received: u64,
    /// sent × receivers − received.
    #[serde(default)]
    pub lost: u64,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub sender_msgs_per_sec: f64,
    /// Received per second per receiver (mean over receivers).
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub msgs_per_sec: f64,
    /// Absent in folders written before the sweep recorded each subscriber.
    #[serde(default, deserialize_with = "numbers_or_nulls")]
    pub per_subscriber_msgs_per_sec: Vec<f64>,
    /// Absent in hand-written folders.
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub payload_mb_per_sec: f64,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ThroughputSummary {
    /// The carrier, as `meta.json` also says; absent in hand-written folders, as are the
    /// first case's figures below.
    #[serde(default = "unsaid_mode")]
    pub mode: Mode,
    #[serde(default = "unsaid_api", deserialize_with = "super::api_by_name")]
    pub api: Api,
    #[serde(default = "unsaid_transport")]
    pub transport: Transport,
    #[serde(default)]
    pub size: usize,
    pub cases: Vec<ThroughputCase>,
    /// The first case's figures, as the single-case benchmark always reported them.
    #[serde(default)]
    pub subscribers: usize,
    #[serde(default = "unmeasured", deserialize_with = "number_or_null")]
    pub msgs_per_sec: f64,
    #[serde(default)]
    pub sent: u64,
    #[serde(default)]
    pub received: u64,
    #[serde(default)]
    pub lost: u64,
    /// With agents: how times from different processes were compared (see `agents.json`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<String>,
}

impl ThroughputCase {
    /// Messages delivered per second, every subscriber together: the sum of the
    /// subscribers' own rates when each was recorded; else received over the case's
    /// seconds; else the mean rate per subscriber times the subscribers.
    pub fn delivered_msgs_per_sec(&self) -> Option<f64> {
        let each: Vec<f64> = self
            .per_subscriber_msgs_per_sec
            .iter()
            .copied()
            .filter(|r| r.is_finite())
            .collect();
        if self.subscribers > 0 && each.len() == self.subscribers {
            return Some(each.iter().sum());
        }
        if self.seconds.is_finite() && self.seconds > 0.0 && self.received > 0 {
            return Some(self.received as f64 / self.seconds);
        }
        let mean = self.msgs_per_sec;
        mean.is_finite().then_some(mean * self.subscribers as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(per_subscriber: Vec<f64>, seconds: f64, received: u64) -> ThroughputCase {
        ThroughputCase {
            subscribers: 2,
            size: 64,
            seconds,
            sent: 100,
            received,
            lost: 0,
            sender_msgs_per_sec: f64::NAN,
            msgs_per_sec: 40.0,
            per_subscriber_msgs_per_sec: per_subscriber,
            payload_mb_per_sec: f64::NAN,
        }
    }

    #[test]
    fn delivered_is_every_subscriber_together() {
        assert_eq!(
            case(vec![30.0, 50.0], 2.0, 100).delivered_msgs_per_sec(),
            Some(80.0)
        );
        // A subscriber without its own rate: received over the time instead.
        assert_eq!(
            case(vec![30.0, f64::NAN], 2.0, 100).delivered_msgs_per_sec(),
            Some(50.0)
        );
        // Neither: the mean rate times the subscribers.
        assert_eq!(
            case(vec![], f64::NAN, 0).delivered_msgs_per_sec(),
            Some(80.0)
        );
    }
}
