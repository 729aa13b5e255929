// Drop-in compatibility, on the standard API only: services of IEEE 1516.1-2010 that
// federates written for other RTIs call, each between two federates through a real router.
// - localDeleteObjectInstance (§6.15): the instance is forgotten, its next update discovers
//   it again; refused while the federate owns an attribute of it or does not know it.
// - releaseObjectInstanceName / releaseMultipleObjectInstanceName (§6.5, §6.7): a released
//   name can be reserved by another federate; a name not reserved here is refused.
// - changeAttributeOrderType / changeInteractionOrderType (§8.28, §8.29): a regulating
//   federate's time-stamped update of an attribute changed to RECEIVE goes receive order, and
//   back to TIMESTAMP goes time-stamp order; the same for an interaction class.
// - The transportation services (§6.23-§6.30): a change is confirmed by callback and changes
//   how the updates and interactions travel; a query is answered by a report callback.
// - A service called from inside a callback while evokeMultipleCallbacks has more ready (the
//   standard allows it; the library must not hold its lock across the callback).
// - sendInteractionWithRegions with a time stamp (§9.12): time-stamp order, and only where
//   its regions overlap the subscription's.
#include <RTI/RTI1516.h>
#include <RTI/time/HLAinteger64Time.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "check.h"
#include "dropin.h"
#include "router.h"

using namespace rti1516e;
using dropin::make;

namespace {

struct Recorder : public NullFederateAmbassador {
  Recorder()
      : discoveries(0),
        reflects(0),
        reserved(0),
        refused(0),
        granted(-1),
        regulating(false),
        constrained(false),
        lastTransport(RELIABLE),
        lastInteractionTransport(RELIABLE),
        callInside(0),
        evokesRefusedInside(0) {}
  int discoveries, reflects, reserved, refused;
  long long granted;
  bool regulating, constrained;
  ObjectInstanceHandle discovered;
  std::string lastValue;
  // "reflect VALUE ORDER" and "interaction ORDER", ORDER the sent order (R or T), as handed.
  std::vector<std::string> handed;
  std::vector<std::string> timedInteractions;  // "TEXT at TIME"
  // The transportation callbacks, as "confirm attributes N T", "report attribute T",
  // "confirm interaction T", "report interaction T" (T: R reliable, B best effort).
  std::vector<std::string> transportation;
  TransportationType lastTransport, lastInteractionTransport;  // of the last reflection, interaction

  static char const* letter(TransportationType t) { return t == RELIABLE ? "R" : "B"; }
  void confirmAttributeTransportationTypeChange(ObjectInstanceHandle, AttributeHandleSet attributes,
                                                TransportationType t) override {
    transportation.push_back("confirm attributes " + std::to_string(attributes.size()) + " " + letter(t));
  }
  void reportAttributeTransportationType(ObjectInstanceHandle, AttributeHandle, TransportationType t) override {
    transportation.push_back(std::string("report attribute ") + letter(t));
  }
  void confirmInteractionTransportationTypeChange(InteractionClassHandle, TransportationType t) override {
    transportation.push_back(std::string("confirm interaction ") + letter(t));
  }
  void reportInteractionTransportationType(FederateHandle, InteractionClassHandle, TransportationType t) override {
    transportation.push_back(std::string("report interaction ") + letter(t));
  }

  void timeRegulationEnabled(LogicalTime const&) override { regulating = true; }
  void timeConstrainedEnabled(LogicalTime const&) override { constrained = true; }
  void timeAdvanceGrant(LogicalTime const& time) override {
    granted = dynamic_cast<HLAinteger64Time const&>(time).getTime();
  }
  using NullFederateAmbassador::receiveInteraction;
  void receiveInteraction(InteractionClassHandle c, ParameterHandleValueMap const&, VariableLengthData const&,
                          OrderType sent, TransportationType t, SupplementalReceiveInfo) override {
    handed.push_back(std::string("interaction ") + letter(sent));
    lastInteractionTransport = t;
    if (callInside != 0) {
      namesInside.push_back(callInside->getInteractionClassName(c));
      // Evoking from inside a callback is refused (IEEE 1516.1-2010 §10.41).
      try {
        callInside->evokeCallback(0.0);
      } catch (CallNotAllowedFromWithinCallback const&) {
        ++evokesRefusedInside;
      }
    }
  }
  RTIambassador* callInside;  // when set, receiveInteraction calls a service on it
  std::vector<std::wstring> namesInside;
  int evokesRefusedInside;
  void receiveInteraction(InteractionClassHandle, ParameterHandleValueMap const& parameters, VariableLengthData const&,
                          OrderType sent, TransportationType, LogicalTime const& time, OrderType,
                          MessageRetractionHandle, SupplementalReceiveInfo) override {
    handed.push_back(std::string("interaction ") + letter(sent));
    if (parameters.empty()) return;
    VariableLengthData const& v = parameters.begin()->second;
    timedInteractions.push_back(std::string(static_cast<char const*>(v.data()), v.size()) + " at " +
                                std::to_string(dynamic_cast<HLAinteger64Time const&>(time).getTime()));
  }

