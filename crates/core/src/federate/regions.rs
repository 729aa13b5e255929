//! Regions as IEEE 1516.1-2010 §9 has them: handles a federate creates over a set of
//! dimensions, whose range bounds change only when committed, and that subscriptions and
//! update associations name. Underneath, every handle resolves to the committed [`Region`]
//! value, and routing stays what it is for values: cells, then an exact overlap check.
//!
//! The table remembers which regions each subscription and each instance's attributes use,
//! so that a commit can re-declare interest for exactly the subscriptions it touches, and
//! updates always go out in the committed bounds of their associated regions.

use super::region::{Range, Region, RegionError};
use super::retraction::MessageRetractionHandle;
use super::{Federate, FederateError, LogicalTime, ObjectId};
use crate::fom::{
    AttributeHandle, DimensionHandle, InteractionClassHandle, ObjectClassHandle, ParameterHandle,
};
use crate::wire::TransportClass;
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::collections::{BTreeMap, BTreeSet};

/// Regions one federate may hold at once.
pub const MAX_REGIONS: usize = 1 << 16;

/// A region, federation-wide: the creating federate's handle and its own number, so a
/// handle from another federate is recognised as such (RegionNotCreatedByThisFederate).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RegionHandle(pub u64);

impl RegionHandle {
    /// The `local`-th region created by federate `federate` (its handle).
    pub fn new(federate: u32, local: u32) -> RegionHandle {
        RegionHandle((u64::from(federate) << 32) | u64::from(local))
    }

    /// Handle of the federate that created the region.
    pub fn federate(self) -> u32 {
        (self.0 >> 32) as u32
    }
}

impl std::fmt::Display for RegionHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.0 >> 32, self.0 as u32)
    }
}

/// Attributes sent together because they share their update region, with their values.
type UpdateGroup<'v> = (Option<Region>, Vec<(AttributeHandle, &'v [u8])>);

/// The standard's AttributeSetRegionSetPair: these attributes, in these regions.
pub type AttributeSetRegionSetPair = (Vec<AttributeHandle>, Vec<RegionHandle>);

#[derive(Clone)]
struct RegionEntry {
    dimensions: BTreeSet<DimensionHandle>,
    /// What routing and filtering use.
    committed: Region,
    /// What `set_range_bounds` changed since the last commit (and `get_range_bounds` shows).
    pending: Region,
}

/// The regions one subscription (of an attribute, or of an interaction class) is in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct RegionSet {
    /// Subscribed without regions too (the default region): the whole space.
    whole_space: bool,
    regions: BTreeSet<RegionHandle>,
}

impl RegionSet {
    fn is_empty(&self) -> bool {
        !self.whole_space && self.regions.is_empty()
    }
}

/// The federate's regions and what uses them.
#[derive(Clone, Default)]
pub(super) struct RegionTable {
    entries: BTreeMap<RegionHandle, RegionEntry>,
    next_local: u32,
    object_subscriptions: BTreeMap<ObjectClassHandle, BTreeMap<AttributeHandle, RegionSet>>,
    /// The committed values of `object_subscriptions`, per attribute, for the exact check
    /// on arrival (empty list: the whole space).
    object_values: BTreeMap<ObjectClassHandle, BTreeMap<AttributeHandle, Vec<Region>>>,
    interaction_subscriptions: BTreeMap<InteractionClassHandle, RegionSet>,
    associations: FxHashMap<ObjectId, BTreeMap<AttributeHandle, BTreeSet<RegionHandle>>>,
}

impl RegionTable {
    /// A plain (value-region) subscription replaced whatever the class had.
    pub(super) fn forget_object_subscription(&mut self, class: ObjectClassHandle) {
        self.object_subscriptions.remove(&class);
        self.object_values.remove(&class);
    }

    pub(super) fn forget_interaction_subscription(&mut self, class: InteractionClassHandle) {
        self.interaction_subscriptions.remove(&class);
    }

    /// The instance is gone: its associations with it.
    pub(super) fn forget_object(&mut self, object: ObjectId) {
        self.associations.remove(&object);
    }

