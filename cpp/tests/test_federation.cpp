// Two federates on the standard API, in one process, through a real `trellis router`:
// connect errors, create / join (the second without FOM modules), a synchronization point,
// publish / subscribe / discover / reflect, an interaction, time management with a
// time-stamp-ordered reflect before the grant, an ownership handover, a region, the
// exceptions services throw, resign and destroy.
#include <RTI/RTI1516.h>

#include <ctime>
#include <string>

#include "check.h"
#include "router.h"

using namespace rti1516e;

namespace {

std::wstring const kFederation = L"cpp-federation-test";

struct Recorder : public NullFederateAmbassador {
  Recorder() : announced(false), synchronized(false), regulating(false), constrained(false), granted(-1),
               reflectTime(-1), reflects(0), tsoReflectBeforeGrant(false), interactions(0), acquired(false),
               discovered(false), registrationAdvised(false), interactionsAdvised(false) {}
  bool announced, synchronized, regulating, constrained;
  long long granted, reflectTime;
  int reflects;
  bool tsoReflectBeforeGrant;
  int interactions;
  bool acquired, discovered;
  bool registrationAdvised, interactionsAdvised;
  ObjectInstanceHandle object;
  std::wstring lastValue;
  FederationExecutionInformationVector federations;

  void announceSynchronizationPoint(std::wstring const& label, VariableLengthData const&) override {
    announced = label == L"ReadyToRun";
  }
  void federationSynchronized(std::wstring const& label, FederateHandleSet const&) override {
    synchronized = label == L"ReadyToRun";
  }
  void startRegistrationForObjectClass(ObjectClassHandle) override { registrationAdvised = true; }
  void turnInteractionsOn(InteractionClassHandle) override { interactionsAdvised = true; }
  void reportFederationExecutions(FederationExecutionInformationVector const& list) override { federations = list; }
  void discoverObjectInstance(ObjectInstanceHandle theObject, ObjectClassHandle, std::wstring const&) override {
    discovered = true;
    object = theObject;
  }
  using NullFederateAmbassador::reflectAttributeValues;
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const& values, VariableLengthData const&,
                              OrderType, TransportationType, SupplementalReflectInfo) override {
    ++reflects;
    remember(values);
  }
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const& values, VariableLengthData const&,
                              OrderType, TransportationType, LogicalTime const& time, OrderType received,
                              MessageRetractionHandle, SupplementalReflectInfo) override {
    ++reflects;
    remember(values);
    reflectTime = dynamic_cast<HLAinteger64Time const&>(time).getTime();
    tsoReflectBeforeGrant = received == TIMESTAMP && granted < reflectTime;
  }
  using NullFederateAmbassador::receiveInteraction;
  void receiveInteraction(InteractionClassHandle, ParameterHandleValueMap const&, VariableLengthData const&,
                          OrderType, TransportationType, SupplementalReceiveInfo) override {
    ++interactions;
  }
  void timeRegulationEnabled(LogicalTime const&) override { regulating = true; }
  void timeConstrainedEnabled(LogicalTime const&) override { constrained = true; }
  void timeAdvanceGrant(LogicalTime const& time) override {
    granted = dynamic_cast<HLAinteger64Time const&>(time).getTime();
  }
  void attributeOwnershipAcquisitionNotification(ObjectInstanceHandle, AttributeHandleSet const&,
                                                 VariableLengthData const&) override {
    acquired = true;
  }

  void remember(AttributeHandleValueMap const& values) {
    if (values.empty()) return;
    VariableLengthData const& v = values.begin()->second;
    std::string const text(static_cast<char const*>(v.data()), v.size());
    lastValue = std::wstring(text.begin(), text.end());
  }
};

// Evoke both ambassadors until `done` holds, at most 20 s; false on timeout.
template <typename Condition>
bool until(RTIambassador& a, RTIambassador& b, Condition done) {
  std::time_t const deadline = std::time(0) + 20;
  while (!done()) {
    if (std::time(0) > deadline) return false;
    a.evokeMultipleCallbacks(0.0, 0.01);
    b.evokeMultipleCallbacks(0.0, 0.01);
  }
  return true;
}

