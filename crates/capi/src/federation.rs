//! Federation management: connect, create, destroy, list, join, resign, synchronization
//! points (IEEE 1516.1-2010 §4).

use crate::ffi::{entry, optional_text, slice, text, texts, TrellisBytes};
use crate::session::Held;
use crate::status::*;
use crate::{rti, with_held, with_session, Shared, TrellisRti};
use std::collections::VecDeque;
use std::ffi::c_char;
use std::sync::{Arc, Mutex};
use trellis_core::federate::{ResignAction, TimeRepresentation};
use trellis_net::rti::{LocalSettings, Session};

/// Logical time representations (`trellis_time_representation`).
pub const TRELLIS_TIME_INTEGER64: i32 = 0;
pub const TRELLIS_TIME_FLOAT64: i32 = 1;

/// Connect: designator "tcp://HOST:PORT", "HOST:PORT" or OpenRTI's "rti://HOST[:PORT]"
/// (its port 14321 when none is given), or "tls://HOST:PORT" for TLS (the router's
/// certificate checked against the PEM CAs named by the environment variable
/// TRELLIS_TLS_CA or the option "tls_ca=FILE"; TRELLIS_TLS_CERT and TRELLIS_TLS_KEY, or
/// "tls_cert=FILE&tls_key=FILE", the certificate presented where the router asks for
/// mutual TLS), optionally followed by
/// "?driver=direct" (the default: the node runs inside service calls and evoke, lowest
/// latency) or "?driver=thread" (the node has a thread of its own: batches form, highest
/// throughput), and "&bundle_us=N" (direct only; 0 to 100000, default 50): an update
/// within N µs of the last write is held and written with the next bundle (64 KiB), at the
/// latest at the federate's next service call or evoke or 1 ms after it was held; 0 writes
/// each update at once. NULL or "" uses the environment variable TRELLIS_RTI_ADDRESS, else
/// "tcp://127.0.0.1:7000". Fails with
/// CONNECTION_FAILED when no router answers there. On success *out is a new ambassador,
/// released with trellis_free.
#[no_mangle]
pub extern "C" fn trellis_connect(
    designator: *const c_char,
    out: *mut *mut TrellisRti,
) -> TrellisStatus {
    entry(|| {
        let out = crate::ffi::out_ref(out, "out")?;
        crate::logging::init();
        // SAFETY: header contract.
        let designator = unsafe { optional_text(designator, "designator") }?;
        let session = Session::connect(LocalSettings::parse(designator)?)?;
        let shared = Arc::new(Shared::new(Held {
            session,
            stash: VecDeque::new(),
            stash_time: TimeRepresentation::Integer64,
        }));
        *out = Box::into_raw(Box::new(TrellisRti {
            shared,
            callback_thread: Mutex::new(None),
        }));
        Ok(())
    })
}

/// Disconnect; FEDERATE_IS_EXECUTION_MEMBER while joined. Stops the callback thread.
#[no_mangle]
pub extern "C" fn trellis_disconnect(handle: *mut TrellisRti) -> TrellisStatus {
    entry(|| {
        let rti = rti(handle)?;
        {
            let mut held = rti.shared.held();
            held.session.disconnect()?;
            held.stash.clear();
        }
        crate::callbacks::stop_thread(rti);
        Ok(())
    })
}

/// Release an ambassador (NULL allowed): a joined federate resigns with its automatic
/// resign directive first, and the callback thread stops.
#[no_mangle]
pub extern "C" fn trellis_free(handle: *mut TrellisRti) {
    if handle.is_null() {
        return;
    }
    let _ = entry(|| {
        let rti = rti(handle)?;
        crate::callbacks::stop_thread(rti);
        let mut held = rti.shared.held();
        held.session.close();
        held.stash.clear();
        Ok(())
    });
    // SAFETY: made by Box::into_raw in trellis_connect; the caller gives it up here.
    drop(unsafe { Box::from_raw(handle) });
}

