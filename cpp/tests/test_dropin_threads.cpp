// Drop-in compatibility, on the standard API only: a federate that calls services on one
// thread while callbacks are waited for on another.
// - HLA_EVOKED with a thread of the federate's own in evokeCallback: a service called on the
//   main thread meanwhile returns at once; it does not wait for the evoke's 10 s.
// - HLA_IMMEDIATE: the same calls against the library's callback thread, and the callbacks
//   keep coming while the main thread calls services without pause.
// Federates written for other RTIs are built this way (a simulation loop sending updates,
// callbacks taken by another thread); one waiting for the other stalls the simulation.
#include <RTI/RTI1516.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "check.h"
#include "dropin.h"
#include "router.h"

using namespace rti1516e;
using dropin::make;

namespace {

typedef dropin::Clock Clock;

// How long the evoking thread's evokeCallback waits when nothing comes.
double const kEvokeSeconds = 10.0;
// A service call that waited for that evoke would take up to kEvokeSeconds.
double const kCallBoundSeconds = 2.0;
int const kCalls = 100;
// Every this many calls, the peer sends to the federate under test and the test waits until
// its callback is delivered.
int const kPeerEvery = 10;

struct Received : public NullFederateAmbassador {
  Received() : interactions(0) {}
  std::atomic<int> interactions;
  using NullFederateAmbassador::receiveInteraction;
  void receiveInteraction(InteractionClassHandle, ParameterHandleValueMap const&, VariableLengthData const&,
                          OrderType, TransportationType, SupplementalReceiveInfo) override {
    ++interactions;
  }
};

// Wait until `done` holds, at most 20 s, evoking `peer` meanwhile; false on timeout.
template <typename Condition>
bool evokingUntil(RTIambassador& peer, Condition done) {
  Clock::time_point const deadline = Clock::now() + std::chrono::seconds(20);
  while (!done()) {
    if (Clock::now() > deadline) return false;
    peer.evokeMultipleCallbacks(0.0, 0.001);
  }
  return true;
}

// Joins the evoking thread however the test leaves (a failed check may throw past the
// join): its evokeCallback ends with the next callback or after kEvokeSeconds.
struct JoinOnExit {
  JoinOnExit(std::thread& thread, std::atomic<bool>& stop) : thread_(thread), stop_(stop) {}
  ~JoinOnExit() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::thread& thread_;
  std::atomic<bool>& stop_;
};

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

void servicesWhileCallbacksWait(std::wstring const& designator, CallbackModel model, std::wstring const& federation) {
  RTIambassador* tested = make();
  RTIambassador* peer = make();
  Received testedEvents, peerEvents;
  tested->connect(testedEvents, model, designator);
  peer->connect(peerEvents, HLA_EVOKED, designator);
  tested->createFederationExecution(federation, L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml");
  tested->joinFederationExecution(L"tested", L"test", federation);
  peer->joinFederationExecution(L"peer", L"test", federation);
  InteractionClassHandle const radio = tested->getInteractionClassHandle(L"Radio");
  ParameterHandleValueMap parameters;
  parameters[tested->getParameterHandle(radio, L"Text")] = VariableLengthData("hi", 2);
  tested->publishInteractionClass(radio);
  tested->subscribeInteractionClass(radio);
  peer->publishInteractionClass(radio);
  peer->subscribeInteractionClass(radio);

  // HLA_EVOKED: a thread of the federate's own waits for its callbacks, kEvokeSeconds at a time.
  std::atomic<bool> stop(false);
  std::thread evoking;
  if (model == HLA_EVOKED) {
    evoking = std::thread([&] {
      try {
        while (!stop) tested->evokeCallback(kEvokeSeconds);
      } catch (Exception const&) {
        check::fail(__FILE__, __LINE__, "evokeCallback threw on the evoking thread");
      }
    });
  }
  JoinOnExit const joinOnExit(evoking, stop);
  // Interest has to reach both sides before anything counts.
  bool const linked = evokingUntil(*peer, [&] {
    if (testedEvents.interactions > 0 && peerEvents.interactions > 0) return true;
    tested->sendInteraction(radio, parameters, VariableLengthData());
    peer->sendInteraction(radio, parameters, VariableLengthData());
    return false;
  });
  CHECK(linked);
  int const peerReceivedBefore = peerEvents.interactions;

  // Calls on this thread while the other waits for callbacks with nothing arriving.
  double slowest = 0.0;
  int sent = 0;
  for (int call = 1; linked && call <= kCalls; ++call) {
    Clock::time_point const start = Clock::now();
    tested->sendInteraction(radio, parameters, VariableLengthData());
    ++sent;
    slowest = std::max(slowest, secondsSince(start));
    if (slowest >= kCallBoundSeconds) break;
    if (call % kPeerEvery == 0) {
      // Callbacks still come between the calls.
      int const before = testedEvents.interactions;
      peer->sendInteraction(radio, parameters, VariableLengthData());
      CHECK(evokingUntil(*peer, [&] { return testedEvents.interactions > before; }));
    }
  }
  if (slowest >= kCallBoundSeconds) {
    check::fail(__FILE__, __LINE__,
                "a service call waited " + std::to_string(slowest) + " s for the thread waiting for callbacks");
  }
  // What was sent meanwhile arrived.
  CHECK(evokingUntil(*peer, [&] { return peerEvents.interactions >= peerReceivedBefore + sent; }));

  // The evoking thread ends with its next callback.
  stop = true;
  if (evoking.joinable()) {
    peer->sendInteraction(radio, parameters, VariableLengthData());
    evoking.join();
  }
  tested->resignFederationExecution(NO_ACTION);
  peer->resignFederationExecution(NO_ACTION);
  tested->destroyFederationExecution(federation);
  tested->disconnect();
  peer->disconnect();
  delete tested;
  delete peer;
}

}  // namespace

int main() {
  try {
    TestRouter router;
    servicesWhileCallbacksWait(router.designator(), HLA_EVOKED, L"dropin-threads-evoked");
    servicesWhileCallbacksWait(router.designator(), HLA_IMMEDIATE, L"dropin-threads-immediate");
  } catch (Exception const& e) {
    check::fail(__FILE__, __LINE__, "unexpected exception: " + check::narrow(e.what()));
  } catch (std::exception const& e) {
    check::fail(__FILE__, __LINE__, e.what());
  }
  return check::finish("test_dropin_threads");
}
