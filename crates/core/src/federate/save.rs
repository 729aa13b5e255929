//! Federation save and restore at the federate (IEEE 1516.1-2010 §4.16–4.31): the services,
//! their callbacks, and the local RTI component's own part of a save.
//!
//! The registry orders the save and tells every federate (`registry::save`). This federate
//! keeps, under the label, what its RTI component holds for it: the objects it knows and
//! which attributes it owns, its publications and subscriptions, regions, reserved names,
//! time state (logical time, lookahead, regulating and constrained, held time-stamped
//! messages) and the pending synchronization points. It keeps them **in memory**, keyed by
//! label (the federation is this federate's one), not on disk: a process that ends loses
//! them. The part is taken at federateSaveComplete and kept only when the federation saved.
//!
//! **Timed saves.** A save with a time is initiated at a time-constrained federate when its
//! own logical time reaches that time (right after the grant, at once if it already has);
//! at a federate that is not constrained, at once. The standard has the RTI wait for the
//! whole federation's grant; this rule needs no extra round and gives the same cut for a
//! time-stepped federation, whose federates all are granted the time before any goes on.
//!
//! While the federate is instructed to save (until federationSaved or federationNotSaved),
//! or restoring (from federationRestoreBegun to federationRestored or NotRestored), the
//! services the standard forbids raise SaveInProgress or RestoreInProgress
//! ([`Federate::check_not_saving`]); the RTI ambassador checks it before each.

use super::logical_time::LogicalTime;
use super::message::ObjectId;
use super::region::Region;
use super::{Callback, Federate, FederateError};
use crate::fom::{AttributeHandle, InteractionClassHandle, ObjectClassHandle};
use crate::registry::{Request, Response};
use crate::registry::{
    RestoreFailureReason, RestoreStatus, SaveEvent, SaveFailureReason, SaveOp, SaveStatus,
};
use roaring::RoaringBitmap;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// Labels whose parts one federate keeps at most (the oldest goes first).
pub const MAX_SAVED_PARTS: usize = 64;

/// The callbacks of save and restore, by the standard's names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SaveCallback {
    /// initiateFederateSave†: save this federate's state under `label` now.
    InitiateFederateSave {
        /// The save's label.
        label: String,
        /// The time of a timed save (this federate's grant has reached it); `None` for an untimed one.
        time: Option<LogicalTime>,
    },
    /// federationSaved†: every member completed its save.
    FederationSaved,
    /// federationNotSaved†: the save failed or was aborted.
    FederationNotSaved {
        /// Why, as the standard's SaveFailureReason.
        reason: SaveFailureReason,
    },
    /// federationSaveStatusResponse†: the answer to queryFederationSaveStatus.
    FederationSaveStatusResponse {
        /// Each member's handle and SaveStatus.
        statuses: Vec<(u32, SaveStatus)>,
    },
    /// requestFederationRestoreSucceeded†: the registry holds the label for every member.
    RequestFederationRestoreSucceeded {
        /// The label asked for.
        label: String,
    },
    /// requestFederationRestoreFailed†: no complete save under the label for these members.
    RequestFederationRestoreFailed {
        /// The label asked for.
        label: String,
    },
    /// federationRestoreBegun†: services the standard forbids during a restore now fail.
    FederationRestoreBegun,
    /// initiateFederateRestore†: this federate's part saved under `label` is back; restore the application's own.
    InitiateFederateRestore {
        /// The save's label.
        label: String,
        /// The federate's name at the save.
        name: String,
        /// The federate's handle at the save (unchanged: handles survive a restore).
        handle: u32,
    },
    /// federationRestored†: every member completed its restore.
    FederationRestored,
    /// federationNotRestored†: the restore failed or was aborted.
    FederationNotRestored {
        /// Why, as the standard's RestoreFailureReason.
        reason: RestoreFailureReason,
    },
    /// federationRestoreStatusResponse†: the answer to queryFederationRestoreStatus.
    FederationRestoreStatusResponse {
        /// Each member's handle and RestoreStatus.
        statuses: Vec<(u32, RestoreStatus)>,
    },
}