/// createFederationExecution(WithMIM): FOM module paths (relative to the working directory)
/// or file:// URLs; mim NULL for the standard MIM, else the path of a MIM holding the
/// standard MIM's classes (DESIGNATOR_IS_HLA_STANDARD_MIM for "HLAstandardMIM");
/// time_implementation NULL, "", "HLAinteger64Time" or "HLAfloat64Time".
#[no_mangle]
pub extern "C" fn trellis_create_federation_execution(
    handle: *mut TrellisRti,
    federation: *const c_char,
    fom_modules: *const *const c_char,
    fom_module_count: usize,
    mim: *const c_char,
    time_implementation: *const c_char,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let (federation, designators, mim, time_name) = unsafe {
            (
                text(federation, "federation")?,
                texts(fom_modules, fom_module_count, "fom_modules")?,
                optional_text(mim, "mim")?,
                optional_text(time_implementation, "time_implementation")?,
            )
        };
        Ok(session.create_federation_execution(federation, &designators, mim, time_name)?)
    })
}

/// destroyFederationExecution.
#[no_mangle]
pub extern "C" fn trellis_destroy_federation_execution(
    handle: *mut TrellisRti,
    federation: *const c_char,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let federation = unsafe { text(federation, "federation") }?;
        Ok(session.destroy_federation_execution(federation)?)
    })
}

/// listFederationExecutions: the answer comes as the report_federation_executions callback.
#[no_mangle]
pub extern "C" fn trellis_list_federation_executions(handle: *mut TrellisRti) -> TrellisStatus {
    with_session(handle, |session| {
        session.list_federation_executions()?;
        Ok(())
    })
}

/// joinFederationExecution. federate_name NULL: the RTI names the federate. The
/// federation's modules (as its registry lists them) are loaded; modules given here are
/// additional ones (1516.1-2010 §4.9), which extend the federation's object model for every
/// member, or fail with INCONSISTENT_FDD when they would change it.
#[no_mangle]
pub extern "C" fn trellis_join_federation_execution(
    handle: *mut TrellisRti,
    federate_name: *const c_char,
    federate_type: *const c_char,
    federation: *const c_char,
    fom_modules: *const *const c_char,
    fom_module_count: usize,
    federate_out: *mut u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let (name, federate_type, federation, additional) = unsafe {
            (
                optional_text(federate_name, "federate_name")?,
                text(federate_type, "federate_type")?,
                text(federation, "federation")?,
                texts(fom_modules, fom_module_count, "fom_modules")?,
            )
        };
        let federate =
            session.join_federation_execution(name, federate_type, federation, &additional)?;
        crate::ffi::put(federate_out, u64::from(federate));
        Ok(())
    })
}

pub(crate) fn resign_action(value: i32) -> Result<ResignAction, Failure> {
    Ok(match value {
        0 => ResignAction::UnconditionallyDivestAttributes,
        1 => ResignAction::DeleteObjects,
        2 => ResignAction::CancelPendingOwnershipAcquisitions,
        3 => ResignAction::DeleteObjectsThenDivest,
        4 => ResignAction::CancelThenDeleteThenDivest,
        5 => ResignAction::NoAction,
        other => {
            return Err(Failure::new(
                TRELLIS_ERR_INVALID_RESIGN_ACTION,
                format!("resign action {other} is not one of the standard's six"),
            ))
        }
    })
}

/// resignFederationExecution. resign_action: 0 UNCONDITIONALLY_DIVEST_ATTRIBUTES,
/// 1 DELETE_OBJECTS, 2 CANCEL_PENDING_OWNERSHIP_ACQUISITIONS, 3 DELETE_OBJECTS_THEN_DIVEST,
/// 4 CANCEL_THEN_DELETE_THEN_DIVEST, 5 NO_ACTION.
#[no_mangle]
pub extern "C" fn trellis_resign_federation_execution(
    handle: *mut TrellisRti,
    resign_action_value: i32,
) -> TrellisStatus {
    with_held(handle, |held| {
        let action = resign_action(resign_action_value)?;
        held.session.resign_federation_execution(action)?;
        held.stash.clear();
        Ok(())
    })
}

/// registerFederationSynchronizationPoint; members NULL / count 0: the whole federation.
#[no_mangle]
pub extern "C" fn trellis_register_federation_synchronization_point(
    handle: *mut TrellisRti,
    label: *const c_char,
    tag: TrellisBytes,
    members: *const u64,
    member_count: usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let (label, tag, members) = unsafe {
            (
                text(label, "label")?,
                tag.as_slice("tag")?,
                slice(members, member_count, "members")?,
            )
        };
        let members: Vec<u32> = members.iter().map(|&m| m as u32).collect();
        Ok(session
            .joined()?
            .register_federation_synchronization_point(label, tag, &members)?)
    })
}

