//! Interest ids of the federate library: an id names (class, cell).
//!
//! ```text
//! id = slot << 20 | cell      slot: object classes up from 0, interaction classes down
//!                             from MAX_CLASSES - 1
//!                             cell: 0 ..= 0xFFFFB a routing cell
//!                                   0xFFFFC   active subscribers (never sent on)
//!                                   0xFFFFD   registrations, for subscribers without regions
//!                                   0xFFFFE   requests for attribute value updates
//!                                   0xFFFFF   everything sent without a region
//! ```
//!
//! Every federate of a federation computes the same ids: handles follow the object model,
//! and bins per dimension are part of the federation's fingerprint. Object classes count up
//! and interaction classes down, so that a module added at join (which appends classes of
//! both kinds) moves no class's ids: members that joined earlier keep routing as they did.

use super::region::{Axis, CellLayout, Region};
use crate::fom::{DimensionHandle, InteractionClassHandle, ObjectClassHandle, ObjectModel};

const CELL_BITS: u32 = 20;
/// Slots available: 12 bits, less one so that no id is all ones.
pub const MAX_CLASSES: usize = (1 << (32 - CELL_BITS)) - 1;
/// Registration announcements. Only subscribers without regions listen: a subscriber with
/// regions discovers an instance on its first update in one of them, so announcing every
/// instance to it would cost each simulator's registrations times every region subscriber
/// (300 federates × 30,000 entities: nine million frames) for nothing.
pub const DISCOVERY_CELL: u32 = (1 << CELL_BITS) - 3;
/// Declared by active subscribers of the class (or a superclass) only, and never sent on:
/// it tells publishers' relevance advisories an active subscriber from a passive one
/// (IEEE 1516.1-2010 §5.6, §5.8), which declares the same routing cells and receives the
/// same data. Routers forward by it like any id, and nothing travels on it.
pub const ACTIVE_CELL: u32 = (1 << CELL_BITS) - 4;
/// Requests for attribute value updates and ownership requests: publishers of the class listen.
pub const REQUEST_CELL: u32 = (1 << CELL_BITS) - 2;
/// Everything sent without a region (and updates whose region covers too many cells).
pub const WILDCARD_CELL: u32 = (1 << CELL_BITS) - 1;
/// Routing cells one class may have.
pub const MAX_CELLS: u64 = ACTIVE_CELL as u64;
/// An update or interaction whose region covers more cells than this goes to the wildcard
/// id instead: one id reaches every subscriber of the class, and they filter exactly.
pub const MAX_IDS_PER_MESSAGE: usize = 1024;

/// Every id of the object class of handle `class`: its slot's range.
pub fn object_slot_ids(class: u32) -> std::ops::RangeInclusive<u32> {
    slot_ids(class)
}

/// Every id of the interaction class of handle `class`.
pub fn interaction_slot_ids(class: u32) -> std::ops::RangeInclusive<u32> {
    slot_ids(interaction_slot_of(class))
}

/// Interaction classes take slots from the top down, so that modules added at join (which
/// append classes of both kinds) move no class's ids.
fn interaction_slot_of(class: u32) -> u32 {
    // `Layouts::new` checks that both kinds together fit below MAX_CLASSES.
    MAX_CLASSES as u32 - 1 - class
}

fn slot_ids(slot: u32) -> std::ops::RangeInclusive<u32> {
    (slot << CELL_BITS)..=((slot << CELL_BITS) | ((1 << CELL_BITS) - 1))
}

/// The slot and cell layout of every class.
pub struct Layouts {
    objects: Vec<CellLayout>,
    interactions: Vec<CellLayout>,
}

/// Bins per dimension for a class with `dimensions` dimensions: the configured count, or
/// fewer when the product would pass the cell limit.
fn bins_for(configured: u32, dimensions: usize) -> u32 {
    let mut bins = configured.max(1);
    while dimensions > 0 && u64::from(bins).pow(dimensions as u32) > MAX_CELLS {
        bins -= 1;
    }
    bins
}

fn layout(model: &ObjectModel, dimensions: &[DimensionHandle], bins: u32) -> CellLayout {
    let bins = bins_for(bins, dimensions.len());
    CellLayout::new(
        dimensions
            .iter()
            .map(|&d| {
                let dimension = model.dimension(d);
                Axis {
                    dimension: d.0,
                    name: dimension.name.clone(),
                    upper_bound: dimension.upper_bound,
                    bins,
                }
            })
            .collect(),
    )
}

impl Layouts {
    /// `None` when the model has more classes than ids allow.
    pub fn new(model: &ObjectModel, bins: u32) -> Option<Layouts> {
        if model.object_classes().len() + model.interaction_classes().len() > MAX_CLASSES {
            return None;
        }
        let objects = model
            .object_classes()
            .iter()
            .map(|class| {
                // An object class's routing space: every dimension any of its attributes uses.
                let mut dims: Vec<DimensionHandle> = model
                    .available_attributes(class.handle)
                    .into_iter()
                    .flat_map(|a| model.attribute(a).dimensions.clone())
                    .collect();
                dims.sort();
                dims.dedup();
                layout(model, &dims, bins)
            })
            .collect();
        let interactions = model
            .interaction_classes()
            .iter()
            .map(|class| layout(model, &class.dimensions, bins))
            .collect();
        Some(Layouts {
            objects,
            interactions,
        })
    }

