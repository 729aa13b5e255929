// IEEE 1516.1-2010 C++ API: the factory of HLAinteger64Time and HLAinteger64Interval.
#ifndef RTI_HLAinteger64TimeFactory_h
#define RTI_HLAinteger64TimeFactory_h

#include <RTI/LogicalTimeFactory.h>
#include <RTI/time/HLAinteger64Interval.h>
#include <RTI/time/HLAinteger64Time.h>

namespace rti1516e {

// The implementation name createFederationExecution takes for this type (the standard's
// constant).
const std::wstring HLAinteger64TimeName(L"HLAinteger64Time");

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

class RTI_EXPORT HLAinteger64TimeFactory : public LogicalTimeFactory {
 public:
  HLAinteger64TimeFactory();
  virtual ~HLAinteger64TimeFactory();

  virtual RTI_UNIQUE_PTR<HLAinteger64Time> makeLogicalTime(Integer64 value);
  virtual RTI_UNIQUE_PTR<LogicalTime> makeInitial();
  virtual RTI_UNIQUE_PTR<LogicalTime> makeFinal();
  virtual RTI_UNIQUE_PTR<HLAinteger64Interval> makeLogicalTimeInterval(Integer64 value);
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
