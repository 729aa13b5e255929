//! Declaration-management advisories (IEEE 1516.1-2010 §5.10-5.13): tell a publisher
//! whether anyone could want what it would send, so it can stop computing the rest.
//!
//! The router network already knows: it never sends a message down a link whose far side
//! declared no interest in its ids (send-side squelching). The node hands the federate
//! that knowledge, the union of what every other link declared ([`Federate::set_network_interest`]),
//! and the federate asks of each published class, published interaction class and owned
//! instance whether the ids it would send on meet it. Callbacks follow changes only, and
//! only while the federate's advisory switch for them is on (off by default, as the
//! standard has it).
//!
//! Relevance is per class and routing cell, not per attribute: a subscriber of the class
//! (or a superclass) in an overlapping cell makes every published attribute relevant.
//!
//! Only active subscriptions count (IEEE 1516.1-2010 §5.6, §5.8): every active subscriber
//! of a class also declares the class's active-subscriber id (`layout::ACTIVE_CELL`),
//! which a passive one does not. A class is relevant while that id is wanted; an instance
//! attribute while it is and one of the cells of its update region is. With regions this
//! is conservative: a passive subscriber in an overlapping region and an active one
//! elsewhere together advise updates on.

use super::layout::ACTIVE_CELL;
use super::{Callback, Federate, FederateError, ObjectId};
use crate::fom::{AttributeHandle, InteractionClassHandle, ObjectClassHandle};
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;
use std::collections::BTreeSet;

/// The advisory switches of one federate. The standard's defaults are all off; a
/// federation's object model may say otherwise once it carries switches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AdvisorySwitches {
    /// start / stopRegistrationForObjectClass.
    pub object_class_relevance: bool,
    /// turnUpdatesOn / OffForObjectInstance.
    pub attribute_relevance: bool,
    /// turnInteractionsOn / Off.
    pub interaction_relevance: bool,
}

impl AdvisorySwitches {
    /// Whether any relevance advisory switch is on (and so advisories must be computed).
    pub fn any(self) -> bool {
        self.object_class_relevance || self.attribute_relevance || self.interaction_relevance
    }
}

/// What the federate last advised, so that only changes are told.
#[derive(Default)]
pub(super) struct Advisories {
    switches: AdvisorySwitches,
    network_interest: RoaringBitmap,
    /// Something an advisory depends on changed since they were last worked out.
    stale: bool,
    registration_advised: BTreeSet<ObjectClassHandle>,
    interactions_on: BTreeSet<InteractionClassHandle>,
    updates_on: FxHashMap<ObjectId, BTreeSet<AttributeHandle>>,
}

/// Which switch a service names, for its errors.
#[derive(Clone, Copy)]
enum RelevanceSwitch {
    ObjectClass,
    Attribute,
    Interaction,
}

impl Federate {
    /// What the rest of the network wants from this federate's node, as the node last
    /// reported it. Call whenever it changes, whatever the switches: advisories follow on
    /// `poll_callback`, and discoveries that crossed in the network are made good
    /// (`rediscovery.rs`) by actions to drain with `poll_action`.
    pub fn set_network_interest(&mut self, interest: &RoaringBitmap) {
        if self.advisories.network_interest != *interest {
            let appeared = interest - &self.advisories.network_interest;
            self.advisories.network_interest = interest.clone();
            self.advisories.stale = true;
            self.rediscover(&appeared);
        }
    }

    /// Whether the network, as last reported, wants id `id` from this node.
    pub(super) fn network_wants(&self, id: u32) -> bool {
        self.advisories.network_interest.contains(id)
    }

    /// The federate's relevance advisory switches as they stand.
    pub fn advisory_switches(&self) -> AdvisorySwitches {
        self.advisories.switches
    }

    /// Set every switch at once, without the services' on/off checks: the federation's
    /// defaults at join.
    pub fn set_advisory_switches(&mut self, switches: AdvisorySwitches) {
        for switch in [
            RelevanceSwitch::ObjectClass,
            RelevanceSwitch::Attribute,
            RelevanceSwitch::Interaction,
        ] {
            let on = match switch {
                RelevanceSwitch::ObjectClass => switches.object_class_relevance,
                RelevanceSwitch::Attribute => switches.attribute_relevance,
                RelevanceSwitch::Interaction => switches.interaction_relevance,
            };
            self.set_switch(switch, on);
        }
    }

