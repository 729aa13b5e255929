//! Federation save and restore as the registry orders them (IEEE 1516.1-2010 §4.16–4.31).
//!
//! The registry keeps only the coordination: which save or restore is in progress, each
//! joined federate's status in it, and, per saved label, the federation-level state it must
//! put back (who was joined, who regulated and was constrained, the pending
//! synchronization points). Each federate's local RTI component keeps its own part of the
//! saved state (`federate::save`), in memory, under the label.
//!
//! A save ends when every joined federate said complete: `FederationSaved`, or
//! `FederationNotSaved` with the standard's reason when one reported failure, one left
//! (resigned, or was resigned as died: `FederateResignedDuringSave`), or it was aborted. A
//! restore is refused unless the label was saved and the same federates (by handle) are
//! joined. A federate that leaves never hangs a save: its departure ends it. A registry that
//! restarts forgets saves in progress and saved labels; federates that reclaim their
//! membership end their own save or restore with `RtiDetectedFailureDuring…`.
//!
//! **Timed saves** (`requestFederationSave` with a time): the registry only orders the
//! request; each federate initiates its save when its own logical time reaches the time
//! (at once if it already has), the rule `federate::save` documents.

use super::codec::{get_handles, put_handles, put_str};
use super::sync::SyncPoint;
use crate::wire::reader::Reader;
use crate::wire::WireError;
use bytes::{BufMut, BytesMut};
use std::collections::{BTreeMap, BTreeSet};

/// Saved labels one federation keeps at most (the oldest goes first).
pub const MAX_SAVED_LABELS: usize = 64;

/// The standard's SaveFailureReason.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SaveFailureReason {
    /// RTI_UNABLE_TO_SAVE.
    RtiUnableToSave,
    /// FEDERATE_REPORTED_FAILURE_DURING_SAVE: a member called federateSaveNotComplete.
    FederateReportedFailureDuringSave,
    /// FEDERATE_RESIGNED_DURING_SAVE: a member resigned or died.
    FederateResignedDuringSave,
    /// RTI_DETECTED_FAILURE_DURING_SAVE: the registry restarted, or another RTI fault.
    RtiDetectedFailureDuringSave,
    /// SAVE_ABORTED: a member called abortFederationSave.
    SaveAborted,
}

/// The standard's RestoreFailureReason.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RestoreFailureReason {
    /// RTI_UNABLE_TO_RESTORE.
    RtiUnableToRestore,
    /// FEDERATE_REPORTED_FAILURE_DURING_RESTORE: a member called federateRestoreNotComplete.
    FederateReportedFailureDuringRestore,
    /// FEDERATE_RESIGNED_DURING_RESTORE: a member resigned or died.
    FederateResignedDuringRestore,
    /// RTI_DETECTED_FAILURE_DURING_RESTORE: the registry restarted, or another RTI fault.
    RtiDetectedFailureDuringRestore,
    /// RESTORE_ABORTED: a member called abortFederationRestore.
    RestoreAborted,
}

/// The standard's SaveStatus of one federate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SaveStatus {
    /// NO_SAVE_IN_PROGRESS.
    NoSaveInProgress,
    /// FEDERATE_INSTRUCTED_TO_SAVE: told to save, not yet begun.
    FederateInstructedToSave,
    /// FEDERATE_SAVING: begun, not yet complete.
    FederateSaving,
    /// FEDERATE_WAITING_FOR_FEDERATION_TO_SAVE: complete, waiting for the others.
    FederateWaitingForFederationToSave,
}

