//! Updates in regions (IEEE 1516.1-2010 §9.5–§9.7, §9.12–§9.13): instances registered
//! with regions, the associations of their attributes, and updates and interactions sent in
//! the committed bounds of those regions.

use super::{AttributeSetRegionSetPair, RegionHandle, UpdateGroup};
use crate::federate::region::Region;
use crate::federate::retraction::MessageRetractionHandle;
use crate::federate::{Federate, FederateError, LogicalTime, ObjectId};
use crate::fom::{AttributeHandle, InteractionClassHandle, ObjectClassHandle, ParameterHandle};
use crate::wire::TransportClass;
use std::collections::BTreeSet;

impl Federate {
    /// registerObjectInstanceWithRegions: register, then associate the regions for updates.
    pub fn register_object_instance_with_regions(
        &mut self,
        class: ObjectClassHandle,
        pairs: &[AttributeSetRegionSetPair],
        name: Option<&str>,
        time: u64,
    ) -> Result<ObjectId, FederateError> {
        self.check_object_pairs(class, pairs)?;
        let published = self.published_objects.get(&class);
        for (attributes, _) in pairs {
            if let Some(a) = attributes
                .iter()
                .find(|a| !published.is_some_and(|p| p.contains(a)))
            {
                return Err(FederateError::AttributeNotPublished {
                    class: self.class_name(class),
                    attribute: self.model.attribute(*a).name.clone(),
                });
            }
        }
        let object = self.register_object_instance(class, name, time)?;
        self.associate(object, pairs);
        Ok(object)
    }

    fn object_class_of(&self, object: ObjectId) -> Result<ObjectClassHandle, FederateError> {
        (self.known_object_class(object)).ok_or(FederateError::ObjectInstanceNotKnown(object))
    }

    fn associate(&mut self, object: ObjectId, pairs: &[AttributeSetRegionSetPair]) {
        let associations = self.regions.associations.entry(object).or_default();
        for (attributes, regions) in pairs {
            for a in attributes {
                associations.entry(*a).or_default().extend(regions);
            }
        }
        associations.retain(|_, set| !set.is_empty());
        if associations.is_empty() {
            self.regions.associations.remove(&object);
        }
        self.advisories_stale();
    }

    /// associateRegionsForUpdates: the attributes' updates go out in these regions too.
    pub fn associate_regions_for_updates(
        &mut self,
        object: ObjectId,
        pairs: &[AttributeSetRegionSetPair],
    ) -> Result<(), FederateError> {
        let class = self.object_class_of(object)?;
        self.check_object_pairs(class, pairs)?;
        self.associate(object, pairs);
        Ok(())
    }

    /// unassociateRegionsForUpdates.
    pub fn unassociate_regions_for_updates(
        &mut self,
        object: ObjectId,
        pairs: &[AttributeSetRegionSetPair],
    ) -> Result<(), FederateError> {
        let class = self.object_class_of(object)?;
        self.check_object_pairs(class, pairs)?;
        if let Some(associations) = self.regions.associations.get_mut(&object) {
            for (attributes, regions) in pairs {
                for a in attributes {
                    if let Some(set) = associations.get_mut(a) {
                        set.retain(|r| !regions.contains(r));
                    }
                }
            }
            associations.retain(|_, set| !set.is_empty());
            if associations.is_empty() {
                self.regions.associations.remove(&object);
            }
        }
        self.advisories_stale();
        Ok(())
    }

    /// The region `attribute` of `object` is sent in: the committed bounds of its
    /// associated regions (enclosed in one when several), `None` without association.
    pub(in crate::federate) fn update_region(
        &self,
        object: ObjectId,
        attribute: AttributeHandle,
    ) -> Option<Region> {
        let regions = self.regions.associations.get(&object)?.get(&attribute)?;
        self.regions.enclosing(regions)
    }

    /// The region every attribute of `values` is updated in, when they are all associated
    /// with the same regions (`Some(None)`: with none); `None` when they differ, or for no
    /// values.
    fn shared_update_region<V>(
        &self,
        object: ObjectId,
        values: &[(AttributeHandle, V)],
    ) -> Option<Option<Region>> {
        let associations = self.regions.associations.get(&object)?;
        let ((first, _), rest) = values.split_first()?;
        let regions = associations.get(first);
        let shared = rest.iter().all(|(a, _)| associations.get(a) == regions);
        shared.then(|| regions.and_then(|r| self.regions.enclosing(r)))
    }

