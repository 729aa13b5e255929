//! Callbacks as Python events: the standard callback's name in snake case
//! (`reflect_attribute_values`) and a dict of its arguments, with handles turned into the
//! object model's names, values decoded by their data types and logical times in the
//! federation's representation.

use crate::model::short_name;
use crate::times::{time_to_py, Times};
use bytes::Bytes;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use trellis_core::federate::save::SaveCallback;
use trellis_core::federate::{Callback, LogicalTime, MessageRetractionHandle, OwnershipCallback};
use trellis_core::fom::{
    AttributeHandle, InteractionClassHandle, ObjectClassHandle, ObjectModel, Order, ParameterHandle,
};

/// What turning a callback into an event needs.
pub struct Context<'a> {
    pub model: &'a ObjectModel,
    pub times: Times,
    /// Decode values by their data types (else only `raw` bytes).
    pub decode: bool,
}

pub type Event<'py> = (&'static str, Bound<'py, PyDict>);

/// How a reflection, interaction or removal was delivered.
struct Delivery {
    tag: Bytes,
    time: u64,
    sender: u32,
    sent: Order,
    received: Order,
    retraction: Option<MessageRetractionHandle>,
}

fn order_name(order: Order) -> &'static str {
    match order {
        Order::Receive => "receive",
        Order::TimeStamp => "timestamp",
    }
}

