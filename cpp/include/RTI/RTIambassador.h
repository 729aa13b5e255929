// IEEE 1516.1-2010 C++ API: the services a federate calls. Made by RTIambassadorFactory.
// The standard's exception list of each service is in the comment above it (no dynamic
// exception specifications: see SpecificConfig.h). Every service may also throw
// NotConnected, FederateNotExecutionMember (where it needs a joined federate),
// SaveInProgress, RestoreInProgress and RTIinternalError; the lists below name the others.
#ifndef RTI_RTIambassador_h
#define RTI_RTIambassador_h

#include <RTI/Enums.h>
#include <RTI/Exception.h>
#include <RTI/FederateAmbassador.h>
#include <RTI/Handle.h>
#include <RTI/LogicalTime.h>
#include <RTI/LogicalTimeFactory.h>
#include <RTI/LogicalTimeInterval.h>
#include <RTI/RangeBounds.h>
#include <RTI/SpecificConfig.h>
#include <RTI/Typedefs.h>
#include <RTI/VariableLengthData.h>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace rti1516e {

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

class RTI_EXPORT RTIambassador {
 protected:
  RTIambassador();

 public:
  virtual ~RTIambassador();

  // ---- 4 Federation management ----
  // ConnectionFailed, InvalidLocalSettingsDesignator, UnsupportedCallbackModel,
  // AlreadyConnected, CallNotAllowedFromWithinCallback
  virtual void connect(FederateAmbassador& federateAmbassador, CallbackModel theCallbackModel,
                       std::wstring const& localSettingsDesignator = L"") = 0;
  // FederateIsExecutionMember, CallNotAllowedFromWithinCallback
  virtual void disconnect() = 0;
  // CouldNotCreateLogicalTimeFactory, InconsistentFDD, ErrorReadingFDD, CouldNotOpenFDD,
  // FederationExecutionAlreadyExists
  virtual void createFederationExecution(std::wstring const& federationExecutionName,
                                         std::wstring const& fomModule,
                                         std::wstring const& logicalTimeImplementationName = L"") = 0;
  virtual void createFederationExecution(std::wstring const& federationExecutionName,
                                         std::vector<std::wstring> const& fomModules,
                                         std::wstring const& logicalTimeImplementationName = L"") = 0;
  // ... and ErrorReadingMIM, CouldNotOpenMIM, DesignatorIsHLAstandardMIM
  virtual void createFederationExecutionWithMIM(
      std::wstring const& federationExecutionName, std::vector<std::wstring> const& fomModules,
      std::wstring const& mimModule, std::wstring const& logicalTimeImplementationName = L"") = 0;
  // FederatesCurrentlyJoined, FederationExecutionDoesNotExist
  virtual void destroyFederationExecution(std::wstring const& federationExecutionName) = 0;
  virtual void listFederationExecutions() = 0;
  // CouldNotCreateLogicalTimeFactory, FederationExecutionDoesNotExist, InconsistentFDD,
  // ErrorReadingFDD, CouldNotOpenFDD, FederateNameAlreadyInUse, FederateAlreadyExecutionMember,
  // CallNotAllowedFromWithinCallback
  virtual FederateHandle joinFederationExecution(
      std::wstring const& federateType, std::wstring const& federationExecutionName,
      std::vector<std::wstring> const& additionalFomModules = std::vector<std::wstring>()) = 0;
  virtual FederateHandle joinFederationExecution(
      std::wstring const& federateName, std::wstring const& federateType,
      std::wstring const& federationExecutionName,
      std::vector<std::wstring> const& additionalFomModules = std::vector<std::wstring>()) = 0;
  // InvalidResignAction, OwnershipAcquisitionPending, FederateOwnsAttributes,
  // CallNotAllowedFromWithinCallback
  virtual void resignFederationExecution(ResignAction resignAction) = 0;
  virtual void registerFederationSynchronizationPoint(
      std::wstring const& label, VariableLengthData const& theUserSuppliedTag) = 0;
  // ... and InvalidFederateHandle
  virtual void registerFederationSynchronizationPoint(
      std::wstring const& label, VariableLengthData const& theUserSuppliedTag,
      FederateHandleSet const& synchronizationSet) = 0;
  // SynchronizationPointLabelNotAnnounced
  virtual void synchronizationPointAchieved(std::wstring const& label,
                                            bool successfully = true) = 0;
  // Save and restore (Trellis does not provide them: RTIinternalError naming the service).
  virtual void requestFederationSave(std::wstring const& label) = 0;
  virtual void requestFederationSave(std::wstring const& label, LogicalTime const& theTime) = 0;
  virtual void federateSaveBegun() = 0;
  virtual void federateSaveComplete() = 0;
  virtual void federateSaveNotComplete() = 0;
  virtual void abortFederationSave() = 0;
  virtual void queryFederationSaveStatus() = 0;
  virtual void requestFederationRestore(std::wstring const& label) = 0;
  virtual void federateRestoreComplete() = 0;
  virtual void federateRestoreNotComplete() = 0;
  virtual void abortFederationRestore() = 0;
  virtual void queryFederationRestoreStatus() = 0;

