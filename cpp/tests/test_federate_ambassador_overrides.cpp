// A federate ambassador written the way existing federates are: every callback of IEEE
// 1516.1-2010 overridden with the standard's signature, and, when compiled as C++11/14, with
// the `throw (FederateInternalError)` specifications old code still carries. `override`
// makes the compiler prove each one overrides a callback of our FederateAmbassador; the
// calls through a base reference prove dispatch reaches each override.
// Old code is built without -Werror; dynamic exception specifications only warn in C++11.
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wdeprecated"
#endif

#include <RTI/RTI1516.h>

#include <cstdio>
#include <set>
#include <string>

#include "check.h"

#if __cplusplus < 201703L
#define LEGACY_THROW throw(rti1516e::FederateInternalError)
#else
#define LEGACY_THROW
#endif

using namespace rti1516e;

namespace {

class LegacyAmbassador : public FederateAmbassador {
 public:
  LegacyAmbassador() : calls(0) {}
  ~LegacyAmbassador() throw() {}
  int calls;

  // Federation management
  void connectionLost(std::wstring const&) LEGACY_THROW override { ++calls; }
  void reportFederationExecutions(FederationExecutionInformationVector const&) LEGACY_THROW override { ++calls; }
  void synchronizationPointRegistrationSucceeded(std::wstring const&) LEGACY_THROW override { ++calls; }
  void synchronizationPointRegistrationFailed(std::wstring const&, SynchronizationPointFailureReason) LEGACY_THROW override { ++calls; }
  void announceSynchronizationPoint(std::wstring const&, VariableLengthData const&) LEGACY_THROW override { ++calls; }
  void federationSynchronized(std::wstring const&, FederateHandleSet const&) LEGACY_THROW override { ++calls; }
  void initiateFederateSave(std::wstring const&) LEGACY_THROW override { ++calls; }
  void initiateFederateSave(std::wstring const&, LogicalTime const&) LEGACY_THROW override { ++calls; }
  void federationSaved() LEGACY_THROW override { ++calls; }
  void federationNotSaved(SaveFailureReason) LEGACY_THROW override { ++calls; }
  void federationSaveStatusResponse(FederateHandleSaveStatusPairVector const&) LEGACY_THROW override { ++calls; }
  void requestFederationRestoreSucceeded(std::wstring const&) LEGACY_THROW override { ++calls; }
  void requestFederationRestoreFailed(std::wstring const&) LEGACY_THROW override { ++calls; }
  void federationRestoreBegun() LEGACY_THROW override { ++calls; }
  void initiateFederateRestore(std::wstring const&, std::wstring const&, FederateHandle) LEGACY_THROW override { ++calls; }
  void federationRestored() LEGACY_THROW override { ++calls; }
  void federationNotRestored(RestoreFailureReason) LEGACY_THROW override { ++calls; }
  void federationRestoreStatusResponse(FederateRestoreStatusVector const&) LEGACY_THROW override { ++calls; }

  // Declaration management
  void startRegistrationForObjectClass(ObjectClassHandle) LEGACY_THROW override { ++calls; }
  void stopRegistrationForObjectClass(ObjectClassHandle) LEGACY_THROW override { ++calls; }
  void turnInteractionsOn(InteractionClassHandle) LEGACY_THROW override { ++calls; }
  void turnInteractionsOff(InteractionClassHandle) LEGACY_THROW override { ++calls; }

