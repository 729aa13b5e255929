// IEEE 1516.1-2010 C++ API: a federate ambassador whose callbacks all do nothing, to
// derive from and override only what a federate needs.
//
// One addition to "do nothing", on purpose: the richer overloads of discover, reflect,
// receive and remove pass their call on to the simpler ones (with retraction handle -> with
// time -> without time; with producing federate -> without). Trellis calls the richest
// overload that applies, so a federate that overrides only the simple one still hears
// time-stamped messages, and one that overrides the rich one gets them directly.
#ifndef RTI_NullFederateAmbassador_h
#define RTI_NullFederateAmbassador_h

#include <RTI/FederateAmbassador.h>

namespace rti1516e {

class RTI_EXPORT NullFederateAmbassador : public FederateAmbassador {
 public:
  NullFederateAmbassador() {}
  virtual ~NullFederateAmbassador() {}

  virtual void connectionLost(std::wstring const&) {}
  virtual void reportFederationExecutions(FederationExecutionInformationVector const&) {}
  virtual void synchronizationPointRegistrationSucceeded(std::wstring const&) {}
  virtual void synchronizationPointRegistrationFailed(std::wstring const&, SynchronizationPointFailureReason) {}
  virtual void announceSynchronizationPoint(std::wstring const&, VariableLengthData const&) {}
  virtual void federationSynchronized(std::wstring const&, FederateHandleSet const&) {}
  virtual void initiateFederateSave(std::wstring const&) {}
  virtual void initiateFederateSave(std::wstring const&, LogicalTime const&) {}
  virtual void federationSaved() {}
  virtual void federationNotSaved(SaveFailureReason) {}
  virtual void federationSaveStatusResponse(FederateHandleSaveStatusPairVector const&) {}
  virtual void requestFederationRestoreSucceeded(std::wstring const&) {}
  virtual void requestFederationRestoreFailed(std::wstring const&) {}
  virtual void federationRestoreBegun() {}
  virtual void initiateFederateRestore(std::wstring const&, std::wstring const&, FederateHandle) {}
  virtual void federationRestored() {}
  virtual void federationNotRestored(RestoreFailureReason) {}
  virtual void federationRestoreStatusResponse(FederateRestoreStatusVector const&) {}
  virtual void startRegistrationForObjectClass(ObjectClassHandle) {}
  virtual void stopRegistrationForObjectClass(ObjectClassHandle) {}
  virtual void turnInteractionsOn(InteractionClassHandle) {}
  virtual void turnInteractionsOff(InteractionClassHandle) {}
  virtual void objectInstanceNameReservationSucceeded(std::wstring const&) {}
  virtual void objectInstanceNameReservationFailed(std::wstring const&) {}
  virtual void multipleObjectInstanceNameReservationSucceeded(std::set<std::wstring> const&) {}
  virtual void multipleObjectInstanceNameReservationFailed(std::set<std::wstring> const&) {}
  virtual void discoverObjectInstance(ObjectInstanceHandle, ObjectClassHandle, std::wstring const&) {}
  virtual void discoverObjectInstance(ObjectInstanceHandle theObject, ObjectClassHandle theObjectClass,
                                      std::wstring const& theObjectInstanceName, FederateHandle) {
    discoverObjectInstance(theObject, theObjectClass, theObjectInstanceName);
  }
  virtual void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const&, VariableLengthData const&, OrderType, TransportationType, SupplementalReflectInfo) {}
  virtual void reflectAttributeValues(ObjectInstanceHandle theObject, AttributeHandleValueMap const& theAttributeValues,
                                      VariableLengthData const& theUserSuppliedTag, OrderType sentOrder,
                                      TransportationType theType, LogicalTime const&, OrderType,
                                      SupplementalReflectInfo theReflectInfo) {
    reflectAttributeValues(theObject, theAttributeValues, theUserSuppliedTag, sentOrder, theType, theReflectInfo);
  }
  virtual void reflectAttributeValues(ObjectInstanceHandle theObject, AttributeHandleValueMap const& theAttributeValues,
                                      VariableLengthData const& theUserSuppliedTag, OrderType sentOrder,
                                      TransportationType theType, LogicalTime const& theTime, OrderType receivedOrder,
                                      MessageRetractionHandle, SupplementalReflectInfo theReflectInfo) {
    reflectAttributeValues(theObject, theAttributeValues, theUserSuppliedTag, sentOrder, theType, theTime,
                           receivedOrder, theReflectInfo);
  }
  virtual void receiveInteraction(InteractionClassHandle, ParameterHandleValueMap const&, VariableLengthData const&, OrderType, TransportationType, SupplementalReceiveInfo) {}
  virtual void receiveInteraction(InteractionClassHandle theInteraction, ParameterHandleValueMap const& theParameterValues,
                                  VariableLengthData const& theUserSuppliedTag, OrderType sentOrder,
                                  TransportationType theType, LogicalTime const&, OrderType,
                                  SupplementalReceiveInfo theReceiveInfo) {
    receiveInteraction(theInteraction, theParameterValues, theUserSuppliedTag, sentOrder, theType, theReceiveInfo);
  }
  virtual void receiveInteraction(InteractionClassHandle theInteraction, ParameterHandleValueMap const& theParameterValues,
                                  VariableLengthData const& theUserSuppliedTag, OrderType sentOrder,
                                  TransportationType theType, LogicalTime const& theTime, OrderType receivedOrder,
                                  MessageRetractionHandle, SupplementalReceiveInfo theReceiveInfo) {
    receiveInteraction(theInteraction, theParameterValues, theUserSuppliedTag, sentOrder, theType, theTime,
                       receivedOrder, theReceiveInfo);
  }
  virtual void removeObjectInstance(ObjectInstanceHandle, VariableLengthData const&, OrderType, SupplementalRemoveInfo) {}
  virtual void removeObjectInstance(ObjectInstanceHandle theObject, VariableLengthData const& theUserSuppliedTag,
                                    OrderType sentOrder, LogicalTime const&, OrderType,
                                    SupplementalRemoveInfo theRemoveInfo) {
    removeObjectInstance(theObject, theUserSuppliedTag, sentOrder, theRemoveInfo);
  }
  virtual void removeObjectInstance(ObjectInstanceHandle theObject, VariableLengthData const& theUserSuppliedTag,
                                    OrderType sentOrder, LogicalTime const& theTime, OrderType receivedOrder,
                                    MessageRetractionHandle, SupplementalRemoveInfo theRemoveInfo) {
    removeObjectInstance(theObject, theUserSuppliedTag, sentOrder, theTime, receivedOrder, theRemoveInfo);
  }
  virtual void attributesInScope(ObjectInstanceHandle, AttributeHandleSet const&) {}
  virtual void attributesOutOfScope(ObjectInstanceHandle, AttributeHandleSet const&) {}
  virtual void provideAttributeValueUpdate(ObjectInstanceHandle, AttributeHandleSet const&, VariableLengthData const&) {}
  virtual void turnUpdatesOnForObjectInstance(ObjectInstanceHandle, AttributeHandleSet const&) {}
  virtual void turnUpdatesOnForObjectInstance(ObjectInstanceHandle, AttributeHandleSet const&, std::wstring const&) {}
  virtual void turnUpdatesOffForObjectInstance(ObjectInstanceHandle, AttributeHandleSet const&) {}
  virtual void confirmAttributeTransportationTypeChange(ObjectInstanceHandle, AttributeHandleSet, TransportationType) {}
  virtual void reportAttributeTransportationType(ObjectInstanceHandle, AttributeHandle, TransportationType) {}
  virtual void confirmInteractionTransportationTypeChange(InteractionClassHandle, TransportationType) {}
  virtual void reportInteractionTransportationType(FederateHandle, InteractionClassHandle, TransportationType) {}
  virtual void requestAttributeOwnershipAssumption(ObjectInstanceHandle, AttributeHandleSet const&, VariableLengthData const&) {}
  virtual void requestDivestitureConfirmation(ObjectInstanceHandle, AttributeHandleSet const&) {}
  virtual void attributeOwnershipAcquisitionNotification(ObjectInstanceHandle, AttributeHandleSet const&, VariableLengthData const&) {}
  virtual void attributeOwnershipUnavailable(ObjectInstanceHandle, AttributeHandleSet const&) {}
  virtual void requestAttributeOwnershipRelease(ObjectInstanceHandle, AttributeHandleSet const&, VariableLengthData const&) {}
  virtual void confirmAttributeOwnershipAcquisitionCancellation(ObjectInstanceHandle, AttributeHandleSet const&) {}
  virtual void informAttributeOwnership(ObjectInstanceHandle, AttributeHandle, FederateHandle) {}
  virtual void attributeIsNotOwned(ObjectInstanceHandle, AttributeHandle) {}
  virtual void attributeIsOwnedByRTI(ObjectInstanceHandle, AttributeHandle) {}
  virtual void timeRegulationEnabled(LogicalTime const&) {}
  virtual void timeConstrainedEnabled(LogicalTime const&) {}
  virtual void timeAdvanceGrant(LogicalTime const&) {}
  virtual void requestRetraction(MessageRetractionHandle) {}
};

}  // namespace rti1516e

#endif  // RTI_NullFederateAmbassador_h
