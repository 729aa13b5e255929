// HLAfloat64Time, HLAfloat64Interval, HLAfloat64TimeFactory.
#include <RTI/time/HLAfloat64TimeFactory.h>

#include "HLAtimeImplementation.h"

namespace rti1516e {
RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
TRELLIS_DEFINE_HLA_TIME(HLAfloat64Time, HLAfloat64Interval, HLAfloat64TimeFactory,
                        trellis_time::Float64Values, L"HLAfloat64Time")
RTI_SUPPRESS_AUTO_PTR_WARNING_END
}  // namespace rti1516e