VariableLengthData text(char const* value) { return VariableLengthData(value, std::strlen(value)); }

void connectErrors() {
  RTIambassadorFactory factory;
  RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
  RTI_UNIQUE_PTR<RTIambassador> rti = factory.createRTIambassador();
  RTI_SUPPRESS_AUTO_PTR_WARNING_END
  NullFederateAmbassador federate;
  CHECK_THROWS(rti->connect(federate, HLA_EVOKED, L"tcp://127.0.0.1:1"), ConnectionFailed);
  CHECK_THROWS(rti->connect(federate, HLA_EVOKED, L"tcp://nowhere:port"), InvalidLocalSettingsDesignator);
  CHECK_THROWS(rti->connect(federate, HLA_EVOKED, L"tcp://127.0.0.1:1?bundle_us=soon"), InvalidLocalSettingsDesignator);
  CHECK_THROWS(rti->connect(federate, HLA_EVOKED, L"tcp://127.0.0.1:1?bundle_us=100001"), InvalidLocalSettingsDesignator);
  CHECK_THROWS(rti->getObjectClassHandle(L"Vehicle"), NotConnected);
}

void federation(std::wstring const& designator) {
  RTIambassadorFactory factory;
  RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
  RTI_UNIQUE_PTR<RTIambassador> a = factory.createRTIambassador();
  RTI_UNIQUE_PTR<RTIambassador> b = factory.createRTIambassador();
  RTI_SUPPRESS_AUTO_PTR_WARNING_END
  Recorder fa, fb;
  a->connect(fa, HLA_EVOKED, designator);
  b->connect(fb, HLA_EVOKED, designator);
  CHECK_THROWS(a->connect(fa, HLA_EVOKED, designator), AlreadyConnected);
  std::wstring const fom = L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml";
  a->createFederationExecution(kFederation, fom, L"HLAinteger64Time");
  CHECK_THROWS(a->createFederationExecution(kFederation, fom), FederationExecutionAlreadyExists);
  CHECK_THROWS(a->createFederationExecution(L"other", L"/no/such/fom.xml"), CouldNotOpenFDD);
  FederateHandle const ha = a->joinFederationExecution(L"alpha", L"test", kFederation);
  // No modules: the joiner loads the ones the federation was created with.
  FederateHandle const hb = b->joinFederationExecution(L"test", kFederation);
  CHECK(ha != hb);
  CHECK_THROWS(b->joinFederationExecution(L"again", L"test", kFederation), FederateAlreadyExecutionMember);
  CHECK(a->getFederateName(ha) == L"alpha");
  CHECK(a->getFederateHandle(L"alpha") == ha);

  a->listFederationExecutions();
  CHECK(until(*a, *b, [&] { return !fa.federations.empty(); }));
  CHECK(!fa.federations.empty() && fa.federations[0].logicalTimeImplementationName == L"HLAinteger64Time");

  // Synchronization point
  a->registerFederationSynchronizationPoint(L"ReadyToRun", text("go"));
  CHECK(until(*a, *b, [&] { return fa.announced && fb.announced; }));
  a->synchronizationPointAchieved(L"ReadyToRun");
  b->synchronizationPointAchieved(L"ReadyToRun");
  CHECK(until(*a, *b, [&] { return fa.synchronized && fb.synchronized; }));

  // Declaration and object management
  ObjectClassHandle const vehicle = a->getObjectClassHandle(L"Vehicle");
  CHECK(a->getObjectClassName(vehicle) == L"HLAobjectRoot.Vehicle");
  AttributeHandle const position = a->getAttributeHandle(vehicle, L"Position");
  CHECK(a->getAttributeName(vehicle, position) == L"Position");
  CHECK_THROWS(a->getObjectClassHandle(L"Nope"), NameNotFound);
  AttributeHandleSet attributes;
  attributes.insert(position);
  a->publishObjectClassAttributes(vehicle, attributes);
  b->publishObjectClassAttributes(vehicle, attributes);
  b->subscribeObjectClassAttributes(vehicle, attributes);
  InteractionClassHandle const radio = a->getInteractionClassHandle(L"Radio");
  ParameterHandle const textParameter = a->getParameterHandle(radio, L"Text");
  a->publishInteractionClass(radio);
  b->subscribeInteractionClass(radio);
  // The relevance advisories tell the publisher when the subscriptions have reached it.
  try {
    a->enableObjectClassRelevanceAdvisorySwitch();
  } catch (ObjectClassRelevanceAdvisorySwitchIsOn const&) {
  }
  try {
    a->enableInteractionRelevanceAdvisorySwitch();
  } catch (InteractionRelevanceAdvisorySwitchIsOn const&) {
  }
  CHECK(until(*a, *b, [&] { return fa.registrationAdvised && fa.interactionsAdvised; }));
  ObjectInstanceHandle const tank = a->registerObjectInstance(vehicle);
  CHECK(until(*a, *b, [&] { return fb.discovered; }));
  CHECK(fb.object == tank);
  CHECK(b->getKnownObjectClassHandle(tank) == vehicle);
  AttributeHandleValueMap values;
  values[position] = text("12,34");
  a->updateAttributeValues(tank, values, text("tag"));
  CHECK(until(*a, *b, [&] { return fb.reflects == 1; }));
  CHECK(fb.lastValue == L"12,34");
  ParameterHandleValueMap parameters;
  parameters[textParameter] = text("hello");
  a->sendInteraction(radio, parameters, text(""));
  CHECK(until(*a, *b, [&] { return fb.interactions == 1; }));
  CHECK_THROWS(a->updateAttributeValues(ObjectInstanceHandle(), values, text("")), ObjectInstanceNotKnown);
  CHECK_THROWS(b->updateAttributeValues(tank, values, text("")), AttributeNotOwned);

  // Time management: a time-stamped update arrives before the grant past it.
  a->enableTimeRegulation(HLAinteger64Interval(1));
  b->enableTimeRegulation(HLAinteger64Interval(1));
  CHECK(until(*a, *b, [&] { return fa.regulating && fb.regulating; }));
  a->enableTimeConstrained();
  b->enableTimeConstrained();
  CHECK(until(*a, *b, [&] { return fa.constrained && fb.constrained; }));
  CHECK_THROWS(a->enableTimeRegulation(HLAinteger64Interval(1)), TimeRegulationAlreadyEnabled);
  values[position] = text("56,78");
  a->updateAttributeValues(tank, values, text("t"), HLAinteger64Time(5));
  a->timeAdvanceRequest(HLAinteger64Time(10));
  b->timeAdvanceRequest(HLAinteger64Time(10));
  CHECK_THROWS(a->timeAdvanceRequest(HLAinteger64Time(11)), InTimeAdvancingState);
  CHECK(until(*a, *b, [&] { return fa.granted == 10 && fb.granted == 10; }));
  CHECK_EQ(fb.reflectTime, 5);
  CHECK(fb.tsoReflectBeforeGrant);
  CHECK(fb.lastValue == L"56,78");
  HLAinteger64Time now;
  a->queryLogicalTime(now);
  CHECK_EQ(now.getTime(), 10);
  CHECK_THROWS(a->updateAttributeValues(tank, values, text(""), HLAinteger64Time(3)), InvalidLogicalTime);
  HLAinteger64Interval lookahead;
  a->queryLookahead(lookahead);
  CHECK_EQ(lookahead.getInterval(), 1);

  // Ownership: a gives Position up, b takes it.
  a->unconditionalAttributeOwnershipDivestiture(tank, attributes);
  b->attributeOwnershipAcquisitionIfAvailable(tank, attributes);
  CHECK(until(*a, *b, [&] { return fb.acquired; }));
  CHECK(b->isAttributeOwnedByFederate(tank, position));
  CHECK(!a->isAttributeOwnedByFederate(tank, position));

  // A region and its bounds
  DimensionHandleSet dimensions;
  DimensionHandle const x = a->getDimensionHandle(L"X");
  dimensions.insert(x);
  RegionHandle const region = a->createRegion(dimensions);
  a->setRangeBounds(region, x, RangeBounds(10, 20));
  RegionHandleSet regions;
  regions.insert(region);
  a->commitRegionModifications(regions);
  RangeBounds const bounds = a->getRangeBounds(region, x);
  CHECK_EQ(bounds.getLowerBound(), 10UL);
  CHECK_EQ(bounds.getUpperBound(), 20UL);
  CHECK(a->getDimensionHandleSet(region) == dimensions);
  a->deleteRegion(region);

  CHECK_THROWS(a->disconnect(), FederateIsExecutionMember);
  b->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
  CHECK_THROWS(a->destroyFederationExecution(kFederation), FederatesCurrentlyJoined);
  a->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
  a->destroyFederationExecution(kFederation);
  CHECK_THROWS(a->destroyFederationExecution(kFederation), FederationExecutionDoesNotExist);
  a->disconnect();
  b->disconnect();
}

