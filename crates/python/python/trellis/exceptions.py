"""The IEEE 1516.1-2010 exceptions as a Python hierarchy.

Every exception the RTI raises is a subclass of :class:`RTIexception` named as the
standard names it (``ObjectClassNotDefined``, ``FederateNotExecutionMember``, ...), so
``except trellis.ObjectClassNotDefined`` and ``except trellis.RTIexception`` both work.
Its message names the class, attribute, parameter or data type that is wrong.
"""


class RTIexception(Exception):
    """The root of every exception of the HLA services (rti1516e::Exception)."""


class EncoderException(RTIexception):
    """A value does not encode as its declared data type, or bytes do not decode
    (rti1516e::EncoderException). Also a :class:`TypeError`-like input error."""


# The standard's exception names (IEEE 1516.1-2010 clause 12 and the C++ API), flat under
# RTIexception: federates catch them by name.
STANDARD_NAMES = """
AlreadyConnected AsynchronousDeliveryAlreadyDisabled AsynchronousDeliveryAlreadyEnabled
AttributeAcquisitionWasNotCanceled AttributeAcquisitionWasNotRequested
AttributeAlreadyBeingAcquired AttributeAlreadyBeingChanged AttributeAlreadyBeingDivested
AttributeAlreadyOwned AttributeDivestitureWasNotRequested AttributeNotDefined
AttributeNotOwned AttributeNotPublished AttributeNotRecognized AttributeNotSubscribed
AttributeRelevanceAdvisorySwitchIsOff AttributeRelevanceAdvisorySwitchIsOn
AttributeScopeAdvisorySwitchIsOff AttributeScopeAdvisorySwitchIsOn
CallNotAllowedFromWithinCallback ConnectionFailed CouldNotCreateLogicalTimeFactory
CouldNotOpenFDD CouldNotOpenMIM DeletePrivilegeNotHeld DesignatorIsHLAstandardMIM
ErrorReadingFDD ErrorReadingMIM FederateAlreadyExecutionMember FederateHandleNotKnown
FederateIsExecutionMember FederateNameAlreadyInUse FederateNotExecutionMember
FederateOwnsAttributes FederatesCurrentlyJoined FederateServiceInvocationsAreBeingReportedViaMOM
FederationExecutionAlreadyExists FederationExecutionDoesNotExist IllegalName
InconsistentFDD InteractionClassNotDefined InteractionClassNotPublished
InteractionClassNotRecognized InteractionClassNotSubscribed InteractionParameterNotDefined
InteractionRelevanceAdvisorySwitchIsOff InteractionRelevanceAdvisorySwitchIsOn
InTimeAdvancingState InvalidAttributeHandle InvalidDimensionHandle InvalidFederateHandle
InvalidInteractionClassHandle InvalidLocalSettingsDesignator InvalidLogicalTime
InvalidLookahead InvalidMessageRetractionHandle InvalidObjectClassHandle
InvalidParameterHandle InvalidRangeBound InvalidRegion InvalidRegionContext
InvalidResignAction InvalidUpdateRateDesignator LogicalTimeAlreadyPassed
MessageCanNoLongerBeRetracted NameNotFound NameSetWasEmpty NoAcquisitionPending
NotConnected ObjectClassNotDefined ObjectClassNotKnown ObjectClassNotPublished
ObjectClassRelevanceAdvisorySwitchIsOff ObjectClassRelevanceAdvisorySwitchIsOn
ObjectInstanceNameInUse ObjectInstanceNameNotReserved ObjectInstanceNotKnown
OwnershipAcquisitionPending RTIinternalError RegionDoesNotContainSpecifiedDimension
RegionInUseForUpdateOrSubscription RegionNotCreatedByThisFederate
RequestForTimeConstrainedPending RequestForTimeRegulationPending
SynchronizationPointLabelNotAnnounced SynchronizationPointAlreadyAchieved
TimeConstrainedAlreadyEnabled TimeConstrainedIsNotEnabled TimeRegulationAlreadyEnabled
TimeRegulationIsNotEnabled UnsupportedCallbackModel
SaveInProgress RestoreInProgress SaveNotInitiated FederateHasNotBegunSave RestoreNotRequested
""".split()

for _name in STANDARD_NAMES:
    globals()[_name] = type(_name, (RTIexception,), {"__module__": __name__})
del _name

__all__ = ["RTIexception", "EncoderException", "exception_class", *STANDARD_NAMES]


def exception_class(name):
    """The exception class the standard names ``name``; RTIinternalError for a name the
    standard does not have (the message still says what went wrong)."""
    found = globals().get(name)
    if isinstance(found, type) and issubclass(found, RTIexception):
        return found
    return globals()["RTIinternalError"]
