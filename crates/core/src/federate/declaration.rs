//! Declaration management: what the federate publishes and subscribes, and the interest
//! ids that follow from it (`Federate::update_interest`).

use super::class_rights::ClassRight;
use super::layout::{ACTIVE_CELL, DISCOVERY_CELL, REQUEST_CELL, WILDCARD_CELL};
use super::{region, Action, Federate, FederateError, ObjectId, ObjectSubscription, Region};
use crate::fom::{AttributeHandle, InteractionClassHandle, ObjectClassHandle};
use roaring::RoaringBitmap;
use std::collections::BTreeSet;

/// The subscribed classes whose latest subscribe service was the passive one (IEEE
/// 1516.1-2010 §5.6, §5.8): a later subscription of the class replaces the earlier one, so
/// each subscribe sets or clears its class here.
#[derive(Clone, Default)]
pub(super) struct Passive {
    objects: BTreeSet<ObjectClassHandle>,
    interactions: BTreeSet<InteractionClassHandle>,
}

impl Passive {
    pub(super) fn set_object(&mut self, class: ObjectClassHandle, active: bool) {
        if active {
            self.objects.remove(&class);
        } else {
            self.objects.insert(class);
        }
    }

    pub(super) fn set_interaction(&mut self, class: InteractionClassHandle, active: bool) {
        if active {
            self.interactions.remove(&class);
        } else {
            self.interactions.insert(class);
        }
    }

    /// Whether the latest subscription to an object class was passive.
    pub(super) fn object_is_passive(&self, class: ObjectClassHandle) -> bool {
        self.objects.contains(&class)
    }

    pub(super) fn interaction_is_passive(&self, class: InteractionClassHandle) -> bool {
        self.interactions.contains(&class)
    }
}

impl Federate {
    /// publishObjectClassAttributes: add `attributes` to what this federate publishes of `class`.
    pub fn publish_object_class_attributes(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
    ) -> Result<(), FederateError> {
        self.check_attributes(class, attributes)?;
        self.check_object_right(ClassRight::Publish, class)?;
        self.published_objects
            .entry(class)
            .or_default()
            .extend(attributes);
        self.update_interest();
        Ok(())
    }

    /// getKnownObjectClassHandle: the class an instance is known as here (registered as, or
    /// discovered as).
    pub fn known_object_class(&self, object: ObjectId) -> Option<ObjectClassHandle> {
        let instance = self.instances.get(object)?;
        if instance.kept {
            Some(instance.class)
        } else {
            instance.known
        }
    }

    /// The attributes of `class` this federate publishes.
    pub fn published_attributes(&self, class: ObjectClassHandle) -> Vec<AttributeHandle> {
        self.published_objects
            .get(&class)
            .map(|set| set.iter().copied().collect())
            .unwrap_or_default()
    }

    /// The attributes of `class` this federate subscribes to.
    pub fn subscribed_attributes(&self, class: ObjectClassHandle) -> Vec<AttributeHandle> {
        self.object_subscriptions
            .get(&class)
            .map(|s| s.attributes.iter().copied().collect())
            .unwrap_or_default()
    }

    /// Whether the latest subscription of `class` was passive (it raises no advisories).
    pub fn subscribes_object_class_passively(&self, class: ObjectClassHandle) -> bool {
        self.object_subscriptions.contains_key(&class) && self.passive.objects.contains(&class)
    }

    /// Whether the latest subscription of interaction `class` was passive.
    pub fn subscribes_interaction_class_passively(&self, class: InteractionClassHandle) -> bool {
        self.interaction_subscriptions.contains_key(&class)
            && self.passive.interactions.contains(&class)
    }

    /// unpublishObjectClass: stop publishing every attribute of `class`.
    pub fn unpublish_object_class(&mut self, class: ObjectClassHandle) {
        self.published_objects.remove(&class);
        self.update_interest();
    }

    /// unpublishObjectClassAttributes: the class stays published with its other attributes
    /// (unpublished when none is left). Attributes not published are no error (§5.5).
    pub fn unpublish_object_class_attributes(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
    ) -> Result<(), FederateError> {
        self.check_attributes(class, attributes)?;
        if let Some(published) = self.published_objects.get_mut(&class) {
            for attribute in attributes {
                published.remove(attribute);
            }
            if published.is_empty() {
                self.published_objects.remove(&class);
            }
            self.update_interest();
        }
        Ok(())
    }

    /// subscribeObjectClassAttributes, actively, in `regions` (none: the whole routing space);
    /// replaces the class's earlier subscription (attributes, regions and update rate).
    pub fn subscribe_object_class_attributes(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
        regions: &[Region],
    ) -> Result<(), FederateError> {
        self.subscribe_object_class(class, attributes, regions, true)
    }

    /// subscribeObjectClassAttributesPassively: reflected as actively, but no publisher is
    /// advised to register or update for it. Replaces an active subscription of the class,
    /// and an active one replaces it.
    pub fn subscribe_object_class_attributes_passively(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
        regions: &[Region],
    ) -> Result<(), FederateError> {
        self.subscribe_object_class(class, attributes, regions, false)
    }

    fn subscribe_object_class(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
        regions: &[Region],
        active: bool,
    ) -> Result<(), FederateError> {
        self.check_attributes(class, attributes)?;
        self.check_object_right(ClassRight::Subscribe, class)?;
        for region in regions {
            self.layouts.object(class).validate(region)?;
        }
        self.passive.set_object(class, active);
        self.update_rate_cleared(class);
        self.regions.forget_object_subscription(class);
        self.object_subscriptions.insert(
            class,
            ObjectSubscription {
                attributes: attributes.iter().copied().collect(),
                regions: regions.to_vec(),
            },
        );
        self.update_interest();
        self.request_registrations(class);
        Ok(())
    }

