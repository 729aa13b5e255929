// Reliable losses reach a C++ federate (issue 32): a subscriber behind a middle router that is
// killed (kill -9) and started again while a publisher behind the root router sends numbered
// updates. What was sent while the middle router was down never arrives; the subscriber hears
// of it through Trellis's ReliableLossListener (RTI/trellis/Extensions.h), the count is also
// in trellis::reliableMessagesLost, and what it is told equals the gaps it counts itself in
// the numbers. Real router processes, real sockets.
#include <RTI/RTI1516.h>
#include <RTI/encoding/BasicDataElements.h>
#include <RTI/trellis/Extensions.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "check.h"
#include "dropin.h"
#include "router.h"

using namespace rti1516e;
using dropin::make;
using dropin::until;

namespace {

struct Subscriber : public NullFederateAmbassador, public trellis::ReliableLossListener {
  Subscriber() : last(-1), received(0), gaps(0), reported(0), reports(0), lostConnection(false) {}
  long long last;
  unsigned long long received, gaps, reported;
  int reports;
  bool lostConnection;

  using NullFederateAmbassador::reflectAttributeValues;
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const& values, VariableLengthData const&,
                              OrderType, TransportationType, SupplementalReflectInfo) override {
    HLAinteger64BE number;
    number.decode(values.begin()->second);
    long long const n = number.get();
    if (n > last + 1 && last >= 0) gaps += static_cast<unsigned long long>(n - last - 1);
    if (n > last) last = n;
    ++received;
  }
  void reliableMessagesLost(FederateHandle const&, bool, unsigned long long count) override {
    reported += count;
    ++reports;
  }
  void connectionLost(std::wstring const&) override { lostConnection = true; }
};

struct Federation {
  RTIambassador* publisher;
  RTIambassador* subscriber;
  ObjectInstanceHandle object;
  AttributeHandle name;
  long long sent;

  void send() {
    AttributeHandleValueMap values;
    values[name] = HLAinteger64BE(sent++).encode();
    publisher->updateAttributeValues(object, values, VariableLengthData());
  }
  void evoke() {
    publisher->evokeMultipleCallbacks(0.0, 0.001);
    subscriber->evokeMultipleCallbacks(0.0, 0.001);
  }
  // Send `count` updates, evoking both federates between them.
  void sendSome(int count) {
    for (int i = 0; i < count; ++i) {
      send();
      evoke();
    }
  }
};

void lossesAcrossARouterKill() {
  TestRouter root;
  TestRouter middle("tcp://127.0.0.1:0", root.address(), "middle");
  std::string const middleAddress = middle.address();
  NullFederateAmbassador publisherEvents;
  Subscriber events;
  Federation f = {make(), make(), ObjectInstanceHandle(), AttributeHandle(), 0};
  f.publisher->connect(publisherEvents, HLA_EVOKED, root.designator());
  f.subscriber->connect(events, HLA_EVOKED, middle.designator());
  std::vector<std::wstring> modules(1, L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml");
  f.publisher->createFederationExecution(L"reliable-losses", modules);
  f.publisher->joinFederationExecution(L"publisher", L"test", L"reliable-losses");
  f.subscriber->joinFederationExecution(L"subscriber", L"test", L"reliable-losses");
  ObjectClassHandle const vehicle = f.publisher->getObjectClassHandle(L"Vehicle");
  // Name is reliable in the demo object model (Position is best effort: its losses are not
  // reliable losses and are never reported).
  f.name = f.publisher->getAttributeHandle(vehicle, L"Name");
  AttributeHandleSet attributes;
  attributes.insert(f.name);
  f.publisher->publishObjectClassAttributes(vehicle, attributes);
  f.subscriber->subscribeObjectClassAttributes(vehicle, attributes);
  f.object = f.publisher->registerObjectInstance(vehicle);
  CHECK(until(*f.publisher, *f.subscriber, [&] {
    f.send();
    return events.received > 0;
  }));
  f.sendSome(200);
  CHECK(until(*f.publisher, *f.subscriber, [&] { return events.last + 1 == f.sent; }));
  CHECK_EQ(events.gaps, 0ULL);

  middle.stop(SIGKILL);
  f.sendSome(200);  // nowhere to go: the subscriber's router is down
  long long const restartedAt = f.sent;
  middle.start(middleAddress, root.address(), "middle");
  // The subscriber's node redials the restarted router; what is sent from then on arrives.
  CHECK(until(*f.publisher, *f.subscriber, [&] {
    f.send();
    return events.last > restartedAt + 100;
  }));
  CHECK(until(*f.publisher, *f.subscriber, [&] { return events.last + 1 == f.sent && events.reported >= events.gaps; }));
  std::printf("sent %lld, received %llu, gaps counted %llu, reported %llu in %d callback(s)\n", f.sent,
              events.received, events.gaps, events.reported, events.reports);
  CHECK(events.gaps >= 200ULL);
  CHECK_EQ(events.reported, events.gaps);
  CHECK(events.reports > 0);
  CHECK_EQ(trellis::reliableMessagesLost(*f.subscriber), events.reported);
  CHECK(!events.lostConnection);
  f.subscriber->resignFederationExecution(NO_ACTION);
  f.publisher->resignFederationExecution(DELETE_OBJECTS);
  f.publisher->destroyFederationExecution(L"reliable-losses");
  delete f.subscriber;
  delete f.publisher;
}

}  // namespace

int main() {
  try {
    lossesAcrossARouterKill();
  } catch (Exception const& e) {
    check::fail(__FILE__, __LINE__, "unexpected exception: " + check::narrow(e.what()));
  } catch (std::exception const& e) {
    check::fail(__FILE__, __LINE__, e.what());
  }
  return check::finish("test_reliable_losses");
}
