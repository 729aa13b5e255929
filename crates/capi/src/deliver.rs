//! Delivery: each callback becomes one call of the function the caller installed for it
//! (none: the callback is dropped), with arguments that live for the duration of the call.
//! Nothing here holds the session lock: user code may call services from inside.

use crate::ffi::{
    c_string, TrellisBytes, TrellisHandleValue, TRELLIS_ORDER_RECEIVE, TRELLIS_ORDER_TIMESTAMP,
    TRELLIS_TRANSPORT_BEST_EFFORT, TRELLIS_TRANSPORT_RELIABLE,
};
use crate::table::{TrellisCallbacks, TrellisValuesCallback, TRELLIS_UNKNOWN_FEDERATE};
use crate::time::{TrellisTime, TRELLIS_NO_RETRACTION_HANDLE};
use std::cell::Cell;
use std::ffi::{c_char, c_void, CString};
use trellis_core::federate::{
    Callback, LogicalTime, MessageRetractionHandle, OwnershipCallback, TimeRepresentation,
};
use trellis_core::fom::{AttributeHandle, Order};
use trellis_core::registry::SyncFailure;
use trellis_core::wire::TransportClass;

type Handles = *const u64;
type WithTag = Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize, TrellisBytes)>;
type Plain = Option<unsafe extern "C" fn(*mut c_void, u64, Handles, usize)>;
type ByHandle = Option<unsafe extern "C" fn(*mut c_void, u64)>;
type ByText = Option<unsafe extern "C" fn(*mut c_void, *const c_char)>;
type ByTexts = Option<unsafe extern "C" fn(*mut c_void, *const *const c_char, usize)>;
type AtTime = Option<unsafe extern "C" fn(*mut c_void, TrellisTime)>;

fn c_strings(texts: &[String]) -> (Vec<CString>, Vec<*const c_char>) {
    let owned: Vec<CString> = texts.iter().map(|t| c_string(t)).collect();
    let pointers = owned.iter().map(|c| c.as_ptr()).collect();
    (owned, pointers)
}

fn ids(handles: &[AttributeHandle]) -> Vec<u64> {
    handles.iter().map(|h| u64::from(h.0)).collect()
}

fn order(order: Order) -> i32 {
    match order {
        Order::Receive => TRELLIS_ORDER_RECEIVE,
        Order::TimeStamp => TRELLIS_ORDER_TIMESTAMP,
    }
}

fn transport(class: TransportClass) -> i32 {
    match class {
        TransportClass::Reliable => TRELLIS_TRANSPORT_RELIABLE,
        TransportClass::BestEffort => TRELLIS_TRANSPORT_BEST_EFFORT,
    }
}

/// The time stamp a message carries to the federate: only messages sent in time-stamp order
/// have one (the others carry the sender's clock, which is no logical time).
fn stamp(sent: Order, key: u64, representation: TimeRepresentation) -> Option<TrellisTime> {
    (sent == Order::TimeStamp)
        .then(|| TrellisTime::from_logical(LogicalTime::from_key(key), representation))
}

fn time_ptr(time: &Option<TrellisTime>) -> *const TrellisTime {
    time.as_ref()
        .map_or(std::ptr::null(), |t| t as *const TrellisTime)
}

/// The answers to the federate's own service calls (IEEE 1516.1-2010 §4.8, §6.3, §6.6,
/// §6.24-§6.30).
fn deliver_answer(table: &TrellisCallbacks, answer: Callback) {
    match answer {
        Callback::ReportFederationExecutions { federations } => {
            if let Some(f) = table.report_federation_executions {
                let names: Vec<String> = federations.iter().map(|(n, _)| n.clone()).collect();
                let times: Vec<String> = federations.iter().map(|(_, t)| t.clone()).collect();
                let (_names, name_ptrs) = c_strings(&names);
                let (_times, time_ptrs) = c_strings(&times);
                let count = federations.len();
                // SAFETY: the caller's function; the pointer arrays and the strings they
                // point to live until it returns.
                unsafe { f(table.user, name_ptrs.as_ptr(), time_ptrs.as_ptr(), count) };
            }
        }
        Callback::ObjectInstanceNameReservationSucceeded { name } => by_text(
            table,
            table.object_instance_name_reservation_succeeded,
            &name,
        ),
        Callback::ObjectInstanceNameReservationFailed { name } => {
            by_text(table, table.object_instance_name_reservation_failed, &name)
        }
        Callback::MultipleObjectInstanceNameReservationSucceeded { names } => by_texts(
            table,
            table.multiple_object_instance_name_reservation_succeeded,
            &names,
        ),
        Callback::MultipleObjectInstanceNameReservationFailed { names } => by_texts(
            table,
            table.multiple_object_instance_name_reservation_failed,
            &names,
        ),
        transportation => deliver_transportation(table, transportation),
    }
}