/// Where this federate stands in a save or restore.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
enum Phase {
    #[default]
    Idle,
    /// A timed save was ordered; it begins here when logical time reaches `time`.
    Scheduled { label: String, time: LogicalTime },
    /// initiateFederateSave was delivered.
    Instructed { label: String },
    /// federateSaveBegun.
    Saving { label: String },
    /// federateSaveComplete or NotComplete: waiting for the federation.
    Waiting { label: String },
    /// federationRestoreBegun: restoring, then waiting for the federation.
    Restoring { label: String, completed: bool },
}

/// The save and restore state of one federate.
#[derive(Default)]
pub(super) struct Saves {
    phase: Phase,
    /// The part taken at federateSaveComplete, kept once the federation saved.
    taken: Option<(String, Box<SavedPart>)>,
    /// Parts of successful saves by label, oldest first.
    parts: Vec<(String, Box<SavedPart>)>,
}

/// What the local RTI component keeps of one save.
pub(super) struct SavedPart {
    published_objects: BTreeMap<ObjectClassHandle, BTreeSet<AttributeHandle>>,
    published_interactions: BTreeSet<InteractionClassHandle>,
    object_subscriptions: BTreeMap<ObjectClassHandle, (BTreeSet<AttributeHandle>, Vec<Region>)>,
    interaction_subscriptions: BTreeMap<InteractionClassHandle, Vec<Region>>,
    passive: super::declaration::Passive,
    interest: RoaringBitmap,
    instances: super::instance_table::InstanceTable<super::ownership::Instance>,
    known_classes: super::id_slots::IdSlots,
    counts: super::ownership::Counts,
    reserved_names: BTreeSet<String>,
    used_names: BTreeSet<Arc<str>>,
    named_instances: HashMap<Arc<str>, ObjectId>,
    next_local: u32,
    regions: super::regions::RegionTable,
    keep_latest: BTreeMap<(ObjectClassHandle, AttributeHandle), bool>,
    announced: BTreeMap<String, (bytes::Bytes, Vec<u32>, Option<bool>)>,
    time: super::time::TimeSave,
}

impl Federate {
    /// SaveInProgress or RestoreInProgress when the standard forbids services now (from
    /// initiateFederateSave to the save's end, and during a restore).
    pub fn check_not_saving(&self) -> Result<(), FederateError> {
        match &self.saves.phase {
            Phase::Idle | Phase::Scheduled { .. } => Ok(()),
            Phase::Instructed { label } | Phase::Saving { label } | Phase::Waiting { label } => {
                Err(FederateError::SaveInProgress(label.clone()))
            }
            Phase::Restoring { label, .. } => Err(FederateError::RestoreInProgress(label.clone())),
        }
    }

    /// requestFederationSave; `time`: save when logical time reaches it (module notes).
    pub fn request_federation_save(
        &mut self,
        label: &str,
        time: Option<LogicalTime>,
    ) -> Result<(), FederateError> {
        self.check_not_saving()?;
        if let Some(time) = time {
            if time < self.time.logical_time() {
                let shown = self.time.representation().display(time).to_string();
                return Err(super::TimeError::LogicalTimeAlreadyPassed(shown).into());
            }
        }
        let op = SaveOp::Request {
            label: label.to_owned(),
            time: time.map(LogicalTime::key),
        };
        self.ask_save(op);
        Ok(())
    }

    /// federateSaveBegun.
    pub fn federate_save_begun(&mut self) -> Result<(), FederateError> {
        let Phase::Instructed { label } = &self.saves.phase else {
            return Err(FederateError::SaveNotInitiated);
        };
        self.saves.phase = Phase::Saving {
            label: label.clone(),
        };
        self.ask_save(SaveOp::Begun);
        Ok(())
    }

    /// federateSaveComplete (`success`) or federateSaveNotComplete. On success the local
    /// RTI component takes its part now, to keep it once the federation saved.
    pub fn federate_save_complete(&mut self, success: bool) -> Result<(), FederateError> {
        let label = match &self.saves.phase {
            Phase::Saving { label } => label.clone(),
            Phase::Instructed { .. } => return Err(FederateError::FederateHasNotBegunSave),
            _ => return Err(FederateError::SaveNotInitiated),
        };
        self.saves.taken = success.then(|| (label.clone(), Box::new(self.take_part())));
        self.saves.phase = Phase::Waiting { label };
        self.ask_save(SaveOp::Complete { success });
        Ok(())
    }

