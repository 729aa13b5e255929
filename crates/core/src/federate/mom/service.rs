//! `HLAmanager.HLAfederate.HLAservice` (IEEE 1516.1-2010 §11.2, the MIM's service
//! interactions): a manager asks a federate's RTI component to invoke a service for the
//! federate. The addressed federate's own component carries it out exactly as if the
//! federate had called it (refused, as the federate's own calls are, while it saves or
//! restores: save and restore's own services aside), so the federate sees the callbacks the service makes
//! (timeRegulationEnabled, timeAdvanceGrant, startRegistrationForObjectClass...).
//!
//! A service that fails — a parameter that is not its MIM type, a handle of no class, a
//! federate in the wrong state — comes back as `HLAreportMOMexception` naming the service
//! and why, `HLAparameterError` saying whether a parameter was at fault; nothing of the
//! federate's state changes. HLAresignFederationExecution is not here: the registry carries
//! it out (`control.rs`), because the federate it resigns may no longer answer.
//! Who may send these is the access policy's: a `publish` list without
//! `HLAmanager.HLAfederate.HLAservice.*` keeps an identity from sending any of them.

use super::{counts, decode, Federate};
use crate::federate::TimeRepresentation;
use crate::federate::{AdvanceKind, FederateError, Interval, LogicalTime, ObjectId};
use crate::fom::{AttributeHandle, InteractionClassHandle, ObjectClassHandle, Order};
use crate::wire::TransportClass;
use bytes::Bytes;

/// The service an `HLAservice` subclass asks for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Service {
    SynchronizationPointAchieved,
    PublishObjectClassAttributes,
    UnpublishObjectClassAttributes,
    PublishInteractionClass,
    UnpublishInteractionClass,
    SubscribeObjectClassAttributes,
    UnsubscribeObjectClassAttributes,
    SubscribeInteractionClass,
    UnsubscribeInteractionClass,
    DeleteObjectInstance,
    LocalDeleteObjectInstance,
    RequestAttributeTransportationTypeChange,
    RequestInteractionTransportationTypeChange,
    UnconditionalAttributeOwnershipDivestiture,
    EnableTimeRegulation,
    DisableTimeRegulation,
    EnableTimeConstrained,
    DisableTimeConstrained,
    Advance(AdvanceKind),
    EnableAsynchronousDelivery,
    DisableAsynchronousDelivery,
    ModifyLookahead,
    ChangeAttributeOrderType,
    ChangeInteractionOrderType,
    FederateSaveBegun,
    FederateSaveComplete,
    FederateRestoreComplete,
}

impl Service {
    /// The save and restore services themselves, which go on while the federation saves.
    fn takes_part_in_save(self) -> bool {
        matches!(
            self,
            Service::FederateSaveBegun
                | Service::FederateSaveComplete
                | Service::FederateRestoreComplete
        )
    }

