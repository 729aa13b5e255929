// Drop-in compatibility, on the standard API only: retract (IEEE 1516.1-2010 §8.21) and
// requestRetraction† (§8.22) between three federates through a real router.
// - a regulates and sends time-stamped updates and an interaction; each send returns a
//   valid MessageRetractionHandle of its own.
// - b is constrained: a retracted message still in its time-stamp-order queue is never
//   reflected or received, a kept one is, at its grant.
// - c is neither: it is handed the messages at once, with the same handles a got, and gets
//   requestRetraction with that handle when a retracts.
// - The exceptions: MessageCanNoLongerBeRetracted once a's logical time reached the time
//   stamp (retracted or not), InvalidMessageRetractionHandle for a handle a did not issue or
//   retracted already,
//   TimeRegulationIsNotEnabled for a federate that does not regulate, NotConnected and
//   FederateNotExecutionMember before connecting and joining.
#include <RTI/RTI1516.h>
#include <RTI/time/HLAinteger64Interval.h>
#include <RTI/time/HLAinteger64Time.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "check.h"
#include "dropin.h"
#include "router.h"

using namespace rti1516e;
using dropin::make;

namespace {

std::string valueOf(VariableLengthData const& v) { return std::string(static_cast<char const*>(v.data()), v.size()); }

struct Watcher : public NullFederateAmbassador {
  Watcher() : regulating(false), constrained(false), granted(-1), discoveries(0) {}
  bool regulating, constrained;
  long long granted;
  int discoveries;
  // Time-stamped reflections and interactions as handed: value, and the handle they carried.
  std::map<std::string, MessageRetractionHandle> reflected, received;
  std::vector<OrderType> receivedOrders;  // of the time-stamped reflections
  std::vector<MessageRetractionHandle> retractionRequests;

  void timeRegulationEnabled(LogicalTime const&) override { regulating = true; }
  void timeConstrainedEnabled(LogicalTime const&) override { constrained = true; }
  void timeAdvanceGrant(LogicalTime const& time) override {
    granted = dynamic_cast<HLAinteger64Time const&>(time).getTime();
  }
  void discoverObjectInstance(ObjectInstanceHandle, ObjectClassHandle, std::wstring const&) override {
    ++discoveries;
  }
  using NullFederateAmbassador::reflectAttributeValues;
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const& values, VariableLengthData const&,
                              OrderType, TransportationType, LogicalTime const&, OrderType receivedOrder,
                              MessageRetractionHandle handle, SupplementalReflectInfo) override {
    if (values.empty()) return;
    reflected[valueOf(values.begin()->second)] = handle;
    receivedOrders.push_back(receivedOrder);
  }
  using NullFederateAmbassador::receiveInteraction;
  void receiveInteraction(InteractionClassHandle, ParameterHandleValueMap const& parameters, VariableLengthData const&,
                          OrderType, TransportationType, LogicalTime const&, OrderType, MessageRetractionHandle handle,
                          SupplementalReceiveInfo) override {
    if (parameters.empty()) return;
    received[valueOf(parameters.begin()->second)] = handle;
  }
  void requestRetraction(MessageRetractionHandle handle) override { retractionRequests.push_back(handle); }

  bool askedToRetract(MessageRetractionHandle const& handle) const {
    for (size_t i = 0; i < retractionRequests.size(); ++i) {
      if (retractionRequests[i] == handle) return true;
    }
    return false;
  }
};

VariableLengthData text(char const* value) { return VariableLengthData(value, std::strlen(value)); }

