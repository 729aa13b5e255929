// The callback trampolines. An exception a federate's callback throws must not cross the C
// library: it is caught here, and evokeCallback rethrows it as RTIinternalError naming the
// callback and the federate's message.
#include "Callbacks.h"

#include <RTI/trellis/Extensions.h>

#include <exception>

#include "Ambassador.h"
#include "Convert.h"

namespace trellis_cpp {

namespace {

Ambassador& self(void* user) { return *static_cast<Ambassador*>(user); }

#define TRELLIS_GUARD(name, body)                                  \
  try {                                                            \
    body;                                                          \
  } catch (rti1516e::Exception const& e) {                         \
    self(user).callbackFailed(name, e.what());                     \
  } catch (std::exception const& e) {                              \
    self(user).callbackFailed(name, fromUtf8(e.what()));           \
  } catch (...) {                                                  \
    self(user).callbackFailed(name, L"an unknown exception");      \
  }

VariableLengthData borrowed(TrellisBytes bytes) {
  VariableLengthData data;
  // The bytes live for the callback; a federate that keeps the value copies it (the copy
  // constructor and assignment copy).
  data.setDataPointer(const_cast<uint8_t*>(bytes.data), bytes.len);
  return data;
}

template <typename Friend, typename Set>
Set handleSet(uint64_t const* values, size_t count) {
  Set out;
  for (size_t i = 0; i < count; ++i) out.insert(Friend::create(values[i]));
  return out;
}

AttributeHandleSet attributeSet(uint64_t const* values, size_t count) {
  return handleSet<AttributeHandleFriend, AttributeHandleSet>(values, count);
}

// Whether `map` holds exactly the handles of `values`: as many, each found, none given
// twice (checked pairwise up to a few; a longer list is rebuilt instead).
template <typename Friend, typename Map>
bool sameHandles(Map const& map, TrellisHandleValue const* values, size_t count) {
  size_t const kMostChecked = 16;
  if (map.size() != count || count > kMostChecked) return false;
  for (size_t i = 0; i < count; ++i) {
    if (map.find(Friend::create(values[i].handle)) == map.end()) return false;
    for (size_t j = 0; j < i; ++j) {
      if (values[j].handle == values[i].handle) return false;
    }
  }
  return true;
}

// The value map a reflect or an interaction lends the federate, kept per thread: IEEE
// 1516.1 passes it by const reference for the callback only, so a federate reflecting the
// same attributes again (the common case) gets the same map nodes with the new values
// pointed at, instead of a node allocated and freed per attribute per callback. Another set
// of handles rebuilds it. No callback runs inside another on one thread (evoke is refused
// there), so one map per thread and type serves every ambassador.
template <typename Friend, typename Map>
Map const& lentValueMap(TrellisHandleValue const* values, size_t count) {
  static thread_local Map map;
  if (!sameHandles<Friend>(map, values, count)) {
    map.clear();
    for (size_t i = 0; i < count; ++i) map[Friend::create(values[i].handle)];
  }
  for (size_t i = 0; i < count; ++i) {
    // Pointed at in place: assigning a VariableLengthData would copy the bytes.
    TrellisBytes const& value = values[i].value;
    map.find(Friend::create(values[i].handle))->second.setDataPointer(const_cast<uint8_t*>(value.data), value.len);
  }
  return map;
}

std::set<std::wstring> nameSet(char const* const* names, size_t count) {
  std::set<std::wstring> out;
  for (size_t i = 0; i < count; ++i) out.insert(fromUtf8(names[i]));
  return out;
}

void connectionLost(void* user, char const* description) {
  TRELLIS_GUARD("connectionLost", self(user).federate().connectionLost(fromUtf8(description)))
}

void reportFederationExecutions(void* user, char const* const* names, char const* const* times, size_t count) {
  FederationExecutionInformationVector list;
  for (size_t i = 0; i < count; ++i)
    list.push_back(FederationExecutionInformation(fromUtf8(names[i]), fromUtf8(times[i])));
  TRELLIS_GUARD("reportFederationExecutions", self(user).federate().reportFederationExecutions(list))
}

void syncSucceeded(void* user, char const* label) {
  TRELLIS_GUARD("synchronizationPointRegistrationSucceeded",
                self(user).federate().synchronizationPointRegistrationSucceeded(fromUtf8(label)))
}

void syncFailed(void* user, char const* label, int32_t reason) {
  SynchronizationPointFailureReason const why =
      reason == 0 ? SYNCHRONIZATION_POINT_LABEL_NOT_UNIQUE : SYNCHRONIZATION_SET_MEMBER_NOT_JOINED;
  TRELLIS_GUARD("synchronizationPointRegistrationFailed",
                self(user).federate().synchronizationPointRegistrationFailed(fromUtf8(label), why))
}

void announce(void* user, char const* label, TrellisBytes tag) {
  TRELLIS_GUARD("announceSynchronizationPoint",
                self(user).federate().announceSynchronizationPoint(fromUtf8(label), borrowed(tag)))
}

void synchronized(void* user, char const* label, uint64_t const* failed, size_t count) {
  FederateHandleSet const set = handleSet<FederateHandleFriend, FederateHandleSet>(failed, count);
  TRELLIS_GUARD("federationSynchronized", self(user).federate().federationSynchronized(fromUtf8(label), set))
}

void startRegistration(void* user, uint64_t c) {
  TRELLIS_GUARD("startRegistrationForObjectClass",
                self(user).federate().startRegistrationForObjectClass(ObjectClassHandleFriend::create(c)))
}

void stopRegistration(void* user, uint64_t c) {
  TRELLIS_GUARD("stopRegistrationForObjectClass",
                self(user).federate().stopRegistrationForObjectClass(ObjectClassHandleFriend::create(c)))
}

void interactionsOn(void* user, uint64_t c) {
  TRELLIS_GUARD("turnInteractionsOn", self(user).federate().turnInteractionsOn(InteractionClassHandleFriend::create(c)))
}

void interactionsOff(void* user, uint64_t c) {
  TRELLIS_GUARD("turnInteractionsOff",
                self(user).federate().turnInteractionsOff(InteractionClassHandleFriend::create(c)))
}

void nameReserved(void* user, char const* name) {
  TRELLIS_GUARD("objectInstanceNameReservationSucceeded",
                self(user).federate().objectInstanceNameReservationSucceeded(fromUtf8(name)))
}

void nameRefused(void* user, char const* name) {
  TRELLIS_GUARD("objectInstanceNameReservationFailed",
                self(user).federate().objectInstanceNameReservationFailed(fromUtf8(name)))
}

void namesReserved(void* user, char const* const* names, size_t count) {
  TRELLIS_GUARD("multipleObjectInstanceNameReservationSucceeded",
                self(user).federate().multipleObjectInstanceNameReservationSucceeded(nameSet(names, count)))
}

void namesRefused(void* user, char const* const* names, size_t count) {
  TRELLIS_GUARD("multipleObjectInstanceNameReservationFailed",
                self(user).federate().multipleObjectInstanceNameReservationFailed(nameSet(names, count)))
}

void discover(void* user, uint64_t object, uint64_t c, char const* name, uint64_t producer) {
  TRELLIS_GUARD("discoverObjectInstance",
                self(user).federate().discoverObjectInstance(ObjectInstanceHandleFriend::create(object),
                                                             ObjectClassHandleFriend::create(c), fromUtf8(name),
                                                             FederateHandleFriend::create(producer)))
}

OrderType order(int32_t value) { return value == TRELLIS_ORDER_TIMESTAMP ? TIMESTAMP : RECEIVE; }
TransportationType transport(int32_t value) {
  return value == TRELLIS_TRANSPORT_BEST_EFFORT ? BEST_EFFORT : RELIABLE;
}

// The retraction handle of the message being delivered (the C ABI keeps it for the
// duration of the callback): valid when it was sent in time-stamp order.
MessageRetractionHandle deliveredRetraction() {
  return MessageRetractionHandleFriend::create(trellis_callback_retraction_handle());
}

// Messages sent in time-stamp order carry their retraction handle, whichever order they
// are received in (a receive-order receiver may get requestRetraction for it); messages
// sent in receive order with a time stamp carry the time only.
void reflect(void* user, uint64_t object, TrellisHandleValue const* values, size_t count, TrellisBytes tag,
             int32_t sent, int32_t transportation, TrellisTime const* time, int32_t received, uint64_t producer,
             uint64_t const*, size_t) {
  AttributeHandleValueMap const& map = lentValueMap<AttributeHandleFriend, AttributeHandleValueMap>(values, count);
  VariableLengthData const userTag = borrowed(tag);
  ObjectInstanceHandle const instance = ObjectInstanceHandleFriend::create(object);
  SupplementalReflectInfo const info(FederateHandleFriend::create(producer));
  FederateAmbassador& federate = self(user).federate();
  if (time == 0) {
    TRELLIS_GUARD("reflectAttributeValues",
                  federate.reflectAttributeValues(instance, map, userTag, order(sent), transport(transportation), info))
  } else if (order(sent) == TIMESTAMP) {
    LogicalTime const& stamp = self(user).time(*time);
    TRELLIS_GUARD("reflectAttributeValues",
                  federate.reflectAttributeValues(instance, map, userTag, order(sent), transport(transportation),
                                                  stamp, order(received), deliveredRetraction(), info))
  } else {
    LogicalTime const& stamp = self(user).time(*time);
    TRELLIS_GUARD("reflectAttributeValues",
                  federate.reflectAttributeValues(instance, map, userTag, order(sent), transport(transportation),
                                                  stamp, RECEIVE, info))
  }
}

void receive(void* user, uint64_t interaction, TrellisHandleValue const* values, size_t count, TrellisBytes tag,
             int32_t sent, int32_t transportation, TrellisTime const* time, int32_t received, uint64_t producer,
             uint64_t const*, size_t) {
  ParameterHandleValueMap const& map = lentValueMap<ParameterHandleFriend, ParameterHandleValueMap>(values, count);
  VariableLengthData const userTag = borrowed(tag);
  InteractionClassHandle const c = InteractionClassHandleFriend::create(interaction);
  SupplementalReceiveInfo const info(FederateHandleFriend::create(producer));
  FederateAmbassador& federate = self(user).federate();
  if (time == 0) {
    TRELLIS_GUARD("receiveInteraction",
                  federate.receiveInteraction(c, map, userTag, order(sent), transport(transportation), info))
  } else if (order(sent) == TIMESTAMP) {
    LogicalTime const& stamp = self(user).time(*time);
    TRELLIS_GUARD("receiveInteraction",
                  federate.receiveInteraction(c, map, userTag, order(sent), transport(transportation), stamp,
                                              order(received), deliveredRetraction(), info))
  } else {
    LogicalTime const& stamp = self(user).time(*time);
    TRELLIS_GUARD("receiveInteraction", federate.receiveInteraction(c, map, userTag, order(sent),
                                                                    transport(transportation), stamp, RECEIVE, info))
  }
}

void remove(void* user, uint64_t object, TrellisBytes tag, int32_t sent, TrellisTime const* time, int32_t received,
            uint64_t producer) {
  VariableLengthData const userTag = borrowed(tag);
  ObjectInstanceHandle const instance = ObjectInstanceHandleFriend::create(object);
  SupplementalRemoveInfo const info(FederateHandleFriend::create(producer));
  FederateAmbassador& federate = self(user).federate();
  if (time == 0) {
    TRELLIS_GUARD("removeObjectInstance", federate.removeObjectInstance(instance, userTag, order(sent), info))
  } else if (order(sent) == TIMESTAMP) {
    LogicalTime const& stamp = self(user).time(*time);
    TRELLIS_GUARD("removeObjectInstance", federate.removeObjectInstance(instance, userTag, order(sent), stamp,
                                                                        order(received), deliveredRetraction(), info))
  } else {
    LogicalTime const& stamp = self(user).time(*time);
    TRELLIS_GUARD("removeObjectInstance",
                  federate.removeObjectInstance(instance, userTag, order(sent), stamp, RECEIVE, info))
  }
}

void provide(void* user, uint64_t object, uint64_t const* a, size_t n, TrellisBytes tag) {
  TRELLIS_GUARD("provideAttributeValueUpdate",
                self(user).federate().provideAttributeValueUpdate(ObjectInstanceHandleFriend::create(object),
                                                                  attributeSet(a, n), borrowed(tag)))
}

void updatesOn(void* user, uint64_t object, uint64_t const* a, size_t n) {
  TRELLIS_GUARD("turnUpdatesOnForObjectInstance",
                self(user).federate().turnUpdatesOnForObjectInstance(ObjectInstanceHandleFriend::create(object),
                                                                     attributeSet(a, n)))
}

void updatesOff(void* user, uint64_t object, uint64_t const* a, size_t n) {
  TRELLIS_GUARD("turnUpdatesOffForObjectInstance",
                self(user).federate().turnUpdatesOffForObjectInstance(ObjectInstanceHandleFriend::create(object),
                                                                      attributeSet(a, n)))
}

#define TRELLIS_OWNERSHIP_TAGGED(function, Callback)                                             \
  void function(void* user, uint64_t object, uint64_t const* a, size_t n, TrellisBytes tag) {    \
    TRELLIS_GUARD(#Callback, self(user).federate().Callback(ObjectInstanceHandleFriend::create(object), \
                                                            attributeSet(a, n), borrowed(tag)))  \
  }
#define TRELLIS_OWNERSHIP(function, Callback)                                                    \
  void function(void* user, uint64_t object, uint64_t const* a, size_t n) {                      \
    TRELLIS_GUARD(#Callback, self(user).federate().Callback(ObjectInstanceHandleFriend::create(object), \
                                                            attributeSet(a, n)))                 \
  }

