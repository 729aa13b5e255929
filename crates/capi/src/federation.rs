//! Federation management: connect, create, destroy, list, join, resign, synchronization
//! points (IEEE 1516.1-2010 §4).

use crate::ffi::{entry, optional_text, slice, text, texts, TrellisBytes};
use crate::session::{LocalCallback, Session};
use crate::status::*;
use crate::{rti, with_session, Shared, TrellisRti};
use std::ffi::c_char;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use trellis_core::federate::{ResignAction, TimeRepresentation};
use trellis_core::fom::{
    is_builtin_mim_designator, FddErrorKind, MimError, MimErrorKind, ObjectModel,
};

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
        let mut session = Session::new();
        let designator = crate::designator::parse(designator)?;
        session.connect(designator)?;
        let shared = Arc::new(Shared {
            session: Mutex::new(session),
            callbacks: Mutex::new(crate::TrellisCallbacks::none()),
            stop: AtomicBool::new(false),
        });
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
            let mut session = rti.shared.session();
            if !session.is_connected() {
                return Err(Failure::new(TRELLIS_ERR_NOT_CONNECTED, "not connected"));
            }
            if session.is_joined() {
                return Err(Failure::new(
                    TRELLIS_ERR_FEDERATE_IS_EXECUTION_MEMBER,
                    "resign before disconnecting",
                ));
            }
            session.disconnect();
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
        let mut session = rti.shared.session();
        if session.is_joined() {
            let action = session.automatic_resign;
            let _ = session.joined()?.resign_federation_execution(action);
        }
        session.disconnect();
        Ok(())
    });
    // SAFETY: made by Box::into_raw in trellis_connect; the caller gives it up here.
    drop(unsafe { Box::from_raw(handle) });
}

/// A module designator as a path: "file://" URLs and relative paths (against the working
/// directory) become absolute, so a joiner elsewhere on this host finds the same file.
fn module_path(designator: &str) -> PathBuf {
    let path = Path::new(designator.strip_prefix("file://").unwrap_or(designator));
    if path.is_absolute() {
        return path.to_owned();
    }
    std::env::current_dir()
        .map(|dir| dir.join(path))
        .unwrap_or_else(|_| path.to_owned())
}

/// Load a federation's model from its designators (`ObjectModel::federation_designators`):
/// CouldNotOpenFDD / ErrorReadingFDD / InconsistentFDD for the FOM modules (1516.1-2010
/// §4.5, §4.9), CouldNotOpenMIM / ErrorReadingMIM for a MIM of its own, each with file,
/// line and element.
fn load_model(designators: &[String]) -> Result<ObjectModel, Failure> {
    ObjectModel::load_federation(designators, &|path| std::fs::read(path))
        .map_err(|error| Failure::new(mim_status(&error), error.to_string()))
}

fn mim_status(error: &MimError) -> TrellisStatus {
    match error.kind() {
        MimErrorKind::CouldNotOpenMim => TRELLIS_ERR_COULD_NOT_OPEN_MIM,
        MimErrorKind::ErrorReadingMim => TRELLIS_ERR_ERROR_READING_MIM,
        MimErrorKind::Fdd(kind) => fdd_status(kind),
    }
}

fn fdd_status(kind: FddErrorKind) -> TrellisStatus {
    match kind {
        FddErrorKind::CouldNotOpen => TRELLIS_ERR_COULD_NOT_OPEN_FDD,
        FddErrorKind::ErrorReading => TRELLIS_ERR_ERROR_READING_FDD,
        FddErrorKind::Inconsistent => TRELLIS_ERR_INCONSISTENT_FDD,
    }
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
        let mim =
            match mim {
                Some(mim) if is_builtin_mim_designator(mim) => return Err(Failure::new(
                    TRELLIS_ERR_DESIGNATOR_IS_HLA_STANDARD_MIM,
                    "the MIM designator is HLAstandardMIM: use createFederationExecution, which \
                     loads the standard MIM (1516.1-2010 §4.5)",
                )),
                mim => mim.map(|m| module_path(m).display().to_string()),
            };
        let time = match time_name {
            None => TimeRepresentation::Integer64,
            Some(name) => TimeRepresentation::from_name(name).ok_or_else(|| {
                Failure::new(
                    TRELLIS_ERR_COULD_NOT_CREATE_LOGICAL_TIME_FACTORY,
                    format!("logical time implementation {name:?}: Trellis has HLAinteger64Time and HLAfloat64Time"),
                )
            })?,
        };
        let modules: Vec<String> = designators
            .iter()
            .map(|d| module_path(d).display().to_string())
            .collect();
        let designators = ObjectModel::federation_designators(mim.as_deref(), &modules);
        let model = load_model(&designators)?;
        session.manage(federation, |rti| {
            rti.create_federation_execution_with_modules(&model, time, designators)
        })
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
        session.manage(federation, |rti| rti.destroy_federation_execution())
    })
}

