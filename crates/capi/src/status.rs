//! Status codes: one per IEEE 1516.1-2010 exception a service can throw, and the mapping
//! from the federate library's errors to them.

use trellis_core::federate::region::RegionError;
use trellis_core::federate::{FederateError, TimeError};
use trellis_core::fom::{FddErrorKind, MimError, MimErrorKind};
use trellis_net::rti::RtiError;

/// What every service returns: TRELLIS_OK or the code of the 1516.1-2010 exception.
pub type TrellisStatus = i32;

pub const TRELLIS_OK: TrellisStatus = 0;
pub const TRELLIS_ERR_ALREADY_CONNECTED: TrellisStatus = 1;
pub const TRELLIS_ERR_CONNECTION_FAILED: TrellisStatus = 2;
pub const TRELLIS_ERR_INVALID_LOCAL_SETTINGS_DESIGNATOR: TrellisStatus = 3;
pub const TRELLIS_ERR_NOT_CONNECTED: TrellisStatus = 4;
pub const TRELLIS_ERR_FEDERATE_IS_EXECUTION_MEMBER: TrellisStatus = 5;
pub const TRELLIS_ERR_FEDERATION_EXECUTION_ALREADY_EXISTS: TrellisStatus = 6;
pub const TRELLIS_ERR_FEDERATION_EXECUTION_DOES_NOT_EXIST: TrellisStatus = 7;
pub const TRELLIS_ERR_FEDERATES_CURRENTLY_JOINED: TrellisStatus = 8;
pub const TRELLIS_ERR_COULD_NOT_OPEN_FDD: TrellisStatus = 9;
pub const TRELLIS_ERR_ERROR_READING_FDD: TrellisStatus = 10;
pub const TRELLIS_ERR_INCONSISTENT_FDD: TrellisStatus = 11;
pub const TRELLIS_ERR_COULD_NOT_CREATE_LOGICAL_TIME_FACTORY: TrellisStatus = 12;
pub const TRELLIS_ERR_FEDERATE_NAME_ALREADY_IN_USE: TrellisStatus = 13;
pub const TRELLIS_ERR_FEDERATE_ALREADY_EXECUTION_MEMBER: TrellisStatus = 14;
pub const TRELLIS_ERR_FEDERATE_NOT_EXECUTION_MEMBER: TrellisStatus = 15;
pub const TRELLIS_ERR_OWNERSHIP_ACQUISITION_PENDING: TrellisStatus = 16;
pub const TRELLIS_ERR_FEDERATE_OWNS_ATTRIBUTES: TrellisStatus = 17;
pub const TRELLIS_ERR_INVALID_RESIGN_ACTION: TrellisStatus = 18;
pub const TRELLIS_ERR_SYNCHRONIZATION_POINT_LABEL_NOT_ANNOUNCED: TrellisStatus = 19;
pub const TRELLIS_ERR_INVALID_FEDERATE_HANDLE: TrellisStatus = 20;
pub const TRELLIS_ERR_OBJECT_CLASS_NOT_DEFINED: TrellisStatus = 21;
pub const TRELLIS_ERR_ATTRIBUTE_NOT_DEFINED: TrellisStatus = 22;
pub const TRELLIS_ERR_INTERACTION_CLASS_NOT_DEFINED: TrellisStatus = 23;
pub const TRELLIS_ERR_INTERACTION_PARAMETER_NOT_DEFINED: TrellisStatus = 24;
pub const TRELLIS_ERR_OBJECT_CLASS_NOT_PUBLISHED: TrellisStatus = 25;
pub const TRELLIS_ERR_ATTRIBUTE_NOT_PUBLISHED: TrellisStatus = 26;
pub const TRELLIS_ERR_INTERACTION_CLASS_NOT_PUBLISHED: TrellisStatus = 27;
pub const TRELLIS_ERR_OBJECT_INSTANCE_NOT_KNOWN: TrellisStatus = 28;
pub const TRELLIS_ERR_OBJECT_INSTANCE_NAME_NOT_RESERVED: TrellisStatus = 29;
pub const TRELLIS_ERR_OBJECT_INSTANCE_NAME_IN_USE: TrellisStatus = 30;
pub const TRELLIS_ERR_ILLEGAL_NAME: TrellisStatus = 31;
pub const TRELLIS_ERR_ATTRIBUTE_NOT_OWNED: TrellisStatus = 32;
pub const TRELLIS_ERR_DELETE_PRIVILEGE_NOT_HELD: TrellisStatus = 33;
pub const TRELLIS_ERR_NAME_NOT_FOUND: TrellisStatus = 34;
pub const TRELLIS_ERR_INVALID_OBJECT_CLASS_HANDLE: TrellisStatus = 35;
pub const TRELLIS_ERR_INVALID_ATTRIBUTE_HANDLE: TrellisStatus = 36;
pub const TRELLIS_ERR_INVALID_INTERACTION_CLASS_HANDLE: TrellisStatus = 37;
pub const TRELLIS_ERR_INVALID_PARAMETER_HANDLE: TrellisStatus = 38;
pub const TRELLIS_ERR_INVALID_DIMENSION_HANDLE: TrellisStatus = 39;
pub const TRELLIS_ERR_INVALID_UPDATE_RATE_DESIGNATOR: TrellisStatus = 40;
pub const TRELLIS_ERR_INVALID_TRANSPORTATION_NAME: TrellisStatus = 41;
pub const TRELLIS_ERR_INVALID_TRANSPORTATION_TYPE: TrellisStatus = 42;
pub const TRELLIS_ERR_INVALID_ORDER_NAME: TrellisStatus = 43;
pub const TRELLIS_ERR_INVALID_ORDER_TYPE: TrellisStatus = 44;
pub const TRELLIS_ERR_ATTRIBUTE_ALREADY_OWNED: TrellisStatus = 45;
pub const TRELLIS_ERR_ATTRIBUTE_ALREADY_BEING_DIVESTED: TrellisStatus = 46;
pub const TRELLIS_ERR_ATTRIBUTE_DIVESTITURE_WAS_NOT_REQUESTED: TrellisStatus = 47;
pub const TRELLIS_ERR_ATTRIBUTE_ALREADY_BEING_ACQUIRED: TrellisStatus = 48;
pub const TRELLIS_ERR_ATTRIBUTE_ACQUISITION_WAS_NOT_REQUESTED: TrellisStatus = 49;
pub const TRELLIS_ERR_NO_ACQUISITION_PENDING: TrellisStatus = 50;
pub const TRELLIS_ERR_TIME_REGULATION_ALREADY_ENABLED: TrellisStatus = 51;
pub const TRELLIS_ERR_TIME_REGULATION_IS_NOT_ENABLED: TrellisStatus = 52;
pub const TRELLIS_ERR_TIME_CONSTRAINED_ALREADY_ENABLED: TrellisStatus = 53;
pub const TRELLIS_ERR_TIME_CONSTRAINED_IS_NOT_ENABLED: TrellisStatus = 54;
pub const TRELLIS_ERR_IN_TIME_ADVANCING_STATE: TrellisStatus = 55;
pub const TRELLIS_ERR_REQUEST_FOR_TIME_REGULATION_PENDING: TrellisStatus = 56;
pub const TRELLIS_ERR_REQUEST_FOR_TIME_CONSTRAINED_PENDING: TrellisStatus = 57;
pub const TRELLIS_ERR_INVALID_LOOKAHEAD: TrellisStatus = 58;
pub const TRELLIS_ERR_INVALID_LOGICAL_TIME: TrellisStatus = 59;
pub const TRELLIS_ERR_LOGICAL_TIME_ALREADY_PASSED: TrellisStatus = 60;
pub const TRELLIS_ERR_ASYNCHRONOUS_DELIVERY_ALREADY_ENABLED: TrellisStatus = 61;
pub const TRELLIS_ERR_ASYNCHRONOUS_DELIVERY_ALREADY_DISABLED: TrellisStatus = 62;
pub const TRELLIS_ERR_INVALID_MESSAGE_RETRACTION_HANDLE: TrellisStatus = 63;
pub const TRELLIS_ERR_INVALID_REGION: TrellisStatus = 64;
pub const TRELLIS_ERR_INVALID_REGION_CONTEXT: TrellisStatus = 65;
pub const TRELLIS_ERR_REGION_NOT_CREATED_BY_THIS_FEDERATE: TrellisStatus = 66;
pub const TRELLIS_ERR_REGION_DOES_NOT_CONTAIN_SPECIFIED_DIMENSION: TrellisStatus = 67;
pub const TRELLIS_ERR_REGION_IN_USE_FOR_UPDATE_OR_SUBSCRIPTION: TrellisStatus = 68;
pub const TRELLIS_ERR_INVALID_RANGE_BOUND: TrellisStatus = 69;
pub const TRELLIS_ERR_OBJECT_CLASS_RELEVANCE_ADVISORY_SWITCH_IS_ON: TrellisStatus = 70;
pub const TRELLIS_ERR_OBJECT_CLASS_RELEVANCE_ADVISORY_SWITCH_IS_OFF: TrellisStatus = 71;
pub const TRELLIS_ERR_ATTRIBUTE_RELEVANCE_ADVISORY_SWITCH_IS_ON: TrellisStatus = 72;
pub const TRELLIS_ERR_ATTRIBUTE_RELEVANCE_ADVISORY_SWITCH_IS_OFF: TrellisStatus = 73;
pub const TRELLIS_ERR_ATTRIBUTE_SCOPE_ADVISORY_SWITCH_IS_ON: TrellisStatus = 74;
pub const TRELLIS_ERR_ATTRIBUTE_SCOPE_ADVISORY_SWITCH_IS_OFF: TrellisStatus = 75;
pub const TRELLIS_ERR_INTERACTION_RELEVANCE_ADVISORY_SWITCH_IS_ON: TrellisStatus = 76;
pub const TRELLIS_ERR_INTERACTION_RELEVANCE_ADVISORY_SWITCH_IS_OFF: TrellisStatus = 77;
pub const TRELLIS_ERR_CALL_NOT_ALLOWED_FROM_WITHIN_CALLBACK: TrellisStatus = 78;
pub const TRELLIS_ERR_UNSUPPORTED_CALLBACK_MODEL: TrellisStatus = 79;
pub const TRELLIS_ERR_COULD_NOT_OPEN_MIM: TrellisStatus = 80;
pub const TRELLIS_ERR_ERROR_READING_MIM: TrellisStatus = 81;
pub const TRELLIS_ERR_DESIGNATOR_IS_HLA_STANDARD_MIM: TrellisStatus = 82;
pub const TRELLIS_ERR_MESSAGE_CAN_NO_LONGER_BE_RETRACTED: TrellisStatus = 83;
pub const TRELLIS_ERR_SAVE_IN_PROGRESS: TrellisStatus = 84;
pub const TRELLIS_ERR_RESTORE_IN_PROGRESS: TrellisStatus = 85;
pub const TRELLIS_ERR_SAVE_NOT_INITIATED: TrellisStatus = 86;
pub const TRELLIS_ERR_FEDERATE_HAS_NOT_BEGUN_SAVE: TrellisStatus = 87;
pub const TRELLIS_ERR_RESTORE_NOT_REQUESTED: TrellisStatus = 88;
pub const TRELLIS_ERR_FEDERATE_SERVICE_INVOCATIONS_ARE_BEING_REPORTED_VIA_MOM: TrellisStatus = 89;
/// Everything else, and services Trellis does not provide (the message names the service).
pub const TRELLIS_ERR_RTI_INTERNAL_ERROR: TrellisStatus = 1000;

