//! The transportation services (IEEE 1516.1-2010 §6.23-§6.30): change and query how updates
//! and interactions travel, HLAreliable or HLAbestEffort. A change is in effect when the
//! call returns; its confirmation and the query's report are callbacks the federate queues,
//! delivered at the next evoke like the name reservations' answers.

use crate::declaration::{attribute_list, interaction_class};
use crate::ffi::{TRELLIS_TRANSPORT_BEST_EFFORT, TRELLIS_TRANSPORT_RELIABLE};
use crate::object::attribute;
use crate::status::*;
use crate::{with_session, TrellisRti};
use trellis_core::federate::ObjectId;
use trellis_core::wire::TransportClass;

/// A transportation type of the C ABI (TRELLIS_TRANSPORT_*), else InvalidTransportationType.
fn transport_class(transport: i32) -> Result<TransportClass, Failure> {
    match transport {
        TRELLIS_TRANSPORT_RELIABLE => Ok(TransportClass::Reliable),
        TRELLIS_TRANSPORT_BEST_EFFORT => Ok(TransportClass::BestEffort),
        other => Err(Failure::new(
            TRELLIS_ERR_INVALID_TRANSPORTATION_TYPE,
            format!("{other} is no transportation type (1 reliable, 2 best effort)"),
        )),
    }
}

/// requestAttributeTransportationTypeChange: updates of these owned attributes travel
/// `transport` (TRELLIS_TRANSPORT_*) from now on; confirmed by
/// confirm_attribute_transportation_type_change.
#[no_mangle]
pub extern "C" fn trellis_request_attribute_transportation_type_change(
    handle: *mut TrellisRti,
    object: u64,
    attributes: *const u64,
    count: usize,
    transport: i32,
) -> TrellisStatus {
    with_session(handle, |session| {
        // SAFETY: header contract.
        let list = unsafe { attribute_list(attributes, count) }?;
        let class = transport_class(transport)?;
        Ok(
            (session.joined()?).request_attribute_transportation_type_change(
                ObjectId(object),
                &list,
                class,
            )?,
        )
    })
}

/// queryAttributeTransportationType: answered by report_attribute_transportation_type.
#[no_mangle]
pub extern "C" fn trellis_query_attribute_transportation_type(
    handle: *mut TrellisRti,
    object: u64,
    attribute_value: u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        (session.joined()?)
            .query_attribute_transportation_type(ObjectId(object), attribute(attribute_value))?;
        Ok(())
    })
}

/// requestInteractionTransportationTypeChange: this federate's interactions of a published
/// class travel `transport` from now on; confirmed by
/// confirm_interaction_transportation_type_change.
#[no_mangle]
pub extern "C" fn trellis_request_interaction_transportation_type_change(
    handle: *mut TrellisRti,
    interaction: u64,
    transport: i32,
) -> TrellisStatus {
    with_session(handle, |session| {
        let class = transport_class(transport)?;
        Ok(
            (session.joined()?).request_interaction_transportation_type_change(
                interaction_class(interaction),
                class,
            )?,
        )
    })
}

/// queryInteractionTransportationType: how `federate` sends interactions of the class;
/// answered by report_interaction_transportation_type.
#[no_mangle]
pub extern "C" fn trellis_query_interaction_transportation_type(
    handle: *mut TrellisRti,
    federate: u64,
    interaction: u64,
) -> TrellisStatus {
    with_session(handle, |session| {
        (session.joined()?).query_interaction_transportation_type(
            federate as u32,
            interaction_class(interaction),
        )?;
        Ok(())
    })
}