    /// abortFederationSave.
    pub fn abort_federation_save(&mut self) -> Result<(), FederateError> {
        match self.saves.phase {
            Phase::Instructed { .. } | Phase::Saving { .. } | Phase::Waiting { .. } => {}
            Phase::Scheduled { .. } => {}
            _ => return Err(FederateError::SaveNotInitiated),
        }
        self.ask_save(SaveOp::Abort);
        Ok(())
    }

    /// queryFederationSaveStatus: answered by federationSaveStatusResponse.
    pub fn query_federation_save_status(&mut self) {
        self.ask_save(SaveOp::QueryStatus);
    }

    /// requestFederationRestore: answered by requestFederationRestoreSucceeded or Failed.
    pub fn request_federation_restore(&mut self, label: &str) -> Result<(), FederateError> {
        self.check_not_saving()?;
        self.ask_save(SaveOp::RequestRestore {
            label: label.to_owned(),
        });
        Ok(())
    }

    /// federateRestoreComplete (`success`) or federateRestoreNotComplete.
    pub fn federate_restore_complete(&mut self, success: bool) -> Result<(), FederateError> {
        match &mut self.saves.phase {
            Phase::Restoring { completed, .. } if !*completed => *completed = true,
            _ => return Err(FederateError::RestoreNotRequested),
        }
        self.ask_save(SaveOp::RestoreComplete { success });
        Ok(())
    }

    /// abortFederationRestore.
    pub fn abort_federation_restore(&mut self) -> Result<(), FederateError> {
        if !matches!(self.saves.phase, Phase::Restoring { .. }) {
            return Err(FederateError::RestoreNotRequested);
        }
        self.ask_save(SaveOp::AbortRestore);
        Ok(())
    }

    /// queryFederationRestoreStatus: answered by federationRestoreStatusResponse.
    pub fn query_federation_restore_status(&mut self) {
        self.ask_save(SaveOp::QueryRestoreStatus);
    }