  // Object management
  void objectInstanceNameReservationSucceeded(std::wstring const&) LEGACY_THROW override { ++calls; }
  void objectInstanceNameReservationFailed(std::wstring const&) LEGACY_THROW override { ++calls; }
  void multipleObjectInstanceNameReservationSucceeded(std::set<std::wstring> const&) LEGACY_THROW override { ++calls; }
  void multipleObjectInstanceNameReservationFailed(std::set<std::wstring> const&) LEGACY_THROW override { ++calls; }
  void discoverObjectInstance(ObjectInstanceHandle, ObjectClassHandle, std::wstring const&) LEGACY_THROW override { ++calls; }
  void discoverObjectInstance(ObjectInstanceHandle, ObjectClassHandle, std::wstring const&, FederateHandle) LEGACY_THROW override { ++calls; }
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const&, VariableLengthData const&, OrderType, TransportationType, SupplementalReflectInfo) LEGACY_THROW override { ++calls; }
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const&, VariableLengthData const&, OrderType, TransportationType, LogicalTime const&, OrderType, SupplementalReflectInfo) LEGACY_THROW override { ++calls; }
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const&, VariableLengthData const&, OrderType, TransportationType, LogicalTime const&, OrderType, MessageRetractionHandle, SupplementalReflectInfo) LEGACY_THROW override { ++calls; }
  void receiveInteraction(InteractionClassHandle, ParameterHandleValueMap const&, VariableLengthData const&, OrderType, TransportationType, SupplementalReceiveInfo) LEGACY_THROW override { ++calls; }
  void receiveInteraction(InteractionClassHandle, ParameterHandleValueMap const&, VariableLengthData const&, OrderType, TransportationType, LogicalTime const&, OrderType, SupplementalReceiveInfo) LEGACY_THROW override { ++calls; }
  void receiveInteraction(InteractionClassHandle, ParameterHandleValueMap const&, VariableLengthData const&, OrderType, TransportationType, LogicalTime const&, OrderType, MessageRetractionHandle, SupplementalReceiveInfo) LEGACY_THROW override { ++calls; }
  void removeObjectInstance(ObjectInstanceHandle, VariableLengthData const&, OrderType, SupplementalRemoveInfo) LEGACY_THROW override { ++calls; }
  void removeObjectInstance(ObjectInstanceHandle, VariableLengthData const&, OrderType, LogicalTime const&, OrderType, SupplementalRemoveInfo) LEGACY_THROW override { ++calls; }
  void removeObjectInstance(ObjectInstanceHandle, VariableLengthData const&, OrderType, LogicalTime const&, OrderType, MessageRetractionHandle, SupplementalRemoveInfo) LEGACY_THROW override { ++calls; }
  void attributesInScope(ObjectInstanceHandle, AttributeHandleSet const&) LEGACY_THROW override { ++calls; }
  void attributesOutOfScope(ObjectInstanceHandle, AttributeHandleSet const&) LEGACY_THROW override { ++calls; }
  void provideAttributeValueUpdate(ObjectInstanceHandle, AttributeHandleSet const&, VariableLengthData const&) LEGACY_THROW override { ++calls; }
  void turnUpdatesOnForObjectInstance(ObjectInstanceHandle, AttributeHandleSet const&) LEGACY_THROW override { ++calls; }
  void turnUpdatesOnForObjectInstance(ObjectInstanceHandle, AttributeHandleSet const&, std::wstring const&) LEGACY_THROW override { ++calls; }
  void turnUpdatesOffForObjectInstance(ObjectInstanceHandle, AttributeHandleSet const&) LEGACY_THROW override { ++calls; }
  void confirmAttributeTransportationTypeChange(ObjectInstanceHandle, AttributeHandleSet, TransportationType) LEGACY_THROW override { ++calls; }
  void reportAttributeTransportationType(ObjectInstanceHandle, AttributeHandle, TransportationType) LEGACY_THROW override { ++calls; }
  void confirmInteractionTransportationTypeChange(InteractionClassHandle, TransportationType) LEGACY_THROW override { ++calls; }
  void reportInteractionTransportationType(FederateHandle, InteractionClassHandle, TransportationType) LEGACY_THROW override { ++calls; }

  // Ownership management
  void requestAttributeOwnershipAssumption(ObjectInstanceHandle, AttributeHandleSet const&, VariableLengthData const&) LEGACY_THROW override { ++calls; }
  void requestDivestitureConfirmation(ObjectInstanceHandle, AttributeHandleSet const&) LEGACY_THROW override { ++calls; }
  void attributeOwnershipAcquisitionNotification(ObjectInstanceHandle, AttributeHandleSet const&, VariableLengthData const&) LEGACY_THROW override { ++calls; }
  void attributeOwnershipUnavailable(ObjectInstanceHandle, AttributeHandleSet const&) LEGACY_THROW override { ++calls; }
  void requestAttributeOwnershipRelease(ObjectInstanceHandle, AttributeHandleSet const&, VariableLengthData const&) LEGACY_THROW override { ++calls; }
  void confirmAttributeOwnershipAcquisitionCancellation(ObjectInstanceHandle, AttributeHandleSet const&) LEGACY_THROW override { ++calls; }
  void informAttributeOwnership(ObjectInstanceHandle, AttributeHandle, FederateHandle) LEGACY_THROW override { ++calls; }
  void attributeIsNotOwned(ObjectInstanceHandle, AttributeHandle) LEGACY_THROW override { ++calls; }
  void attributeIsOwnedByRTI(ObjectInstanceHandle, AttributeHandle) LEGACY_THROW override { ++calls; }

  // Time management
  void timeRegulationEnabled(LogicalTime const&) LEGACY_THROW override { ++calls; }
  void timeConstrainedEnabled(LogicalTime const&) LEGACY_THROW override { ++calls; }
  void timeAdvanceGrant(LogicalTime const&) LEGACY_THROW override { ++calls; }
  void requestRetraction(MessageRetractionHandle) LEGACY_THROW override { ++calls; }
};