/// A failed call: the status and what to tell the caller.
#[derive(Debug)]
pub(crate) struct Failure {
    pub status: TrellisStatus,
    pub message: String,
}

impl Failure {
    pub fn new(status: TrellisStatus, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
        }
    }

    pub fn internal(message: impl Into<String>) -> Failure {
        Failure::new(TRELLIS_ERR_RTI_INTERNAL_ERROR, message)
    }
}

fn mim_status(error: &MimError) -> TrellisStatus {
    match error.kind() {
        MimErrorKind::CouldNotOpenMim => TRELLIS_ERR_COULD_NOT_OPEN_MIM,
        MimErrorKind::ErrorReadingMim => TRELLIS_ERR_ERROR_READING_MIM,
        MimErrorKind::Fdd(kind) => fdd_status(kind),
    }
}

pub(crate) fn fdd_status(kind: FddErrorKind) -> TrellisStatus {
    match kind {
        FddErrorKind::CouldNotOpen => TRELLIS_ERR_COULD_NOT_OPEN_FDD,
        FddErrorKind::ErrorReading => TRELLIS_ERR_ERROR_READING_FDD,
        FddErrorKind::Inconsistent => TRELLIS_ERR_INCONSISTENT_FDD,
    }
}

impl From<RtiError> for Failure {
    fn from(error: RtiError) -> Failure {
        let message = error.to_string();
        let status = match error {
            RtiError::Federate(e) => federate_status(&e),
            RtiError::FederationExecutionAlreadyExists(_) => {
                TRELLIS_ERR_FEDERATION_EXECUTION_ALREADY_EXISTS
            }
            RtiError::FederationExecutionDoesNotExist(_) => {
                TRELLIS_ERR_FEDERATION_EXECUTION_DOES_NOT_EXIST
            }
            RtiError::FederatesCurrentlyJoined(_) => TRELLIS_ERR_FEDERATES_CURRENTLY_JOINED,
            RtiError::InconsistentFdd(_) => TRELLIS_ERR_INCONSISTENT_FDD,
            RtiError::FederateNameAlreadyInUse(_) => TRELLIS_ERR_FEDERATE_NAME_ALREADY_IN_USE,
            RtiError::FederateNotExecutionMember => TRELLIS_ERR_FEDERATE_NOT_EXECUTION_MEMBER,
            RtiError::FederateAlreadyExecutionMember(_) => {
                TRELLIS_ERR_FEDERATE_ALREADY_EXECUTION_MEMBER
            }
            RtiError::ObjectInstanceNameInUse(_) => TRELLIS_ERR_OBJECT_INSTANCE_NAME_IN_USE,
            RtiError::NotConnected => TRELLIS_ERR_NOT_CONNECTED,
            RtiError::ConnectionFailed(_) => TRELLIS_ERR_CONNECTION_FAILED,
            RtiError::InvalidLocalSettingsDesignator(_) => {
                TRELLIS_ERR_INVALID_LOCAL_SETTINGS_DESIGNATOR
            }
            RtiError::FederateIsExecutionMember(_) => TRELLIS_ERR_FEDERATE_IS_EXECUTION_MEMBER,
            RtiError::ObjectModel(e) => mim_status(&e),
            RtiError::DesignatorIsHlaStandardMim => TRELLIS_ERR_DESIGNATOR_IS_HLA_STANDARD_MIM,
            RtiError::CouldNotCreateLogicalTimeFactory(_) => {
                TRELLIS_ERR_COULD_NOT_CREATE_LOGICAL_TIME_FACTORY
            }
            RtiError::SaveInProgress(_) => TRELLIS_ERR_SAVE_IN_PROGRESS,
            RtiError::RestoreInProgress(_) => TRELLIS_ERR_RESTORE_IN_PROGRESS,
            RtiError::Registry(_)
            | RtiError::LimitReached(_)
            | RtiError::AsyncNeedsThreadDriver
            | RtiError::Net(_) => TRELLIS_ERR_RTI_INTERNAL_ERROR,
        };
        Failure { status, message }
    }
}

