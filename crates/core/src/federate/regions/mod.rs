//! Regions as IEEE 1516.1-2010 §9 has them: handles a federate creates over a set of
//! dimensions, whose range bounds change only when committed, and that subscriptions and
//! update associations name. Underneath, every handle resolves to the committed [`Region`]
//! value, and routing stays what it is for values: cells, then an exact overlap check.
//!
//! The table remembers which regions each subscription and each instance's attributes use,
//! so that a commit can re-declare interest for exactly the subscriptions it touches, and
//! updates always go out in the committed bounds of their associated regions.

use super::region::{Range, Region, RegionError};
use super::{Federate, FederateError, ObjectId};
use crate::fom::{AttributeHandle, DimensionHandle, InteractionClassHandle, ObjectClassHandle};
use rustc_hash::FxHashMap;
use smallvec::SmallVec;
use std::collections::{BTreeMap, BTreeSet};

mod subscriptions;
mod updates;

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
}