// Calls every callback through the standard base class; returns how many calls were made.
int callEveryCallback(FederateAmbassador& a) {
  std::wstring const label(L"label");
  VariableLengthData const tag("t", 1);
  FederateHandleSet const federates;
  std::set<std::wstring> const names;
  ObjectInstanceHandle const object;
  ObjectClassHandle const objectClass;
  InteractionClassHandle const interaction;
  AttributeHandle const attribute;
  AttributeHandleSet const attributes;
  AttributeHandleValueMap const values;
  ParameterHandleValueMap const parameters;
  FederateHandle const federate;
  MessageRetractionHandle const retraction;
  HLAinteger64Time const time(7);
  SupplementalReflectInfo const reflectInfo;
  SupplementalReceiveInfo const receiveInfo;
  SupplementalRemoveInfo const removeInfo;
  int made = 0;
  a.connectionLost(label); ++made;
  a.reportFederationExecutions(FederationExecutionInformationVector()); ++made;
  a.synchronizationPointRegistrationSucceeded(label); ++made;
  a.synchronizationPointRegistrationFailed(label, SYNCHRONIZATION_POINT_LABEL_NOT_UNIQUE); ++made;
  a.announceSynchronizationPoint(label, tag); ++made;
  a.federationSynchronized(label, federates); ++made;
  a.initiateFederateSave(label); ++made;
  a.initiateFederateSave(label, time); ++made;
  a.federationSaved(); ++made;
  a.federationNotSaved(RTI_UNABLE_TO_SAVE); ++made;
  a.federationSaveStatusResponse(FederateHandleSaveStatusPairVector()); ++made;
  a.requestFederationRestoreSucceeded(label); ++made;
  a.requestFederationRestoreFailed(label); ++made;
  a.federationRestoreBegun(); ++made;
  a.initiateFederateRestore(label, label, federate); ++made;
  a.federationRestored(); ++made;
  a.federationNotRestored(RTI_UNABLE_TO_RESTORE); ++made;
  a.federationRestoreStatusResponse(FederateRestoreStatusVector()); ++made;
  a.startRegistrationForObjectClass(objectClass); ++made;
  a.stopRegistrationForObjectClass(objectClass); ++made;
  a.turnInteractionsOn(interaction); ++made;
  a.turnInteractionsOff(interaction); ++made;
  a.objectInstanceNameReservationSucceeded(label); ++made;
  a.objectInstanceNameReservationFailed(label); ++made;
  a.multipleObjectInstanceNameReservationSucceeded(names); ++made;
  a.multipleObjectInstanceNameReservationFailed(names); ++made;
  a.discoverObjectInstance(object, objectClass, label); ++made;
  a.discoverObjectInstance(object, objectClass, label, federate); ++made;
  a.reflectAttributeValues(object, values, tag, RECEIVE, RELIABLE, reflectInfo); ++made;
  a.reflectAttributeValues(object, values, tag, TIMESTAMP, RELIABLE, time, TIMESTAMP, reflectInfo); ++made;
  a.reflectAttributeValues(object, values, tag, TIMESTAMP, BEST_EFFORT, time, RECEIVE, retraction, reflectInfo); ++made;
  a.receiveInteraction(interaction, parameters, tag, RECEIVE, RELIABLE, receiveInfo); ++made;
  a.receiveInteraction(interaction, parameters, tag, TIMESTAMP, RELIABLE, time, TIMESTAMP, receiveInfo); ++made;
  a.receiveInteraction(interaction, parameters, tag, TIMESTAMP, RELIABLE, time, TIMESTAMP, retraction, receiveInfo); ++made;
  a.removeObjectInstance(object, tag, RECEIVE, removeInfo); ++made;
  a.removeObjectInstance(object, tag, TIMESTAMP, time, TIMESTAMP, removeInfo); ++made;
  a.removeObjectInstance(object, tag, TIMESTAMP, time, TIMESTAMP, retraction, removeInfo); ++made;
  a.attributesInScope(object, attributes); ++made;
  a.attributesOutOfScope(object, attributes); ++made;
  a.provideAttributeValueUpdate(object, attributes, tag); ++made;
  a.turnUpdatesOnForObjectInstance(object, attributes); ++made;
  a.turnUpdatesOnForObjectInstance(object, attributes, label); ++made;
  a.turnUpdatesOffForObjectInstance(object, attributes); ++made;
  a.confirmAttributeTransportationTypeChange(object, attributes, RELIABLE); ++made;
  a.reportAttributeTransportationType(object, attribute, RELIABLE); ++made;
  a.confirmInteractionTransportationTypeChange(interaction, BEST_EFFORT); ++made;
  a.reportInteractionTransportationType(federate, interaction, BEST_EFFORT); ++made;
  a.requestAttributeOwnershipAssumption(object, attributes, tag); ++made;
  a.requestDivestitureConfirmation(object, attributes); ++made;
  a.attributeOwnershipAcquisitionNotification(object, attributes, tag); ++made;
  a.attributeOwnershipUnavailable(object, attributes); ++made;
  a.requestAttributeOwnershipRelease(object, attributes, tag); ++made;
  a.confirmAttributeOwnershipAcquisitionCancellation(object, attributes); ++made;
  a.informAttributeOwnership(object, attribute, federate); ++made;
  a.attributeIsNotOwned(object, attribute); ++made;
  a.attributeIsOwnedByRTI(object, attribute); ++made;
  a.timeRegulationEnabled(time); ++made;
  a.timeConstrainedEnabled(time); ++made;
  a.timeAdvanceGrant(time); ++made;
  a.requestRetraction(retraction); ++made;
  return made;
}

}  // namespace

int main() {
  LegacyAmbassador legacy;
  int const made = callEveryCallback(legacy);
  CHECK_EQ(made, 60);  // every callback of the standard
  CHECK_EQ(legacy.calls, made);
  // The standard's NullFederateAmbassador accepts every callback too.
  NullFederateAmbassador null;
  CHECK_EQ(callEveryCallback(null), made);
  return check::finish("test_federate_ambassador_overrides");
}
