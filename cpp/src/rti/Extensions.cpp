// Trellis's own services beside the standard's (RTI/trellis/Extensions.h). The C ABI keeps
// the counts; this file only reaches them from the standard API's types.
#include <RTI/trellis/Extensions.h>

#include "Ambassador.h"
#include "Errors.h"

namespace trellis_cpp {

unsigned long long Ambassador::reliableMessagesLost() {
  uint64_t lost = 0;
  check(trellis_reliable_messages_lost(joined(), &lost));
  return lost;
}

}  // namespace trellis_cpp

namespace trellis {

ReliableLossListener::~ReliableLossListener() {}

unsigned long long reliableMessagesLost(rti1516e::RTIambassador& ambassador) {
  trellis_cpp::Ambassador* own = dynamic_cast<trellis_cpp::Ambassador*>(&ambassador);
  if (own == 0) throw rti1516e::RTIinternalError(L"reliableMessagesLost: this RTIambassador is not Trellis's");
  return own->reliableMessagesLost();
}

}  // namespace trellis
