// IEEE 1516.1-2010 C++ API: the basic value types of the encoding helpers.
#ifndef RTI_EncodingConfig_h
#define RTI_EncodingConfig_h

#include <RTI/SpecificConfig.h>
#include <utility>

namespace rti1516e {

typedef unsigned char Octet;
typedef std::pair<Octet, Octet> OctetPair;
typedef short Integer16;
typedef int Integer32;
typedef long long Integer64;
typedef float Float32;
typedef double Float64;

}  // namespace rti1516e

#endif  // RTI_EncodingConfig_h
