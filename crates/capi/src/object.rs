//! Object management (IEEE 1516.1-2010 §6): names, registration, updates, interactions,
//! deletion.

use crate::declaration::{attribute_list, interaction_class, object_class};
use crate::ffi::{put, slice, text, texts, TrellisBytes, TrellisHandleValue};
use crate::status::*;
use crate::time::{TrellisTime, TRELLIS_NO_RETRACTION_HANDLE};
use crate::{with_held, with_session, TrellisRti};
use smallvec::SmallVec;
use std::ffi::c_char;
use trellis_core::federate::{MessageRetractionHandle, ObjectId};
use trellis_core::fom::{AttributeHandle, ParameterHandle};
use trellis_net::rti::RtiError;

/// The handle-value pairs an update or an interaction passes, as the federate API takes
/// them: on the stack up to this many (an update is usually a few attributes), so that
/// sending allocates nothing.
const VALUES_ON_STACK: usize = 8;

/// Handle-value pairs borrowed from the caller.
pub(crate) type Values<'a, H> = SmallVec<[(H, &'a [u8]); VALUES_ON_STACK]>;

/// Gather the caller's pairs into `out`, where they are used: filled in place, not returned,
/// as the list is 200 bytes on the stack and this runs once per update.
///
/// # Safety
/// As `ffi::slice`; every value's bytes must be readable.
pub(crate) unsafe fn gather_values<'a, H>(
    out: &mut Values<'a, H>,
    values: *const TrellisHandleValue,
    count: usize,
    handle: impl Fn(u64) -> H,
) -> Result<(), Failure> {
    for v in slice(values, count, "values")? {
        out.push((handle(v.handle), v.value.as_slice("value")?));
    }
    Ok(())
}

pub(crate) fn attribute(value: u64) -> AttributeHandle {
    AttributeHandle(value as u32)
}

pub(crate) fn parameter(value: u64) -> ParameterHandle {
    ParameterHandle(value as u32)
}

/// Hand out the retraction handle of a time-stamped send (`MessageRetractionHandle::to_u64`),
/// or TRELLIS_NO_RETRACTION_HANDLE when it went in receive order (the sender does not
/// regulate, or the class or attributes prefer receive order). `out` may be NULL.
pub(crate) fn put_retraction(out: *mut u64, handle: Option<MessageRetractionHandle>) {
    put(
        out,
        handle.map_or(
            TRELLIS_NO_RETRACTION_HANDLE,
            MessageRetractionHandle::to_u64,
        ),
    );
}

/// reserveObjectInstanceName: the answer comes as a callback (succeeded or failed).
#[no_mangle]
pub extern "C" fn trellis_reserve_object_instance_name(
    handle: *mut TrellisRti,
    name: *const c_char,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let name = unsafe { text(name, "name") }?;
        answered_by_callback(session.joined()?.reserve_object_instance_name(name))
    })
}

/// A name taken by another federate is no error in the C++ API: the failure callback says so.
fn answered_by_callback(result: Result<(), RtiError>) -> Result<(), Failure> {
    match result {
        Ok(()) | Err(RtiError::ObjectInstanceNameInUse(_)) => Ok(()),
        Err(other) => Err(other.into()),
    }
}

/// releaseObjectInstanceName: the name must be reserved by this federate; any federate may
/// reserve it afterwards.
#[no_mangle]
pub extern "C" fn trellis_release_object_instance_name(
    handle: *mut TrellisRti,
    name: *const c_char,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let name = unsafe { text(name, "name") }?;
        Ok(session.joined()?.release_object_instance_name(name)?)
    })
}

/// reserveMultipleObjectInstanceName: all or none; the answer comes as a callback.
#[no_mangle]
pub extern "C" fn trellis_reserve_multiple_object_instance_names(
    handle: *mut TrellisRti,
    names: *const *const c_char,
    count: usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let names = unsafe { texts(names, count, "names") }?;
        answered_by_callback(
            session
                .joined()?
                .reserve_multiple_object_instance_names(&names),
        )
    })
}

/// releaseMultipleObjectInstanceName: all or none; every name must be reserved by this
/// federate.
#[no_mangle]
pub extern "C" fn trellis_release_multiple_object_instance_names(
    handle: *mut TrellisRti,
    names: *const *const c_char,
    count: usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let names = unsafe { texts(names, count, "names") }?;
        Ok(session
            .joined()?
            .release_multiple_object_instance_names(&names)?)
    })
}

/// registerObjectInstance; name NULL: the RTI names it, else a name reserved before.
#[no_mangle]
pub extern "C" fn trellis_register_object_instance(
    handle: *mut TrellisRti,
    object_class_value: u64,
    name: *const c_char,
    object_out: *mut u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let name = unsafe { crate::ffi::optional_text(name, "name") }?;
        let class = object_class(object_class_value);
        let rti = session.joined()?;
        let object = match name {
            Some(name) => rti.register_object_instance_with_name(class, name)?,
            None => rti.register_object_instance(class)?,
        };
        put(object_out, object.0);
        Ok(())
    })
}

