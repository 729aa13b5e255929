// IEEE 1516.1-2010 C++ API: the basic value types of the encoding helpers, as the standard
// declares them: Octet is Integer8 (a plain char, so `char` buffers pass to HLAopaqueData and
// HLAbyte without casts), Integer64 is `long` with RTI_USE_64BIT_LONGS, else `long long`
// (Trellis's libraries are built without it: a federate that defines it does not link).
// The standard declares no floating-point typedefs here (the helpers take float and double).
#ifndef RTI_EncodingConfig_h
#define RTI_EncodingConfig_h

#include <RTI/SpecificConfig.h>
#include <utility>
#include <vector>

namespace rti1516e {

typedef char Integer8;
typedef short Integer16;
typedef int Integer32;
#if defined(RTI_USE_64BIT_LONGS)
typedef long Integer64;
#else
typedef long long Integer64;
#endif

typedef Integer8 Octet;
typedef std::pair<Octet, Octet> OctetPair;

}  // namespace rti1516e

#endif  // RTI_EncodingConfig_h
