//! Support services of IEEE 1516.1-2010 clause 10 that the object model answers alone:
//! names and handles of transportation types, order types, dimensions and update rates,
//! the dimensions of a class, and the normalization the MIM's dimensions need. Errors are
//! named after the standard's exceptions.

use super::error::Site;
use super::{
    AttributeHandle, DimensionHandle, InteractionClassHandle, ObjectClassHandle, ObjectModel, Order,
};
use serde::Serialize;
use std::collections::BTreeMap;
use thiserror::Error;

/// The upper bound of a dimension whose `<dimension>` gives none, as the standard MIM's
/// HLAfederate dimension does ("the RTI chooses"): 2^32 - 1, the largest bound the
/// standard's C++ API (`unsigned long`) can report on every platform. Federate handles
/// normalize to their own value, which stays below it.
pub const RTI_CHOSEN_UPPER_BOUND: u64 = u32::MAX as u64;

/// A transportation type's handle: HLAreliable is 0, HLAbestEffort is 1, and the types
/// the modules declare follow in the order first declared (modules in the order given), so
/// every federate that loads the same modules in the same order numbers them alike, and
/// appending a module renumbers none.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct TransportationTypeHandle(pub u32);

/// A transportation type of the model (getTransportationTypeHandle / getTransportationTypeName).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TransportationType {
    /// Its handle: 0 HLAreliable, 1 HLAbestEffort, then those the modules declare.
    pub handle: TransportationTypeHandle,
    /// Its name as declared.
    pub name: String,
    /// Whether it is delivered reliably; a module's own type says so in its `<reliable>`.
    pub reliable: bool,
}

/// A failed look-up, named after the IEEE 1516.1-2010 exception the service throws.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LookupError {
    /// The name is not a transportation type of the model; holds the name.
    #[error("transportation type {0:?} is not defined in the object model")]
    InvalidTransportationName(String),
    /// The handle is not a transportation type of the model; holds the handle.
    #[error("transportation type handle {0} is not defined in the object model")]
    InvalidTransportationType(u32),
    /// The name is neither "Receive" nor "TimeStamp"; holds the name.
    #[error("order type {0:?} is neither Receive nor TimeStamp")]
    InvalidOrderName(String),
    /// No dimension has this name; holds the name.
    #[error("dimension {0:?} is not defined in the object model")]
    NameNotFound(String),
    /// The handle is not a dimension of the model; holds the handle.
    #[error("dimension handle {0} is not defined in the object model")]
    InvalidDimensionHandle(u32),
    /// No update rate has this name; holds the name.
    #[error("update rate {0:?} is not defined in the object model")]
    InvalidUpdateRateDesignator(String),
    /// The handle is not an object class of the model; holds the handle.
    #[error("object class handle {0} is not defined in the object model")]
    InvalidObjectClassHandle(u32),
    /// The handle is not an attribute of the model; holds the handle.
    #[error("attribute handle {0} is not defined in the object model")]
    InvalidAttributeHandle(u32),
    /// The attribute exists but belongs to no ancestor of the class (AttributeNotDefined).
    #[error("attribute {attribute} is not an attribute of object class {class}")]
    AttributeNotDefined {
        /// The object class's qualified name.
        class: String,
        /// The attribute's name.
        attribute: String,
    },
    /// The handle is not an interaction class of the model; holds the handle.
    #[error("interaction class handle {0} is not defined in the object model")]
    InvalidInteractionClassHandle(u32),
}

/// The model's transportation types, numbered as [`TransportationTypeHandle`] says.
pub(crate) fn transportation_types(
    declared: &BTreeMap<String, (bool, Site)>,
    declaration_order: &[String],
) -> Vec<TransportationType> {
    let standard = ["HLAreliable", "HLAbestEffort"];
    let others = (declaration_order.iter()).filter(|n| !standard.contains(&n.as_str()));
    standard
        .into_iter()
        .map(str::to_owned)
        .chain(others.cloned())
        .enumerate()
        .map(|(i, name)| TransportationType {
            handle: TransportationTypeHandle(i as u32),
            reliable: declared.get(&name).is_none_or(|(reliable, _)| *reliable),
            name,
        })
        .collect()
}

impl Order {
    /// The standard's name of the order type (getOrderName).
    pub fn name(self) -> &'static str {
        match self {
            Order::Receive => "Receive",
            Order::TimeStamp => "TimeStamp",
        }
    }

    /// The order type named `name` (getOrderType), as the OMT spells it.
    pub fn from_name(name: &str) -> Result<Order, LookupError> {
        match name {
            "Receive" => Ok(Order::Receive),
            "TimeStamp" => Ok(Order::TimeStamp),
            other => Err(LookupError::InvalidOrderName(other.to_owned())),
        }
    }
}