TRELLIS_OWNERSHIP_TAGGED(assumption, requestAttributeOwnershipAssumption)
TRELLIS_OWNERSHIP(divestitureConfirmation, requestDivestitureConfirmation)
TRELLIS_OWNERSHIP_TAGGED(acquisitionNotification, attributeOwnershipAcquisitionNotification)
TRELLIS_OWNERSHIP(unavailable, attributeOwnershipUnavailable)
TRELLIS_OWNERSHIP_TAGGED(releaseRequest, requestAttributeOwnershipRelease)
TRELLIS_OWNERSHIP(cancellationConfirmed, confirmAttributeOwnershipAcquisitionCancellation)

#undef TRELLIS_OWNERSHIP
#undef TRELLIS_OWNERSHIP_TAGGED

void informOwnership(void* user, uint64_t object, uint64_t attribute, uint64_t owner) {
  TRELLIS_GUARD("informAttributeOwnership",
                self(user).federate().informAttributeOwnership(ObjectInstanceHandleFriend::create(object),
                                                               AttributeHandleFriend::create(attribute),
                                                               FederateHandleFriend::create(owner)))
}

void notOwned(void* user, uint64_t object, uint64_t attribute) {
  TRELLIS_GUARD("attributeIsNotOwned",
                self(user).federate().attributeIsNotOwned(ObjectInstanceHandleFriend::create(object),
                                                          AttributeHandleFriend::create(attribute)))
}

