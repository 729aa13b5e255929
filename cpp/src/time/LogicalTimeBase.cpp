// The abstract time classes' destructors and stream operators, and the RTI's factory of the
// standard time types by name (libfedtime1516e's LogicalTimeFactoryFactory forwards to it).
#include <RTI/LogicalTimeFactory.h>
#include <RTI/time/HLAfloat64TimeFactory.h>
#include <RTI/time/HLAinteger64TimeFactory.h>

#include <ostream>

namespace rti1516e {

LogicalTime::~LogicalTime() {}
LogicalTimeInterval::~LogicalTimeInterval() {}
LogicalTimeFactory::~LogicalTimeFactory() {}

std::wostream& operator<<(std::wostream& stream, LogicalTime const& time) {
  return stream << time.toString();
}
std::wostream& operator<<(std::wostream& stream, LogicalTimeInterval const& interval) {
  return stream << interval.toString();
}

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
RTI_UNIQUE_PTR<LogicalTimeFactory> HLAlogicalTimeFactoryFactory::makeLogicalTimeFactory(
    std::wstring const& implementationName) {
  if (implementationName.empty() || implementationName == L"HLAinteger64Time")
    return RTI_UNIQUE_PTR<LogicalTimeFactory>(new HLAinteger64TimeFactory());
  if (implementationName == L"HLAfloat64Time")
    return RTI_UNIQUE_PTR<LogicalTimeFactory>(new HLAfloat64TimeFactory());
  return RTI_UNIQUE_PTR<LogicalTimeFactory>();
}
RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e
