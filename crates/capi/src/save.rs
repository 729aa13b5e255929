//! Federation save and restore (IEEE 1516.1-2010 §4.16–4.31) through the C ABI: the
//! services translate to `RtiAmbassador`'s, the callbacks to the table's functions. No
//! state here: the federate's RTI component keeps it (`trellis_core::federate::save`).

use crate::ffi::{c_string, text};
use crate::status::TrellisStatus;
use crate::table::TrellisCallbacks;
use crate::time::TrellisTime;
use crate::{with_session, TrellisRti};
use std::ffi::c_char;
use trellis_core::federate::{SaveCallback, TimeRepresentation};
use trellis_core::registry::{RestoreFailureReason, RestoreStatus, SaveFailureReason, SaveStatus};

// The standard's enumerations, in the order the C++ API declares them.
pub const TRELLIS_SAVE_FAILURE_RTI_UNABLE_TO_SAVE: i32 = 0;
pub const TRELLIS_SAVE_FAILURE_FEDERATE_REPORTED_FAILURE_DURING_SAVE: i32 = 1;
pub const TRELLIS_SAVE_FAILURE_FEDERATE_RESIGNED_DURING_SAVE: i32 = 2;
pub const TRELLIS_SAVE_FAILURE_RTI_DETECTED_FAILURE_DURING_SAVE: i32 = 3;
/// 4 is the C++ API's SAVE_TIME_CANNOT_BE_HONORED, which Trellis never reports (a timed
/// save begins at each federate when its time reaches the save's).
pub const TRELLIS_SAVE_FAILURE_SAVE_ABORTED: i32 = 5;
pub const TRELLIS_RESTORE_FAILURE_RTI_UNABLE_TO_RESTORE: i32 = 0;
pub const TRELLIS_RESTORE_FAILURE_FEDERATE_REPORTED_FAILURE_DURING_RESTORE: i32 = 1;
pub const TRELLIS_RESTORE_FAILURE_FEDERATE_RESIGNED_DURING_RESTORE: i32 = 2;
pub const TRELLIS_RESTORE_FAILURE_RTI_DETECTED_FAILURE_DURING_RESTORE: i32 = 3;
pub const TRELLIS_RESTORE_FAILURE_RESTORE_ABORTED: i32 = 4;
pub const TRELLIS_SAVE_STATUS_NO_SAVE_IN_PROGRESS: i32 = 0;
pub const TRELLIS_SAVE_STATUS_FEDERATE_INSTRUCTED_TO_SAVE: i32 = 1;
pub const TRELLIS_SAVE_STATUS_FEDERATE_SAVING: i32 = 2;
pub const TRELLIS_SAVE_STATUS_FEDERATE_WAITING_FOR_FEDERATION_TO_SAVE: i32 = 3;
pub const TRELLIS_RESTORE_STATUS_NO_RESTORE_IN_PROGRESS: i32 = 0;
pub const TRELLIS_RESTORE_STATUS_FEDERATE_RESTORE_REQUEST_PENDING: i32 = 1;
pub const TRELLIS_RESTORE_STATUS_FEDERATE_WAITING_FOR_RESTORE_TO_BEGIN: i32 = 2;
pub const TRELLIS_RESTORE_STATUS_FEDERATE_PREPARED_TO_RESTORE: i32 = 3;
pub const TRELLIS_RESTORE_STATUS_FEDERATE_RESTORING: i32 = 4;
pub const TRELLIS_RESTORE_STATUS_FEDERATE_WAITING_FOR_FEDERATION_TO_RESTORE: i32 = 5;

/// requestFederationSave; `time` NULL: a save without a time.
#[no_mangle]
pub extern "C" fn trellis_request_federation_save(
    handle: *mut TrellisRti,
    label: *const c_char,
    time: *const TrellisTime,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract (a NUL-terminated label; `time` NULL or valid).
        let (label, time) = unsafe { (text(label, "label")?, time.as_ref().copied()) };
        let time = match time {
            Some(t) => Some(t.to_logical(crate::session::time(session))?),
            None => None,
        };
        Ok(session.joined()?.request_federation_save(label, time)?)
    })
}

/// federateSaveBegun.
#[no_mangle]
pub extern "C" fn trellis_federate_save_begun(handle: *mut TrellisRti) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session.joined()?.federate_save_begun()?)
    })
}

/// federateSaveComplete (`success`) or federateSaveNotComplete.
#[no_mangle]
pub extern "C" fn trellis_federate_save_complete(
    handle: *mut TrellisRti,
    success: bool,
) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session.joined()?.federate_save_complete(success)?)
    })
}