/// The standard's RestoreStatus of one federate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RestoreStatus {
    /// NO_RESTORE_IN_PROGRESS.
    NoRestoreInProgress,
    /// FEDERATE_RESTORE_REQUEST_PENDING (never used: the registry answers at once).
    FederateRestoreRequestPending,
    /// FEDERATE_WAITING_FOR_RESTORE_TO_BEGIN (never used).
    FederateWaitingForRestoreToBegin,
    /// FEDERATE_PREPARED_TO_RESTORE (never used).
    FederatePreparedToRestore,
    /// FEDERATE_RESTORING: told to restore, not yet complete.
    FederateRestoring,
    /// FEDERATE_WAITING_FOR_FEDERATION_TO_RESTORE: complete, waiting for the others.
    FederateWaitingForFederationToRestore,
}

/// What a federate asks of the registry about saving and restoring (`Request::Save`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SaveOp {
    /// requestFederationSave; `time`: the logical time's key, for a timed save.
    Request {
        /// The save's label.
        label: String,
        /// The logical time's key, for a timed save.
        time: Option<u64>,
    },
    /// federateSaveBegun.
    Begun,
    /// federateSaveComplete (`success`) or federateSaveNotComplete.
    Complete {
        /// Whether the federate saved its state.
        success: bool,
    },
    /// abortFederationSave.
    Abort,
    /// queryFederationSaveStatus.
    QueryStatus,
    /// requestFederationRestore.
    RequestRestore {
        /// The label to restore.
        label: String,
    },
    /// federateRestoreComplete (`success`) or federateRestoreNotComplete.
    RestoreComplete {
        /// Whether the federate restored its state.
        success: bool,
    },
    /// abortFederationRestore.
    AbortRestore,
    /// queryFederationRestoreStatus.
    QueryRestoreStatus,
}

/// What the registry tells every federate about saving and restoring.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SaveEvent {
    /// Save under `label` (at logical time `time`'s key, for a timed save).
    Initiated {
        /// The save's label.
        label: String,
        /// The logical time's key, for a timed save.
        time: Option<u64>,
    },
    /// federationSaved: every member completed.
    Saved,
    /// federationNotSaved.
    NotSaved {
        /// Why.
        reason: SaveFailureReason,
    },
    /// federationRestoreBegun and initiateFederateRestore: every member puts back its part
    /// saved under `label`.
    RestoreBegun {
        /// The label being restored.
        label: String,
    },
    /// federationRestored: every member completed.
    Restored,
    /// federationNotRestored.
    NotRestored {
        /// Why.
        reason: RestoreFailureReason,
    },
}

/// The federation-level state a successful save keeps for its restore.
#[derive(Clone)]
pub(super) struct SavedFederation {
    pub federates: BTreeSet<u32>,
    pub regulating: BTreeSet<u32>,
    pub constrained: BTreeSet<u32>,
    pub sync_points: BTreeMap<String, SyncPoint>,
}

/// A save or restore in progress.
pub(super) enum Progress {
    Saving {
        label: String,
        status: BTreeMap<u32, SaveStatus>,
        failed: bool,
    },
    Restoring {
        label: String,
        status: BTreeMap<u32, RestoreStatus>,
        failed: bool,
    },
}

macro_rules! byte_enum {
    ($ty:ident { $($variant:ident = $byte:literal),* $(,)? }) => {
        impl $ty {
            pub(crate) fn to_byte(self) -> u8 {
                match self { $($ty::$variant => $byte),* }
            }
            pub(crate) fn from_byte(byte: u8) -> Option<$ty> {
                match byte { $($byte => Some($ty::$variant),)* _ => None }
            }
        }
    };
}

byte_enum!(SaveFailureReason {
    RtiUnableToSave = 1,
    FederateReportedFailureDuringSave = 2,
    FederateResignedDuringSave = 3,
    RtiDetectedFailureDuringSave = 4,
    SaveAborted = 5,
});
byte_enum!(RestoreFailureReason {
    RtiUnableToRestore = 1,
    FederateReportedFailureDuringRestore = 2,
    FederateResignedDuringRestore = 3,
    RtiDetectedFailureDuringRestore = 4,
    RestoreAborted = 5,
});
byte_enum!(SaveStatus {
    NoSaveInProgress = 0,
    FederateInstructedToSave = 1,
    FederateSaving = 2,
    FederateWaitingForFederationToSave = 3,
});
byte_enum!(RestoreStatus {
    NoRestoreInProgress = 0,
    FederateRestoreRequestPending = 1,
    FederateWaitingForRestoreToBegin = 2,
    FederatePreparedToRestore = 3,
    FederateRestoring = 4,
    FederateWaitingForFederationToRestore = 5,
});

