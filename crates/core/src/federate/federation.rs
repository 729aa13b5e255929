//! The federation as this federate sees it: who is joined, which synchronization points
//! are pending, and the registry's ordered events that change both (and time management).
//!
//! Events arrive on the broadcast id in the registry's order. Those that arrive before the
//! join's snapshot are held (at most `MAX_EARLY_EVENTS`) and those the snapshot already
//! reflects are dropped, so every federate applies each event exactly once, in order.

use super::time::{TimeManager, TimeOutput};
use super::{Action, Callback, Federate, FederateError};
use crate::registry::{FederationEvent, Request, Response, Snapshot};
use bytes::Bytes;
use std::collections::{BTreeMap, VecDeque};

/// Most registry events held while the join's answer is on its way.
pub const MAX_EARLY_EVENTS: usize = 4096;

#[derive(Default)]
pub(super) struct FederationView {
    pub name: String,
    /// Sequence number of the last event applied; `None` before the join's snapshot.
    pub seq: Option<u64>,
    pub early: VecDeque<(u64, FederationEvent)>,
    pub federates: BTreeMap<u32, (String, String)>,
    /// Synchronization points announced to this federate and not yet synchronized, with
    /// whether it achieved them.
    pub announced: BTreeMap<String, bool>,
    /// Events that could not be applied (held past the limit, out of order, undecodable).
    pub events_lost: u64,
}

impl Federate {
    /// The registry accepted the join: take its snapshot, then the events held meanwhile.
    pub fn apply_join(&mut self, federation: &str, snapshot: &Snapshot) {
        self.view.name = federation.to_owned();
        self.view.seq = Some(snapshot.seq);
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
            self.announce(label.clone(), tag.clone());
        }
        for (seq, event) in std::mem::take(&mut self.view.early) {
            self.on_event(seq, event);
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
            Some(true) => Err(FederateError::SynchronizationPointAlreadyAchieved(
                label.to_owned(),
            )),
            Some(achieved) => {
                *achieved = true;
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

    /// The registry answered a request this federate asked with `Action::Ask`.
    pub fn handle_reply(&mut self, request: &Request, response: Response) {
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
        let Ok((seq, event)) = FederationEvent::decode(payload) else {
            self.stats.malformed += 1;
            return;
        };
        match self.view.seq {
            None if self.view.early.len() < MAX_EARLY_EVENTS => {
                self.view.early.push_back((seq, event))
            }
            None => self.view.events_lost += 1,
            Some(_) => self.on_event(seq, event),
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
            self.view.events_lost += seq - last - 1;
            self.callbacks.push_back(Callback::ConnectionLost {
                fault: format!(
                    "missed federation events {} to {} (a link on the way was down): this \
                     federate's view of the federation is no longer exact",
                    last + 1,
                    seq - 1
                ),
            });
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
            FederationEvent::FederateLeft { federate, died } if federate == self.handle => {
                // Our own resignation (we asked) needs nothing; resigned as died behind our
                // back means our link was lost or no router vouched for us within the lease:
                // nothing we do from here counts in the federation.
                if died {
                    self.callbacks.push_back(Callback::ConnectionLost {
                        fault: "the federation resigned this federate as died (its link failed \
                                or no router vouched for it within its lease)"
                            .to_owned(),
                    });
                }
            }
            FederationEvent::FederateLeft { federate, died } => {
                self.view.federates.remove(&federate);
                self.time.on_federate_left(federate, died);
                self.federate_gone(federate);
            }
            FederationEvent::SyncAnnounced {
                label,
                tag,
                members,
            } => {
                if members.is_empty() || members.contains(&self.handle) {
                    self.announce(label, tag);
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
        }
        self.drain_time();
    }

    fn announce(&mut self, label: String, tag: Bytes) {
        if self.view.announced.insert(label.clone(), false).is_none() {
            self.callbacks
                .push_back(Callback::AnnounceSynchronizationPoint { label, tag });
        }
    }

    /// Hand what time management produced to the node and the application.
    pub(super) fn drain_time(&mut self) {
        while let Some(output) = self.time.poll_output() {
            match output {
                TimeOutput::Send(message) => self.actions.push_back(Action::Publish {
                    ids: vec![super::time::TIME_ID],
                    class: crate::wire::TransportClass::Reliable,
                    payload: message.encode(),
                }),
                TimeOutput::Ask(switch) => self.ask(Request::Time {
                    federation: self.view.name.clone(),
                    federate: self.handle,
                    switch,
                }),
                TimeOutput::Deliver(callback) => self.callbacks.push_back(callback),
            }
        }
    }
}