// A federation created without a logical time implementation name uses HLAfloat64Time, the
// standard's default (third-party federates, Portico's example among them, then regulate with
// an HLAfloat64Interval lookahead).
void defaultTime(std::wstring const& designator) {
  RTIambassadorFactory factory;
  RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
  RTI_UNIQUE_PTR<RTIambassador> a = factory.createRTIambassador();
  RTI_SUPPRESS_AUTO_PTR_WARNING_END
  Recorder fa;
  a->connect(fa, HLA_EVOKED, designator);
  std::vector<std::wstring> modules(1, L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml");
  a->createFederationExecution(L"default-time", modules);
  a->joinFederationExecution(L"test", L"default-time");
  RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
  CHECK(a->getTimeFactory()->getName() == L"HLAfloat64Time");
  RTI_SUPPRESS_AUTO_PTR_WARNING_END
  a->enableTimeRegulation(HLAfloat64Interval(1.0));
  CHECK(until(*a, *a, [&] { return fa.regulating; }));
  a->resignFederationExecution(NO_ACTION);
  a->destroyFederationExecution(L"default-time");
  a->disconnect();
}

}  // namespace

// A federate whose router dies hears connectionLost with the fault, once, and is no longer
// connected (1516.1 §4.4).
struct LostRecorder : public NullFederateAmbassador {
  LostRecorder() : lost(0) {}
  void connectionLost(std::wstring const& fault) override {
    ++lost;
    this->fault = fault;
  }
  int lost;
  std::wstring fault;
};