  // ---- 5 Declaration management ----
  // AttributeNotDefined, ObjectClassNotDefined
  virtual void publishObjectClassAttributes(ObjectClassHandle theClass,
                                            AttributeHandleSet const& attributeList) = 0;
  // OwnershipAcquisitionPending, ObjectClassNotDefined
  virtual void unpublishObjectClass(ObjectClassHandle theClass) = 0;
  virtual void unpublishObjectClassAttributes(ObjectClassHandle theClass,
                                              AttributeHandleSet const& attributeList) = 0;
  // InteractionClassNotDefined
  virtual void publishInteractionClass(InteractionClassHandle theInteraction) = 0;
  virtual void unpublishInteractionClass(InteractionClassHandle theInteraction) = 0;
  // AttributeNotDefined, ObjectClassNotDefined, InvalidUpdateRateDesignator
  virtual void subscribeObjectClassAttributes(ObjectClassHandle theClass,
                                              AttributeHandleSet const& attributeList,
                                              bool active = true,
                                              std::wstring const& updateRateDesignator = L"") = 0;
  virtual void unsubscribeObjectClass(ObjectClassHandle theClass) = 0;
  virtual void unsubscribeObjectClassAttributes(ObjectClassHandle theClass,
                                                AttributeHandleSet const& attributeList) = 0;
  // FederateServiceInvocationsAreBeingReportedViaMOM, InteractionClassNotDefined
  virtual void subscribeInteractionClass(InteractionClassHandle theClass, bool active = true) = 0;
  virtual void unsubscribeInteractionClass(InteractionClassHandle theClass) = 0;