fn put_time(out: &mut BytesMut, time: Option<u64>) {
    out.put_u8(u8::from(time.is_some()));
    out.put_u64_le(time.unwrap_or(0));
}

fn get_time(r: &mut Reader<'_>) -> Result<Option<u64>, WireError> {
    let timed = r.u8("timed")?;
    let time = r.u64("save time")?;
    match timed {
        0 => Ok(None),
        1 => Ok(Some(time)),
        _ => Err(r.malformed("unknown timed flag")),
    }
}

fn get_byte<T>(
    r: &mut Reader<'_>,
    what: &'static str,
    f: fn(u8) -> Option<T>,
) -> Result<T, WireError> {
    let byte = r.u8(what)?;
    f(byte).ok_or_else(|| r.malformed(what))
}

impl SaveOp {
    pub(super) fn encode(&self, out: &mut BytesMut) {
        match self {
            SaveOp::Request { label, time } => {
                out.put_u8(1);
                put_str(out, label);
                put_time(out, *time);
            }
            SaveOp::Begun => out.put_u8(2),
            SaveOp::Complete { success } => {
                out.put_u8(3);
                out.put_u8(u8::from(*success));
            }
            SaveOp::Abort => out.put_u8(4),
            SaveOp::QueryStatus => out.put_u8(5),
            SaveOp::RequestRestore { label } => {
                out.put_u8(6);
                put_str(out, label);
            }
            SaveOp::RestoreComplete { success } => {
                out.put_u8(7);
                out.put_u8(u8::from(*success));
            }
            SaveOp::AbortRestore => out.put_u8(8),
            SaveOp::QueryRestoreStatus => out.put_u8(9),
        }
    }

    pub(super) fn decode(r: &mut Reader<'_>) -> Result<SaveOp, WireError> {
        Ok(match r.u8("save operation")? {
            1 => SaveOp::Request {
                label: r.long_str("label")?,
                time: get_time(r)?,
            },
            2 => SaveOp::Begun,
            3 => SaveOp::Complete {
                success: r.u8("success")? != 0,
            },
            4 => SaveOp::Abort,
            5 => SaveOp::QueryStatus,
            6 => SaveOp::RequestRestore {
                label: r.long_str("label")?,
            },
            7 => SaveOp::RestoreComplete {
                success: r.u8("success")? != 0,
            },
            8 => SaveOp::AbortRestore,
            9 => SaveOp::QueryRestoreStatus,
            _ => return Err(r.malformed("unknown save operation")),
        })
    }
}

impl SaveEvent {
    pub(super) fn encode(&self, out: &mut BytesMut) {
        match self {
            SaveEvent::Initiated { label, time } => {
                out.put_u8(1);
                put_str(out, label);
                put_time(out, *time);
            }
            SaveEvent::Saved => out.put_u8(2),
            SaveEvent::NotSaved { reason } => {
                out.put_u8(3);
                out.put_u8(reason.to_byte());
            }
            SaveEvent::RestoreBegun { label } => {
                out.put_u8(4);
                put_str(out, label);
            }
            SaveEvent::Restored => out.put_u8(5),
            SaveEvent::NotRestored { reason } => {
                out.put_u8(6);
                out.put_u8(reason.to_byte());
            }
        }
    }

