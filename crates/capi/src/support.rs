//! Support services (IEEE 1516.1-2010 §10): names and handles, update rates, order and
//! transportation names, advisory switches.

use crate::ffi::{give_string, out_ref, text};
use crate::ffi::{
    TRELLIS_ORDER_RECEIVE, TRELLIS_ORDER_TIMESTAMP, TRELLIS_TRANSPORT_BEST_EFFORT,
    TRELLIS_TRANSPORT_RELIABLE,
};
use crate::status::*;
use crate::{with_session, TrellisRti};
use std::ffi::c_char;
use std::sync::Arc;
use trellis_core::federate::ObjectId;
use trellis_core::fom::ObjectModel;
use trellis_net::rti::Session;

fn name_not_found(kind: &str, name: &str) -> Failure {
    Failure::new(
        TRELLIS_ERR_NAME_NOT_FOUND,
        format!("no {kind} is named {name:?}"),
    )
}

fn lookup(
    handle: *mut TrellisRti,
    name: *const c_char,
    out: *mut u64,
    find: impl FnOnce(&mut Session, &Arc<ObjectModel>, &str) -> Result<u64, Failure>,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let name = unsafe { text(name, "name") }?;
        let model = crate::session::model(session)?;
        let value = find(session, &model, name)?;
        *out_ref(out, "out")? = value;
        Ok(())
    })
}

fn describe(
    handle: *mut TrellisRti,
    out: *mut *mut c_char,
    name: impl FnOnce(&mut Session, &Arc<ObjectModel>) -> Result<String, Failure>,
) -> TrellisStatus {
    with_session(handle, |session| {
        let model = crate::session::model(session)?;
        let text = name(session, &model)?;
        give_string(&text, out)
    })
}

fn invalid(status: TrellisStatus, kind: &str, value: u64) -> Failure {
    Failure::new(
        status,
        format!("{kind} handle {value} is not defined in the object model"),
    )
}