/// listFederationExecutions: the answer comes as the report_federation_executions callback.
#[no_mangle]
pub extern "C" fn trellis_list_federation_executions(handle: *mut TrellisRti) -> TrellisStatus {
    with_session(handle, |session| {
        let federation = session
            .joined()
            .map(|rti| rti.federation().to_owned())
            .unwrap_or_default();
        let list = session.manage(&federation, |rti| rti.list_federation_executions())?;
        session
            .local
            .push_back(LocalCallback::FederationExecutions(list));
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
        if session.is_joined() {
            return Err(Failure::new(
                TRELLIS_ERR_FEDERATE_ALREADY_EXECUTION_MEMBER,
                "this federate has already joined a federation execution",
            ));
        }
        let joining = joining_model(session, federation, &additional)?;
        let name = name.map(str::to_owned).unwrap_or_else(generated_name);
        let time = session.manage(federation, |rti| {
            let handle = rti.join_federation_execution_with_modules(
                &name,
                federate_type,
                joining.model,
                joining.modules,
            )?;
            crate::ffi::put(federate_out, u64::from(handle));
            Ok(rti.federate()?.time_representation())
        })?;
        session.time = time;
        session.set_joined(true);
        Ok(())
    })
}

/// The model a federate joins with, and the modules it claims (empty: the federation's).
struct Joining {
    model: Arc<ObjectModel>,
    modules: Vec<String>,
}

/// The federation's model, as its registry lists its modules, extended by `additional`
/// modules (1516.1-2010 §4.9): INCONSISTENT_FDD, naming them, when they would change what
/// the federation has rather than add to it.
fn joining_model(
    session: &mut Session,
    federation: &str,
    additional: &[&str],
) -> Result<Joining, Failure> {
    let base_modules = session.manage(federation, |rti| rti.federation_modules())?;
    let base = load_model(&base_modules)?;
    let mut modules = base_modules.clone();
    for module in additional {
        let path = module_path(module).display().to_string();
        if !modules.contains(&path) {
            modules.push(path);
        }
    }
    let extended = if modules.len() > base_modules.len() {
        Some(load_model(&modules)?)
    } else {
        None
    };
    let Some(extended) = extended.filter(|e| e.fingerprint() != base.fingerprint()) else {
        return Ok(Joining {
            model: Arc::new(base),
            modules: Vec::new(),
        });
    };
    extended.extension_of(&base).map_err(|why| {
        Failure::new(
            TRELLIS_ERR_INCONSISTENT_FDD,
            format!(
                "the additional FOM modules {} change federation {federation:?}'s object model \
                 ({}) instead of adding to it: {why}",
                modules[base_modules.len()..].join(", "),
                base_modules.join(", ")
            ),
        )
    })?;
    Ok(Joining {
        model: Arc::new(extended),
        modules,
    })
}

fn generated_name() -> String {
    static NAMES: AtomicU64 = AtomicU64::new(0);
    format!(
        "federate-{}-{}",
        std::process::id(),
        NAMES.fetch_add(1, Ordering::Relaxed)
    )
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
    with_session(handle, |session| {
        let action = resign_action(resign_action_value)?;
        session.joined()?.resign_federation_execution(action)?;
        session.set_joined(false);
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
        let value = match session.time {
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
        session.joined()?;
        session.automatic_resign = resign_action(resign_action_value)?;
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_automatic_resign_directive(
    handle: *mut TrellisRti,
    out: *mut i32,
) -> TrellisStatus {
    with_session(handle, |session| {
        session.joined()?;
        *crate::ffi::out_ref(out, "out")? = match session.automatic_resign {
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
        let Err(failure) = load_model(&["/nonexistent/trellis/module.xml".to_owned()]) else {
            panic!("loaded");
        };
        assert_eq!(failure.status, TRELLIS_ERR_COULD_NOT_OPEN_FDD);
    }
}