// Three federates joined to one federation for the length of the test: a regulates, b is
// constrained, c neither.
struct Three {
  explicit Three(std::wstring const& designator) : a(make()), b(make()), c(make()) {
    a->connect(fa, HLA_EVOKED, designator);
    b->connect(fb, HLA_EVOKED, designator);
    c->connect(fc, HLA_EVOKED, designator);
    std::vector<std::wstring> modules(1, L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml");
    a->createFederationExecution(L"dropin-retract", modules, L"HLAinteger64Time");
    a->joinFederationExecution(L"a", L"test", L"dropin-retract");
    b->joinFederationExecution(L"b", L"test", L"dropin-retract");
    c->joinFederationExecution(L"c", L"test", L"dropin-retract");
  }
  ~Three() {
    try {
      c->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
      b->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
      a->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
      a->destroyFederationExecution(L"dropin-retract");
      a->disconnect();
      b->disconnect();
      c->disconnect();
    } catch (Exception const&) {
      check::fail(__FILE__, __LINE__, "leaving the federation failed");
    }
    delete a;
    delete b;
    delete c;
  }

  // Evoke all three until `done` holds, at most 20 s; false on timeout.
  template <typename Condition>
  bool until(Condition done) {
    return dropin::until(*a, *b, [&] {
      c->evokeMultipleCallbacks(0.0, 0.01);
      return done();
    });
  }

  RTIambassador* a;
  RTIambassador* b;
  RTIambassador* c;
  Watcher fa, fb, fc;

 private:
  Three(Three const&);
  Three& operator=(Three const&);
};

void retract(std::wstring const& designator) {
  Three f(designator);
  ObjectClassHandle const vehicle = f.a->getObjectClassHandle(L"Vehicle");
  AttributeHandle const name = f.a->getAttributeHandle(vehicle, L"Name");
  InteractionClassHandle const radio = f.a->getInteractionClassHandle(L"Radio");
  ParameterHandle const words = f.a->getParameterHandle(radio, L"Text");
  AttributeHandleSet attributes;
  attributes.insert(name);
  f.a->publishObjectClassAttributes(vehicle, attributes);
  f.a->publishInteractionClass(radio);
  f.b->subscribeObjectClassAttributes(vehicle, attributes);
  f.c->subscribeObjectClassAttributes(vehicle, attributes);
  f.b->subscribeInteractionClass(radio);
  f.c->subscribeInteractionClass(radio);
  ObjectInstanceHandle const car = f.a->registerObjectInstance(vehicle);
  AttributeHandleValueMap values;
  values[name] = text("receive order");
  // Receive-order updates until both subscriptions reached the router.
  CHECK(f.until([&] {
    f.a->updateAttributeValues(car, values, text(""));
    return f.fb.discoveries == 1 && f.fc.discoveries == 1;
  }));

  f.a->enableTimeRegulation(HLAinteger64Interval(1));
  CHECK(f.until([&] { return f.fa.regulating; }));
  f.b->enableTimeConstrained();
  CHECK(f.until([&] { return f.fb.constrained; }));

  values[name] = text("retracted update");
  MessageRetractionHandle const update = f.a->updateAttributeValues(car, values, text(""), HLAinteger64Time(5));
  ParameterHandleValueMap parameters;
  parameters[words] = text("retracted interaction");
  MessageRetractionHandle const interaction = f.a->sendInteraction(radio, parameters, text(""), HLAinteger64Time(6));
  values[name] = text("kept");
  MessageRetractionHandle const kept = f.a->updateAttributeValues(car, values, text(""), HLAinteger64Time(7));
  CHECK(update.isValid());
  CHECK(interaction.isValid());
  CHECK(kept.isValid());
  CHECK(update != interaction && interaction != kept && update != kept);

  // c is handed all three at once, in receive order, with the handles a got.
  CHECK(f.until([&] { return f.fc.reflected.size() == 2 && f.fc.received.size() == 1; }));
  CHECK(f.fc.reflected["retracted update"] == update);
  CHECK(f.fc.reflected["kept"] == kept);
  CHECK(f.fc.received["retracted interaction"] == interaction);
  CHECK(f.fc.receivedOrders.size() == 2 && f.fc.receivedOrders[0] == RECEIVE);

  f.a->retract(update);
  f.a->retract(interaction);
  CHECK_THROWS(f.a->retract(update), InvalidMessageRetractionHandle);  // retracted already
  CHECK(f.until([&] { return f.fc.askedToRetract(update) && f.fc.askedToRetract(interaction); }));
  CHECK_EQ(f.fc.retractionRequests.size(), 2u);

  f.a->timeAdvanceRequest(HLAinteger64Time(10));
  f.b->timeAdvanceRequest(HLAinteger64Time(10));
  CHECK(f.until([&] { return f.fa.granted == 10 && f.fb.granted == 10; }));
  // b held both retracted messages and dropped them: only the kept update is reflected.
  CHECK_EQ(f.fb.reflected.size(), 1u);
  CHECK(f.fb.reflected.count("kept") == 1 && f.fb.reflected["kept"] == kept);
  CHECK(f.fb.receivedOrders.size() == 1 && f.fb.receivedOrders[0] == TIMESTAMP);
  CHECK(f.fb.received.empty());
  CHECK(f.fb.retractionRequests.empty());

  // The exceptions.
  CHECK_THROWS(f.a->retract(kept), MessageCanNoLongerBeRetracted);
  CHECK_THROWS(f.a->retract(update), MessageCanNoLongerBeRetracted);  // its time has passed too
  CHECK_THROWS(f.a->retract(MessageRetractionHandle()), InvalidMessageRetractionHandle);
  CHECK_THROWS(f.b->retract(kept), TimeRegulationIsNotEnabled);
  values[name] = text("late");
  MessageRetractionHandle const late = f.a->updateAttributeValues(car, values, text(""), HLAinteger64Time(20));
  CHECK_THROWS(f.b->retract(late), TimeRegulationIsNotEnabled);
  f.a->retract(late);
}

void retractBeforeJoining(std::wstring const& designator) {
  RTIambassador* rti = make();
  NullFederateAmbassador quiet;
  CHECK_THROWS(rti->retract(MessageRetractionHandle()), NotConnected);
  rti->connect(quiet, HLA_EVOKED, designator);
  CHECK_THROWS(rti->retract(MessageRetractionHandle()), FederateNotExecutionMember);
  rti->disconnect();
  delete rti;
}

}  // namespace

int main() {
  try {
    TestRouter router;
    retractBeforeJoining(router.designator());
    retract(router.designator());
  } catch (Exception const& e) {
    check::fail(__FILE__, __LINE__, "unexpected exception: " + check::narrow(e.what()));
  } catch (std::exception const& e) {
    check::fail(__FILE__, __LINE__, e.what());
  }
  return check::finish("test_dropin_retract");
}
