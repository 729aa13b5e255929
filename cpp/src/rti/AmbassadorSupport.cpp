// Support services (IEEE 1516.1-2010 §10).
#include "Ambassador.h"
#include "Convert.h"
#include "Errors.h"

namespace trellis_cpp {

namespace {
template <typename Friend, typename Handle>
Handle lookup(TrellisStatus (*find)(TrellisRti*, char const*, uint64_t*), TrellisRti* rti,
              std::wstring const& name) {
  std::string const text = toUtf8(name);
  uint64_t value = 0;
  check(find(rti, text.c_str(), &value));
  return Friend::create(value);
}

std::wstring describe(TrellisStatus status, char* text) {
  check(status);
  return takeString(text);
}
}  // namespace

ResignAction Ambassador::getAutomaticResignDirective() {
  int32_t action = 0;
  check(trellis_get_automatic_resign_directive(joined(), &action));
  return static_cast<ResignAction>(action);
}

void Ambassador::setAutomaticResignDirective(ResignAction resignAction) {
  check(trellis_set_automatic_resign_directive(joined(), static_cast<int32_t>(resignAction)));
}

FederateHandle Ambassador::getFederateHandle(std::wstring const& theName) {
  return lookup<FederateHandleFriend, FederateHandle>(trellis_get_federate_handle, joined(), theName);
}

std::wstring Ambassador::getFederateName(FederateHandle theHandle) {
  char* name = 0;
  TrellisStatus const status = trellis_get_federate_name(joined(), FederateHandleFriend::value(theHandle), &name);
  return describe(status, name);
}

ObjectClassHandle Ambassador::getObjectClassHandle(std::wstring const& theName) {
  return lookup<ObjectClassHandleFriend, ObjectClassHandle>(trellis_get_object_class_handle, joined(), theName);
}

std::wstring Ambassador::getObjectClassName(ObjectClassHandle theHandle) {
  char* name = 0;
  TrellisStatus const status =
      trellis_get_object_class_name(joined(), ObjectClassHandleFriend::value(theHandle), &name);
  return describe(status, name);
}

ObjectClassHandle Ambassador::getKnownObjectClassHandle(ObjectInstanceHandle theObject) {
  uint64_t value = 0;
  check(trellis_get_known_object_class_handle(joined(), ObjectInstanceHandleFriend::value(theObject), &value));
  return ObjectClassHandleFriend::create(value);
}

ObjectInstanceHandle Ambassador::getObjectInstanceHandle(std::wstring const& theName) {
  return lookup<ObjectInstanceHandleFriend, ObjectInstanceHandle>(trellis_get_object_instance_handle, joined(),
                                                                  theName);
}

std::wstring Ambassador::getObjectInstanceName(ObjectInstanceHandle theHandle) {
  char* name = 0;
  TrellisStatus const status =
      trellis_get_object_instance_name(joined(), ObjectInstanceHandleFriend::value(theHandle), &name);
  return describe(status, name);
}

AttributeHandle Ambassador::getAttributeHandle(ObjectClassHandle whichClass, std::wstring const& theAttributeName) {
  std::string const name = toUtf8(theAttributeName);
  uint64_t value = 0;
  check(trellis_get_attribute_handle(joined(), ObjectClassHandleFriend::value(whichClass), name.c_str(), &value));
  return AttributeHandleFriend::create(value);
}

std::wstring Ambassador::getAttributeName(ObjectClassHandle whichClass, AttributeHandle theHandle) {
  char* name = 0;
  TrellisStatus const status = trellis_get_attribute_name(joined(), ObjectClassHandleFriend::value(whichClass),
                                                          AttributeHandleFriend::value(theHandle), &name);
  return describe(status, name);
}

double Ambassador::getUpdateRateValue(std::wstring const& updateRateDesignator) {
  std::string const name = toUtf8(updateRateDesignator);
  double rate = 0.0;
  check(trellis_get_update_rate_value(joined(), name.c_str(), &rate));
  return rate;
}

double Ambassador::getUpdateRateValueForAttribute(ObjectInstanceHandle theObject, AttributeHandle theAttribute) {
  double rate = 0.0;
  check(trellis_get_update_rate_value_for_attribute(joined(), ObjectInstanceHandleFriend::value(theObject),
                                                    AttributeHandleFriend::value(theAttribute), &rate));
  return rate;
}

InteractionClassHandle Ambassador::getInteractionClassHandle(std::wstring const& theName) {
  return lookup<InteractionClassHandleFriend, InteractionClassHandle>(trellis_get_interaction_class_handle,
                                                                      joined(), theName);
}

std::wstring Ambassador::getInteractionClassName(InteractionClassHandle theHandle) {
  char* name = 0;
  TrellisStatus const status =
      trellis_get_interaction_class_name(joined(), InteractionClassHandleFriend::value(theHandle), &name);
  return describe(status, name);
}

ParameterHandle Ambassador::getParameterHandle(InteractionClassHandle whichClass, std::wstring const& theName) {
  std::string const name = toUtf8(theName);
  uint64_t value = 0;
  check(trellis_get_parameter_handle(joined(), InteractionClassHandleFriend::value(whichClass), name.c_str(),
                                     &value));
  return ParameterHandleFriend::create(value);
}

std::wstring Ambassador::getParameterName(InteractionClassHandle whichClass, ParameterHandle theHandle) {
  char* name = 0;
  TrellisStatus const status = trellis_get_parameter_name(
      joined(), InteractionClassHandleFriend::value(whichClass), ParameterHandleFriend::value(theHandle), &name);
  return describe(status, name);
}

OrderType Ambassador::getOrderType(std::wstring const& orderName) {
  std::string const name = toUtf8(orderName);
  int32_t order = 0;
  check(trellis_get_order_type(joined(), name.c_str(), &order));
  return static_cast<OrderType>(order);
}

std::wstring Ambassador::getOrderName(OrderType orderType) {
  char* name = 0;
  TrellisStatus const status = trellis_get_order_name(joined(), static_cast<int32_t>(orderType), &name);
  return describe(status, name);
}

TransportationType Ambassador::getTransportationType(std::wstring const& transportationName) {
  std::string const name = toUtf8(transportationName);
  int32_t type = 0;
  check(trellis_get_transportation_type(joined(), name.c_str(), &type));
  return static_cast<TransportationType>(type);
}

std::wstring Ambassador::getTransportationName(TransportationType transportationType) {
  char* name = 0;
  TrellisStatus const status =
      trellis_get_transportation_name(joined(), static_cast<int32_t>(transportationType), &name);
  return describe(status, name);
}

DimensionHandle Ambassador::getDimensionHandle(std::wstring const& theName) {
  return lookup<DimensionHandleFriend, DimensionHandle>(trellis_get_dimension_handle, joined(), theName);
}

std::wstring Ambassador::getDimensionName(DimensionHandle theHandle) {
  char* name = 0;
  TrellisStatus const status = trellis_get_dimension_name(joined(), DimensionHandleFriend::value(theHandle), &name);
  return describe(status, name);
}

unsigned long Ambassador::normalizeFederateHandle(FederateHandle theFederateHandle) {
  joined();
  if (!theFederateHandle.isValid()) throw InvalidFederateHandle(L"the federate handle is not valid");
  return static_cast<unsigned long>(FederateHandleFriend::value(theFederateHandle));
}

unsigned long Ambassador::normalizeServiceGroup(ServiceGroup theServiceGroup) {
  joined();
  int const group = static_cast<int>(theServiceGroup);
  if (group < static_cast<int>(FEDERATION_MANAGEMENT) || group > static_cast<int>(SUPPORT_SERVICES))
    throw InvalidServiceGroup(L"not one of the standard's service groups");
  return static_cast<unsigned long>(theServiceGroup);
}

void Ambassador::enableObjectClassRelevanceAdvisorySwitch() { check(trellis_set_advisory_switch(joined(), 0, true)); }
void Ambassador::disableObjectClassRelevanceAdvisorySwitch() { check(trellis_set_advisory_switch(joined(), 0, false)); }
void Ambassador::enableAttributeRelevanceAdvisorySwitch() { check(trellis_set_advisory_switch(joined(), 1, true)); }
void Ambassador::disableAttributeRelevanceAdvisorySwitch() { check(trellis_set_advisory_switch(joined(), 1, false)); }
void Ambassador::enableAttributeScopeAdvisorySwitch() { check(trellis_set_advisory_switch(joined(), 2, true)); }
void Ambassador::disableAttributeScopeAdvisorySwitch() { check(trellis_set_advisory_switch(joined(), 2, false)); }
void Ambassador::enableInteractionRelevanceAdvisorySwitch() { check(trellis_set_advisory_switch(joined(), 3, true)); }
void Ambassador::disableInteractionRelevanceAdvisorySwitch() {
  check(trellis_set_advisory_switch(joined(), 3, false));
}

// Handles are values: they decode without asking the RTI.
FederateHandle Ambassador::decodeFederateHandle(VariableLengthData const& encodedValue) const {
  return FederateHandleFriend::decode(encodedValue);
}
ObjectClassHandle Ambassador::decodeObjectClassHandle(VariableLengthData const& encodedValue) const {
  return ObjectClassHandleFriend::decode(encodedValue);
}
InteractionClassHandle Ambassador::decodeInteractionClassHandle(VariableLengthData const& encodedValue) const {
  return InteractionClassHandleFriend::decode(encodedValue);
}
ObjectInstanceHandle Ambassador::decodeObjectInstanceHandle(VariableLengthData const& encodedValue) const {
  return ObjectInstanceHandleFriend::decode(encodedValue);
}
AttributeHandle Ambassador::decodeAttributeHandle(VariableLengthData const& encodedValue) const {
  return AttributeHandleFriend::decode(encodedValue);
}
ParameterHandle Ambassador::decodeParameterHandle(VariableLengthData const& encodedValue) const {
  return ParameterHandleFriend::decode(encodedValue);
}
DimensionHandle Ambassador::decodeDimensionHandle(VariableLengthData const& encodedValue) const {
  return DimensionHandleFriend::decode(encodedValue);
}
MessageRetractionHandle Ambassador::decodeMessageRetractionHandle(VariableLengthData const& encodedValue) const {
  return MessageRetractionHandleFriend::decode(encodedValue);
}
RegionHandle Ambassador::decodeRegionHandle(VariableLengthData const& encodedValue) const {
  return RegionHandleFriend::decode(encodedValue);
}

}  // namespace trellis_cpp