impl Context<'_> {
    fn attribute_names(&self, attributes: &[AttributeHandle]) -> Vec<String> {
        attributes
            .iter()
            .map(|a| self.model.attribute(*a).name.clone())
            .collect()
    }

    /// Values by name, decoded (`values`) and as sent (`raw`); a value that does not
    /// decode as its type stays bytes in `values`, and `decode_errors` says why.
    fn named_values<'py>(
        &self,
        event: &Bound<'py, PyDict>,
        named: impl Iterator<Item = (String, String, Bytes)>,
    ) -> PyResult<()> {
        let py = event.py();
        let (values, raw, errors) = (PyDict::new(py), PyDict::new(py), PyDict::new(py));
        for (name, data_type, bytes) in named {
            let as_bytes = PyBytes::new(py, &bytes);
            let decoded = if self.decode {
                match crate::values::decode(py, self.model.data_types(), &data_type, &bytes) {
                    Ok(value) => value,
                    Err(crate::values::Mismatch(why)) => {
                        errors.set_item(&name, why)?;
                        as_bytes.clone().into_any()
                    }
                }
            } else {
                as_bytes.clone().into_any()
            };
            values.set_item(&name, decoded)?;
            raw.set_item(&name, as_bytes)?;
        }
        event.set_item("values", values)?;
        event.set_item("raw", raw)?;
        event.set_item("decode_errors", errors)
    }

    /// A message's delivery: its logical time when it came in time-stamp order (else
    /// None), the orders, the sender, the tag and the retraction handle.
    fn delivery(&self, event: &Bound<'_, PyDict>, delivery: Delivery) -> PyResult<()> {
        let py = event.py();
        let logical = match delivery.sent {
            Order::TimeStamp => Some(time_to_py(
                py,
                self.times,
                LogicalTime::from_key(delivery.time),
            )?),
            Order::Receive => None,
        };
        event.set_item("time", logical)?;
        event.set_item("tag", PyBytes::new(py, &delivery.tag))?;
        event.set_item("sender", delivery.sender)?;
        event.set_item("sent_order", order_name(delivery.sent))?;
        event.set_item("received_order", order_name(delivery.received))?;
        event.set_item("retraction", delivery.retraction.map(|r| r.to_u64()))
    }

    pub fn event<'py>(&self, py: Python<'py>, callback: Callback) -> PyResult<Event<'py>> {
        let d = PyDict::new(py);
        let kind = match callback {
            Callback::DiscoverObjectInstance {
                object,
                class,
                name,
            } => {
                d.set_item("object", object.0)?;
                d.set_item("object_class", self.object_class_name(class))?;
                d.set_item("object_name", name.to_string())?;
                "discover_object_instance"
            }
            reflect @ Callback::ReflectAttributeValues { .. } => self.reflect(&d, reflect)?,
            interaction @ Callback::ReceiveInteraction { .. } => {
                self.interaction(&d, interaction)?
            }
            Callback::RemoveObjectInstance {
                object,
                tag,
                time,
                sender,
                sent_order,
                received_order,
                retraction,
            } => {
                d.set_item("object", object.0)?;
                let delivery = Delivery {
                    tag,
                    time,
                    sender,
                    sent: sent_order,
                    received: received_order,
                    retraction,
                };
                self.delivery(&d, delivery)?;
                "remove_object_instance"
            }
            other => return self.other_event(py, d, other),
        };
        Ok((kind, d))
    }

    fn object_class_name(&self, class: ObjectClassHandle) -> &str {
        short_name(&self.model.object_class(class).qualified_name)
    }

    fn interaction_class_name(&self, class: InteractionClassHandle) -> &str {
        short_name(&self.model.interaction_class(class).qualified_name)
    }

    fn reflect(&self, d: &Bound<'_, PyDict>, callback: Callback) -> PyResult<&'static str> {
        let Callback::ReflectAttributeValues {
            object,
            class,
            values,
            tag,
            time,
            sender,
            sent_order,
            received_order,
            retraction,
            ..
        } = callback
        else {
            return Ok("reflect_attribute_values");
        };
        d.set_item("object", object.0)?;
        d.set_item("object_class", self.object_class_name(class))?;
        let named = values.into_iter().map(|(a, bytes)| {
            let attribute = self.model.attribute(a);
            (attribute.name.clone(), attribute.data_type.clone(), bytes)
        });
        self.named_values(d, named)?;
        let delivery = Delivery {
            tag,
            time,
            sender,
            sent: sent_order,
            received: received_order,
            retraction,
        };
        self.delivery(d, delivery)?;
        Ok("reflect_attribute_values")
    }

    fn interaction(&self, d: &Bound<'_, PyDict>, callback: Callback) -> PyResult<&'static str> {
        let Callback::ReceiveInteraction {
            class,
            parameters,
            tag,
            time,
            sender,
            sent_order,
            received_order,
            retraction,
            ..
        } = callback
        else {
            return Ok("receive_interaction");
        };
        d.set_item("interaction_class", self.interaction_class_name(class))?;
        let named = parameters
            .into_iter()
            .map(|(p, bytes): (ParameterHandle, Bytes)| {
                let parameter = self.model.parameter(p);
                (parameter.name.clone(), parameter.data_type.clone(), bytes)
            });
        self.named_values(d, named)?;
        let delivery = Delivery {
            tag,
            time,
            sender,
            sent: sent_order,
            received: received_order,
            retraction,
        };
        self.delivery(d, delivery)?;
        Ok("receive_interaction")
    }

    fn other_event<'py>(
        &self,
        py: Python<'py>,
        d: Bound<'py, PyDict>,
        callback: Callback,
    ) -> PyResult<Event<'py>> {
        let kind = match callback {
            Callback::ProvideAttributeValueUpdate {
                object,
                attributes,
                tag,
            } => {
                d.set_item("object", object.0)?;
                d.set_item("attributes", self.attribute_names(&attributes))?;
                d.set_item("tag", PyBytes::new(py, &tag))?;
                "provide_attribute_value_update"
            }
            Callback::SynchronizationPointRegistrationSucceeded { label } => {
                d.set_item("label", label)?;
                "synchronization_point_registration_succeeded"
            }
            Callback::SynchronizationPointRegistrationFailed { label, reason } => {
                d.set_item("label", label)?;
                d.set_item("reason", format!("{reason:?}"))?;
                "synchronization_point_registration_failed"
            }
            Callback::AnnounceSynchronizationPoint { label, tag } => {
                d.set_item("label", label)?;
                d.set_item("tag", PyBytes::new(py, &tag))?;
                "announce_synchronization_point"
            }
            Callback::FederationSynchronized { label, failed } => {
                d.set_item("label", label)?;
                d.set_item("failed", failed)?;
                "federation_synchronized"
            }
            Callback::TimeRegulationEnabled { time } => {
                self.with_time(&d, time, "time_regulation_enabled")?
            }
            Callback::TimeConstrainedEnabled { time } => {
                self.with_time(&d, time, "time_constrained_enabled")?
            }
            Callback::TimeAdvanceGrant { time } => {
                self.with_time(&d, time, "time_advance_grant")?
            }
            Callback::Ownership(ownership) => self.ownership_event(py, &d, ownership)?,
            other => return self.advisory_event(d, other),
        };
        Ok((kind, d))
    }

    fn with_time(
        &self,
        d: &Bound<'_, PyDict>,
        time: LogicalTime,
        kind: &'static str,
    ) -> PyResult<&'static str> {
        d.set_item("time", time_to_py(d.py(), self.times, time)?)?;
        Ok(kind)
    }

    fn ownership_event(
        &self,
        py: Python<'_>,
        d: &Bound<'_, PyDict>,
        callback: OwnershipCallback,
    ) -> PyResult<&'static str> {
        use OwnershipCallback as O;
        let (kind, object, attributes, tag) = match callback {
            O::RequestAttributeOwnershipAssumption {
                object,
                attributes,
                tag,
            } => (
                "request_attribute_ownership_assumption",
                object,
                attributes,
                Some(tag),
            ),
            O::RequestDivestitureConfirmation { object, attributes } => {
                ("request_divestiture_confirmation", object, attributes, None)
            }
            O::AttributeOwnershipAcquisitionNotification {
                object,
                attributes,
                tag,
            } => (
                "attribute_ownership_acquisition_notification",
                object,
                attributes,
                Some(tag),
            ),
            O::AttributeOwnershipUnavailable { object, attributes } => {
                ("attribute_ownership_unavailable", object, attributes, None)
            }
            O::RequestAttributeOwnershipRelease {
                object,
                attributes,
                tag,
            } => (
                "request_attribute_ownership_release",
                object,
                attributes,
                Some(tag),
            ),
            O::ConfirmAttributeOwnershipAcquisitionCancellation { object, attributes } => (
                "confirm_attribute_ownership_acquisition_cancellation",
                object,
                attributes,
                None,
            ),
            O::InformAttributeOwnership {
                object,
                attribute,
                owner,
            } => {
                d.set_item("owner", owner)?;
                ("inform_attribute_ownership", object, vec![attribute], None)
            }
            O::AttributeIsNotOwned { object, attribute } => {
                ("attribute_is_not_owned", object, vec![attribute], None)
            }
            O::AttributeIsOwnedByRti { object, attribute } => {
                ("attribute_is_owned_by_rti", object, vec![attribute], None)
            }
        };
        d.set_item("object", object.0)?;
        d.set_item("attributes", self.attribute_names(&attributes))?;
        if let Some(tag) = tag {
            d.set_item("tag", PyBytes::new(py, &tag))?;
        }
        Ok(kind)
    }

    fn advisory_event<'py>(
        &self,
        d: Bound<'py, PyDict>,
        callback: Callback,
    ) -> PyResult<Event<'py>> {
        let (kind, object, attributes) = match callback {
            Callback::StartRegistrationForObjectClass { class } => {
                d.set_item("object_class", self.object_class_name(class))?;
                return Ok(("start_registration_for_object_class", d));
            }
            Callback::StopRegistrationForObjectClass { class } => {
                d.set_item("object_class", self.object_class_name(class))?;
                return Ok(("stop_registration_for_object_class", d));
            }
            Callback::TurnInteractionsOn { class } => {
                d.set_item("interaction_class", self.interaction_class_name(class))?;
                return Ok(("turn_interactions_on", d));
            }
            Callback::TurnInteractionsOff { class } => {
                d.set_item("interaction_class", self.interaction_class_name(class))?;
                return Ok(("turn_interactions_off", d));
            }
            Callback::TurnUpdatesOnForObjectInstance { object, attributes } => {
                ("turn_updates_on_for_object_instance", object, attributes)
            }
            Callback::TurnUpdatesOffForObjectInstance { object, attributes } => {
                ("turn_updates_off_for_object_instance", object, attributes)
            }
            Callback::AttributesInScope { object, attributes } => {
                ("attributes_in_scope", object, attributes)
            }
            Callback::AttributesOutOfScope { object, attributes } => {
                ("attributes_out_of_scope", object, attributes)
            }
            other => return self.notice_event(d, other),
        };
        d.set_item("object", object.0)?;
        d.set_item("attributes", self.attribute_names(&attributes))?;
        Ok((kind, d))
    }

    fn notice_event<'py>(&self, d: Bound<'py, PyDict>, callback: Callback) -> PyResult<Event<'py>> {
        let kind = match callback {
            Callback::ConnectionLost { fault } => {
                d.set_item("fault", fault)?;
                "connection_lost"
            }
            Callback::ReliableMessagesLost { sender, count, .. } => {
                d.set_item("sender", sender)?;
                d.set_item("count", count)?;
                "reliable_messages_lost"
            }
            Callback::RequestRetraction { handle } => {
                d.set_item("retraction", handle.to_u64())?;
                "request_retraction"
            }
            Callback::ObjectInstanceNameReservationSucceeded { name } => {
                d.set_item("name", name)?;
                "object_instance_name_reservation_succeeded"
            }
            Callback::ObjectInstanceNameReservationFailed { name } => {
                d.set_item("name", name)?;
                "object_instance_name_reservation_failed"
            }
            Callback::MultipleObjectInstanceNameReservationSucceeded { names } => {
                d.set_item("names", names)?;
                "multiple_object_instance_name_reservation_succeeded"
            }
            Callback::MultipleObjectInstanceNameReservationFailed { names } => {
                d.set_item("names", names)?;
                "multiple_object_instance_name_reservation_failed"
            }
            Callback::ReportFederationExecutions { federations } => {
                d.set_item("federations", federations)?;
                "report_federation_executions"
            }
            Callback::Save(save) => return self.save_event(d, save),
            other => {
                // Transportation-type confirmations and reports: their fields as text.
                d.set_item("detail", format!("{other:?}"))?;
                "transportation_type_report"
            }
        };
        Ok((kind, d))
    }

    /// Save and restore callbacks, by the standard's names; reasons and statuses as the
    /// standard's enumerator names.
    fn save_event<'py>(&self, d: Bound<'py, PyDict>, save: SaveCallback) -> PyResult<Event<'py>> {
        let kind = match save {
            SaveCallback::InitiateFederateSave { label, time } => {
                d.set_item("label", label)?;
                let time = time
                    .map(|t| time_to_py(d.py(), self.times, t))
                    .transpose()?;
                d.set_item("time", time)?;
                "initiate_federate_save"
            }
            SaveCallback::FederationSaved => "federation_saved",
            SaveCallback::FederationNotSaved { reason } => {
                d.set_item("reason", format!("{reason:?}"))?;
                "federation_not_saved"
            }
            SaveCallback::FederationSaveStatusResponse { statuses } => {
                let statuses: Vec<(u32, String)> = (statuses.into_iter())
                    .map(|(f, s)| (f, format!("{s:?}")))
                    .collect();
                d.set_item("statuses", statuses)?;
                "federation_save_status_response"
            }
            SaveCallback::RequestFederationRestoreSucceeded { label } => {
                d.set_item("label", label)?;
                "request_federation_restore_succeeded"
            }
            SaveCallback::RequestFederationRestoreFailed { label } => {
                d.set_item("label", label)?;
                "request_federation_restore_failed"
            }
            SaveCallback::FederationRestoreBegun => "federation_restore_begun",
            SaveCallback::InitiateFederateRestore {
                label,
                name,
                handle,
            } => {
                d.set_item("label", label)?;
                d.set_item("name", name)?;
                d.set_item("handle", handle)?;
                "initiate_federate_restore"
            }
            SaveCallback::FederationRestored => "federation_restored",
            SaveCallback::FederationNotRestored { reason } => {
                d.set_item("reason", format!("{reason:?}"))?;
                "federation_not_restored"
            }
            SaveCallback::FederationRestoreStatusResponse { statuses } => {
                let statuses: Vec<(u32, String)> = (statuses.into_iter())
                    .map(|(f, s)| (f, format!("{s:?}")))
                    .collect();
                d.set_item("statuses", statuses)?;
                "federation_restore_status_response"
            }
        };
        Ok((kind, d))
    }
}
