//! Time management services of the federate (IEEE 1516.1-2010 §8) and sending with a
//! logical time stamp. The state machine is `time::TimeManager`; this file joins it to the
//! federate: its outputs become actions and callbacks, its errors `FederateError::Time`.

use super::logical_time::{Interval, LogicalTime, TimeRepresentation};
use super::message::ObjectId;
use super::region::Region;
use super::retraction::MessageRetractionHandle;
use super::time::{AdvanceKind, TimeBody, TimeError, TimeMessage, TimeStats};
use super::{Federate, FederateError};
use crate::fom::{AttributeHandle, InteractionClassHandle, ParameterHandle};
use crate::wire::TransportClass;

impl Federate {
    fn time_service(
        &mut self,
        service: impl FnOnce(&mut super::time::TimeManager) -> Result<(), TimeError>,
    ) -> Result<(), FederateError> {
        let result = service(&mut self.time);
        self.drain_time();
        Ok(result?)
    }

    /// The federation's logical time representation, fixed when it was created.
    pub fn time_representation(&self) -> TimeRepresentation {
        self.time.representation()
    }

    /// enableTimeRegulation with `lookahead`; `timeRegulationEnabled` follows as a callback.
    pub fn enable_time_regulation(&mut self, lookahead: Interval) -> Result<(), FederateError> {
        self.time_service(|t| t.enable_regulation(lookahead))
    }

    /// disableTimeRegulation: this federate stops holding back constrained federates at once.
    pub fn disable_time_regulation(&mut self) -> Result<(), FederateError> {
        self.time_service(|t| t.disable_regulation())
    }

    /// enableTimeConstrained; `timeConstrainedEnabled` follows as a callback.
    pub fn enable_time_constrained(&mut self) -> Result<(), FederateError> {
        self.time_service(|t| t.enable_constrained())
    }

    /// disableTimeConstrained: time-stamp-order messages are delivered in receive order from now on.
    pub fn disable_time_constrained(&mut self) -> Result<(), FederateError> {
        self.time_service(|t| t.disable_constrained())
    }

    /// timeAdvanceRequest, timeAdvanceRequestAvailable, nextMessageRequest,
    /// nextMessageRequestAvailable, flushQueueRequest.
    pub fn request_time_advance(
        &mut self,
        kind: AdvanceKind,
        time: LogicalTime,
    ) -> Result<(), FederateError> {
        let result = self.time.request_advance(kind, time);
        if result.is_ok() {
            // The federate is now advancing: what it held in receive order goes before the
            // grant, which may be queued at once.
            self.release_all_receive_order();
        }
        self.drain_time();
        Ok(result?)
    }

    /// modifyLookahead: only while regulating and not advancing.
    pub fn modify_lookahead(&mut self, lookahead: Interval) -> Result<(), FederateError> {
        self.time_service(|t| t.modify_lookahead(lookahead))
    }

    /// queryLookahead: the current lookahead; only while regulating.
    pub fn query_lookahead(&self) -> Result<Interval, FederateError> {
        Ok(self.time.lookahead()?)
    }

    /// queryLogicalTime: the time last granted (or reached on enabling regulation or constraint).
    pub fn query_logical_time(&self) -> LogicalTime {
        self.time.logical_time()
    }

    /// queryGALT: `None` when GALT is undefined (no regulating federate constrains this one).
    pub fn query_galt(&self) -> Option<LogicalTime> {
        if self.time.is_constrained() {
            self.time.galt()
        } else {
            None
        }
    }

    /// queryLITS: `None` when undefined.
    pub fn query_lits(&self) -> Option<LogicalTime> {
        self.time.lits()
    }

    /// The smallest time stamp a time-stamp-order message may carry now: logical time
    /// plus lookahead, or the bound already promised if that is later (after a lookahead
    /// reduction). Meaningful while regulating.
    pub fn earliest_time_stamp(&self) -> LogicalTime {
        self.time.earliest_send()
    }

    /// Whether time regulation is on (enabled, not merely asked for).
    pub fn is_time_regulating(&self) -> bool {
        self.time.is_regulating()
    }

    /// Whether time constraint is on (enabled, not merely asked for).
    pub fn is_time_constrained(&self) -> bool {
        self.time.is_constrained()
    }

    /// Whether a time advance request is pending (between a request and its grant).
    pub fn is_time_advancing(&self) -> bool {
        self.time.is_advancing()
    }

    /// Handles this federate's time management waits for (regulating federates whose bound
    /// is unknown, constrained federates whose answer is awaited), for diagnostics.
    pub fn time_waiting_for(&self) -> (Vec<u32>, Vec<u32>) {
        self.time.waiting_for()
    }

    /// Counts of grants, bounds sent and time messages, for diagnostics.
    pub fn time_stats(&self) -> TimeStats {
        self.time.stats()
    }