    /// updateAttributeValues as the standard has it: each attribute goes out in the regions
    /// associated with it for updates (one message per group of attributes sharing them).
    /// An explicit `region` overrides the associations for this call.
    #[allow(clippy::too_many_arguments)] // the HLA service's arguments, plus region and transport
    pub fn update_attribute_values_in_regions<V: AsRef<[u8]>>(
        &mut self,
        object: ObjectId,
        values: &[(AttributeHandle, V)],
        tag: &[u8],
        time: u64,
        region: Option<&Region>,
        transport: Option<TransportClass>,
    ) -> Result<(), FederateError> {
        if region.is_some() || !self.regions.associations.contains_key(&object) {
            return self.update_attribute_values(object, values, tag, time, region, transport);
        }
        // Most updates' attributes share their regions: one message, checked as it is sent,
        // and nothing allocated to group them.
        if let Some(shared) = self.shared_update_region(object, values) {
            let region = shared.as_ref();
            return self.update_attribute_values(object, values, tag, time, region, transport);
        }
        // Every check before the first message, so a refusal sends nothing.
        if let Some(owned) = self.instances.get(object).filter(|i| i.kept) {
            let attributes: Vec<AttributeHandle> = values.iter().map(|(a, _)| *a).collect();
            self.check_attributes(owned.class, &attributes)?;
            let published = self.published_objects.get(&owned.class);
            if let Some(a) = attributes
                .iter()
                .find(|a| !published.is_some_and(|p| p.contains(a)))
            {
                return Err(FederateError::AttributeNotPublished {
                    class: self.class_name(owned.class),
                    attribute: self.model.attribute(*a).name.clone(),
                });
            }
        }
        let mut groups: Vec<UpdateGroup<'_>> = Vec::new();
        for (a, v) in values {
            let region = self.update_region(object, *a);
            match groups.iter_mut().find(|(r, _)| *r == region) {
                Some((_, group)) => group.push((*a, v.as_ref())),
                None => groups.push((region, vec![(*a, v.as_ref())])),
            }
        }
        for (region, group) in &groups {
            self.update_attribute_values(object, group, tag, time, region.as_ref(), transport)?;
        }
        Ok(())
    }

    /// sendInteractionWithRegions: sent in the regions' committed bounds (enclosed in one
    /// when several).
    #[allow(clippy::too_many_arguments)] // the HLA service's arguments, plus transport
    pub fn send_interaction_with_regions<V: AsRef<[u8]>>(
        &mut self,
        class: InteractionClassHandle,
        parameters: &[(ParameterHandle, V)],
        regions: &[RegionHandle],
        tag: &[u8],
        time: u64,
        transport: Option<TransportClass>,
    ) -> Result<(), FederateError> {
        let region = self.interaction_region(class, regions)?;
        self.send_interaction(class, parameters, tag, time, region.as_ref(), transport)
    }

    /// The region an interaction of `class` sent with `regions` goes out in: the one
    /// enclosing them, once they are checked against the class's dimensions.
    fn interaction_region(
        &self,
        class: InteractionClassHandle,
        regions: &[RegionHandle],
    ) -> Result<Option<Region>, FederateError> {
        self.check_interaction_regions(class, regions)?;
        // A region named twice encloses as once: no set is built per interaction.
        Ok(self.regions.enclosing(regions))
    }

    /// sendInteractionWithRegions with a time stamp: time-stamp order when regulating (and
    /// the class prefers it), as `send_interaction_at`, which gives the retraction handle.
    pub fn send_interaction_with_regions_at<V: AsRef<[u8]>>(
        &mut self,
        class: InteractionClassHandle,
        parameters: &[(ParameterHandle, V)],
        regions: &[RegionHandle],
        tag: &[u8],
        time: LogicalTime,
    ) -> Result<Option<MessageRetractionHandle>, FederateError> {
        let region = self.interaction_region(class, regions)?;
        self.send_interaction_at(class, parameters, tag, time, region.as_ref())
    }

    /// requestAttributeValueUpdateWithRegions. Requests carry no region: every owner of an
    /// instance of the class is asked, a superset of those whose update regions overlap.
    pub fn request_attribute_value_update_with_regions(
        &mut self,
        class: ObjectClassHandle,
        pairs: &[AttributeSetRegionSetPair],
        tag: &[u8],
    ) -> Result<(), FederateError> {
        self.check_object_pairs(class, pairs)?;
        let attributes: BTreeSet<AttributeHandle> =
            pairs.iter().flat_map(|(a, _)| a.iter().copied()).collect();
        let attributes: Vec<AttributeHandle> = attributes.into_iter().collect();
        self.request_class_attribute_value_update(class, &attributes, tag)
    }
}