  // ---- 6 Object management ----
  // IllegalName
  virtual void reserveObjectInstanceName(std::wstring const& theObjectInstanceName) = 0;
  // ObjectInstanceNameNotReserved
  virtual void releaseObjectInstanceName(std::wstring const& theObjectInstanceName) = 0;
  // IllegalName, NameSetWasEmpty
  virtual void reserveMultipleObjectInstanceName(
      std::set<std::wstring> const& theObjectInstanceNames) = 0;
  virtual void releaseMultipleObjectInstanceName(
      std::set<std::wstring> const& theObjectInstanceNames) = 0;
  // ObjectClassNotPublished, ObjectClassNotDefined
  virtual ObjectInstanceHandle registerObjectInstance(ObjectClassHandle theClass) = 0;
  // ... and ObjectInstanceNameInUse, ObjectInstanceNameNotReserved
  virtual ObjectInstanceHandle registerObjectInstance(
      ObjectClassHandle theClass, std::wstring const& theObjectInstanceName) = 0;
  // AttributeNotOwned, AttributeNotDefined, ObjectInstanceNotKnown
  virtual void updateAttributeValues(ObjectInstanceHandle theObject,
                                     AttributeHandleValueMap const& theAttributeValues,
                                     VariableLengthData const& theUserSuppliedTag) = 0;
  // ... and InvalidLogicalTime
  virtual MessageRetractionHandle updateAttributeValues(
      ObjectInstanceHandle theObject, AttributeHandleValueMap const& theAttributeValues,
      VariableLengthData const& theUserSuppliedTag, LogicalTime const& theTime) = 0;
  // InteractionClassNotPublished, InteractionParameterNotDefined, InteractionClassNotDefined
  virtual void sendInteraction(InteractionClassHandle theInteraction,
                               ParameterHandleValueMap const& theParameterValues,
                               VariableLengthData const& theUserSuppliedTag) = 0;
  virtual MessageRetractionHandle sendInteraction(
      InteractionClassHandle theInteraction, ParameterHandleValueMap const& theParameterValues,
      VariableLengthData const& theUserSuppliedTag, LogicalTime const& theTime) = 0;
  // DeletePrivilegeNotHeld, ObjectInstanceNotKnown
  virtual void deleteObjectInstance(ObjectInstanceHandle theObject,
                                    VariableLengthData const& theUserSuppliedTag) = 0;
  virtual MessageRetractionHandle deleteObjectInstance(
      ObjectInstanceHandle theObject, VariableLengthData const& theUserSuppliedTag,
      LogicalTime const& theTime) = 0;
  // OwnershipAcquisitionPending, FederateOwnsAttributes, ObjectInstanceNotKnown
  virtual void localDeleteObjectInstance(ObjectInstanceHandle theObject) = 0;
  // AttributeNotDefined, ObjectInstanceNotKnown
  virtual void requestAttributeValueUpdate(ObjectInstanceHandle theObject,
                                           AttributeHandleSet const& theAttributes,
                                           VariableLengthData const& theUserSuppliedTag) = 0;
  // AttributeNotDefined, ObjectClassNotDefined
  virtual void requestAttributeValueUpdate(ObjectClassHandle theClass,
                                           AttributeHandleSet const& theAttributes,
                                           VariableLengthData const& theUserSuppliedTag) = 0;
  // Transportation changes (not provided by Trellis: RTIinternalError naming the service).
  virtual void requestAttributeTransportationTypeChange(ObjectInstanceHandle theObject,
                                                        AttributeHandleSet const& theAttributes,
                                                        TransportationType theType) = 0;
  virtual void queryAttributeTransportationType(ObjectInstanceHandle theObject,
                                                AttributeHandle theAttribute) = 0;
  virtual void requestInteractionTransportationTypeChange(InteractionClassHandle theClass,
                                                          TransportationType theType) = 0;
  virtual void queryInteractionTransportationType(FederateHandle theFederate,
                                                  InteractionClassHandle theInteraction) = 0;

  // ---- 7 Ownership management ----
  // AttributeNotOwned, AttributeNotDefined, ObjectInstanceNotKnown
  virtual void unconditionalAttributeOwnershipDivestiture(
      ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes) = 0;
  // ... and AttributeAlreadyBeingDivested
  virtual void negotiatedAttributeOwnershipDivestiture(
      ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes,
      VariableLengthData const& theUserSuppliedTag) = 0;
  // NoAcquisitionPending, AttributeDivestitureWasNotRequested, AttributeNotOwned, ...
  virtual void confirmDivestiture(ObjectInstanceHandle theObject,
                                  AttributeHandleSet const& confirmedAttributes,
                                  VariableLengthData const& theUserSuppliedTag) = 0;
  // AttributeNotPublished, ObjectClassNotPublished, FederateOwnsAttributes, ...
  virtual void attributeOwnershipAcquisition(ObjectInstanceHandle theObject,
                                             AttributeHandleSet const& desiredAttributes,
                                             VariableLengthData const& theUserSuppliedTag) = 0;
  // ... and AttributeAlreadyBeingAcquired
  virtual void attributeOwnershipAcquisitionIfAvailable(
      ObjectInstanceHandle theObject, AttributeHandleSet const& desiredAttributes) = 0;
  virtual void attributeOwnershipReleaseDenied(ObjectInstanceHandle theObject,
                                               AttributeHandleSet const& theAttributes) = 0;
  virtual void attributeOwnershipDivestitureIfWanted(ObjectInstanceHandle theObject,
                                                     AttributeHandleSet const& theAttributes,
                                                     AttributeHandleSet& theDivestedAttributes) = 0;
  virtual void cancelNegotiatedAttributeOwnershipDivestiture(
      ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes) = 0;
  virtual void cancelAttributeOwnershipAcquisition(ObjectInstanceHandle theObject,
                                                   AttributeHandleSet const& theAttributes) = 0;
  virtual void queryAttributeOwnership(ObjectInstanceHandle theObject,
                                       AttributeHandle theAttribute) = 0;
  virtual bool isAttributeOwnedByFederate(ObjectInstanceHandle theObject,
                                          AttributeHandle theAttribute) = 0;

