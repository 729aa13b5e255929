//! Data distribution management on the ambassador (IEEE 1516.1-2010 §9): region handles,
//! and the services that subscribe, register, update and send with them.

use super::reporting::{Call, ValueSizes};
use super::{RtiAmbassador, RtiError};
use trellis_core::federate::{
    AttributeSetRegionSetPair, LogicalTime, MessageRetractionHandle, ObjectId, Range, RegionHandle,
};
use trellis_core::fom::{
    AttributeHandle, DimensionHandle, InteractionClassHandle, ObjectClassHandle, ParameterHandle,
};
use trellis_core::wire::TransportClass;

impl RtiAmbassador {
    /// createRegion over these dimensions (IEEE 1516.1-2010 §9.2).
    pub fn create_region(
        &mut self,
        dimensions: &[DimensionHandle],
    ) -> Result<RegionHandle, RtiError> {
        self.with(Call::new("createRegion", &[&dimensions]), |f| {
            Ok(f.create_region(dimensions)?)
        })
    }

    /// deleteRegion: refused while the region is in use.
    pub fn delete_region(&mut self, region: RegionHandle) -> Result<(), RtiError> {
        self.with(Call::new("deleteRegion", &[&region]), |f| {
            Ok(f.delete_region(region)?)
        })
    }