    /// Whether a subscription made with region handles takes `attribute` sent in `region`
    /// (`None`: the default region). Classes subscribed without handles take everything
    /// their `ObjectSubscription` takes.
    pub(super) fn attribute_takes(
        &self,
        class: ObjectClassHandle,
        attribute: AttributeHandle,
        region: Option<&Region>,
    ) -> bool {
        let Some(attributes) = self.object_values.get(&class) else {
            return true;
        };
        attributes
            .get(&attribute)
            .is_some_and(|regions| super::covers(regions, region))
    }

    /// The committed regions `attribute` is subscribed in at `class`, when the class was
    /// subscribed with region handles (empty: the whole space).
    pub(super) fn subscription_regions(
        &self,
        class: ObjectClassHandle,
        attribute: AttributeHandle,
    ) -> Option<&[Region]> {
        let attributes = self.object_values.get(&class)?;
        Some(attributes.get(&attribute).map_or(&[], Vec::as_slice))
    }

    fn uses(&self, region: RegionHandle) -> bool {
        let in_set = |set: &RegionSet| set.regions.contains(&region);
        self.object_subscriptions
            .values()
            .any(|attributes| attributes.values().any(in_set))
            || self.interaction_subscriptions.values().any(in_set)
            || self
                .associations
                .values()
                .any(|attributes| attributes.values().any(|set| set.contains(&region)))
    }

    fn committed(&self, region: RegionHandle) -> &Region {
        &self.entries[&region].committed
    }

    /// The one region `regions` are sent in: itself when there is one, else the smallest
    /// region enclosing them all (a message carries one region).
    fn enclosing<'h>(&self, regions: impl IntoIterator<Item = &'h RegionHandle>) -> Option<Region> {
        // On the stack: an update or interaction in regions looks them up once per message.
        let values: SmallVec<[&Region; 4]> =
            (regions.into_iter()).map(|r| self.committed(*r)).collect();
        enclosing(&values)
    }
}

/// The smallest region enclosing `regions`: on each dimension every one of them bounds,
/// from the least lower to the greatest upper bound; unbounded on the others. `None` for
/// no regions.
pub fn enclosing(regions: &[&Region]) -> Option<Region> {
    let (first, rest) = regions.split_first()?;
    let mut out = Region::new();
    for (dimension, range) in first.ranges() {
        let mut lower = range.lower;
        let mut upper = range.upper;
        let mut bounded = true;
        for other in rest {
            match other.range(dimension) {
                Some(r) => {
                    lower = lower.min(r.lower);
                    upper = upper.max(r.upper);
                }
                None => bounded = false,
            }
        }
        if bounded {
            out.set(dimension, Range::new(lower, upper));
        }
    }
    Some(out)
}

impl Federate {
    // ---- regions ------------------------------------------------------------------------

    fn check_dimension(&self, dimension: DimensionHandle) -> Result<(), FederateError> {
        if (dimension.0 as usize) < self.model.counts().dimensions {
            Ok(())
        } else {
            Err(FederateError::InvalidDimensionHandle(dimension.0))
        }
    }

    /// A region this federate created and has not deleted.
    fn own_region(&self, region: RegionHandle) -> Result<&RegionEntry, FederateError> {
        if region.federate() != self.handle {
            return Err(FederateError::RegionNotCreatedByThisFederate(region));
        }
        self.regions
            .entries
            .get(&region)
            .ok_or(FederateError::InvalidRegion(RegionError::Unknown(region)))
    }

    fn own_regions(&self, regions: &[RegionHandle]) -> Result<(), FederateError> {
        regions
            .iter()
            .try_for_each(|r| self.own_region(*r).map(drop))
    }

