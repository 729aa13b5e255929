//! Time management services (IEEE 1516.1-2010 §8) on the ambassador; the state machine is
//! `trellis_core::federate::time`. Grants and enabled notices arrive as callbacks.

use super::reporting::{Call, ValueSizes};
use super::{RtiAmbassador, RtiError};
use trellis_core::federate::{
    AdvanceKind, Interval, LogicalTime, MessageRetractionHandle, ObjectId, Region,
};
use trellis_core::fom::{AttributeHandle, InteractionClassHandle, ParameterHandle};

impl RtiAmbassador {
    /// enableTimeRegulation: answered by timeRegulationEnabled.
    pub fn enable_time_regulation(&mut self, lookahead: Interval) -> Result<(), RtiError> {
        self.with(Call::new("enableTimeRegulation", &[&lookahead]), |f| {
            Ok(f.enable_time_regulation(lookahead)?)
        })
    }

    /// disableTimeRegulation.
    pub fn disable_time_regulation(&mut self) -> Result<(), RtiError> {
        self.with(Call::new("disableTimeRegulation", &[]), |f| {
            Ok(f.disable_time_regulation()?)
        })
    }

    /// enableTimeConstrained: answered by timeConstrainedEnabled.
    pub fn enable_time_constrained(&mut self) -> Result<(), RtiError> {
        self.with(Call::new("enableTimeConstrained", &[]), |f| {
            Ok(f.enable_time_constrained()?)
        })
    }

    /// disableTimeConstrained.
    pub fn disable_time_constrained(&mut self) -> Result<(), RtiError> {
        self.with(Call::new("disableTimeConstrained", &[]), |f| {
            Ok(f.disable_time_constrained()?)
        })
    }

    /// enableAsynchronousDelivery: receive-order messages reach a constrained federate as
    /// they come, not only while it advances (the standard's default, and Trellis's).
    pub fn enable_asynchronous_delivery(&mut self) -> Result<(), RtiError> {
        self.with(Call::new("enableAsynchronousDelivery", &[]), |f| {
            Ok(f.enable_asynchronous_delivery()?)
        })
    }

    /// disableAsynchronousDelivery.
    pub fn disable_asynchronous_delivery(&mut self) -> Result<(), RtiError> {
        self.with(Call::new("disableAsynchronousDelivery", &[]), |f| {
            Ok(f.disable_asynchronous_delivery()?)
        })
    }

    /// timeAdvanceRequest (`Tar`), timeAdvanceRequestAvailable (`Tara`),
    /// nextMessageRequest (`Nmr`), nextMessageRequestAvailable (`Nmra`),
    /// flushQueueRequest (`Flush`).
    pub fn request_time_advance(
        &mut self,
        kind: AdvanceKind,
        time: LogicalTime,
    ) -> Result<(), RtiError> {
        self.with(Call::new(kind.service_name(), &[&time]), |f| {
            Ok(f.request_time_advance(kind, time)?)
        })
    }

    /// timeAdvanceRequest: answered by timeAdvanceGrant.
    pub fn time_advance_request(&mut self, time: LogicalTime) -> Result<(), RtiError> {
        self.request_time_advance(AdvanceKind::Tar, time)
    }

    /// modifyLookahead: takes effect as the standard says (§8.19).
    pub fn modify_lookahead(&mut self, lookahead: Interval) -> Result<(), RtiError> {
        self.with(Call::new("modifyLookahead", &[&lookahead]), |f| {
            Ok(f.modify_lookahead(lookahead)?)
        })
    }

    /// queryLookahead.
    pub fn query_lookahead(&self) -> Result<Interval, RtiError> {
        Ok(self.federate()?.query_lookahead()?)
    }

    /// queryLogicalTime.
    pub fn query_logical_time(&self) -> Result<LogicalTime, RtiError> {
        Ok(self.federate()?.query_logical_time())
    }

    /// queryGALT: `None` when undefined.
    pub fn query_galt(&self) -> Result<Option<LogicalTime>, RtiError> {
        Ok(self.federate()?.query_galt())
    }

    /// queryLITS: `None` when undefined.
    pub fn query_lits(&self) -> Result<Option<LogicalTime>, RtiError> {
        Ok(self.federate()?.query_lits())
    }

    /// updateAttributeValues with a time stamp (time-stamp order when regulating, and then
    /// the message's retraction handle).
    pub fn update_attribute_values_at<V: AsRef<[u8]>>(
        &mut self,
        object: ObjectId,
        values: &[(AttributeHandle, V)],
        tag: &[u8],
        time: LogicalTime,
        region: Option<&Region>,
    ) -> Result<Option<MessageRetractionHandle>, RtiError> {
        self.with(
            Call::new(
                "updateAttributeValues",
                &[&object, &ValueSizes(values), &tag, &time, &region],
            ),
            |f| Ok(f.update_attribute_values_at(object, values, tag, time, region)?),
        )
    }

    /// sendInteraction with a time stamp (time-stamp order when regulating, and then the
    /// message's retraction handle).
    pub fn send_interaction_at<V: AsRef<[u8]>>(
        &mut self,
        class: InteractionClassHandle,
        parameters: &[(ParameterHandle, V)],
        tag: &[u8],
        time: LogicalTime,
        region: Option<&Region>,
    ) -> Result<Option<MessageRetractionHandle>, RtiError> {
        self.with(
            Call::new(
                "sendInteraction",
                &[&class, &ValueSizes(parameters), &tag, &time, &region],
            ),
            |f| Ok(f.send_interaction_at(class, parameters, tag, time, region)?),
        )
    }

    /// deleteObjectInstance with a time stamp (the retraction handle in time-stamp order).
    pub fn delete_object_instance_at(
        &mut self,
        object: ObjectId,
        tag: &[u8],
        time: LogicalTime,
    ) -> Result<Option<MessageRetractionHandle>, RtiError> {
        self.with(
            Call::new("deleteObjectInstance", &[&object, &tag, &time]),
            |f| Ok(f.delete_object_instance_at(object, tag, time)?),
        )
    }

    /// retract (§8.21): withdraw this federate's time-stamp-order message `handle` while
    /// its time stamp is after logical time. Federates still holding it drop it; those it
    /// was delivered to get `Callback::RequestRetraction`.
    pub fn retract(&mut self, handle: MessageRetractionHandle) -> Result<(), RtiError> {
        self.with(Call::new("retract", &[&handle]), |f| Ok(f.retract(handle)?))
    }
}
