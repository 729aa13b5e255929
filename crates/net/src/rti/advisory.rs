//! Declaration-management advisories on the ambassador: the switch services, passive
//! subscriptions (which raise none), and handing the federate what the network wants from
//! this node whenever that may have changed.

use super::reporting::Call;
use super::{RtiAmbassador, RtiError};
use std::time::Duration;
use trellis_core::federate::{
    AdvisorySwitches, AttributeSetRegionSetPair, Federate, FederateError, Region, RegionHandle,
};
use trellis_core::fom::{AttributeHandle, InteractionClassHandle, ObjectClassHandle};

impl RtiAmbassador {
    /// If the node's interest may have moved since last look, hand the federate the
    /// current one: for its advisories, and for the discoveries that crossed in the
    /// network, whose announcements and requests go out here. One counter read when
    /// nothing moved.
    pub(super) fn watch_network_interest(&mut self) -> Result<(), RtiError> {
        let Some(joined) = self.joined.as_mut() else {
            return Ok(());
        };
        // Read the counter before the interest: a change in between is seen next time.
        let changes = self.link.network_interest_changes();
        if self.interest_seen == Some(changes) {
            return Ok(());
        }
        let interest = self.link.network_interest()?;
        joined.federate.set_network_interest(&interest);
        self.interest_seen = Some(changes);
        self.flush_actions()
    }

    /// How long one wait for messages may last. The node wakes a waiting federate when its
    /// links or the network's interest change (`AppState::notify`), so only deadlines bound
    /// it: the next release of a rate-limited update, and the end of the grace of a link
    /// that is down.
    pub(super) fn watch_slice(&mut self, left: Duration) -> Duration {
        let left = self.mom_slice(self.release_slice(left));
        match self.grace_left() {
            Some(grace) => left.min(grace),
            None => left,
        }
    }

    /// Run a switch service; a switch turned on looks at the network afresh.
    fn switch(
        &mut self,
        call: Call<'_>,
        service: impl FnOnce(&mut Federate) -> Result<(), FederateError>,
    ) -> Result<(), RtiError> {
        self.with(call, |f| Ok(service(f)?))?;
        self.interest_seen = None;
        self.watch_network_interest()
    }

    /// The advisory switches as they stand (IEEE 1516.1-2010 §4.9, the four enable/disable services).
    pub fn advisory_switches(&self) -> Result<AdvisorySwitches, RtiError> {
        Ok(self.federate()?.advisory_switches())
    }

    /// enableObjectClassRelevanceAdvisorySwitch: start / stopRegistrationForObjectClass.
    pub fn enable_object_class_relevance_advisory_switch(&mut self) -> Result<(), RtiError> {
        self.switch(
            Call::new("enableObjectClassRelevanceAdvisorySwitch", &[]),
            Federate::enable_object_class_relevance_advisory_switch,
        )
    }

    /// disableObjectClassRelevanceAdvisorySwitch.
    pub fn disable_object_class_relevance_advisory_switch(&mut self) -> Result<(), RtiError> {
        self.switch(
            Call::new("disableObjectClassRelevanceAdvisorySwitch", &[]),
            Federate::disable_object_class_relevance_advisory_switch,
        )
    }

    /// enableAttributeRelevanceAdvisorySwitch: turnUpdatesOn / OffForObjectInstance.
    pub fn enable_attribute_relevance_advisory_switch(&mut self) -> Result<(), RtiError> {
        self.switch(
            Call::new("enableAttributeRelevanceAdvisorySwitch", &[]),
            Federate::enable_attribute_relevance_advisory_switch,
        )
    }

    /// disableAttributeRelevanceAdvisorySwitch.
    pub fn disable_attribute_relevance_advisory_switch(&mut self) -> Result<(), RtiError> {
        self.switch(
            Call::new("disableAttributeRelevanceAdvisorySwitch", &[]),
            Federate::disable_attribute_relevance_advisory_switch,
        )
    }

    /// enableInteractionRelevanceAdvisorySwitch: turnInteractionsOn / Off.
    pub fn enable_interaction_relevance_advisory_switch(&mut self) -> Result<(), RtiError> {
        self.switch(
            Call::new("enableInteractionRelevanceAdvisorySwitch", &[]),
            Federate::enable_interaction_relevance_advisory_switch,
        )
    }

    /// disableInteractionRelevanceAdvisorySwitch.
    pub fn disable_interaction_relevance_advisory_switch(&mut self) -> Result<(), RtiError> {
        self.switch(
            Call::new("disableInteractionRelevanceAdvisorySwitch", &[]),
            Federate::disable_interaction_relevance_advisory_switch,
        )
    }

    /// enableAttributeScopeAdvisorySwitch: attributesInScope / attributesOutOfScope
    /// (`Callback::AttributesInScope`, `Callback::AttributesOutOfScope`).
    pub fn enable_attribute_scope_advisory_switch(&mut self) -> Result<(), RtiError> {
        self.with(Call::new("enableAttributeScopeAdvisorySwitch", &[]), |f| {
            Ok(f.enable_attribute_scope_advisory_switch()?)
        })
    }

    /// disableAttributeScopeAdvisorySwitch.
    pub fn disable_attribute_scope_advisory_switch(&mut self) -> Result<(), RtiError> {
        self.with(Call::new("disableAttributeScopeAdvisorySwitch", &[]), |f| {
            Ok(f.disable_attribute_scope_advisory_switch()?)
        })
    }

    /// Whether attributesInScope / attributesOutOfScope callbacks are on.
    pub fn attribute_scope_advisory_switch(&self) -> Result<bool, RtiError> {
        Ok(self.federate()?.attribute_scope_advisory_switch())
    }

    /// subscribeObjectClassAttributesPassively: reflected like an active subscription,
    /// but publishers are not advised to register or update for it. A later subscribe
    /// of the class, passive or active, replaces it.
    pub fn subscribe_object_class_attributes_passively(
        &mut self,
        class: ObjectClassHandle,
        attributes: &[AttributeHandle],
        regions: &[Region],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "subscribeObjectClassAttributesPassively",
                &[&class, &attributes, &regions],
            ),
            |f| Ok(f.subscribe_object_class_attributes_passively(class, attributes, regions)?),
        )
    }

    /// subscribeObjectClassAttributesWithRegions, passive (region handles).
    pub fn subscribe_object_class_attributes_with_region_handles_passively(
        &mut self,
        class: ObjectClassHandle,
        pairs: &[AttributeSetRegionSetPair],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "subscribeObjectClassAttributesPassivelyWithRegions",
                &[&class, &pairs],
            ),
            |f| Ok(f.subscribe_object_class_attributes_with_regions_passively(class, pairs)?),
        )
    }

    /// subscribeInteractionClassPassively: received like an active subscription, but
    /// publishers are not advised to send for it (turnInteractionsOn).
    pub fn subscribe_interaction_class_passively(
        &mut self,
        class: InteractionClassHandle,
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("subscribeInteractionClassPassively", &[&class]),
            |f| Ok(f.subscribe_interaction_class_passively(class, &[])?),
        )
    }

    /// subscribeInteractionClassWithRegions, passive (region handles).
    pub fn subscribe_interaction_class_with_region_handles_passively(
        &mut self,
        class: InteractionClassHandle,
        regions: &[RegionHandle],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "subscribeInteractionClassPassivelyWithRegions",
                &[&class, &regions],
            ),
            |f| Ok(f.subscribe_interaction_class_with_regions_passively(class, regions)?),
        )
    }
}
