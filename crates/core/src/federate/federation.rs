//! The federation as this federate sees it: who is joined, which synchronization points
//! are pending, and the registry's ordered events that change both (and time management).
//!
//! Events arrive on the broadcast id in the registry's order. Those that arrive before the
//! join's snapshot are held (at most `MAX_EARLY_EVENTS`) and those the snapshot already
//! reflects are dropped, so every federate applies each event exactly once, in order.
//!
//! A gap in the sequence means a link on the way was down while the registry spoke (the
//! federate's own router restarted, say). The federate then catches up: it holds what
//! arrives, asks the registry for the events after the last one it applied
//! (`Request::Events`, answered from the registry's bounded log), applies those, then what it
//! held. Only when the log no longer reaches back that far is its view lost for good
//! (connectionLost). The same request after the node's link comes back (`resync`) finds
//! events missed at the tail, which no later event would reveal.
//!
//! The registry may restart empty (its host died and was started again): its events then
//! carry another epoch, and it answers that it does not know this federate. The federate
//! then reclaims its membership (`Request::Reclaim`, see `registry/reclaim.rs`) with what
//! it knows, keeps its handle, objects and subscriptions, and follows the new incarnation
//! from the snapshot the reclaim is answered with. Requests refused meanwhile because the
//! registry did not know it are asked again once it is a member again.

use super::reclaim::not_known;
use super::time::{TimeManager, TimeOutput};
use super::{Action, Callback, Federate, FederateError};
use crate::registry::{Departure, ErrorKind, FederationEvent, Request, Response, Snapshot};
use bytes::Bytes;
use std::collections::{BTreeMap, VecDeque};

/// Most registry events held while the join's answer is on its way.
pub const MAX_EARLY_EVENTS: usize = 4096;
/// Most requests held, while the federate reclaims its membership, to be asked again after.
pub const MAX_DEFERRED_ASKS: usize = 256;

/// A synchronization point announced to this federate and not yet synchronized.
pub(super) struct Announced {
    pub tag: Bytes,
    /// Empty: the whole federation.
    pub members: Vec<u32>,
    /// The event that announced it (or the snapshot that brought it), in this epoch.
    pub seq: u64,
    /// Whether this federate achieved it, and with what success.
    pub achieved: Option<bool>,
}

#[derive(Default)]
pub(super) struct FederationView {
    pub name: String,
    /// Sequence number of the last event applied; `None` before the join's snapshot.
    pub seq: Option<u64>,
    pub early: VecDeque<(u64, FederationEvent)>,
    pub federates: BTreeMap<u32, (String, String)>,
    /// Synchronization points announced to this federate and not yet synchronized.
    pub announced: BTreeMap<String, Announced>,
    /// The registry incarnation followed (`Snapshot::epoch`).
    pub epoch: u64,
    /// Incarnations left behind, most recent last.
    pub retired: VecDeque<u64>,
    /// Reclaiming the membership from a restarted registry.
    pub reclaim: Option<CatchUp>,
    /// Requests refused because the registry did not know this federate: asked again once
    /// the reclaim is through.
    pub deferred: VecDeque<Request>,
    /// Events of a newer incarnation that arrived before the reclaim's answer.
    pub next_epoch: VecDeque<(u64, u64, FederationEvent)>,
    /// Events that could not be applied (held past the limit before the join).
    pub events_lost: u64,
    /// Catching up on missed events: events arriving meanwhile wait in `early`.
    pub catch_up: Option<CatchUp>,
}

/// A request to the registry the federate repeats until it is answered (a replay of missed
/// events, a reclaim).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum CatchUp {
    /// The request is out.
    Asked,
    /// It failed for a reason that may pass (no registry reachable while the link is
    /// down): ask again on the next event or `resync`.
    Retry,
}

