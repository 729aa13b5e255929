//! The registry as soft state: rebuilt from the federates that remain after it restarts.
//!
//! # Why no two registries act at once
//!
//! - A topology names exactly one registry host (`Topology::registry_host`); only the router
//!   configured with `hosts_registry` holds one, and routers route manage frames toward the
//!   single node at distance 0 (`router/manage.rs`). There is no standby and no election,
//!   so there is nothing to split the brain.
//! - A restarted process (`trellis up` restarts a router that died, under the same name
//!   from the same file) is the same registry rebuilt, not a second one: the first is dead.
//!   It starts empty under a new epoch ([`Registry::epoch`], drawn from the router's
//!   per-process node id and the time), which its events and snapshots carry.
//! - Meanwhile requests fail at once with a clear error: a router with no route to the
//!   registry answers `NoRegistry` ("no federation registry is reachable from …"); a request
//!   already forwarded toward it when the host died is answered `NoRegistry` as soon as the
//!   link it left through closes (`close_pending_manage`), or at the latest after
//!   `PENDING_TIMEOUT` (`expire_pending_manage`), and the ambassador's own wait is bounded
//!   by its request timeout. None hangs. Data keeps flowing: routers forward without the
//!   registry. A federate sees failing federation-management calls (its synchronization
//!   point registrations, time switches and name reservations fail or go unanswered) and
//!   keeps its handle, objects, publications and subscriptions.
//!
//! # Reclaiming
//!
//! A federate that finds the registry does not know it (a vouch answered "not a member", an
//! event or answer of another epoch, `FederationUnknown`/`FederateUnknown`/
//! `RegistryRestarted` to one of its requests) sends one [`Reclaim`] with what it knows.
//!
//! - A reclaim naming this incarnation's own epoch is refused: this registry resigned that
//!   federate itself (its lease ran out while it was cut off); the others were told, so it
//!   cannot come back as if nothing happened.
//! - The first reclaim recreates the federation (object model, time representation) and
//!   *seeds* its membership: every federate the reclaimer knew is entered under its old
//!   handle as not yet reclaimed (no node; its lease runs from now), with the reclaimer's
//!   view of who regulates (with the old regulation epochs) and who is constrained. So
//!   members that reclaim a little later still count for synchronization points and time
//!   management in between, and nobody takes their handles or names. One that does not
//!   reclaim within a lease is resigned as died, as any federate whose router died.
//! - A later reclaim must match the object model fingerprint and time representation
//!   (else `InconsistentFom`, naming both); its handle must be free or held under its own
//!   name (else refused: another federate reclaimed that handle). It confirms the member
//!   (its node now vouched for), and it speaks for itself on time management.
//! - New joiners get handles above every handle any reclaim named (`next_handle`), so the
//!   rule is "reclaim wins": no grace period refuses joins. The only conflict left is an old
//!   member the first reclaimer had not heard of (its join event was still on the way) that
//!   reclaims after a newcomer took its handle: it is refused and hears connectionLost.
//! - Reserved names are merged; a name another federate holds now stays with it and is
//!   reported back (`names_lost`).
//! - Synchronization points are merged: a point is recreated with its tag and members from
//!   the first reclaimer that knows it, and each reclaimer's achievement is recorded. A
//!   reclaimer that does not list a recreated point it belongs to either saw it synchronized
//!   (its last event comes after the announcement: it counts as achieved) or never heard of
//!   it (then its snapshot announces it). It is synchronized once every member still
//!   joined, reclaimed or not yet, achieved it.
//! - Logical times and lookaheads stay with the federates (the registry never held them);
//!   their time-management state carries on untouched.

use super::codec::{Reclaim, ReclaimedSync};
use super::sync::SyncPoint;
use super::{
    error, ErrorKind, FederateRecord, FederationEvent, FederationRecord, Registry, Response,
    MAX_FEDERATES, MAX_FEDERATIONS, MAX_RESERVED_NAMES, MAX_SYNC_POINTS,
};
use crate::wire::NodeId;
use std::collections::BTreeMap;

