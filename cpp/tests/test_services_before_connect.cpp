// Every service of IEEE 1516.1-2010, called with the standard's argument types on an
// ambassador that is not connected, throws NotConnected (services Trellis does not provide
// may throw RTIinternalError naming themselves instead; never nothing). This proves each
// signature exists as the standard declares it and that none is a silent no-op.
#include <RTI/RTI1516.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "check.h"

using namespace rti1516e;

namespace {

int calls = 0;

// Runs the statement; it must throw NotConnected, or RTIinternalError for a service the
// implementation names as not provided.
#define EXPECT_NOT_CONNECTED(statement)                                                   \
  do {                                                                                    \
    ++calls;                                                                              \
    try {                                                                                 \
      statement;                                                                          \
      check::fail(__FILE__, __LINE__, #statement " returned without NotConnected");       \
    } catch (NotConnected const&) {                                                       \
    } catch (RTIinternalError const& e) {                                                 \
      if (e.what().find(L"not provided") == std::wstring::npos)                           \
        check::fail(__FILE__, __LINE__, #statement " threw RTIinternalError");            \
    } catch (Exception const& e) {                                                        \
      check::fail(__FILE__, __LINE__, #statement " threw another exception");             \
    }                                                                                     \
  } while (0)

void everyService(RTIambassador& rti) {
  std::wstring const name(L"name");
  std::vector<std::wstring> const modules(1, L"foms/trellis-demo.xml");
  VariableLengthData const tag("t", 1);
  FederateHandleSet const federates;
  std::set<std::wstring> names;
  names.insert(name);
  ObjectInstanceHandle const object;
  ObjectClassHandle const objectClass;
  InteractionClassHandle const interaction;
  AttributeHandle const attribute;
  AttributeHandleSet const attributes;
  AttributeHandleSet divested;
  AttributeHandleValueMap const values;
  ParameterHandleValueMap const parameters;
  FederateHandle const federate;
  MessageRetractionHandle const retraction;
  DimensionHandle const dimension;
  DimensionHandleSet const dimensions;
  RegionHandle const region;
  RegionHandleSet const regions;
  AttributeHandleSetRegionHandleSetPairVector const pairs;
  HLAinteger64Time time(7);
  HLAinteger64Interval interval(1);

  // Federation management
  EXPECT_NOT_CONNECTED(rti.disconnect());
  EXPECT_NOT_CONNECTED(rti.createFederationExecution(name, L"foms/trellis-demo.xml"));
  EXPECT_NOT_CONNECTED(rti.createFederationExecution(name, L"foms/trellis-demo.xml", L"HLAinteger64Time"));
  EXPECT_NOT_CONNECTED(rti.createFederationExecution(name, modules));
  EXPECT_NOT_CONNECTED(rti.createFederationExecution(name, modules, L"HLAfloat64Time"));
  EXPECT_NOT_CONNECTED(rti.createFederationExecutionWithMIM(name, modules, L"HLAstandardMIM.xml"));
  EXPECT_NOT_CONNECTED(rti.createFederationExecutionWithMIM(name, modules, L"HLAstandardMIM.xml", L"HLAinteger64Time"));
  EXPECT_NOT_CONNECTED(rti.destroyFederationExecution(name));
  EXPECT_NOT_CONNECTED(rti.listFederationExecutions());
  EXPECT_NOT_CONNECTED(rti.joinFederationExecution(L"type", name));
  EXPECT_NOT_CONNECTED(rti.joinFederationExecution(L"type", name, modules));
  EXPECT_NOT_CONNECTED(rti.joinFederationExecution(name, L"type", name));
  EXPECT_NOT_CONNECTED(rti.joinFederationExecution(name, L"type", name, modules));
  EXPECT_NOT_CONNECTED(rti.resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST));
  EXPECT_NOT_CONNECTED(rti.registerFederationSynchronizationPoint(name, tag));
  EXPECT_NOT_CONNECTED(rti.registerFederationSynchronizationPoint(name, tag, federates));
  EXPECT_NOT_CONNECTED(rti.synchronizationPointAchieved(name));
  EXPECT_NOT_CONNECTED(rti.synchronizationPointAchieved(name, false));
  EXPECT_NOT_CONNECTED(rti.requestFederationSave(name));
  EXPECT_NOT_CONNECTED(rti.requestFederationSave(name, time));
  EXPECT_NOT_CONNECTED(rti.federateSaveBegun());
  EXPECT_NOT_CONNECTED(rti.federateSaveComplete());
  EXPECT_NOT_CONNECTED(rti.federateSaveNotComplete());
  EXPECT_NOT_CONNECTED(rti.abortFederationSave());
  EXPECT_NOT_CONNECTED(rti.queryFederationSaveStatus());
  EXPECT_NOT_CONNECTED(rti.requestFederationRestore(name));
  EXPECT_NOT_CONNECTED(rti.federateRestoreComplete());
  EXPECT_NOT_CONNECTED(rti.federateRestoreNotComplete());
  EXPECT_NOT_CONNECTED(rti.abortFederationRestore());
  EXPECT_NOT_CONNECTED(rti.queryFederationRestoreStatus());

  // Declaration management
  EXPECT_NOT_CONNECTED(rti.publishObjectClassAttributes(objectClass, attributes));
  EXPECT_NOT_CONNECTED(rti.unpublishObjectClass(objectClass));
  EXPECT_NOT_CONNECTED(rti.unpublishObjectClassAttributes(objectClass, attributes));
  EXPECT_NOT_CONNECTED(rti.publishInteractionClass(interaction));
  EXPECT_NOT_CONNECTED(rti.unpublishInteractionClass(interaction));
  EXPECT_NOT_CONNECTED(rti.subscribeObjectClassAttributes(objectClass, attributes));
  EXPECT_NOT_CONNECTED(rti.subscribeObjectClassAttributes(objectClass, attributes, false, L"rate"));
  EXPECT_NOT_CONNECTED(rti.unsubscribeObjectClass(objectClass));
  EXPECT_NOT_CONNECTED(rti.unsubscribeObjectClassAttributes(objectClass, attributes));
  EXPECT_NOT_CONNECTED(rti.subscribeInteractionClass(interaction));
  EXPECT_NOT_CONNECTED(rti.subscribeInteractionClass(interaction, false));
  EXPECT_NOT_CONNECTED(rti.unsubscribeInteractionClass(interaction));

  // Object management
  EXPECT_NOT_CONNECTED(rti.reserveObjectInstanceName(name));
  EXPECT_NOT_CONNECTED(rti.releaseObjectInstanceName(name));
  EXPECT_NOT_CONNECTED(rti.reserveMultipleObjectInstanceName(names));
  EXPECT_NOT_CONNECTED(rti.releaseMultipleObjectInstanceName(names));
  EXPECT_NOT_CONNECTED(rti.registerObjectInstance(objectClass));
  EXPECT_NOT_CONNECTED(rti.registerObjectInstance(objectClass, name));
  EXPECT_NOT_CONNECTED(rti.updateAttributeValues(object, values, tag));
  EXPECT_NOT_CONNECTED(MessageRetractionHandle r = rti.updateAttributeValues(object, values, tag, time); (void)r);
  EXPECT_NOT_CONNECTED(rti.sendInteraction(interaction, parameters, tag));
  EXPECT_NOT_CONNECTED(MessageRetractionHandle r = rti.sendInteraction(interaction, parameters, tag, time); (void)r);
  EXPECT_NOT_CONNECTED(rti.deleteObjectInstance(object, tag));
  EXPECT_NOT_CONNECTED(MessageRetractionHandle r = rti.deleteObjectInstance(object, tag, time); (void)r);
  EXPECT_NOT_CONNECTED(rti.localDeleteObjectInstance(object));
  EXPECT_NOT_CONNECTED(rti.requestAttributeValueUpdate(object, attributes, tag));
  EXPECT_NOT_CONNECTED(rti.requestAttributeValueUpdate(objectClass, attributes, tag));
  EXPECT_NOT_CONNECTED(rti.requestAttributeTransportationTypeChange(object, attributes, BEST_EFFORT));
  EXPECT_NOT_CONNECTED(rti.queryAttributeTransportationType(object, attribute));
  EXPECT_NOT_CONNECTED(rti.requestInteractionTransportationTypeChange(interaction, BEST_EFFORT));
  EXPECT_NOT_CONNECTED(rti.queryInteractionTransportationType(federate, interaction));

  // Ownership management
  EXPECT_NOT_CONNECTED(rti.unconditionalAttributeOwnershipDivestiture(object, attributes));
  EXPECT_NOT_CONNECTED(rti.negotiatedAttributeOwnershipDivestiture(object, attributes, tag));
  EXPECT_NOT_CONNECTED(rti.confirmDivestiture(object, attributes, tag));
  EXPECT_NOT_CONNECTED(rti.attributeOwnershipAcquisition(object, attributes, tag));
  EXPECT_NOT_CONNECTED(rti.attributeOwnershipAcquisitionIfAvailable(object, attributes));
  EXPECT_NOT_CONNECTED(rti.attributeOwnershipReleaseDenied(object, attributes));
  EXPECT_NOT_CONNECTED(rti.attributeOwnershipDivestitureIfWanted(object, attributes, divested));
  EXPECT_NOT_CONNECTED(rti.cancelNegotiatedAttributeOwnershipDivestiture(object, attributes));
  EXPECT_NOT_CONNECTED(rti.cancelAttributeOwnershipAcquisition(object, attributes));
  EXPECT_NOT_CONNECTED(rti.queryAttributeOwnership(object, attribute));
  EXPECT_NOT_CONNECTED(bool owned = rti.isAttributeOwnedByFederate(object, attribute); (void)owned);

  // Time management
  EXPECT_NOT_CONNECTED(rti.enableTimeRegulation(interval));
  EXPECT_NOT_CONNECTED(rti.disableTimeRegulation());
  EXPECT_NOT_CONNECTED(rti.enableTimeConstrained());
  EXPECT_NOT_CONNECTED(rti.disableTimeConstrained());
  EXPECT_NOT_CONNECTED(rti.timeAdvanceRequest(time));
  EXPECT_NOT_CONNECTED(rti.timeAdvanceRequestAvailable(time));
  EXPECT_NOT_CONNECTED(rti.nextMessageRequest(time));
  EXPECT_NOT_CONNECTED(rti.nextMessageRequestAvailable(time));
  EXPECT_NOT_CONNECTED(rti.flushQueueRequest(time));
  EXPECT_NOT_CONNECTED(rti.enableAsynchronousDelivery());
  EXPECT_NOT_CONNECTED(rti.disableAsynchronousDelivery());
  EXPECT_NOT_CONNECTED(bool valid = rti.queryGALT(time); (void)valid);
  EXPECT_NOT_CONNECTED(rti.queryLogicalTime(time));
  EXPECT_NOT_CONNECTED(bool valid = rti.queryLITS(time); (void)valid);
  EXPECT_NOT_CONNECTED(rti.modifyLookahead(interval));
  EXPECT_NOT_CONNECTED(rti.queryLookahead(interval));
  EXPECT_NOT_CONNECTED(rti.retract(retraction));
  EXPECT_NOT_CONNECTED(rti.changeAttributeOrderType(object, attributes, TIMESTAMP));
  EXPECT_NOT_CONNECTED(rti.changeInteractionOrderType(interaction, RECEIVE));

  // Data distribution management
  EXPECT_NOT_CONNECTED(RegionHandle r = rti.createRegion(dimensions); (void)r);
  EXPECT_NOT_CONNECTED(rti.commitRegionModifications(regions));
  EXPECT_NOT_CONNECTED(rti.deleteRegion(region));
  EXPECT_NOT_CONNECTED(rti.registerObjectInstanceWithRegions(objectClass, pairs));
  EXPECT_NOT_CONNECTED(rti.registerObjectInstanceWithRegions(objectClass, pairs, name));
  EXPECT_NOT_CONNECTED(rti.associateRegionsForUpdates(object, pairs));
  EXPECT_NOT_CONNECTED(rti.unassociateRegionsForUpdates(object, pairs));
  EXPECT_NOT_CONNECTED(rti.subscribeObjectClassAttributesWithRegions(objectClass, pairs));
  EXPECT_NOT_CONNECTED(rti.subscribeObjectClassAttributesWithRegions(objectClass, pairs, false, L"rate"));
  EXPECT_NOT_CONNECTED(rti.unsubscribeObjectClassAttributesWithRegions(objectClass, pairs));
  EXPECT_NOT_CONNECTED(rti.subscribeInteractionClassWithRegions(interaction, regions));
  EXPECT_NOT_CONNECTED(rti.subscribeInteractionClassWithRegions(interaction, regions, false));
  EXPECT_NOT_CONNECTED(rti.unsubscribeInteractionClassWithRegions(interaction, regions));
  EXPECT_NOT_CONNECTED(rti.sendInteractionWithRegions(interaction, parameters, regions, tag));
  EXPECT_NOT_CONNECTED(MessageRetractionHandle r = rti.sendInteractionWithRegions(interaction, parameters, regions, tag, time); (void)r);
  EXPECT_NOT_CONNECTED(rti.requestAttributeValueUpdateWithRegions(objectClass, pairs, tag));

  // Support services
  EXPECT_NOT_CONNECTED(ResignAction a = rti.getAutomaticResignDirective(); (void)a);
  EXPECT_NOT_CONNECTED(rti.setAutomaticResignDirective(DELETE_OBJECTS));
  EXPECT_NOT_CONNECTED(FederateHandle h = rti.getFederateHandle(name); (void)h);
  EXPECT_NOT_CONNECTED(std::wstring n = rti.getFederateName(federate); (void)n);
  EXPECT_NOT_CONNECTED(ObjectClassHandle h = rti.getObjectClassHandle(name); (void)h);
  EXPECT_NOT_CONNECTED(std::wstring n = rti.getObjectClassName(objectClass); (void)n);
  EXPECT_NOT_CONNECTED(ObjectClassHandle h = rti.getKnownObjectClassHandle(object); (void)h);
  EXPECT_NOT_CONNECTED(ObjectInstanceHandle h = rti.getObjectInstanceHandle(name); (void)h);
  EXPECT_NOT_CONNECTED(std::wstring n = rti.getObjectInstanceName(object); (void)n);
  EXPECT_NOT_CONNECTED(AttributeHandle h = rti.getAttributeHandle(objectClass, name); (void)h);
  EXPECT_NOT_CONNECTED(std::wstring n = rti.getAttributeName(objectClass, attribute); (void)n);
  EXPECT_NOT_CONNECTED(double v = rti.getUpdateRateValue(name); (void)v);
  EXPECT_NOT_CONNECTED(double v = rti.getUpdateRateValueForAttribute(object, attribute); (void)v);
  EXPECT_NOT_CONNECTED(InteractionClassHandle h = rti.getInteractionClassHandle(name); (void)h);
  EXPECT_NOT_CONNECTED(std::wstring n = rti.getInteractionClassName(interaction); (void)n);
  EXPECT_NOT_CONNECTED(ParameterHandle h = rti.getParameterHandle(interaction, name); (void)h);
  EXPECT_NOT_CONNECTED(std::wstring n = rti.getParameterName(interaction, ParameterHandle()); (void)n);
  EXPECT_NOT_CONNECTED(OrderType o = rti.getOrderType(name); (void)o);
  EXPECT_NOT_CONNECTED(std::wstring n = rti.getOrderName(TIMESTAMP); (void)n);
  EXPECT_NOT_CONNECTED(TransportationType t = rti.getTransportationType(name); (void)t);
  EXPECT_NOT_CONNECTED(std::wstring n = rti.getTransportationName(RELIABLE); (void)n);
  EXPECT_NOT_CONNECTED(DimensionHandleSet d = rti.getAvailableDimensionsForClassAttribute(objectClass, attribute); (void)d);
  EXPECT_NOT_CONNECTED(DimensionHandleSet d = rti.getAvailableDimensionsForInteractionClass(interaction); (void)d);
  EXPECT_NOT_CONNECTED(DimensionHandle h = rti.getDimensionHandle(name); (void)h);
  EXPECT_NOT_CONNECTED(std::wstring n = rti.getDimensionName(dimension); (void)n);
  EXPECT_NOT_CONNECTED(unsigned long b = rti.getDimensionUpperBound(dimension); (void)b);
  EXPECT_NOT_CONNECTED(DimensionHandleSet d = rti.getDimensionHandleSet(region); (void)d);
  EXPECT_NOT_CONNECTED(RangeBounds b = rti.getRangeBounds(region, dimension); (void)b);
  EXPECT_NOT_CONNECTED(rti.setRangeBounds(region, dimension, RangeBounds(1, 2)));
  EXPECT_NOT_CONNECTED(unsigned long n = rti.normalizeFederateHandle(federate); (void)n);
  EXPECT_NOT_CONNECTED(unsigned long n = rti.normalizeServiceGroup(OBJECT_MANAGEMENT); (void)n);
  EXPECT_NOT_CONNECTED(rti.enableObjectClassRelevanceAdvisorySwitch());
  EXPECT_NOT_CONNECTED(rti.disableObjectClassRelevanceAdvisorySwitch());
  EXPECT_NOT_CONNECTED(rti.enableAttributeRelevanceAdvisorySwitch());
  EXPECT_NOT_CONNECTED(rti.disableAttributeRelevanceAdvisorySwitch());
  EXPECT_NOT_CONNECTED(rti.enableAttributeScopeAdvisorySwitch());
  EXPECT_NOT_CONNECTED(rti.disableAttributeScopeAdvisorySwitch());
  EXPECT_NOT_CONNECTED(rti.enableInteractionRelevanceAdvisorySwitch());
  EXPECT_NOT_CONNECTED(rti.disableInteractionRelevanceAdvisorySwitch());
  EXPECT_NOT_CONNECTED(rti.enableCallbacks());
  EXPECT_NOT_CONNECTED(rti.disableCallbacks());
}

}  // namespace

int main() {
  RTIambassadorFactory factory;
  // Whichever of std::auto_ptr / std::unique_ptr the standard in use returns.
  RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
  RTI_UNIQUE_PTR<RTIambassador> rti = factory.createRTIambassador();
  RTI_SUPPRESS_AUTO_PTR_WARNING_END
  CHECK(rti.get() != 0);
  everyService(*rti);
  CHECK_EQ(calls, 148);  // each one above ran
  return check::finish("test_services_before_connect");
}