  void objectInstanceNameReservationSucceeded(std::wstring const&) override { ++reserved; }
  void objectInstanceNameReservationFailed(std::wstring const&) override { ++refused; }
  void multipleObjectInstanceNameReservationSucceeded(std::set<std::wstring> const&) override { ++reserved; }
  void multipleObjectInstanceNameReservationFailed(std::set<std::wstring> const&) override { ++refused; }
  void discoverObjectInstance(ObjectInstanceHandle theObject, ObjectClassHandle, std::wstring const&) override {
    ++discoveries;
    discovered = theObject;
  }
  using NullFederateAmbassador::reflectAttributeValues;
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const& values, VariableLengthData const&,
                              OrderType sent, TransportationType t, SupplementalReflectInfo) override {
    remember(values, sent);
    lastTransport = t;
  }
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const& values, VariableLengthData const&,
                              OrderType sent, TransportationType, LogicalTime const&, OrderType,
                              MessageRetractionHandle, SupplementalReflectInfo) override {
    remember(values, sent);
  }

  void remember(AttributeHandleValueMap const& values, OrderType sent) {
    ++reflects;
    if (values.empty()) return;
    VariableLengthData const& v = values.begin()->second;
    lastValue.assign(static_cast<char const*>(v.data()), v.size());
    handed.push_back("reflect " + lastValue + " " + letter(sent));
  }
  static char const* letter(OrderType order) { return order == TIMESTAMP ? "T" : "R"; }
};


VariableLengthData text(char const* value) { return VariableLengthData(value, std::strlen(value)); }

