//! Keeping the federation across a lost link, and losing it for good.
//!
//! A link that goes down is not a lost membership. The node redials its router (with
//! backoff, `DEFAULT_MAX_ATTEMPTS`), and the registry keeps the federate for its lease as
//! long as some router vouches for the node (`trellis_core::registry`). So while the link is
//! down the federate stays joined: its handles, objects, publications and subscriptions stay
//! as they are, updates go nowhere, and services that need the registry fail at once with
//! `RtiError::Registry` ("no federation registry is reachable from …") rather than wait.
//! When a link is up again, the node's router declares the application's interest afresh
//! (a full set on every new link), the new router vouches for the node, and the federate
//! asks the registry for the events it missed (`Federate::resync`).
//!
//! The membership ends, with the standard's connectionLost callback naming the fault, when:
//! - the router said goodbye (it shut down, or cut the node as a slow consumer): it has
//!   told the registry the node is gone;
//! - the registry resigned it itself while it was cut off (a vouch answered "not a member"
//!   makes the federate reclaim, and this registry refuses the reclaim);
//! - the registry restarted and refused its reclaim (another object model was rebuilt
//!   under the federation's name, or another federate holds its handle);
//! - the node gave up redialing;
//! - the link stayed down longer than [`LINK_GRACE`]: by then the registry has resigned the
//!   federate, since nobody vouched for it within its lease;
//! - the federate missed registry events the registry no longer keeps.
//!
//! After that it is no longer joined: it declares no interest, receives nothing, and
//! services answer `FederateNotExecutionMember`.
//!
//! A registry that restarted (its host was killed and started again) does not end the
//! membership: it starts empty, and the federate reclaims its place with what it knows
//! (`trellis_core::registry`, `reclaim.rs`), keeping its handle. Meanwhile services that
//! need the registry fail with `RtiError::Registry` naming why; data keeps flowing.

use super::RtiAmbassador;
use crate::node::LinkEvent;
use roaring::RoaringBitmap;
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_core::registry::{DEFAULT_LEASE, DEFAULT_VOUCH_INTERVAL};

/// How long the link may stay down before the federate counts itself resigned: the
/// registry's default lease, plus one vouch interval so the registry (which resigns at the
/// lease after the last vouch, looked at a tenth of a lease apart) has resigned it first.
/// Were the federate to give up before the registry did, a relink in between would have its
/// router vouch for a node whose federate has already left here.
pub const LINK_GRACE: Duration = DEFAULT_LEASE.saturating_add(DEFAULT_VOUCH_INTERVAL);

/// What the ambassador knows about its node's links.
#[derive(Default)]
pub(super) struct Watch {
    /// The node's notice counter when link events were last taken.
    seen: Option<u64>,
    /// Since when no link has been up, and why the last one went down.
    down: Option<(Instant, String)>,
}

impl RtiAmbassador {
    /// Forget link events from before the federate joined: they did not concern it. The
    /// link is up (the join was answered).
    pub(super) fn forget_link_losses(&mut self) {
        while self.link.take_link_event().is_some() {}
        self.watch.down = None;
    }

    /// Follow the node's links while joined: hand back connectionLost when the membership
    /// is over, and ask for missed registry events after a relink. This runs once per
    /// callback, so the event channel is looked at only when the node's notice counter
    /// moved (an event is queued before the counter moves).
    pub(super) fn watch_connection(&mut self) -> Option<Callback> {
        self.joined.as_ref()?;
        let changes = self.link.network_interest_changes();
        if self.watch.seen != Some(changes) {
            self.watch.seen = Some(changes);
            while let Some(event) = self.link.take_link_event() {
                if let Some(fault) = self.on_link_event(event) {
                    return Some(self.lose_membership(fault));
                }
            }
        }
        let (since, why) = self.watch.down.as_ref()?;
        let down = since.elapsed();
        if down <= LINK_GRACE {
            return None;
        }
        let fault = format!(
            "the link to the router has been down for {:.1} s, longer than the federate \
             lease ({} s): the federation has resigned this federate (the link went down: \
             {why})",
            down.as_secs_f64(),
            DEFAULT_LEASE.as_secs()
        );
        Some(self.lose_membership(fault))
    }

    /// How long until a link that is down outlasts [`LINK_GRACE`]: a wait for callbacks
    /// ends then, to hand back connectionLost. `None` while a link is up.
    pub(super) fn grace_left(&self) -> Option<Duration> {
        self.joined.as_ref()?;
        let (since, _) = self.watch.down.as_ref()?;
        // Just past the grace: `watch_connection` loses the membership only beyond it.
        Some(LINK_GRACE.saturating_sub(since.elapsed()) + Duration::from_millis(1))
    }

    /// Act on one link event; the fault if it ends the membership.
    fn on_link_event(&mut self, event: LinkEvent) -> Option<String> {
        match event {
            LinkEvent::Up => {
                let (since, _) = self.watch.down.take()?;
                tracing::info!(
                    federation = %self.federation,
                    down_ms = since.elapsed().as_millis() as u64,
                    "link to the router is up again: still joined, catching up on registry events"
                );
                if let Some(joined) = self.joined.as_mut() {
                    joined.federate.resync();
                }
                // The catch-up asks the registry now. It fails only if the link dropped
                // again, and then the next relink asks again.
                if let Err(e) = self.flush_actions() {
                    tracing::warn!(federation = %self.federation, "catching up after a relink: {e}");
                }
                None
            }
            LinkEvent::Down { why, goodbye: true } => Some(why),
            LinkEvent::Down { why, .. } => {
                tracing::warn!(
                    federation = %self.federation,
                    "link to the router lost ({why}); redialing, still joined for up to {} s",
                    LINK_GRACE.as_secs()
                );
                match &mut self.watch.down {
                    Some((_, last)) => *last = why,
                    None => self.watch.down = Some((Instant::now(), why)),
                }
                None
            }
            // The registry does not know this federate: reclaim (a restarted registry takes it
            // back; one that resigned it refuses, and that refusal is connectionLost).
            LinkEvent::MembershipLost(why) => {
                tracing::warn!(federation = %self.federation, "{why}: reclaiming the membership");
                if let Some(joined) = self.joined.as_mut() {
                    joined.federate.reclaim();
                }
                if let Err(e) = self.flush_actions() {
                    tracing::warn!(federation = %self.federation, "reclaiming: {e}");
                }
                None
            }
            LinkEvent::GaveUp(why) => Some(format!("the node gave up redialing its router: {why}")),
        }
    }

    /// The federate is no longer a member (its router said goodbye, the federation resigned
    /// it, or its link stayed down past the lease): stop drawing the federation's traffic
    /// and hand back the connectionLost callback.
    pub(super) fn lose_membership(&mut self, fault: String) -> Callback {
        let name = self.joined.take().map(|j| j.name).unwrap_or_default();
        tracing::warn!(federation = %self.federation, federate = %name, "connection lost: {fault}");
        self.watch.down = None;
        // The node may redial; it must not draw the federation's traffic as a ghost.
        let _ = self.link.set_interest(&RoaringBitmap::new());
        self.interest_seen = None;
        Callback::ConnectionLost { fault }
    }
}