    pub(super) fn decode(r: &mut Reader<'_>) -> Result<SaveEvent, WireError> {
        Ok(match r.u8("save event")? {
            1 => SaveEvent::Initiated {
                label: r.long_str("label")?,
                time: get_time(r)?,
            },
            2 => SaveEvent::Saved,
            3 => SaveEvent::NotSaved {
                reason: get_byte(r, "save failure reason", SaveFailureReason::from_byte)?,
            },
            4 => SaveEvent::RestoreBegun {
                label: r.long_str("label")?,
            },
            5 => SaveEvent::Restored,
            6 => SaveEvent::NotRestored {
                reason: get_byte(r, "restore failure reason", RestoreFailureReason::from_byte)?,
            },
            _ => return Err(r.malformed("unknown save event")),
        })
    }
}

/// Per-federate statuses on the wire: (handle, status byte).
pub(super) fn put_statuses(out: &mut BytesMut, statuses: &[(u32, u8)]) {
    let handles: Vec<u32> = statuses.iter().map(|(h, _)| *h).collect();
    put_handles(out, &handles);
    for (_, status) in statuses.iter().take(handles.len().min(u16::MAX as usize)) {
        out.put_u8(*status);
    }
}

pub(super) fn get_statuses<T>(
    r: &mut Reader<'_>,
    f: fn(u8) -> Option<T>,
) -> Result<Vec<(u32, T)>, WireError> {
    let handles = get_handles(r)?;
    handles
        .into_iter()
        .map(|h| Ok((h, get_byte(r, "status", f)?)))
        .collect()
}

use super::codec::{ErrorKind, Response};
use super::event::FederationEvent;
use super::{error, Registry};

impl Registry {
    /// A save or restore service of `federate` (`Request::Save`).
    pub(super) fn save_op(&mut self, federation: &str, federate: u32, op: SaveOp) -> Response {
        if let Err(response) = self.member(federation, federate) {
            return *response;
        }
        match op {
            SaveOp::Request { label, time } => self.request_save(federation, label, time),
            SaveOp::Begun => {
                self.save_status(federation, federate, SaveStatus::FederateSaving, true)
            }
            SaveOp::Complete { success } => self.save_status(
                federation,
                federate,
                SaveStatus::FederateWaitingForFederationToSave,
                success,
            ),
            SaveOp::Abort => self.abort_save(federation),
            SaveOp::QueryStatus => self.query_save(federation),
            SaveOp::RequestRestore { label } => self.request_restore(federation, label),
            SaveOp::RestoreComplete { success } => {
                self.restore_status(federation, federate, success)
            }
            SaveOp::AbortRestore => self.abort_restore(federation),
            SaveOp::QueryRestoreStatus => self.query_restore(federation),
        }
    }

    pub(super) fn busy(&self, federation: &str) -> Option<Response> {
        let progress = self.federations.get(federation)?.progress.as_ref()?;
        Some(match progress {
            Progress::Saving { label, .. } => error(
                ErrorKind::SaveInProgress,
                format!("federation execution {federation:?} is saving under {label:?}"),
            ),
            Progress::Restoring { label, .. } => error(
                ErrorKind::RestoreInProgress,
                format!("federation execution {federation:?} is restoring {label:?}"),
            ),
        })
    }

    fn request_save(&mut self, federation: &str, label: String, time: Option<u64>) -> Response {
        if let Some(refusal) = self.busy(federation) {
            return refusal;
        }
        let Some(record) = self.federations.get_mut(federation) else {
            return super::unknown(federation);
        };
        let status = (record.federates.keys())
            .map(|h| (*h, SaveStatus::FederateInstructedToSave))
            .collect();
        record.progress = Some(Progress::Saving {
            label: label.clone(),
            status,
            failed: false,
        });
        self.emit(
            federation,
            FederationEvent::Save(SaveEvent::Initiated { label, time }),
        );
        Response::Ack
    }

