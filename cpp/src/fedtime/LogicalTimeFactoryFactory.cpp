// libfedtime1516e: the federation's time library. IEEE 1516.1-2010 lets a federation supply
// its own; Trellis's hands out the two standard types, which live in librti1516e, by name
// (L"HLAinteger64Time", L"HLAfloat64Time", or L"" for HLAinteger64Time).
#include <RTI/LogicalTimeFactory.h>

namespace rti1516e {

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
RTI_UNIQUE_PTR<LogicalTimeFactory> LogicalTimeFactoryFactory::makeLogicalTimeFactory(
    std::wstring const& implementationName) {
  return HLAlogicalTimeFactoryFactory::makeLogicalTimeFactory(implementationName);
}
RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e
