// Declaration, object and ownership management (IEEE 1516.1-2010 §5–7).
#include "Ambassador.h"
#include "Convert.h"
#include "Errors.h"

namespace trellis_cpp {

namespace {
uint64_t raw(ObjectClassHandle const& h) { return ObjectClassHandleFriend::value(h); }
uint64_t raw(InteractionClassHandle const& h) { return InteractionClassHandleFriend::value(h); }
uint64_t raw(ObjectInstanceHandle const& h) { return ObjectInstanceHandleFriend::value(h); }
uint64_t raw(AttributeHandle const& h) { return AttributeHandleFriend::value(h); }
uint64_t raw(FederateHandle const& h) { return FederateHandleFriend::value(h); }
}  // namespace

// ---- declaration management ----

void Ambassador::publishObjectClassAttributes(ObjectClassHandle theClass, AttributeHandleSet const& attributeList) {
  std::vector<uint64_t> const list = attributes(attributeList);
  check(trellis_publish_object_class_attributes(joined(), raw(theClass), data(list), list.size()));
}

void Ambassador::unpublishObjectClass(ObjectClassHandle theClass) {
  check(trellis_unpublish_object_class(joined(), raw(theClass)));
}

void Ambassador::unpublishObjectClassAttributes(ObjectClassHandle theClass, AttributeHandleSet const& attributeList) {
  std::vector<uint64_t> const list = attributes(attributeList);
  check(trellis_unpublish_object_class_attributes(joined(), raw(theClass), data(list), list.size()));
}

void Ambassador::publishInteractionClass(InteractionClassHandle theInteraction) {
  check(trellis_publish_interaction_class(joined(), raw(theInteraction)));
}

void Ambassador::unpublishInteractionClass(InteractionClassHandle theInteraction) {
  check(trellis_unpublish_interaction_class(joined(), raw(theInteraction)));
}

void Ambassador::subscribeObjectClassAttributes(ObjectClassHandle theClass, AttributeHandleSet const& attributeList,
                                                bool active, std::wstring const& updateRateDesignator) {
  std::vector<uint64_t> const list = attributes(attributeList);
  std::string const rate = toUtf8(updateRateDesignator);
  check(trellis_subscribe_object_class_attributes(joined(), raw(theClass), data(list), list.size(), active,
                                                  rate.empty() ? 0 : rate.c_str()));
}

void Ambassador::unsubscribeObjectClass(ObjectClassHandle theClass) {
  check(trellis_unsubscribe_object_class(joined(), raw(theClass)));
}

void Ambassador::unsubscribeObjectClassAttributes(ObjectClassHandle theClass, AttributeHandleSet const& attributeList) {
  std::vector<uint64_t> const list = attributes(attributeList);
  check(trellis_unsubscribe_object_class_attributes(joined(), raw(theClass), data(list), list.size()));
}

void Ambassador::subscribeInteractionClass(InteractionClassHandle theClass, bool active) {
  check(trellis_subscribe_interaction_class(joined(), raw(theClass), active));
}

void Ambassador::unsubscribeInteractionClass(InteractionClassHandle theClass) {
  check(trellis_unsubscribe_interaction_class(joined(), raw(theClass)));
}

// ---- object management ----

void Ambassador::reserveObjectInstanceName(std::wstring const& theObjectInstanceName) {
  std::string const name = toUtf8(theObjectInstanceName);
  check(trellis_reserve_object_instance_name(joined(), name.c_str()));
}

void Ambassador::releaseObjectInstanceName(std::wstring const& theObjectInstanceName) {
  std::string const name = toUtf8(theObjectInstanceName);
  check(trellis_release_object_instance_name(joined(), name.c_str()));
}

namespace {
struct NameList {
  explicit NameList(std::set<std::wstring> const& names) {
    for (std::set<std::wstring>::const_iterator i = names.begin(); i != names.end(); ++i)
      owned.push_back(toUtf8(*i));
    for (size_t i = 0; i < owned.size(); ++i) pointers.push_back(owned[i].c_str());
  }
  std::vector<std::string> owned;
  std::vector<char const*> pointers;
};
}  // namespace

void Ambassador::reserveMultipleObjectInstanceName(std::set<std::wstring> const& theObjectInstanceNames) {
  TrellisRti* rti = joined();
  if (theObjectInstanceNames.empty()) throw NameSetWasEmpty(L"no names to reserve");
  NameList names(theObjectInstanceNames);
  check(trellis_reserve_multiple_object_instance_names(rti, data(names.pointers), names.pointers.size()));
}

void Ambassador::releaseMultipleObjectInstanceName(std::set<std::wstring> const& theObjectInstanceNames) {
  NameList names(theObjectInstanceNames);
  check(trellis_release_multiple_object_instance_names(joined(), data(names.pointers), names.pointers.size()));
}

ObjectInstanceHandle Ambassador::registerObjectInstance(ObjectClassHandle theClass) {
  uint64_t object = 0;
  check(trellis_register_object_instance(joined(), raw(theClass), 0, &object));
  return ObjectInstanceHandleFriend::create(object);
}

ObjectInstanceHandle Ambassador::registerObjectInstance(ObjectClassHandle theClass,
                                                        std::wstring const& theObjectInstanceName) {
  std::string const name = toUtf8(theObjectInstanceName);
  uint64_t object = 0;
  check(trellis_register_object_instance(joined(), raw(theClass), name.c_str(), &object));
  return ObjectInstanceHandleFriend::create(object);
}

void Ambassador::updateAttributeValues(ObjectInstanceHandle theObject, AttributeHandleValueMap const& theAttributeValues,
                                       VariableLengthData const& theUserSuppliedTag) {
  std::vector<TrellisHandleValue> const& values = handleValues<AttributeHandleFriend>(theAttributeValues);
  check(trellis_update_attribute_values(joined(), raw(theObject), data(values), values.size(),
                                        bytes(theUserSuppliedTag), 0, 0));
}

MessageRetractionHandle Ambassador::updateAttributeValues(ObjectInstanceHandle theObject,
                                                          AttributeHandleValueMap const& theAttributeValues,
                                                          VariableLengthData const& theUserSuppliedTag,
                                                          LogicalTime const& theTime) {
  TrellisRti* rti = joined();
  std::vector<TrellisHandleValue> const& values = handleValues<AttributeHandleFriend>(theAttributeValues);
  TrellisTime const time = toC(theTime);
  uint64_t retraction = 0;
  check(trellis_update_attribute_values(rti, raw(theObject), data(values), values.size(), bytes(theUserSuppliedTag),
                                        &time, &retraction));
  return MessageRetractionHandleFriend::create(retraction);
}

void Ambassador::sendInteraction(InteractionClassHandle theInteraction, ParameterHandleValueMap const& theParameterValues,
                                 VariableLengthData const& theUserSuppliedTag) {
  std::vector<TrellisHandleValue> const& values = handleValues<ParameterHandleFriend>(theParameterValues);
  check(trellis_send_interaction(joined(), raw(theInteraction), data(values), values.size(),
                                 bytes(theUserSuppliedTag), 0, 0));
}

MessageRetractionHandle Ambassador::sendInteraction(InteractionClassHandle theInteraction,
                                                    ParameterHandleValueMap const& theParameterValues,
                                                    VariableLengthData const& theUserSuppliedTag,
                                                    LogicalTime const& theTime) {
  TrellisRti* rti = joined();
  std::vector<TrellisHandleValue> const& values = handleValues<ParameterHandleFriend>(theParameterValues);
  TrellisTime const time = toC(theTime);
  uint64_t retraction = 0;
  check(trellis_send_interaction(rti, raw(theInteraction), data(values), values.size(), bytes(theUserSuppliedTag),
                                 &time, &retraction));
  return MessageRetractionHandleFriend::create(retraction);
}

void Ambassador::deleteObjectInstance(ObjectInstanceHandle theObject, VariableLengthData const& theUserSuppliedTag) {
  check(trellis_delete_object_instance(joined(), raw(theObject), bytes(theUserSuppliedTag), 0, 0));
}

MessageRetractionHandle Ambassador::deleteObjectInstance(ObjectInstanceHandle theObject,
                                                         VariableLengthData const& theUserSuppliedTag,
                                                         LogicalTime const& theTime) {
  TrellisRti* rti = joined();
  TrellisTime const time = toC(theTime);
  uint64_t retraction = 0;
  check(trellis_delete_object_instance(rti, raw(theObject), bytes(theUserSuppliedTag), &time, &retraction));
  return MessageRetractionHandleFriend::create(retraction);
}

void Ambassador::localDeleteObjectInstance(ObjectInstanceHandle theObject) {
  check(trellis_local_delete_object_instance(joined(), raw(theObject)));
}

void Ambassador::requestAttributeValueUpdate(ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes,
                                             VariableLengthData const& theUserSuppliedTag) {
  std::vector<uint64_t> const list = attributes(theAttributes);
  check(trellis_request_attribute_value_update(joined(), raw(theObject), data(list), list.size(),
                                               bytes(theUserSuppliedTag)));
}

void Ambassador::requestAttributeValueUpdate(ObjectClassHandle theClass, AttributeHandleSet const& theAttributes,
                                             VariableLengthData const& theUserSuppliedTag) {
  std::vector<uint64_t> const list = attributes(theAttributes);
  check(trellis_request_class_attribute_value_update(joined(), raw(theClass), data(list), list.size(),
                                                     bytes(theUserSuppliedTag)));
}

// The transportation services: a change is in effect on return, and confirmed (a query
// answered) by a callback at the next evoke.
void Ambassador::requestAttributeTransportationTypeChange(ObjectInstanceHandle theObject,
                                                          AttributeHandleSet const& theAttributes,
                                                          TransportationType theType) {
  std::vector<uint64_t> const list = attributes(theAttributes);
  check(trellis_request_attribute_transportation_type_change(joined(), raw(theObject), data(list), list.size(),
                                                             static_cast<int32_t>(theType)));
}
void Ambassador::queryAttributeTransportationType(ObjectInstanceHandle theObject, AttributeHandle theAttribute) {
  check(trellis_query_attribute_transportation_type(joined(), raw(theObject), raw(theAttribute)));
}
void Ambassador::requestInteractionTransportationTypeChange(InteractionClassHandle theClass,
                                                            TransportationType theType) {
  check(trellis_request_interaction_transportation_type_change(joined(), raw(theClass),
                                                               static_cast<int32_t>(theType)));
}
void Ambassador::queryInteractionTransportationType(FederateHandle theFederate, InteractionClassHandle theClass) {
  check(trellis_query_interaction_transportation_type(joined(), raw(theFederate), raw(theClass)));
}

// ---- ownership management ----

#define TRELLIS_OWNERSHIP(Method, function)                                                    \
  void Ambassador::Method(ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes) { \
    std::vector<uint64_t> const list = attributes(theAttributes);                              \
    check(function(joined(), raw(theObject), data(list), list.size()));                       \
  }
#define TRELLIS_OWNERSHIP_TAGGED(Method, function)                                             \
  void Ambassador::Method(ObjectInstanceHandle theObject, AttributeHandleSet const& theAttributes, \
                          VariableLengthData const& theUserSuppliedTag) {                      \
    std::vector<uint64_t> const list = attributes(theAttributes);                              \
    check(function(joined(), raw(theObject), data(list), list.size(), bytes(theUserSuppliedTag))); \
  }

TRELLIS_OWNERSHIP(unconditionalAttributeOwnershipDivestiture, trellis_unconditional_attribute_ownership_divestiture)
TRELLIS_OWNERSHIP_TAGGED(negotiatedAttributeOwnershipDivestiture, trellis_negotiated_attribute_ownership_divestiture)
TRELLIS_OWNERSHIP_TAGGED(confirmDivestiture, trellis_confirm_divestiture)
TRELLIS_OWNERSHIP_TAGGED(attributeOwnershipAcquisition, trellis_attribute_ownership_acquisition)
TRELLIS_OWNERSHIP(attributeOwnershipAcquisitionIfAvailable, trellis_attribute_ownership_acquisition_if_available)
TRELLIS_OWNERSHIP(attributeOwnershipReleaseDenied, trellis_attribute_ownership_release_denied)
TRELLIS_OWNERSHIP(cancelNegotiatedAttributeOwnershipDivestiture,
                  trellis_cancel_negotiated_attribute_ownership_divestiture)
TRELLIS_OWNERSHIP(cancelAttributeOwnershipAcquisition, trellis_cancel_attribute_ownership_acquisition)

#undef TRELLIS_OWNERSHIP
#undef TRELLIS_OWNERSHIP_TAGGED

void Ambassador::attributeOwnershipDivestitureIfWanted(ObjectInstanceHandle theObject,
                                                       AttributeHandleSet const& theAttributes,
                                                       AttributeHandleSet& theDivestedAttributes) {
  std::vector<uint64_t> const list = attributes(theAttributes);
  std::vector<uint64_t> divested(list.size() + 1);
  size_t count = 0;
  check(trellis_attribute_ownership_divestiture_if_wanted(joined(), raw(theObject), data(list), list.size(),
                                                          &divested[0], divested.size(), &count));
  theDivestedAttributes.clear();
  for (size_t i = 0; i < count && i < divested.size(); ++i)
    theDivestedAttributes.insert(AttributeHandleFriend::create(divested[i]));
}

void Ambassador::queryAttributeOwnership(ObjectInstanceHandle theObject, AttributeHandle theAttribute) {
  check(trellis_query_attribute_ownership(joined(), raw(theObject), raw(theAttribute)));
}

bool Ambassador::isAttributeOwnedByFederate(ObjectInstanceHandle theObject, AttributeHandle theAttribute) {
  bool owned = false;
  check(trellis_is_attribute_owned_by_federate(joined(), raw(theObject), raw(theAttribute), &owned));
  return owned;
}

}  // namespace trellis_cpp
