// IEEE 1516.1-2010 C++ API: the abstract logical time.
#ifndef RTI_LogicalTime_h
#define RTI_LogicalTime_h

#include <RTI/Exception.h>
#include <RTI/SpecificConfig.h>
#include <RTI/VariableLengthData.h>
#include <iosfwd>
#include <string>

namespace rti1516e {

class LogicalTimeInterval;

class RTI_EXPORT LogicalTime {
 public:
  virtual ~LogicalTime();

  virtual void setInitial() = 0;
  virtual bool isInitial() const = 0;
  virtual void setFinal() = 0;
  virtual bool isFinal() const = 0;

  // Throws InvalidLogicalTime for another implementation's time.
  virtual LogicalTime& operator=(LogicalTime const& value) = 0;
  // Throw IllegalTimeArithmetic, InvalidLogicalTimeInterval. Trellis's HLAinteger64Time and
  // HLAfloat64Time throw IllegalTimeArithmetic when the result is past the representable
  // range (beyond the 64-bit integers; infinite for doubles) and leave the time unchanged;
  // they do not saturate at the final time.
  virtual LogicalTime& operator+=(LogicalTimeInterval const& addend) = 0;
  virtual LogicalTime& operator-=(LogicalTimeInterval const& subtrahend) = 0;

  // Throw InvalidLogicalTime.
  virtual bool operator>(LogicalTime const& value) const = 0;
  virtual bool operator<(LogicalTime const& value) const = 0;
  virtual bool operator==(LogicalTime const& value) const = 0;
  virtual bool operator>=(LogicalTime const& value) const = 0;
  virtual bool operator<=(LogicalTime const& value) const = 0;

  virtual VariableLengthData encode() const = 0;
  // Throws CouldNotEncode when the buffer is too small.
  virtual size_t encode(void* buffer, size_t bufferSize) const = 0;
  virtual size_t encodedLength() const = 0;
  // Throw InternalError, CouldNotDecode.
  virtual void decode(VariableLengthData const& encodedLogicalTime) = 0;
  virtual void decode(void* buffer, size_t bufferSize) = 0;

  virtual std::wstring toString() const = 0;
  virtual std::wstring implementationName() const = 0;
};

RTI_EXPORT std::wostream& operator<<(std::wostream& stream, LogicalTime const& time);

}  // namespace rti1516e

#endif  // RTI_LogicalTime_h