    /// setRangeBounds: takes effect at `commit_region_modifications`.
    pub fn set_range_bounds(
        &mut self,
        region: RegionHandle,
        dimension: DimensionHandle,
        range: Range,
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("setRangeBounds", &[&region, &dimension, &range]),
            |f| Ok(f.set_range_bounds(region, dimension, range)?),
        )
    }

    /// getRangeBounds, as last set (committed or not).
    pub fn get_range_bounds(
        &self,
        region: RegionHandle,
        dimension: DimensionHandle,
    ) -> Result<Range, RtiError> {
        Ok(self.federate()?.range_bounds(region, dimension)?)
    }

    /// commitRegionModifications: set bounds take effect for routing.
    pub fn commit_region_modifications(
        &mut self,
        regions: &[RegionHandle],
    ) -> Result<(), RtiError> {
        self.with(Call::new("commitRegionModifications", &[&regions]), |f| {
            Ok(f.commit_region_modifications(regions)?)
        })
    }

    /// getDimensionHandleSet of a region.
    pub fn get_dimension_handle_set(
        &self,
        region: RegionHandle,
    ) -> Result<Vec<DimensionHandle>, RtiError> {
        Ok(self.federate()?.dimension_handle_set(region)?)
    }

    /// getDimensionUpperBound.
    pub fn get_dimension_upper_bound(&self, dimension: DimensionHandle) -> Result<u64, RtiError> {
        Ok(self.federate()?.dimension_upper_bound(dimension)?)
    }

    /// getAvailableDimensionsForClassAttribute.
    pub fn get_available_dimensions_for_class_attribute(
        &self,
        class: ObjectClassHandle,
        attribute: AttributeHandle,
    ) -> Result<Vec<DimensionHandle>, RtiError> {
        Ok(self
            .federate()?
            .available_dimensions_for_class_attribute(class, attribute)?)
    }

    /// getAvailableDimensionsForInteractionClass.
    pub fn get_available_dimensions_for_interaction_class(
        &self,
        class: InteractionClassHandle,
    ) -> Result<Vec<DimensionHandle>, RtiError> {
        Ok(self
            .federate()?
            .available_dimensions_for_interaction_class(class))
    }

    /// subscribeObjectClassAttributesWithRegions (handles; the value form is
    /// `subscribe_object_class_attributes_with_regions`).
    pub fn subscribe_object_class_attributes_with_region_handles(
        &mut self,
        class: ObjectClassHandle,
        pairs: &[AttributeSetRegionSetPair],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "subscribeObjectClassAttributesWithRegions",
                &[&class, &pairs],
            ),
            |f| Ok(f.subscribe_object_class_attributes_with_regions(class, pairs)?),
        )
    }

    /// unsubscribeObjectClassAttributesWithRegions.
    pub fn unsubscribe_object_class_attributes_with_regions(
        &mut self,
        class: ObjectClassHandle,
        pairs: &[AttributeSetRegionSetPair],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "unsubscribeObjectClassAttributesWithRegions",
                &[&class, &pairs],
            ),
            |f| Ok(f.unsubscribe_object_class_attributes_with_regions(class, pairs)?),
        )
    }

    /// subscribeInteractionClassWithRegions (handles).
    pub fn subscribe_interaction_class_with_region_handles(
        &mut self,
        class: InteractionClassHandle,
        regions: &[RegionHandle],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("subscribeInteractionClassWithRegions", &[&class, &regions]),
            |f| Ok(f.subscribe_interaction_class_with_regions(class, regions)?),
        )
    }

    /// unsubscribeInteractionClassWithRegions.
    pub fn unsubscribe_interaction_class_with_regions(
        &mut self,
        class: InteractionClassHandle,
        regions: &[RegionHandle],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "unsubscribeInteractionClassWithRegions",
                &[&class, &regions],
            ),
            |f| Ok(f.unsubscribe_interaction_class_with_regions(class, regions)?),
        )
    }

    /// registerObjectInstanceWithRegions: the RTI names the instance.
    pub fn register_object_instance_with_regions(
        &mut self,
        class: ObjectClassHandle,
        pairs: &[AttributeSetRegionSetPair],
    ) -> Result<ObjectId, RtiError> {
        let now = self.wall.unix_nanos();
        self.with(
            Call::new("registerObjectInstanceWithRegions", &[&class, &pairs]),
            |f| Ok(f.register_object_instance_with_regions(class, pairs, None, now)?),
        )
    }

    /// registerObjectInstanceWithRegions with a name reserved before.
    pub fn register_object_instance_with_regions_and_name(
        &mut self,
        class: ObjectClassHandle,
        pairs: &[AttributeSetRegionSetPair],
        name: &str,
    ) -> Result<ObjectId, RtiError> {
        let now = self.wall.unix_nanos();
        self.with(
            Call::new(
                "registerObjectInstanceWithRegions",
                &[&class, &pairs, &name],
            ),
            |f| Ok(f.register_object_instance_with_regions(class, pairs, Some(name), now)?),
        )
    }

    /// associateRegionsForUpdates.
    pub fn associate_regions_for_updates(
        &mut self,
        object: ObjectId,
        pairs: &[AttributeSetRegionSetPair],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("associateRegionsForUpdates", &[&object, &pairs]),
            |f| Ok(f.associate_regions_for_updates(object, pairs)?),
        )
    }

    /// unassociateRegionsForUpdates.
    pub fn unassociate_regions_for_updates(
        &mut self,
        object: ObjectId,
        pairs: &[AttributeSetRegionSetPair],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new("unassociateRegionsForUpdates", &[&object, &pairs]),
            |f| Ok(f.unassociate_regions_for_updates(object, pairs)?),
        )
    }

    /// sendInteractionWithRegions in receive order (`transport`: the class's own when `None`).
    pub fn send_interaction_with_regions<V: AsRef<[u8]>>(
        &mut self,
        class: InteractionClassHandle,
        parameters: &[(ParameterHandle, V)],
        regions: &[RegionHandle],
        tag: &[u8],
        transport: Option<TransportClass>,
    ) -> Result<(), RtiError> {
        let time = self.wall.unix_nanos();
        self.with(
            Call::new(
                "sendInteractionWithRegions",
                &[&class, &ValueSizes(parameters), &regions, &tag, &transport],
            ),
            |f| {
                Ok(f.send_interaction_with_regions(
                    class, parameters, regions, tag, time, transport,
                )?)
            },
        )
    }

    /// sendInteractionWithRegions with a time stamp (time-stamp order when regulating, and
    /// then the retraction handle).
    pub fn send_interaction_with_regions_at<V: AsRef<[u8]>>(
        &mut self,
        class: InteractionClassHandle,
        parameters: &[(ParameterHandle, V)],
        regions: &[RegionHandle],
        tag: &[u8],
        time: LogicalTime,
    ) -> Result<Option<MessageRetractionHandle>, RtiError> {
        self.with(
            Call::new(
                "sendInteractionWithRegions",
                &[&class, &ValueSizes(parameters), &regions, &tag, &time],
            ),
            |f| Ok(f.send_interaction_with_regions_at(class, parameters, regions, tag, time)?),
        )
    }

    /// requestAttributeValueUpdateWithRegions.
    pub fn request_attribute_value_update_with_regions(
        &mut self,
        class: ObjectClassHandle,
        pairs: &[AttributeSetRegionSetPair],
        tag: &[u8],
    ) -> Result<(), RtiError> {
        self.with(
            Call::new(
                "requestAttributeValueUpdateWithRegions",
                &[&class, &pairs, &tag],
            ),
            |f| Ok(f.request_attribute_value_update_with_regions(class, pairs, tag)?),
        )
    }
}
