//! The callback table of the C ABI: the federate ambassador as C function pointers.
//! Delivery (`deliver.rs`) calls through it; `callbacks.rs` takes callbacks from the
//! session and hands them over.

use crate::ffi::{TrellisBytes, TrellisHandleValue};
use crate::time::TrellisTime;
use std::ffi::{c_char, c_void};

/// The sender of `reliable_messages_lost` when this federate has not heard from it yet.
pub const TRELLIS_UNKNOWN_FEDERATE: u64 = u64::MAX;

type Handles = *const u64;

/// reflect_attribute_values / receive_interaction: (user, object or interaction class,
/// values, count, tag, sent order, transport, time or NULL (receive order), received order,
/// producing federate, sent regions, sent region count). NULL: not wanted.
pub type TrellisValuesCallback = Option<
    unsafe extern "C" fn(
        *mut c_void,
        u64,
        *const TrellisHandleValue,
        usize,
        TrellisBytes,
        i32,
        i32,
        *const TrellisTime,
        i32,
        u64,
        *const u64,
        usize,
    ),
>;

/// The federate ambassador as C function pointers; `user` is passed back to each. A NULL
/// member consumes its callback without a call.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TrellisCallbacks {
    pub user: *mut c_void,
    pub connection_lost: Option<unsafe extern "C" fn(*mut c_void, *const c_char)>,
    pub report_federation_executions: Option<
        unsafe extern "C" fn(*mut c_void, *const *const c_char, *const *const c_char, usize),
    >,
    pub synchronization_point_registration_succeeded:
        Option<unsafe extern "C" fn(*mut c_void, *const c_char)>,
    /// reason: 0 label not unique, 1 synchronization set member not joined.
    pub synchronization_point_registration_failed:
        Option<unsafe extern "C" fn(*mut c_void, *const c_char, i32)>,
    pub announce_synchronization_point:
        Option<unsafe extern "C" fn(*mut c_void, *const c_char, TrellisBytes)>,
    pub federation_synchronized:
        Option<unsafe extern "C" fn(*mut c_void, *const c_char, Handles, usize)>,
    pub start_registration_for_object_class: Option<unsafe extern "C" fn(*mut c_void, u64)>,
    pub stop_registration_for_object_class: Option<unsafe extern "C" fn(*mut c_void, u64)>,
    pub turn_interactions_on: Option<unsafe extern "C" fn(*mut c_void, u64)>,
    pub turn_interactions_off: Option<unsafe extern "C" fn(*mut c_void, u64)>,
    pub object_instance_name_reservation_succeeded:
        Option<unsafe extern "C" fn(*mut c_void, *const c_char)>,
    pub object_instance_name_reservation_failed:
        Option<unsafe extern "C" fn(*mut c_void, *const c_char)>,
    pub multiple_object_instance_name_reservation_succeeded:
        Option<unsafe extern "C" fn(*mut c_void, *const *const c_char, usize)>,
    pub multiple_object_instance_name_reservation_failed:
        Option<unsafe extern "C" fn(*mut c_void, *const *const c_char, usize)>,
    /// (object, object class, name, producing federate)
    pub discover_object_instance:
        Option<unsafe extern "C" fn(*mut c_void, u64, u64, *const c_char, u64)>,
    /// (object, values, count, tag, sent order, transport, time or NULL (receive order),
    /// received order, producing federate, sent regions, sent region count)
    pub reflect_attribute_values: TrellisValuesCallback,
    /// As reflect, for an interaction class and its parameters.
    pub receive_interaction: TrellisValuesCallback,
    /// (object, tag, sent order, time or NULL, received order, producing federate)
    pub remove_object_instance: Option<
        unsafe extern "C" fn(*mut c_void, u64, TrellisBytes, i32, *const TrellisTime, i32, u64),
    >,
    pub provide_attribute_value_update:
        Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize, TrellisBytes)>,
    pub turn_updates_on_for_object_instance:
        Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize)>,
    pub turn_updates_off_for_object_instance:
        Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize)>,
    pub request_attribute_ownership_assumption:
        Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize, TrellisBytes)>,
    pub request_divestiture_confirmation:
        Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize)>,
    pub attribute_ownership_acquisition_notification:
        Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize, TrellisBytes)>,
    pub attribute_ownership_unavailable:
        Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize)>,
    pub request_attribute_ownership_release:
        Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize, TrellisBytes)>,
    pub confirm_attribute_ownership_acquisition_cancellation:
        Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize)>,
    /// (object, attribute, owning federate)
    pub inform_attribute_ownership: Option<unsafe extern "C" fn(*mut c_void, u64, u64, u64)>,
    pub attribute_is_not_owned: Option<unsafe extern "C" fn(*mut c_void, u64, u64)>,
    pub attribute_is_owned_by_rti: Option<unsafe extern "C" fn(*mut c_void, u64, u64)>,
    pub time_regulation_enabled: Option<unsafe extern "C" fn(*mut c_void, TrellisTime)>,
    pub time_constrained_enabled: Option<unsafe extern "C" fn(*mut c_void, TrellisTime)>,
    pub time_advance_grant: Option<unsafe extern "C" fn(*mut c_void, TrellisTime)>,
    /// (object, attributes, count, TRELLIS_TRANSPORT_*)
    pub confirm_attribute_transportation_type_change:
        Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize, i32)>,
    /// (object, attribute, TRELLIS_TRANSPORT_*)
    pub report_attribute_transportation_type:
        Option<unsafe extern "C" fn(*mut c_void, u64, u64, i32)>,
    /// (interaction class, TRELLIS_TRANSPORT_*)
    pub confirm_interaction_transportation_type_change:
        Option<unsafe extern "C" fn(*mut c_void, u64, i32)>,
    /// (federate, interaction class, TRELLIS_TRANSPORT_*)
    pub report_interaction_transportation_type:
        Option<unsafe extern "C" fn(*mut c_void, u64, u64, i32)>,
    /// Trellis's own: (sending federate or TRELLIS_UNKNOWN_FEDERATE, count) reliable
    /// messages that never arrived. Not part of 1516e; NULL leaves them to the log.
    pub reliable_messages_lost: Option<unsafe extern "C" fn(*mut c_void, u64, u64)>,
    /// (object, attributes, count): attribute scope advisory switch.
    pub attributes_in_scope: Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize)>,
    pub attributes_out_of_scope: Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize)>,
    /// requestRetraction: (retraction handle) of a message delivered earlier, which its
    /// sender retracted (trellis_callback_retraction_handle gave the handle then).
    pub request_retraction: Option<unsafe extern "C" fn(*mut c_void, u64)>,
    /// Save and restore (1516.1-2010 §4.16–4.31). initiateFederateSave: (label, time or
    /// NULL for a save without a time).
    pub initiate_federate_save:
        Option<unsafe extern "C" fn(*mut c_void, *const c_char, *const TrellisTime)>,
    pub federation_saved: Option<unsafe extern "C" fn(*mut c_void)>,
    /// (TRELLIS_SAVE_FAILURE_*)
    pub federation_not_saved: Option<unsafe extern "C" fn(*mut c_void, i32)>,
    /// (federates, TRELLIS_SAVE_STATUS_* of each, count)
    pub federation_save_status_response:
        Option<unsafe extern "C" fn(*mut c_void, Handles, *const i32, usize)>,
    pub request_federation_restore_succeeded:
        Option<unsafe extern "C" fn(*mut c_void, *const c_char)>,
    pub request_federation_restore_failed: Option<unsafe extern "C" fn(*mut c_void, *const c_char)>,
    pub federation_restore_begun: Option<unsafe extern "C" fn(*mut c_void)>,
    /// (label, this federate's name, its handle)
    pub initiate_federate_restore:
        Option<unsafe extern "C" fn(*mut c_void, *const c_char, *const c_char, u64)>,
    pub federation_restored: Option<unsafe extern "C" fn(*mut c_void)>,
    /// (TRELLIS_RESTORE_FAILURE_*)
    pub federation_not_restored: Option<unsafe extern "C" fn(*mut c_void, i32)>,
    /// (federates, TRELLIS_RESTORE_STATUS_* of each, count)
    pub federation_restore_status_response:
        Option<unsafe extern "C" fn(*mut c_void, Handles, *const i32, usize)>,
}