    /// Whether the node's network interest may make callbacks (advisories) at once.
    pub fn wants_network_interest(&self) -> bool {
        self.advisories.switches.any()
    }

    fn switch_mut(&mut self, switch: RelevanceSwitch) -> &mut bool {
        let switches = &mut self.advisories.switches;
        match switch {
            RelevanceSwitch::ObjectClass => &mut switches.object_class_relevance,
            RelevanceSwitch::Attribute => &mut switches.attribute_relevance,
            RelevanceSwitch::Interaction => &mut switches.interaction_relevance,
        }
    }

    /// Turning a switch off forgets what it advised: turned on again, it advises afresh.
    fn set_switch(&mut self, switch: RelevanceSwitch, on: bool) {
        *self.switch_mut(switch) = on;
        if !on {
            let advisories = &mut self.advisories;
            match switch {
                RelevanceSwitch::ObjectClass => advisories.registration_advised.clear(),
                RelevanceSwitch::Attribute => advisories.updates_on.clear(),
                RelevanceSwitch::Interaction => advisories.interactions_on.clear(),
            }
        }
        self.advisories.stale = true;
    }

    fn enable(
        &mut self,
        switch: RelevanceSwitch,
        is_on: FederateError,
    ) -> Result<(), FederateError> {
        if *self.switch_mut(switch) {
            return Err(is_on);
        }
        self.set_switch(switch, true);
        Ok(())
    }

    fn disable(
        &mut self,
        switch: RelevanceSwitch,
        is_off: FederateError,
    ) -> Result<(), FederateError> {
        if !*self.switch_mut(switch) {
            return Err(is_off);
        }
        self.set_switch(switch, false);
        Ok(())
    }

    /// enableObjectClassRelevanceAdvisorySwitch: start/stopRegistrationForObjectClass follow.
    pub fn enable_object_class_relevance_advisory_switch(&mut self) -> Result<(), FederateError> {
        use FederateError::ObjectClassRelevanceAdvisorySwitchIsOn as IsOn;
        self.enable(RelevanceSwitch::ObjectClass, IsOn)
    }

    /// disableObjectClassRelevanceAdvisorySwitch.
    pub fn disable_object_class_relevance_advisory_switch(&mut self) -> Result<(), FederateError> {
        use FederateError::ObjectClassRelevanceAdvisorySwitchIsOff as IsOff;
        self.disable(RelevanceSwitch::ObjectClass, IsOff)
    }

    /// enableAttributeRelevanceAdvisorySwitch: turnUpdatesOn/OffForObjectInstance follow.
    pub fn enable_attribute_relevance_advisory_switch(&mut self) -> Result<(), FederateError> {
        use FederateError::AttributeRelevanceAdvisorySwitchIsOn as IsOn;
        self.enable(RelevanceSwitch::Attribute, IsOn)
    }

    /// disableAttributeRelevanceAdvisorySwitch.
    pub fn disable_attribute_relevance_advisory_switch(&mut self) -> Result<(), FederateError> {
        use FederateError::AttributeRelevanceAdvisorySwitchIsOff as IsOff;
        self.disable(RelevanceSwitch::Attribute, IsOff)
    }

    /// enableInteractionRelevanceAdvisorySwitch: turnInteractionsOn/Off follow.
    pub fn enable_interaction_relevance_advisory_switch(&mut self) -> Result<(), FederateError> {
        use FederateError::InteractionRelevanceAdvisorySwitchIsOn as IsOn;
        self.enable(RelevanceSwitch::Interaction, IsOn)
    }

    /// disableInteractionRelevanceAdvisorySwitch.
    pub fn disable_interaction_relevance_advisory_switch(&mut self) -> Result<(), FederateError> {
        use FederateError::InteractionRelevanceAdvisorySwitchIsOff as IsOff;
        self.disable(RelevanceSwitch::Interaction, IsOff)
    }

