// Internal: the RTIambassador Trellis makes, every service over the C ABI of the federate
// library (crates/capi). Services are in Ambassador*.cpp by service group; callbacks from the
// C ABI reach the FederateAmbassador through Callbacks.cpp.
#ifndef TRELLIS_AMBASSADOR_H
#define TRELLIS_AMBASSADOR_H

#include <RTI/RTIambassador.h>
#include <trellis_rti.h>

#include <string>
#include <vector>

namespace trellis_cpp {

using namespace rti1516e;

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

class Ambassador : public RTIambassador {
 public:
  Ambassador();
  virtual ~Ambassador();

  void connect(FederateAmbassador& federateAmbassador, CallbackModel theCallbackModel, std::wstring const& localSettingsDesignator);
  void disconnect();
  void createFederationExecution(std::wstring const& federationExecutionName, std::wstring const& fomModule, std::wstring const& logicalTimeImplementationName);
  void createFederationExecution(std::wstring const& federationExecutionName, std::vector<std::wstring> const& fomModules, std::wstring const& logicalTimeImplementationName);
  void createFederationExecutionWithMIM( std::wstring const& federationExecutionName, std::vector<std::wstring> const& fomModules, std::wstring const& mimModule, std::wstring const& logicalTimeImplementationName);
  void destroyFederationExecution(std::wstring const& federationExecutionName);
  void listFederationExecutions();
  FederateHandle joinFederationExecution( std::wstring const& federateType, std::wstring const& federationExecutionName, std::vector<std::wstring> const& additionalFomModules);
  FederateHandle joinFederationExecution( std::wstring const& federateName, std::wstring const& federateType, std::wstring const& federationExecutionName, std::vector<std::wstring> const& additionalFomModules);
  void resignFederationExecution(ResignAction resignAction);
  void registerFederationSynchronizationPoint( std::wstring const& label, VariableLengthData const& theUserSuppliedTag);
  void registerFederationSynchronizationPoint( std::wstring const& label, VariableLengthData const& theUserSuppliedTag, FederateHandleSet const& synchronizationSet);
  void synchronizationPointAchieved(std::wstring const& label, bool successfully);
  void requestFederationSave(std::wstring const& label);
  void requestFederationSave(std::wstring const& label, LogicalTime const& theTime);
  void federateSaveBegun();
  void federateSaveComplete();
  void federateSaveNotComplete();
  void abortFederationSave();
  void queryFederationSaveStatus();
  void requestFederationRestore(std::wstring const& label);
  void federateRestoreComplete();
  void federateRestoreNotComplete();
  void abortFederationRestore();
  void queryFederationRestoreStatus();
  void publishObjectClassAttributes(ObjectClassHandle theClass, AttributeHandleSet const& attributeList);
  void unpublishObjectClass(ObjectClassHandle theClass);
  void unpublishObjectClassAttributes(ObjectClassHandle theClass, AttributeHandleSet const& attributeList);
  void publishInteractionClass(InteractionClassHandle theInteraction);
  void unpublishInteractionClass(InteractionClassHandle theInteraction);
  void subscribeObjectClassAttributes(ObjectClassHandle theClass, AttributeHandleSet const& attributeList, bool active, std::wstring const& updateRateDesignator);
  void unsubscribeObjectClass(ObjectClassHandle theClass);
  void unsubscribeObjectClassAttributes(ObjectClassHandle theClass, AttributeHandleSet const& attributeList);
  void subscribeInteractionClass(InteractionClassHandle theClass, bool active);
  void unsubscribeInteractionClass(InteractionClassHandle theClass);
  void reserveObjectInstanceName(std::wstring const& theObjectInstanceName);
  void releaseObjectInstanceName(std::wstring const& theObjectInstanceName);
  void reserveMultipleObjectInstanceName( std::set<std::wstring> const& theObjectInstanceNames);
  void releaseMultipleObjectInstanceName( std::set<std::wstring> const& theObjectInstanceNames);
  ObjectInstanceHandle registerObjectInstance(ObjectClassHandle theClass);
  ObjectInstanceHandle registerObjectInstance( ObjectClassHandle theClass, std::wstring const& theObjectInstanceName);
  void updateAttributeValues(ObjectInstanceHandle theObject, AttributeHandleValueMap const& theAttributeValues, VariableLengthData const& theUserSuppliedTag);
  MessageRetractionHandle updateAttributeValues( ObjectInstanceHandle theObject, AttributeHandleValueMap const& theAttributeValues, VariableLengthData const& theUserSuppliedTag, LogicalTime const& theTime);
  void sendInteraction(InteractionClassHandle theInteraction, ParameterHandleValueMap const& theParameterValues, VariableLengthData const& theUserSuppliedTag);
  MessageRetractionHandle sendInteraction( InteractionClassHandle theInteraction, ParameterHandleValueMap const& theParameterValues, VariableLengthData const& theUserSuppliedTag, LogicalTime const& theTime);
  void deleteObjectInstance(ObjectInstanceHandle theObject, VariableLengthData const& theUserSuppliedTag);
  MessageRetractionHandle deleteObjectInstance( ObjectInstanceHandle theObject, VariableLengthData const& theUserSuppliedTag, LogicalTime const& theTime);
  void localDeleteObjectInstance(ObjectInstanceHandle theObject);
  void requestAttributeValueUpdate(ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes, VariableLengthData const& theUserSuppliedTag);
  void requestAttributeValueUpdate(ObjectClassHandle theClass, AttributeHandleSet const& theAttributes, VariableLengthData const& theUserSuppliedTag);
  void requestAttributeTransportationTypeChange(ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes, TransportationType theType);
  void queryAttributeTransportationType(ObjectInstanceHandle theObject, AttributeHandle theAttribute);
  void requestInteractionTransportationTypeChange(InteractionClassHandle theClass, TransportationType theType);
  void queryInteractionTransportationType(FederateHandle theFederate, InteractionClassHandle theInteraction);
  void unconditionalAttributeOwnershipDivestiture( ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes);
  void negotiatedAttributeOwnershipDivestiture( ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes, VariableLengthData const& theUserSuppliedTag);
  void confirmDivestiture(ObjectInstanceHandle theObject, AttributeHandleSet const& confirmedAttributes, VariableLengthData const& theUserSuppliedTag);
  void attributeOwnershipAcquisition(ObjectInstanceHandle theObject, AttributeHandleSet const& desiredAttributes, VariableLengthData const& theUserSuppliedTag);
  void attributeOwnershipAcquisitionIfAvailable( ObjectInstanceHandle theObject, AttributeHandleSet const& desiredAttributes);
  void attributeOwnershipReleaseDenied(ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes);
  void attributeOwnershipDivestitureIfWanted(ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes, AttributeHandleSet& theDivestedAttributes);
  void cancelNegotiatedAttributeOwnershipDivestiture( ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes);
  void cancelAttributeOwnershipAcquisition(ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes);
  void queryAttributeOwnership(ObjectInstanceHandle theObject, AttributeHandle theAttribute);
  bool isAttributeOwnedByFederate(ObjectInstanceHandle theObject, AttributeHandle theAttribute);
  void enableTimeRegulation(LogicalTimeInterval const& theLookahead);
  void disableTimeRegulation();
  void enableTimeConstrained();
  void disableTimeConstrained();
  void timeAdvanceRequest(LogicalTime const& theTime);
  void timeAdvanceRequestAvailable(LogicalTime const& theTime);
  void nextMessageRequest(LogicalTime const& theTime);
  void nextMessageRequestAvailable(LogicalTime const& theTime);
  void flushQueueRequest(LogicalTime const& theTime);
  void enableAsynchronousDelivery();
  void disableAsynchronousDelivery();
  bool queryGALT(LogicalTime& theTime);
  void queryLogicalTime(LogicalTime& theTime);
  bool queryLITS(LogicalTime& theTime);
  void modifyLookahead(LogicalTimeInterval const& theLookahead);
  void queryLookahead(LogicalTimeInterval& interval);
  void retract(MessageRetractionHandle theHandle);
  void changeAttributeOrderType(ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes, OrderType theType);
  void changeInteractionOrderType(InteractionClassHandle theClass, OrderType theType);
  RegionHandle createRegion(DimensionHandleSet const& theDimensions);
  void commitRegionModifications(RegionHandleSet const& theRegionHandleSet);
  void deleteRegion(RegionHandle const& theRegion);
  ObjectInstanceHandle registerObjectInstanceWithRegions( ObjectClassHandle theClass, AttributeHandleSetRegionHandleSetPairVector const& theAttributeHandleSetRegionHandleSetPairVector);
  ObjectInstanceHandle registerObjectInstanceWithRegions( ObjectClassHandle theClass, AttributeHandleSetRegionHandleSetPairVector const& theAttributeHandleSetRegionHandleSetPairVector, std::wstring const& theObjectInstanceName);
  void associateRegionsForUpdates( ObjectInstanceHandle theObject, AttributeHandleSetRegionHandleSetPairVector const& theAttributeHandleSetRegionHandleSetPairVector);
  void unassociateRegionsForUpdates( ObjectInstanceHandle theObject, AttributeHandleSetRegionHandleSetPairVector const& theAttributeHandleSetRegionHandleSetPairVector);
  void subscribeObjectClassAttributesWithRegions( ObjectClassHandle theClass, AttributeHandleSetRegionHandleSetPairVector const& theAttributeHandleSetRegionHandleSetPairVector, bool active, std::wstring const& updateRateDesignator);
  void unsubscribeObjectClassAttributesWithRegions( ObjectClassHandle theClass, AttributeHandleSetRegionHandleSetPairVector const& theAttributeHandleSetRegionHandleSetPairVector);
  void subscribeInteractionClassWithRegions(InteractionClassHandle theClass, RegionHandleSet const& theRegionHandleSet, bool active);
  void unsubscribeInteractionClassWithRegions(InteractionClassHandle theClass, RegionHandleSet const& theRegionHandleSet);
  void sendInteractionWithRegions(InteractionClassHandle theInteraction, ParameterHandleValueMap const& theParameterValues, RegionHandleSet const& theRegionHandleSet, VariableLengthData const& theUserSuppliedTag);
  MessageRetractionHandle sendInteractionWithRegions( InteractionClassHandle theInteraction, ParameterHandleValueMap const& theParameterValues, RegionHandleSet const& theRegionHandleSet, VariableLengthData const& theUserSuppliedTag, LogicalTime const& theTime);
  void requestAttributeValueUpdateWithRegions( ObjectClassHandle theClass, AttributeHandleSetRegionHandleSetPairVector const& theSet, VariableLengthData const& theUserSuppliedTag);
  ResignAction getAutomaticResignDirective();
  void setAutomaticResignDirective(ResignAction resignAction);
  FederateHandle getFederateHandle(std::wstring const& theName);
  std::wstring getFederateName(FederateHandle theHandle);
  ObjectClassHandle getObjectClassHandle(std::wstring const& theName);
  std::wstring getObjectClassName(ObjectClassHandle theHandle);
  ObjectClassHandle getKnownObjectClassHandle(ObjectInstanceHandle theObject);
  ObjectInstanceHandle getObjectInstanceHandle(std::wstring const& theName);
  std::wstring getObjectInstanceName(ObjectInstanceHandle theHandle);
  AttributeHandle getAttributeHandle(ObjectClassHandle whichClass, std::wstring const& theAttributeName);
  std::wstring getAttributeName(ObjectClassHandle whichClass, AttributeHandle theHandle);
  double getUpdateRateValue(std::wstring const& updateRateDesignator);
  double getUpdateRateValueForAttribute(ObjectInstanceHandle theObject, AttributeHandle theAttribute);
  InteractionClassHandle getInteractionClassHandle(std::wstring const& theName);
  std::wstring getInteractionClassName(InteractionClassHandle theHandle);
  ParameterHandle getParameterHandle(InteractionClassHandle whichClass, std::wstring const& theName);
  std::wstring getParameterName(InteractionClassHandle whichClass, ParameterHandle theHandle);
  OrderType getOrderType(std::wstring const& orderName);
  std::wstring getOrderName(OrderType orderType);
  TransportationType getTransportationType(std::wstring const& transportationName);
  std::wstring getTransportationName(TransportationType transportationType);
  DimensionHandleSet getAvailableDimensionsForClassAttribute( ObjectClassHandle theClass, AttributeHandle theHandle);
  DimensionHandleSet getAvailableDimensionsForInteractionClass( InteractionClassHandle theClass);
  DimensionHandle getDimensionHandle(std::wstring const& theName);
  std::wstring getDimensionName(DimensionHandle theHandle);
  unsigned long getDimensionUpperBound(DimensionHandle theHandle);
  DimensionHandleSet getDimensionHandleSet(RegionHandle theRegionHandle);
  RangeBounds getRangeBounds(RegionHandle theRegionHandle, DimensionHandle theDimensionHandle);
  void setRangeBounds(RegionHandle theRegionHandle, DimensionHandle theDimensionHandle, RangeBounds const& theRangeBounds);
  unsigned long normalizeFederateHandle(FederateHandle theFederateHandle);
  unsigned long normalizeServiceGroup(ServiceGroup theServiceGroup);
  void enableObjectClassRelevanceAdvisorySwitch();
  void disableObjectClassRelevanceAdvisorySwitch();
  void enableAttributeRelevanceAdvisorySwitch();
  void disableAttributeRelevanceAdvisorySwitch();
  void enableAttributeScopeAdvisorySwitch();
  void disableAttributeScopeAdvisorySwitch();
  void enableInteractionRelevanceAdvisorySwitch();
  void disableInteractionRelevanceAdvisorySwitch();
  bool evokeCallback(double approximateMinimumTimeInSeconds);
  bool evokeMultipleCallbacks(double approximateMinimumTimeInSeconds, double approximateMaximumTimeInSeconds);
  void enableCallbacks();
  void disableCallbacks();
  RTI_UNIQUE_PTR<LogicalTimeFactory> getTimeFactory() const;
  FederateHandle decodeFederateHandle(VariableLengthData const& encodedValue) const;
  ObjectClassHandle decodeObjectClassHandle(VariableLengthData const& encodedValue) const;
  InteractionClassHandle decodeInteractionClassHandle( VariableLengthData const& encodedValue) const;
  ObjectInstanceHandle decodeObjectInstanceHandle( VariableLengthData const& encodedValue) const;
  AttributeHandle decodeAttributeHandle(VariableLengthData const& encodedValue) const;
  ParameterHandle decodeParameterHandle(VariableLengthData const& encodedValue) const;
  DimensionHandle decodeDimensionHandle(VariableLengthData const& encodedValue) const;
  MessageRetractionHandle decodeMessageRetractionHandle( VariableLengthData const& encodedValue) const;
  RegionHandle decodeRegionHandle(VariableLengthData const& encodedValue) const;