    /// createRegion: a region over `dimensions`, each spanning its whole range until
    /// `set_range_bounds` and a commit say otherwise.
    pub fn create_region(
        &mut self,
        dimensions: &[DimensionHandle],
    ) -> Result<RegionHandle, FederateError> {
        for &d in dimensions {
            self.check_dimension(d)?;
        }
        if self.regions.entries.len() >= MAX_REGIONS {
            return Err(FederateError::TooManyRegions(MAX_REGIONS));
        }
        let mut region = Region::new();
        for &d in dimensions {
            region.set(d.0, Range::new(0, self.model.dimension(d).upper_bound));
        }
        // Local numbers are not reused while the federate lives, so a stale handle stays
        // invalid instead of naming someone else's region.
        self.regions.next_local = self
            .regions
            .next_local
            .checked_add(1)
            .ok_or(FederateError::TooManyRegions(MAX_REGIONS))?;
        let handle = RegionHandle::new(self.handle, self.regions.next_local);
        self.regions.entries.insert(
            handle,
            RegionEntry {
                dimensions: dimensions.iter().copied().collect(),
                committed: region.clone(),
                pending: region,
            },
        );
        Ok(handle)
    }

    /// deleteRegion: refused while a subscription or an update association uses it.
    pub fn delete_region(&mut self, region: RegionHandle) -> Result<(), FederateError> {
        self.own_region(region)?;
        if self.regions.uses(region) {
            return Err(FederateError::RegionInUseForUpdateOrSubscription(region));
        }
        self.regions.entries.remove(&region);
        Ok(())
    }

    /// getDimensionHandleSet.
    pub fn dimension_handle_set(
        &self,
        region: RegionHandle,
    ) -> Result<Vec<DimensionHandle>, FederateError> {
        Ok(self
            .own_region(region)?
            .dimensions
            .iter()
            .copied()
            .collect())
    }

    /// getRangeBounds: the region specification as last set, committed or not.
    pub fn range_bounds(
        &self,
        region: RegionHandle,
        dimension: DimensionHandle,
    ) -> Result<Range, FederateError> {
        self.check_dimension(dimension)?;
        self.own_region(region)?.pending.range(dimension.0).ok_or(
            FederateError::RegionDoesNotContainSpecifiedDimension {
                region,
                dimension: dimension.0,
            },
        )
    }

    /// setRangeBounds: takes effect at `commit_region_modifications`.
    pub fn set_range_bounds(
        &mut self,
        region: RegionHandle,
        dimension: DimensionHandle,
        range: Range,
    ) -> Result<(), FederateError> {
        self.check_dimension(dimension)?;
        if !self.own_region(region)?.dimensions.contains(&dimension) {
            return Err(FederateError::RegionDoesNotContainSpecifiedDimension {
                region,
                dimension: dimension.0,
            });
        }
        let info = self.model.dimension(dimension);
        if range.lower >= range.upper {
            return Err(FederateError::InvalidRangeBound(RegionError::EmptyRange {
                dimension: info.name.clone(),
                lower: range.lower,
                upper: range.upper,
            }));
        }
        if range.upper > info.upper_bound {
            return Err(FederateError::InvalidRangeBound(RegionError::OutOfBounds {
                dimension: info.name.clone(),
                lower: range.lower,
                upper: range.upper,
                bound: info.upper_bound,
            }));
        }
        let entry = self.regions.entries.get_mut(&region);
        entry
            .expect("checked above")
            .pending
            .set(dimension.0, range);
        Ok(())
    }

    /// commitRegionModifications: the set bounds take effect. Subscriptions in a changed
    /// region declare their new interest; updates go out in the new bounds from now on.
    pub fn commit_region_modifications(
        &mut self,
        regions: &[RegionHandle],
    ) -> Result<(), FederateError> {
        self.own_regions(regions)?;
        let mut changed = BTreeSet::new();
        for region in regions {
            let entry = self.regions.entries.get_mut(region).expect("checked above");
            if entry.committed != entry.pending {
                entry.committed = entry.pending.clone();
                changed.insert(*region);
            }
        }
        if changed.is_empty() {
            return Ok(());
        }
        let uses_changed = |set: &RegionSet| !set.regions.is_disjoint(&changed);
        let objects: Vec<ObjectClassHandle> = (self.regions.object_subscriptions.iter())
            .filter(|(_, attributes)| attributes.values().any(uses_changed))
            .map(|(class, _)| *class)
            .collect();
        let interactions: Vec<InteractionClassHandle> =
            (self.regions.interaction_subscriptions.iter())
                .filter(|(_, set)| uses_changed(set))
                .map(|(class, _)| *class)
                .collect();
        for class in objects {
            self.apply_object_subscription(class);
        }
        for class in interactions {
            self.apply_interaction_subscription(class);
        }
        self.update_interest();
        // Update associations name handles; relevance of what they send may have changed.
        self.advisories_stale();
        Ok(())
    }