    /// The service a class of qualified name `qualified_name` asks for, with its name as
    /// the reports give it (the subclass's own name).
    pub(super) fn of(qualified_name: &str) -> Option<(Service, &str)> {
        let name =
            qualified_name.strip_prefix("HLAinteractionRoot.HLAmanager.HLAfederate.HLAservice.")?;
        let service = match name {
            "HLAsynchronizationPointAchieved" => Service::SynchronizationPointAchieved,
            "HLApublishObjectClassAttributes" => Service::PublishObjectClassAttributes,
            "HLAunpublishObjectClassAttributes" => Service::UnpublishObjectClassAttributes,
            "HLApublishInteractionClass" => Service::PublishInteractionClass,
            "HLAunpublishInteractionClass" => Service::UnpublishInteractionClass,
            "HLAsubscribeObjectClassAttributes" => Service::SubscribeObjectClassAttributes,
            "HLAunsubscribeObjectClassAttributes" => Service::UnsubscribeObjectClassAttributes,
            "HLAsubscribeInteractionClass" => Service::SubscribeInteractionClass,
            "HLAunsubscribeInteractionClass" => Service::UnsubscribeInteractionClass,
            "HLAdeleteObjectInstance" => Service::DeleteObjectInstance,
            "HLAlocalDeleteObjectInstance" => Service::LocalDeleteObjectInstance,
            "HLArequestAttributeTransportationTypeChange" => {
                Service::RequestAttributeTransportationTypeChange
            }
            "HLArequestInteractionTransportationTypeChange" => {
                Service::RequestInteractionTransportationTypeChange
            }
            "HLAunconditionalAttributeOwnershipDivestiture" => {
                Service::UnconditionalAttributeOwnershipDivestiture
            }
            "HLAenableTimeRegulation" => Service::EnableTimeRegulation,
            "HLAdisableTimeRegulation" => Service::DisableTimeRegulation,
            "HLAenableTimeConstrained" => Service::EnableTimeConstrained,
            "HLAdisableTimeConstrained" => Service::DisableTimeConstrained,
            "HLAtimeAdvanceRequest" => Service::Advance(AdvanceKind::Tar),
            "HLAtimeAdvanceRequestAvailable" => Service::Advance(AdvanceKind::Tara),
            "HLAnextMessageRequest" => Service::Advance(AdvanceKind::Nmr),
            "HLAnextMessageRequestAvailable" => Service::Advance(AdvanceKind::Nmra),
            "HLAflushQueueRequest" => Service::Advance(AdvanceKind::Flush),
            "HLAenableAsynchronousDelivery" => Service::EnableAsynchronousDelivery,
            "HLAdisableAsynchronousDelivery" => Service::DisableAsynchronousDelivery,
            "HLAmodifyLookahead" => Service::ModifyLookahead,
            "HLAchangeAttributeOrderType" => Service::ChangeAttributeOrderType,
            "HLAchangeInteractionOrderType" => Service::ChangeInteractionOrderType,
            "HLAfederateSaveBegun" => Service::FederateSaveBegun,
            "HLAfederateSaveComplete" => Service::FederateSaveComplete,
            "HLAfederateRestoreComplete" => Service::FederateRestoreComplete,
            _ => return None,
        };
        Some((service, name))
    }
}

/// Why a service interaction was not carried out.
enum Failure {
    /// A parameter missing or not of its MIM type, or a handle of nothing (HLAparameterError).
    Parameter(String),
    /// The service itself refused, as it would have refused the federate.
    Refused(FederateError),
}

impl From<FederateError> for Failure {
    fn from(error: FederateError) -> Failure {
        Failure::Refused(error)
    }
}

/// The parameters of one service interaction, read by name and MIM type.
struct Arguments<'v> {
    class: InteractionClassHandle,
    values: &'v [(u32, Bytes)],
}

impl Federate {
    /// Carry out `service` (an `HLAservice` interaction of `class` addressed to this
    /// federate); a failure is reported as HLAreportMOMexception.
    pub(super) fn mom_service(
        &mut self,
        service: Service,
        name: &str,
        class: InteractionClassHandle,
        values: &[(u32, Bytes)],
    ) {
        let arguments = Arguments { class, values };
        let outcome = self.invoke(service, &arguments);
        let (why, parameter_error) = match outcome {
            Ok(()) => return,
            Err(Failure::Parameter(why)) => (why, true),
            Err(Failure::Refused(error)) => (error.to_string(), false),
        };
        let handle = self.handle;
        self.report_mom_exception(handle, name, &why, parameter_error);
    }

