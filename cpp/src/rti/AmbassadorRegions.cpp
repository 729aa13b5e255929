// Data distribution management (IEEE 1516.1-2010 §9).
#include "Ambassador.h"
#include "Convert.h"
#include "Errors.h"

namespace trellis_cpp {

namespace {
uint64_t raw(ObjectClassHandle const& h) { return ObjectClassHandleFriend::value(h); }
uint64_t raw(InteractionClassHandle const& h) { return InteractionClassHandleFriend::value(h); }
uint64_t raw(ObjectInstanceHandle const& h) { return ObjectInstanceHandleFriend::value(h); }
uint64_t raw(RegionHandle const& h) { return RegionHandleFriend::value(h); }
uint64_t raw(DimensionHandle const& h) { return DimensionHandleFriend::value(h); }
}  // namespace

RegionHandle Ambassador::createRegion(DimensionHandleSet const& theDimensions) {
  std::vector<uint64_t> const dimensions = values<DimensionHandleFriend>(theDimensions);
  uint64_t region = 0;
  check(trellis_create_region(joined(), data(dimensions), dimensions.size(), &region));
  return RegionHandleFriend::create(region);
}

void Ambassador::commitRegionModifications(RegionHandleSet const& theRegionHandleSet) {
  std::vector<uint64_t> const list = regions(theRegionHandleSet);
  check(trellis_commit_region_modifications(joined(), data(list), list.size()));
}

void Ambassador::deleteRegion(RegionHandle const& theRegion) {
  check(trellis_delete_region(joined(), raw(theRegion)));
}

ObjectInstanceHandle Ambassador::registerObjectInstanceWithRegions(
    ObjectClassHandle theClass, AttributeHandleSetRegionHandleSetPairVector const& pairs) {
  RegionPairs const c(pairs);
  uint64_t object = 0;
  check(trellis_register_object_instance_with_regions(joined(), raw(theClass), c.data(), c.size(), 0, &object));
  return ObjectInstanceHandleFriend::create(object);
}

ObjectInstanceHandle Ambassador::registerObjectInstanceWithRegions(
    ObjectClassHandle theClass, AttributeHandleSetRegionHandleSetPairVector const& pairs,
    std::wstring const& theObjectInstanceName) {
  RegionPairs const c(pairs);
  std::string const name = toUtf8(theObjectInstanceName);
  uint64_t object = 0;
  check(trellis_register_object_instance_with_regions(joined(), raw(theClass), c.data(), c.size(), name.c_str(),
                                                      &object));
  return ObjectInstanceHandleFriend::create(object);
}

void Ambassador::associateRegionsForUpdates(ObjectInstanceHandle theObject,
                                            AttributeHandleSetRegionHandleSetPairVector const& pairs) {
  RegionPairs const c(pairs);
  check(trellis_associate_regions_for_updates(joined(), raw(theObject), c.data(), c.size()));
}

void Ambassador::unassociateRegionsForUpdates(ObjectInstanceHandle theObject,
                                              AttributeHandleSetRegionHandleSetPairVector const& pairs) {
  RegionPairs const c(pairs);
  check(trellis_unassociate_regions_for_updates(joined(), raw(theObject), c.data(), c.size()));
}

void Ambassador::subscribeObjectClassAttributesWithRegions(ObjectClassHandle theClass,
                                                           AttributeHandleSetRegionHandleSetPairVector const& pairs,
                                                           bool active, std::wstring const& updateRateDesignator) {
  RegionPairs const c(pairs);
  std::string const rate = toUtf8(updateRateDesignator);
  check(trellis_subscribe_object_class_attributes_with_regions(joined(), raw(theClass), c.data(), c.size(), active,
                                                               rate.empty() ? 0 : rate.c_str()));
}

void Ambassador::unsubscribeObjectClassAttributesWithRegions(ObjectClassHandle theClass,
                                                             AttributeHandleSetRegionHandleSetPairVector const& pairs) {
  RegionPairs const c(pairs);
  check(trellis_unsubscribe_object_class_attributes_with_regions(joined(), raw(theClass), c.data(), c.size()));
}

void Ambassador::subscribeInteractionClassWithRegions(InteractionClassHandle theClass,
                                                      RegionHandleSet const& theRegionHandleSet, bool active) {
  std::vector<uint64_t> const list = regions(theRegionHandleSet);
  check(trellis_subscribe_interaction_class_with_regions(joined(), raw(theClass), data(list), list.size(), active));
}

void Ambassador::unsubscribeInteractionClassWithRegions(InteractionClassHandle theClass,
                                                        RegionHandleSet const& theRegionHandleSet) {
  std::vector<uint64_t> const list = regions(theRegionHandleSet);
  check(trellis_unsubscribe_interaction_class_with_regions(joined(), raw(theClass), data(list), list.size()));
}

void Ambassador::sendInteractionWithRegions(InteractionClassHandle theInteraction,
                                            ParameterHandleValueMap const& theParameterValues,
                                            RegionHandleSet const& theRegionHandleSet,
                                            VariableLengthData const& theUserSuppliedTag) {
  std::vector<TrellisHandleValue> const& values = handleValues<ParameterHandleFriend>(theParameterValues);
  std::vector<uint64_t> const list = regions(theRegionHandleSet);
  check(trellis_send_interaction_with_regions(joined(), raw(theInteraction), data(values), values.size(), data(list),
                                              list.size(), bytes(theUserSuppliedTag), 0, 0));
}

MessageRetractionHandle Ambassador::sendInteractionWithRegions(InteractionClassHandle theInteraction,
                                                               ParameterHandleValueMap const& theParameterValues,
                                                               RegionHandleSet const& theRegionHandleSet,
                                                               VariableLengthData const& theUserSuppliedTag,
                                                               LogicalTime const& theTime) {
  TrellisRti* rti = joined();
  std::vector<TrellisHandleValue> const& values = handleValues<ParameterHandleFriend>(theParameterValues);
  std::vector<uint64_t> const list = regions(theRegionHandleSet);
  TrellisTime const time = toC(theTime);
  uint64_t retraction = 0;
  check(trellis_send_interaction_with_regions(rti, raw(theInteraction), data(values), values.size(), data(list),
                                              list.size(), bytes(theUserSuppliedTag), &time, &retraction));
  return MessageRetractionHandleFriend::create(retraction);
}

void Ambassador::requestAttributeValueUpdateWithRegions(ObjectClassHandle theClass,
                                                        AttributeHandleSetRegionHandleSetPairVector const& theSet,
                                                        VariableLengthData const& theUserSuppliedTag) {
  RegionPairs const c(theSet);
  check(trellis_request_attribute_value_update_with_regions(joined(), raw(theClass), c.data(), c.size(),
                                                            bytes(theUserSuppliedTag)));
}

DimensionHandleSet Ambassador::getDimensionHandleSet(RegionHandle theRegionHandle) {
  uint64_t dimensions[64];
  size_t count = 0;
  check(trellis_get_dimension_handle_set(joined(), raw(theRegionHandle), dimensions, 64, &count));
  DimensionHandleSet out;
  for (size_t i = 0; i < count && i < 64; ++i) out.insert(DimensionHandleFriend::create(dimensions[i]));
  return out;
}

RangeBounds Ambassador::getRangeBounds(RegionHandle theRegionHandle, DimensionHandle theDimensionHandle) {
  uint64_t lower = 0;
  uint64_t upper = 0;
  check(trellis_get_range_bounds(joined(), raw(theRegionHandle), raw(theDimensionHandle), &lower, &upper));
  return RangeBounds(static_cast<unsigned long>(lower), static_cast<unsigned long>(upper));
}

void Ambassador::setRangeBounds(RegionHandle theRegionHandle, DimensionHandle theDimensionHandle,
                                RangeBounds const& theRangeBounds) {
  check(trellis_set_range_bounds(joined(), raw(theRegionHandle), raw(theDimensionHandle),
                                 theRangeBounds.getLowerBound(), theRangeBounds.getUpperBound()));
}

unsigned long Ambassador::getDimensionUpperBound(DimensionHandle theHandle) {
  uint64_t bound = 0;
  check(trellis_get_dimension_upper_bound(joined(), raw(theHandle), &bound));
  return static_cast<unsigned long>(bound);
}

DimensionHandleSet Ambassador::getAvailableDimensionsForClassAttribute(ObjectClassHandle theClass,
                                                                       AttributeHandle theHandle) {
  uint64_t dimensions[64];
  size_t count = 0;
  check(trellis_get_available_dimensions_for_class_attribute(joined(), raw(theClass),
                                                             AttributeHandleFriend::value(theHandle), dimensions, 64,
                                                             &count));
  DimensionHandleSet out;
  for (size_t i = 0; i < count && i < 64; ++i) out.insert(DimensionHandleFriend::create(dimensions[i]));
  return out;
}

DimensionHandleSet Ambassador::getAvailableDimensionsForInteractionClass(InteractionClassHandle theClass) {
  uint64_t dimensions[64];
  size_t count = 0;
  check(trellis_get_available_dimensions_for_interaction_class(joined(), raw(theClass), dimensions, 64, &count));
  DimensionHandleSet out;
  for (size_t i = 0; i < count && i < 64; ++i) out.insert(DimensionHandleFriend::create(dimensions[i]));
  return out;
}

}  // namespace trellis_cpp