/// abortFederationSave.
#[no_mangle]
pub extern "C" fn trellis_abort_federation_save(handle: *mut TrellisRti) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session.joined()?.abort_federation_save()?)
    })
}

/// queryFederationSaveStatus: answered by federation_save_status_response.
#[no_mangle]
pub extern "C" fn trellis_query_federation_save_status(handle: *mut TrellisRti) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session.joined()?.query_federation_save_status()?)
    })
}

/// requestFederationRestore: answered by request_federation_restore_succeeded or _failed.
#[no_mangle]
pub extern "C" fn trellis_request_federation_restore(
    handle: *mut TrellisRti,
    label: *const c_char,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let label = unsafe { text(label, "label") }?;
        Ok(session.joined()?.request_federation_restore(label)?)
    })
}

/// federateRestoreComplete (`success`) or federateRestoreNotComplete.
#[no_mangle]
pub extern "C" fn trellis_federate_restore_complete(
    handle: *mut TrellisRti,
    success: bool,
) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session.joined()?.federate_restore_complete(success)?)
    })
}

/// abortFederationRestore.
#[no_mangle]
pub extern "C" fn trellis_abort_federation_restore(handle: *mut TrellisRti) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session.joined()?.abort_federation_restore()?)
    })
}

/// queryFederationRestoreStatus: answered by federation_restore_status_response.
#[no_mangle]
pub extern "C" fn trellis_query_federation_restore_status(
    handle: *mut TrellisRti,
) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session.joined()?.query_federation_restore_status()?)
    })
}

fn save_failure(reason: SaveFailureReason) -> i32 {
    match reason {
        SaveFailureReason::RtiUnableToSave => TRELLIS_SAVE_FAILURE_RTI_UNABLE_TO_SAVE,
        SaveFailureReason::FederateReportedFailureDuringSave => {
            TRELLIS_SAVE_FAILURE_FEDERATE_REPORTED_FAILURE_DURING_SAVE
        }
        SaveFailureReason::FederateResignedDuringSave => {
            TRELLIS_SAVE_FAILURE_FEDERATE_RESIGNED_DURING_SAVE
        }
        SaveFailureReason::RtiDetectedFailureDuringSave => {
            TRELLIS_SAVE_FAILURE_RTI_DETECTED_FAILURE_DURING_SAVE
        }
        SaveFailureReason::SaveAborted => TRELLIS_SAVE_FAILURE_SAVE_ABORTED,
    }
}

fn restore_failure(reason: RestoreFailureReason) -> i32 {
    match reason {
        RestoreFailureReason::RtiUnableToRestore => TRELLIS_RESTORE_FAILURE_RTI_UNABLE_TO_RESTORE,
        RestoreFailureReason::FederateReportedFailureDuringRestore => {
            TRELLIS_RESTORE_FAILURE_FEDERATE_REPORTED_FAILURE_DURING_RESTORE
        }
        RestoreFailureReason::FederateResignedDuringRestore => {
            TRELLIS_RESTORE_FAILURE_FEDERATE_RESIGNED_DURING_RESTORE
        }
        RestoreFailureReason::RtiDetectedFailureDuringRestore => {
            TRELLIS_RESTORE_FAILURE_RTI_DETECTED_FAILURE_DURING_RESTORE
        }
        RestoreFailureReason::RestoreAborted => TRELLIS_RESTORE_FAILURE_RESTORE_ABORTED,
    }
}

fn save_status(status: SaveStatus) -> i32 {
    match status {
        SaveStatus::NoSaveInProgress => TRELLIS_SAVE_STATUS_NO_SAVE_IN_PROGRESS,
        SaveStatus::FederateInstructedToSave => TRELLIS_SAVE_STATUS_FEDERATE_INSTRUCTED_TO_SAVE,
        SaveStatus::FederateSaving => TRELLIS_SAVE_STATUS_FEDERATE_SAVING,
        SaveStatus::FederateWaitingForFederationToSave => {
            TRELLIS_SAVE_STATUS_FEDERATE_WAITING_FOR_FEDERATION_TO_SAVE
        }
    }
}

