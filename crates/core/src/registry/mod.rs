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
mod reclaim;
mod sync;

pub use codec::{ErrorKind, Reclaim, ReclaimedSync, Request, Response, Snapshot};
pub use event::{FederationEvent, TimeSwitch, FEDERATION_CONTROL_ID, REGISTRY_EVENT_KIND};
pub use sync::{SyncFailure, MAX_SYNC_POINTS};

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
            self.federate_left(&federation, handle, true);
        }
    }

    /// The next event to broadcast to every federate of a federation: (federation name,
    /// data payload for `FEDERATION_CONTROL_ID`).
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
    fn federate_left(&mut self, federation: &str, federate: u32, died: bool) {
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
        self.emit(federation, FederationEvent::FederateLeft { federate, died });
        self.complete_sync_points(federation);
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

    /// Act on a request from `origin` and answer it.
    pub fn handle(&mut self, origin: NodeId, request: Request) -> Response {
        match request {
            Request::Create {
                federation,
                fingerprint,
                modules,
                time_representation,
            } => self.create(federation, fingerprint, modules, time_representation),
            Request::Destroy { federation } => self.destroy(&federation),
            Request::Join {
                federation,
                federate_name,
                federate_type,
                fingerprint,
            } => self.join(
                origin,
                federation,
                federate_name,
                federate_type,
                fingerprint,
            ),
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
            Request::Vouch { nodes } => self.vouch(nodes),
            Request::NodeGone { node } => self.node_gone(node),
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
            Request::ListFederations => Response::Federations(
                self.federations
                    .iter()
                    .map(|(name, r)| (name.clone(), r.time_representation.clone()))
                    .collect(),
            ),
            Request::Events {
                federation,
                epoch,
                after,
            } => self.replay(&federation, epoch, after),
            Request::Reclaim(reclaim) => self.reclaim(origin, *reclaim),
            Request::Modules { federation } => match self.federations.get(&federation) {
                Some(record) => Response::Modules(record.modules.clone()),
                None => unknown(&federation),
            },
            Request::Federates { federation } => self.federates(&federation),
        }
    }
}

