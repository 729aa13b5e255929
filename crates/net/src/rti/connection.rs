//! Losing the federation: when the node's link fails, the registry resigns the federate
//! behind its back (its router reports the node gone). The federate hears it as the
//! standard's connectionLost callback, after which it is no longer joined: it declares no
//! interest, receives nothing, and services answer `FederateNotExecutionMember`.

use super::{Link, RtiAmbassador};
use roaring::RoaringBitmap;
use std::time::Duration;
use trellis_core::federate::Callback;

/// While joined, waiting for callbacks looks for a lost link at least this often, so a
/// federate blocked in a long evoke hears of the loss promptly.
pub(super) const CONNECTION_WATCH: Duration = Duration::from_millis(100);

impl Link {
    fn take_link_loss(&self) -> Option<String> {
        match self {
            Link::Direct(n) => n.take_link_loss(),
            Link::Thread(n) => n.take_link_loss(),
        }
    }
}

impl RtiAmbassador {
    /// Forget link losses from before the federate joined: they did not concern it.
    pub(super) fn forget_link_losses(&mut self) {
        while self.link.take_link_loss().is_some() {}
    }

    /// If a link was lost while joined: leave the federation here too and hand back the
    /// connectionLost callback naming the fault. This runs once per callback, so the loss
    /// channel is looked at only when the node's notice counter moved (a loss is queued
    /// before the counter moves).
    pub(super) fn watch_connection(&mut self) -> Option<Callback> {
        self.joined.as_ref()?;
        let changes = self.link.network_interest_changes();
        if self.losses_seen == Some(changes) {
            return None;
        }
        self.losses_seen = Some(changes);
        let fault = self.link.take_link_loss()?;
        Some(self.lose_membership(fault))
    }

    /// The federate is no longer a member (its link failed, or the federation resigned it):
    /// stop drawing the federation's traffic and hand back the connectionLost callback.
    pub(super) fn lose_membership(&mut self, fault: String) -> Callback {
        let name = self.joined.take().map(|j| j.name).unwrap_or_default();
        tracing::warn!(federation = %self.federation, federate = %name, "connection lost: {fault}");
        // The node may redial; it must not draw the federation's traffic as a ghost.
        let _ = self.link.set_interest(&RoaringBitmap::new());
        self.interest_seen = None;
        Callback::ConnectionLost { fault }
    }
}
