//! The federation registry: where a federation's shared state lives.
//!
//! One node of the network hosts it (by default the router at the top of the topology; see
//! `RouterConfig::hosts_registry`). It holds, per federation execution: its name, the
//! fingerprint of its object model, the joined federates with their handles, and reserved
//! object-instance names. Requests reach it as manage frames that routers forward along the
//! registry route; nothing on the data path ever waits for it. Object instances are named
//! by (federate handle, local number), so registering one needs no round trip.
//!
//! When a federate node ends its link to its router (a goodbye, or its process closed the
//! socket), that router tells the registry (`NodeGone`), which resigns the federates of that
//! node. A link that merely failed (silence, a transport error) may come back, and a router
//! that dies cannot say anything, so membership is also a lease: every router vouches every `VOUCH_INTERVAL` for the
//! federate nodes whose links to it are up (`Vouch`), and a federate nobody vouched for
//! within its lease ([`DEFAULT_LEASE`]) is resigned as died: its objects are removed at subscribers, its
//! synchronization points released and its time constraints dropped, as for any federate
//! that dies. Time reaches the registry through [`Registry::tick`] (it stays sans-IO).
//!
//! The registry is also the federation's sequencer: membership changes, synchronization
//! points and time-management switches become [`FederationEvent`]s with one sequence number
//! per federation, which the hosting router broadcasts to every federate (`poll_event`).
//! Every federate therefore sees the same history in the same order; a joining federate
//! gets a [`Snapshot`] of that history instead of its past events. A federate that missed
//! events asks for them again (`Request::Events`): the registry keeps a bounded log of each
//! federation's recent events ([`EVENT_LOG_EVENTS`], [`EVENT_LOG_BYTES`]) and answers with
//! what it still has, or `EventsTooOld`.
//!
//! The registry is soft state. Each incarnation (process start) has an [`epoch`]
//! (`Registry::epoch`) carried on its events and snapshots; after a restart the federates
//! that remain rebuild it (`Request::Reclaim`): why that is safe, and the rules, are in
//! `reclaim.rs`.
//!
//! [`epoch`]: Registry::epoch

mod codec;
mod event;
mod membership;
mod quota;
mod reclaim;
mod save;
mod sync;

pub use codec::{ErrorKind, Reclaim, ReclaimedSync, Request, Response, Snapshot};
pub use event::{
    Departure, FederationEvent, TimeSwitch, FEDERATION_CONTROL_ID, REGISTRY_EVENT_KIND,
};
pub use quota::{RegistryLimits, DEFAULT_FEDERATES_PER_NODE, DEFAULT_FEDERATIONS_PER_CREATOR};
pub use save::{
    RestoreFailureReason, RestoreStatus, SaveEvent, SaveFailureReason, SaveOp, SaveStatus,
    MAX_SAVED_LABELS,
};
pub use sync::{SyncFailure, SyncPointStatus, MAX_SYNC_POINTS};

use crate::time::Time;
use crate::wire::NodeId;
use bytes::Bytes;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Duration;
use sync::SyncPoint;

/// Most federation executions one registry holds.
pub const MAX_FEDERATIONS: usize = 1024;
/// Most federates joined to one federation at once.
pub const MAX_FEDERATES: usize = 65_535;
/// Most reserved object-instance names per federation.
pub const MAX_RESERVED_NAMES: usize = 1 << 20;
/// The event log of a federation keeps at most this many recent events for replay
/// (`Request::Events`) ...
pub const EVENT_LOG_EVENTS: usize = 1024;
/// ... and at most this many bytes of them, so a replay fits one manage frame under the
/// default frame limit (1 MiB). An event larger than this alone is not kept: the log then
/// starts after it.
pub const EVENT_LOG_BYTES: usize = 256 << 10;

struct FederateRecord {
    name: String,
    kind: String,
    /// `None`: known only from another federate's reclaim, not reclaimed itself yet (no
    /// router can vouch for it until it does; its lease runs from the reclaim that named it).
    node: Option<NodeId>,
    /// The certificate name its join (or reclaim) came under, if its link proved one: the
    /// per-identity limits count by it (`quota.rs`).
    identity: Option<String>,
    /// When a router last vouched for the federate's node (or it joined).
    renewed: Time,
}