void ownedByRti(void* user, uint64_t object, uint64_t attribute) {
  TRELLIS_GUARD("attributeIsOwnedByRTI",
                self(user).federate().attributeIsOwnedByRTI(ObjectInstanceHandleFriend::create(object),
                                                            AttributeHandleFriend::create(attribute)))
}

void regulationEnabled(void* user, TrellisTime time) {
  TRELLIS_GUARD("timeRegulationEnabled", self(user).federate().timeRegulationEnabled(self(user).time(time)))
}

void constrainedEnabled(void* user, TrellisTime time) {
  TRELLIS_GUARD("timeConstrainedEnabled", self(user).federate().timeConstrainedEnabled(self(user).time(time)))
}

void grant(void* user, TrellisTime time) {
  TRELLIS_GUARD("timeAdvanceGrant", self(user).federate().timeAdvanceGrant(self(user).time(time)))
}

void attributeTransportChanged(void* user, uint64_t object, uint64_t const* attributes, size_t count,
                               int32_t transportation) {
  TRELLIS_GUARD("confirmAttributeTransportationTypeChange",
                self(user).federate().confirmAttributeTransportationTypeChange(
                    ObjectInstanceHandleFriend::create(object), attributeSet(attributes, count),
                    transport(transportation)))
}

void attributeTransport(void* user, uint64_t object, uint64_t attribute, int32_t transportation) {
  TRELLIS_GUARD("reportAttributeTransportationType",
                self(user).federate().reportAttributeTransportationType(ObjectInstanceHandleFriend::create(object),
                                                                        AttributeHandleFriend::create(attribute),
                                                                        transport(transportation)))
}