  // ---- 8 Time management ----
  // InvalidLookahead, InTimeAdvancingState, RequestForTimeRegulationPending,
  // TimeRegulationAlreadyEnabled
  virtual void enableTimeRegulation(LogicalTimeInterval const& theLookahead) = 0;
  // TimeRegulationIsNotEnabled
  virtual void disableTimeRegulation() = 0;
  // InTimeAdvancingState, RequestForTimeConstrainedPending, TimeConstrainedAlreadyEnabled
  virtual void enableTimeConstrained() = 0;
  // TimeConstrainedIsNotEnabled
  virtual void disableTimeConstrained() = 0;
  // LogicalTimeAlreadyPassed, InvalidLogicalTime, InTimeAdvancingState,
  // RequestForTimeRegulationPending, RequestForTimeConstrainedPending
  virtual void timeAdvanceRequest(LogicalTime const& theTime) = 0;
  virtual void timeAdvanceRequestAvailable(LogicalTime const& theTime) = 0;
  virtual void nextMessageRequest(LogicalTime const& theTime) = 0;
  virtual void nextMessageRequestAvailable(LogicalTime const& theTime) = 0;
  virtual void flushQueueRequest(LogicalTime const& theTime) = 0;
  // AsynchronousDeliveryAlreadyEnabled / AsynchronousDeliveryAlreadyDisabled
  virtual void enableAsynchronousDelivery() = 0;
  virtual void disableAsynchronousDelivery() = 0;
  // Returns false when GALT is undefined.
  virtual bool queryGALT(LogicalTime& theTime) = 0;
  virtual void queryLogicalTime(LogicalTime& theTime) = 0;
  // Returns false when LITS is undefined.
  virtual bool queryLITS(LogicalTime& theTime) = 0;
  // TimeRegulationIsNotEnabled, InvalidLookahead, InTimeAdvancingState
  virtual void modifyLookahead(LogicalTimeInterval const& theLookahead) = 0;
  // TimeRegulationIsNotEnabled
  virtual void queryLookahead(LogicalTimeInterval& interval) = 0;
  // MessageCanNoLongerBeRetracted, InvalidMessageRetractionHandle, TimeRegulationIsNotEnabled
  virtual void retract(MessageRetractionHandle theHandle) = 0;
  virtual void changeAttributeOrderType(ObjectInstanceHandle theObject,
                                        AttributeHandleSet const& theAttributes,
                                        OrderType theType) = 0;
  virtual void changeInteractionOrderType(InteractionClassHandle theClass, OrderType theType) = 0;

  // ---- 9 Data distribution management ----
  // InvalidDimensionHandle
  virtual RegionHandle createRegion(DimensionHandleSet const& theDimensions) = 0;
  // RegionNotCreatedByThisFederate, InvalidRegion
  virtual void commitRegionModifications(RegionHandleSet const& theRegionHandleSet) = 0;
  // RegionInUseForUpdateOrSubscription, RegionNotCreatedByThisFederate, InvalidRegion
  virtual void deleteRegion(RegionHandle const& theRegion) = 0;
  // InvalidRegionContext, RegionNotCreatedByThisFederate, InvalidRegion, AttributeNotPublished,
  // ObjectClassNotPublished, AttributeNotDefined, ObjectClassNotDefined
  virtual ObjectInstanceHandle registerObjectInstanceWithRegions(
      ObjectClassHandle theClass,
      AttributeHandleSetRegionHandleSetPairVector const& theAttributeHandleSetRegionHandleSetPairVector) = 0;
  virtual ObjectInstanceHandle registerObjectInstanceWithRegions(
      ObjectClassHandle theClass,
      AttributeHandleSetRegionHandleSetPairVector const& theAttributeHandleSetRegionHandleSetPairVector,
      std::wstring const& theObjectInstanceName) = 0;
  virtual void associateRegionsForUpdates(
      ObjectInstanceHandle theObject,
      AttributeHandleSetRegionHandleSetPairVector const& theAttributeHandleSetRegionHandleSetPairVector) = 0;
  virtual void unassociateRegionsForUpdates(
      ObjectInstanceHandle theObject,
      AttributeHandleSetRegionHandleSetPairVector const& theAttributeHandleSetRegionHandleSetPairVector) = 0;
  virtual void subscribeObjectClassAttributesWithRegions(
      ObjectClassHandle theClass,
      AttributeHandleSetRegionHandleSetPairVector const& theAttributeHandleSetRegionHandleSetPairVector,
      bool active = true, std::wstring const& updateRateDesignator = L"") = 0;
  virtual void unsubscribeObjectClassAttributesWithRegions(
      ObjectClassHandle theClass,
      AttributeHandleSetRegionHandleSetPairVector const& theAttributeHandleSetRegionHandleSetPairVector) = 0;
  virtual void subscribeInteractionClassWithRegions(InteractionClassHandle theClass,
                                                    RegionHandleSet const& theRegionHandleSet,
                                                    bool active = true) = 0;
  virtual void unsubscribeInteractionClassWithRegions(InteractionClassHandle theClass,
                                                      RegionHandleSet const& theRegionHandleSet) = 0;
  virtual void sendInteractionWithRegions(InteractionClassHandle theInteraction,
                                          ParameterHandleValueMap const& theParameterValues,
                                          RegionHandleSet const& theRegionHandleSet,
                                          VariableLengthData const& theUserSuppliedTag) = 0;
  virtual MessageRetractionHandle sendInteractionWithRegions(
      InteractionClassHandle theInteraction, ParameterHandleValueMap const& theParameterValues,
      RegionHandleSet const& theRegionHandleSet, VariableLengthData const& theUserSuppliedTag,
      LogicalTime const& theTime) = 0;
  virtual void requestAttributeValueUpdateWithRegions(
      ObjectClassHandle theClass, AttributeHandleSetRegionHandleSetPairVector const& theSet,
      VariableLengthData const& theUserSuppliedTag) = 0;

