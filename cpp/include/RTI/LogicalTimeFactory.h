// IEEE 1516.1-2010 C++ API: making logical times and intervals of one implementation.
#ifndef RTI_LogicalTimeFactory_h
#define RTI_LogicalTimeFactory_h

#include <RTI/Exception.h>
#include <RTI/LogicalTime.h>
#include <RTI/LogicalTimeInterval.h>
#include <RTI/SpecificConfig.h>
#include <RTI/VariableLengthData.h>
#include <memory>
#include <string>

namespace rti1516e {

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

class RTI_EXPORT LogicalTimeFactory {
 public:
  virtual ~LogicalTimeFactory();

  // Throw InternalError.
  virtual RTI_UNIQUE_PTR<LogicalTime> makeInitial() = 0;
  virtual RTI_UNIQUE_PTR<LogicalTime> makeFinal() = 0;
  virtual RTI_UNIQUE_PTR<LogicalTimeInterval> makeZero() = 0;
  virtual RTI_UNIQUE_PTR<LogicalTimeInterval> makeEpsilon() = 0;

  // Throw InternalError, CouldNotDecode.
  virtual RTI_UNIQUE_PTR<LogicalTime> decodeLogicalTime(
      VariableLengthData const& encodedLogicalTime) = 0;
  virtual RTI_UNIQUE_PTR<LogicalTime> decodeLogicalTime(void* buffer, size_t bufferSize) = 0;
  virtual RTI_UNIQUE_PTR<LogicalTimeInterval> decodeLogicalTimeInterval(
      VariableLengthData const& encodedValue) = 0;
  virtual RTI_UNIQUE_PTR<LogicalTimeInterval> decodeLogicalTimeInterval(void* buffer,
                                                                        size_t bufferSize) = 0;

  virtual std::wstring getName() const = 0;
};

// The factory of the two standard time types, by name: L"HLAinteger64Time" or
// L"HLAfloat64Time"; an empty name gives HLAinteger64Time. Unknown names give a null pointer.
class RTI_EXPORT HLAlogicalTimeFactoryFactory {
 public:
  static RTI_UNIQUE_PTR<LogicalTimeFactory> makeLogicalTimeFactory(
      std::wstring const& implementationName);
};

// The factory of a user-supplied time library (libfedtime1516e); Trellis's libfedtime1516e
// provides the two standard types under their names.
class RTI_EXPORT_FEDTIME LogicalTimeFactoryFactory {
 public:
  static RTI_UNIQUE_PTR<LogicalTimeFactory> makeLogicalTimeFactory(
      std::wstring const& implementationName);
};

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e

#endif  // RTI_LogicalTimeFactory_h