impl Registry {
    /// A federate of an earlier incarnation asks to be a member again.
    pub(super) fn reclaim(
        &mut self,
        (origin, asker): (NodeId, Option<&str>),
        reclaim: Reclaim,
    ) -> Response {
        if let Some(snapshot) = self.already_member(origin, &reclaim) {
            return Response::Reclaimed {
                snapshot,
                names_lost: Vec::new(),
            };
        }
        if let Err(refusal) = self.check_reclaim(origin, &reclaim) {
            return *refusal;
        }
        let now = self.now;
        let record = self
            .federations
            .entry(reclaim.federation.clone())
            .or_insert_with(|| {
                FederationRecord::new(
                    reclaim.fingerprint,
                    reclaim.modules.clone(),
                    reclaim.time_representation.clone(),
                )
            });
        if !record.seeded {
            record.seed(&reclaim, now);
        }
        record.confirm((origin, asker.map(str::to_owned)), &reclaim, now);
        let names_lost = record.merge_names(reclaim.federate, &reclaim.reserved);
        record.merge_sync_points(&reclaim);
        let federation = reclaim.federation;
        self.complete_sync_points(&federation);
        self.emit(
            &federation,
            FederationEvent::FederateJoined {
                federate: reclaim.federate,
                name: reclaim.name,
                kind: reclaim.kind,
            },
        );
        let snapshot = self.federations[&federation].snapshot(self.epoch, reclaim.federate);
        Response::Reclaimed {
            snapshot,
            names_lost,
        }
    }

    /// A federate that reclaimed into this incarnation already and asks again (a "not a
    /// member" answer to a vouch sent before its reclaim arrived late) is simply told how
    /// things stand.
    fn already_member(&self, origin: NodeId, r: &Reclaim) -> Option<super::Snapshot> {
        let record = self.federations.get(&r.federation)?;
        let held = record.federates.get(&r.federate)?;
        let same = r.epoch == self.epoch && held.name == r.name && held.node == Some(origin);
        same.then(|| record.snapshot(self.epoch, r.federate))
    }

    /// Whether the reclaim may go ahead: the refusal otherwise.
    fn check_reclaim(&self, origin: NodeId, r: &Reclaim) -> Result<(), Box<Response>> {
        let refuse = |kind, message| Err(Box::new(error(kind, message)));
        let federation = &r.federation;
        if r.epoch == self.epoch {
            return refuse(
                ErrorKind::FederateUnknown,
                format!(
                    "the federation registry (incarnation {:#x}) resigned federate {} ({:?}) \
                     of {federation:?} itself; only a restarted registry is rebuilt from reclaims",
                    self.epoch, r.federate, r.name
                ),
            );
        }
        if r.federate == 0 || r.federate == u32::MAX {
            return refuse(
                ErrorKind::Malformed,
                format!("no federate has handle {}", r.federate),
            );
        }
        let Some(record) = self.federations.get(federation) else {
            if self.federations.len() >= MAX_FEDERATIONS {
                return refuse(
                    ErrorKind::LimitReached,
                    format!("the registry holds its limit of {MAX_FEDERATIONS} federations"),
                );
            }
            return Ok(());
        };
        if record.fingerprint != r.fingerprint
            || record.time_representation != r.time_representation
        {
            return refuse(
                ErrorKind::InconsistentFom,
                format!(
                    "federate {:?} reclaims {federation:?} with object model {} on {}, but the \
                     registry rebuilt it with {} on {}",
                    r.name,
                    r.modules.join(", "),
                    r.time_representation,
                    record.modules.join(", "),
                    record.time_representation
                ),
            );
        }
        record.check_handle(origin, r)
    }
}

impl FederationRecord {
    /// The reclaimer's handle must be free or held under its own name (by its own node, once
    /// reclaimed), and its name not held under another handle.
    fn check_handle(&self, origin: NodeId, r: &Reclaim) -> Result<(), Box<Response>> {
        let refuse = |message| Err(Box::new(error(ErrorKind::FederateNameInUse, message)));
        match self.federates.get(&r.federate) {
            Some(held) if held.name != r.name => {
                return refuse(format!(
                    "federate handle {} of {:?} is held by {:?} now (a federate that joined or \
                     reclaimed while this one had not), so {:?} cannot reclaim it",
                    r.federate, r.federation, held.name, r.name
                ))
            }
            Some(held) if held.node.is_some_and(|n| n != origin) => {
                return refuse(format!(
                    "federate {:?} (handle {}) was already reclaimed from another node",
                    r.name, r.federate
                ))
            }
            Some(_) => return Ok(()),
            None => {}
        }
        if let Some((handle, _)) = self.federates.iter().find(|(_, f)| f.name == r.name) {
            return refuse(format!(
                "a federate named {:?} is joined to {:?} under handle {handle}",
                r.name, r.federation
            ));
        }
        if self.federates.len() >= MAX_FEDERATES {
            return Err(Box::new(error(
                ErrorKind::LimitReached,
                format!("federation execution {:?} is full", r.federation),
            )));
        }
        Ok(())
    }