/// By default, a federate no router vouched for within this long is resigned as died.
pub const DEFAULT_LEASE: Duration = Duration::from_secs(10);
/// By default, how often every router vouches for the federate nodes linked to it.
pub const DEFAULT_VOUCH_INTERVAL: Duration = Duration::from_secs(2);

struct FederationRecord {
    fingerprint: u64,
    modules: Vec<String>,
    time_representation: String,
    federates: BTreeMap<u32, FederateRecord>,
    next_handle: u32,
    reserved: BTreeMap<String, u32>,
    /// Sequence number of the last event.
    seq: u64,
    sync_points: BTreeMap<String, SyncPoint>,
    /// Regulating federates, with the sequence number of the event that switched each on.
    regulating: BTreeMap<u32, u64>,
    constrained: BTreeSet<u32>,
    /// Recent events, oldest first, for federates that missed some (a link on the way was
    /// down while they were broadcast). Bounded by `EVENT_LOG_EVENTS` and `EVENT_LOG_BYTES`.
    log: VecDeque<(u64, Bytes)>,
    log_bytes: usize,
    /// Events up to this one are no longer in the log (0: none was dropped yet).
    forgotten_through: u64,
    /// A reclaim has named the federation's members (the first one does; see `reclaim.rs`).
    seeded: bool,
    /// Who created it, counted against their limit (`quota.rs`); `None` when recreated by
    /// a reclaim.
    creator: Option<quota::Holder>,
    /// The save or restore in progress, if any (`save.rs`).
    progress: Option<save::Progress>,
    /// Saved labels, oldest first, with what their restore puts back (`save.rs`).
    saved: VecDeque<(String, save::SavedFederation)>,
}

impl FederationRecord {
    fn new(fingerprint: u64, modules: Vec<String>, time_representation: String) -> Self {
        FederationRecord {
            fingerprint,
            modules,
            time_representation,
            federates: BTreeMap::new(),
            next_handle: 1,
            reserved: BTreeMap::new(),
            seq: 0,
            sync_points: BTreeMap::new(),
            regulating: BTreeMap::new(),
            constrained: BTreeSet::new(),
            log: VecDeque::new(),
            log_bytes: 0,
            forgotten_through: 0,
            seeded: false,
            creator: None,
            progress: None,
            saved: VecDeque::new(),
        }
    }

    /// Keep `payload` (event `seq`) for replay, dropping the oldest past the bounds.
    fn log_event(&mut self, seq: u64, payload: &Bytes) {
        self.log.push_back((seq, payload.clone()));
        self.log_bytes += payload.len();
        while self.log.len() > EVENT_LOG_EVENTS || self.log_bytes > EVENT_LOG_BYTES {
            let Some((dropped, payload)) = self.log.pop_front() else {
                break;
            };
            self.log_bytes -= payload.len();
            self.forgotten_through = dropped;
        }
    }

    /// The events after `after`, or the answer that they are no longer kept.
    fn replay(&self, after: u64) -> Response {
        if after < self.forgotten_through {
            return Response::EventsTooOld {
                replayable_after: self.forgotten_through,
            };
        }
        Response::Events(
            self.log
                .iter()
                .filter(|(seq, _)| *seq > after)
                .map(|(_, payload)| payload.clone())
                .collect(),
        )
    }

    fn joined(&self) -> BTreeSet<u32> {
        self.federates.keys().copied().collect()
    }

    fn snapshot(&self, epoch: u64, federate: u32) -> Snapshot {
        Snapshot {
            epoch,
            seq: self.seq,
            time_representation: self.time_representation.clone(),
            federates: self
                .federates
                .iter()
                .map(|(h, f)| (*h, f.name.clone(), f.kind.clone()))
                .collect(),
            regulating: self.regulating.iter().map(|(h, e)| (*h, *e)).collect(),
            constrained: self.constrained.iter().copied().collect(),
            sync_points: self
                .sync_points
                .iter()
                .filter(|(_, p)| p.includes(federate))
                .map(|(label, p)| (label.clone(), p.tag.clone()))
                .collect(),
        }
    }
}

/// The federation registry: every federation execution's membership, names, synchronization
/// points and time switches, and the sequencer of their events. Hosted by one router, sans-IO.
pub struct Registry {
    federations: BTreeMap<String, FederationRecord>,
    /// Events to broadcast: (federation, encoded payload). Drained by the hosting router
    /// right after each request, so it never holds more than one request's events.
    events: VecDeque<(String, Bytes)>,
    /// The time of the last tick.
    now: Time,
    lease: Duration,
    /// Leases are looked at a tenth of a lease apart, not on every tick: the walk covers
    /// every federate of every federation.
    next_expiry: Time,
    /// This incarnation (0 until `start_epoch`).
    epoch: u64,
    /// What one node or identity may hold (`quota.rs`).
    limits: RegistryLimits,
}