// Two federates joined to one federation for the length of a test.
struct Pair {
  Pair(std::wstring const& designator, std::wstring const& federation) : a(make()), b(make()), name(federation) {
    a->connect(fa, HLA_EVOKED, designator);
    b->connect(fb, HLA_EVOKED, designator);
    std::vector<std::wstring> modules(1, L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml");
    a->createFederationExecution(name, modules, L"HLAinteger64Time");
    a->joinFederationExecution(L"a", L"test", name);
    b->joinFederationExecution(L"b", L"test", name);
  }
  ~Pair() {
    try {
      b->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
      a->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
      a->destroyFederationExecution(name);
      a->disconnect();
      b->disconnect();
    } catch (Exception const&) {
      check::fail(__FILE__, __LINE__, "leaving the federation failed");
    }
    delete a;
    delete b;
  }

  // Evoke both until `done` holds, at most 20 s; false on timeout.
  template <typename Condition>
  bool until(Condition done) {
    return dropin::until(*a, *b, done);
  }

  RTIambassador* a;
  RTIambassador* b;
  Recorder fa, fb;
  std::wstring name;

 private:
  Pair(Pair const&);
  Pair& operator=(Pair const&);
};

void localDelete(std::wstring const& designator) {
  Pair p(designator, L"dropin-local-delete");
  ObjectClassHandle const vehicle = p.a->getObjectClassHandle(L"Vehicle");
  AttributeHandle const name = p.a->getAttributeHandle(vehicle, L"Name");
  AttributeHandleSet attributes;
  attributes.insert(name);
  p.a->publishObjectClassAttributes(vehicle, attributes);
  p.b->subscribeObjectClassAttributes(vehicle, attributes);
  ObjectInstanceHandle const car = p.a->registerObjectInstance(vehicle);
  AttributeHandleValueMap values;
  values[name] = text("first");
  // Updates until b's subscription has reached the router and b discovered the car.
  CHECK(p.until([&] {
    p.a->updateAttributeValues(car, values, text(""));
    return p.fb.discoveries == 1;
  }));
  CHECK(p.fb.discovered == car);
  CHECK_THROWS(p.a->localDeleteObjectInstance(car), FederateOwnsAttributes);
  CHECK_THROWS(p.b->localDeleteObjectInstance(ObjectInstanceHandle()), ObjectInstanceNotKnown);
  p.b->localDeleteObjectInstance(car);
  CHECK_THROWS(p.b->localDeleteObjectInstance(car), ObjectInstanceNotKnown);
  CHECK_THROWS(p.b->getKnownObjectClassHandle(car), ObjectInstanceNotKnown);
  values[name] = text("again");
  CHECK(p.until([&] {
    p.a->updateAttributeValues(car, values, text(""));
    return p.fb.discoveries == 2 && p.fb.lastValue == "again";
  }));
  CHECK(p.fb.discovered == car);
  CHECK(p.b->getKnownObjectClassHandle(car) == vehicle);
}

void releaseNames(std::wstring const& designator) {
  Pair p(designator, L"dropin-release-names");
  p.a->reserveObjectInstanceName(L"Tank-1");
  CHECK(p.until([&] { return p.fa.reserved == 1; }));
  p.b->reserveObjectInstanceName(L"Tank-1");
  CHECK(p.until([&] { return p.fb.refused == 1; }));
  CHECK_THROWS(p.b->releaseObjectInstanceName(L"Tank-1"), ObjectInstanceNameNotReserved);
  p.a->releaseObjectInstanceName(L"Tank-1");
  CHECK_THROWS(p.a->releaseObjectInstanceName(L"Tank-1"), ObjectInstanceNameNotReserved);
  p.b->reserveObjectInstanceName(L"Tank-1");
  CHECK(p.until([&] { return p.fb.reserved == 1; }));

  std::set<std::wstring> names;
  names.insert(L"X");
  names.insert(L"Y");
  p.a->reserveMultipleObjectInstanceName(names);
  CHECK(p.until([&] { return p.fa.reserved == 2; }));
  std::set<std::wstring> withStranger(names);
  withStranger.insert(L"Z");
  CHECK_THROWS(p.a->releaseMultipleObjectInstanceName(withStranger), ObjectInstanceNameNotReserved);
  p.b->reserveObjectInstanceName(L"X");
  CHECK(p.until([&] { return p.fb.refused == 2; }));  // all or none: X stayed reserved
  p.a->releaseMultipleObjectInstanceName(names);
  p.b->reserveMultipleObjectInstanceName(names);
  CHECK(p.until([&] { return p.fb.reserved == 2; }));
  // All or none when reserving too: "Free" (first in the set) is reserved before "X" is
  // refused, and given back, so another federate can reserve it.
  std::set<std::wstring> partly;
  partly.insert(L"Free");
  partly.insert(L"X");
  p.a->reserveMultipleObjectInstanceName(partly);
  CHECK(p.until([&] { return p.fa.refused == 1; }));
  p.b->reserveObjectInstanceName(L"Free");
  CHECK(p.until([&] { return p.fb.reserved == 3; }));
}

// Both advance to `time` and are granted it.
bool advance(Pair& p, long long time) {
  p.a->timeAdvanceRequest(HLAinteger64Time(time));
  p.b->timeAdvanceRequest(HLAinteger64Time(time));
  return p.until([&] { return p.fa.granted == time && p.fb.granted == time; });
}

void orderTypes(std::wstring const& designator) {
  Pair p(designator, L"dropin-order-types");
  ObjectClassHandle const vehicle = p.a->getObjectClassHandle(L"Vehicle");
  AttributeHandle const name = p.a->getAttributeHandle(vehicle, L"Name");
  AttributeHandle const position = p.a->getAttributeHandle(vehicle, L"Position");
  InteractionClassHandle const radio = p.a->getInteractionClassHandle(L"Radio");
  ParameterHandle const textParameter = p.a->getParameterHandle(radio, L"Text");
  AttributeHandleSet both, nameOnly;
  both.insert(name);
  both.insert(position);
  nameOnly.insert(name);
  p.a->publishObjectClassAttributes(vehicle, both);
  p.a->publishInteractionClass(radio);
  p.b->subscribeObjectClassAttributes(vehicle, both);
  p.b->subscribeInteractionClass(radio);
  ObjectInstanceHandle const car = p.a->registerObjectInstance(vehicle);
  AttributeHandleValueMap values;
  values[name] = text("n");
  CHECK(p.until([&] {
    p.a->updateAttributeValues(car, values, text(""));
    return p.fb.discoveries == 1;
  }));
  // Name travels reliably, in order: once "synced" is reflected, no earlier update is on the way.
  values[name] = text("synced");
  p.a->updateAttributeValues(car, values, text(""));
  CHECK(p.until([&] { return p.fb.lastValue == "synced"; }));
  values[name] = text("n");
  CHECK_THROWS(p.b->changeAttributeOrderType(car, nameOnly, RECEIVE), AttributeNotOwned);
  CHECK_THROWS(p.b->changeInteractionOrderType(radio, RECEIVE), InteractionClassNotPublished);

  p.a->enableTimeRegulation(HLAinteger64Interval(1));
  p.b->enableTimeConstrained();
  CHECK(p.until([&] { return p.fa.regulating && p.fb.constrained; }));
  p.fb.handed.clear();
  p.a->changeAttributeOrderType(car, nameOnly, RECEIVE);
  p.a->changeInteractionOrderType(radio, RECEIVE);
  values[position] = text("p");
  ParameterHandleValueMap parameters;
  parameters[textParameter] = text("t");
  p.a->updateAttributeValues(car, values, text(""), HLAinteger64Time(5));
  p.a->sendInteraction(radio, parameters, text(""), HLAinteger64Time(5));
  CHECK(advance(p, 10));
  std::vector<std::string> expected;
  expected.push_back("reflect n R");  // receive order: as they come
  expected.push_back("interaction R");
  expected.push_back("reflect p T");  // time-stamp order: at the grant
  CHECK(p.fb.handed == expected);

  p.fb.handed.clear();
  p.a->changeAttributeOrderType(car, nameOnly, TIMESTAMP);
  p.a->changeInteractionOrderType(radio, TIMESTAMP);
  values.erase(position);
  p.a->updateAttributeValues(car, values, text(""), HLAinteger64Time(15));
  p.a->sendInteraction(radio, parameters, text(""), HLAinteger64Time(15));
  CHECK(advance(p, 20));
  expected.clear();
  expected.push_back("reflect n T");
  expected.push_back("interaction T");
  CHECK(p.fb.handed == expected);
}

void transportation(std::wstring const& designator) {
  Pair p(designator, L"dropin-transportation");
  ObjectClassHandle const vehicle = p.a->getObjectClassHandle(L"Vehicle");
  AttributeHandle const name = p.a->getAttributeHandle(vehicle, L"Name");
  AttributeHandle const position = p.a->getAttributeHandle(vehicle, L"Position");
  InteractionClassHandle const radio = p.a->getInteractionClassHandle(L"Radio");
  AttributeHandleSet both, positionOnly;
  both.insert(name);
  both.insert(position);
  positionOnly.insert(position);
  p.a->publishObjectClassAttributes(vehicle, both);
  p.a->publishInteractionClass(radio);
  p.b->subscribeObjectClassAttributes(vehicle, both);
  p.b->subscribeInteractionClass(radio);
  ObjectInstanceHandle const car = p.a->registerObjectInstance(vehicle);
  AttributeHandleValueMap values;
  values[position] = text("before");  // Position is HLAbestEffort in the object model
  CHECK(p.until([&] {
    p.a->updateAttributeValues(car, values, text(""));
    return p.fb.lastValue == "before";
  }));
  CHECK(p.fb.lastTransport == BEST_EFFORT);
  p.b->queryAttributeTransportationType(car, position);
  CHECK_THROWS(p.b->requestAttributeTransportationTypeChange(car, positionOnly, RELIABLE), AttributeNotOwned);
  p.a->requestAttributeTransportationTypeChange(car, positionOnly, RELIABLE);
  p.a->queryAttributeTransportationType(car, position);
  CHECK(p.until([&] { return p.fa.transportation.size() == 2 && p.fb.transportation.size() == 1; }));
  CHECK(p.fb.transportation[0] == "report attribute B");
  CHECK(p.fa.transportation[0] == "confirm attributes 1 R");
  CHECK(p.fa.transportation[1] == "report attribute R");
  values[position] = text("after");
  CHECK(p.until([&] {
    p.a->updateAttributeValues(car, values, text(""));
    return p.fb.lastValue == "after";
  }));
  CHECK(p.fb.lastTransport == RELIABLE);

  CHECK_THROWS(p.b->requestInteractionTransportationTypeChange(radio, BEST_EFFORT), InteractionClassNotPublished);
  p.a->requestInteractionTransportationTypeChange(radio, BEST_EFFORT);
  p.a->queryInteractionTransportationType(p.a->getFederateHandle(L"a"), radio);
  CHECK(p.until([&] { return p.fa.transportation.size() == 4; }));
  CHECK(p.fa.transportation[2] == "confirm interaction B");
  CHECK(p.fa.transportation[3] == "report interaction B");
  ParameterHandleValueMap parameters;
  parameters[p.a->getParameterHandle(radio, L"Text")] = text("t");
  p.fb.handed.clear();
  CHECK(p.until([&] {
    p.a->sendInteraction(radio, parameters, text(""));
    return std::find(p.fb.handed.begin(), p.fb.handed.end(), "interaction R") != p.fb.handed.end();
  }));
  CHECK(p.fb.lastInteractionTransport == BEST_EFFORT);
}

RegionHandle regionOnX(RTIambassador& rti, unsigned long low, unsigned long high) {
  DimensionHandle const x = rti.getDimensionHandle(L"X");
  DimensionHandleSet dimensions;
  dimensions.insert(x);
  RegionHandle const region = rti.createRegion(dimensions);
  rti.setRangeBounds(region, x, RangeBounds(low, high));
  RegionHandleSet regions;
  regions.insert(region);
  rti.commitRegionModifications(regions);
  return region;
}

void timedInteractionWithRegions(std::wstring const& designator) {
  Pair p(designator, L"dropin-timed-regions");
  InteractionClassHandle const radio = p.a->getInteractionClassHandle(L"Radio");
  ParameterHandle const textParameter = p.a->getParameterHandle(radio, L"Text");
  p.a->publishInteractionClass(radio);
  RegionHandleSet west, inside, outside;
  west.insert(regionOnX(*p.b, 0, 500));
  inside.insert(regionOnX(*p.a, 100, 101));
  outside.insert(regionOnX(*p.a, 700, 701));
  p.b->subscribeInteractionClassWithRegions(radio, west);
  ParameterHandleValueMap parameters;
  parameters[textParameter] = text("warm-up");
  CHECK(p.until([&] {
    p.a->sendInteractionWithRegions(radio, parameters, inside, text(""));
    return !p.fb.handed.empty();
  }));
  p.a->enableTimeRegulation(HLAinteger64Interval(1));
  p.b->enableTimeConstrained();
  CHECK(p.until([&] { return p.fa.regulating && p.fb.constrained; }));
  parameters[textParameter] = text("east");
  p.a->sendInteractionWithRegions(radio, parameters, outside, text(""), HLAinteger64Time(5));
  parameters[textParameter] = text("west");
  p.a->sendInteractionWithRegions(radio, parameters, inside, text(""), HLAinteger64Time(5));
  CHECK(advance(p, 10));
  CHECK(p.fb.timedInteractions.size() == 1 && p.fb.timedInteractions[0] == "west at 5");
}

void serviceInsideCallbacks(std::wstring const& designator) {
  Pair p(designator, L"dropin-service-inside-callback");
  InteractionClassHandle const radio = p.a->getInteractionClassHandle(L"Radio");
  p.a->publishInteractionClass(radio);
  p.b->subscribeInteractionClass(radio);
  p.fb.callInside = p.b;
  ParameterHandleValueMap parameters;
  parameters[p.a->getParameterHandle(radio, L"Text")] = text("t");
  // Bursts of ten: b finds several ready at once.
  CHECK(p.until([&] {
    for (int i = 0; i < 10; ++i) p.a->sendInteraction(radio, parameters, text(""));
    return p.fb.namesInside.size() >= 20;
  }));
  CHECK(!p.fb.namesInside.empty() && p.fb.namesInside[0] == L"HLAinteractionRoot.Radio");
  CHECK(p.fb.evokesRefusedInside == static_cast<int>(p.fb.namesInside.size()));
  p.fb.callInside = 0;
  // Outside a callback evoke is allowed again: the mark ends with the evoke that set it.
  bool allowedOutside = true;
  try {
    p.b->evokeCallback(0.0);
  } catch (CallNotAllowedFromWithinCallback const&) {
    allowedOutside = false;
  }
  CHECK(allowedOutside);
}

}  // namespace

int main() {
  try {
    TestRouter router;
    localDelete(router.designator());
    releaseNames(router.designator());
    orderTypes(router.designator());
    transportation(router.designator());
    timedInteractionWithRegions(router.designator());
    serviceInsideCallbacks(router.designator());
  } catch (Exception const& e) {
    check::fail(__FILE__, __LINE__, "unexpected exception: " + check::narrow(e.what()));
  } catch (std::exception const& e) {
    check::fail(__FILE__, __LINE__, e.what());
  }
  return check::finish("test_dropin_services");
}
