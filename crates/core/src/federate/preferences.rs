//! What a federate changed of how its own updates and interactions go out, over the
//! defaults: the preferred order type (IEEE 1516.1-2010 §8.28, §8.29) and the
//! transportation type (§6.23, §6.27) of instance attributes it owns and of interaction
//! classes it publishes.
//!
//! Transportation: HLAreliable or HLAbestEffort, the two Trellis has; a change takes
//! effect at once (no change is ever pending, so AttributeAlreadyBeingChanged and
//! InteractionClassAlreadyBeingChanged never arise), and is confirmed by the caller's API.
//! Time-stamp-ordered messages still travel reliably whatever is chosen (see `send`).
//!
//! Order: a message goes time-stamp order when it carries a time stamp, its sender is
//! regulating, and its preferred order is TimeStamp. Trellis's default preference is
//! TimeStamp for every attribute and interaction (the object model's `order` is not
//! consulted), so only the changes to Receive are kept here; a time-stamped update mixing
//! both goes out as two messages.

use super::{Callback, Federate, FederateError, ObjectId};
use crate::fom::{AttributeHandle, InteractionClassHandle, Order};
use crate::wire::TransportClass;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Default)]
pub(super) struct Preferences {
    /// Owned instance attributes whose time-stamped updates go receive order.
    receive_order_attributes: FxHashMap<ObjectId, BTreeSet<AttributeHandle>>,
    /// Published interaction classes whose time-stamped interactions go receive order.
    receive_order_interactions: BTreeSet<InteractionClassHandle>,
    /// Transportation changed per owned instance attribute, over the object model's.
    attribute_transport: FxHashMap<ObjectId, BTreeMap<AttributeHandle, TransportClass>>,
    /// Transportation changed per published interaction class, over the object model's.
    interaction_transport: BTreeMap<InteractionClassHandle, TransportClass>,
}

impl Preferences {
    /// Whether a time-stamped update of `attribute` of `object` goes receive order.
    pub(super) fn attribute_prefers_receive(
        &self,
        object: ObjectId,
        attribute: AttributeHandle,
    ) -> bool {
        (self.receive_order_attributes.get(&object)).is_some_and(|s| s.contains(&attribute))
    }

    /// Whether any attribute of `object` prefers receive order (most updates ask only this).
    pub(super) fn any_attribute_prefers_receive(&self, object: ObjectId) -> bool {
        self.receive_order_attributes.contains_key(&object)
    }

    pub(super) fn interaction_prefers_receive(&self, class: InteractionClassHandle) -> bool {
        self.receive_order_interactions.contains(&class)
    }

    /// The instance is gone (deleted here): what was changed of it goes too.
    pub(super) fn forget_object(&mut self, object: ObjectId) {
        self.receive_order_attributes.remove(&object);
        self.attribute_transport.remove(&object);
    }

    /// The transportation changed for attributes of `object`, if any was (one look-up per
    /// update).
    pub(super) fn attribute_transports(
        &self,
        object: ObjectId,
    ) -> Option<&BTreeMap<AttributeHandle, TransportClass>> {
        self.attribute_transport.get(&object)
    }

    pub(super) fn interaction_transport(
        &self,
        class: InteractionClassHandle,
    ) -> Option<TransportClass> {
        self.interaction_transport.get(&class).copied()
    }
}

impl Federate {
    /// changeAttributeOrderType (§8.28): the preferred order of these owned attributes of
    /// `object`. AttributeNotDefined, ObjectInstanceNotKnown, AttributeNotOwned.
    pub fn change_attribute_order_type(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        order: Order,
    ) -> Result<(), FederateError> {
        self.check_owned_attributes(object, attributes)?;
        let changed = &mut self.preferences.receive_order_attributes;
        match order {
            Order::Receive => changed.entry(object).or_default().extend(attributes),
            Order::TimeStamp => {
                if let Some(set) = changed.get_mut(&object) {
                    attributes.iter().for_each(|a| {
                        set.remove(a);
                    });
                    if set.is_empty() {
                        changed.remove(&object);
                    }
                }
            }
        }
        Ok(())
    }

    /// changeInteractionOrderType (§8.29): the preferred order of a published interaction
    /// class's interactions. InteractionClassNotDefined, InteractionClassNotPublished.
    pub fn change_interaction_order_type(
        &mut self,
        class: InteractionClassHandle,
        order: Order,
    ) -> Result<(), FederateError> {
        self.check_published_interaction(class)?;
        let changed = &mut self.preferences.receive_order_interactions;
        match order {
            Order::Receive => changed.insert(class),
            Order::TimeStamp => changed.remove(&class),
        };
        Ok(())
    }