fn error(kind: ErrorKind, message: String) -> Response {
    Response::Error { kind, message }
}

impl Default for Registry {
    fn default() -> Registry {
        Registry::with_lease(DEFAULT_LEASE)
    }
}

impl Registry {
    /// A registry with the default lease and limits; its epoch is 0 until `start_epoch`.
    pub fn new() -> Registry {
        Registry::default()
    }

    /// A registry that resigns federates nobody vouched for within `lease`.
    pub fn with_lease(lease: Duration) -> Registry {
        Registry {
            federations: BTreeMap::new(),
            events: VecDeque::new(),
            now: Time::ZERO,
            lease,
            next_expiry: Time::ZERO,
            epoch: 0,
            limits: RegistryLimits::default(),
        }
    }

    /// Name this incarnation, once: the hosting router does before the registry acts, from
    /// something no earlier incarnation had (its node id is drawn per process, mixed with
    /// the time). Later calls change nothing.
    pub fn start_epoch(&mut self, epoch: u64) {
        if self.epoch == 0 {
            self.epoch = epoch.max(1);
        }
    }

    /// This incarnation's epoch, carried on its events and snapshots.
    pub fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Advance the registry's clock to `now` and resign, as died, every federate whose lease
    /// ran out (no router vouched for it within the lease). Their events are queued.
    pub fn tick(&mut self, now: Time) {
        self.now = now;
        if now < self.next_expiry {
            return;
        }
        self.next_expiry = now + self.lease / 10;
        let lease = self.lease;
        let mut expired = Vec::new();
        for (name, record) in &mut self.federations {
            record.federates.retain(|handle, f| {
                let alive = now.since(f.renewed) <= lease;
                if !alive {
                    expired.push((name.clone(), *handle));
                }
                alive
            });
        }
        for (federation, handle) in expired {
            self.federate_left(&federation, handle, Departure::Died);
        }
    }

    /// The next event to broadcast to every federate of a federation: (federation name,
    /// data payload for `FEDERATION_CONTROL_ID`).
    ///
    /// Call after every `handle` and `tick`, until it returns `None`.
    #[must_use]
    pub fn poll_event(&mut self) -> Option<(String, Bytes)> {
        self.events.pop_front()
    }

    fn emit(&mut self, federation: &str, event: FederationEvent) {
        let Some(record) = self.federations.get_mut(federation) else {
            return;
        };
        record.seq += 1;
        let payload = event.encode(self.epoch, record.seq);
        record.log_event(record.seq, &payload);
        self.events.push_back((federation.to_owned(), payload));
    }

    /// `federate` left (resigned, or died with its node): its reservations go, it counts as
    /// having achieved every pending synchronization point, and its time switches end.
    fn federate_left(&mut self, federation: &str, federate: u32, how: Departure) {
        let Some(record) = self.federations.get_mut(federation) else {
            return;
        };
        record.reserved.retain(|_, owner| *owner != federate);
        record.regulating.remove(&federate);
        record.constrained.remove(&federate);
        for point in record.sync_points.values_mut() {
            if let Some(members) = point.members.as_mut() {
                members.remove(&federate);
            }
            point.achieved.remove(&federate);
        }
        self.emit(federation, FederationEvent::FederateLeft { federate, how });
        self.complete_sync_points(federation);
        self.save_member_left(federation);
    }

    /// Announce `FederationSynchronized` for every point all its joined members achieved.
    fn complete_sync_points(&mut self, federation: &str) {
        let Some(record) = self.federations.get_mut(federation) else {
            return;
        };
        let joined = record.joined();
        let done: Vec<String> = record
            .sync_points
            .iter()
            .filter(|(_, p)| p.complete(&joined))
            .map(|(label, _)| label.clone())
            .collect();
        let finished: Vec<(String, Vec<u32>)> = done
            .into_iter()
            .filter_map(|label| {
                let point = record.sync_points.remove(&label)?;
                Some((label, point.failed()))
            })
            .collect();
        for (label, failed) in finished {
            self.emit(
                federation,
                FederationEvent::FederationSynchronized { label, failed },
            );
        }
    }

