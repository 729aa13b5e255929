// IEEE 1516.1-2010 C++ API: the factory of HLAfloat64Time and HLAfloat64Interval.
#ifndef RTI_HLAfloat64TimeFactory_h
#define RTI_HLAfloat64TimeFactory_h

#include <RTI/LogicalTimeFactory.h>
#include <RTI/time/HLAfloat64Interval.h>
#include <RTI/time/HLAfloat64Time.h>

namespace rti1516e {

// The implementation name createFederationExecution takes for this type (the standard's
// constant).
const std::wstring HLAfloat64TimeName(L"HLAfloat64Time");

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

class RTI_EXPORT HLAfloat64TimeFactory : public LogicalTimeFactory {
 public:
  HLAfloat64TimeFactory();
  virtual ~HLAfloat64TimeFactory();

  virtual RTI_UNIQUE_PTR<HLAfloat64Time> makeLogicalTime(double value);
  virtual RTI_UNIQUE_PTR<LogicalTime> makeInitial();
  virtual RTI_UNIQUE_PTR<LogicalTime> makeFinal();
  virtual RTI_UNIQUE_PTR<HLAfloat64Interval> makeLogicalTimeInterval(double value);
  virtual RTI_UNIQUE_PTR<LogicalTimeInterval> makeZero();
  virtual RTI_UNIQUE_PTR<LogicalTimeInterval> makeEpsilon();

  virtual RTI_UNIQUE_PTR<LogicalTime> decodeLogicalTime(VariableLengthData const& encodedLogicalTime);
  virtual RTI_UNIQUE_PTR<LogicalTime> decodeLogicalTime(void* buffer, size_t bufferSize);
  virtual RTI_UNIQUE_PTR<LogicalTimeInterval> decodeLogicalTimeInterval(VariableLengthData const& encodedValue);
  virtual RTI_UNIQUE_PTR<LogicalTimeInterval> decodeLogicalTimeInterval(void* buffer, size_t bufferSize);

  virtual std::wstring getName() const;
};

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e

#endif
