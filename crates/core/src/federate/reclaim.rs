//! Reclaiming the membership from a registry that restarted empty (the registry's side and
//! the rules are in `registry/reclaim.rs`).
//!
//! The federate notices the restart from an event of an epoch it does not know, from an
//! answer saying the registry does not know it, or (through its node) from a vouch answered
//! "not a member". It then sends one `Request::Reclaim` with what it knows, and holds events
//! of the new incarnation until the answer. The answer's snapshot replaces its view of the
//! membership and the pending synchronization points; its handle, objects, publications,
//! subscriptions and logical time stay. A refusal (another object model, its handle taken,
//! or the registry resigned it itself) ends the membership with connectionLost naming why.

use super::federation::{CatchUp, MAX_EARLY_EVENTS};
use super::{Callback, Federate};
use crate::registry::{
    ErrorKind, FederationEvent, Reclaim, ReclaimedSync, Request, Response, Snapshot,
};
use std::collections::{BTreeMap, BTreeSet};

/// Most reserved names a reclaim carries (it must fit one manage frame); names beyond it
/// are given up.
pub const MAX_RECLAIMED_NAMES: usize = 8192;
/// Epochs of registry incarnations left behind: their late events are dropped.
const RETIRED_EPOCHS: usize = 8;

/// The registry's answer means it does not know this federate or its federation, or it
/// numbers events in another incarnation: a restarted registry.
pub(super) fn not_known(kind: ErrorKind) -> bool {
    matches!(
        kind,
        ErrorKind::FederationUnknown | ErrorKind::FederateUnknown | ErrorKind::RegistryRestarted
    )
}

impl Federate {
    /// Reclaim the membership from the registry (it restarted, or says it does not know
    /// this federate). Nothing while one reclaim is out, or before the join.
    pub fn reclaim(&mut self) {
        if self.view.seq.is_none() || self.view.reclaim == Some(CatchUp::Asked) {
            return;
        }
        self.view.reclaim = Some(CatchUp::Asked);
        self.view.catch_up = None;
        let request = self.reclaim_request();
        self.ask(Request::Reclaim(Box::new(request)));
    }

    /// Whether a reclaim is out or waits to be asked again.
    pub fn reclaiming(&self) -> bool {
        self.view.reclaim.is_some()
    }

    /// The registry incarnation this federate follows.
    pub fn registry_epoch(&self) -> u64 {
        self.view.epoch
    }

    fn reclaim_request(&self) -> Reclaim {
        let (name, kind) = self
            .view
            .federates
            .get(&self.handle)
            .cloned()
            .unwrap_or_default();
        let (regulating, constrained) = self.time.registry_view();
        Reclaim {
            federation: self.view.name.clone(),
            fingerprint: self.fingerprint,
            modules: self.model.modules().to_vec(),
            time_representation: self.time.representation().name().to_owned(),
            epoch: self.view.epoch,
            seq: self.view.seq.unwrap_or(0),
            federate: self.handle,
            name,
            kind,
            federates: self
                .view
                .federates
                .iter()
                .map(|(h, (name, kind))| (*h, name.clone(), kind.clone()))
                .collect(),
            reserved: self
                .reserved_names
                .iter()
                .take(MAX_RECLAIMED_NAMES)
                .cloned()
                .collect(),
            sync_points: self
                .view
                .announced
                .iter()
                .map(|(label, p)| ReclaimedSync {
                    label: label.clone(),
                    tag: p.tag.clone(),
                    members: p.members.clone(),
                    announced: p.seq,
                    achieved: p.achieved,
                })
                .collect(),
            regulating,
            constrained,
        }
    }

    /// An event of another incarnation: a late one of a retired incarnation is dropped; one
    /// of a new incarnation waits for the reclaim it starts.
    pub(super) fn on_other_epoch(&mut self, epoch: u64, seq: u64, event: FederationEvent) {
        if self.view.retired.contains(&epoch) {
            return;
        }
        if self.view.next_epoch.len() < MAX_EARLY_EVENTS {
            self.view.next_epoch.push_back((epoch, seq, event));
        }
        self.reclaim();
    }

