// Drop-in compatibility, on the standard API only: advisories between two federates through a
// real router.
// - The attribute scope advisory switch (enable/disableAttributeScopeAdvisorySwitch):
//   attributesInScope when a discovered instance's subscribed attributes are owned by
//   another federate, attributesOutOfScope when one loses its owner or its subscription;
//   turning it on twice (or off twice) is refused with the standard's exceptions.
// - Passive subscriptions (subscribeObjectClassAttributes with active false, the C++ API's
//   form of subscribeObjectClassAttributesPassively): the subscriber gets reflections as an
//   active one does, but the publisher is not told to register or turn updates on;
//   subscribing actively afterwards does.
#include <RTI/RTI1516.h>

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
  Recorder() : discoveries(0), reflects(0) {}
  int discoveries, reflects;
  // "in N" / "out N" per scope callback (N attributes), in order.
  std::vector<std::string> scope;
  std::set<AttributeHandle> lastScope;
  // Registration advice by class, and update advice by instance.
  std::vector<ObjectClassHandle> started;
  std::vector<ObjectInstanceHandle> turnedOn;

  void attributesInScope(ObjectInstanceHandle, AttributeHandleSet const& attributes) override {
    scope.push_back("in " + std::to_string(attributes.size()));
    lastScope = attributes;
  }
  void attributesOutOfScope(ObjectInstanceHandle, AttributeHandleSet const& attributes) override {
    scope.push_back("out " + std::to_string(attributes.size()));
    lastScope = attributes;
  }
  void startRegistrationForObjectClass(ObjectClassHandle theClass) override { started.push_back(theClass); }
  void turnUpdatesOnForObjectInstance(ObjectInstanceHandle object, AttributeHandleSet const&) override {
    turnedOn.push_back(object);
  }
  void turnUpdatesOnForObjectInstance(ObjectInstanceHandle object, AttributeHandleSet const&,
                                      std::wstring const&) override {
    turnedOn.push_back(object);
  }
  void discoverObjectInstance(ObjectInstanceHandle, ObjectClassHandle, std::wstring const&) override {
    ++discoveries;
  }
  using NullFederateAmbassador::reflectAttributeValues;
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const&, VariableLengthData const&,
                              OrderType, TransportationType, SupplementalReflectInfo) override {
    ++reflects;
  }
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

void attributeScope(std::wstring const& designator) {
  Pair p(designator, L"dropin-attribute-scope");
  ObjectClassHandle const vehicle = p.a->getObjectClassHandle(L"Vehicle");
  AttributeHandle const name = p.a->getAttributeHandle(vehicle, L"Name");
  AttributeHandle const position = p.a->getAttributeHandle(vehicle, L"Position");
  AttributeHandleSet both;
  both.insert(name);
  both.insert(position);
  CHECK_THROWS(p.b->disableAttributeScopeAdvisorySwitch(), AttributeScopeAdvisorySwitchIsOff);
  p.b->enableAttributeScopeAdvisorySwitch();
  CHECK_THROWS(p.b->enableAttributeScopeAdvisorySwitch(), AttributeScopeAdvisorySwitchIsOn);
  p.a->publishObjectClassAttributes(vehicle, both);
  p.b->subscribeObjectClassAttributes(vehicle, both);
  ObjectInstanceHandle const car = p.a->registerObjectInstance(vehicle);
  AttributeHandleValueMap values;
  values[name] = text("car");
  // Updates until b's subscription has reached the router and b discovered the car.
  CHECK(p.until([&] {
    p.a->updateAttributeValues(car, values, text(""));
    return !p.fb.scope.empty();
  }));
  CHECK(p.fb.discoveries == 1);
  CHECK(p.fb.scope.size() == 1 && p.fb.scope[0] == "in 2" && p.fb.lastScope == both);

  // The position loses its owner: it leaves scope.
  AttributeHandleSet justPosition;
  justPosition.insert(position);
  p.a->unconditionalAttributeOwnershipDivestiture(car, justPosition);
  CHECK(p.until([&] { return p.fb.scope.size() == 2; }));
  CHECK(p.fb.scope[1] == "out 1" && p.fb.lastScope == justPosition);

  // Unsubscribed, the name leaves scope too.
  p.b->unsubscribeObjectClass(vehicle);
  CHECK(p.until([&] { return p.fb.scope.size() == 3; }));
  AttributeHandleSet justName;
  justName.insert(name);
  CHECK(p.fb.scope[2] == "out 1" && p.fb.lastScope == justName);
  p.b->disableAttributeScopeAdvisorySwitch();
}

void passiveSubscription(std::wstring const& designator) {
  Pair p(designator, L"dropin-passive-subscription");
  ObjectClassHandle const vehicle = p.a->getObjectClassHandle(L"Vehicle");
  ObjectClassHandle const aircraft = p.a->getObjectClassHandle(L"Vehicle.Aircraft");
  AttributeHandle const name = p.a->getAttributeHandle(vehicle, L"Name");
  AttributeHandleSet attributes;
  attributes.insert(name);
  p.a->enableObjectClassRelevanceAdvisorySwitch();
  p.a->enableAttributeRelevanceAdvisorySwitch();
  p.a->publishObjectClassAttributes(vehicle, attributes);
  p.a->publishObjectClassAttributes(aircraft, attributes);
  ObjectInstanceHandle const car = p.a->registerObjectInstance(vehicle);
  p.b->subscribeObjectClassAttributes(vehicle, attributes, false);  // passively
  AttributeHandleValueMap values;
  values[name] = text("car");
  CHECK(p.until([&] {
    p.a->updateAttributeValues(car, values, text(""));
    return p.fb.reflects > 0;
  }));
  // An active subscription made after the passive one: once a is advised of it, it has seen
  // all b declared before, so nothing else it was told can still be on its way.
  p.b->subscribeObjectClassAttributes(aircraft, attributes);
  CHECK(p.until([&] { return !p.fa.started.empty(); }));
  CHECK(p.fa.started.size() == 1 && p.fa.started[0] == aircraft);
  CHECK(p.fa.turnedOn.empty());

  // Subscribed actively, the vehicle's registration and the car's updates are advised.
  p.b->subscribeObjectClassAttributes(vehicle, attributes);
  CHECK(p.until([&] { return p.fa.started.size() == 2 && !p.fa.turnedOn.empty(); }));
  CHECK(p.fa.started[1] == vehicle && p.fa.turnedOn[0] == car);
}

}  // namespace

int main() {
  try {
    TestRouter router;
    attributeScope(router.designator());
    passiveSubscription(router.designator());
  } catch (Exception const& e) {
    check::fail(__FILE__, __LINE__, "unexpected exception: " + check::narrow(e.what()));
  } catch (std::exception const& e) {
    check::fail(__FILE__, __LINE__, e.what());
  }
  return check::finish("test_dropin_advisories");
}
