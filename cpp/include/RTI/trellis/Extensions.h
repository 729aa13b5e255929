// Trellis's own services beside IEEE 1516.1-2010's, for federates that ask for them. Nothing
// here is needed to run a standard federate; a federate that uses it no longer builds
// against another RTI's headers.
#ifndef TRELLIS_RTI_EXTENSIONS_H
#define TRELLIS_RTI_EXTENSIONS_H

#include <RTI/Handle.h>
#include <RTI/RTIambassador.h>
#include <RTI/SpecificConfig.h>

namespace trellis {

// Reliable messages that never arrived (a router on the way crashed, a link failed with them
// queued): 1516.1 has no callback for them, and a silent gap is worse than an extra
// callback. A FederateAmbassador that also derives from this class hears of each gap, during
// evokeCallback like every other callback; one that does not still has each gap logged as a
// warning (TRELLIS_LOG) and counted (reliableMessagesLost below).
class RTI_EXPORT ReliableLossListener {
 public:
  virtual ~ReliableLossListener();

  // `count` reliable messages from `sender` never arrived; `senderKnown` is false (and
  // `sender` invalid) when this federate has not heard from the sender before.
  virtual void reliableMessagesLost(rti1516e::FederateHandle const& sender, bool senderKnown,
                                    unsigned long long count) = 0;
};

// Reliable messages this federate was told it lost so far (the counts of the gaps above,
// heard or not). Throws NotConnected / FederateNotExecutionMember as the services do, and
// RTIinternalError for an ambassador that is not Trellis's.
RTI_EXPORT unsigned long long reliableMessagesLost(rti1516e::RTIambassador& ambassador);

}  // namespace trellis

#endif
