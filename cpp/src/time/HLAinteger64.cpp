// HLAinteger64Time, HLAinteger64Interval, HLAinteger64TimeFactory.
#include <RTI/time/HLAinteger64TimeFactory.h>

#include "HLAtimeImplementation.h"

namespace rti1516e {
RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
TRELLIS_DEFINE_HLA_TIME(HLAinteger64Time, HLAinteger64Interval, HLAinteger64TimeFactory,
                        trellis_time::Integer64Values, L"HLAinteger64Time")
RTI_SUPPRESS_AUTO_PTR_WARNING_END
}  // namespace rti1516e
