//! What a federate service call can fail with. The names follow the IEEE 1516-2010
//! exceptions, so simulation engineers recognise them.

use super::message::ObjectId;
use super::region::RegionError;
use super::regions::RegionHandle;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FederateError {
    #[error("object class {0:?} is not defined in the object model")]
    ObjectClassNotDefined(String),
    #[error("attribute {attribute:?} is not defined for object class {class}")]
    AttributeNotDefined { class: String, attribute: String },
    #[error("interaction class {0:?} is not defined in the object model")]
    InteractionClassNotDefined(String),
    #[error("parameter {parameter:?} is not defined for interaction class {class}")]
    InteractionParameterNotDefined { class: String, parameter: String },
    #[error("dimension {0:?} is not defined in the object model")]
    DimensionNotDefined(String),
    #[error("object class {0} is not published by this federate")]
    ObjectClassNotPublished(String),
    #[error("attribute {attribute} of object class {class} is not published by this federate")]
    AttributeNotPublished { class: String, attribute: String },
    #[error("interaction class {0} is not published by this federate")]
    InteractionClassNotPublished(String),
    #[error("object instance {0} is not known to this federate")]
    ObjectInstanceNotKnown(ObjectId),
    #[error("attribute {attribute} of object instance {object} is not owned by this federate")]
    AttributeNotOwned { object: ObjectId, attribute: String },
    #[error("object instance name {0:?} has not been reserved by this federate")]
    ObjectInstanceNameNotReserved(String),
    #[error("object instance name {0:?} is already in use")]
    ObjectInstanceNameInUse(String),
    #[error("invalid region: {0}")]
    InvalidRegion(#[from] RegionError),
    #[error("{0} values in one call; the limit is 65535")]
    TooManyValues(usize),
    #[error("the object model has {0} classes; routing allows at most 4095")]
    TooManyClasses(usize),
    #[error("dimension handle {0} is not defined in the object model")]
    InvalidDimensionHandle(u32),
    #[error("region {0} was not created by this federate")]
    RegionNotCreatedByThisFederate(RegionHandle),
    #[error("region {region} does not contain dimension #{dimension}")]
    RegionDoesNotContainSpecifiedDimension {
        region: RegionHandle,
        dimension: u32,
    },
    #[error("invalid range bound: {0}")]
    InvalidRangeBound(RegionError),
    #[error("region {region} names dimension {dimension}, which {context} is not distributed in")]
    InvalidRegionContext {
        region: RegionHandle,
        dimension: String,
        context: String,
    },
    #[error("region {0} is in use for update or subscription")]
    RegionInUseForUpdateOrSubscription(RegionHandle),
    #[error("this federate already holds {0} regions, the limit")]
    TooManyRegions(usize),
    #[error("the object class relevance advisory switch is already on")]
    ObjectClassRelevanceAdvisorySwitchIsOn,
    #[error("the object class relevance advisory switch is already off")]
    ObjectClassRelevanceAdvisorySwitchIsOff,
    #[error("the attribute relevance advisory switch is already on")]
    AttributeRelevanceAdvisorySwitchIsOn,
    #[error("the attribute relevance advisory switch is already off")]
    AttributeRelevanceAdvisorySwitchIsOff,
    #[error("the interaction relevance advisory switch is already on")]
    InteractionRelevanceAdvisorySwitchIsOn,
    #[error("the interaction relevance advisory switch is already off")]
    InteractionRelevanceAdvisorySwitchIsOff,
}
