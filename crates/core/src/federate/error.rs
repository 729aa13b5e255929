//! What a federate service call can fail with. The names follow the IEEE 1516-2010
//! exceptions, so simulation engineers recognise them.

use super::message::ObjectId;
use super::region::RegionError;
use super::regions::RegionHandle;
use super::time::TimeError;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FederateError {
    #[error("the object model does not extend this federate's: {0}")]
    ModelNotExtended(String),
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
    /// The access policy of the router the federate's link reaches does not allow it
    /// (RTIinternalError in the standard's terms, which names no security exception).
    #[error("{0}")]
    NotPermitted(String),
    #[error("object class {0} is not published by this federate")]
    ObjectClassNotPublished(String),
    #[error("attribute {attribute} of object class {class} is not published by this federate")]
    AttributeNotPublished { class: String, attribute: String },
    #[error("interaction class {0} is not published by this federate")]
    InteractionClassNotPublished(String),
    #[error("object instance {0} is not known to this federate")]
    ObjectInstanceNotKnown(ObjectId),
    /// getObjectInstanceHandle of a name no instance known here has (ObjectInstanceNotKnown
    /// in the standard's terms).
    #[error("no object instance known to this federate is named {0:?}")]
    ObjectInstanceNameNotKnown(String),
    #[error("attribute {attribute} of object instance {object} is not owned by this federate")]
    AttributeNotOwned { object: ObjectId, attribute: String },
    #[error("attribute {attribute} of object instance {object} is already owned by this federate")]
    AttributeAlreadyOwned { object: ObjectId, attribute: String },
    #[error("attribute {attribute} of object instance {object} is already being divested")]
    AttributeAlreadyBeingDivested { object: ObjectId, attribute: String },
    #[error("divestiture of attribute {attribute} of object instance {object} was not requested")]
    AttributeDivestitureWasNotRequested { object: ObjectId, attribute: String },
    #[error("attribute {attribute} of object instance {object} is already being acquired by this federate")]
    AttributeAlreadyBeingAcquired { object: ObjectId, attribute: String },
    #[error("acquisition of attribute {attribute} of object instance {object} was not requested")]
    AttributeAcquisitionWasNotRequested { object: ObjectId, attribute: String },
    #[error("no federate is waiting to acquire attribute {attribute} of object instance {object}")]
    NoAcquisitionPending { object: ObjectId, attribute: String },
    #[error("this federate does not hold the privilege to delete object instance {0}")]
    DeletePrivilegeNotHeld(ObjectId),
    #[error("this federate still owns attribute {attribute} of object instance {object}")]
    FederateOwnsAttributes { object: ObjectId, attribute: String },
    #[error("this federate is still acquiring attribute {attribute} of object instance {object}")]
    OwnershipAcquisitionPending { object: ObjectId, attribute: String },
    #[error("object instance name {0:?} has not been reserved by this federate")]
    ObjectInstanceNameNotReserved(String),
    #[error("object instance name {0:?} is already in use")]
    ObjectInstanceNameInUse(String),
    #[error(
        "object instance name {0:?} is empty or begins with \"HLA\", which the standard keeps \
         for the RTI's own names (IEEE 1516.1-2010 §6.2)"
    )]
    IllegalName(String),
    #[error("the set of object instance names to reserve is empty (NameSetWasEmpty)")]
    NameSetWasEmpty,
    #[error("invalid region: {0}")]
    InvalidRegion(#[from] RegionError),
    #[error("{0} values in one call; the limit is 65535")]
    TooManyValues(usize),
    #[error("the object model has {0} classes; routing allows at most 4095")]
    TooManyClasses(usize),
    #[error(transparent)]
    Time(#[from] TimeError),
    #[error("federate handle {0} names no joined federate")]
    InvalidFederateHandle(u32),
    #[error("no joined federate is named {0:?}")]
    NameNotFound(String),
    #[error("synchronization point {0:?} has not been announced to this federate")]
    SynchronizationPointLabelNotAnnounced(String),
    #[error("synchronization point {0:?} was already achieved by this federate")]
    SynchronizationPointAlreadyAchieved(String),
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
    #[error("the attribute scope advisory switch is already on")]
    AttributeScopeAdvisorySwitchIsOn,
    #[error("the attribute scope advisory switch is already off")]
    AttributeScopeAdvisorySwitchIsOff,
    #[error("update rate {0:?} is not defined in the object model")]
    InvalidUpdateRateDesignator(String),
    #[error("the interaction relevance advisory switch is already on")]
    InteractionRelevanceAdvisorySwitchIsOn,
    #[error("the interaction relevance advisory switch is already off")]
    InteractionRelevanceAdvisorySwitchIsOff,
    #[error("a federation save under {0:?} is in progress (SaveInProgress)")]
    SaveInProgress(String),
    #[error("a federation restore of {0:?} is in progress (RestoreInProgress)")]
    RestoreInProgress(String),
    #[error("no federation save is in progress for this federate (SaveNotInitiated)")]
    SaveNotInitiated,
    #[error("this federate has not begun its save: call federateSaveBegun first (FederateHasNotBegunSave)")]
    FederateHasNotBegunSave,
    #[error("no federation restore is in progress for this federate (RestoreNotRequested)")]
    RestoreNotRequested,
}