fn restore_status(status: RestoreStatus) -> i32 {
    use RestoreStatus as S;
    match status {
        S::NoRestoreInProgress => TRELLIS_RESTORE_STATUS_NO_RESTORE_IN_PROGRESS,
        S::FederateRestoreRequestPending => TRELLIS_RESTORE_STATUS_FEDERATE_RESTORE_REQUEST_PENDING,
        S::FederateWaitingForRestoreToBegin => {
            TRELLIS_RESTORE_STATUS_FEDERATE_WAITING_FOR_RESTORE_TO_BEGIN
        }
        S::FederatePreparedToRestore => TRELLIS_RESTORE_STATUS_FEDERATE_PREPARED_TO_RESTORE,
        S::FederateRestoring => TRELLIS_RESTORE_STATUS_FEDERATE_RESTORING,
        S::FederateWaitingForFederationToRestore => {
            TRELLIS_RESTORE_STATUS_FEDERATE_WAITING_FOR_FEDERATION_TO_RESTORE
        }
    }
}

type StatusCallback =
    Option<unsafe extern "C" fn(*mut std::ffi::c_void, *const u64, *const i32, usize)>;

fn statuses<T: Copy>(
    table: &TrellisCallbacks,
    f: StatusCallback,
    list: &[(u32, T)],
    code: fn(T) -> i32,
) {
    if let Some(f) = f {
        let federates: Vec<u64> = list.iter().map(|(h, _)| u64::from(*h)).collect();
        let codes: Vec<i32> = list.iter().map(|(_, s)| code(*s)).collect();
        // SAFETY: the caller's function; the lists live until it returns.
        unsafe { f(table.user, federates.as_ptr(), codes.as_ptr(), codes.len()) };
    }
}

fn bare(table: &TrellisCallbacks, f: Option<unsafe extern "C" fn(*mut std::ffi::c_void)>) {
    if let Some(f) = f {
        // SAFETY: the caller's function.
        unsafe { f(table.user) };
    }
}

fn with_label(
    table: &TrellisCallbacks,
    f: Option<unsafe extern "C" fn(*mut std::ffi::c_void, *const c_char)>,
    label: &str,
) {
    if let Some(f) = f {
        // SAFETY: the caller's function; the label lives until it returns.
        unsafe { f(table.user, c_string(label).as_ptr()) };
    }
}

fn with_code(
    table: &TrellisCallbacks,
    f: Option<unsafe extern "C" fn(*mut std::ffi::c_void, i32)>,
    code: i32,
) {
    if let Some(f) = f {
        // SAFETY: the caller's function.
        unsafe { f(table.user, code) };
    }
}

/// Hand a save or restore callback to the table.
pub(crate) fn deliver_save(
    table: &TrellisCallbacks,
    callback: SaveCallback,
    representation: TimeRepresentation,
) {
    match callback {
        SaveCallback::InitiateFederateSave { label, time } => {
            if let Some(f) = table.initiate_federate_save {
                let time = time.map(|t| TrellisTime::from_logical(t, representation));
                let time = time.as_ref().map_or(std::ptr::null(), |t| t as *const _);
                // SAFETY: the caller's function; the label and the time live until it returns.
                unsafe { f(table.user, c_string(&label).as_ptr(), time) };
            }
        }
        SaveCallback::FederationSaved => bare(table, table.federation_saved),
        SaveCallback::FederationNotSaved { reason } => {
            with_code(table, table.federation_not_saved, save_failure(reason))
        }
        SaveCallback::FederationSaveStatusResponse { statuses: list } => statuses(
            table,
            table.federation_save_status_response,
            &list,
            save_status,
        ),
        SaveCallback::RequestFederationRestoreSucceeded { label } => {
            with_label(table, table.request_federation_restore_succeeded, &label)
        }
        SaveCallback::RequestFederationRestoreFailed { label } => {
            with_label(table, table.request_federation_restore_failed, &label)
        }
        SaveCallback::FederationRestoreBegun => bare(table, table.federation_restore_begun),
        SaveCallback::InitiateFederateRestore {
            label,
            name,
            handle,
        } => {
            if let Some(f) = table.initiate_federate_restore {
                let (label, name) = (c_string(&label), c_string(&name));
                // SAFETY: the caller's function; the texts live until it returns.
                unsafe { f(table.user, label.as_ptr(), name.as_ptr(), u64::from(handle)) };
            }
        }
        SaveCallback::FederationRestored => bare(table, table.federation_restored),
        SaveCallback::FederationNotRestored { reason } => with_code(
            table,
            table.federation_not_restored,
            restore_failure(reason),
        ),
        SaveCallback::FederationRestoreStatusResponse { statuses: list } => statuses(
            table,
            table.federation_restore_status_response,
            &list,
            restore_status,
        ),
    }
}