fn federate_status(error: &FederateError) -> TrellisStatus {
    use FederateError as E;
    match error {
        E::ModelNotExtended(_) => TRELLIS_ERR_INCONSISTENT_FDD,
        E::ObjectClassNotDefined(_) => TRELLIS_ERR_OBJECT_CLASS_NOT_DEFINED,
        E::AttributeNotDefined { .. } => TRELLIS_ERR_ATTRIBUTE_NOT_DEFINED,
        E::InteractionClassNotDefined(_) => TRELLIS_ERR_INTERACTION_CLASS_NOT_DEFINED,
        E::InteractionParameterNotDefined { .. } => TRELLIS_ERR_INTERACTION_PARAMETER_NOT_DEFINED,
        E::DimensionNotDefined(_) | E::InvalidDimensionHandle(_) => {
            TRELLIS_ERR_INVALID_DIMENSION_HANDLE
        }
        E::ObjectClassNotPublished(_) => TRELLIS_ERR_OBJECT_CLASS_NOT_PUBLISHED,
        E::AttributeNotPublished { .. } => TRELLIS_ERR_ATTRIBUTE_NOT_PUBLISHED,
        E::InteractionClassNotPublished(_) => TRELLIS_ERR_INTERACTION_CLASS_NOT_PUBLISHED,
        E::ObjectInstanceNotKnown(_) | E::ObjectInstanceNameNotKnown(_) => {
            TRELLIS_ERR_OBJECT_INSTANCE_NOT_KNOWN
        }
        E::AttributeNotOwned { .. } => TRELLIS_ERR_ATTRIBUTE_NOT_OWNED,
        E::AttributeAlreadyOwned { .. } => TRELLIS_ERR_ATTRIBUTE_ALREADY_OWNED,
        E::AttributeAlreadyBeingDivested { .. } => TRELLIS_ERR_ATTRIBUTE_ALREADY_BEING_DIVESTED,
        E::AttributeDivestitureWasNotRequested { .. } => {
            TRELLIS_ERR_ATTRIBUTE_DIVESTITURE_WAS_NOT_REQUESTED
        }
        E::AttributeAlreadyBeingAcquired { .. } => TRELLIS_ERR_ATTRIBUTE_ALREADY_BEING_ACQUIRED,
        E::AttributeAcquisitionWasNotRequested { .. } => {
            TRELLIS_ERR_ATTRIBUTE_ACQUISITION_WAS_NOT_REQUESTED
        }
        E::NoAcquisitionPending { .. } => TRELLIS_ERR_NO_ACQUISITION_PENDING,
        E::DeletePrivilegeNotHeld(_) => TRELLIS_ERR_DELETE_PRIVILEGE_NOT_HELD,
        E::FederateOwnsAttributes { .. } => TRELLIS_ERR_FEDERATE_OWNS_ATTRIBUTES,
        E::OwnershipAcquisitionPending { .. } => TRELLIS_ERR_OWNERSHIP_ACQUISITION_PENDING,
        E::ObjectInstanceNameNotReserved(_) => TRELLIS_ERR_OBJECT_INSTANCE_NAME_NOT_RESERVED,
        E::ObjectInstanceNameInUse(_) => TRELLIS_ERR_OBJECT_INSTANCE_NAME_IN_USE,
        E::IllegalName(_) => TRELLIS_ERR_ILLEGAL_NAME,
        // The C++ API throws NameSetWasEmpty itself before calling.
        E::NameSetWasEmpty => TRELLIS_ERR_RTI_INTERNAL_ERROR,
        E::InvalidRegion(RegionError::EmptyRange { .. })
        | E::InvalidRegion(RegionError::OutOfBounds { .. })
        | E::InvalidRangeBound(_) => TRELLIS_ERR_INVALID_RANGE_BOUND,
        E::InvalidRegion(_) => TRELLIS_ERR_INVALID_REGION,
        E::TooManyValues(_)
        | E::TagTooLong(_)
        | E::TooManyClasses(_)
        | E::TooManyRegions(_)
        | E::NotPermitted(_) => TRELLIS_ERR_RTI_INTERNAL_ERROR,
        E::Time(e) => time_status(e),
        E::InvalidFederateHandle(_) => TRELLIS_ERR_INVALID_FEDERATE_HANDLE,
        E::NameNotFound(_) => TRELLIS_ERR_NAME_NOT_FOUND,
        E::SynchronizationPointLabelNotAnnounced(_) | E::SynchronizationPointAlreadyAchieved(_) => {
            TRELLIS_ERR_SYNCHRONIZATION_POINT_LABEL_NOT_ANNOUNCED
        }
        E::RegionNotCreatedByThisFederate(_) => TRELLIS_ERR_REGION_NOT_CREATED_BY_THIS_FEDERATE,
        E::RegionDoesNotContainSpecifiedDimension { .. } => {
            TRELLIS_ERR_REGION_DOES_NOT_CONTAIN_SPECIFIED_DIMENSION
        }
        E::InvalidRegionContext { .. } => TRELLIS_ERR_INVALID_REGION_CONTEXT,
        E::RegionInUseForUpdateOrSubscription(_) => {
            TRELLIS_ERR_REGION_IN_USE_FOR_UPDATE_OR_SUBSCRIPTION
        }
        E::ObjectClassRelevanceAdvisorySwitchIsOn => {
            TRELLIS_ERR_OBJECT_CLASS_RELEVANCE_ADVISORY_SWITCH_IS_ON
        }
        E::ObjectClassRelevanceAdvisorySwitchIsOff => {
            TRELLIS_ERR_OBJECT_CLASS_RELEVANCE_ADVISORY_SWITCH_IS_OFF
        }
        E::AttributeRelevanceAdvisorySwitchIsOn => {
            TRELLIS_ERR_ATTRIBUTE_RELEVANCE_ADVISORY_SWITCH_IS_ON
        }
        E::AttributeRelevanceAdvisorySwitchIsOff => {
            TRELLIS_ERR_ATTRIBUTE_RELEVANCE_ADVISORY_SWITCH_IS_OFF
        }
        E::AttributeScopeAdvisorySwitchIsOn => TRELLIS_ERR_ATTRIBUTE_SCOPE_ADVISORY_SWITCH_IS_ON,
        E::AttributeScopeAdvisorySwitchIsOff => TRELLIS_ERR_ATTRIBUTE_SCOPE_ADVISORY_SWITCH_IS_OFF,
        E::InvalidUpdateRateDesignator(_) => TRELLIS_ERR_INVALID_UPDATE_RATE_DESIGNATOR,
        E::InteractionRelevanceAdvisorySwitchIsOn => {
            TRELLIS_ERR_INTERACTION_RELEVANCE_ADVISORY_SWITCH_IS_ON
        }
        E::InteractionRelevanceAdvisorySwitchIsOff => {
            TRELLIS_ERR_INTERACTION_RELEVANCE_ADVISORY_SWITCH_IS_OFF
        }
        E::SaveInProgress(_) => TRELLIS_ERR_SAVE_IN_PROGRESS,
        E::RestoreInProgress(_) => TRELLIS_ERR_RESTORE_IN_PROGRESS,
        E::SaveNotInitiated => TRELLIS_ERR_SAVE_NOT_INITIATED,
        E::FederateHasNotBegunSave => TRELLIS_ERR_FEDERATE_HAS_NOT_BEGUN_SAVE,
        E::RestoreNotRequested => TRELLIS_ERR_RESTORE_NOT_REQUESTED,
        E::FederateServiceInvocationsAreBeingReportedViaMom(_) => {
            TRELLIS_ERR_FEDERATE_SERVICE_INVOCATIONS_ARE_BEING_REPORTED_VIA_MOM
        }
    }
}