/// The answers of the transportation services (IEEE 1516.1-2010 §6.24, §6.26, §6.28, §6.30).
fn deliver_transportation(table: &TrellisCallbacks, answer: Callback) {
    let user = table.user;
    match answer {
        Callback::ConfirmAttributeTransportationTypeChange {
            object,
            attributes,
            transport: t,
        } => {
            if let Some(f) = table.confirm_attribute_transportation_type_change {
                let attributes = ids(&attributes);
                let (list, count) = (attributes.as_ptr(), attributes.len());
                // SAFETY: the caller's function; the handle list lives until it returns.
                unsafe { f(user, object.0, list, count, transport(t)) };
            }
        }
        Callback::ReportAttributeTransportationType {
            object,
            attribute,
            transport: t,
        } => {
            if let Some(f) = table.report_attribute_transportation_type {
                let attribute = u64::from(attribute.0);
                // SAFETY: the caller's function.
                unsafe { f(user, object.0, attribute, transport(t)) };
            }
        }
        Callback::ConfirmInteractionTransportationTypeChange {
            class,
            transport: t,
        } => {
            if let Some(f) = table.confirm_interaction_transportation_type_change {
                // SAFETY: the caller's function.
                unsafe { f(user, u64::from(class.0), transport(t)) };
            }
        }
        Callback::ReportInteractionTransportationType {
            federate,
            class,
            transport: t,
        } => {
            if let Some(f) = table.report_interaction_transportation_type {
                let (federate, class) = (u64::from(federate), u64::from(class.0));
                // SAFETY: the caller's function.
                unsafe { f(user, federate, class, transport(t)) };
            }
        }
        // The other answers are delivered by `deliver_answer`, the rest by
        // `deliver_other`.
        _ => {}
    }
}

thread_local! {
    /// The retraction handle of the message whose callback runs on this thread.
    static CURRENT_RETRACTION: Cell<u64> = const { Cell::new(TRELLIS_NO_RETRACTION_HANDLE) };
}

/// Sets `CURRENT_RETRACTION` for one callback that carries a retraction handle, and clears
/// it when the callback returns. Outside those it holds none already, so a callback without
/// one (every receive-order reflect) costs no thread-local lookup.
struct CurrentRetraction(bool);

impl CurrentRetraction {
    fn set(handle: Option<MessageRetractionHandle>) -> CurrentRetraction {
        let Some(handle) = handle else {
            return CurrentRetraction(false);
        };
        CURRENT_RETRACTION.with(|c| c.set(handle.to_u64()));
        CurrentRetraction(true)
    }
}

impl Drop for CurrentRetraction {
    fn drop(&mut self) {
        if self.0 {
            CURRENT_RETRACTION.with(|c| c.set(TRELLIS_NO_RETRACTION_HANDLE));
        }
    }
}

/// Called from inside reflect_attribute_values, receive_interaction or
/// remove_object_instance: the retraction handle of the message delivered, when it was sent
/// in time-stamp order (the one its sender got, and request_retraction names), else
/// TRELLIS_NO_RETRACTION_HANDLE (as anywhere else). The callbacks' signatures stay as they
/// were; a binding that wants the handle asks.
#[no_mangle]
pub extern "C" fn trellis_callback_retraction_handle() -> u64 {
    CURRENT_RETRACTION.with(Cell::get)
}