    fn invoke(&mut self, service: Service, args: &Arguments<'_>) -> Result<(), Failure> {
        if !service.takes_part_in_save() {
            // As the ambassador refuses the federate's own calls while it saves or restores.
            self.check_not_saving()?;
        }
        match service {
            Service::SynchronizationPointAchieved => {
                let label = decode::unicode_string(self.argument(args, "HLAlabel")?);
                let label = label.map_err(parameter("HLAlabel"))?;
                Ok(self.synchronization_point_achieved(&label, true)?)
            }
            Service::PublishObjectClassAttributes
            | Service::UnpublishObjectClassAttributes
            | Service::SubscribeObjectClassAttributes
            | Service::UnsubscribeObjectClassAttributes => {
                self.invoke_object_declaration(service, args)
            }
            Service::PublishInteractionClass
            | Service::UnpublishInteractionClass
            | Service::SubscribeInteractionClass
            | Service::UnsubscribeInteractionClass
            | Service::RequestInteractionTransportationTypeChange
            | Service::ChangeInteractionOrderType => self.invoke_interaction_service(service, args),
            Service::DeleteObjectInstance
            | Service::LocalDeleteObjectInstance
            | Service::RequestAttributeTransportationTypeChange
            | Service::UnconditionalAttributeOwnershipDivestiture
            | Service::ChangeAttributeOrderType => self.invoke_instance_service(service, args),
            _ => self.invoke_time_service(service, args),
        }
    }

    fn invoke_object_declaration(
        &mut self,
        service: Service,
        args: &Arguments<'_>,
    ) -> Result<(), Failure> {
        let class = self.object_class_argument(args, "HLAobjectClass")?;
        let attributes = self.attributes_argument(args)?;
        match service {
            Service::PublishObjectClassAttributes => {
                Ok(self.publish_object_class_attributes(class, &attributes)?)
            }
            Service::UnpublishObjectClassAttributes => {
                Ok(self.unpublish_object_class_attributes(class, &attributes)?)
            }
            Service::SubscribeObjectClassAttributes if self.active_argument(args)? => {
                Ok(self.subscribe_object_class_attributes(class, &attributes, &[])?)
            }
            Service::SubscribeObjectClassAttributes => {
                Ok(self.subscribe_object_class_attributes_passively(class, &attributes, &[])?)
            }
            _ => Ok(self.unsubscribe_object_class_attributes(class, &attributes)?),
        }
    }

    fn invoke_interaction_service(
        &mut self,
        service: Service,
        args: &Arguments<'_>,
    ) -> Result<(), Failure> {
        let class = self.interaction_class_argument(args)?;
        match service {
            Service::PublishInteractionClass => Ok(self.publish_interaction_class(class)?),
            Service::UnpublishInteractionClass => {
                self.unpublish_interaction_class(class);
                Ok(())
            }
            Service::SubscribeInteractionClass if self.active_argument(args)? => {
                Ok(self.subscribe_interaction_class(class, &[])?)
            }
            Service::SubscribeInteractionClass => {
                Ok(self.subscribe_interaction_class_passively(class, &[])?)
            }
            Service::UnsubscribeInteractionClass => {
                self.unsubscribe_interaction_class(class);
                Ok(())
            }
            Service::RequestInteractionTransportationTypeChange => {
                let transport = self.transportation_argument(args)?;
                Ok(self.change_interaction_transportation(class, transport)?)
            }
            _ => {
                let order = self.order_argument(args)?;
                Ok(self.change_interaction_order_type(class, order)?)
            }
        }
    }

    fn invoke_instance_service(
        &mut self,
        service: Service,
        args: &Arguments<'_>,
    ) -> Result<(), Failure> {
        let handle = decode::handle(self.argument(args, "HLAobjectInstance")?);
        let object = ObjectId(handle.map_err(parameter("HLAobjectInstance"))?);
        match service {
            Service::DeleteObjectInstance => {
                let tag = decode::opaque_data(self.argument(args, "HLAtag")?);
                let tag = tag.map_err(parameter("HLAtag"))?;
                match self.time_argument(args, "HLAtimeStamp")? {
                    Some(time) => self.delete_object_instance_at(object, &tag, time).map(drop),
                    None => self.delete_object_instance(object, &tag, 0),
                }
                .map_err(Failure::Refused)
            }
            Service::LocalDeleteObjectInstance => Ok(self.local_delete_object_instance(object)?),
            _ => {
                let attributes = self.attributes_argument(args)?;
                match service {
                    Service::RequestAttributeTransportationTypeChange => {
                        let transport = self.transportation_argument(args)?;
                        Ok(self.change_attribute_transportation(object, &attributes, transport)?)
                    }
                    Service::ChangeAttributeOrderType => {
                        let order = self.order_argument(args)?;
                        Ok(self.change_attribute_order_type(object, &attributes, order)?)
                    }
                    _ => {
                        Ok(self
                            .unconditional_attribute_ownership_divestiture(object, &attributes)?)
                    }
                }
            }
        }
    }

