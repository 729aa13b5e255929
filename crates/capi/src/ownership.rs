//! Ownership management (IEEE 1516.1-2010 §7).

use crate::declaration::attribute_list;
use crate::ffi::{out_ref, put_handles, TrellisBytes};
use crate::object::attribute;
use crate::status::*;
use crate::{with_session, TrellisRti};
use trellis_core::federate::ObjectId;
use trellis_core::fom::AttributeHandle;
use trellis_net::rti::RtiAmbassador;

type Service =
    fn(&mut RtiAmbassador, ObjectId, &[AttributeHandle]) -> Result<(), trellis_net::rti::RtiError>;
type TaggedService = fn(
    &mut RtiAmbassador,
    ObjectId,
    &[AttributeHandle],
    &[u8],
) -> Result<(), trellis_net::rti::RtiError>;

fn run(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
    service: Service,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let attributes = unsafe { attribute_list(attributes, count) }?;
        Ok(service(session.joined()?, ObjectId(object), &attributes)?)
    })
}

fn run_tagged(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
    tag: TrellisBytes,
    service: TaggedService,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let (attributes, tag) =
            unsafe { (attribute_list(attributes, count)?, tag.as_slice("tag")?) };
        Ok(service(
            session.joined()?,
            ObjectId(object),
            &attributes,
            tag,
        )?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_unconditional_attribute_ownership_divestiture(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
) -> TrellisStatus {
    run(
        handle,
        object,
        attributes,
        count,
        RtiAmbassador::unconditional_attribute_ownership_divestiture,
    )
}

#[no_mangle]
pub extern "C" fn trellis_negotiated_attribute_ownership_divestiture(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
    tag: TrellisBytes,
) -> TrellisStatus {
    run_tagged(
        handle,
        object,
        attributes,
        count,
        tag,
        RtiAmbassador::negotiated_attribute_ownership_divestiture,
    )
}

#[no_mangle]
pub extern "C" fn trellis_confirm_divestiture(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
    tag: TrellisBytes,
) -> TrellisStatus {
    run_tagged(
        handle,
        object,
        attributes,
        count,
        tag,
        RtiAmbassador::confirm_divestiture,
    )
}

#[no_mangle]
pub extern "C" fn trellis_attribute_ownership_acquisition(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
    tag: TrellisBytes,
) -> TrellisStatus {
    run_tagged(
        handle,
        object,
        attributes,
        count,
        tag,
        RtiAmbassador::attribute_ownership_acquisition,
    )
}

#[no_mangle]
pub extern "C" fn trellis_attribute_ownership_acquisition_if_available(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
) -> TrellisStatus {
    run(
        handle,
        object,
        attributes,
        count,
        RtiAmbassador::attribute_ownership_acquisition_if_available,
    )
}

#[no_mangle]
pub extern "C" fn trellis_attribute_ownership_release_denied(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
) -> TrellisStatus {
    run(
        handle,
        object,
        attributes,
        count,
        RtiAmbassador::attribute_ownership_release_denied,
    )
}

/// attributeOwnershipDivestitureIfWanted: the attributes divested go to (out, capacity, len).
#[no_mangle]
pub extern "C" fn trellis_attribute_ownership_divestiture_if_wanted(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
    divested_out: *mut u64,
    capacity: usize,
    divested_len: *mut usize,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let attributes = unsafe { attribute_list(attributes, count) }?;
        let divested = session
            .joined()?
            .attribute_ownership_divestiture_if_wanted(ObjectId(object), &attributes)?;
        put_handles(
            divested.iter().map(|a| u64::from(a.0)),
            divested_out,
            capacity,
            divested_len,
        )
    })
}

#[no_mangle]
pub extern "C" fn trellis_cancel_negotiated_attribute_ownership_divestiture(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
) -> TrellisStatus {
    run(
        handle,
        object,
        attributes,
        count,
        RtiAmbassador::cancel_negotiated_attribute_ownership_divestiture,
    )
}

#[no_mangle]
pub extern "C" fn trellis_cancel_attribute_ownership_acquisition(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
) -> TrellisStatus {
    run(
        handle,
        object,
        attributes,
        count,
        RtiAmbassador::cancel_attribute_ownership_acquisition,
    )
}

/// queryAttributeOwnership: the answer comes as inform_attribute_ownership /
/// attribute_is_not_owned.
#[no_mangle]
pub extern "C" fn trellis_query_attribute_ownership(
    handle: *mut TrellisRti,
    object: u64,
    attribute_value: u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        Ok(session
            .joined()?
            .query_attribute_ownership(ObjectId(object), attribute(attribute_value))?)
    })
}

#[no_mangle]
pub extern "C" fn trellis_is_attribute_owned_by_federate(
    handle: *mut TrellisRti,
    object: u64,
    attribute_value: u64,
    out: *mut bool,
) -> TrellisStatus {
    with_session(handle, |session| {
        let owned = session
            .joined()?
            .is_attribute_owned_by_federate(ObjectId(object), attribute(attribute_value))?;
        *out_ref(out, "out")? = owned;
        Ok(())
    })
}
