//! What a federate changed of how its own updates and interactions go out, over the
//! defaults: the preferred order type (IEEE 1516.1-2010 §8.28, §8.29) and the
//! transportation type (§6.23, §6.27) of instance attributes it owns and of interaction
//! classes it publishes.
//!
//! Order: a message goes time-stamp order when it carries a time stamp, its sender is
//! regulating, and its preferred order is TimeStamp. Trellis's default preference is
//! TimeStamp for every attribute and interaction (the object model's `order` is not
//! consulted), so only the changes to Receive are kept here; a time-stamped update mixing
//! both goes out as two messages.

use super::{Federate, FederateError, ObjectId};
use crate::fom::{AttributeHandle, InteractionClassHandle, Order};
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

#[derive(Default)]
pub(super) struct Preferences {
    /// Owned instance attributes whose time-stamped updates go receive order.
    receive_order_attributes: FxHashMap<ObjectId, BTreeSet<AttributeHandle>>,
    /// Published interaction classes whose time-stamped interactions go receive order.
    receive_order_interactions: BTreeSet<InteractionClassHandle>,
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