/// updateAttributeValues; time NULL: receive order, else time-stamped (time-stamp order
/// when regulating) and *retraction_out (may be NULL) gets the message's retraction handle,
/// or TRELLIS_NO_RETRACTION_HANDLE when it went in receive order.
#[no_mangle]
pub extern "C" fn trellis_update_attribute_values(
    handle: *mut TrellisRti,
    object: u64,
    attribute_values: *const TrellisHandleValue,
    count: usize,
    tag: TrellisBytes,
    time: *const TrellisTime,
    retraction_out: *mut u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        let mut values = Values::new();
        // SAFETY: header contract.
        let (tag, time) = unsafe {
            gather_values(&mut values, attribute_values, count, attribute)?;
            (tag.as_slice("tag")?, time.as_ref().copied())
        };
        let object = ObjectId(object);
        match time {
            None => Ok(session
                .joined()?
                .update_attribute_values(object, &values, tag)?),
            Some(time) => {
                let time = time.to_logical(crate::session::time(session))?;
                let retraction = session
                    .joined()?
                    .update_attribute_values_at(object, &values, tag, time, None)?;
                put_retraction(retraction_out, retraction);
                Ok(())
            }
        }
    })
}

/// sendInteraction; time as for updates.
#[no_mangle]
pub extern "C" fn trellis_send_interaction(
    handle: *mut TrellisRti,
    interaction: u64,
    parameters: *const TrellisHandleValue,
    count: usize,
    tag: TrellisBytes,
    time: *const TrellisTime,
    retraction_out: *mut u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        let mut values = Values::new();
        // SAFETY: header contract.
        let (tag, time) = unsafe {
            gather_values(&mut values, parameters, count, parameter)?;
            (tag.as_slice("tag")?, time.as_ref().copied())
        };
        let class = interaction_class(interaction);
        match time {
            None => Ok(session.joined()?.send_interaction(class, &values, tag)?),
            Some(time) => {
                let time = time.to_logical(crate::session::time(session))?;
                let retraction = session
                    .joined()?
                    .send_interaction_at(class, &values, tag, time, None)?;
                put_retraction(retraction_out, retraction);
                Ok(())
            }
        }
    })
}

/// deleteObjectInstance; time as for updates.
#[no_mangle]
pub extern "C" fn trellis_delete_object_instance(
    handle: *mut TrellisRti,
    object: u64,
    tag: TrellisBytes,
    time: *const TrellisTime,
    retraction_out: *mut u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let (tag, time) = unsafe { (tag.as_slice("tag")?, time.as_ref().copied()) };
        let object = ObjectId(object);
        match time {
            None => session.joined()?.delete_object_instance(object, tag)?,
            Some(time) => {
                let time = time.to_logical(crate::session::time(session))?;
                let retraction = session
                    .joined()?
                    .delete_object_instance_at(object, tag, time)?;
                put_retraction(retraction_out, retraction);
            }
        }
        Ok(())
    })
}

/// localDeleteObjectInstance: the federate forgets the instance as if it had never
/// discovered it; its next update discovers it again.
#[no_mangle]
pub extern "C" fn trellis_local_delete_object_instance(
    handle: *mut TrellisRti,
    object: u64,
) -> TrellisStatus {
    with_held(handle, |held| {
        let object = ObjectId(object);
        held.session
            .joined()?
            .local_delete_object_instance(object)?;
        // Callbacks taken from the federate already would name an instance it no longer
        // knows.
        held.stash.retain(|c| !names_instance(c, object));
        Ok(())
    })
}

/// Whether `callback` tells of `object` as a discovered instance.
fn names_instance(callback: &trellis_core::federate::Callback, object: ObjectId) -> bool {
    use trellis_core::federate::Callback;
    match callback {
        Callback::DiscoverObjectInstance { object: o, .. }
        | Callback::ReflectAttributeValues { object: o, .. }
        | Callback::RemoveObjectInstance { object: o, .. } => *o == object,
        _ => false,
    }
}

/// requestAttributeValueUpdate for one instance.
#[no_mangle]
pub extern "C" fn trellis_request_attribute_value_update(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
    tag: TrellisBytes,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let (attributes, tag) =
            unsafe { (attribute_list(attributes, count)?, tag.as_slice("tag")?) };
        Ok(session
            .joined()?
            .request_attribute_value_update(ObjectId(object), &attributes, tag)?)
    })
}

/// requestAttributeValueUpdate for every instance of a class.
#[no_mangle]
pub extern "C" fn trellis_request_class_attribute_value_update(
    handle: *mut TrellisRti,
    object_class_value: u64,
    attributes: *const u64,
    count: usize,
    tag: TrellisBytes,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let (attributes, tag) =
            unsafe { (attribute_list(attributes, count)?, tag.as_slice("tag")?) };
        Ok(session.joined()?.request_class_attribute_value_update(
            object_class(object_class_value),
            &attributes,
            tag,
        )?)
    })
}