    /// The registry answered the reclaim.
    pub(super) fn on_reclaimed(&mut self, response: Response) {
        match response {
            Response::Reclaimed {
                snapshot,
                names_lost,
            } => {
                self.view.reclaim = None;
                for name in &names_lost {
                    self.reserved_names.remove(name);
                }
                self.apply_reclaim(&snapshot);
                self.save_registry_restarted();
            }
            // Nothing reachable yet (the registry's host is still restarting): asked again
            // on the next sign of it (an event, a vouch, a relink, a refused request).
            Response::Error {
                kind: ErrorKind::NoRegistry | ErrorKind::LimitReached,
                ..
            } => self.view.reclaim = Some(CatchUp::Retry),
            other => {
                self.view.reclaim = None;
                self.view.deferred.clear();
                self.view.next_epoch.clear();
                let why = match other {
                    Response::Error { message, .. } => message,
                    other => format!("unexpected answer {other:?}"),
                };
                self.callbacks.push_back(Callback::ConnectionLost {
                    fault: format!(
                        "the federation registry does not know this federate and refused its \
                         reclaim: {why}"
                    ),
                });
            }
        }
    }

    /// Follow the new incarnation from its snapshot: members that are gone left, points
    /// no longer pending were synchronized, then the held events and deferred requests.
    fn apply_reclaim(&mut self, snapshot: &Snapshot) {
        if self.view.epoch != snapshot.epoch {
            self.view.retired.push_back(self.view.epoch);
            if self.view.retired.len() > RETIRED_EPOCHS {
                self.view.retired.pop_front();
            }
        }
        self.view.epoch = snapshot.epoch;
        self.view.seq = Some(snapshot.seq);
        self.view.early.clear();
        self.view.catch_up = None;
        self.reclaim_members(snapshot);
        self.reclaim_sync_points(snapshot);
        self.time
            .reconcile(&snapshot.regulating, &snapshot.constrained);
        for request in std::mem::take(&mut self.view.deferred) {
            self.ask(request);
        }
        for (epoch, seq, event) in std::mem::take(&mut self.view.next_epoch) {
            if epoch == snapshot.epoch {
                self.on_sequenced(seq, event);
            }
        }
        self.drain_time();
    }

    fn reclaim_members(&mut self, snapshot: &Snapshot) {
        let now: BTreeMap<u32, (String, String)> = snapshot
            .federates
            .iter()
            .map(|(h, name, kind)| (*h, (name.clone(), kind.clone())))
            .collect();
        let gone: Vec<u32> = self
            .view
            .federates
            .keys()
            .filter(|h| **h != self.handle && !now.contains_key(h))
            .copied()
            .collect();
        self.view.federates = now;
        for federate in gone {
            self.time.on_federate_left(federate, true);
            self.federate_gone(federate);
        }
    }

    /// Points still pending are renumbered in the new incarnation; points no longer
    /// pending were synchronized while the reclaim was out (the registry's event for that
    /// came before the snapshot, so it is not applied here: its failed list is unknown).
    fn reclaim_sync_points(&mut self, snapshot: &Snapshot) {
        let pending: BTreeSet<&str> = snapshot
            .sync_points
            .iter()
            .map(|(l, _)| l.as_str())
            .collect();
        let ended: Vec<String> = self
            .view
            .announced
            .keys()
            .filter(|l| !pending.contains(l.as_str()))
            .cloned()
            .collect();
        for label in ended {
            self.view.announced.remove(&label);
            self.callbacks.push_back(Callback::FederationSynchronized {
                label,
                failed: Vec::new(),
            });
        }
        for point in self.view.announced.values_mut() {
            point.seq = snapshot.seq;
        }
        for (label, tag) in &snapshot.sync_points {
            self.announce(label.clone(), tag.clone(), Vec::new(), snapshot.seq);
        }
    }
}

#[cfg(test)]
pub(in crate::federate) mod tests;