    /// Labels whose parts this federate keeps, oldest first.
    pub fn saved_labels(&self) -> impl Iterator<Item = &str> + '_ {
        self.saves.parts.iter().map(|(label, _)| label.as_str())
    }

    /// The timed save ordered and not begun yet: its label and time (the MOM's
    /// HLAnextSaveName and HLAnextSaveTime).
    pub(super) fn scheduled_save(&self) -> Option<(&str, LogicalTime)> {
        match &self.saves.phase {
            Phase::Scheduled { label, time } => Some((label, *time)),
            _ => None,
        }
    }

    fn ask_save(&mut self, op: SaveOp) {
        self.ask(Request::Save {
            federation: self.view.name.clone(),
            federate: self.handle,
            op,
        });
    }

    fn save_callback(&mut self, callback: SaveCallback) {
        self.callbacks.push_back(Callback::Save(callback));
    }

    /// The registry answered a save or restore request.
    pub(super) fn on_save_reply(&mut self, response: Response) {
        match response {
            Response::SaveStatus(statuses) => {
                self.save_callback(SaveCallback::FederationSaveStatusResponse { statuses })
            }
            Response::RestoreStatus(statuses) => {
                self.save_callback(SaveCallback::FederationRestoreStatusResponse { statuses })
            }
            Response::RestoreRequest { label, accepted } => self.save_callback(if accepted {
                SaveCallback::RequestFederationRestoreSucceeded { label }
            } else {
                SaveCallback::RequestFederationRestoreFailed { label }
            }),
            Response::Error { .. } => self.stats.registry_refusals += 1,
            _ => {}
        }
    }

    /// A save or restore event of the registry, in order; `seq` is its number.
    pub(super) fn on_save_event(&mut self, seq: u64, event: SaveEvent) {
        match event {
            SaveEvent::Initiated { label, time } => {
                let time = time.map(LogicalTime::from_key);
                match time {
                    Some(time) if self.time.is_constrained() && self.time.logical_time() < time => {
                        self.saves.phase = Phase::Scheduled { label, time }
                    }
                    _ => self.initiate_save(label, time),
                }
            }
            SaveEvent::Saved => {
                if let Some((label, part)) = self.saves.taken.take() {
                    self.keep_part(label, part);
                }
                self.saves.phase = Phase::Idle;
                self.save_callback(SaveCallback::FederationSaved);
            }
            SaveEvent::NotSaved { reason } => self.end_save(reason),
            SaveEvent::RestoreBegun { label } => self.begin_restore(seq, label),
            SaveEvent::Restored => {
                self.saves.phase = Phase::Idle;
                self.save_callback(SaveCallback::FederationRestored);
            }
            SaveEvent::NotRestored { reason } => self.end_restore(reason),
        }
    }

    fn initiate_save(&mut self, label: String, time: Option<LogicalTime>) {
        self.saves.phase = Phase::Instructed {
            label: label.clone(),
        };
        self.save_callback(SaveCallback::InitiateFederateSave { label, time });
    }

    /// A grant was delivered: a scheduled timed save begins once it reaches the time.
    pub(super) fn granted_for_save(&mut self, granted: LogicalTime) {
        if let Phase::Scheduled { label, time } = &self.saves.phase {
            if granted >= *time {
                let (label, time) = (label.clone(), *time);
                self.initiate_save(label, Some(time));
            }
        }
    }

    fn end_save(&mut self, reason: SaveFailureReason) {
        self.saves.taken = None;
        self.saves.phase = Phase::Idle;
        self.save_callback(SaveCallback::FederationNotSaved { reason });
    }

    fn end_restore(&mut self, reason: RestoreFailureReason) {
        self.saves.phase = Phase::Idle;
        self.save_callback(SaveCallback::FederationNotRestored { reason });
    }

    /// The registry restarted (this federate reclaimed its membership): it forgot the save
    /// or restore in progress, which therefore failed rather than waiting forever.
    pub(super) fn save_registry_restarted(&mut self) {
        match self.saves.phase {
            Phase::Idle => {}
            Phase::Restoring { .. } => {
                self.end_restore(RestoreFailureReason::RtiDetectedFailureDuringRestore)
            }
            _ => self.end_save(SaveFailureReason::RtiDetectedFailureDuringSave),
        }
    }

    /// federationRestoreBegun: put this federate's part back, then initiateFederateRestore.
    fn begin_restore(&mut self, seq: u64, label: String) {
        self.saves.phase = Phase::Restoring {
            label: label.clone(),
            completed: false,
        };
        self.save_callback(SaveCallback::FederationRestoreBegun);
        let Some(index) = self.saves.parts.iter().position(|(l, _)| *l == label) else {
            // The registry knows the label but this component lost its part: it cannot
            // restore, and says so at once.
            if let Phase::Restoring { completed, .. } = &mut self.saves.phase {
                *completed = true;
            }
            self.ask_save(SaveOp::RestoreComplete { success: false });
            return;
        };
        // Kept under its label: the federation may restore it again later.
        let (kept_label, part) = self.saves.parts.remove(index);
        self.put_back(&part, seq);
        self.saves.parts.insert(index, (kept_label, part));
        let name = self
            .view
            .federates
            .get(&self.handle)
            .map(|(n, _)| n.clone());
        self.save_callback(SaveCallback::InitiateFederateRestore {
            label,
            name: name.unwrap_or_default(),
            handle: self.handle,
        });
    }

    fn keep_part(&mut self, label: String, part: Box<SavedPart>) {
        self.saves.parts.retain(|(l, _)| *l != label);
        if self.saves.parts.len() >= MAX_SAVED_PARTS {
            self.saves.parts.remove(0);
        }
        self.saves.parts.push((label, part));
    }
}