fn time_status(error: &TimeError) -> TrellisStatus {
    match error {
        TimeError::TimeRegulationAlreadyEnabled => TRELLIS_ERR_TIME_REGULATION_ALREADY_ENABLED,
        TimeError::TimeRegulationIsNotEnabled => TRELLIS_ERR_TIME_REGULATION_IS_NOT_ENABLED,
        TimeError::RequestForTimeRegulationPending => {
            TRELLIS_ERR_REQUEST_FOR_TIME_REGULATION_PENDING
        }
        TimeError::TimeConstrainedAlreadyEnabled => TRELLIS_ERR_TIME_CONSTRAINED_ALREADY_ENABLED,
        TimeError::TimeConstrainedIsNotEnabled => TRELLIS_ERR_TIME_CONSTRAINED_IS_NOT_ENABLED,
        TimeError::RequestForTimeConstrainedPending => {
            TRELLIS_ERR_REQUEST_FOR_TIME_CONSTRAINED_PENDING
        }
        TimeError::AsynchronousDeliveryAlreadyEnabled => {
            TRELLIS_ERR_ASYNCHRONOUS_DELIVERY_ALREADY_ENABLED
        }
        TimeError::AsynchronousDeliveryAlreadyDisabled => {
            TRELLIS_ERR_ASYNCHRONOUS_DELIVERY_ALREADY_DISABLED
        }
        TimeError::InTimeAdvancingState => TRELLIS_ERR_IN_TIME_ADVANCING_STATE,
        TimeError::InvalidLookahead(_) => TRELLIS_ERR_INVALID_LOOKAHEAD,
        TimeError::InvalidLogicalTime(_) => TRELLIS_ERR_INVALID_LOGICAL_TIME,
        TimeError::LogicalTimeAlreadyPassed(_) => TRELLIS_ERR_LOGICAL_TIME_ALREADY_PASSED,
        TimeError::InvalidMessageRetractionHandle(_) => {
            TRELLIS_ERR_INVALID_MESSAGE_RETRACTION_HANDLE
        }
        TimeError::MessageCanNoLongerBeRetracted(_) => {
            TRELLIS_ERR_MESSAGE_CAN_NO_LONGER_BE_RETRACTED
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A registry limit has no exception of its own in 1516.1-2010: C and C++ get
    /// RTIinternalError, with the registry's message word for word (what limit, whose).
    #[test]
    fn a_registry_limit_is_an_internal_error_that_keeps_its_message() {
        let message = "the registry holds 1024 federations, its limit: none can be created \
                       until one is destroyed";
        let failure = Failure::from(RtiError::LimitReached(message.into()));
        assert_eq!(failure.status, TRELLIS_ERR_RTI_INTERNAL_ERROR);
        assert_eq!(failure.message, message);
    }
}