    fn invoke_time_service(
        &mut self,
        service: Service,
        args: &Arguments<'_>,
    ) -> Result<(), Failure> {
        match service {
            Service::EnableTimeRegulation => {
                let lookahead = self.interval_argument(args)?;
                Ok(self.enable_time_regulation(lookahead)?)
            }
            Service::DisableTimeRegulation => Ok(self.disable_time_regulation()?),
            Service::EnableTimeConstrained => Ok(self.enable_time_constrained()?),
            Service::DisableTimeConstrained => Ok(self.disable_time_constrained()?),
            Service::Advance(kind) => match self.time_argument(args, "HLAtimeStamp")? {
                Some(time) => Ok(self.request_time_advance(kind, time)?),
                None => Err(Failure::Parameter("HLAtimeStamp: no time given".into())),
            },
            Service::EnableAsynchronousDelivery => Ok(self.enable_asynchronous_delivery()?),
            Service::DisableAsynchronousDelivery => Ok(self.disable_asynchronous_delivery()?),
            Service::ModifyLookahead => {
                let lookahead = self.interval_argument(args)?;
                Ok(self.modify_lookahead(lookahead)?)
            }
            Service::FederateSaveBegun => Ok(self.federate_save_begun()?),
            Service::FederateSaveComplete => {
                Ok(self.federate_save_complete(self.success_argument(args)?)?)
            }
            _ => Ok(self.federate_restore_complete(self.success_argument(args)?)?),
        }
    }

    /// HLAsuccessIndicator: HLAboolean.
    fn success_argument(&self, args: &Arguments<'_>) -> Result<bool, Failure> {
        let name = "HLAsuccessIndicator";
        decode::boolean(self.argument(args, name)?).map_err(parameter(name))
    }