    /// The routing space of object class `class`; the handle must be the model's.
    pub fn object(&self, class: ObjectClassHandle) -> &CellLayout {
        &self.objects[class.0 as usize]
    }

    /// The routing space of interaction class `class`; the handle must be the model's.
    pub fn interaction(&self, class: InteractionClassHandle) -> &CellLayout {
        &self.interactions[class.0 as usize]
    }

    fn object_slot(&self, class: ObjectClassHandle) -> u32 {
        class.0
    }

    fn interaction_slot(&self, class: InteractionClassHandle) -> u32 {
        interaction_slot_of(class.0)
    }

    /// The interest id of `cell` (a routing cell or one of the `*_CELL` ids) of object class `class`.
    pub fn object_id(&self, class: ObjectClassHandle, cell: u32) -> u32 {
        (self.object_slot(class) << CELL_BITS) | cell
    }

    /// The object class `id` is the `cell` id of, if it is one.
    pub fn object_class_at(&self, id: u32, cell: u32) -> Option<ObjectClassHandle> {
        let slot = id >> CELL_BITS;
        let is_cell = id & ((1 << CELL_BITS) - 1) == cell;
        (is_cell && (slot as usize) < self.objects.len()).then_some(ObjectClassHandle(slot))
    }

    /// The interest id of `cell` (a routing cell or one of the `*_CELL` ids) of interaction class `class`.
    pub fn interaction_id(&self, class: InteractionClassHandle, cell: u32) -> u32 {
        (self.interaction_slot(class) << CELL_BITS) | cell
    }

    /// Ids an object update in `region` goes out on (the wildcard id without a region).
    pub fn object_ids(&self, class: ObjectClassHandle, region: Option<&Region>) -> Vec<u32> {
        let mut ids = Vec::new();
        self.object_ids_into(class, region, &mut ids);
        ids
    }

    /// [`Layouts::object_ids`] appended to `ids`: an update reuses one buffer.
    pub fn object_ids_into(
        &self,
        class: ObjectClassHandle,
        region: Option<&Region>,
        ids: &mut Vec<u32>,
    ) {
        ids_into(self.object(class), region, ids, |cell| {
            self.object_id(class, cell)
        })
    }

    /// Ids an interaction in `region` goes out on (the wildcard id without a region).
    pub fn interaction_ids(
        &self,
        class: InteractionClassHandle,
        region: Option<&Region>,
    ) -> Vec<u32> {
        let mut ids = Vec::new();
        self.interaction_ids_into(class, region, &mut ids);
        ids
    }

    /// [`Layouts::interaction_ids`] appended to `ids`, a list kept from an earlier message.
    pub fn interaction_ids_into(
        &self,
        class: InteractionClassHandle,
        region: Option<&Region>,
        ids: &mut Vec<u32>,
    ) {
        ids_into(self.interaction(class), region, ids, |cell| {
            self.interaction_id(class, cell)
        })
    }
}

fn ids_into(
    layout: &CellLayout,
    region: Option<&Region>,
    ids: &mut Vec<u32>,
    id: impl Fn(u32) -> u32,
) {
    match region {
        Some(region)
            if !layout.axes().is_empty()
                && layout.cells_touched(region) <= MAX_IDS_PER_MESSAGE as u64 =>
        {
            layout.for_each_cell(region, &mut |cell| ids.push(id(cell)))
        }
        _ => ids.push(id(WILDCARD_CELL)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Interest ids of the classes a model has keep their values when a module adds classes
    /// of both kinds (handles are appended), and the two kinds never share a slot.
    #[test]
    fn adding_classes_moves_no_existing_class_ids() {
        let model = ObjectModel::from_sources(&[(
            "demo.xml",
            include_str!("../../../../foms/trellis-demo.xml"),
        )])
        .expect("demo model");
        let layouts = Layouts::new(&model, 4).expect("fits");
        let radio = model.find_interaction_class("Radio").expect("Radio");
        let vehicle = model.find_object_class("Vehicle").expect("Vehicle");
        assert_eq!(layouts.object_id(vehicle, 7), (vehicle.0 << CELL_BITS) | 7);
        assert_eq!(
            layouts.interaction_id(radio, 7),
            ((MAX_CLASSES as u32 - 1 - radio.0) << CELL_BITS) | 7,
            "an interaction's slot depends on its handle only, not on how many object classes there are"
        );
        let top_object = model.object_classes().len() as u32 - 1;
        let bottom_interaction = MAX_CLASSES as u32 - model.interaction_classes().len() as u32;
        assert!(top_object < bottom_interaction);
        assert!(
            layouts.interaction_id(radio, WILDCARD_CELL) < 0xFFF0_0000,
            "below the registry's ids"
        );
    }

    #[test]
    fn bins_shrink_to_keep_cells_within_the_limit() {
        assert_eq!(bins_for(16, 2), 16);
        assert_eq!(bins_for(16, 0), 16);
        assert!(u64::from(bins_for(64, 4)).pow(4) <= MAX_CELLS);
        assert_eq!(bins_for(1024, 1), 1024);
    }
}