/// Deliver `callback`, taken: any callback but reflects and interactions, which
/// [`deliver_values`] delivers where they lie.
pub(crate) fn deliver_other(
    table: &TrellisCallbacks,
    callback: Callback,
    representation: TimeRepresentation,
) {
    let time = |t: LogicalTime| TrellisTime::from_logical(t, representation);
    let _current = CurrentRetraction::set(callback.retraction());
    match callback {
        Callback::DiscoverObjectInstance {
            object,
            class,
            name,
        } => {
            if let Some(f) = table.discover_object_instance {
                let name = c_string(&name.to_string());
                let (id, class, registrar) = (object.0, u64::from(class.0), object.federate());
                // SAFETY: the caller's function; the name lives until it returns.
                unsafe { f(table.user, id, class, name.as_ptr(), u64::from(registrar)) };
            }
        }
        Callback::ReflectAttributeValues { .. } | Callback::ReceiveInteraction { .. } => {
            deliver_values(table, &callback, representation);
        }
        Callback::RemoveObjectInstance {
            object,
            tag,
            time: key,
            sender,
            sent_order,
            received_order,
            ..
        } => {
            if let Some(f) = table.remove_object_instance {
                let stamp = stamp(sent_order, key, representation);
                let (sent, received) = (order(sent_order), order(received_order));
                let (tag, sender) = (TrellisBytes::of(&tag), u64::from(sender));
                // SAFETY: the caller's function; the tag and the stamp live until it returns.
                unsafe {
                    f(
                        table.user,
                        object.0,
                        tag,
                        sent,
                        time_ptr(&stamp),
                        received,
                        sender,
                    )
                };
            }
        }
        Callback::ProvideAttributeValueUpdate {
            object,
            attributes,
            tag,
        } => with_tag(
            table,
            table.provide_attribute_value_update,
            object.0,
            &attributes,
            &tag,
        ),
        Callback::SynchronizationPointRegistrationSucceeded { label } => by_text(
            table,
            table.synchronization_point_registration_succeeded,
            &label,
        ),
        Callback::SynchronizationPointRegistrationFailed { label, reason } => {
            if let Some(f) = table.synchronization_point_registration_failed {
                let reason = match reason {
                    SyncFailure::LabelNotUnique => 0,
                    SyncFailure::MemberNotJoined => 1,
                };
                // SAFETY: the caller's function; the label lives until it returns.
                unsafe { f(table.user, c_string(&label).as_ptr(), reason) };
            }
        }
        Callback::AnnounceSynchronizationPoint { label, tag } => {
            if let Some(f) = table.announce_synchronization_point {
                let tag = TrellisBytes::of(&tag);
                // SAFETY: the caller's function; the label and the tag live until it returns.
                unsafe { f(table.user, c_string(&label).as_ptr(), tag) };
            }
        }
        Callback::FederationSynchronized { label, failed } => {
            if let Some(f) = table.federation_synchronized {
                let failed: Vec<u64> = failed.iter().map(|&h| u64::from(h)).collect();
                let label = c_string(&label);
                // SAFETY: the caller's function; the label and the list live until it returns.
                unsafe { f(table.user, label.as_ptr(), failed.as_ptr(), failed.len()) };
            }
        }
        Callback::TimeRegulationEnabled { time: t } => {
            at_time(table, table.time_regulation_enabled, time(t))
        }
        Callback::TimeConstrainedEnabled { time: t } => {
            at_time(table, table.time_constrained_enabled, time(t))
        }
        Callback::TimeAdvanceGrant { time: t } => at_time(table, table.time_advance_grant, time(t)),
        Callback::Ownership(o) => deliver_ownership(table, o),
        Callback::StartRegistrationForObjectClass { class } => by_handle(
            table,
            table.start_registration_for_object_class,
            u64::from(class.0),
        ),
        Callback::StopRegistrationForObjectClass { class } => by_handle(
            table,
            table.stop_registration_for_object_class,
            u64::from(class.0),
        ),
        Callback::TurnInteractionsOn { class } => {
            by_handle(table, table.turn_interactions_on, u64::from(class.0))
        }
        Callback::TurnInteractionsOff { class } => {
            by_handle(table, table.turn_interactions_off, u64::from(class.0))
        }
        Callback::TurnUpdatesOnForObjectInstance { object, attributes } => plain(
            table,
            table.turn_updates_on_for_object_instance,
            object.0,
            &attributes,
        ),
        Callback::TurnUpdatesOffForObjectInstance { object, attributes } => plain(
            table,
            table.turn_updates_off_for_object_instance,
            object.0,
            &attributes,
        ),
        Callback::ConnectionLost { fault } => by_text(table, table.connection_lost, &fault),
        // 1516e has no callback for it: Trellis's own, for federates that ask (the RTI also
        // logged it as a warning naming the sender and the count, and counts it).
        Callback::ReliableMessagesLost { sender, count, .. } => {
            if let Some(f) = table.reliable_messages_lost {
                let sender = sender.map_or(TRELLIS_UNKNOWN_FEDERATE, u64::from);
                // SAFETY: the caller's function, with plain values.
                unsafe { f(table.user, sender, count) };
            }
        }
        Callback::AttributesInScope { object, attributes } => {
            plain(table, table.attributes_in_scope, object.0, &attributes)
        }
        Callback::AttributesOutOfScope { object, attributes } => {
            plain(table, table.attributes_out_of_scope, object.0, &attributes)
        }
        Callback::RequestRetraction { handle } => {
            by_handle(table, table.request_retraction, handle.to_u64())
        }
        answer @ (Callback::ObjectInstanceNameReservationSucceeded { .. }
        | Callback::ObjectInstanceNameReservationFailed { .. }
        | Callback::MultipleObjectInstanceNameReservationSucceeded { .. }
        | Callback::MultipleObjectInstanceNameReservationFailed { .. }
        | Callback::ConfirmAttributeTransportationTypeChange { .. }
        | Callback::ReportAttributeTransportationType { .. }
        | Callback::ConfirmInteractionTransportationTypeChange { .. }
        | Callback::ReportInteractionTransportationType { .. }
        | Callback::ReportFederationExecutions { .. }) => deliver_answer(table, answer),
        Callback::Save(save) => crate::save::deliver_save(table, save, representation),
    }
}