    /// requestAttributeTransportationTypeChange (§6.23): updates of these owned attributes
    /// of `object` travel `transport` from now on.
    pub fn change_attribute_transportation(
        &mut self,
        object: ObjectId,
        attributes: &[AttributeHandle],
        transport: TransportClass,
    ) -> Result<(), FederateError> {
        self.check_owned_attributes(object, attributes)?;
        let changed = self.preferences.attribute_transport.entry(object);
        let changed = changed.or_default();
        changed.extend(attributes.iter().map(|a| (*a, transport)));
        self.callbacks
            .push_back(Callback::ConfirmAttributeTransportationTypeChange {
                object,
                attributes: attributes.to_vec(),
                transport,
            });
        Ok(())
    }

    /// queryAttributeTransportationType as the standard answers it: the transportation
    /// ([`Federate::attribute_transportation`]), also queued as
    /// reportAttributeTransportationType.
    pub fn report_attribute_transportation(
        &mut self,
        object: ObjectId,
        attribute: AttributeHandle,
    ) -> Result<TransportClass, FederateError> {
        let transport = self.attribute_transportation(object, attribute)?;
        self.callbacks
            .push_back(Callback::ReportAttributeTransportationType {
                object,
                attribute,
                transport,
            });
        Ok(transport)
    }

    /// queryAttributeTransportationType (§6.25): how updates of `attribute` of `object`
    /// travel when this federate sends them (changed here, else the object model's). An
    /// instance attribute another federate owns is answered with the object model's
    /// transportation: a change made by its owner is not known here.
    pub fn attribute_transportation(
        &self,
        object: ObjectId,
        attribute: AttributeHandle,
    ) -> Result<TransportClass, FederateError> {
        let Some(instance) = self.instances.get(object) else {
            return Err(FederateError::ObjectInstanceNotKnown(object));
        };
        self.check_attributes(instance.class, &[attribute])?;
        let changed = self.preferences.attribute_transports(object);
        let changed = changed.and_then(|c| c.get(&attribute).copied());
        Ok(changed.unwrap_or_else(|| {
            model_transport(self.model.attribute(attribute).transportation.reliable)
        }))
    }

    /// requestInteractionTransportationTypeChange (§6.27): this federate's interactions of
    /// a published class travel `transport` from now on.
    pub fn change_interaction_transportation(
        &mut self,
        class: InteractionClassHandle,
        transport: TransportClass,
    ) -> Result<(), FederateError> {
        self.check_published_interaction(class)?;
        self.preferences
            .interaction_transport
            .insert(class, transport);
        self.callbacks
            .push_back(Callback::ConfirmInteractionTransportationTypeChange { class, transport });
        Ok(())
    }

    /// queryInteractionTransportationType as the standard answers it: the transportation
    /// ([`Federate::interaction_transportation`]), also queued as
    /// reportInteractionTransportationType.
    pub fn report_interaction_transportation(
        &mut self,
        federate: u32,
        class: InteractionClassHandle,
    ) -> Result<TransportClass, FederateError> {
        let transport = self.interaction_transportation(federate, class)?;
        self.callbacks
            .push_back(Callback::ReportInteractionTransportationType {
                federate,
                class,
                transport,
            });
        Ok(transport)
    }

    /// queryInteractionTransportationType (§6.29): how `federate` sends interactions of
    /// `class`: this federate's change, else the object model's (another federate's change
    /// is not known here).
    pub fn interaction_transportation(
        &self,
        federate: u32,
        class: InteractionClassHandle,
    ) -> Result<TransportClass, FederateError> {
        let Some(class) = self.model.interaction_class_checked(class.0) else {
            return Err(FederateError::InteractionClassNotDefined(format!(
                "#{}",
                class.0
            )));
        };
        let changed = (federate == self.handle)
            .then(|| self.preferences.interaction_transport(class))
            .flatten();
        Ok(changed.unwrap_or_else(|| {
            model_transport(self.model.interaction_class(class).transportation.reliable)
        }))
    }

    /// `object` is known, `attributes` are its class's, and this federate owns them all.
    pub(super) fn check_owned_attributes(
        &self,
        object: ObjectId,
        attributes: &[AttributeHandle],
    ) -> Result<(), FederateError> {
        let Some(instance) = self.instances.get(object) else {
            return Err(FederateError::ObjectInstanceNotKnown(object));
        };
        self.check_attributes(instance.class, attributes)?;
        self.check_owned(object, attributes)
    }

    /// `class` is defined, and published by this federate.
    pub(super) fn check_published_interaction(
        &self,
        class: InteractionClassHandle,
    ) -> Result<(), FederateError> {
        let Some(class) = self.model.interaction_class_checked(class.0) else {
            return Err(FederateError::InteractionClassNotDefined(format!(
                "#{}",
                class.0
            )));
        };
        if !self.published_interactions.contains(&class) {
            let name = self.model.interaction_class(class).qualified_name.clone();
            return Err(FederateError::InteractionClassNotPublished(name));
        }
        Ok(())
    }
}

/// The transport class of the object model's transportation.
pub(super) fn model_transport(reliable: bool) -> TransportClass {
    if reliable {
        TransportClass::Reliable
    } else {
        TransportClass::BestEffort
    }
}