impl Federate {
    /// This federate's part of the federation's state, as it is now.
    fn take_part(&self) -> SavedPart {
        SavedPart {
            published_objects: self.published_objects.clone(),
            published_interactions: self.published_interactions.clone(),
            object_subscriptions: (self.object_subscriptions.iter())
                .map(|(c, s)| (*c, (s.attributes.clone(), s.regions.clone())))
                .collect(),
            interaction_subscriptions: self.interaction_subscriptions.clone(),
            passive: self.passive.clone(),
            interest: self.interest.clone(),
            instances: self.instances.clone(),
            known_classes: self.known_classes.clone(),
            counts: self.counts.clone(),
            reserved_names: self.reserved_names.clone(),
            used_names: self.used_names.clone(),
            named_instances: self.named_instances.clone(),
            next_local: self.next_local,
            regions: self.regions.clone(),
            keep_latest: self.keep_latest.clone(),
            announced: (self.view.announced.iter())
                .map(|(l, a)| (l.clone(), (a.tag.clone(), a.members.clone(), a.achieved)))
                .collect(),
            time: self.time.save(),
        }
    }

    /// Put `part` back; `seq` is the registry event that began the restore.
    fn put_back(&mut self, part: &SavedPart, seq: u64) {
        self.published_objects = part.published_objects.clone();
        self.published_interactions = part.published_interactions.clone();
        self.object_subscriptions = (part.object_subscriptions.iter())
            .map(|(c, (attributes, regions))| {
                let subscription = super::ObjectSubscription {
                    attributes: attributes.clone(),
                    regions: regions.clone(),
                };
                (*c, subscription)
            })
            .collect();
        self.interaction_subscriptions = part.interaction_subscriptions.clone();
        self.passive = part.passive.clone();
        self.instances = part.instances.clone();
        self.known_classes = part.known_classes.clone();
        self.counts = part.counts.clone();
        self.reserved_names = part.reserved_names.clone();
        self.used_names = part.used_names.clone();
        self.named_instances = part.named_instances.clone();
        self.next_local = part.next_local;
        self.regions = part.regions.clone();
        self.keep_latest = part.keep_latest.clone();
        // Values reflected after the save are not the restored instances' any more.
        self.reflected.clear();
        self.view.announced = (part.announced.iter())
            .map(|(label, (tag, members, achieved))| {
                let point = super::federation::Announced {
                    tag: tag.clone(),
                    members: members.clone(),
                    seq,
                    achieved: *achieved,
                };
                (label.clone(), point)
            })
            .collect();
        self.time.restore(&part.time, seq);
        self.drain_time();
        // The routers learn the restored interest as they learn any change of it.
        self.interest = part.interest.clone();
        self.actions
            .push_back(super::Action::SetInterest(self.interest.clone()));
    }
}

impl Federate {
    /// Subscribed object classes with their subscribed attributes: a view to compare the
    /// declarations before a save and after its restore.
    pub fn subscribed_object_classes(&self) -> Vec<(ObjectClassHandle, Vec<AttributeHandle>)> {
        (self.object_subscriptions.iter())
            .map(|(c, s)| (*c, s.attributes.iter().copied().collect()))
            .collect()
    }

    /// Subscribed interaction classes.
    pub fn subscribed_interaction_classes(&self) -> Vec<InteractionClassHandle> {
        self.interaction_subscriptions.keys().copied().collect()
    }
}

#[cfg(test)]
mod tests;

impl SaveCallback {
    /// The standard's name of this callback, as the MOM reports it.
    pub fn service_name(&self) -> &'static str {
        match self {
            SaveCallback::InitiateFederateSave { .. } => "initiateFederateSave",
            SaveCallback::FederationSaved => "federationSaved",
            SaveCallback::FederationNotSaved { .. } => "federationNotSaved",
            SaveCallback::FederationSaveStatusResponse { .. } => "federationSaveStatusResponse",
            SaveCallback::RequestFederationRestoreSucceeded { .. } => {
                "requestFederationRestoreSucceeded"
            }
            SaveCallback::RequestFederationRestoreFailed { .. } => "requestFederationRestoreFailed",
            SaveCallback::FederationRestoreBegun => "federationRestoreBegun",
            SaveCallback::InitiateFederateRestore { .. } => "initiateFederateRestore",
            SaveCallback::FederationRestored => "federationRestored",
            SaveCallback::FederationNotRestored { .. } => "federationNotRestored",
            SaveCallback::FederationRestoreStatusResponse { .. } => {
                "federationRestoreStatusResponse"
            }
        }
    }
}
