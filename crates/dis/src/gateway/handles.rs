//! The RPR classes, attributes and parameters the gateway uses, looked up once, with what
//! it publishes and subscribes to.

use crate::rpr::{APPEARANCE_FIELDS, ENTITY_CLASSES};
use std::collections::HashMap;
use trellis_core::fom::{
    AttributeHandle, InteractionClassHandle, ObjectClassHandle, ParameterHandle,
};
use trellis_net::rti::{RtiAmbassador, RtiError};

/// An attribute of `PhysicalEntity` the gateway maps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attr {
    EntityType,
    EntityIdentifier,
    Spatial,
    AlternateEntityType,
    Marking,
    ForceIdentifier,
    /// An index into [`APPEARANCE_FIELDS`].
    Appearance(usize),
}

/// The attributes by name, the appearance ones after the others.
fn attribute_names() -> Vec<(&'static str, Attr)> {
    let mut names = vec![
        ("EntityType", Attr::EntityType),
        ("EntityIdentifier", Attr::EntityIdentifier),
        ("Spatial", Attr::Spatial),
        ("AlternateEntityType", Attr::AlternateEntityType),
        ("Marking", Attr::Marking),
        ("ForceIdentifier", Attr::ForceIdentifier),
    ];
    for (index, (name, _, _)) in APPEARANCE_FIELDS.iter().enumerate() {
        names.push((name, Attr::Appearance(index)));
    }
    names
}

/// The parameters of WeaponFire and MunitionDetonation the gateway maps.
pub const FIRE_PARAMETERS: [&str; 13] = [
    "EventIdentifier",
    "FireControlSolutionRange",
    "FireMissionIndex",
    "FiringLocation",
    "FiringObjectIdentifier",
    "FuseType",
    "InitialVelocityVector",
    "MunitionObjectIdentifier",
    "MunitionType",
    "QuantityFired",
    "RateOfFire",
    "TargetObjectIdentifier",
    "WarheadType",
];
pub const DETONATION_PARAMETERS: [&str; 13] = [
    "DetonationLocation",
    "DetonationResultCode",
    "EventIdentifier",
    "FiringObjectIdentifier",
    "FinalVelocityVector",
    "FuseType",
    "MunitionObjectIdentifier",
    "MunitionType",
    "QuantityFired",
    "RateOfFire",
    "RelativeDetonationLocation",
    "TargetObjectIdentifier",
    "WarheadType",
];

/// One interaction class and its parameters both ways.
pub struct InteractionHandles {
    pub class: InteractionClassHandle,
    by_name: HashMap<&'static str, ParameterHandle>,
    by_handle: HashMap<ParameterHandle, &'static str>,
}

impl InteractionHandles {
    fn look_up(
        rti: &RtiAmbassador,
        class: &str,
        names: &[&'static str],
    ) -> Result<InteractionHandles, RtiError> {
        let handle = rti.interaction_class_handle(class)?;
        let mut by_name = HashMap::new();
        let mut by_handle = HashMap::new();
        for &name in names {
            let parameter = rti.parameter_handle(handle, name)?;
            by_name.insert(name, parameter);
            by_handle.insert(parameter, name);
        }
        Ok(InteractionHandles {
            class: handle,
            by_name,
            by_handle,
        })
    }

    /// The handle of a parameter in the lists above.
    pub fn parameter(&self, name: &str) -> Option<ParameterHandle> {
        self.by_name.get(name).copied()
    }

    pub fn name_of(&self, parameter: ParameterHandle) -> Option<&'static str> {
        self.by_handle.get(&parameter).copied()
    }
}

pub struct Handles {
    /// Class name → handle, for registering DIS entities.
    pub classes: HashMap<&'static str, ObjectClassHandle>,
    pub attributes: Vec<(AttributeHandle, Attr)>,
    by_handle: HashMap<AttributeHandle, Attr>,
    pub fire: InteractionHandles,
    pub detonation: InteractionHandles,
}

impl Handles {
    /// Look everything up, publish every entity class and both interactions, subscribe to
    /// `PhysicalEntity` (its subclasses are discovered as it) and both interactions.
    pub fn declare(rti: &mut RtiAmbassador) -> Result<Handles, RtiError> {
        let physical = rti.object_class_handle(ENTITY_CLASSES[0])?;
        let mut attributes = Vec::new();
        for (name, attr) in attribute_names() {
            attributes.push((rti.attribute_handle(physical, name)?, attr));
        }
        let all: Vec<AttributeHandle> = attributes.iter().map(|(h, _)| *h).collect();
        let mut classes = HashMap::new();
        for name in ENTITY_CLASSES {
            let class = rti.object_class_handle(name)?;
            rti.publish_object_class_attributes(class, &all)?;
            classes.insert(name, class);
        }
        rti.subscribe_object_class_attributes(physical, &all)?;
        let fire = InteractionHandles::look_up(rti, "WeaponFire", &FIRE_PARAMETERS)?;
        let detonation =
            InteractionHandles::look_up(rti, "MunitionDetonation", &DETONATION_PARAMETERS)?;
        for class in [fire.class, detonation.class] {
            rti.publish_interaction_class(class)?;
            rti.subscribe_interaction_class(class)?;
        }
        Ok(Handles {
            classes,
            by_handle: attributes.iter().map(|&(h, a)| (h, a)).collect(),
            attributes,
            fire,
            detonation,
        })
    }

    pub fn attr(&self, handle: AttributeHandle) -> Option<Attr> {
        self.by_handle.get(&handle).copied()
    }

    pub fn attribute_handles(&self) -> Vec<AttributeHandle> {
        self.attributes.iter().map(|(h, _)| *h).collect()
    }
}