    /// getDimensionUpperBound.
    pub fn dimension_upper_bound(&self, dimension: DimensionHandle) -> Result<u64, FederateError> {
        self.check_dimension(dimension)?;
        Ok(self.model.dimension(dimension).upper_bound)
    }

    /// getAvailableDimensionsForClassAttribute.
    pub fn available_dimensions_for_class_attribute(
        &self,
        class: ObjectClassHandle,
        attribute: AttributeHandle,
    ) -> Result<Vec<DimensionHandle>, FederateError> {
        self.check_attributes(class, &[attribute])?;
        Ok(self.model.attribute(attribute).dimensions.clone())
    }

    /// getAvailableDimensionsForInteractionClass.
    pub fn available_dimensions_for_interaction_class(
        &self,
        class: InteractionClassHandle,
    ) -> Vec<DimensionHandle> {
        self.model.interaction_class(class).dimensions.clone()
    }

    /// The committed value of a region this federate created.
    pub fn region_value(&self, region: RegionHandle) -> Result<Region, FederateError> {
        Ok(self.own_region(region)?.committed.clone())
    }

    // ---- checks ---------------------------------------------------------------------------

    /// A region may only name dimensions the attribute (or interaction class) is
    /// distributed in: InvalidRegionContext otherwise.
    fn check_context(
        &self,
        region: RegionHandle,
        available: &[DimensionHandle],
        context: impl Fn() -> String,
    ) -> Result<(), FederateError> {
        let entry = self.own_region(region)?;
        if let Some(outside) = entry.dimensions.iter().find(|d| !available.contains(d)) {
            return Err(FederateError::InvalidRegionContext {
                region,
                dimension: self.model.dimension(*outside).name.clone(),
                context: context(),
            });
        }
        Ok(())
    }

    fn check_object_pairs(
        &self,
        class: ObjectClassHandle,
        pairs: &[AttributeSetRegionSetPair],
    ) -> Result<(), FederateError> {
        for (attributes, regions) in pairs {
            self.check_attributes(class, attributes)?;
            self.own_regions(regions)?;
            for &a in attributes {
                let available = &self.model.attribute(a).dimensions;
                for &r in regions {
                    self.check_context(r, available, || {
                        format!("attribute {}", self.model.attribute(a).name)
                    })?;
                }
            }
        }
        Ok(())
    }

    fn check_interaction_regions(
        &self,
        class: InteractionClassHandle,
        regions: &[RegionHandle],
    ) -> Result<(), FederateError> {
        self.own_regions(regions)?;
        let info = self.model.interaction_class(class);
        for &r in regions {
            self.check_context(r, &info.dimensions, || {
                format!("interaction class {}", info.qualified_name)
            })?;
        }
        Ok(())
    }

    // ---- subscriptions --------------------------------------------------------------------

    /// Rebuild the class's subscription from the regions its attributes are subscribed in.
    fn apply_object_subscription(&mut self, class: ObjectClassHandle) {
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
            super::ObjectSubscription {
                attributes: values.keys().copied().collect(),
                regions: union,
            },
        );
        self.regions.object_values.insert(class, values);
    }

    fn apply_interaction_subscription(&mut self, class: InteractionClassHandle) {
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
        self.check_object_right(super::class_rights::ClassRight::Subscribe, class)?;
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
        self.check_interaction_right(super::class_rights::ClassRight::Subscribe, class)?;
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

    // ---- updates ----------------------------------------------------------------------------

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
    pub(super) fn update_region(
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