    /// federateSaveBegun (`to` FederateSaving) or federateSave(Not)Complete.
    fn save_status(
        &mut self,
        federation: &str,
        federate: u32,
        to: SaveStatus,
        ok: bool,
    ) -> Response {
        let Some(record) = self.federations.get_mut(federation) else {
            return super::unknown(federation);
        };
        let Some(Progress::Saving { status, failed, .. }) = record.progress.as_mut() else {
            return not_saving(federation);
        };
        status.insert(federate, to);
        *failed |= !ok;
        self.finish_save(federation);
        Response::Ack
    }

    /// Announce the save's outcome once every joined federate said complete.
    fn finish_save(&mut self, federation: &str) {
        let Some(record) = self.federations.get_mut(federation) else {
            return;
        };
        let Some(Progress::Saving {
            label,
            status,
            failed,
        }) = record.progress.as_ref()
        else {
            return;
        };
        let done = (record.federates.keys())
            .all(|h| status.get(h) == Some(&SaveStatus::FederateWaitingForFederationToSave));
        if !done {
            return;
        }
        let (label, failed) = (label.clone(), *failed);
        record.progress = None;
        let event = if failed {
            SaveEvent::NotSaved {
                reason: SaveFailureReason::FederateReportedFailureDuringSave,
            }
        } else {
            record.keep_saved(label);
            SaveEvent::Saved
        };
        self.emit(federation, FederationEvent::Save(event));
    }

    fn abort_save(&mut self, federation: &str) -> Response {
        match self
            .federations
            .get(federation)
            .and_then(|r| r.progress.as_ref())
        {
            Some(Progress::Saving { .. }) => {
                self.end_progress(federation);
                Response::Ack
            }
            _ => not_saving(federation),
        }
    }

    fn query_save(&self, federation: &str) -> Response {
        let Some(record) = self.federations.get(federation) else {
            return super::unknown(federation);
        };
        let status = match &record.progress {
            Some(Progress::Saving { status, .. }) => Some(status),
            _ => None,
        };
        let statuses = member_statuses(record, status, SaveStatus::NoSaveInProgress);
        Response::SaveStatus(statuses.collect())
    }

    fn request_restore(&mut self, federation: &str, label: String) -> Response {
        if let Some(refusal) = self.busy(federation) {
            return refusal;
        }
        let Some(record) = self.federations.get_mut(federation) else {
            return super::unknown(federation);
        };
        let joined = record.joined();
        let Some(saved) = (record.saved.iter())
            .find(|(l, _)| *l == label)
            .map(|(_, s)| s.clone())
        else {
            return Response::RestoreRequest {
                label,
                accepted: false,
            };
        };
        if saved.federates != joined {
            return Response::RestoreRequest {
                label,
                accepted: false,
            };
        }
        // The federation-level part of the saved state comes back now, in the registry's
        // order: the regulation epoch of every regulating federate is the event below.
        let epoch = record.seq + 1;
        record.regulating = saved.regulating.iter().map(|h| (*h, epoch)).collect();
        record.constrained = saved.constrained.clone();
        record.sync_points = saved.sync_points;
        record.progress = Some(Progress::Restoring {
            label: label.clone(),
            status: joined
                .iter()
                .map(|h| (*h, RestoreStatus::FederateRestoring))
                .collect(),
            failed: false,
        });
        let event = SaveEvent::RestoreBegun {
            label: label.clone(),
        };
        self.emit(federation, FederationEvent::Save(event));
        Response::RestoreRequest {
            label,
            accepted: true,
        }
    }

    fn restore_status(&mut self, federation: &str, federate: u32, ok: bool) -> Response {
        let Some(record) = self.federations.get_mut(federation) else {
            return super::unknown(federation);
        };
        let Some(Progress::Restoring { status, failed, .. }) = record.progress.as_mut() else {
            return not_restoring(federation);
        };
        status.insert(
            federate,
            RestoreStatus::FederateWaitingForFederationToRestore,
        );
        *failed |= !ok;
        let done = (record.federates.keys())
            .all(|h| status.get(h) == Some(&RestoreStatus::FederateWaitingForFederationToRestore));
        if done {
            let failed = *failed;
            record.progress = None;
            let event = if failed {
                SaveEvent::NotRestored {
                    reason: RestoreFailureReason::FederateReportedFailureDuringRestore,
                }
            } else {
                SaveEvent::Restored
            };
            self.emit(federation, FederationEvent::Save(event));
        }
        Response::Ack
    }