    /// Act on a request from `origin`, whose link proved no identity, and answer it.
    pub fn handle(&mut self, origin: NodeId, request: Request) -> Response {
        self.handle_as(origin, None, request)
    }

    /// Act on a request from `origin` whose first router proved its link to be `asker`
    /// (`ManageFrame::asker`), and answer it.
    pub fn handle_as(&mut self, origin: NodeId, asker: Option<&str>, request: Request) -> Response {
        if let Some((federation, federate)) = request.acts_for() {
            if let Some(refusal) = self.refuse_acting_for_another(origin, federation, federate) {
                return refusal;
            }
        }
        match request {
            Request::Create {
                federation,
                fingerprint,
                modules,
                time_representation,
            } => self.create_by(
                (origin, asker),
                federation,
                fingerprint,
                modules,
                time_representation,
            ),
            Request::Destroy { federation } => self.destroy(&federation),
            Request::Join {
                federation,
                federate_name,
                federate_type,
                fingerprint,
                modules,
            } => self.join(
                (origin, asker),
                federation,
                federate_name,
                federate_type,
                (fingerprint, modules),
            ),
            Request::Vouch { nodes } => self.vouch(nodes),
            Request::NodeGone { node, how } => self.node_gone(node, how),
            Request::Resign { .. }
            | Request::ReserveName { .. }
            | Request::ReleaseName { .. }
            | Request::RegisterSync { .. }
            | Request::AchieveSync { .. }
            | Request::Time { .. }
            | Request::Save { .. } => self.act_for_federate(request),
            Request::ResignFederate {
                federation,
                federate,
                ..
            } => self.resign_as(&federation, federate, Departure::ByManager),
            Request::ListFederations => self.list_federations(),
            Request::Events {
                federation,
                epoch,
                after,
            } => self.replay(&federation, epoch, after),
            Request::Reclaim(reclaim) => self.reclaim((origin, asker), *reclaim),
            // Only the registry's own process asks it: a federate's first router answers.
            Request::ClassRights { .. } => Response::ClassRights(Default::default()),
            Request::Modules { federation } => self.modules(&federation),
            Request::Federates { federation } => self.federates(&federation),
            Request::SyncPoints {
                federation,
                members,
            } => self.sync_points(&federation, members),
        }
    }

    /// The requests that act for one federate (`Request::acts_for`): `handle_as` has
    /// checked that they come from its node.
    fn act_for_federate(&mut self, request: Request) -> Response {
        match request {
            Request::Resign {
                federation,
                federate,
            } => self.resign(&federation, federate),
            Request::ReserveName {
                federation,
                federate,
                name,
            } => self.reserve_name(&federation, federate, name),
            Request::ReleaseName {
                federation,
                federate,
                name,
            } => self.release_name(&federation, federate, &name),
            Request::RegisterSync {
                federation,
                federate,
                label,
                tag,
                members,
            } => self.register_sync(&federation, federate, label, tag, members),
            Request::AchieveSync {
                federation,
                federate,
                label,
                success,
            } => self.achieve_sync(&federation, federate, &label, success),
            Request::Time {
                federation,
                federate,
                switch,
            } => self.switch_time(&federation, federate, switch),
            Request::Save {
                federation,
                federate,
                op,
            } => self.save_op(&federation, federate, op),
            other => error(
                ErrorKind::Malformed,
                format!("{other:?} does not act for a federate"),
            ),
        }
    }

    fn list_federations(&self) -> Response {
        Response::Federations(
            self.federations
                .iter()
                .map(|(name, r)| (name.clone(), r.time_representation.clone()))
                .collect(),
        )
    }

    /// The object model modules `federation` was created with.
    fn modules(&self, federation: &str) -> Response {
        match self.federations.get(federation) {
            Some(record) => Response::Modules(record.modules.clone()),
            None => unknown(federation),
        }
    }
}

impl Registry {
    /// A federate is acted for by its own node alone: resigning it, reserving names,
    /// synchronizing or switching its time from another node is refused. (A federate known
    /// only from another's reclaim has no node yet, and an unknown one is left to the
    /// request's own answer.)
    fn refuse_acting_for_another(
        &self,
        origin: NodeId,
        federation: &str,
        federate: u32,
    ) -> Option<Response> {
        let record = self.federations.get(federation)?.federates.get(&federate)?;
        let node = record.node?;
        (node != origin).then(|| {
            error(
                ErrorKind::NotPermitted,
                format!(
                    "node {origin} asked to act for federate {federate} ({:?}) of {federation:?}, \
                     which joined from node {node}: only a federate's own node acts for it",
                    record.name
                ),
            )
        })
    }