  // ---- Trellis's own (RTI/trellis/Extensions.h) ----
  unsigned long long reliableMessagesLost();

  // ---- used by the callback trampolines ----
  FederateAmbassador& federate() { return *federate_; }
  // Logical time of the joined federation from the C ABI's value.
  LogicalTime const& time(TrellisTime const& value);
  // Remember the first exception a callback threw; evoke rethrows it.
  void callbackFailed(char const* callback, std::wstring const& what);

 private:
  TrellisRti* connected() const;  // throws NotConnected
  TrellisRti* joined() const;     // throws NotConnected / FederateNotExecutionMember
  TrellisTime toC(LogicalTime const& time) const;
  TrellisTime toC(LogicalTimeInterval const& interval) const;
  void notProvided(char const* service) const;  // throws RTIinternalError naming it
  bool evoke(double minimum, double maximum, bool multiple);
  void rethrowCallbackFailure();

  TrellisRti* rti_;
  FederateAmbassador* federate_;
  bool joined_;
  bool floatTime_;
  // The time handed to the last time callback (valid during it).
  RTI_UNIQUE_PTR<LogicalTime> callbackTime_;
  std::wstring callbackFailure_;

  Ambassador(Ambassador const&);
  Ambassador& operator=(Ambassador const&);
};

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace trellis_cpp

#endif
