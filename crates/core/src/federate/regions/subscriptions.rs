//! Subscriptions in regions (IEEE 1516.1-2010 §9.8–§9.11): the regions each subscribed
//! attribute and interaction class is in, and the interest they declare.

use super::{AttributeSetRegionSetPair, RegionHandle, RegionSet};
use crate::federate::region::Region;
use crate::federate::{Federate, FederateError};
use crate::fom::{AttributeHandle, InteractionClassHandle, ObjectClassHandle};
use std::collections::{BTreeMap, BTreeSet};

impl Federate {
    /// Rebuild the class's subscription from the regions its attributes are subscribed in.
    pub(super) fn apply_object_subscription(&mut self, class: ObjectClassHandle) {
        let Some(attributes) = self.regions.object_subscriptions.get(&class) else {
            self.object_subscriptions.remove(&class);
            self.regions.object_values.remove(&class);
            return;
        };
        let table = &self.regions;
        let values: BTreeMap<AttributeHandle, Vec<Region>> = attributes
            .iter()
            .map(|(a, set)| {
                let regions = if set.whole_space {
                    Vec::new()
                } else {
                    set.regions
                        .iter()
                        .map(|r| table.committed(*r).clone())
                        .collect()
                };
                (*a, regions)
            })
            .collect();
        let whole_space = values.values().any(Vec::is_empty);
        let mut union: Vec<Region> = Vec::new();
        if !whole_space {
            for region in values.values().flatten() {
                if !union.contains(region) {
                    union.push(region.clone());
                }
            }
        }
        self.object_subscriptions.insert(
            class,
            crate::federate::ObjectSubscription {
                attributes: values.keys().copied().collect(),
                regions: union,
            },
        );
        self.regions.object_values.insert(class, values);
    }

    pub(super) fn apply_interaction_subscription(&mut self, class: InteractionClassHandle) {
        match self.regions.interaction_subscriptions.get(&class) {
            None => {
                self.interaction_subscriptions.remove(&class);
            }
            Some(set) => {
                let regions = if set.whole_space {
                    Vec::new()
                } else {
                    (set.regions.iter())
                        .map(|r| self.regions.committed(*r).clone())
                        .collect()
                };
                self.interaction_subscriptions.insert(class, regions);
            }
        }
    }

    /// A class subscribed without region handles (plain, whole space) joins the handle
    /// table as the default region, so adding regions keeps it. A subscription with region
    /// values (this library's own form) is replaced.
    fn adopt_object_subscription(&mut self, class: ObjectClassHandle) {
        if self.regions.object_subscriptions.contains_key(&class) {
            return;
        }
        let mut attributes = BTreeMap::new();
        if let Some(plain) = self.object_subscriptions.get(&class) {
            if plain.regions.is_empty() {
                for a in &plain.attributes {
                    let whole = RegionSet {
                        whole_space: true,
                        regions: BTreeSet::new(),
                    };
                    attributes.insert(*a, whole);
                }
            }
        }
        self.regions.object_subscriptions.insert(class, attributes);
    }

    /// subscribeObjectClassAttributesWithRegions: cumulative, per attribute and region.
    pub fn subscribe_object_class_attributes_with_regions(
        &mut self,
        class: ObjectClassHandle,
        pairs: &[AttributeSetRegionSetPair],
    ) -> Result<(), FederateError> {
        self.subscribe_object_with_regions(class, pairs, true)
    }

    /// subscribeObjectClassAttributesWithRegions, passive: the class's subscription raises
    /// no relevance advisories at publishers from now on (the latest subscribe decides).
    pub fn subscribe_object_class_attributes_with_regions_passively(
        &mut self,
        class: ObjectClassHandle,
        pairs: &[AttributeSetRegionSetPair],
    ) -> Result<(), FederateError> {
        self.subscribe_object_with_regions(class, pairs, false)
    }