/// The connectionLost fault of a federate the federation resigned behind its back, or `None`
/// when it resigned itself.
fn resigned_behind_our_back(how: Departure) -> Option<&'static str> {
    match how {
        Departure::Resigned => None,
        Departure::Died => Some(
            "the federation resigned this federate as died (its link failed or no router \
             vouched for it within its lease)",
        ),
        Departure::SlowConsumer => Some(
            "the federation resigned this federate as a slow consumer: its router cut it for \
             taking nothing while its queue stayed full past the slow-consumer bound",
        ),
        Departure::ByManager => Some(
            "a federation manager resigned this federate (the MOM's \
             HLAservice.HLAresignFederationExecution)",
        ),
    }
}

impl Federate {
    /// The registry accepted the join: take its snapshot, then the events held meanwhile.
    pub fn apply_join(&mut self, federation: &str, snapshot: &Snapshot) {
        self.view.name = federation.to_owned();
        self.view.seq = Some(snapshot.seq);
        self.view.epoch = snapshot.epoch;
        self.view.federates = snapshot
            .federates
            .iter()
            .map(|(h, name, kind)| (*h, (name.clone(), kind.clone())))
            .collect();
        let repr =
            super::logical_time::TimeRepresentation::from_name(&snapshot.time_representation)
                .unwrap_or_default();
        self.time = TimeManager::new(repr, self.handle);
        self.time.join(&snapshot.regulating, &snapshot.constrained);
        for (label, tag) in &snapshot.sync_points {
            self.announce(label.clone(), tag.clone(), Vec::new(), snapshot.seq);
        }
        for (seq, event) in std::mem::take(&mut self.view.early) {
            self.on_sequenced(seq, event);
        }
    }

    /// The federation this federate joined ("" before the join).
    pub fn federation(&self) -> &str {
        &self.view.name
    }