    fn abort_restore(&mut self, federation: &str) -> Response {
        match self
            .federations
            .get(federation)
            .and_then(|r| r.progress.as_ref())
        {
            Some(Progress::Restoring { .. }) => {
                self.end_progress(federation);
                Response::Ack
            }
            _ => not_restoring(federation),
        }
    }

    fn query_restore(&self, federation: &str) -> Response {
        let Some(record) = self.federations.get(federation) else {
            return super::unknown(federation);
        };
        let status = match &record.progress {
            Some(Progress::Restoring { status, .. }) => Some(status),
            _ => None,
        };
        let statuses = member_statuses(record, status, RestoreStatus::NoRestoreInProgress);
        Response::RestoreStatus(statuses.collect())
    }

    /// End the save or restore in progress as aborted.
    fn end_progress(&mut self, federation: &str) {
        let Some(progress) = self
            .federations
            .get_mut(federation)
            .and_then(|r| r.progress.take())
        else {
            return;
        };
        let event = match progress {
            Progress::Saving { .. } => SaveEvent::NotSaved {
                reason: SaveFailureReason::SaveAborted,
            },
            Progress::Restoring { .. } => SaveEvent::NotRestored {
                reason: RestoreFailureReason::RestoreAborted,
            },
        };
        self.emit(federation, FederationEvent::Save(event));
    }

    /// A federate left: a save or restore in progress fails with the standard's reason
    /// rather than waiting for it forever.
    pub(super) fn save_member_left(&mut self, federation: &str) {
        let Some(progress) = self
            .federations
            .get_mut(federation)
            .and_then(|r| r.progress.take())
        else {
            return;
        };
        let event = match progress {
            Progress::Saving { .. } => SaveEvent::NotSaved {
                reason: SaveFailureReason::FederateResignedDuringSave,
            },
            Progress::Restoring { .. } => SaveEvent::NotRestored {
                reason: RestoreFailureReason::FederateResignedDuringRestore,
            },
        };
        self.emit(federation, FederationEvent::Save(event));
    }
}

impl super::FederationRecord {
    /// The save under `label` succeeded: keep what the registry must put back at restore.
    fn keep_saved(&mut self, label: String) {
        let saved = SavedFederation {
            federates: self.joined(),
            regulating: self.regulating.keys().copied().collect(),
            constrained: self.constrained.clone(),
            sync_points: self.sync_points.clone(),
        };
        self.saved.retain(|(l, _)| *l != label);
        if self.saved.len() >= MAX_SAVED_LABELS {
            self.saved.pop_front();
        }
        self.saved.push_back((label, saved));
    }
}

fn not_saving(federation: &str) -> Response {
    error(
        ErrorKind::SaveNotInitiated,
        format!("federation execution {federation:?} has no save in progress"),
    )
}

fn not_restoring(federation: &str) -> Response {
    error(
        ErrorKind::RestoreNotRequested,
        format!("federation execution {federation:?} has no restore in progress"),
    )
}

/// Every member's status in the save or restore in progress (`status`), `idle` for a member
/// it does not list or when none is in progress: what the query services answer.
fn member_statuses<'a, S: Copy>(
    record: &'a super::FederationRecord,
    status: Option<&'a BTreeMap<u32, S>>,
    idle: S,
) -> impl Iterator<Item = (u32, S)> + 'a {
    (record.federates.keys())
        .map(move |h| (*h, status.and_then(|s| s.get(h)).copied().unwrap_or(idle)))
}