void interactionTransportChanged(void* user, uint64_t interaction, int32_t transportation) {
  TRELLIS_GUARD("confirmInteractionTransportationTypeChange",
                self(user).federate().confirmInteractionTransportationTypeChange(
                    InteractionClassHandleFriend::create(interaction), transport(transportation)))
}

void interactionTransport(void* user, uint64_t federate, uint64_t interaction, int32_t transportation) {
  TRELLIS_GUARD("reportInteractionTransportationType",
                self(user).federate().reportInteractionTransportationType(
                    FederateHandleFriend::create(federate), InteractionClassHandleFriend::create(interaction),
                    transport(transportation)))
}

// Trellis's own callback: made to federate ambassadors that are also ReliableLossListeners.
void reliableLost(void* user, uint64_t sender, uint64_t count) {
  trellis::ReliableLossListener* listener = dynamic_cast<trellis::ReliableLossListener*>(&self(user).federate());
  if (listener == 0) return;
  bool const known = sender != TRELLIS_UNKNOWN_FEDERATE;
  FederateHandle const handle = known ? FederateHandleFriend::create(sender) : FederateHandle();
  TRELLIS_GUARD("reliableMessagesLost", listener->reliableMessagesLost(handle, known, count))
}

void inScope(void* user, uint64_t object, uint64_t const* a, size_t n) {
  TRELLIS_GUARD("attributesInScope",
                self(user).federate().attributesInScope(ObjectInstanceHandleFriend::create(object),
                                                        attributeSet(a, n)))
}