impl Registry {
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

fn unknown(federation: &str) -> Response {
    error(
        ErrorKind::FederationUnknown,
        format!("federation execution {federation:?} does not exist"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn create(r: &mut Registry, name: &str, fingerprint: u64) -> Response {
        r.handle(
            NodeId(1),
            Request::Create {
                federation: name.into(),
                fingerprint,
                modules: vec!["demo.xml".into()],
                time_representation: "HLAinteger64Time".into(),
            },
        )
    }

    fn join(
        r: &mut Registry,
        node: u64,
        federation: &str,
        name: &str,
        fingerprint: u64,
    ) -> Response {
        r.handle(
            NodeId(node),
            Request::Join {
                federation: federation.into(),
                federate_name: name.into(),
                federate_type: "sim".into(),
                fingerprint,
            },
        )
    }

    fn kind(response: Response) -> ErrorKind {
        match response {
            Response::Error { kind, .. } => kind,
            other => panic!("expected an error, got {other:?}"),
        }
    }

    #[test]
    fn the_federation_lifecycle_with_its_failures() {
        let mut r = Registry::new();
        assert_eq!(create(&mut r, "F", 7), Response::Created);
        assert_eq!(kind(create(&mut r, "F", 7)), ErrorKind::FederationExists);
        assert_eq!(
            kind(join(&mut r, 2, "G", "a", 7)),
            ErrorKind::FederationUnknown
        );
        assert_eq!(
            kind(join(&mut r, 2, "F", "a", 8)),
            ErrorKind::InconsistentFom
        );
        assert!(matches!(
            join(&mut r, 2, "F", "a", 7),
            Response::Joined { federate: 1, .. }
        ));
        assert!(matches!(
            join(&mut r, 3, "F", "b", 7),
            Response::Joined { federate: 2, .. }
        ));
        assert_eq!(
            kind(join(&mut r, 4, "F", "a", 7)),
            ErrorKind::FederateNameInUse
        );
        let destroy = Request::Destroy {
            federation: "F".into(),
        };
        assert_eq!(
            kind(r.handle(NodeId(1), destroy.clone())),
            ErrorKind::FederatesJoined
        );
        let resign = Request::Resign {
            federation: "F".into(),
            federate: 1,
        };
        assert_eq!(r.handle(NodeId(2), resign.clone()), Response::Resigned);
        assert_eq!(
            kind(r.handle(NodeId(2), resign)),
            ErrorKind::FederateUnknown
        );
        // The node of federate 2 drops off the network: it is resigned for it.
        assert_eq!(
            r.handle(NodeId(9), Request::NodeGone { node: NodeId(3) }),
            Response::Ack
        );
        assert_eq!(r.handle(NodeId(1), destroy.clone()), Response::Destroyed);
        assert_eq!(
            kind(r.handle(NodeId(1), destroy)),
            ErrorKind::FederationUnknown
        );
    }

    #[test]
    fn names_are_reserved_once_and_freed_by_resigning() {
        let mut r = Registry::new();
        create(&mut r, "F", 1);
        join(&mut r, 2, "F", "a", 1);
        join(&mut r, 3, "F", "b", 1);
        let reserve = |federate: u32| Request::ReserveName {
            federation: "F".into(),
            federate,
            name: "Tank-1".into(),
        };
        assert_eq!(
            r.handle(NodeId(2), reserve(1)),
            Response::NameReserved {
                name: "Tank-1".into()
            }
        );
        assert_eq!(
            r.handle(NodeId(3), reserve(2)),
            Response::NameRefused {
                name: "Tank-1".into()
            }
        );
        r.handle(
            NodeId(2),
            Request::Resign {
                federation: "F".into(),
                federate: 1,
            },
        );
        assert_eq!(
            r.handle(NodeId(3), reserve(2)),
            Response::NameReserved {
                name: "Tank-1".into()
            }
        );
    }
}

#[cfg(test)]
mod lease_tests {
    use super::*;

    fn join(r: &mut Registry, node: u64, name: &str) -> u32 {
        match r.handle(
            NodeId(node),
            Request::Join {
                federation: "F".into(),
                federate_name: name.into(),
                federate_type: "sim".into(),
                fingerprint: 1,
            },
        ) {
            Response::Joined { federate, .. } => federate,
            other => panic!("{other:?}"),
        }
    }

    fn left(r: &mut Registry) -> Vec<(u32, bool)> {
        std::iter::from_fn(|| r.poll_event())
            .filter_map(|(_, payload)| match FederationEvent::decode(&payload) {
                Ok((_, FederationEvent::FederateLeft { federate, died })) => Some((federate, died)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_federate_nobody_vouches_for_is_resigned_as_died_when_its_lease_runs_out() {
        let lease = Duration::from_secs(10);
        let mut r = Registry::with_lease(lease);
        let start = Time::ZERO + Duration::from_secs(100);
        r.tick(start);
        let created = r.handle(
            NodeId(1),
            Request::Create {
                federation: "F".into(),
                fingerprint: 1,
                modules: Vec::new(),
                time_representation: "HLAinteger64Time".into(),
            },
        );
        assert_eq!(created, Response::Created);
        let vouched = join(&mut r, 7, "vouched");
        let forgotten = join(&mut r, 8, "forgotten");
        left(&mut r);
        for step in 1..=6u64 {
            let now = start + Duration::from_secs(2 * step);
            r.handle(
                NodeId(3),
                Request::Vouch {
                    nodes: vec![NodeId(7)],
                },
            );
            r.tick(now);
            let gone = left(&mut r);
            if now.since(start) <= lease {
                assert!(gone.is_empty(), "nobody expires within the lease: {gone:?}");
            } else {
                assert_eq!(gone, vec![(forgotten, true)], "at {:?}", now.since(start));
                break;
            }
        }
        r.tick(start + Duration::from_secs(60));
        assert_eq!(
            left(&mut r),
            vec![(vouched, true)],
            "once nobody vouches, it goes too"
        );
    }
}

#[cfg(test)]
mod replay_tests {
    use super::*;

    fn setup() -> Registry {
        let mut r = Registry::new();
        r.handle(
            NodeId(1),
            Request::Create {
                federation: "F".into(),
                fingerprint: 1,
                modules: vec![],
                time_representation: "HLAinteger64Time".into(),
            },
        );
        r
    }

    fn join(r: &mut Registry, name: &str) {
        r.handle(
            NodeId(2),
            Request::Join {
                federation: "F".into(),
                federate_name: name.into(),
                federate_type: "t".into(),
                fingerprint: 1,
            },
        );
    }

    fn replay(r: &mut Registry, after: u64) -> Response {
        r.handle(
            NodeId(2),
            Request::Events {
                federation: "F".into(),
                epoch: r.epoch(),
                after,
            },
        )
    }

    fn seqs(response: &Response) -> Vec<u64> {
        let Response::Events(events) = response else {
            panic!("expected events, got {response:?}")
        };
        events
            .iter()
            .map(|e| FederationEvent::decode(e).unwrap().0)
            .collect()
    }

    #[test]
    fn missed_events_are_replayed_exactly_as_broadcast() {
        let mut r = setup();
        for name in ["a", "b", "c"] {
            join(&mut r, name);
        }
        let broadcast: Vec<Bytes> = std::iter::from_fn(|| r.poll_event())
            .map(|(_, p)| p)
            .collect();
        assert_eq!(replay(&mut r, 1), Response::Events(broadcast[1..].to_vec()));
        assert_eq!(seqs(&replay(&mut r, 0)), vec![1, 2, 3]);
        assert_eq!(
            replay(&mut r, 3),
            Response::Events(Vec::new()),
            "up to date"
        );
        assert_eq!(replay(&mut r, 99), Response::Events(Vec::new()));
        assert!(matches!(
            r.handle(
                NodeId(2),
                Request::Events {
                    federation: "G".into(),
                    epoch: 0,
                    after: 0
                }
            ),
            Response::Error {
                kind: ErrorKind::FederationUnknown,
                ..
            }
        ));
    }

    #[test]
    fn the_log_is_bounded_in_count_and_bytes_and_says_when_it_no_longer_reaches_back() {
        let mut r = setup();
        let total = EVENT_LOG_EVENTS as u64 + 10;
        for i in 0..total {
            join(&mut r, &format!("f{i}"));
        }
        std::iter::from_fn(|| r.poll_event()).count();
        assert_eq!(
            replay(&mut r, 5),
            Response::EventsTooOld {
                replayable_after: 10
            }
        );
        let kept = seqs(&replay(&mut r, 10));
        assert_eq!(kept.len(), EVENT_LOG_EVENTS);
        assert_eq!(kept.last(), Some(&total));
        // Large events: the byte bound drops the oldest first.
        let tag = Bytes::from(vec![7u8; 60_000]);
        for i in 0..8 {
            r.handle(
                NodeId(2),
                Request::RegisterSync {
                    federation: "F".into(),
                    federate: 1,
                    label: format!("p{i}"),
                    tag: tag.clone(),
                    members: vec![],
                },
            );
        }
        let record = &r.federations["F"];
        assert!(record.log_bytes <= EVENT_LOG_BYTES);
        assert_eq!(
            record.log_bytes,
            record.log.iter().map(|(_, p)| p.len()).sum::<usize>()
        );
        let Response::EventsTooOld { replayable_after } = replay(&mut r, total) else {
            panic!("the large events pushed the joins out")
        };
        let kept = seqs(&replay(&mut r, replayable_after));
        assert_eq!(kept.first(), Some(&(replayable_after + 1)));
        assert_eq!(kept.last(), Some(&(total + 8)));
    }
}

#[cfg(test)]
mod sync_tests {
    use super::*;

    fn events(r: &mut Registry) -> Vec<FederationEvent> {
        std::iter::from_fn(|| r.poll_event())
            .map(|(_, payload)| FederationEvent::decode(&payload).unwrap().1)
            .collect()
    }

    fn setup() -> Registry {
        let mut r = Registry::new();
        r.handle(
            NodeId(1),
            Request::Create {
                federation: "F".into(),
                fingerprint: 1,
                modules: vec![],
                time_representation: "HLAfloat64Time".into(),
            },
        );
        for (node, name) in [(2, "a"), (3, "b"), (4, "c")] {
            r.handle(
                NodeId(node),
                Request::Join {
                    federation: "F".into(),
                    federate_name: name.into(),
                    federate_type: "t".into(),
                    fingerprint: 1,
                },
            );
        }
        events(&mut r);
        r
    }

    fn register(r: &mut Registry, label: &str, members: Vec<u32>) -> Response {
        r.handle(
            NodeId(2),
            Request::RegisterSync {
                federation: "F".into(),
                federate: 1,
                label: label.into(),
                tag: Bytes::from_static(b"tag"),
                members,
            },
        )
    }

    fn achieve(r: &mut Registry, federate: u32, label: &str, success: bool) -> Response {
        r.handle(
            NodeId(2),
            Request::AchieveSync {
                federation: "F".into(),
                federate,
                label: label.into(),
                success,
            },
        )
    }

    #[test]
    fn a_point_is_announced_once_and_synchronized_when_all_achieved() {
        let mut r = setup();
        assert_eq!(
            register(&mut r, "ReadyToRun", vec![]),
            Response::SyncRegistered {
                label: "ReadyToRun".into()
            }
        );
        assert_eq!(
            register(&mut r, "ReadyToRun", vec![]),
            Response::SyncRefused {
                label: "ReadyToRun".into(),
                reason: SyncFailure::LabelNotUnique
            }
        );
        assert_eq!(
            register(&mut r, "Other", vec![1, 9]),
            Response::SyncRefused {
                label: "Other".into(),
                reason: SyncFailure::MemberNotJoined
            }
        );
        assert!(
            matches!(&events(&mut r)[..], [FederationEvent::SyncAnnounced { label, .. }] if label == "ReadyToRun")
        );
        achieve(&mut r, 1, "ReadyToRun", true);
        achieve(&mut r, 2, "ReadyToRun", false);
        assert!(events(&mut r).is_empty(), "c has not achieved yet");
        // A federate that resigns counts as achieved.
        r.handle(
            NodeId(4),
            Request::Resign {
                federation: "F".into(),
                federate: 3,
            },
        );
        assert_eq!(
            events(&mut r),
            vec![
                FederationEvent::FederateLeft {
                    federate: 3,
                    died: false
                },
                FederationEvent::FederationSynchronized {
                    label: "ReadyToRun".into(),
                    failed: vec![2]
                }
            ]
        );
        assert!(matches!(
            achieve(&mut r, 1, "ReadyToRun", true),
            Response::Error {
                kind: ErrorKind::SyncPointUnknown,
                ..
            }
        ));
    }

    #[test]
    fn late_joiners_get_pending_points_and_a_dead_member_counts_as_achieved() {
        let mut r = setup();
        register(&mut r, "All", vec![]);
        register(&mut r, "Pair", vec![1, 2]);
        let Response::Joined { federate, snapshot } = r.handle(
            NodeId(5),
            Request::Join {
                federation: "F".into(),
                federate_name: "late".into(),
                federate_type: "t".into(),
                fingerprint: 1,
            },
        ) else {
            panic!("join refused")
        };
        assert_eq!(federate, 4);
        let labels: Vec<&str> = snapshot
            .sync_points
            .iter()
            .map(|(l, _)| l.as_str())
            .collect();
        assert_eq!(
            labels,
            ["All"],
            "the late joiner is a member of the federation-wide point only"
        );
        assert_eq!(snapshot.time_representation, "HLAfloat64Time");
        assert_eq!(snapshot.federates.len(), 4);
        events(&mut r);
        for f in [1, 3, 4] {
            achieve(&mut r, f, "All", true);
        }
        achieve(&mut r, 1, "Pair", true);
        assert!(events(&mut r).is_empty());
        r.handle(NodeId(9), Request::NodeGone { node: NodeId(3) });
        let after = events(&mut r);
        assert_eq!(after.len(), 3, "{after:?}");
        assert!(after.contains(&FederationEvent::FederationSynchronized {
            label: "All".into(),
            failed: vec![]
        }));
        assert!(after.contains(&FederationEvent::FederationSynchronized {
            label: "Pair".into(),
            failed: vec![]
        }));
    }

    #[test]
    fn time_switches_are_ordered_with_their_epochs() {
        let mut r = setup();
        let switch = |r: &mut Registry, federate, switch| {
            r.handle(
                NodeId(2),
                Request::Time {
                    federation: "F".into(),
                    federate,
                    switch,
                },
            )
        };
        assert_eq!(switch(&mut r, 1, TimeSwitch::RegulationOn), Response::Ack);
        switch(&mut r, 2, TimeSwitch::ConstrainedOn);
        let Response::Joined { snapshot, .. } = r.handle(
            NodeId(5),
            Request::Join {
                federation: "F".into(),
                federate_name: "late".into(),
                federate_type: "t".into(),
                fingerprint: 1,
            },
        ) else {
            panic!("join refused")
        };
        let epoch = snapshot.regulating[0].1;
        assert_eq!(snapshot.regulating, vec![(1, epoch)]);
        assert_eq!(snapshot.constrained, vec![2]);
        assert!(matches!(
            switch(&mut r, 42, TimeSwitch::RegulationOn),
            Response::Error {
                kind: ErrorKind::FederateUnknown,
                ..
            }
        ));
    }
}