/// Reliable messages this federate was told it lost so far (Trellis's own: the counts of its
/// reliable_messages_lost callbacks, made or not).
#[no_mangle]
pub extern "C" fn trellis_reliable_messages_lost(
    handle: *mut TrellisRti,
    out: *mut u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        let lost = session.joined()?.reliable_messages_lost();
        *out_ref(out, "out")? = lost;
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_object_class_handle(
    handle: *mut TrellisRti,
    name: *const c_char,
    out: *mut u64,
) -> TrellisStatus {
    lookup(handle, name, out, |_, model, name| {
        model
            .find_object_class(name)
            .map(|c| u64::from(c.0))
            .ok_or_else(|| name_not_found("object class", name))
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_object_class_name(
    handle: *mut TrellisRti,
    class: u64,
    out: *mut *mut c_char,
) -> TrellisStatus {
    describe(handle, out, |_, model| {
        model
            .object_classes()
            .get(class as usize)
            .map(|c| c.qualified_name.clone())
            .ok_or_else(|| {
                invalid(
                    TRELLIS_ERR_INVALID_OBJECT_CLASS_HANDLE,
                    "object class",
                    class,
                )
            })
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_known_object_class_handle(
    handle: *mut TrellisRti,
    object: u64,
    out: *mut u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        let class = session
            .joined()?
            .federate()?
            .known_object_class(ObjectId(object))
            .ok_or_else(|| {
                Failure::new(
                    TRELLIS_ERR_OBJECT_INSTANCE_NOT_KNOWN,
                    format!("object instance {object} is not known"),
                )
            })?;
        *out_ref(out, "out")? = u64::from(class.0);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_object_instance_handle(
    handle: *mut TrellisRti,
    name: *const c_char,
    out: *mut u64,
) -> TrellisStatus {
    lookup(handle, name, out, |session, _, name| {
        Ok(session.joined()?.object_instance_handle(name)?.0)
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_object_instance_name(
    handle: *mut TrellisRti,
    object: u64,
    out: *mut *mut c_char,
) -> TrellisStatus {
    describe(handle, out, |session, _| {
        let name = session.joined()?.object_instance_name(ObjectId(object))?;
        Ok(name.to_string())
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_attribute_handle(
    handle: *mut TrellisRti,
    class: u64,
    name: *const c_char,
    out: *mut u64,
) -> TrellisStatus {
    lookup(handle, name, out, |_, model, name| {
        let class = model.object_class_checked(class as u32).ok_or_else(|| {
            invalid(
                TRELLIS_ERR_INVALID_OBJECT_CLASS_HANDLE,
                "object class",
                class,
            )
        })?;
        model
            .find_attribute(class, name)
            .map(|a| u64::from(a.0))
            .ok_or_else(|| name_not_found("attribute of this class", name))
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_attribute_name(
    handle: *mut TrellisRti,
    class: u64,
    attribute: u64,
    out: *mut *mut c_char,
) -> TrellisStatus {
    describe(handle, out, |_, model| {
        let class = model.object_class_checked(class as u32).ok_or_else(|| {
            invalid(
                TRELLIS_ERR_INVALID_OBJECT_CLASS_HANDLE,
                "object class",
                class,
            )
        })?;
        let available = model.available_attributes(class);
        available
            .iter()
            .find(|a| u64::from(a.0) == attribute)
            .map(|&a| model.attribute(a).name.clone())
            .ok_or_else(|| invalid(TRELLIS_ERR_INVALID_ATTRIBUTE_HANDLE, "attribute", attribute))
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_update_rate_value(
    handle: *mut TrellisRti,
    designator: *const c_char,
    out: *mut f64,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let designator = unsafe { text(designator, "designator") }?;
        let model = crate::session::model(session)?;
        let rate = model
            .update_rates()
            .iter()
            .find(|r| r.name == designator)
            .ok_or_else(|| {
                Failure::new(
                    TRELLIS_ERR_INVALID_UPDATE_RATE_DESIGNATOR,
                    format!("update rate {designator:?} is not defined in the object model"),
                )
            })?;
        *out_ref(out, "out")? = rate.rate;
        Ok(())
    })
}

/// getUpdateRateValueForAttribute: Trellis does not throttle by update rate, so 0 (no
/// rate in force), as the standard gives for an attribute without one.
#[no_mangle]
pub extern "C" fn trellis_get_update_rate_value_for_attribute(
    handle: *mut TrellisRti,
    object: u64,
    attribute: u64,
    out: *mut f64,
) -> TrellisStatus {
    with_session(handle, |session| {
        let known = session
            .joined()?
            .federate()?
            .known_object_class(ObjectId(object));
        if known.is_none() {
            return Err(Failure::new(
                TRELLIS_ERR_OBJECT_INSTANCE_NOT_KNOWN,
                format!("object instance {object} is not known"),
            ));
        }
        let _ = attribute;
        *out_ref(out, "out")? = 0.0;
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_interaction_class_handle(
    handle: *mut TrellisRti,
    name: *const c_char,
    out: *mut u64,
) -> TrellisStatus {
    lookup(handle, name, out, |_, model, name| {
        model
            .find_interaction_class(name)
            .map(|c| u64::from(c.0))
            .ok_or_else(|| name_not_found("interaction class", name))
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_interaction_class_name(
    handle: *mut TrellisRti,
    class: u64,
    out: *mut *mut c_char,
) -> TrellisStatus {
    describe(handle, out, |_, model| {
        model
            .interaction_classes()
            .get(class as usize)
            .map(|c| c.qualified_name.clone())
            .ok_or_else(|| {
                invalid(
                    TRELLIS_ERR_INVALID_INTERACTION_CLASS_HANDLE,
                    "interaction class",
                    class,
                )
            })
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_parameter_handle(
    handle: *mut TrellisRti,
    class: u64,
    name: *const c_char,
    out: *mut u64,
) -> TrellisStatus {
    lookup(handle, name, out, |_, model, name| {
        let class = model
            .interaction_class_checked(class as u32)
            .ok_or_else(|| {
                invalid(
                    TRELLIS_ERR_INVALID_INTERACTION_CLASS_HANDLE,
                    "interaction class",
                    class,
                )
            })?;
        model
            .find_parameter(class, name)
            .map(|p| u64::from(p.0))
            .ok_or_else(|| name_not_found("parameter of this class", name))
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_parameter_name(
    handle: *mut TrellisRti,
    class: u64,
    parameter: u64,
    out: *mut *mut c_char,
) -> TrellisStatus {
    describe(handle, out, |_, model| {
        let class = model
            .interaction_class_checked(class as u32)
            .ok_or_else(|| {
                invalid(
                    TRELLIS_ERR_INVALID_INTERACTION_CLASS_HANDLE,
                    "interaction class",
                    class,
                )
            })?;
        model
            .available_parameters(class)
            .iter()
            .find(|p| u64::from(p.0) == parameter)
            .map(|&p| model.parameter(p).name.clone())
            .ok_or_else(|| invalid(TRELLIS_ERR_INVALID_PARAMETER_HANDLE, "parameter", parameter))
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_federate_handle(
    handle: *mut TrellisRti,
    name: *const c_char,
    out: *mut u64,
) -> TrellisStatus {
    lookup(handle, name, out, |session, _, name| {
        Ok(u64::from(session.joined()?.federate_handle(name)?))
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_federate_name(
    handle: *mut TrellisRti,
    federate: u64,
    out: *mut *mut c_char,
) -> TrellisStatus {
    describe(handle, out, |session, _| {
        Ok(session.joined()?.federate_name_of(federate as u32)?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_dimension_handle(
    handle: *mut TrellisRti,
    name: *const c_char,
    out: *mut u64,
) -> TrellisStatus {
    lookup(handle, name, out, |_, model, name| {
        model
            .find_dimension(name)
            .map(|d| u64::from(d.0))
            .ok_or_else(|| name_not_found("dimension", name))
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_dimension_name(
    handle: *mut TrellisRti,
    dimension: u64,
    out: *mut *mut c_char,
) -> TrellisStatus {
    describe(handle, out, |_, model| {
        model
            .dimensions()
            .get(dimension as usize)
            .map(|d| d.name.clone())
            .ok_or_else(|| invalid(TRELLIS_ERR_INVALID_DIMENSION_HANDLE, "dimension", dimension))
    })
}

/// "HLAreliable" / "HLAbestEffort" -> TRELLIS_TRANSPORT_*.
#[no_mangle]
pub extern "C" fn trellis_get_transportation_type(
    handle: *mut TrellisRti,
    name: *const c_char,
    out: *mut i32,
) -> TrellisStatus {
    with_session(handle, |session| {
        session.joined()?;
        // SAFETY: header contract.
        let name = unsafe { text(name, "name") }?;
        *out_ref(out, "out")? = match name {
            "HLAreliable" => TRELLIS_TRANSPORT_RELIABLE,
            "HLAbestEffort" => TRELLIS_TRANSPORT_BEST_EFFORT,
            other => {
                return Err(Failure::new(
                    TRELLIS_ERR_INVALID_TRANSPORTATION_NAME,
                    format!("transportation {other:?}: HLAreliable or HLAbestEffort"),
                ))
            }
        };
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_transportation_name(
    handle: *mut TrellisRti,
    value: i32,
    out: *mut *mut c_char,
) -> TrellisStatus {
    describe(handle, out, |_, _| match value {
        TRELLIS_TRANSPORT_RELIABLE => Ok("HLAreliable".into()),
        TRELLIS_TRANSPORT_BEST_EFFORT => Ok("HLAbestEffort".into()),
        other => Err(Failure::new(
            TRELLIS_ERR_INVALID_TRANSPORTATION_TYPE,
            format!("transportation type {other}"),
        )),
    })
}

/// "Receive" / "TimeStamp" -> TRELLIS_ORDER_*.
#[no_mangle]
pub extern "C" fn trellis_get_order_type(
    handle: *mut TrellisRti,
    name: *const c_char,
    out: *mut i32,
) -> TrellisStatus {
    with_session(handle, |session| {
        session.joined()?;
        // SAFETY: header contract.
        let name = unsafe { text(name, "name") }?;
        *out_ref(out, "out")? = match name {
            "Receive" => TRELLIS_ORDER_RECEIVE,
            "TimeStamp" => TRELLIS_ORDER_TIMESTAMP,
            other => {
                return Err(Failure::new(
                    TRELLIS_ERR_INVALID_ORDER_NAME,
                    format!("order {other:?}: Receive or TimeStamp"),
                ))
            }
        };
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_get_order_name(
    handle: *mut TrellisRti,
    value: i32,
    out: *mut *mut c_char,
) -> TrellisStatus {
    describe(handle, out, |_, _| match value {
        TRELLIS_ORDER_RECEIVE => Ok("Receive".into()),
        TRELLIS_ORDER_TIMESTAMP => Ok("TimeStamp".into()),
        other => Err(Failure::new(
            TRELLIS_ERR_INVALID_ORDER_TYPE,
            format!("order type {other}"),
        )),
    })
}

/// Advisory switches. switch_kind: 0 object class relevance, 1 attribute relevance,
/// 2 attribute scope, 3 interaction relevance.
#[no_mangle]
pub extern "C" fn trellis_set_advisory_switch(
    handle: *mut TrellisRti,
    switch_kind: i32,
    on: bool,
) -> TrellisStatus {
    with_session(handle, |session| {
        let rti = session.joined()?;
        match (switch_kind, on) {
            (0, true) => rti.enable_object_class_relevance_advisory_switch()?,
            (0, false) => rti.disable_object_class_relevance_advisory_switch()?,
            (1, true) => rti.enable_attribute_relevance_advisory_switch()?,
            (1, false) => rti.disable_attribute_relevance_advisory_switch()?,
            (2, true) => rti.enable_attribute_scope_advisory_switch()?,
            (2, false) => rti.disable_attribute_scope_advisory_switch()?,
            (3, true) => rti.enable_interaction_relevance_advisory_switch()?,
            (3, false) => rti.disable_interaction_relevance_advisory_switch()?,
            (other, _) => return Err(Failure::internal(format!("advisory switch kind {other}"))),
        }
        Ok(())
    })
}