  // ---- 10 Support services ----
  virtual ResignAction getAutomaticResignDirective() = 0;
  // InvalidResignAction
  virtual void setAutomaticResignDirective(ResignAction resignAction) = 0;
  // NameNotFound
  virtual FederateHandle getFederateHandle(std::wstring const& theName) = 0;
  // InvalidFederateHandle, FederateHandleNotKnown
  virtual std::wstring getFederateName(FederateHandle theHandle) = 0;
  // NameNotFound
  virtual ObjectClassHandle getObjectClassHandle(std::wstring const& theName) = 0;
  // InvalidObjectClassHandle
  virtual std::wstring getObjectClassName(ObjectClassHandle theHandle) = 0;
  // ObjectInstanceNotKnown
  virtual ObjectClassHandle getKnownObjectClassHandle(ObjectInstanceHandle theObject) = 0;
  virtual ObjectInstanceHandle getObjectInstanceHandle(std::wstring const& theName) = 0;
  virtual std::wstring getObjectInstanceName(ObjectInstanceHandle theHandle) = 0;
  // NameNotFound, InvalidObjectClassHandle
  virtual AttributeHandle getAttributeHandle(ObjectClassHandle whichClass,
                                             std::wstring const& theAttributeName) = 0;
  // AttributeNotDefined, InvalidAttributeHandle, InvalidObjectClassHandle
  virtual std::wstring getAttributeName(ObjectClassHandle whichClass,
                                        AttributeHandle theHandle) = 0;
  // InvalidUpdateRateDesignator
  virtual double getUpdateRateValue(std::wstring const& updateRateDesignator) = 0;
  // ObjectInstanceNotKnown, AttributeNotDefined
  virtual double getUpdateRateValueForAttribute(ObjectInstanceHandle theObject,
                                                AttributeHandle theAttribute) = 0;
  // NameNotFound
  virtual InteractionClassHandle getInteractionClassHandle(std::wstring const& theName) = 0;
  // InvalidInteractionClassHandle
  virtual std::wstring getInteractionClassName(InteractionClassHandle theHandle) = 0;
  // NameNotFound, InvalidInteractionClassHandle
  virtual ParameterHandle getParameterHandle(InteractionClassHandle whichClass,
                                             std::wstring const& theName) = 0;
  // InteractionParameterNotDefined, InvalidParameterHandle, InvalidInteractionClassHandle
  virtual std::wstring getParameterName(InteractionClassHandle whichClass,
                                        ParameterHandle theHandle) = 0;
  // InvalidOrderName
  virtual OrderType getOrderType(std::wstring const& orderName) = 0;
  // InvalidOrderType
  virtual std::wstring getOrderName(OrderType orderType) = 0;
  // InvalidTransportationName
  virtual TransportationType getTransportationType(std::wstring const& transportationName) = 0;
  // InvalidTransportationType
  virtual std::wstring getTransportationName(TransportationType transportationType) = 0;
  // AttributeNotDefined, InvalidObjectClassHandle
  virtual DimensionHandleSet getAvailableDimensionsForClassAttribute(
      ObjectClassHandle theClass, AttributeHandle theHandle) = 0;
  // InvalidInteractionClassHandle
  virtual DimensionHandleSet getAvailableDimensionsForInteractionClass(
      InteractionClassHandle theClass) = 0;
  // NameNotFound
  virtual DimensionHandle getDimensionHandle(std::wstring const& theName) = 0;
  // InvalidDimensionHandle
  virtual std::wstring getDimensionName(DimensionHandle theHandle) = 0;
  virtual unsigned long getDimensionUpperBound(DimensionHandle theHandle) = 0;
  // InvalidRegion
  virtual DimensionHandleSet getDimensionHandleSet(RegionHandle theRegionHandle) = 0;
  // RegionDoesNotContainSpecifiedDimension, InvalidRegion
  virtual RangeBounds getRangeBounds(RegionHandle theRegionHandle,
                                     DimensionHandle theDimensionHandle) = 0;
  // InvalidRangeBound, RegionNotCreatedByThisFederate, RegionDoesNotContainSpecifiedDimension
  virtual void setRangeBounds(RegionHandle theRegionHandle, DimensionHandle theDimensionHandle,
                              RangeBounds const& theRangeBounds) = 0;
  // InvalidFederateHandle
  virtual unsigned long normalizeFederateHandle(FederateHandle theFederateHandle) = 0;
  // InvalidServiceGroup
  virtual unsigned long normalizeServiceGroup(ServiceGroup theServiceGroup) = 0;
  // ObjectClassRelevanceAdvisorySwitchIsOn / ...IsOff, and so on for each switch.
  virtual void enableObjectClassRelevanceAdvisorySwitch() = 0;
  virtual void disableObjectClassRelevanceAdvisorySwitch() = 0;
  virtual void enableAttributeRelevanceAdvisorySwitch() = 0;
  virtual void disableAttributeRelevanceAdvisorySwitch() = 0;
  virtual void enableAttributeScopeAdvisorySwitch() = 0;
  virtual void disableAttributeScopeAdvisorySwitch() = 0;
  virtual void enableInteractionRelevanceAdvisorySwitch() = 0;
  virtual void disableInteractionRelevanceAdvisorySwitch() = 0;
  // CallNotAllowedFromWithinCallback; returns whether callbacks remain pending.
  virtual bool evokeCallback(double approximateMinimumTimeInSeconds) = 0;
  virtual bool evokeMultipleCallbacks(double approximateMinimumTimeInSeconds,
                                      double approximateMaximumTimeInSeconds) = 0;
  virtual void enableCallbacks() = 0;
  virtual void disableCallbacks() = 0;