void outOfScope(void* user, uint64_t object, uint64_t const* a, size_t n) {
  TRELLIS_GUARD("attributesOutOfScope",
                self(user).federate().attributesOutOfScope(ObjectInstanceHandleFriend::create(object),
                                                           attributeSet(a, n)))
}

void requestRetraction(void* user, uint64_t handle) {
  TRELLIS_GUARD("requestRetraction",
                self(user).federate().requestRetraction(MessageRetractionHandleFriend::create(handle)))
}

void initiateSave(void* user, char const* label, TrellisTime const* time) {
  if (time) {
    TRELLIS_GUARD("initiateFederateSave",
                  self(user).federate().initiateFederateSave(fromUtf8(label), self(user).time(*time)))
  } else {
    TRELLIS_GUARD("initiateFederateSave", self(user).federate().initiateFederateSave(fromUtf8(label)))
  }
}

void saved(void* user) { TRELLIS_GUARD("federationSaved", self(user).federate().federationSaved()) }

void notSaved(void* user, int32_t reason) {
  TRELLIS_GUARD("federationNotSaved",
                self(user).federate().federationNotSaved(static_cast<SaveFailureReason>(reason)))
}

void saveStatus(void* user, uint64_t const* federates, int32_t const* statuses, size_t count) {
  FederateHandleSaveStatusPairVector list;
  for (size_t i = 0; i < count; ++i)
    list.push_back(FederateHandleSaveStatusPair(FederateHandleFriend::create(federates[i]),
                                                static_cast<SaveStatus>(statuses[i])));
  TRELLIS_GUARD("federationSaveStatusResponse", self(user).federate().federationSaveStatusResponse(list))
}

void restoreSucceeded(void* user, char const* label) {
  TRELLIS_GUARD("requestFederationRestoreSucceeded",
                self(user).federate().requestFederationRestoreSucceeded(fromUtf8(label)))
}

void restoreFailed(void* user, char const* label) {
  TRELLIS_GUARD("requestFederationRestoreFailed",
                self(user).federate().requestFederationRestoreFailed(fromUtf8(label)))
}

void restoreBegun(void* user) {
  TRELLIS_GUARD("federationRestoreBegun", self(user).federate().federationRestoreBegun())
}