    /// Publications, instances or update regions changed: advisories need working out.
    pub(super) fn advisories_stale(&mut self) {
        self.advisories.stale = true;
    }

    /// Work out the advisories if anything they depend on changed, and queue a callback
    /// for each change. Cheap when nothing did.
    pub(super) fn refresh_advisories(&mut self) {
        if !self.advisories.stale {
            return;
        }
        self.advisories.stale = false;
        let switches = self.advisories.switches;
        if switches.object_class_relevance {
            self.refresh_registration();
        }
        if switches.interaction_relevance {
            self.refresh_interactions();
        }
        if switches.attribute_relevance {
            self.refresh_updates();
        }
    }

    fn wanted(&self, id: u32) -> bool {
        self.advisories.network_interest.contains(id)
    }

    /// Registration is advised while someone actively subscribes to the class or a
    /// superclass: every such subscription covers the class's active-subscriber id.
    fn refresh_registration(&mut self) {
        let advised: BTreeSet<ObjectClassHandle> = (self.published_objects.iter())
            .filter(|(_, attributes)| !attributes.is_empty())
            .map(|(class, _)| *class)
            .filter(|class| self.wanted(self.layouts.object_id(*class, ACTIVE_CELL)))
            .collect();
        let before = std::mem::take(&mut self.advisories.registration_advised);
        for &class in advised.difference(&before) {
            (self.callbacks).push_back(Callback::StartRegistrationForObjectClass { class });
        }
        for &class in before.difference(&advised) {
            // A class no longer published gets no advice at all.
            if self.published_objects.contains_key(&class) {
                (self.callbacks).push_back(Callback::StopRegistrationForObjectClass { class });
            }
        }
        self.advisories.registration_advised = advised;
    }

    fn refresh_interactions(&mut self) {
        let on: BTreeSet<InteractionClassHandle> = (self.published_interactions.iter())
            .copied()
            .filter(|class| self.wanted(self.layouts.interaction_id(*class, ACTIVE_CELL)))
            .collect();
        let before = std::mem::take(&mut self.advisories.interactions_on);
        for &class in on.difference(&before) {
            self.callbacks
                .push_back(Callback::TurnInteractionsOn { class });
        }
        for &class in before.difference(&on) {
            if self.published_interactions.contains(&class) {
                self.callbacks
                    .push_back(Callback::TurnInteractionsOff { class });
            }
        }
        self.advisories.interactions_on = on;
    }

    /// The published attributes of `object` whose updates, in their associated regions,
    /// would reach someone.
    fn relevant_attributes(&self, object: ObjectId) -> BTreeSet<AttributeHandle> {
        let class = self.instances[object].class;
        let Some(published) = self.published_objects.get(&class) else {
            return BTreeSet::new();
        };
        if !self.wanted(self.layouts.object_id(class, ACTIVE_CELL)) {
            return BTreeSet::new();
        }
        published
            .iter()
            .copied()
            .filter(|&a| {
                let region = self.update_region(object, a);
                (self.layouts.object_ids(class, region.as_ref()).into_iter())
                    .any(|id| self.wanted(id))
            })
            .collect()
    }

    fn refresh_updates(&mut self) {
        let mut objects: Vec<ObjectId> = self.owned_objects().collect();
        objects.sort();
        let mut after = FxHashMap::default();
        for object in objects {
            let on = self.relevant_attributes(object);
            let before = self
                .advisories
                .updates_on
                .remove(&object)
                .unwrap_or_default();
            let turned_on: Vec<AttributeHandle> = on.difference(&before).copied().collect();
            let turned_off: Vec<AttributeHandle> = before.difference(&on).copied().collect();
            if !turned_on.is_empty() {
                (self.callbacks).push_back(Callback::TurnUpdatesOnForObjectInstance {
                    object,
                    attributes: turned_on,
                });
            }
            if !turned_off.is_empty() {
                (self.callbacks).push_back(Callback::TurnUpdatesOffForObjectInstance {
                    object,
                    attributes: turned_off,
                });
            }
            if !on.is_empty() {
                after.insert(object, on);
            }
        }
        // What is left belonged to deleted instances: nothing to tell about them.
        self.advisories.updates_on = after;
    }
}
