// The binary interface of IEEE 1516.1-2010's C++ API, pinned: a federate compiled against
// another RTI's copy of the standard's headers and linked against Trellis must link (same
// mangled names) and run (same virtual-table slots, same record layouts).
//
// - Every member function is named with the exact pointer-to-member type of the standard's
//   declaration (return, parameters, const): a signature that drifts fails to compile.
// - Virtual functions are listed in the standard's declaration order and their slots, read
//   from the pointers (Itanium C++ ABI), must follow one another: a reordering fails.
// - Constructors and free functions are looked up by their mangled names in the loaded
//   libraries (dlsym): HLAfloat64Time(double const&) is _ZN8rti1516e14HLAfloat64TimeC1ERKd.
// - The records handed to callbacks by value have the standard's member order.
//
// This program links librti1516e alone (see CMakeLists.txt): everything the standard marks
// RTI_EXPORT is there, libfedtime1516e holds only LogicalTimeFactoryFactory.
#include <RTI/RTI1516.h>

#include <dlfcn.h>

#include <cstddef>
#include <cstring>
#include <string>

#include "check.h"

using namespace rti1516e;

namespace {

typedef std::wstring W;
typedef std::vector<std::wstring> Names;
typedef AttributeHandleSetRegionHandleSetPairVector Regions;

// The virtual-table slot a pointer to a virtual member function designates, or -1 for a
// non-virtual function. Itanium C++ ABI 2.3: {ptr, adj}; ptr is 1 + the slot's byte offset
// (on ARM the virtual flag is the low bit of adj instead, and ptr the offset).
template <typename Pointer>
long slotOf(Pointer pointer) {
  struct Representation {
    std::size_t ptr;
    std::ptrdiff_t adj;
  } r;
  static_assert(sizeof(Pointer) == sizeof(Representation), "Itanium pointer to member");
  std::memcpy(&r, &pointer, sizeof r);
#if defined(__arm__) || defined(__aarch64__)
  if ((r.adj & 1) == 0) return -1;
  return static_cast<long>(r.ptr / sizeof(void*));
#else
  if ((r.ptr & 1) == 0) return -1;
  return static_cast<long>((r.ptr - 1) / sizeof(void*));
#endif
}

// Checks that the virtual functions given in order occupy consecutive slots, the first at
// `first` (2 after a leading virtual destructor, which takes two slots).
class Slots {
 public:
  Slots(char const* className, long first) : _class(className), _expected(first) {}
  template <typename Pointer>
  void next(Pointer pointer, char const* name) {
    long const slot = slotOf(pointer);
    if (slot != _expected) {
      std::ostringstream what;
      what << _class << "::" << name << " is in virtual-table slot " << slot << ", the standard's order puts it in "
           << _expected;
      check::fail(__FILE__, __LINE__, what.str());
    }
    _expected = slot + 1;
  }