    /// Handles and names of the joined federates, as of the last event.
    pub fn federates(&self) -> impl Iterator<Item = (u32, &str, &str)> + '_ {
        self.view
            .federates
            .iter()
            .map(|(h, (name, kind))| (*h, name.as_str(), kind.as_str()))
    }

    /// getFederateName.
    pub fn federate_name(&self, handle: u32) -> Result<&str, FederateError> {
        self.view
            .federates
            .get(&handle)
            .map(|(name, _)| name.as_str())
            .ok_or(FederateError::InvalidFederateHandle(handle))
    }

    /// getFederateHandle.
    pub fn federate_handle(&self, name: &str) -> Result<u32, FederateError> {
        self.view
            .federates
            .iter()
            .find(|(_, (n, _))| n == name)
            .map(|(h, _)| *h)
            .ok_or_else(|| FederateError::NameNotFound(name.to_owned()))
    }

    /// registerFederationSynchronizationPoint; `members` empty: the whole federation.
    /// The outcome comes as a callback once the registry answered.
    pub fn register_synchronization_point(&mut self, label: &str, tag: &[u8], members: &[u32]) {
        self.ask(Request::RegisterSync {
            federation: self.view.name.clone(),
            federate: self.handle,
            label: label.to_owned(),
            tag: Bytes::copy_from_slice(tag),
            members: members.to_vec(),
        });
    }

    /// synchronizationPointAchieved.
    pub fn synchronization_point_achieved(
        &mut self,
        label: &str,
        success: bool,
    ) -> Result<(), FederateError> {
        match self.view.announced.get_mut(label) {
            None => Err(FederateError::SynchronizationPointLabelNotAnnounced(
                label.to_owned(),
            )),
            Some(point) if point.achieved.is_some() => Err(
                FederateError::SynchronizationPointAlreadyAchieved(label.to_owned()),
            ),
            Some(point) => {
                point.achieved = Some(success);
                self.ask(Request::AchieveSync {
                    federation: self.view.name.clone(),
                    federate: self.handle,
                    label: label.to_owned(),
                    success,
                });
                Ok(())
            }
        }
    }

    /// Synchronization points announced to this federate and still pending.
    pub fn pending_synchronization_points(&self) -> impl Iterator<Item = &str> + '_ {
        self.view.announced.keys().map(String::as_str)
    }

    pub(super) fn ask(&mut self, request: Request) {
        self.actions.push_back(Action::Ask(request));
    }

    /// The node's link came back after it was down: events broadcast meanwhile may have
    /// been lost with nothing after them to show the gap, so ask the registry for whatever
    /// came after the last event applied.
    pub fn resync(&mut self) {
        if self.view.reclaim == Some(CatchUp::Retry) {
            self.reclaim();
        } else if self.view.seq.is_some()
            && self.view.catch_up != Some(CatchUp::Asked)
            && self.view.reclaim.is_none()
        {
            self.ask_missed_events();
        }
    }

    /// Whether the federate is waiting for the registry to replay events it missed.
    pub fn catching_up(&self) -> bool {
        self.view.catch_up.is_some()
    }

    fn ask_missed_events(&mut self) {
        let Some(after) = self.view.seq else { return };
        self.view.catch_up = Some(CatchUp::Asked);
        self.ask(Request::Events {
            federation: self.view.name.clone(),
            epoch: self.view.epoch,
            after,
        });
    }

    /// The registry answered the request for missed events.
    fn on_replay(&mut self, response: Response) {
        let after = self.view.seq.unwrap_or(0);
        match response {
            Response::Events(payloads) => {
                self.view.catch_up = None;
                let mut events: Vec<(u64, FederationEvent)> = payloads
                    .iter()
                    .filter_map(|p| match FederationEvent::decode(p) {
                        Ok(event) => Some(event),
                        Err(_) => {
                            self.stats.malformed += 1;
                            None
                        }
                    })
                    .collect();
                // The replay first, then what arrived meanwhile; `on_event` skips what is
                // applied already, and a gap still left starts another catch-up.
                events.extend(std::mem::take(&mut self.view.early));
                events.sort_by_key(|(seq, _)| *seq);
                for (seq, event) in events {
                    self.on_sequenced(seq, event);
                }
            }
            Response::EventsTooOld { replayable_after } => {
                self.view.catch_up = None;
                self.view.events_lost += 1;
                self.view.early.clear();
                self.callbacks.push_back(Callback::ConnectionLost {
                    fault: format!(
                        "missed federation events after {after} (a link on the way was down), \
                         and the registry's log keeps only those after {replayable_after}: \
                         this federate's view of the federation can no longer be made exact"
                    ),
                });
            }
            // Nothing reachable to ask (the node's link is down) or too busy: it may pass.
            Response::Error {
                kind: ErrorKind::NoRegistry | ErrorKind::LimitReached,
                ..
            } => self.view.catch_up = Some(CatchUp::Retry),
            // A restarted registry: the events cannot be replayed, the membership reclaimed.
            Response::Error { kind, .. } if not_known(kind) => {
                self.view.catch_up = None;
                self.view.early.clear();
                self.reclaim();
            }
            other => {
                self.view.catch_up = None;
                self.view.early.clear();
                let why = match other {
                    Response::Error { message, .. } => message,
                    other => format!("unexpected answer {other:?}"),
                };
                self.callbacks.push_back(Callback::ConnectionLost {
                    fault: format!(
                        "missed federation events after {after} and the registry would not \
                         replay them: {why}"
                    ),
                });
            }
        }
    }

    /// The registry answered a request this federate asked with `Action::Ask`.
    pub fn handle_reply(&mut self, request: &Request, response: Response) {
        match request {
            Request::Events { .. } => return self.on_replay(response),
            Request::Reclaim(_) => return self.on_reclaimed(response),
            // Its "federate unknown" is about the federate it names, not about this one:
            // no reclaim, a MOM exception.
            Request::ResignFederate { federate, .. } => {
                if let Response::Error { message, .. } = response {
                    self.stats.registry_refusals += 1;
                    let service = "HLAresignFederationExecution";
                    self.report_mom_exception(*federate, service, &message, false);
                }
                return;
            }
            // Answered whatever it says: a question the MOM asked for a tool.
            Request::SyncPoints { members, .. } => {
                return self.on_sync_points_reply(*members, response)
            }
            _ => {}
        }
        if let Response::Error { kind, .. } = &response {
            if not_known(*kind) && self.view.seq.is_some() {
                // The registry does not know us (it restarted): ask again once reclaimed.
                if self.view.deferred.len() < MAX_DEFERRED_ASKS {
                    self.view.deferred.push_back(request.clone());
                }
                return self.reclaim();
            }
        }
        if let Request::Save { .. } = request {
            return self.on_save_reply(response);
        }
        match (request, response) {
            (Request::RegisterSync { .. }, Response::SyncRegistered { label }) => self
                .callbacks
                .push_back(Callback::SynchronizationPointRegistrationSucceeded { label }),
            (Request::RegisterSync { .. }, Response::SyncRefused { label, reason }) => self
                .callbacks
                .push_back(Callback::SynchronizationPointRegistrationFailed { label, reason }),
            (_, Response::Error { .. }) => self.stats.registry_refusals += 1,
            _ => {}
        }
    }

    /// A registry event arrived (payload on the broadcast id).
    pub(super) fn on_registry_payload(&mut self, payload: &[u8]) {
        let Ok((epoch, seq, event)) = FederationEvent::decode_stamped(payload) else {
            self.stats.malformed += 1;
            return;
        };
        if epoch != self.view.epoch && self.view.seq.is_some() {
            return self.on_other_epoch(epoch, seq, event);
        }
        if self.view.catch_up == Some(CatchUp::Retry) {
            self.ask_missed_events();
        }
        self.on_sequenced(seq, event);
    }

    /// Apply an event in order, or hold it until what comes before it is known.
    pub(super) fn on_sequenced(&mut self, seq: u64, event: FederationEvent) {
        match self.view.seq {
            Some(_) if self.view.catch_up.is_none() => self.on_event(seq, event),
            _ if self.view.early.len() < MAX_EARLY_EVENTS => {
                self.view.early.push_back((seq, event))
            }
            // Before the join, past the limit: lost.
            None => self.view.events_lost += 1,
            // While catching up: dropped here, but still in the registry's log, so the gap
            // it leaves is asked for again once the replay is applied.
            Some(_) => {}
        }
    }

    fn on_event(&mut self, seq: u64, event: FederationEvent) {
        let Some(last) = self.view.seq else { return };
        if seq <= last {
            return; // already in the snapshot
        }
        if seq != last + 1 {
            // A link on the way was down while the registry spoke: this federate missed
            // membership, synchronization or time-switch changes, and acting on a view that
            // is no longer the federation's (time management above all) would be wrong.
            // Hold this one and ask the registry for what came before it.
            self.view.early.push_back((seq, event));
            self.ask_missed_events();
            return;
        }
        self.view.seq = Some(seq);
        match event {
            FederationEvent::FederateJoined {
                federate,
                name,
                kind,
            } => {
                self.view.federates.insert(federate, (name, kind));
            }
            FederationEvent::FederateLeft { federate, how } if federate == self.handle => {
                // Our own resignation (we asked) needs nothing; resigned behind our back
                // means our link was lost, no router vouched for us within the lease, or our
                // router cut us as a slow consumer: nothing we do from here counts.
                if let Some(fault) = resigned_behind_our_back(how) {
                    self.callbacks.push_back(Callback::ConnectionLost {
                        fault: fault.to_owned(),
                    });
                }
            }
            FederationEvent::FederateLeft { federate, how } => {
                self.view.federates.remove(&federate);
                self.mom_federate_left(federate);
                self.time.on_federate_left(federate, how.died());
                if self.departures.left(federate, how) {
                    self.federate_gone(federate);
                }
            }
            FederationEvent::SyncAnnounced {
                label,
                tag,
                members,
            } => {
                if members.is_empty() || members.contains(&self.handle) {
                    self.announce(label, tag, members, seq);
                }
            }
            FederationEvent::FederationSynchronized { label, failed } => {
                if self.view.announced.remove(&label).is_some() {
                    self.callbacks
                        .push_back(Callback::FederationSynchronized { label, failed });
                }
            }
            FederationEvent::Time { federate, switch } => {
                self.time.on_switch(seq, federate, switch)
            }
            FederationEvent::ModulesAdded {
                modules,
                fingerprint,
            } => self.on_modules_added(modules, fingerprint),
            FederationEvent::Save(event) => self.on_save_event(seq, event),
        }
        self.drain_time();
    }

    pub(super) fn announce(&mut self, label: String, tag: Bytes, members: Vec<u32>, seq: u64) {
        if self.view.announced.contains_key(&label) {
            return;
        }
        let point = Announced {
            tag: tag.clone(),
            members,
            seq,
            achieved: None,
        };
        self.view.announced.insert(label.clone(), point);
        self.callbacks
            .push_back(Callback::AnnounceSynchronizationPoint { label, tag });
    }

    /// Hand what time management produced to the node and the application.
    pub(super) fn drain_time(&mut self) {
        while let Some(output) = self.time.poll_output() {
            match output {
                TimeOutput::Send(message) => self.actions.push_back(Action::Publish {
                    ids: vec![super::time::TIME_ID],
                    class: crate::wire::TransportClass::Reliable,
                    payload: message.encode(),
                    latest: None,
                }),
                TimeOutput::Ask(switch) => self.ask(Request::Time {
                    federation: self.view.name.clone(),
                    federate: self.handle,
                    switch,
                }),
                TimeOutput::Deliver(callback) => {
                    if let Callback::TimeAdvanceGrant { time } = callback {
                        // Messages stamped at or before the granted time are no longer
                        // retractable.
                        self.retractable.expire(time);
                    }
                    self.note_delivered(&callback);
                    let granted = match &callback {
                        Callback::TimeAdvanceGrant { time } => Some(*time),
                        _ => None,
                    };
                    self.callbacks.push_back(callback);
                    if let Some(time) = granted {
                        self.granted_for_save(time);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod catch_up_tests {
    use super::super::{Action, Callback, Federate, DEFAULT_BINS};
    use crate::fom::ObjectModel;
    use crate::registry::{Registry, Request, Response, EVENT_LOG_EVENTS};
    use crate::wire::NodeId;
    use bytes::Bytes;
    use std::sync::Arc;

    const FOM: &str = include_str!("../../../../foms/trellis-demo.xml");

    /// A registry with federation "F" and federate "a" joined, and a's federate library.
    fn joined() -> (Registry, Federate) {
        let mut r = Registry::new();
        // One node joins more federates here than its default limit, to overflow the log.
        r.set_limits(crate::registry::RegistryLimits {
            federates_per_node: usize::MAX,
            ..Default::default()
        });
        let model = Arc::new(ObjectModel::from_sources(&[("demo.xml", FOM)]).unwrap());
        r.handle(
            NodeId(1),
            Request::Create {
                federation: "F".into(),
                fingerprint: 1,
                modules: vec![],
                time_representation: "HLAinteger64Time".into(),
            },
        );
        let Response::Joined { federate, snapshot } = join(&mut r, "a") else {
            panic!("join refused")
        };
        let mut fed = Federate::new(model, federate, DEFAULT_BINS).unwrap();
        fed.apply_join("F", &snapshot);
        broadcast(&mut r);
        (r, fed)
    }

    fn join(r: &mut Registry, name: &str) -> Response {
        r.handle(
            NodeId(2),
            Request::Join {
                federation: "F".into(),
                federate_name: name.into(),
                federate_type: "t".into(),
                fingerprint: 1,
                modules: vec![],
            },
        )
    }

    fn broadcast(r: &mut Registry) -> Vec<Bytes> {
        std::iter::from_fn(|| r.poll_event())
            .map(|(_, p)| p)
            .collect()
    }

    /// The replay request the federate asked for, if any.
    fn asked(fed: &mut Federate) -> Option<Request> {
        std::iter::from_fn(|| fed.poll_action()).find_map(|a| match a {
            Action::Ask(request @ Request::Events { .. }) => Some(request),
            _ => None,
        })
    }

    fn names(fed: &Federate) -> Vec<&str> {
        fed.federates().map(|(_, name, _)| name).collect()
    }

    fn lost(fed: &mut Federate) -> Vec<String> {
        std::iter::from_fn(|| fed.poll_callback())
            .filter_map(|c| match c {
                Callback::ConnectionLost { fault } => Some(fault),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_gap_is_filled_from_the_registry_and_every_event_applies_once_in_order() {
        let (mut r, mut fed) = joined();
        for name in ["b", "c"] {
            join(&mut r, name);
        }
        r.handle(
            NodeId(2),
            Request::Resign {
                federation: "F".into(),
                federate: 2,
            },
        );
        let missed = broadcast(&mut r);
        assert_eq!(missed.len(), 3);
        // Only the resignation arrives: the two joins were lost on the way.
        fed.on_registry_payload(&missed[2]);
        assert!(fed.catching_up());
        let request = asked(&mut fed).expect("the federate asks for what it missed");
        assert_eq!(
            request,
            Request::Events {
                federation: "F".into(),
                epoch: fed.registry_epoch(),
                after: 1
            }
        );
        // Meanwhile another event arrives; it waits for the replay.
        join(&mut r, "d");
        let later = broadcast(&mut r);
        fed.on_registry_payload(&later[0]);
        assert_eq!(names(&fed), ["a"], "nothing applied out of order");
        let replay = r.handle(NodeId(2), request);
        fed.handle_reply(
            &Request::Events {
                federation: "F".into(),
                epoch: fed.registry_epoch(),
                after: 1,
            },
            replay,
        );
        assert!(!fed.catching_up());
        assert_eq!(names(&fed), ["a", "c", "d"]);
        assert_eq!(fed.view.seq, Some(5));
        assert!(lost(&mut fed).is_empty());
        // The held event and the replayed ones arrive again late: nothing changes.
        for payload in missed.iter().chain(&later) {
            fed.on_registry_payload(payload);
        }
        assert_eq!(names(&fed), ["a", "c", "d"]);
        assert!(asked(&mut fed).is_none());
    }

    #[test]
    fn events_missed_at_the_tail_are_found_on_resync_and_a_failed_ask_is_retried() {
        let (mut r, mut fed) = joined();
        join(&mut r, "b");
        broadcast(&mut r); // lost while the node's link was down
        fed.resync();
        let request = asked(&mut fed).unwrap();
        // The link dropped again before the registry could answer.
        fed.handle_reply(
            &request,
            Response::Error {
                kind: crate::registry::ErrorKind::NoRegistry,
                message: "no federation registry is reachable".into(),
            },
        );
        assert!(fed.catching_up(), "still missing events");
        assert!(lost(&mut fed).is_empty(), "a passing failure is no loss");
        fed.resync();
        let request = asked(&mut fed).expect("asked again");
        let replay = r.handle(NodeId(2), request.clone());
        fed.handle_reply(&request, replay);
        assert_eq!(names(&fed), ["a", "b"]);
        assert!(!fed.catching_up());
        // Up to date: a resync asks and gets nothing new.
        fed.resync();
        let request = asked(&mut fed).unwrap();
        let replay = r.handle(NodeId(2), request.clone());
        assert_eq!(replay, Response::Events(Vec::new()));
        fed.handle_reply(&request, replay);
        assert!(!fed.catching_up());
    }

    #[test]
    fn events_the_registry_no_longer_keeps_are_a_lost_connection() {
        let (mut r, mut fed) = joined();
        for i in 0..EVENT_LOG_EVENTS + 5 {
            join(&mut r, &format!("f{i}"));
        }
        let missed = broadcast(&mut r);
        fed.on_registry_payload(missed.last().unwrap());
        let request = asked(&mut fed).unwrap();
        let replay = r.handle(NodeId(2), request.clone());
        assert!(
            matches!(replay, Response::EventsTooOld { .. }),
            "{replay:?}"
        );
        fed.handle_reply(&request, replay);
        let faults = lost(&mut fed);
        assert!(
            matches!(&faults[..], [f] if f.contains("missed federation events after 1")
                && f.contains("can no longer be made exact")),
            "{faults:?}"
        );
        assert!(!fed.catching_up());
    }
}
