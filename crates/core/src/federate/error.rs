//! What a federate service call can fail with. The names follow the IEEE 1516-2010
//! exceptions, so simulation engineers recognise them.

use super::message::ObjectId;
use super::region::RegionError;
use super::regions::RegionHandle;
use super::time::TimeError;
use thiserror::Error;

/// Why a federate service call was refused; variants are named after the IEEE 1516.1-2010
/// exceptions they stand for.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FederateError {
    /// A model offered at join (with a joiner's added modules) does not extend this one; says why.
    #[error("the object model does not extend this federate's: {0}")]
    ModelNotExtended(String),
    /// An object class name the object model does not define (its name as given).
    #[error("object class {0:?} is not defined in the object model")]
    ObjectClassNotDefined(String),
    /// An attribute name not defined for the class (or its superclasses).
    #[error("attribute {attribute:?} is not defined for object class {class}")]
    AttributeNotDefined {
        /// Qualified name of the object class.
        class: String,
        /// Name of the attribute.
        attribute: String,
    },
    /// An interaction class name the object model does not define (its name as given).
    #[error("interaction class {0:?} is not defined in the object model")]
    InteractionClassNotDefined(String),
    /// A parameter name not defined for the interaction class (or its ancestors).
    #[error("parameter {parameter:?} is not defined for interaction class {class}")]
    InteractionParameterNotDefined {
        /// Qualified name of the interaction class.
        class: String,
        /// Name of the parameter.
        parameter: String,
    },
    /// FederateServiceInvocationsAreBeingReportedViaMOM: subscribing, while a manager has
    /// this federate's service invocations reported, to the class (qualified name) through
    /// which the reports would reach it.
    #[error(
        "this federate's service invocations are being reported via the MOM: it may not \
         subscribe to {0}, through which HLAreportServiceInvocation would reach it"
    )]
    FederateServiceInvocationsAreBeingReportedViaMom(String),
    /// A dimension name the object model does not define.
    #[error("dimension {0:?} is not defined in the object model")]
    DimensionNotDefined(String),
    /// The access policy of the router the federate's link reaches does not allow it
    /// (RTIinternalError in the standard's terms, which names no security exception).
    #[error("{0}")]
    NotPermitted(String),
    /// The service needs the object class published, and this federate does not publish it.
    #[error("object class {0} is not published by this federate")]
    ObjectClassNotPublished(String),
    /// Updating an attribute this federate does not publish for the instance's class.
    #[error("attribute {attribute} of object class {class} is not published by this federate")]
    AttributeNotPublished {
        /// Qualified name of the object class.
        class: String,
        /// Name of the attribute.
        attribute: String,
    },
    /// Sending an interaction of a class this federate does not publish.
    #[error("interaction class {0} is not published by this federate")]
    InteractionClassNotPublished(String),
    /// The instance is neither registered nor discovered by this federate.
    #[error("object instance {0} is not known to this federate")]
    ObjectInstanceNotKnown(ObjectId),
    /// getObjectInstanceHandle of a name no instance known here has (ObjectInstanceNotKnown
    /// in the standard's terms).
    #[error("no object instance known to this federate is named {0:?}")]
    ObjectInstanceNameNotKnown(String),
    /// The service needs this federate to own the attribute, and it does not.
    #[error("attribute {attribute} of object instance {object} is not owned by this federate")]
    AttributeNotOwned {
        /// The object instance.
        object: ObjectId,
        /// Name of the attribute.
        attribute: String,
    },
    /// Acquiring an attribute this federate owns already.
    #[error("attribute {attribute} of object instance {object} is already owned by this federate")]
    AttributeAlreadyOwned {
        /// The object instance.
        object: ObjectId,
        /// Name of the attribute.
        attribute: String,
    },
    /// A second negotiated divestiture of an attribute already being divested.
    #[error("attribute {attribute} of object instance {object} is already being divested")]
    AttributeAlreadyBeingDivested {
        /// The object instance.
        object: ObjectId,
        /// Name of the attribute.
        attribute: String,
    },
    /// Confirming or cancelling a divestiture this federate did not start.
    #[error("divestiture of attribute {attribute} of object instance {object} was not requested")]
    AttributeDivestitureWasNotRequested {
        /// The object instance.
        object: ObjectId,
        /// Name of the attribute.
        attribute: String,
    },
    /// Acquiring an attribute this federate is already acquiring.
    #[error("attribute {attribute} of object instance {object} is already being acquired by this federate")]
    AttributeAlreadyBeingAcquired {
        /// The object instance.
        object: ObjectId,
        /// Name of the attribute.
        attribute: String,
    },
    /// Cancelling an acquisition this federate did not ask for.
    #[error("acquisition of attribute {attribute} of object instance {object} was not requested")]
    AttributeAcquisitionWasNotRequested {
        /// The object instance.
        object: ObjectId,
        /// Name of the attribute.
        attribute: String,
    },
    /// Confirming a divestiture no acquirer is waiting for (NoAcquisitionPending).
    #[error("no federate is waiting to acquire attribute {attribute} of object instance {object}")]
    NoAcquisitionPending {
        /// The object instance.
        object: ObjectId,
        /// Name of the attribute.
        attribute: String,
    },
    /// Deleting an instance without owning its privilege to delete.
    #[error("this federate does not hold the privilege to delete object instance {0}")]
    DeletePrivilegeNotHeld(ObjectId),
    /// Resigning with an action that leaves this attribute owned.
    #[error("this federate still owns attribute {attribute} of object instance {object}")]
    FederateOwnsAttributes {
        /// The object instance.
        object: ObjectId,
        /// Name of the attribute.
        attribute: String,
    },
    /// Resigning with an action that leaves this acquisition pending.
    #[error("this federate is still acquiring attribute {attribute} of object instance {object}")]
    OwnershipAcquisitionPending {
        /// The object instance.
        object: ObjectId,
        /// Name of the attribute.
        attribute: String,
    },
    /// Registering or releasing a name this federate has not reserved.
    #[error("object instance name {0:?} has not been reserved by this federate")]
    ObjectInstanceNameNotReserved(String),
    /// Registering under a name another instance already has.
    #[error("object instance name {0:?} is already in use")]
    ObjectInstanceNameInUse(String),
    /// A name no federate may reserve or register: empty, or starting with "HLA".
    #[error(
        "object instance name {0:?} is empty or begins with \"HLA\", which the standard keeps \
         for the RTI's own names (IEEE 1516.1-2010 §6.2)"
    )]
    IllegalName(String),
    /// reserveMultipleObjectInstanceName with no names.
    #[error("the set of object instance names to reserve is empty (NameSetWasEmpty)")]
    NameSetWasEmpty,
    /// A region the service cannot use (InvalidRegion): bad bounds, or an unknown handle.
    #[error("invalid region: {0}")]
    InvalidRegion(#[from] RegionError),
    /// More attribute values or parameters in one call than one message carries (65535).
    #[error("{0} values in one call; the limit is 65535")]
    TooManyValues(usize),
    /// A user-supplied tag longer than one message carries (65535 bytes): refused, never cut.
    #[error("a user-supplied tag of {0} bytes; the limit is 65535")]
    TagTooLong(usize),
    /// The object model has more classes than the interest ids have slots for (4095).
    #[error("the object model has {0} classes; routing allows at most 4095")]
    TooManyClasses(usize),
    /// Time management refused the call (the §8 exceptions, see `TimeError`).
    #[error(transparent)]
    Time(#[from] TimeError),
    /// getFederateName of a handle no joined federate has (InvalidFederateHandle).
    #[error("federate handle {0} names no joined federate")]
    InvalidFederateHandle(u32),
    /// getFederateHandle of a name no joined federate has (NameNotFound).
    #[error("no joined federate is named {0:?}")]
    NameNotFound(String),
    /// synchronizationPointAchieved of a label never announced to this federate.
    #[error("synchronization point {0:?} has not been announced to this federate")]
    SynchronizationPointLabelNotAnnounced(String),
    /// synchronizationPointAchieved twice for the same label.
    #[error("synchronization point {0:?} was already achieved by this federate")]
    SynchronizationPointAlreadyAchieved(String),
    /// A dimension handle the object model does not define.
    #[error("dimension handle {0} is not defined in the object model")]
    InvalidDimensionHandle(u32),
    /// A region handle another federate created (regions are per federate).
    #[error("region {0} was not created by this federate")]
    RegionNotCreatedByThisFederate(RegionHandle),
    /// getRangeBounds or setRangeBounds of a dimension the region was not created with.
    #[error("region {region} does not contain dimension #{dimension}")]
    RegionDoesNotContainSpecifiedDimension {
        /// The region.
        region: RegionHandle,
        /// The dimension's handle.
        dimension: u32,
    },
    /// setRangeBounds with a range its dimension refuses (empty, or past the upper bound).
    #[error("invalid range bound: {0}")]
    InvalidRangeBound(RegionError),
    /// A region naming a dimension the attribute or interaction class is not distributed in.
    #[error("region {region} names dimension {dimension}, which {context} is not distributed in")]
    InvalidRegionContext {
        /// The region.
        region: RegionHandle,
        /// Name of the dimension the class or attribute is not distributed in.
        dimension: String,
        /// The class or attribute, as a qualified name for the message.
        context: String,
    },
    /// deleteRegion of a region an update association or subscription still names.
    #[error("region {0} is in use for update or subscription")]
    RegionInUseForUpdateOrSubscription(RegionHandle),
    /// createRegion past `MAX_REGIONS` regions held by this federate.
    #[error("this federate already holds {0} regions, the limit")]
    TooManyRegions(usize),
    /// enableObjectClassRelevanceAdvisorySwitch while it is on.
    #[error("the object class relevance advisory switch is already on")]
    ObjectClassRelevanceAdvisorySwitchIsOn,
    /// disableObjectClassRelevanceAdvisorySwitch while it is off.
    #[error("the object class relevance advisory switch is already off")]
    ObjectClassRelevanceAdvisorySwitchIsOff,
    /// enableAttributeRelevanceAdvisorySwitch while it is on.
    #[error("the attribute relevance advisory switch is already on")]
    AttributeRelevanceAdvisorySwitchIsOn,
    /// disableAttributeRelevanceAdvisorySwitch while it is off.
    #[error("the attribute relevance advisory switch is already off")]
    AttributeRelevanceAdvisorySwitchIsOff,
    /// enableAttributeScopeAdvisorySwitch while it is on.
    #[error("the attribute scope advisory switch is already on")]
    AttributeScopeAdvisorySwitchIsOn,
    /// disableAttributeScopeAdvisorySwitch while it is off.
    #[error("the attribute scope advisory switch is already off")]
    AttributeScopeAdvisorySwitchIsOff,
    /// An update rate designator the object model does not define.
    #[error("update rate {0:?} is not defined in the object model")]
    InvalidUpdateRateDesignator(String),
    /// enableInteractionRelevanceAdvisorySwitch while it is on.
    #[error("the interaction relevance advisory switch is already on")]
    InteractionRelevanceAdvisorySwitchIsOn,
    /// disableInteractionRelevanceAdvisorySwitch while it is off.
    #[error("the interaction relevance advisory switch is already off")]
    InteractionRelevanceAdvisorySwitchIsOff,
    /// SaveInProgress: a service the standard forbids while the federation saves under this label.
    #[error("a federation save under {0:?} is in progress (SaveInProgress)")]
    SaveInProgress(String),
    /// RestoreInProgress: a service the standard forbids while the federation restores this label.
    #[error("a federation restore of {0:?} is in progress (RestoreInProgress)")]
    RestoreInProgress(String),
    /// SaveNotInitiated: federateSaveBegun or …Complete with no save initiated here.
    #[error("no federation save is in progress for this federate (SaveNotInitiated)")]
    SaveNotInitiated,
    /// FederateHasNotBegunSave: federateSaveComplete before federateSaveBegun.
    #[error("this federate has not begun its save: call federateSaveBegun first (FederateHasNotBegunSave)")]
    FederateHasNotBegunSave,
    /// RestoreNotRequested: federateRestoreComplete with no restore begun here.
    #[error("no federation restore is in progress for this federate (RestoreNotRequested)")]
    RestoreNotRequested,
}

impl FederateError {
    /// The IEEE 1516.1-2010 exception this error stands for (`ObjectClassNotPublished`),
    /// as the C++ API throws it and the MOM reports it.
    pub fn exception_name(&self) -> String {
        let name = match self {
            FederateError::Time(time) => return variant_name(&format!("{time:?}")).to_owned(),
            FederateError::ModelNotExtended(_) => "InconsistentFDD",
            FederateError::ObjectInstanceNameNotKnown(_) => "ObjectInstanceNotKnown",
            // getDimensionHandle's exception for a name the model lacks.
            FederateError::DimensionNotDefined(_) => "NameNotFound",
            FederateError::IllegalName(_) => "IllegalName",
            FederateError::InvalidRegion(_) => "InvalidRegion",
            FederateError::NotPermitted(_)
            | FederateError::TooManyValues(_)
            | FederateError::TooManyClasses(_)
            | FederateError::TooManyRegions(_) => "RTIinternalError",
            FederateError::InvalidFederateHandle(_) => "InvalidFederateHandle",
            FederateError::InvalidUpdateRateDesignator(_) => "InvalidUpdateRateDesignator",
            FederateError::FederateServiceInvocationsAreBeingReportedViaMom(_) => {
                "FederateServiceInvocationsAreBeingReportedViaMOM"
            }
            other => return variant_name(&format!("{other:?}")).to_owned(),
        };
        name.to_owned()
    }
}

/// The variant's name, as `Debug` prints it before its fields. The error enums name their
/// variants after the standard's exceptions, so this is the exception's name for most.
pub fn variant_name(debug: &str) -> &str {
    let end = debug.find(['(', ' ', '{']).unwrap_or(debug.len());
    &debug[..end]
}