    /// The bytes of parameter `name`, borrowed from the interaction.
    fn argument<'v>(&self, args: &Arguments<'v>, name: &str) -> Result<&'v [u8], Failure> {
        let handle = self.model.find_parameter(args.class, name);
        let value = handle.and_then(|h| args.values.iter().find(|(p, _)| *p == h.0));
        value
            .map(|(_, v)| v.as_ref())
            .ok_or_else(|| Failure::Parameter(format!("{name}: missing")))
    }

    fn object_class_argument(
        &self,
        args: &Arguments<'_>,
        name: &str,
    ) -> Result<ObjectClassHandle, Failure> {
        let value = decode::handle(self.argument(args, name)?).map_err(parameter(name))?;
        let defined = usize::try_from(value).is_ok_and(|v| v < self.model.object_classes().len());
        let handle = u32::try_from(value).ok().filter(|_| defined);
        handle.map(ObjectClassHandle).ok_or_else(|| {
            Failure::Parameter(format!("{name}: no object class has handle {value}"))
        })
    }

    fn interaction_class_argument(
        &self,
        args: &Arguments<'_>,
    ) -> Result<InteractionClassHandle, Failure> {
        let name = "HLAinteractionClass";
        let value = decode::handle(self.argument(args, name)?).map_err(parameter(name))?;
        let count = self.model.interaction_classes().len();
        let handle = u32::try_from(value).ok().filter(|&v| (v as usize) < count);
        handle.map(InteractionClassHandle).ok_or_else(|| {
            Failure::Parameter(format!("{name}: no interaction class has handle {value}"))
        })
    }

    /// HLAattributeList; whether each belongs to the class is the service's own check.
    fn attributes_argument(&self, args: &Arguments<'_>) -> Result<Vec<AttributeHandle>, Failure> {
        let name = "HLAattributeList";
        let values = decode::handle_list(self.argument(args, name)?).map_err(parameter(name))?;
        let count = self.model.counts().attributes;
        (values.into_iter())
            .map(|v| {
                let handle = u32::try_from(v).ok().filter(|&a| (a as usize) < count);
                handle.map(AttributeHandle).ok_or_else(|| {
                    Failure::Parameter(format!("{name}: no attribute has handle {v}"))
                })
            })
            .collect()
    }

    /// HLAactive: HLAboolean, true (an active subscription) when absent.
    fn active_argument(&self, args: &Arguments<'_>) -> Result<bool, Failure> {
        match self.argument(args, "HLAactive") {
            Ok(value) => decode::boolean(value).map_err(parameter("HLAactive")),
            Err(_) => Ok(true),
        }
    }

    fn transportation_argument(&self, args: &Arguments<'_>) -> Result<TransportClass, Failure> {
        let name = "HLAtransportation";
        let text = decode::unicode_string(self.argument(args, name)?).map_err(parameter(name))?;
        let index = counts::TRANSPORTATION_NAMES.iter().position(|n| *n == text);
        index.map(|i| counts::TRANSPORTS[i]).ok_or_else(|| {
            Failure::Parameter(format!(
                "{name}: {text:?} is neither HLAreliable nor HLAbestEffort"
            ))
        })
    }

    /// HLAsendOrder: HLAorderType, Receive (0) or TimeStamp (1).
    fn order_argument(&self, args: &Arguments<'_>) -> Result<Order, Failure> {
        let name = "HLAsendOrder";
        match decode::int32(self.argument(args, name)?).map_err(parameter(name))? {
            0 => Ok(Order::Receive),
            1 => Ok(Order::TimeStamp),
            other => Err(Failure::Parameter(format!(
                "{name}: {other} is neither Receive (0) nor TimeStamp (1)"
            ))),
        }
    }

    /// An HLAlogicalTime in the federation's time implementation; `None` when empty.
    fn time_argument(
        &self,
        args: &Arguments<'_>,
        name: &str,
    ) -> Result<Option<LogicalTime>, Failure> {
        let Ok(value) = self.argument(args, name) else {
            return Ok(None);
        };
        let bytes = decode::opaque_time(value).map_err(parameter(name))?;
        let Some(bytes) = bytes else { return Ok(None) };
        match self.time.representation() {
            TimeRepresentation::Integer64 => {
                Ok(Some(LogicalTime::from_i64(i64::from_be_bytes(bytes))))
            }
            TimeRepresentation::Float64 => LogicalTime::from_f64(f64::from_be_bytes(bytes))
                .map(Some)
                .ok_or_else(|| Failure::Parameter(format!("{name}: not a valid HLAfloat64Time"))),
        }
    }

    /// HLAlookahead: an HLAtimeInterval in the federation's time implementation.
    fn interval_argument(&self, args: &Arguments<'_>) -> Result<Interval, Failure> {
        let name = "HLAlookahead";
        let bytes = decode::opaque_time(self.argument(args, name)?).map_err(parameter(name))?;
        let bytes =
            bytes.ok_or_else(|| Failure::Parameter(format!("{name}: no interval given")))?;
        Ok(match self.time.representation() {
            TimeRepresentation::Integer64 => Interval::Integer(i64::from_be_bytes(bytes)),
            TimeRepresentation::Float64 => Interval::Float(f64::from_be_bytes(bytes)),
        })
    }
}

/// A decoding error of parameter `name`, as a parameter failure naming it.
fn parameter(name: &str) -> impl Fn(decode::DecodeError) -> Failure + '_ {
    move |error| Failure::Parameter(format!("{name}: {error}"))
}