    /// Run `send` with a logical time stamp: time-stamp order when regulating (checked
    /// against logical time plus lookahead), receive order otherwise. A message that goes
    /// time-stamp order gets a retraction handle (`retraction`).
    fn with_time_stamp(
        &mut self,
        time: LogicalTime,
        send: impl FnOnce(&mut Federate) -> Result<(), FederateError>,
    ) -> Result<Option<MessageRetractionHandle>, FederateError> {
        let ordered = self.time.check_send(time)?;
        let serial = ordered.then(|| self.retractable.next_serial());
        self.sending_time_stamp = ordered.then_some(time);
        self.sending_serial = serial;
        let result = send(self);
        self.sending_time_stamp = None;
        self.sending_serial = None;
        result?;
        let Some(serial) = serial else {
            return Ok(None);
        };
        let now = self.time.logical_time();
        self.retractable.record(serial, time, now);
        Ok(Some(MessageRetractionHandle {
            federate: self.handle,
            serial,
        }))
    }

    /// updateAttributeValues with a logical time stamp; the retraction handle when it went
    /// time-stamp order.
    pub fn update_attribute_values_at<V: AsRef<[u8]>>(
        &mut self,
        object: ObjectId,
        values: &[(AttributeHandle, V)],
        tag: &[u8],
        time: LogicalTime,
        region: Option<&Region>,
    ) -> Result<Option<MessageRetractionHandle>, FederateError> {
        self.with_time_stamp(time, |f| {
            f.update_attribute_values(object, values, tag, time.key(), region, None)
        })
    }

    /// sendInteraction with a logical time stamp; the retraction handle when it went
    /// time-stamp order.
    pub fn send_interaction_at<V: AsRef<[u8]>>(
        &mut self,
        class: InteractionClassHandle,
        parameters: &[(ParameterHandle, V)],
        tag: &[u8],
        time: LogicalTime,
        region: Option<&Region>,
    ) -> Result<Option<MessageRetractionHandle>, FederateError> {
        // Preferring receive order (changeInteractionOrderType), it goes as if the sender
        // did not regulate: receive order, with the class's transportation.
        if self.preferences.interaction_prefers_receive(class) {
            self.time.check_send(time)?;
            self.send_interaction(class, parameters, tag, time.key(), region, None)?;
            return Ok(None);
        }
        self.with_time_stamp(time, |f| {
            f.send_interaction(
                class,
                parameters,
                tag,
                time.key(),
                region,
                Some(TransportClass::Reliable),
            )
        })
    }

    /// deleteObjectInstance with a logical time stamp; the retraction handle when it went
    /// time-stamp order.
    pub fn delete_object_instance_at(
        &mut self,
        object: ObjectId,
        tag: &[u8],
        time: LogicalTime,
    ) -> Result<Option<MessageRetractionHandle>, FederateError> {
        self.with_time_stamp(time, |f| f.delete_object_instance(object, tag, time.key()))
    }

    /// retract (§8.21): withdraw this federate's time-stamp-order message `handle`. It must
    /// be regulating, and the message's time stamp after its logical time. Receivers that
    /// hold the message drop it; those it was delivered to get requestRetraction.
    pub fn retract(&mut self, handle: MessageRetractionHandle) -> Result<(), FederateError> {
        if !self.time.is_regulating() {
            return Err(TimeError::TimeRegulationIsNotEnabled.into());
        }
        let (now, repr) = (self.time.logical_time(), self.time.representation());
        self.retractable.retract(handle, self.handle, now, repr)?;
        self.time.announce_retraction(handle.serial);
        self.drain_time();
        Ok(())
    }

    /// How many of this federate's messages it may retract now (bounded by
    /// `MAX_RETRACTABLE`).
    pub fn retractable_messages(&mut self) -> usize {
        self.retractable.expire(self.time.logical_time());
        self.retractable.len()
    }

    /// About to resign: say so on the time channel, behind the last time-stamped message.
    pub fn depart(&mut self) {
        self.time.depart();
        self.drain_time();
    }

    pub(super) fn on_time_payload(&mut self, payload: &[u8]) {
        match TimeMessage::decode(payload) {
            Ok(TimeMessage {
                sender,
                body: TimeBody::Retract { serial },
                ..
            }) if sender != self.handle => {
                self.on_retraction(MessageRetractionHandle {
                    federate: sender,
                    serial,
                });
            }
            Ok(message) if message.sender != self.handle => {
                let sender = message.sender;
                let departing = message.body == TimeBody::Departing;
                self.time.on_message(message);
                self.drain_time();
                if departing && self.departures.departing(sender) {
                    self.federate_gone(sender);
                }
            }
            Ok(_) => {}
            Err(_) => self.stats.malformed += 1,
        }
    }

    /// Another federate retracted its message `handle`: drop it if it is still queued for
    /// time-stamp order, else ask the application to retract it if it was delivered here.
    fn on_retraction(&mut self, handle: MessageRetractionHandle) {
        if self.time.drop_held(handle) {
            self.drain_time();
        } else if self.delivered.take(handle) {
            self.callbacks
                .push_back(super::Callback::RequestRetraction { handle });
        }
    }

    /// A callback goes to the application: remember its retraction handle, if any.
    pub(super) fn note_delivered(&mut self, callback: &super::Callback) {
        if let Some(handle) = callback.retraction() {
            self.delivered.remember(handle);
        }
    }
}