/// Deliver a reflect or an interaction where it lies, so that it can be handed back to the
/// federate afterwards (its list of values serves a later message): at full rate this runs
/// once per message, and the callback is not moved on the way. False, delivering
/// nothing, for any other callback ([`deliver_other`]'s).
pub(crate) fn deliver_values(
    table: &TrellisCallbacks,
    callback: &Callback,
    representation: TimeRepresentation,
) -> bool {
    let _current = CurrentRetraction::set(callback.retraction());
    match *callback {
        Callback::ReflectAttributeValues {
            object,
            ref values,
            ref tag,
            time: key,
            sender,
            transport,
            sent_order,
            received_order,
            ..
        } => {
            let carried = Carried {
                tag,
                key,
                sender,
                transport,
                sent_order,
                received_order,
            };
            let values = &values[..];
            let f = table.reflect_attribute_values;
            with_values(
                table,
                f,
                object.0,
                values,
                |h| u64::from(h.0),
                carried,
                representation,
            );
            true
        }
        Callback::ReceiveInteraction {
            class,
            ref parameters,
            ref tag,
            time: key,
            sender,
            transport,
            sent_order,
            received_order,
            ..
        } => {
            let carried = Carried {
                tag,
                key,
                sender,
                transport,
                sent_order,
                received_order,
            };
            let (class, parameters) = (u64::from(class.0), &parameters[..]);
            let f = table.receive_interaction;
            with_values(
                table,
                f,
                class,
                parameters,
                |h| u64::from(h.0),
                carried,
                representation,
            );
            true
        }
        _ => false,
    }
}

fn deliver_ownership(table: &TrellisCallbacks, callback: OwnershipCallback) {
    use OwnershipCallback as O;
    match callback {
        O::RequestAttributeOwnershipAssumption {
            object,
            attributes,
            tag,
        } => with_tag(
            table,
            table.request_attribute_ownership_assumption,
            object.0,
            &attributes,
            &tag,
        ),
        O::RequestDivestitureConfirmation { object, attributes } => plain(
            table,
            table.request_divestiture_confirmation,
            object.0,
            &attributes,
        ),
        O::AttributeOwnershipAcquisitionNotification {
            object,
            attributes,
            tag,
        } => with_tag(
            table,
            table.attribute_ownership_acquisition_notification,
            object.0,
            &attributes,
            &tag,
        ),
        O::AttributeOwnershipUnavailable { object, attributes } => plain(
            table,
            table.attribute_ownership_unavailable,
            object.0,
            &attributes,
        ),
        O::RequestAttributeOwnershipRelease {
            object,
            attributes,
            tag,
        } => with_tag(
            table,
            table.request_attribute_ownership_release,
            object.0,
            &attributes,
            &tag,
        ),
        O::ConfirmAttributeOwnershipAcquisitionCancellation { object, attributes } => plain(
            table,
            table.confirm_attribute_ownership_acquisition_cancellation,
            object.0,
            &attributes,
        ),
        O::InformAttributeOwnership {
            object,
            attribute,
            owner,
        } => {
            if let Some(f) = table.inform_attribute_ownership {
                let (attribute, owner) = (u64::from(attribute.0), u64::from(owner));
                // SAFETY: the caller's function, with plain values.
                unsafe { f(table.user, object.0, attribute, owner) };
            }
        }
        O::AttributeIsNotOwned { object, attribute } => {
            if let Some(f) = table.attribute_is_not_owned {
                // SAFETY: the caller's function, with plain values.
                unsafe { f(table.user, object.0, u64::from(attribute.0)) };
            }
        }
        O::AttributeIsOwnedByRti { object, attribute } => {
            if let Some(f) = table.attribute_is_owned_by_rti {
                // SAFETY: the caller's function, with plain values.
                unsafe { f(table.user, object.0, u64::from(attribute.0)) };
            }
        }
    }
}