  // The joined federation's time factory. FederateNotExecutionMember, NotConnected
  virtual RTI_UNIQUE_PTR<LogicalTimeFactory> getTimeFactory() const = 0;

  // Handles from their encodings. CouldNotDecode, FederateNotExecutionMember, NotConnected
  virtual FederateHandle decodeFederateHandle(VariableLengthData const& encodedValue) const = 0;
  virtual ObjectClassHandle decodeObjectClassHandle(VariableLengthData const& encodedValue) const = 0;
  virtual InteractionClassHandle decodeInteractionClassHandle(
      VariableLengthData const& encodedValue) const = 0;
  virtual ObjectInstanceHandle decodeObjectInstanceHandle(
      VariableLengthData const& encodedValue) const = 0;
  virtual AttributeHandle decodeAttributeHandle(VariableLengthData const& encodedValue) const = 0;
  virtual ParameterHandle decodeParameterHandle(VariableLengthData const& encodedValue) const = 0;
  virtual DimensionHandle decodeDimensionHandle(VariableLengthData const& encodedValue) const = 0;
  virtual MessageRetractionHandle decodeMessageRetractionHandle(
      VariableLengthData const& encodedValue) const = 0;
  virtual RegionHandle decodeRegionHandle(VariableLengthData const& encodedValue) const = 0;
};

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e

#endif  // RTI_RTIambassador_h