/// The service groups of IEEE 1516.1-2010, the values of the MIM's HLAserviceGroup dimension.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ServiceGroup {
    /// Federation management (clause 4).
    FederationManagement,
    /// Declaration management (clause 5).
    DeclarationManagement,
    /// Object management (clause 6).
    ObjectManagement,
    /// Ownership management (clause 7).
    OwnershipManagement,
    /// Time management (clause 8).
    TimeManagement,
    /// Data distribution management (clause 9).
    DataDistributionManagement,
    /// Support services (clause 10).
    SupportServices,
}

impl ServiceGroup {
    /// normalizeServiceGroup: a value in `[0, 7)`, the HLAserviceGroup dimension's range
    /// (the order of the MIM's HLAserviceGroupName enumeration).
    pub fn normalize(self) -> u64 {
        self as u64
    }
}

impl ObjectModel {
    /// Every transportation type, in handle order.
    pub fn transportation_types(&self) -> &[TransportationType] {
        &self.transportation_types
    }

    /// getTransportationTypeHandle.
    pub fn transportation_type_handle(
        &self,
        name: &str,
    ) -> Result<TransportationTypeHandle, LookupError> {
        self.transportation_types
            .iter()
            .find(|t| t.name == name)
            .map(|t| t.handle)
            .ok_or_else(|| LookupError::InvalidTransportationName(name.to_owned()))
    }

    /// getTransportationTypeName, with whether the type is reliable.
    pub fn transportation_type(
        &self,
        handle: TransportationTypeHandle,
    ) -> Result<&TransportationType, LookupError> {
        self.transportation_types
            .get(handle.0 as usize)
            .ok_or(LookupError::InvalidTransportationType(handle.0))
    }

    /// Every update rate, in name order.
    pub fn update_rates(&self) -> &[super::UpdateRate] {
        &self.update_rates
    }

    /// getUpdateRateValue: the rate (updates per second) named `designator`.
    pub fn update_rate_value(&self, designator: &str) -> Result<f64, LookupError> {
        self.update_rates
            .binary_search_by(|r| r.name.as_str().cmp(designator))
            .map(|i| self.update_rates[i].rate)
            .map_err(|_| LookupError::InvalidUpdateRateDesignator(designator.to_owned()))
    }

    /// getDimensionHandle.
    pub fn dimension_handle(&self, name: &str) -> Result<DimensionHandle, LookupError> {
        self.find_dimension(name)
            .ok_or_else(|| LookupError::NameNotFound(name.to_owned()))
    }

    /// A dimension handle that came from outside (getDimensionName, getDimensionUpperBound).
    pub fn dimension_checked(
        &self,
        handle: DimensionHandle,
    ) -> Result<&super::Dimension, LookupError> {
        self.dimensions()
            .get(handle.0 as usize)
            .ok_or(LookupError::InvalidDimensionHandle(handle.0))
    }

    /// getAvailableDimensionsForClassAttribute: the dimensions `attribute`, declared in
    /// `class` or inherited, is updated in.
    pub fn available_dimensions_for_class_attribute(
        &self,
        class: ObjectClassHandle,
        attribute: AttributeHandle,
    ) -> Result<Vec<DimensionHandle>, LookupError> {
        let class = self
            .object_class_checked(class.0)
            .ok_or(LookupError::InvalidObjectClassHandle(class.0))?;
        if attribute.0 as usize >= self.counts().attributes {
            return Err(LookupError::InvalidAttributeHandle(attribute.0));
        }
        let declared_in = self.attribute(attribute).class;
        if !self.is_object_subclass(class, declared_in) {
            return Err(LookupError::AttributeNotDefined {
                class: self.object_class(class).qualified_name.clone(),
                attribute: self.attribute(attribute).name.clone(),
            });
        }
        Ok(self.attribute(attribute).dimensions.clone())
    }

    /// getAvailableDimensionsForInteractionClass: the dimensions `class` is sent in (its
    /// own or, when it names none, its parent's).
    pub fn available_dimensions_for_interaction_class(
        &self,
        class: InteractionClassHandle,
    ) -> Result<Vec<DimensionHandle>, LookupError> {
        let class = self
            .interaction_class_checked(class.0)
            .ok_or(LookupError::InvalidInteractionClassHandle(class.0))?;
        Ok(self.interaction_class(class).dimensions.clone())
    }
}