/// synchronizationPointAchieved.
#[no_mangle]
pub extern "C" fn trellis_synchronization_point_achieved(
    handle: *mut TrellisRti,
    label: *const c_char,
    successfully: bool,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let label = unsafe { text(label, "label") }?;
        Ok(session
            .joined()?
            .synchronization_point_achieved(label, successfully)?)
    })
}

/// The joined federation's logical time representation: TRELLIS_TIME_INTEGER64 or
/// TRELLIS_TIME_FLOAT64.
#[no_mangle]
pub extern "C" fn trellis_time_representation(
    handle: *mut TrellisRti,
    out: *mut i32,
) -> TrellisStatus {
    with_session(handle, |session| {
        session.joined()?;
        let value = match crate::session::time(session) {
            TimeRepresentation::Integer64 => TRELLIS_TIME_INTEGER64,
            TimeRepresentation::Float64 => TRELLIS_TIME_FLOAT64,
        };
        *crate::ffi::out_ref(out, "out")? = value;
        Ok(())
    })
}

/// getAutomaticResignDirective / setAutomaticResignDirective (values as resign).
#[no_mangle]
pub extern "C" fn trellis_set_automatic_resign_directive(
    handle: *mut TrellisRti,
    resign_action_value: i32,
) -> TrellisStatus {
    with_session(handle, |session| {
        let action = resign_action(resign_action_value)?;
        Ok(session.set_automatic_resign_directive(action)?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_automatic_resign_directive(
    handle: *mut TrellisRti,
    out: *mut i32,
) -> TrellisStatus {
    with_session(handle, |session| {
        *crate::ffi::out_ref(out, "out")? = match session.automatic_resign_directive()? {
            ResignAction::UnconditionallyDivestAttributes => 0,
            ResignAction::DeleteObjects => 1,
            ResignAction::CancelPendingOwnershipAcquisitions => 2,
            ResignAction::DeleteObjectsThenDivest => 3,
            ResignAction::CancelThenDeleteThenDivest => 4,
            ResignAction::NoAction => 5,
        };
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use trellis_core::fom::ObjectModel;

    fn module(body: &str) -> String {
        format!(
            r#"<?xml version="1.0"?>
<objectModel xmlns="http://standards.ieee.org/IEEE1516-2010">
  <modelIdentification><name>m</name></modelIdentification>
  {body}
</objectModel>"#
        )
    }

    fn status_of(sources: &[(&str, &str)]) -> TrellisStatus {
        match ObjectModel::from_sources(sources) {
            Ok(_) => panic!("loaded"),
            Err(errors) => fdd_status(errors.kind()),
        }
    }

    /// 1516.1-2010 §4.5: InconsistentFDD for modules that disagree, ErrorReadingFDD only for
    /// one that is not an object model at all.
    #[test]
    fn conflicting_modules_are_inconsistent_and_malformed_ones_unreadable() {
        let dimension = |bound: u32| {
            module(&format!(
                "<dimensions><dimension><name>Zone</name><upperBound>{bound}</upperBound></dimension></dimensions>"
            ))
        };
        let (a, b) = (dimension(10), dimension(20));
        assert_eq!(
            status_of(&[("a.xml", &a), ("b.xml", &b)]),
            TRELLIS_ERR_INCONSISTENT_FDD
        );
        let clash = |order: &str| {
            module(&format!(
                "<interactions><interactionClass><name>HLAinteractionRoot</name>\
                 <interactionClass><name>Fire</name><sharing>PublishSubscribe</sharing>\
                 <transportation>HLAreliable</transportation><order>{order}</order>\
                 </interactionClass></interactionClass></interactions>"
            ))
        };
        let (receive, timestamp) = (clash("Receive"), clash("TimeStamp"));
        assert_eq!(
            status_of(&[("r.xml", &receive), ("t.xml", &timestamp)]),
            TRELLIS_ERR_INCONSISTENT_FDD
        );
        assert_eq!(
            status_of(&[("bad.xml", "<objectModel><unclosed></objectModel>")]),
            TRELLIS_ERR_ERROR_READING_FDD
        );
    }

    #[test]
    fn an_unreadable_module_is_could_not_open() {
        let modules = ["/nonexistent/trellis/module.xml".to_owned()];
        let Err(error) = ObjectModel::load_federation(&modules, &|path| std::fs::read(path)) else {
            panic!("loaded");
        };
        let failure = Failure::from(trellis_net::rti::RtiError::from(error));
        assert_eq!(failure.status, TRELLIS_ERR_COULD_NOT_OPEN_FDD);
    }
}