void initiateRestore(void* user, char const* label, char const* name, uint64_t handle) {
  TRELLIS_GUARD("initiateFederateRestore",
                self(user).federate().initiateFederateRestore(fromUtf8(label), fromUtf8(name),
                                                              FederateHandleFriend::create(handle)))
}

void restored(void* user) { TRELLIS_GUARD("federationRestored", self(user).federate().federationRestored()) }

void notRestored(void* user, int32_t reason) {
  TRELLIS_GUARD("federationNotRestored",
                self(user).federate().federationNotRestored(static_cast<RestoreFailureReason>(reason)))
}

// Handles do not change at a restore (Trellis restores the federates of the save, by
// handle): the pre- and post-restore handles are the same.
void restoreStatus(void* user, uint64_t const* federates, int32_t const* statuses, size_t count) {
  FederateRestoreStatusVector list;
  for (size_t i = 0; i < count; ++i) {
    FederateHandle const handle = FederateHandleFriend::create(federates[i]);
    list.push_back(FederateRestoreStatus(handle, handle, static_cast<RestoreStatus>(statuses[i])));
  }
  TRELLIS_GUARD("federationRestoreStatusResponse",
                self(user).federate().federationRestoreStatusResponse(list))
}

#undef TRELLIS_GUARD

}  // namespace

TrellisCallbacks callbackTable(Ambassador* ambassador) {
  TrellisCallbacks table = TrellisCallbacks();
  table.user = ambassador;
  table.connection_lost = connectionLost;
  table.report_federation_executions = reportFederationExecutions;
  table.synchronization_point_registration_succeeded = syncSucceeded;
  table.synchronization_point_registration_failed = syncFailed;
  table.announce_synchronization_point = announce;
  table.federation_synchronized = synchronized;
  table.start_registration_for_object_class = startRegistration;
  table.stop_registration_for_object_class = stopRegistration;
  table.turn_interactions_on = interactionsOn;
  table.turn_interactions_off = interactionsOff;
  table.object_instance_name_reservation_succeeded = nameReserved;
  table.object_instance_name_reservation_failed = nameRefused;
  table.multiple_object_instance_name_reservation_succeeded = namesReserved;
  table.multiple_object_instance_name_reservation_failed = namesRefused;
  table.discover_object_instance = discover;
  table.reflect_attribute_values = reflect;
  table.receive_interaction = receive;
  table.remove_object_instance = remove;
  table.provide_attribute_value_update = provide;
  table.turn_updates_on_for_object_instance = updatesOn;
  table.turn_updates_off_for_object_instance = updatesOff;
  table.request_attribute_ownership_assumption = assumption;
  table.request_divestiture_confirmation = divestitureConfirmation;
  table.attribute_ownership_acquisition_notification = acquisitionNotification;
  table.attribute_ownership_unavailable = unavailable;
  table.request_attribute_ownership_release = releaseRequest;
  table.confirm_attribute_ownership_acquisition_cancellation = cancellationConfirmed;
  table.inform_attribute_ownership = informOwnership;
  table.attribute_is_not_owned = notOwned;
  table.attribute_is_owned_by_rti = ownedByRti;
  table.time_regulation_enabled = regulationEnabled;
  table.time_constrained_enabled = constrainedEnabled;
  table.time_advance_grant = grant;
  table.confirm_attribute_transportation_type_change = attributeTransportChanged;
  table.report_attribute_transportation_type = attributeTransport;
  table.confirm_interaction_transportation_type_change = interactionTransportChanged;
  table.report_interaction_transportation_type = interactionTransport;
  table.reliable_messages_lost = reliableLost;
  table.attributes_in_scope = inScope;
  table.attributes_out_of_scope = outOfScope;
  table.request_retraction = requestRetraction;
  table.initiate_federate_save = initiateSave;
  table.federation_saved = saved;
  table.federation_not_saved = notSaved;
  table.federation_save_status_response = saveStatus;
  table.request_federation_restore_succeeded = restoreSucceeded;
  table.request_federation_restore_failed = restoreFailed;
  table.federation_restore_begun = restoreBegun;
  table.initiate_federate_restore = initiateRestore;
  table.federation_restored = restored;
  table.federation_not_restored = notRestored;
  table.federation_restore_status_response = restoreStatus;
  return table;
}

}  // namespace trellis_cpp