    /// The first reclaim names the members and their time-management switches.
    fn seed(&mut self, r: &Reclaim, now: crate::time::Time) {
        self.seeded = true;
        // Regulation epochs are sequence numbers: continuing above the earlier incarnation's
        // keeps a later switch-on's epoch above every epoch federates still hold. Only
        // possible before this record sequenced anything.
        if self.seq == 0 {
            self.seq = r.seq;
            self.forgotten_through = r.seq;
        }
        for (handle, name, kind) in &r.federates {
            let taken = self.federates.contains_key(handle)
                || self.federates.values().any(|f| &f.name == name);
            if taken || *handle == 0 || self.federates.len() >= MAX_FEDERATES {
                continue;
            }
            let record = FederateRecord {
                name: name.clone(),
                kind: kind.clone(),
                node: None,
                identity: None,
                renewed: now,
            };
            self.federates.insert(*handle, record);
            self.next_handle = self.next_handle.max(handle.saturating_add(1));
        }
        for (handle, epoch) in &r.regulating {
            if self.federates.contains_key(handle) {
                self.regulating.insert(*handle, *epoch);
            }
        }
        for handle in &r.constrained {
            if self.federates.contains_key(handle) {
                self.constrained.insert(*handle);
            }
        }
    }

    /// The reclaimer is a member again, on its node, and speaks for its own time switches.
    fn confirm(
        &mut self,
        (origin, identity): (NodeId, Option<String>),
        r: &Reclaim,
        now: crate::time::Time,
    ) {
        let me = r.federate;
        self.federates.insert(
            me,
            FederateRecord {
                name: r.name.clone(),
                kind: r.kind.clone(),
                node: Some(origin),
                identity,
                renewed: now,
            },
        );
        let highest = r.federates.iter().map(|(h, _, _)| *h).max().unwrap_or(me);
        self.next_handle = self.next_handle.max(highest.max(me).saturating_add(1));
        match r.regulating.iter().find(|(h, _)| *h == me) {
            Some((_, epoch)) => self.regulating.insert(me, *epoch),
            None => self.regulating.remove(&me),
        };
        if r.constrained.contains(&me) {
            self.constrained.insert(me);
        } else {
            self.constrained.remove(&me);
        }
    }

    /// Keep the reclaimer's reserved names that nobody else holds; the rest, lost.
    fn merge_names(&mut self, me: u32, names: &[String]) -> Vec<String> {
        let mut lost = Vec::new();
        for name in names {
            match self.reserved.get(name) {
                Some(owner) if *owner == me => {}
                None if self.reserved.len() < MAX_RESERVED_NAMES => {
                    self.reserved.insert(name.clone(), me);
                }
                _ => lost.push(name.clone()),
            }
        }
        lost
    }

    /// Recreate or update the points the reclaimer lists; settle the recreated ones it does
    /// not list (see the module notes).
    fn merge_sync_points(&mut self, r: &Reclaim) {
        let me = r.federate;
        let listed: BTreeMap<&str, &ReclaimedSync> = r
            .sync_points
            .iter()
            .map(|p| (p.label.as_str(), p))
            .collect();
        for point in listed.values() {
            if !self.sync_points.contains_key(&point.label)
                && self.sync_points.len() < MAX_SYNC_POINTS
            {
                let recreated = SyncPoint {
                    tag: point.tag.clone(),
                    members: (!point.members.is_empty())
                        .then(|| point.members.iter().copied().collect()),
                    achieved: BTreeMap::new(),
                    reclaimed: Some(point.announced),
                };
                self.sync_points.insert(point.label.clone(), recreated);
            }
            let Some(held) = self.sync_points.get_mut(&point.label) else {
                continue;
            };
            if let (Some(success), true) = (point.achieved, held.includes(me)) {
                held.achieved.insert(me, success);
            }
        }
        for (label, held) in &mut self.sync_points {
            let saw_it_end = held
                .reclaimed
                .is_some_and(|announced| r.seq >= announced && announced > 0);
            if !listed.contains_key(label.as_str()) && held.includes(me) && saw_it_end {
                held.achieved.entry(me).or_insert(true);
            }
        }
    }
}

#[cfg(test)]
mod tests;