// SAFETY: the table holds C function pointers and the caller's `user` pointer, which the
// caller gives for use on the callback thread it asks for.
unsafe impl Send for TrellisCallbacks {}

impl TrellisCallbacks {
    pub(crate) fn none() -> TrellisCallbacks {
        TrellisCallbacks {
            user: std::ptr::null_mut(),
            connection_lost: None,
            report_federation_executions: None,
            synchronization_point_registration_succeeded: None,
            synchronization_point_registration_failed: None,
            announce_synchronization_point: None,
            federation_synchronized: None,
            start_registration_for_object_class: None,
            stop_registration_for_object_class: None,
            turn_interactions_on: None,
            turn_interactions_off: None,
            object_instance_name_reservation_succeeded: None,
            object_instance_name_reservation_failed: None,
            multiple_object_instance_name_reservation_succeeded: None,
            multiple_object_instance_name_reservation_failed: None,
            discover_object_instance: None,
            reflect_attribute_values: None,
            receive_interaction: None,
            remove_object_instance: None,
            provide_attribute_value_update: None,
            turn_updates_on_for_object_instance: None,
            turn_updates_off_for_object_instance: None,
            request_attribute_ownership_assumption: None,
            request_divestiture_confirmation: None,
            attribute_ownership_acquisition_notification: None,
            attribute_ownership_unavailable: None,
            request_attribute_ownership_release: None,
            confirm_attribute_ownership_acquisition_cancellation: None,
            inform_attribute_ownership: None,
            attribute_is_not_owned: None,
            attribute_is_owned_by_rti: None,
            time_regulation_enabled: None,
            time_constrained_enabled: None,
            time_advance_grant: None,
            confirm_attribute_transportation_type_change: None,
            report_attribute_transportation_type: None,
            confirm_interaction_transportation_type_change: None,
            report_interaction_transportation_type: None,
            reliable_messages_lost: None,
            attributes_in_scope: None,
            attributes_out_of_scope: None,
            request_retraction: None,
            initiate_federate_save: None,
            federation_saved: None,
            federation_not_saved: None,
            federation_save_status_response: None,
            request_federation_restore_succeeded: None,
            request_federation_restore_failed: None,
            federation_restore_begun: None,
            initiate_federate_restore: None,
            federation_restored: None,
            federation_not_restored: None,
            federation_restore_status_response: None,
        }
    }
}
