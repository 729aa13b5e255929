//! Two readings of one process, some time apart, made into what the page shows: CPU as a
//! share of the host (user, system), memory, and per peer and per federate rates per second.
//!
//! A counter that went down (the process restarted, a link was replaced) gives no rate for
//! that interval rather than a negative one; a link seen for the first time gives none
//! either, since its count may include traffic from before the previous scrape.

use super::reading::Reading;
use std::collections::BTreeMap;

/// One peer's link(s) from this process's side.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PeerFigures {
    /// Messages per second from the peer to this process.
    pub rate_in: Option<f64>,
    /// Messages per second from this process to the peer.
    pub rate_out: Option<f64>,
    /// Frames queued toward the peer now.
    pub queue: f64,
    pub up: bool,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FederateFigures {
    pub owned: f64,
    pub known: f64,
    pub updates_per_second: Option<f64>,
    pub reflects_per_second: Option<f64>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figures {
    /// CPU time in user and system mode as a percentage of one core: 100 is one core busy
    /// all the time (above 100, more than one). A share of the whole host made a busy
    /// router on a many-core machine look idle.
    pub cpu_user: Option<f64>,
    pub cpu_system: Option<f64>,
    pub memory_bytes: Option<f64>,
    /// The host's network bytes per second, in and out.
    pub network_in: Option<f64>,
    pub network_out: Option<f64>,
    /// By peer node name; links still in handshake (no peer yet) are left out.
    pub peers: BTreeMap<String, PeerFigures>,
    pub federates: BTreeMap<String, FederateFigures>,
}

fn rate(before: Option<f64>, now: Option<f64>, seconds: f64) -> Option<f64> {
    let (before, now) = (before?, now?);
    (now >= before && seconds > 0.0).then(|| (now - before) / seconds)
}

fn add(sum: Option<f64>, more: Option<f64>) -> Option<f64> {
    match (sum, more) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    }
}

/// `now`'s figures, with rates over the `seconds` since `before` (none without `before`).
pub fn figures(before: Option<&Reading>, now: &Reading, seconds: f64) -> Figures {
    let cpu_share = |pick: fn(&Reading) -> Option<f64>| {
        let busy = rate(before.and_then(pick), pick(now), seconds)?;
        Some(100.0 * busy)
    };
    let mut peers: BTreeMap<String, PeerFigures> = BTreeMap::new();
    for (id, link) in &now.links {
        if link.peer.is_empty() {
            continue;
        }
        let old = before.and_then(|b| b.links.get(id));
        let peer = peers.entry(link.peer.clone()).or_default();
        peer.rate_in = add(
            peer.rate_in,
            rate(old.map(|l| l.messages_in), Some(link.messages_in), seconds),
        );
        peer.rate_out = add(
            peer.rate_out,
            rate(
                old.map(|l| l.messages_out),
                Some(link.messages_out),
                seconds,
            ),
        );
        peer.queue += link.queue;
        peer.up |= link.up;
    }
    let federates = now
        .federates
        .iter()
        .map(|(name, federate)| {
            let old = before.and_then(|b| b.federates.get(name));
            let figures = FederateFigures {
                owned: federate.owned,
                known: federate.known,
                updates_per_second: rate(old.map(|f| f.updates), Some(federate.updates), seconds),
                reflects_per_second: rate(
                    old.map(|f| f.reflects),
                    Some(federate.reflects),
                    seconds,
                ),
            };
            (name.clone(), figures)
        })
        .collect();
    Figures {
        cpu_user: cpu_share(|r| r.cpu_user_seconds),
        cpu_system: cpu_share(|r| r.cpu_system_seconds),
        memory_bytes: now.memory_bytes,
        network_in: rate(
            before.and_then(|b| b.network_in_bytes),
            now.network_in_bytes,
            seconds,
        ),
        network_out: rate(
            before.and_then(|b| b.network_out_bytes),
            now.network_out_bytes,
            seconds,
        ),
        peers,
        federates,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monitor::reading::LinkReading;

    fn reading(cpu_user: f64, messages_in: f64, messages_out: f64) -> Reading {
        let mut reading = Reading {
            cpu_user_seconds: Some(cpu_user),
            cpu_system_seconds: Some(1.0),
            host_cpus: Some(2.0),
            memory_bytes: Some(100.0),
            network_in_bytes: Some(cpu_user * 1000.0),
            ..Reading::default()
        };
        let link = LinkReading {
            peer: "p".into(),
            messages_in,
            messages_out,
            queue: 4.0,
            up: true,
        };
        reading.links.insert("1".into(), link);
        reading
    }

    #[test]
    fn cpu_is_a_share_of_one_core_and_rates_are_per_second() {
        let figures = figures(
            Some(&reading(1.0, 0.0, 10.0)),
            &reading(2.0, 50.0, 30.0),
            2.0,
        );
        // 1 CPU second in 2 s: half of one core, however many the host has (2 here).
        assert_eq!(figures.cpu_user, Some(50.0));
        assert_eq!(figures.cpu_system, Some(0.0));
        assert_eq!(figures.network_in, Some(500.0));
        assert_eq!(figures.network_out, None);
        let peer = &figures.peers["p"];
        assert_eq!((peer.rate_in, peer.rate_out), (Some(25.0), Some(10.0)));
        assert_eq!(peer.queue, 4.0);
    }

    #[test]
    fn the_first_reading_and_a_counter_that_went_down_give_no_rate() {
        let first = figures(None, &reading(1.0, 5.0, 5.0), 1.0);
        assert_eq!(first.cpu_user, None);
        assert_eq!(first.peers["p"].rate_in, None);
        assert_eq!(first.memory_bytes, Some(100.0));
        let restarted = figures(
            Some(&reading(9.0, 50.0, 50.0)),
            &reading(1.0, 5.0, 60.0),
            1.0,
        );
        assert_eq!(restarted.cpu_user, None);
        assert_eq!(restarted.peers["p"].rate_in, None);
        assert_eq!(restarted.peers["p"].rate_out, Some(10.0));
    }
}
