//! When housekeeping next runs: as often as `housekeeping_interval` while anything waits
//! on it, and otherwise not before its first deadline.
//!
//! Housekeeping sends heartbeats and acks, closes silent links and finishes closing ones,
//! expires registry requests and vouches for federates. A federate's node that has nothing
//! to do still woke for it ten times a second, and in a process of a thousand idle
//! federates those wake-ups were most of the CPU they cost. So a router at rest (every
//! link up with nothing to acknowledge, no request pending, no registry held) sleeps
//! until the next heartbeat is due, a link could have gone silent too long, a frame begun
//! on a link would pass its deadline (`LinkConfig::frame_deadline`), or a vouch is due. Whatever starts work that housekeeping finishes brings it back within the
//! interval (`housekeep_soon`): a link opened, closing or suspended, a request forwarded,
//! a reliable frame to acknowledge.

use super::link::LinkState;
use super::Router;
use crate::time::Time;
use std::time::Duration;

/// Longest a router with nothing to wait for sleeps between housekeeping passes.
const LONGEST_REST: Duration = Duration::from_secs(60);

impl Router {
    /// Housekeeping runs again within the interval: something it finishes has started.
    pub(super) fn housekeep_soon(&mut self, now: Time) {
        let soon = now + self.config.housekeeping_interval;
        self.next_housekeeping = self.next_housekeeping.min(soon);
    }

    /// When the pass that ran at `now` should run next: at the interval while anything
    /// waits on it, else at the earliest deadline (never sooner than the interval).
    #[must_use]
    pub(super) fn next_housekeeping_after(&self, now: Time) -> Time {
        let soon = now + self.config.housekeeping_interval;
        if self.config.hosts_registry
            || !self.pending_manage.is_empty()
            || self.awaits_registry_route()
        {
            return soon;
        }
        // A federate node vouches for nobody (its router vouches for it): no wake-up for that.
        let mut next = if self.vouched_nodes().next().is_some() {
            self.next_vouch
        } else {
            now + LONGEST_REST
        };
        for link in self.links.iter().flatten().filter(|l| !l.is_app()) {
            if link.state != LinkState::Up || link.received_reliable > link.acked {
                return soon;
            }
            let config = &link.config;
            if !config.heartbeat_interval.is_zero() {
                // What this pass queued (a heartbeat, a vouch) goes out when the driver
                // drains the link, after this: counting from the last drain instead planned
                // a pass at once, and so a wake-up, after every heartbeat sent.
                let sent = if link.out.is_empty() {
                    link.last_sent
                } else {
                    now
                };
                next = next.min(sent + config.heartbeat_interval);
            }
            if !config.heartbeat_timeout.is_zero() {
                next = next.min(link.last_received + config.heartbeat_timeout);
            }
            if let (Some(partial), false) = (link.partial_frame, config.frame_deadline.is_zero()) {
                next = next.min(partial.since + config.frame_deadline);
            }
        }
        next.max(soon)
    }
}
