//! Declaration management (IEEE 1516.1-2010 §5).

use crate::ffi::{optional_text, slice};
use crate::status::*;
use crate::{with_session, TrellisRti};
use std::ffi::c_char;
use trellis_core::fom::{AttributeHandle, InteractionClassHandle, ObjectClassHandle};
use trellis_net::rti::RtiAmbassador;
use trellis_net::rti::Session;

pub(crate) fn object_class(value: u64) -> ObjectClassHandle {
    ObjectClassHandle(value as u32)
}

pub(crate) fn interaction_class(value: u64) -> InteractionClassHandle {
    InteractionClassHandle(value as u32)
}

/// # Safety
/// As `ffi::slice`.
pub(crate) unsafe fn attribute_list(
    attributes: *const u64,
    count: usize,
) -> Result<Vec<AttributeHandle>, Failure> {
    Ok(slice(attributes, count, "attributes")?
        .iter()
        .map(|&a| AttributeHandle(a as u32))
        .collect())
}

/// An update rate designator must name one of the object model's update rates.
pub(crate) fn check_update_rate(session: &mut Session, rate: Option<&str>) -> Result<(), Failure> {
    let Some(rate) = rate else { return Ok(()) };
    let model = crate::session::model(session)?;
    if model.update_rates().iter().any(|r| r.name == rate) {
        Ok(())
    } else {
        Err(Failure::new(
            TRELLIS_ERR_INVALID_UPDATE_RATE_DESIGNATOR,
            format!("update rate {rate:?} is not defined in the object model"),
        ))
    }
}

/// Subscribe actively or passively (the latest subscription of a class replaces the last).
fn subscribe_object_class(
    rti: &mut RtiAmbassador,
    class: ObjectClassHandle,
    attributes: &[AttributeHandle],
    active: bool,
) -> Result<(), Failure> {
    if active {
        rti.subscribe_object_class_attributes(class, attributes)?
    } else {
        rti.subscribe_object_class_attributes_passively(class, attributes, &[])?
    }
    Ok(())
}

#[no_mangle]
pub extern "C" fn trellis_publish_object_class_attributes(
    handle: *mut TrellisRti,
    object_class_value: u64,
    attributes: *const u64,
    count: usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let attributes = unsafe { attribute_list(attributes, count) }?;
        Ok(session
            .joined()?
            .publish_object_class_attributes(object_class(object_class_value), &attributes)?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_unpublish_object_class(
    handle: *mut TrellisRti,
    object_class_value: u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session
            .joined()?
            .unpublish_object_class(object_class(object_class_value))?)
    })
}

/// unpublishObjectClassAttributes: the class stays published with the other attributes.
#[no_mangle]
pub extern "C" fn trellis_unpublish_object_class_attributes(
    handle: *mut TrellisRti,
    object_class_value: u64,
    attributes: *const u64,
    count: usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let removed = unsafe { attribute_list(attributes, count) }?;
        let class = object_class(object_class_value);
        Ok(session
            .joined()?
            .unpublish_object_class_attributes(class, &removed)?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_publish_interaction_class(
    handle: *mut TrellisRti,
    interaction: u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session
            .joined()?
            .publish_interaction_class(interaction_class(interaction))?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_unpublish_interaction_class(
    handle: *mut TrellisRti,
    interaction: u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session
            .joined()?
            .unpublish_interaction_class(interaction_class(interaction))?)
    })
}

/// subscribeObjectClassAttributes; update_rate NULL or a designator from the object model.
/// `active` false: subscribeObjectClassAttributesPassively (reflected alike, but no
/// publisher is advised to register or update for it).
#[no_mangle]
pub extern "C" fn trellis_subscribe_object_class_attributes(
    handle: *mut TrellisRti,
    object_class_value: u64,
    attributes: *const u64,
    count: usize,
    active: bool,
    update_rate: *const c_char,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let (attributes, rate) = unsafe {
            (
                attribute_list(attributes, count)?,
                optional_text(update_rate, "update_rate")?,
            )
        };
        check_update_rate(session, rate)?;
        let rti = session.joined()?;
        let class = object_class(object_class_value);
        subscribe_object_class(rti, class, &attributes, active)?;
        Ok(rti.set_object_class_update_rate(class, rate)?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_unsubscribe_object_class(
    handle: *mut TrellisRti,
    object_class_value: u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session
            .joined()?
            .unsubscribe_object_class(object_class(object_class_value))?)
    })
}

/// unsubscribeObjectClassAttributes: the class stays subscribed with the other attributes.
#[no_mangle]
pub extern "C" fn trellis_unsubscribe_object_class_attributes(
    handle: *mut TrellisRti,
    object_class_value: u64,
    attributes: *const u64,
    count: usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let removed = unsafe { attribute_list(attributes, count) }?;
        let class = object_class(object_class_value);
        Ok(session
            .joined()?
            .unsubscribe_object_class_attributes(class, &removed)?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_subscribe_interaction_class(
    handle: *mut TrellisRti,
    interaction: u64,
    active: bool,
) -> TrellisStatus {
    with_session(handle, |session| {
        let rti = session.joined()?;
        let class = interaction_class(interaction);
        if active {
            rti.subscribe_interaction_class(class)?
        } else {
            rti.subscribe_interaction_class_passively(class)?
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn trellis_unsubscribe_interaction_class(
    handle: *mut TrellisRti,
    interaction: u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session
            .joined()?
            .unsubscribe_interaction_class(interaction_class(interaction))?)
    })
}