    /// The events after `after` of `federation`, counted in incarnation `epoch`.
    fn replay(&self, federation: &str, epoch: u64, after: u64) -> Response {
        if epoch != self.epoch {
            return restarted(self.epoch, epoch);
        }
        match self.federations.get(federation) {
            Some(record) => record.replay(after),
            None => unknown(federation),
        }
    }

    fn member(
        &mut self,
        federation: &str,
        federate: u32,
    ) -> Result<&mut FederationRecord, Box<Response>> {
        let record = self
            .federations
            .get_mut(federation)
            .ok_or_else(|| Box::new(unknown(federation)))?;
        if !record.federates.contains_key(&federate) {
            return Err(Box::new(error(
                ErrorKind::FederateUnknown,
                format!("federate {federate} is not joined to {federation:?}"),
            )));
        }
        Ok(record)
    }

    fn register_sync(
        &mut self,
        federation: &str,
        federate: u32,
        label: String,
        tag: Bytes,
        members: Vec<u32>,
    ) -> Response {
        let record = match self.member(federation, federate) {
            Ok(record) => record,
            Err(response) => return *response,
        };
        let refused = |reason| Response::SyncRefused {
            label: label.clone(),
            reason,
        };
        if record.sync_points.contains_key(&label) {
            return refused(SyncFailure::LabelNotUnique);
        }
        if members.iter().any(|m| !record.federates.contains_key(m)) {
            return refused(SyncFailure::MemberNotJoined);
        }
        if record.sync_points.len() >= MAX_SYNC_POINTS {
            return error(
                ErrorKind::LimitReached,
                format!("federation execution {federation:?} has {MAX_SYNC_POINTS} synchronization points pending"),
            );
        }
        let point = SyncPoint {
            tag: tag.clone(),
            members: (!members.is_empty()).then(|| members.iter().copied().collect()),
            achieved: BTreeMap::new(),
            reclaimed: None,
        };
        record.sync_points.insert(label.clone(), point);
        self.emit(
            federation,
            FederationEvent::SyncAnnounced {
                label: label.clone(),
                tag,
                members,
            },
        );
        Response::SyncRegistered { label }
    }

    fn achieve_sync(
        &mut self,
        federation: &str,
        federate: u32,
        label: &str,
        success: bool,
    ) -> Response {
        let record = match self.member(federation, federate) {
            Ok(record) => record,
            Err(response) => return *response,
        };
        match record.sync_points.get_mut(label) {
            Some(point) if point.includes(federate) => {
                point.achieved.insert(federate, success);
            }
            _ => {
                return error(
                    ErrorKind::SyncPointUnknown,
                    format!(
                        "synchronization point {label:?} is not announced to federate {federate}"
                    ),
                )
            }
        }
        self.complete_sync_points(federation);
        Response::Ack
    }

    fn switch_time(&mut self, federation: &str, federate: u32, switch: TimeSwitch) -> Response {
        let record = match self.member(federation, federate) {
            Ok(record) => record,
            Err(response) => return *response,
        };
        match switch {
            // The event about to be emitted gets the next sequence number: the epoch.
            TimeSwitch::RegulationOn => {
                record.regulating.insert(federate, record.seq + 1);
            }
            TimeSwitch::RegulationOff => {
                record.regulating.remove(&federate);
            }
            TimeSwitch::ConstrainedOn => {
                record.constrained.insert(federate);
            }
            TimeSwitch::ConstrainedOff => {
                record.constrained.remove(&federate);
            }
        }
        self.emit(federation, FederationEvent::Time { federate, switch });
        Response::Ack
    }
}

fn restarted(epoch: u64, known: u64) -> Response {
    error(
        ErrorKind::RegistryRestarted,
        format!(
            "the federation registry restarted (incarnation {epoch:#x}; the asker knew \
             {known:#x}): reclaim the membership"
        ),
    )
}

pub(super) fn unknown(federation: &str) -> Response {
    error(
        ErrorKind::FederationUnknown,
        format!("federation execution {federation:?} does not exist"),
    )
}

#[cfg(test)]
mod tests;