void connectionLostWhenTheRouterDies() {
  TestRouter router;
  RTIambassadorFactory factory;
  RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
  RTI_UNIQUE_PTR<RTIambassador> a = factory.createRTIambassador();
  RTI_SUPPRESS_AUTO_PTR_WARNING_END
  LostRecorder fa;
  a->connect(fa, HLA_EVOKED, router.designator());
  std::vector<std::wstring> modules(1, L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml");
  a->createFederationExecution(L"lost", modules);
  a->joinFederationExecution(L"test", L"lost");
  router.stop(SIGKILL);
  std::time_t const deadline = std::time(0) + 20;
  while (fa.lost == 0 && std::time(0) <= deadline) a->evokeMultipleCallbacks(0.05, 0.1);
  CHECK(fa.lost == 1);
  CHECK(!fa.fault.empty());
  bool refused = false;
  try {
    a->getObjectClassHandle(L"Vehicle");
  } catch (NotConnected const&) {
    refused = true;
  }
  CHECK(refused);
}

int main() {
  connectErrors();
  try {
    TestRouter router;
    federation(router.designator());
    // Again with publishes bundled: every service above still completes while both tick.
    federation(router.designator() + L"?bundle_us=50");
    defaultTime(router.designator());
    connectionLostWhenTheRouterDies();
  } catch (Exception const& e) {
    check::fail(__FILE__, __LINE__, "unexpected exception: " + check::narrow(e.what()));
  } catch (std::exception const& e) {
    check::fail(__FILE__, __LINE__, e.what());
  }
  return check::finish("test_federation");
}