/// What reflections and interactions carry beside their values.
struct Carried<'a> {
    tag: &'a [u8],
    key: u64,
    sender: u32,
    transport: TransportClass,
    sent_order: Order,
    received_order: Order,
}

/// reflectAttributeValues or receiveInteraction: `first` is the instance or the class.
fn with_values<H: Copy>(
    table: &TrellisCallbacks,
    f: TrellisValuesCallback,
    first: u64,
    values: &[(H, bytes::Bytes)],
    raw: impl Fn(H) -> u64,
    carried: Carried<'_>,
    representation: TimeRepresentation,
) {
    if f.is_none() {
        return;
    }
    let pairs = values.iter().map(|(h, v)| TrellisHandleValue {
        handle: raw(*h),
        value: TrellisBytes::of(v),
    });
    HANDLE_VALUES.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut kept) => {
            kept.extend(pairs);
            call_with_values(table, f, first, &kept, carried, representation);
            // No pointer into this message outlives the call.
            kept.clear();
        }
        // Not reached (no delivery runs inside another on one thread); correct anyway.
        Err(_) => {
            let fresh: Vec<TrellisHandleValue> = pairs.collect();
            call_with_values(table, f, first, &fresh, carried, representation);
        }
    });
}

thread_local! {
    /// The handle-value array a reflect or an interaction hands C, kept between messages:
    /// building it afresh was an allocation per message. Empty between deliveries.
    static HANDLE_VALUES: std::cell::RefCell<Vec<TrellisHandleValue>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

fn call_with_values(
    table: &TrellisCallbacks,
    f: TrellisValuesCallback,
    first: u64,
    values: &[TrellisHandleValue],
    carried: Carried<'_>,
    representation: TimeRepresentation,
) {
    let Some(f) = f else { return };
    let stamp = stamp(carried.sent_order, carried.key, representation);
    // SAFETY: the caller's function; the values, the bytes they point to, the tag and the
    // stamp live until it returns.
    unsafe {
        f(
            table.user,
            first,
            values.as_ptr(),
            values.len(),
            TrellisBytes::of(carried.tag),
            order(carried.sent_order),
            transport(carried.transport),
            time_ptr(&stamp),
            order(carried.received_order),
            u64::from(carried.sender),
            std::ptr::null(),
            0,
        )
    };
}

fn with_tag(
    table: &TrellisCallbacks,
    f: WithTag,
    object: u64,
    attributes: &[AttributeHandle],
    tag: &[u8],
) {
    if let Some(f) = f {
        let a = ids(attributes);
        // SAFETY: the caller's function; the handles and the tag live until it returns.
        unsafe {
            f(
                table.user,
                object,
                a.as_ptr(),
                a.len(),
                TrellisBytes::of(tag),
            )
        };
    }
}

fn plain(table: &TrellisCallbacks, f: Plain, object: u64, attributes: &[AttributeHandle]) {
    if let Some(f) = f {
        let a = ids(attributes);
        // SAFETY: the caller's function; the handles live until it returns.
        unsafe { f(table.user, object, a.as_ptr(), a.len()) };
    }
}

fn by_handle(table: &TrellisCallbacks, f: ByHandle, handle: u64) {
    if let Some(f) = f {
        // SAFETY: the caller's function, with a plain value.
        unsafe { f(table.user, handle) };
    }
}

fn by_text(table: &TrellisCallbacks, f: ByText, text: &str) {
    if let Some(f) = f {
        // SAFETY: the caller's function; the string lives until it returns.
        unsafe { f(table.user, c_string(text).as_ptr()) };
    }
}

fn by_texts(table: &TrellisCallbacks, f: ByTexts, texts: &[String]) {
    if let Some(f) = f {
        let (_owned, pointers) = c_strings(texts);
        // SAFETY: the caller's function; the array and the strings live until it returns.
        unsafe { f(table.user, pointers.as_ptr(), pointers.len()) };
    }
}

fn at_time(table: &TrellisCallbacks, f: AtTime, time: TrellisTime) {
    if let Some(f) = f {
        // SAFETY: the caller's function, with a value.
        unsafe { f(table.user, time) };
    }
}