    /// unsubscribeObjectClass: drop the subscription of `class`, active or passive, in every region.
    pub fn unsubscribe_object_class(&mut self, class: ObjectClassHandle) {
        self.passive.set_object(class, true);
        self.update_rate_cleared(class);
        self.regions.forget_object_subscription(class);
        self.object_subscriptions.remove(&class);
        self.update_interest();
    }

    /// unsubscribeObjectClassAttributes: the class stays subscribed to its other attributes,
    /// as actively or passively as before, with its regions and update rate (unsubscribed
    /// when none is left). Attributes not subscribed are no error (§5.7).
    pub fn unsubscribe_object_class_attributes(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
    ) -> Result<(), FederateError> {
        self.check_attributes(class, attributes)?;
        let Some(subscription) = self.object_subscriptions.get_mut(&class) else {
            return Ok(());
        };
        for attribute in attributes {
            subscription.attributes.remove(attribute);
        }
        if subscription.attributes.is_empty() {
            self.unsubscribe_object_class(class);
        } else {
            self.update_interest();
        }
        Ok(())
    }

    /// publishInteractionClass: this federate may send interactions of `class` from now on.
    pub fn publish_interaction_class(
        &mut self,
        class: InteractionClassHandle,
    ) -> Result<(), FederateError> {
        self.check_interaction_right(ClassRight::Publish, class)?;
        self.advisories_stale();
        self.published_interactions.insert(class);
        Ok(())
    }

    /// unpublishInteractionClass: sending `class` is refused from now on; no error if unpublished.
    pub fn unpublish_interaction_class(&mut self, class: InteractionClassHandle) {
        self.advisories_stale();
        self.published_interactions.remove(&class);
    }

    /// subscribeInteractionClass, actively, in `regions` (none: the whole routing space);
    /// replaces the class's earlier subscription.
    pub fn subscribe_interaction_class(
        &mut self,
        class: InteractionClassHandle,
        regions: &[Region],
    ) -> Result<(), FederateError> {
        self.subscribe_interactions(class, regions, true)
    }

    /// subscribeInteractionClassPassively: received as actively, but no publisher is
    /// advised to send it (turnInteractionsOn) for this subscription.
    pub fn subscribe_interaction_class_passively(
        &mut self,
        class: InteractionClassHandle,
        regions: &[Region],
    ) -> Result<(), FederateError> {
        self.subscribe_interactions(class, regions, false)
    }

    fn subscribe_interactions(
        &mut self,
        class: InteractionClassHandle,
        regions: &[Region],
        active: bool,
    ) -> Result<(), FederateError> {
        self.check_interaction_right(ClassRight::Subscribe, class)?;
        self.check_not_reported_subscription(class)?;
        for region in regions {
            self.layouts.interaction(class).validate(region)?;
        }
        self.passive.set_interaction(class, active);
        self.regions.forget_interaction_subscription(class);
        self.interaction_subscriptions
            .insert(class, regions.to_vec());
        self.update_interest();
        Ok(())
    }

    /// unsubscribeInteractionClass: drop the subscription, active or passive, in every region.
    pub fn unsubscribe_interaction_class(&mut self, class: InteractionClassHandle) {
        self.passive.set_interaction(class, true);
        self.regions.forget_interaction_subscription(class);
        self.interaction_subscriptions.remove(&class);
        self.update_interest();
    }

    /// Recompute the ids this federate needs and ask for them if they changed. A
    /// subscription covers the class and its subclasses, in the cells of its regions
    /// (all cells and the registrations' cell without regions) and the wildcard cell; a
    /// publisher listens for update requests to its classes.
    pub(super) fn update_interest(&mut self) {
        self.advisories_stale();
        self.scope_all_stale();
        let mut ids = RoaringBitmap::new();
        let cover = |ids: &mut RoaringBitmap,
                     layout: &region::CellLayout,
                     regions: &[Region],
                     id: &dyn Fn(u32) -> u32| {
            ids.insert(id(WILDCARD_CELL));
            if regions.is_empty() {
                let cells = layout.cell_count() as u32;
                ids.insert_range(id(0)..=id(cells - 1));
            } else {
                for region in regions {
                    ids.extend(layout.cells(region).into_iter().map(id));
                }
            }
        };
        for (&class, subscription) in &self.object_subscriptions {
            let descendants = self.model.object_descendants(class).into_iter();
            for d in descendants.filter(|&d| self.may_subscribe_object(d)) {
                let layout = self.layouts.object(d);
                cover(&mut ids, layout, &subscription.regions, &|cell| {
                    self.layouts.object_id(d, cell)
                });
                if subscription.regions.is_empty() {
                    ids.insert(self.layouts.object_id(d, DISCOVERY_CELL));
                }
                if !self.passive.objects.contains(&class) {
                    ids.insert(self.layouts.object_id(d, ACTIVE_CELL));
                }
            }
        }
        for (&class, regions) in &self.interaction_subscriptions {
            let descendants = self.model.interaction_descendants(class).into_iter();
            for d in descendants.filter(|&d| self.may_subscribe_interaction(d)) {
                let layout = self.layouts.interaction(d);
                cover(&mut ids, layout, regions, &|cell| {
                    self.layouts.interaction_id(d, cell)
                });
                if !self.passive.interactions.contains(&class) {
                    ids.insert(self.layouts.interaction_id(d, ACTIVE_CELL));
                }
            }
        }
        for &class in self.published_objects.keys() {
            ids.insert(self.layouts.object_id(class, REQUEST_CELL));
        }
        self.mom_interest(&mut ids);
        if ids != self.interest {
            self.interest = ids.clone();
            self.actions.push_back(Action::SetInterest(ids));
        }
    }
}