    fn subscribe_object_with_regions(
        &mut self,
        class: ObjectClassHandle,
        pairs: &[AttributeSetRegionSetPair],
        active: bool,
    ) -> Result<(), FederateError> {
        self.check_object_pairs(class, pairs)?;
        self.check_object_right(crate::federate::class_rights::ClassRight::Subscribe, class)?;
        self.passive.set_object(class, active);
        self.update_rate_cleared(class);
        self.adopt_object_subscription(class);
        let subscription = self.regions.object_subscriptions.entry(class).or_default();
        for (attributes, regions) in pairs {
            for a in attributes {
                let set = subscription.entry(*a).or_default();
                set.regions.extend(regions);
            }
        }
        subscription.retain(|_, set| !set.is_empty());
        if subscription.is_empty() {
            self.regions.object_subscriptions.remove(&class);
        }
        self.apply_object_subscription(class);
        self.update_interest();
        Ok(())
    }

    /// unsubscribeObjectClassAttributesWithRegions: the attributes leave those regions; an
    /// attribute in no region any more is unsubscribed.
    pub fn unsubscribe_object_class_attributes_with_regions(
        &mut self,
        class: ObjectClassHandle,
        pairs: &[AttributeSetRegionSetPair],
    ) -> Result<(), FederateError> {
        self.check_object_pairs(class, pairs)?;
        let Some(subscription) = self.regions.object_subscriptions.get_mut(&class) else {
            return Ok(());
        };
        for (attributes, regions) in pairs {
            for a in attributes {
                if let Some(set) = subscription.get_mut(a) {
                    set.regions.retain(|r| !regions.contains(r));
                }
            }
        }
        subscription.retain(|_, set| !set.is_empty());
        if subscription.is_empty() {
            self.regions.object_subscriptions.remove(&class);
        }
        self.apply_object_subscription(class);
        self.update_interest();
        Ok(())
    }

    /// subscribeInteractionClassWithRegions: cumulative.
    pub fn subscribe_interaction_class_with_regions(
        &mut self,
        class: InteractionClassHandle,
        regions: &[RegionHandle],
    ) -> Result<(), FederateError> {
        self.subscribe_interactions_with_regions(class, regions, true)
    }

    /// subscribeInteractionClassWithRegions, passive (see the object form).
    pub fn subscribe_interaction_class_with_regions_passively(
        &mut self,
        class: InteractionClassHandle,
        regions: &[RegionHandle],
    ) -> Result<(), FederateError> {
        self.subscribe_interactions_with_regions(class, regions, false)
    }

    fn subscribe_interactions_with_regions(
        &mut self,
        class: InteractionClassHandle,
        regions: &[RegionHandle],
        active: bool,
    ) -> Result<(), FederateError> {
        self.check_interaction_regions(class, regions)?;
        self.check_interaction_right(crate::federate::class_rights::ClassRight::Subscribe, class)?;
        if regions.is_empty() {
            return Ok(());
        }
        self.passive.set_interaction(class, active);
        let whole_space = !self.regions.interaction_subscriptions.contains_key(&class)
            && self
                .interaction_subscriptions
                .get(&class)
                .is_some_and(Vec::is_empty);
        let set = (self.regions.interaction_subscriptions)
            .entry(class)
            .or_insert_with(|| RegionSet {
                whole_space,
                regions: BTreeSet::new(),
            });
        set.regions.extend(regions);
        self.apply_interaction_subscription(class);
        self.update_interest();
        Ok(())
    }

    /// unsubscribeInteractionClassWithRegions.
    pub fn unsubscribe_interaction_class_with_regions(
        &mut self,
        class: InteractionClassHandle,
        regions: &[RegionHandle],
    ) -> Result<(), FederateError> {
        self.check_interaction_regions(class, regions)?;
        let Some(set) = self.regions.interaction_subscriptions.get_mut(&class) else {
            return Ok(());
        };
        set.regions.retain(|r| !regions.contains(r));
        if set.is_empty() {
            self.regions.interaction_subscriptions.remove(&class);
        }
        self.apply_interaction_subscription(class);
        self.update_interest();
        Ok(())
    }
}
