// Drop-in compatibility, on the standard API only: what federates written for other RTIs
// expect of connect and of callback delivery.
// - Designators: OpenRTI's rti://HOST:PORT and a bare HOST:PORT attach like tcp://.
// - A federate that is connected but not joined and evokes does not burn a core.
// - evokeMultipleCallbacks returns once nothing is ready after a callback (OpenRTI's way),
//   not at the end of its minimum time.
// - Receive-order messages reach a time-constrained federate only while it advances,
//   unless asynchronous delivery is enabled (IEEE 1516.1-2010 §8.1.1, §8.23, §8.24).
#include <RTI/RTI1516.h>
#include <RTI/time/HLAinteger64Time.h>

#include <chrono>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "check.h"
#include "dropin.h"
#include "router.h"

using namespace rti1516e;
using dropin::make;
using dropin::until;

namespace {

typedef dropin::Clock Clock;

struct Events : public NullFederateAmbassador {
  Events() : announced(0), interactions(0), granted(-1), constrained(false), interactionsOn(false) {}
  int announced;
  int interactions;
  long long granted;
  bool constrained, interactionsOn;
  std::vector<std::string> order;  // "interaction" and "grant", as delivered

  void announceSynchronizationPoint(std::wstring const&, VariableLengthData const&) override { ++announced; }
  using NullFederateAmbassador::receiveInteraction;
  void receiveInteraction(InteractionClassHandle, ParameterHandleValueMap const&, VariableLengthData const&,
                          OrderType, TransportationType, SupplementalReceiveInfo) override {
    ++interactions;
    order.push_back("interaction");
  }
  void timeConstrainedEnabled(LogicalTime const&) override { constrained = true; }
  void turnInteractionsOn(InteractionClassHandle) override { interactionsOn = true; }
  void timeAdvanceGrant(LogicalTime const& time) override {
    granted = dynamic_cast<HLAinteger64Time const&>(time).getTime();
    order.push_back("grant");
  }
};


// "tcp://127.0.0.1:PORT" with another scheme, or none.
std::wstring respelled(std::wstring const& designator, std::wstring const& scheme) {
  return scheme + designator.substr(designator.find(L"://") + 3);
}


void designators(std::wstring const& designator) {
  std::wstring const spellings[] = {respelled(designator, L"rti://"), respelled(designator, L"")};
  for (std::wstring const& spelling : spellings) {
    RTIambassador* rti = make();
    NullFederateAmbassador federate;
    try {
      rti->connect(federate, HLA_EVOKED, spelling);
      rti->disconnect();
    } catch (Exception const&) {
      check::fail(__FILE__, __LINE__, "connect threw for a designator other RTIs take");
    }
    delete rti;
  }
  // rti://HOST without a port means OpenRTI's 14321: the designator is taken, whether or
  // not a router answers there.
  RTIambassador* rti = make();
  NullFederateAmbassador federate;
  try {
    rti->connect(federate, HLA_EVOKED, L"rti://127.0.0.1");
    rti->disconnect();
  } catch (ConnectionFailed const&) {
  } catch (Exception const&) {
    check::fail(__FILE__, __LINE__, "rti://127.0.0.1 was refused as a designator");
  }
  delete rti;
}

// A connected federate that is not joined has nothing to wait for: evoke blocks.
void idleEvokeBlocks(std::wstring const& designator) {
  RTIambassador* rti = make();
  NullFederateAmbassador federate;
  rti->connect(federate, HLA_EVOKED, designator);
  std::clock_t const cpu = std::clock();
  Clock::time_point const start = Clock::now();
  rti->evokeCallback(0.5);
  rti->evokeMultipleCallbacks(0.5, 1.0);
  double const wall = std::chrono::duration<double>(Clock::now() - start).count();
  double const used = double(std::clock() - cpu) / CLOCKS_PER_SEC;
  CHECK(wall >= 0.9);
  // Polling took about 40 % of a core (0.4 s here); blocking takes next to nothing.
  if (used > 0.1) check::fail(__FILE__, __LINE__, "evoke while not joined used " + std::to_string(used) + " s of CPU");
  rti->disconnect();
  delete rti;
}

void evokeMultipleAndReceiveOrder(std::wstring const& designator) {
  RTIambassador* a = make();
  RTIambassador* b = make();
  Events fa, fb;
  a->connect(fa, HLA_EVOKED, designator);
  b->connect(fb, HLA_EVOKED, designator);
  std::wstring const federation = L"dropin-delivery";
  a->createFederationExecution(federation, L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml", L"HLAinteger64Time");
  a->joinFederationExecution(L"sender", L"test", federation);
  b->joinFederationExecution(L"receiver", L"test", federation);

  // evokeMultipleCallbacks(5, 10) returns once the announcement is delivered and nothing
  // else is ready, long before its 5 s minimum.
  a->registerFederationSynchronizationPoint(L"one", VariableLengthData());
  Clock::time_point const start = Clock::now();
  b->evokeMultipleCallbacks(5.0, 10.0);
  double const took = std::chrono::duration<double>(Clock::now() - start).count();
  CHECK_EQ(fb.announced, 1);
  if (took >= 4.0) check::fail(__FILE__, __LINE__, "evokeMultipleCallbacks(5, 10) waited " + std::to_string(took) + " s");

  InteractionClassHandle const radio = a->getInteractionClassHandle(L"Radio");
  ParameterHandle const text = a->getParameterHandle(radio, L"Text");
  ParameterHandleValueMap parameters;
  parameters[text] = VariableLengthData("hi", 2);
  a->publishInteractionClass(radio);
  b->subscribeInteractionClass(radio);
  try {
    a->enableInteractionRelevanceAdvisorySwitch();
  } catch (InteractionRelevanceAdvisorySwitchIsOn const&) {
  }
  CHECK(until(*a, *b, [&] { return fa.interactionsOn; }));
  b->enableTimeConstrained();
  CHECK(until(*a, *b, [&] { return fb.constrained; }));
  CHECK_THROWS(b->disableAsynchronousDelivery(), AsynchronousDeliveryAlreadyDisabled);

  // A receive-order interaction, then a fence behind it on the same router: when b hears
  // the fence, the interaction has reached it, and is held while b is not advancing.
  a->sendInteraction(radio, parameters, VariableLengthData());
  a->registerFederationSynchronizationPoint(L"fence", VariableLengthData());
  CHECK(until(*a, *b, [&] { return fb.announced == 2; }));
  CHECK_EQ(fb.interactions, 0);
  b->timeAdvanceRequest(HLAinteger64Time(1));
  CHECK(until(*a, *b, [&] { return fb.granted == 1; }));
  CHECK_EQ(fb.interactions, 1);
  CHECK(!fb.order.empty() && fb.order.front() == "interaction");

  // With asynchronous delivery, they come as they arrive.
  b->enableAsynchronousDelivery();
  CHECK_THROWS(b->enableAsynchronousDelivery(), AsynchronousDeliveryAlreadyEnabled);
  a->sendInteraction(radio, parameters, VariableLengthData());
  CHECK(until(*a, *b, [&] { return fb.interactions == 2; }));
  b->disableAsynchronousDelivery();

  a->resignFederationExecution(NO_ACTION);
  b->resignFederationExecution(NO_ACTION);
  a->destroyFederationExecution(federation);
  a->disconnect();
  b->disconnect();
  delete a;
  delete b;
}

}  // namespace

int main() {
  try {
    TestRouter router;
    designators(router.designator());
    idleEvokeBlocks(router.designator());
    evokeMultipleAndReceiveOrder(router.designator());
  } catch (Exception const& e) {
    check::fail(__FILE__, __LINE__, "unexpected exception: " + check::narrow(e.what()));
  } catch (std::exception const& e) {
    check::fail(__FILE__, __LINE__, e.what());
  }
  return check::finish("test_dropin_delivery");
}
