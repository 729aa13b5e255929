// What the drop-in compatibility tests share: making an ambassador as a federate does, and
// evoking two federates until something holds.
#ifndef TRELLIS_TESTS_DROPIN_H
#define TRELLIS_TESTS_DROPIN_H

#include <RTI/RTI1516.h>

#include <chrono>

namespace dropin {

typedef std::chrono::steady_clock Clock;

// A new ambassador, owned by the caller (deleted by it).
inline rti1516e::RTIambassador* make() {
  rti1516e::RTIambassadorFactory factory;
  RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
  return factory.createRTIambassador().release();
  RTI_SUPPRESS_AUTO_PTR_WARNING_END
}

// Evoke both ambassadors until `done` holds, at most 20 s; false on timeout.
template <typename Condition>
bool until(rti1516e::RTIambassador& a, rti1516e::RTIambassador& b, Condition done) {
  Clock::time_point const deadline = Clock::now() + std::chrono::seconds(20);
  while (!done()) {
    if (Clock::now() > deadline) return false;
    a.evokeMultipleCallbacks(0.0, 0.01);
    b.evokeMultipleCallbacks(0.0, 0.01);
  }
  return true;
}

}  // namespace dropin

#endif