 private:
  char const* _class;
  long _expected;
};

// One virtual function: its exact type (Ret (C::*)Params [const]) and its place in order.
#define SLOT(Ret, name, Params) slots.next(static_cast<Ret(C::*) Params>(&C::name), #name)
#define CSLOT(Ret, name, Params) slots.next(static_cast<Ret(C::*) Params const>(&C::name), #name)
// One non-virtual member function of the exact type.
#define SIG(Ret, name, Params) CHECK(slotOf(static_cast<Ret(C::*) Params>(&C::name)) == -1)
#define CSIG(Ret, name, Params) CHECK(slotOf(static_cast<Ret(C::*) Params const>(&C::name)) == -1)

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

void rtiAmbassador() {
  typedef RTIambassador C;
  Slots slots("RTIambassador", 2);
  SLOT(void, connect, (FederateAmbassador&, CallbackModel, W const&));
  SLOT(void, disconnect, ());
  SLOT(void, createFederationExecution, (W const&, W const&, W const&));
  SLOT(void, createFederationExecution, (W const&, Names const&, W const&));
  SLOT(void, createFederationExecutionWithMIM, (W const&, Names const&, W const&, W const&));
  SLOT(void, destroyFederationExecution, (W const&));
  SLOT(void, listFederationExecutions, ());
  SLOT(FederateHandle, joinFederationExecution, (W const&, W const&, Names const&));
  SLOT(FederateHandle, joinFederationExecution, (W const&, W const&, W const&, Names const&));
  SLOT(void, resignFederationExecution, (ResignAction));
  SLOT(void, registerFederationSynchronizationPoint, (W const&, VariableLengthData const&));
  SLOT(void, registerFederationSynchronizationPoint,
       (W const&, VariableLengthData const&, FederateHandleSet const&));
  SLOT(void, synchronizationPointAchieved, (W const&, bool));
  SLOT(void, requestFederationSave, (W const&));
  SLOT(void, requestFederationSave, (W const&, LogicalTime const&));
  SLOT(void, federateSaveBegun, ());
  SLOT(void, federateSaveComplete, ());
  SLOT(void, federateSaveNotComplete, ());
  SLOT(void, abortFederationSave, ());
  SLOT(void, queryFederationSaveStatus, ());
  SLOT(void, requestFederationRestore, (W const&));
  SLOT(void, federateRestoreComplete, ());
  SLOT(void, federateRestoreNotComplete, ());
  SLOT(void, abortFederationRestore, ());
  SLOT(void, queryFederationRestoreStatus, ());
  SLOT(void, publishObjectClassAttributes, (ObjectClassHandle, AttributeHandleSet const&));
  SLOT(void, unpublishObjectClass, (ObjectClassHandle));
  SLOT(void, unpublishObjectClassAttributes, (ObjectClassHandle, AttributeHandleSet const&));
  SLOT(void, publishInteractionClass, (InteractionClassHandle));
  SLOT(void, unpublishInteractionClass, (InteractionClassHandle));
  SLOT(void, subscribeObjectClassAttributes, (ObjectClassHandle, AttributeHandleSet const&, bool, W const&));
  SLOT(void, unsubscribeObjectClass, (ObjectClassHandle));
  SLOT(void, unsubscribeObjectClassAttributes, (ObjectClassHandle, AttributeHandleSet const&));
  SLOT(void, subscribeInteractionClass, (InteractionClassHandle, bool));
  SLOT(void, unsubscribeInteractionClass, (InteractionClassHandle));
  SLOT(void, reserveObjectInstanceName, (W const&));
  SLOT(void, releaseObjectInstanceName, (W const&));
  SLOT(void, reserveMultipleObjectInstanceName, (std::set<W> const&));
  SLOT(void, releaseMultipleObjectInstanceName, (std::set<W> const&));
  SLOT(ObjectInstanceHandle, registerObjectInstance, (ObjectClassHandle));
  SLOT(ObjectInstanceHandle, registerObjectInstance, (ObjectClassHandle, W const&));
  SLOT(void, updateAttributeValues,
       (ObjectInstanceHandle, AttributeHandleValueMap const&, VariableLengthData const&));
  SLOT(MessageRetractionHandle, updateAttributeValues,
       (ObjectInstanceHandle, AttributeHandleValueMap const&, VariableLengthData const&, LogicalTime const&));
  SLOT(void, sendInteraction, (InteractionClassHandle, ParameterHandleValueMap const&, VariableLengthData const&));
  SLOT(MessageRetractionHandle, sendInteraction,
       (InteractionClassHandle, ParameterHandleValueMap const&, VariableLengthData const&, LogicalTime const&));
  SLOT(void, deleteObjectInstance, (ObjectInstanceHandle, VariableLengthData const&));
  SLOT(MessageRetractionHandle, deleteObjectInstance,
       (ObjectInstanceHandle, VariableLengthData const&, LogicalTime const&));
  SLOT(void, localDeleteObjectInstance, (ObjectInstanceHandle));
  SLOT(void, requestAttributeValueUpdate,
       (ObjectInstanceHandle, AttributeHandleSet const&, VariableLengthData const&));
  SLOT(void, requestAttributeValueUpdate, (ObjectClassHandle, AttributeHandleSet const&, VariableLengthData const&));
  SLOT(void, requestAttributeTransportationTypeChange,
       (ObjectInstanceHandle, AttributeHandleSet const&, TransportationType));
  SLOT(void, queryAttributeTransportationType, (ObjectInstanceHandle, AttributeHandle));
  SLOT(void, requestInteractionTransportationTypeChange, (InteractionClassHandle, TransportationType));
  SLOT(void, queryInteractionTransportationType, (FederateHandle, InteractionClassHandle));
  SLOT(void, unconditionalAttributeOwnershipDivestiture, (ObjectInstanceHandle, AttributeHandleSet const&));
  SLOT(void, negotiatedAttributeOwnershipDivestiture,
       (ObjectInstanceHandle, AttributeHandleSet const&, VariableLengthData const&));
  SLOT(void, confirmDivestiture, (ObjectInstanceHandle, AttributeHandleSet const&, VariableLengthData const&));
  SLOT(void, attributeOwnershipAcquisition,
       (ObjectInstanceHandle, AttributeHandleSet const&, VariableLengthData const&));
  SLOT(void, attributeOwnershipAcquisitionIfAvailable, (ObjectInstanceHandle, AttributeHandleSet const&));
  SLOT(void, attributeOwnershipReleaseDenied, (ObjectInstanceHandle, AttributeHandleSet const&));
  SLOT(void, attributeOwnershipDivestitureIfWanted,
       (ObjectInstanceHandle, AttributeHandleSet const&, AttributeHandleSet&));
  SLOT(void, cancelNegotiatedAttributeOwnershipDivestiture, (ObjectInstanceHandle, AttributeHandleSet const&));
  SLOT(void, cancelAttributeOwnershipAcquisition, (ObjectInstanceHandle, AttributeHandleSet const&));
  SLOT(void, queryAttributeOwnership, (ObjectInstanceHandle, AttributeHandle));
  SLOT(bool, isAttributeOwnedByFederate, (ObjectInstanceHandle, AttributeHandle));
  SLOT(void, enableTimeRegulation, (LogicalTimeInterval const&));
  SLOT(void, disableTimeRegulation, ());
  SLOT(void, enableTimeConstrained, ());
  SLOT(void, disableTimeConstrained, ());
  SLOT(void, timeAdvanceRequest, (LogicalTime const&));
  SLOT(void, timeAdvanceRequestAvailable, (LogicalTime const&));
  SLOT(void, nextMessageRequest, (LogicalTime const&));
  SLOT(void, nextMessageRequestAvailable, (LogicalTime const&));
  SLOT(void, flushQueueRequest, (LogicalTime const&));
  SLOT(void, enableAsynchronousDelivery, ());
  SLOT(void, disableAsynchronousDelivery, ());
  SLOT(bool, queryGALT, (LogicalTime&));
  SLOT(void, queryLogicalTime, (LogicalTime&));
  SLOT(bool, queryLITS, (LogicalTime&));
  SLOT(void, modifyLookahead, (LogicalTimeInterval const&));
  SLOT(void, queryLookahead, (LogicalTimeInterval&));
  SLOT(void, retract, (MessageRetractionHandle));
  SLOT(void, changeAttributeOrderType, (ObjectInstanceHandle, AttributeHandleSet const&, OrderType));
  SLOT(void, changeInteractionOrderType, (InteractionClassHandle, OrderType));
  SLOT(RegionHandle, createRegion, (DimensionHandleSet const&));
  SLOT(void, commitRegionModifications, (RegionHandleSet const&));
  SLOT(void, deleteRegion, (RegionHandle const&));
  SLOT(ObjectInstanceHandle, registerObjectInstanceWithRegions, (ObjectClassHandle, Regions const&));
  SLOT(ObjectInstanceHandle, registerObjectInstanceWithRegions, (ObjectClassHandle, Regions const&, W const&));
  SLOT(void, associateRegionsForUpdates, (ObjectInstanceHandle, Regions const&));
  SLOT(void, unassociateRegionsForUpdates, (ObjectInstanceHandle, Regions const&));
  SLOT(void, subscribeObjectClassAttributesWithRegions, (ObjectClassHandle, Regions const&, bool, W const&));
  SLOT(void, unsubscribeObjectClassAttributesWithRegions, (ObjectClassHandle, Regions const&));
  SLOT(void, subscribeInteractionClassWithRegions, (InteractionClassHandle, RegionHandleSet const&, bool));
  SLOT(void, unsubscribeInteractionClassWithRegions, (InteractionClassHandle, RegionHandleSet const&));
  SLOT(void, sendInteractionWithRegions,
       (InteractionClassHandle, ParameterHandleValueMap const&, RegionHandleSet const&, VariableLengthData const&));
  SLOT(MessageRetractionHandle, sendInteractionWithRegions,
       (InteractionClassHandle, ParameterHandleValueMap const&, RegionHandleSet const&, VariableLengthData const&,
        LogicalTime const&));
  SLOT(void, requestAttributeValueUpdateWithRegions, (ObjectClassHandle, Regions const&, VariableLengthData const&));
  SLOT(ResignAction, getAutomaticResignDirective, ());
  SLOT(void, setAutomaticResignDirective, (ResignAction));
  SLOT(FederateHandle, getFederateHandle, (W const&));
  SLOT(W, getFederateName, (FederateHandle));
  SLOT(ObjectClassHandle, getObjectClassHandle, (W const&));
  SLOT(W, getObjectClassName, (ObjectClassHandle));
  SLOT(ObjectClassHandle, getKnownObjectClassHandle, (ObjectInstanceHandle));
  SLOT(ObjectInstanceHandle, getObjectInstanceHandle, (W const&));
  SLOT(W, getObjectInstanceName, (ObjectInstanceHandle));
  SLOT(AttributeHandle, getAttributeHandle, (ObjectClassHandle, W const&));
  SLOT(W, getAttributeName, (ObjectClassHandle, AttributeHandle));
  SLOT(double, getUpdateRateValue, (W const&));
  SLOT(double, getUpdateRateValueForAttribute, (ObjectInstanceHandle, AttributeHandle));
  SLOT(InteractionClassHandle, getInteractionClassHandle, (W const&));
  SLOT(W, getInteractionClassName, (InteractionClassHandle));
  SLOT(ParameterHandle, getParameterHandle, (InteractionClassHandle, W const&));
  SLOT(W, getParameterName, (InteractionClassHandle, ParameterHandle));
  SLOT(OrderType, getOrderType, (W const&));
  SLOT(W, getOrderName, (OrderType));
  SLOT(TransportationType, getTransportationType, (W const&));
  SLOT(W, getTransportationName, (TransportationType));
  SLOT(DimensionHandleSet, getAvailableDimensionsForClassAttribute, (ObjectClassHandle, AttributeHandle));
  SLOT(DimensionHandleSet, getAvailableDimensionsForInteractionClass, (InteractionClassHandle));
  SLOT(DimensionHandle, getDimensionHandle, (W const&));
  SLOT(W, getDimensionName, (DimensionHandle));
  SLOT(unsigned long, getDimensionUpperBound, (DimensionHandle));
  SLOT(DimensionHandleSet, getDimensionHandleSet, (RegionHandle));
  SLOT(RangeBounds, getRangeBounds, (RegionHandle, DimensionHandle));
  SLOT(void, setRangeBounds, (RegionHandle, DimensionHandle, RangeBounds const&));
  SLOT(unsigned long, normalizeFederateHandle, (FederateHandle));
  SLOT(unsigned long, normalizeServiceGroup, (ServiceGroup));
  SLOT(void, enableObjectClassRelevanceAdvisorySwitch, ());
  SLOT(void, disableObjectClassRelevanceAdvisorySwitch, ());
  SLOT(void, enableAttributeRelevanceAdvisorySwitch, ());
  SLOT(void, disableAttributeRelevanceAdvisorySwitch, ());
  SLOT(void, enableAttributeScopeAdvisorySwitch, ());
  SLOT(void, disableAttributeScopeAdvisorySwitch, ());
  SLOT(void, enableInteractionRelevanceAdvisorySwitch, ());
  SLOT(void, disableInteractionRelevanceAdvisorySwitch, ());
  SLOT(bool, evokeCallback, (double));
  SLOT(bool, evokeMultipleCallbacks, (double, double));
  SLOT(void, enableCallbacks, ());
  SLOT(void, disableCallbacks, ());
  CSLOT(RTI_UNIQUE_PTR<LogicalTimeFactory>, getTimeFactory, ());
  CSLOT(FederateHandle, decodeFederateHandle, (VariableLengthData const&));
  CSLOT(ObjectClassHandle, decodeObjectClassHandle, (VariableLengthData const&));
  CSLOT(InteractionClassHandle, decodeInteractionClassHandle, (VariableLengthData const&));
  CSLOT(ObjectInstanceHandle, decodeObjectInstanceHandle, (VariableLengthData const&));
  CSLOT(AttributeHandle, decodeAttributeHandle, (VariableLengthData const&));
  CSLOT(ParameterHandle, decodeParameterHandle, (VariableLengthData const&));
  CSLOT(DimensionHandle, decodeDimensionHandle, (VariableLengthData const&));
  CSLOT(MessageRetractionHandle, decodeMessageRetractionHandle, (VariableLengthData const&));
  CSLOT(RegionHandle, decodeRegionHandle, (VariableLengthData const&));
}

void federateAmbassador() {
  typedef FederateAmbassador C;
  typedef ObjectInstanceHandle O;
  typedef AttributeHandleSet const& A;
  typedef VariableLengthData const& V;
  Slots slots("FederateAmbassador", 2);
  SLOT(void, connectionLost, (W const&));
  SLOT(void, reportFederationExecutions, (FederationExecutionInformationVector const&));
  SLOT(void, synchronizationPointRegistrationSucceeded, (W const&));
  SLOT(void, synchronizationPointRegistrationFailed, (W const&, SynchronizationPointFailureReason));
  SLOT(void, announceSynchronizationPoint, (W const&, V));
  SLOT(void, federationSynchronized, (W const&, FederateHandleSet const&));
  SLOT(void, initiateFederateSave, (W const&));
  SLOT(void, initiateFederateSave, (W const&, LogicalTime const&));
  SLOT(void, federationSaved, ());
  SLOT(void, federationNotSaved, (SaveFailureReason));
  SLOT(void, federationSaveStatusResponse, (FederateHandleSaveStatusPairVector const&));
  SLOT(void, requestFederationRestoreSucceeded, (W const&));
  SLOT(void, requestFederationRestoreFailed, (W const&));
  SLOT(void, federationRestoreBegun, ());
  SLOT(void, initiateFederateRestore, (W const&, W const&, FederateHandle));
  SLOT(void, federationRestored, ());
  SLOT(void, federationNotRestored, (RestoreFailureReason));
  SLOT(void, federationRestoreStatusResponse, (FederateRestoreStatusVector const&));
  SLOT(void, startRegistrationForObjectClass, (ObjectClassHandle));
  SLOT(void, stopRegistrationForObjectClass, (ObjectClassHandle));
  SLOT(void, turnInteractionsOn, (InteractionClassHandle));
  SLOT(void, turnInteractionsOff, (InteractionClassHandle));
  SLOT(void, objectInstanceNameReservationSucceeded, (W const&));
  SLOT(void, objectInstanceNameReservationFailed, (W const&));
  SLOT(void, multipleObjectInstanceNameReservationSucceeded, (std::set<W> const&));
  SLOT(void, multipleObjectInstanceNameReservationFailed, (std::set<W> const&));
  SLOT(void, discoverObjectInstance, (O, ObjectClassHandle, W const&));
  SLOT(void, discoverObjectInstance, (O, ObjectClassHandle, W const&, FederateHandle));
  SLOT(void, reflectAttributeValues,
       (O, AttributeHandleValueMap const&, V, OrderType, TransportationType, SupplementalReflectInfo));
  SLOT(void, reflectAttributeValues, (O, AttributeHandleValueMap const&, V, OrderType, TransportationType,
                                      LogicalTime const&, OrderType, SupplementalReflectInfo));
  SLOT(void, reflectAttributeValues, (O, AttributeHandleValueMap const&, V, OrderType, TransportationType,
                                      LogicalTime const&, OrderType, MessageRetractionHandle, SupplementalReflectInfo));
  SLOT(void, receiveInteraction, (InteractionClassHandle, ParameterHandleValueMap const&, V, OrderType,
                                  TransportationType, SupplementalReceiveInfo));
  SLOT(void, receiveInteraction, (InteractionClassHandle, ParameterHandleValueMap const&, V, OrderType,
                                  TransportationType, LogicalTime const&, OrderType, SupplementalReceiveInfo));
  SLOT(void, receiveInteraction,
       (InteractionClassHandle, ParameterHandleValueMap const&, V, OrderType, TransportationType,
        LogicalTime const&, OrderType, MessageRetractionHandle, SupplementalReceiveInfo));
  SLOT(void, removeObjectInstance, (O, V, OrderType, SupplementalRemoveInfo));
  SLOT(void, removeObjectInstance, (O, V, OrderType, LogicalTime const&, OrderType, SupplementalRemoveInfo));
  SLOT(void, removeObjectInstance,
       (O, V, OrderType, LogicalTime const&, OrderType, MessageRetractionHandle, SupplementalRemoveInfo));
  SLOT(void, attributesInScope, (O, A));
  SLOT(void, attributesOutOfScope, (O, A));
  SLOT(void, provideAttributeValueUpdate, (O, A, V));
  SLOT(void, turnUpdatesOnForObjectInstance, (O, A));
  SLOT(void, turnUpdatesOnForObjectInstance, (O, A, W const&));
  SLOT(void, turnUpdatesOffForObjectInstance, (O, A));
  SLOT(void, confirmAttributeTransportationTypeChange, (O, AttributeHandleSet, TransportationType));
  SLOT(void, reportAttributeTransportationType, (O, AttributeHandle, TransportationType));
  SLOT(void, confirmInteractionTransportationTypeChange, (InteractionClassHandle, TransportationType));
  SLOT(void, reportInteractionTransportationType, (FederateHandle, InteractionClassHandle, TransportationType));
  SLOT(void, requestAttributeOwnershipAssumption, (O, A, V));
  SLOT(void, requestDivestitureConfirmation, (O, A));
  SLOT(void, attributeOwnershipAcquisitionNotification, (O, A, V));
  SLOT(void, attributeOwnershipUnavailable, (O, A));
  SLOT(void, requestAttributeOwnershipRelease, (O, A, V));
  SLOT(void, confirmAttributeOwnershipAcquisitionCancellation, (O, A));
  SLOT(void, informAttributeOwnership, (O, AttributeHandle, FederateHandle));
  SLOT(void, attributeIsNotOwned, (O, AttributeHandle));
  SLOT(void, attributeIsOwnedByRTI, (O, AttributeHandle));
  SLOT(void, timeRegulationEnabled, (LogicalTime const&));
  SLOT(void, timeConstrainedEnabled, (LogicalTime const&));
  SLOT(void, timeAdvanceGrant, (LogicalTime const&));
  SLOT(void, requestRetraction, (MessageRetractionHandle));
}

// LogicalTime's functions in the standard's order, through class C (LogicalTime or a time).
#define LOGICAL_TIME_SLOTS(Time)                                                \
  SLOT(void, setInitial, ());                                                   \
  CSLOT(bool, isInitial, ());                                                   \
  SLOT(void, setFinal, ());                                                     \
  CSLOT(bool, isFinal, ());                                                     \
  SLOT(LogicalTime&, operator=, (LogicalTime const&));                          \
  SLOT(LogicalTime&, operator+=, (LogicalTimeInterval const&));                 \
  SLOT(LogicalTime&, operator-=, (LogicalTimeInterval const&));                 \
  CSLOT(bool, operator>, (LogicalTime const&));                                 \
  CSLOT(bool, operator<, (LogicalTime const&));                                 \
  CSLOT(bool, operator==, (LogicalTime const&));                                \
  CSLOT(bool, operator>=, (LogicalTime const&));                                \
  CSLOT(bool, operator<=, (LogicalTime const&));                                \
  CSLOT(VariableLengthData, encode, ());                                        \
  CSLOT(size_t, encode, (void*, size_t));                                       \
  CSLOT(size_t, encodedLength, ());                                             \
  SLOT(void, decode, (VariableLengthData const&));                              \
  SLOT(void, decode, (void*, size_t));                                          \
  CSLOT(W, toString, ());                                                       \
  CSLOT(W, implementationName, ())

#define LOGICAL_TIME_INTERVAL_SLOTS                                             \
  SLOT(void, setZero, ());                                                      \
  CSLOT(bool, isZero, ());                                                      \
  SLOT(void, setEpsilon, ());                                                   \
  CSLOT(bool, isEpsilon, ());                                                   \
  SLOT(LogicalTimeInterval&, operator=, (LogicalTimeInterval const&));          \
  SLOT(LogicalTimeInterval&, operator+=, (LogicalTimeInterval const&));         \
  SLOT(LogicalTimeInterval&, operator-=, (LogicalTimeInterval const&));         \
  CSLOT(bool, operator>, (LogicalTimeInterval const&));                         \
  CSLOT(bool, operator<, (LogicalTimeInterval const&));                         \
  CSLOT(bool, operator==, (LogicalTimeInterval const&));                        \
  CSLOT(bool, operator>=, (LogicalTimeInterval const&));                        \
  CSLOT(bool, operator<=, (LogicalTimeInterval const&));                        \
  SLOT(void, setToDifference, (LogicalTime const&, LogicalTime const&));        \
  CSLOT(VariableLengthData, encode, ());                                        \
  CSLOT(size_t, encode, (void*, size_t));                                       \
  CSLOT(size_t, encodedLength, ());                                             \
  SLOT(void, decode, (VariableLengthData const&));                              \
  SLOT(void, decode, (void*, size_t));                                          \
  CSLOT(W, toString, ());                                                       \
  CSLOT(W, implementationName, ())

#define LOGICAL_TIME_FACTORY_SLOTS                                                    \
  SLOT(RTI_UNIQUE_PTR<LogicalTime>, makeInitial, ());                                 \
  SLOT(RTI_UNIQUE_PTR<LogicalTime>, makeFinal, ());                                   \
  SLOT(RTI_UNIQUE_PTR<LogicalTimeInterval>, makeZero, ());                            \
  SLOT(RTI_UNIQUE_PTR<LogicalTimeInterval>, makeEpsilon, ());                         \
  SLOT(RTI_UNIQUE_PTR<LogicalTime>, decodeLogicalTime, (VariableLengthData const&));  \
  SLOT(RTI_UNIQUE_PTR<LogicalTime>, decodeLogicalTime, (void*, size_t));              \
  SLOT(RTI_UNIQUE_PTR<LogicalTimeInterval>, decodeLogicalTimeInterval, (VariableLengthData const&)); \
  SLOT(RTI_UNIQUE_PTR<LogicalTimeInterval>, decodeLogicalTimeInterval, (void*, size_t)); \
  CSLOT(W, getName, ())

template <typename Time, typename Interval, typename Factory, typename Value>
void timeTypes(char const* name) {
  {
    typedef Time C;
    Slots slots(name, 2);
    LOGICAL_TIME_SLOTS(C);
    CSLOT(Value, getTime, ());
    SLOT(void, setTime, (Value));
    SLOT(Time&, operator=, (Time const&));
    CHECK(slotOf(static_cast<Value (C::*)() const>(&C::operator Value)) == -1);
  }
  {
    typedef Interval C;
    Slots slots(name, 2);
    LOGICAL_TIME_INTERVAL_SLOTS;
    CSLOT(Value, getInterval, ());
    SLOT(void, setInterval, (Value));
    SLOT(Interval&, operator=, (Interval const&));
  }
  {
    typedef Factory C;
    Slots slots(name, 2);
    LOGICAL_TIME_FACTORY_SLOTS;
    SLOT(RTI_UNIQUE_PTR<Time>, makeLogicalTime, (Value));
    SLOT(RTI_UNIQUE_PTR<Interval>, makeLogicalTimeInterval, (Value));
  }
}

void logicalTimes() {
  {
    typedef LogicalTime C;
    Slots slots("LogicalTime", 2);
    LOGICAL_TIME_SLOTS(C);
  }
  {
    typedef LogicalTimeInterval C;
    Slots slots("LogicalTimeInterval", 2);
    LOGICAL_TIME_INTERVAL_SLOTS;
  }
  {
    typedef LogicalTimeFactory C;
    Slots slots("LogicalTimeFactory", 2);
    LOGICAL_TIME_FACTORY_SLOTS;
  }
  timeTypes<HLAinteger64Time, HLAinteger64Interval, HLAinteger64TimeFactory, Integer64>("HLAinteger64");
  timeTypes<HLAfloat64Time, HLAfloat64Interval, HLAfloat64TimeFactory, double>("HLAfloat64");
  RTI_UNIQUE_PTR<LogicalTimeFactory> (*byName)(W const&) = &HLAlogicalTimeFactoryFactory::makeLogicalTimeFactory;
  CHECK(byName != 0);
  CHECK(HLAinteger64TimeName == L"HLAinteger64Time" && HLAfloat64TimeName == L"HLAfloat64Time");
}

// DataElement's functions in the standard's order.
#define DATA_ELEMENT_SLOTS                                          \
  CSLOT(RTI_UNIQUE_PTR<DataElement>, clone, ());                    \
  CSLOT(VariableLengthData, encode, ());                            \
  CSLOT(void, encode, (VariableLengthData&));                       \
  CSLOT(void, encodeInto, (std::vector<Octet>&));                   \
  SLOT(void, decode, (VariableLengthData const&));                  \
  SLOT(size_t, decodeFrom, (std::vector<Octet> const&, size_t));    \
  CSLOT(size_t, getEncodedLength, ());                              \
  CSLOT(unsigned int, getOctetBoundary, ());                        \
  CSLOT(bool, isSameTypeAs, (DataElement const&));                  \
  CSLOT(Integer64, hash, ())

template <typename Encoder, typename Value>
void basicElement(char const* name) {
  typedef Encoder C;
  Slots slots(name, 2);
  DATA_ELEMENT_SLOTS;
  SLOT(void, setDataPointer, (Value*));
  SLOT(void, set, (Value));
  CSLOT(Value, get, ());
  SIG(Encoder&, operator=, (Encoder const&));
  SIG(Encoder&, operator=, (Value));
  CHECK(slotOf(static_cast<Value (C::*)() const>(&C::operator Value)) == -1);
}

void encodingHelpers() {
  {
    typedef DataElement C;
    Slots slots("DataElement", 2);
    DATA_ELEMENT_SLOTS;
  }
  basicElement<HLAASCIIchar, char>("HLAASCIIchar");
  basicElement<HLAASCIIstring, std::string>("HLAASCIIstring");
  basicElement<HLAboolean, bool>("HLAboolean");
  basicElement<HLAbyte, Octet>("HLAbyte");
  basicElement<HLAfloat32BE, float>("HLAfloat32BE");
  basicElement<HLAfloat32LE, float>("HLAfloat32LE");
  basicElement<HLAfloat64BE, double>("HLAfloat64BE");
  basicElement<HLAfloat64LE, double>("HLAfloat64LE");
  basicElement<HLAinteger16BE, Integer16>("HLAinteger16BE");
  basicElement<HLAinteger16LE, Integer16>("HLAinteger16LE");
  basicElement<HLAinteger32BE, Integer32>("HLAinteger32BE");
  basicElement<HLAinteger32LE, Integer32>("HLAinteger32LE");
  basicElement<HLAinteger64BE, Integer64>("HLAinteger64BE");
  basicElement<HLAinteger64LE, Integer64>("HLAinteger64LE");
  basicElement<HLAoctet, Octet>("HLAoctet");
  basicElement<HLAoctetPairBE, OctetPair>("HLAoctetPairBE");
  basicElement<HLAoctetPairLE, OctetPair>("HLAoctetPairLE");
  basicElement<HLAunicodeChar, wchar_t>("HLAunicodeChar");
  basicElement<HLAunicodeString, std::wstring>("HLAunicodeString");
  {
    typedef HLAfixedArray C;
    Slots slots("HLAfixedArray", 2);
    DATA_ELEMENT_SLOTS;
    CSLOT(bool, hasPrototypeSameTypeAs, (DataElement const&));
    CSLOT(size_t, size, ());
    SLOT(void, set, (size_t, DataElement const&));
    SLOT(void, setElementPointer, (size_t, DataElement*));
    CSLOT(DataElement const&, get, (size_t));
    CSIG(DataElement const&, operator[], (size_t));
  }
  {
    typedef HLAfixedRecord C;
    Slots slots("HLAfixedRecord", 2);
    DATA_ELEMENT_SLOTS;
    CSLOT(bool, hasElementSameTypeAs, (size_t, DataElement const&));
    CSLOT(size_t, size, ());
    SLOT(void, appendElement, (DataElement const&));
    SLOT(void, appendElementPointer, (DataElement*));
    SLOT(void, set, (size_t, DataElement const&));
    SLOT(void, setElementPointer, (size_t, DataElement*));
    CSLOT(DataElement const&, get, (size_t));
    CSIG(DataElement const&, operator[], (size_t));
  }
  {
    typedef HLAopaqueData C;
    Slots slots("HLAopaqueData", 2);
    DATA_ELEMENT_SLOTS;
    CSLOT(size_t, bufferLength, ());
    CSLOT(size_t, dataLength, ());
    SLOT(void, setDataPointer, (Octet**, size_t, size_t));
    SLOT(void, set, (Octet const*, size_t));
    CSLOT(Octet const*, get, ());
  }
  {
    typedef HLAvariableArray C;
    Slots slots("HLAvariableArray", 2);
    DATA_ELEMENT_SLOTS;
    CSLOT(size_t, size, ());
    CSLOT(bool, hasPrototypeSameTypeAs, (DataElement const&));
    SLOT(void, addElement, (DataElement const&));
    SLOT(void, addElementPointer, (DataElement*));
    SLOT(void, set, (size_t, DataElement const&));
    SLOT(void, setElementPointer, (size_t, DataElement*));
    CSLOT(DataElement const&, get, (size_t));
    CSIG(DataElement const&, operator[], (size_t));
  }
  {
    typedef HLAvariantRecord C;
    Slots slots("HLAvariantRecord", 2);
    DATA_ELEMENT_SLOTS;
    CSLOT(bool, isSameTypeAs, (DataElement const&, DataElement const&));
    CSLOT(bool, hasMatchingDiscriminantTypeAs, (DataElement const&));
    SLOT(void, addVariant, (DataElement const&, DataElement const&));
    SLOT(void, addVariantPointer, (DataElement const&, DataElement*));
    SLOT(void, setDiscriminant, (DataElement const&));
    SLOT(void, setVariant, (DataElement const&, DataElement const&));
    SLOT(void, setVariantPointer, (DataElement const&, DataElement*));
    CSLOT(DataElement const&, getDiscriminant, ());
    CSLOT(DataElement const&, getVariant, ());
  }
}

void valueTypes() {
  {
    typedef VariableLengthData C;
    CSIG(void const*, data, ());
    CSIG(size_t, size, ());
    SIG(void, setData, (void const*, size_t));
    SIG(void, setDataPointer, (void*, size_t));
    SIG(void, takeDataPointer, (void*, size_t, VariableLengthDataDeleteFunction));
    SIG(VariableLengthData&, operator=, (VariableLengthData const&));
  }
  {
    typedef AttributeHandle C;
    CSIG(bool, isValid, ());
    CSIG(bool, operator==, (AttributeHandle const&));
    CSIG(bool, operator!=, (AttributeHandle const&));
    CSIG(bool, operator<, (AttributeHandle const&));
    CSIG(long, hash, ());
    CSIG(VariableLengthData, encode, ());
    CSIG(void, encode, (VariableLengthData&));
    CSIG(size_t, encode, (void*, size_t));
    CSIG(size_t, encodedLength, ());
    CSIG(W, toString, ());
    SIG(AttributeHandle&, operator=, (AttributeHandle const&));
  }
  {
    typedef RangeBounds C;
    CSIG(unsigned long, getLowerBound, ());
    CSIG(unsigned long, getUpperBound, ());
    SIG(void, setLowerBound, (unsigned long));
    SIG(void, setUpperBound, (unsigned long));
  }
  {
    typedef RTIambassadorFactory C;
    SIG(RTI_UNIQUE_PTR<RTIambassador>, createRTIambassador, ());
  }
  {
    typedef Exception C;
    Slots slots("Exception", 2);
    CSLOT(W, what, ());
  }
  W (*name)() = &rtiName;
  W (*version)() = &rtiVersion;
  CHECK(name() == L"Trellis" && !version().empty());
}

RTI_SUPPRESS_AUTO_PTR_WARNING_END

// Mangled names (Itanium C++ ABI) of constructors and functions as the standard declares
// them, which must be defined in the libraries this program loaded.
void mangledNames() {
  char const* const names[] = {
      "_ZN8rti1516e14HLAfloat64TimeC1Ev",                     // HLAfloat64Time()
      "_ZN8rti1516e14HLAfloat64TimeC1ERKd",                   // HLAfloat64Time(double const&)
      "_ZN8rti1516e14HLAfloat64TimeC1ERKNS_11LogicalTimeE",   // HLAfloat64Time(LogicalTime const&)
      "_ZN8rti1516e14HLAfloat64TimeC1ERKS0_",                 // HLAfloat64Time(HLAfloat64Time const&)
      "_ZN8rti1516e18HLAfloat64IntervalC1Ed",                 // HLAfloat64Interval(double)
      "_ZN8rti1516e18HLAfloat64IntervalC1ERKNS_19LogicalTimeIntervalE",
      "_ZN8rti1516e16HLAinteger64TimeC1Ex",                   // HLAinteger64Time(Integer64)
      "_ZN8rti1516e20HLAinteger64IntervalC1Ex",               // HLAinteger64Interval(Integer64)
      "_ZN8rti1516e21HLAfloat64TimeFactoryC1Ev",
      "_ZN8rti1516e23HLAinteger64TimeFactoryC1Ev",
      "_ZN8rti1516e18VariableLengthDataC1EPKvm",              // VariableLengthData(void const*, size_t)
      "_ZN8rti1516e18VariableLengthDataC1ERKS0_",
      "_ZN8rti1516e15AttributeHandleC1Ev",
      "_ZN8rti1516e15AttributeHandleC1ERKS0_",
      "_ZN8rti1516e11RangeBoundsC1Emm",                       // RangeBounds(unsigned long, unsigned long)
      "_ZN8rti1516e20RTIambassadorFactoryC1Ev",
      "_ZN8rti1516e18FederateAmbassadorC2Ev",                 // FederateAmbassador() (protected)
      "_ZN8rti1516e18FederateAmbassadorD2Ev",
      "_ZN8rti1516e23SupplementalReflectInfoC1Ev",
      "_ZN8rti1516e23SupplementalReflectInfoC1ERKNS_14FederateHandleE",
      "_ZN8rti1516e23SupplementalReflectInfoC1ERKSt3setINS_12RegionHandleESt4lessIS2_ESaIS2_EE",
      "_ZN8rti1516e23SupplementalReceiveInfoC1Ev",
      "_ZN8rti1516e22SupplementalRemoveInfoC1ERKNS_14FederateHandleE",
      "_ZN8rti1516e21FederateRestoreStatusC1ERKNS_14FederateHandleES3_NS_13RestoreStatusE",
      "_ZN8rti1516e14HLAinteger32BEC1ERKi",                   // explicit HLAinteger32BE(Integer32 const&)
      "_ZN8rti1516e14HLAinteger32BEC1EPi",                    // explicit HLAinteger32BE(Integer32*)
      "_ZN8rti1516e14HLAinteger64BEC1ERKx",
      "_ZN8rti1516e14HLAunicodeCharC1ERKw",
      "_ZN8rti1516e13HLAopaqueDataC1EPKcm",                   // HLAopaqueData(Octet const*, size_t)
      "_ZN8rti1516e13HLAopaqueDataC1EPPcmm",                  // HLAopaqueData(Octet**, size_t, size_t)
      "_ZN8rti1516e13HLAfixedArrayC1ERKNS_11DataElementEm",   // HLAfixedArray(DataElement const&, size_t)
      "_ZN8rti1516e16HLAvariableArrayC1ERKNS_11DataElementE",
      "_ZN8rti1516e14HLAfixedRecordC1Ev",
      "_ZN8rti1516e16HLAvariantRecordC1ERKNS_11DataElementE",
      // HLAlogicalTimeFactoryFactory::makeLogicalTimeFactory(std::wstring const&)
      "_ZN8rti1516e28HLAlogicalTimeFactoryFactory22makeLogicalTimeFactoryERKNSt7__cxx1112basic_stringIwSt11char_traitsIwESaIwEEE",
      "_ZN8rti1516elsERSt13basic_ostreamIwSt11char_traitsIwEERKNS_11LogicalTimeE",  // operator<<
      "_ZN8rti1516elsERSt13basic_ostreamIwSt11char_traitsIwEERKNS_9ExceptionE",
      "_ZN8rti1516elsERSt13basic_ostreamIwSt11char_traitsIwEERKNS_15AttributeHandleE",
      "_ZTIN8rti1516e9ExceptionE",                            // the typeinfo federates catch by
      "_ZTIN8rti1516e21IllegalTimeArithmeticE",
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i) {
    if (dlsym(RTLD_DEFAULT, names[i]) == 0) check::fail(__FILE__, __LINE__, std::string("not defined: ") + names[i]);
  }
}

// Records passed to callbacks by value: the standard's member order fixes their layout.
template <typename Record, typename Member>
long offsetIn(Record const& record, Member const& member) {
  return static_cast<long>(reinterpret_cast<char const*>(&member) - reinterpret_cast<char const*>(&record));
}

void recordLayouts() {
  FederateHandle const producer;
  RegionHandleSet const regions;
  SupplementalReflectInfo reflect(producer, regions);
  CHECK(reflect.hasProducingFederate && reflect.hasSentRegions);
  CHECK(offsetIn(reflect, reflect.hasProducingFederate) == 0);
  CHECK(offsetIn(reflect, reflect.hasSentRegions) == 1);
  CHECK(offsetIn(reflect, reflect.producingFederate) == static_cast<long>(sizeof(void*)));
  CHECK(offsetIn(reflect, reflect.sentRegions) == static_cast<long>(2 * sizeof(void*)));
  SupplementalReceiveInfo receive;
  CHECK(!receive.hasProducingFederate && !receive.hasSentRegions);
  CHECK(offsetIn(receive, receive.hasSentRegions) == 1);
  CHECK(offsetIn(receive, receive.producingFederate) == static_cast<long>(sizeof(void*)));
  SupplementalRemoveInfo remove;
  CHECK(offsetIn(remove, remove.hasProducingFederate) == 0);
  CHECK(offsetIn(remove, remove.producingFederate) == static_cast<long>(sizeof(void*)));
  // A handle is one pointer wide, as the standard's (which holds a pointer to its implementation).
  CHECK(sizeof(FederateHandle) == sizeof(void*));
}

}  // namespace

int main() {
  rtiAmbassador();
  federateAmbassador();
  logicalTimes();
  encodingHelpers();
  valueTypes();
  mangledNames();
  recordLayouts();
  return check::finish("test_standard_abi");
}
