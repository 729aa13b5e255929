// IEEE 1516.1-2010 C++ API: the interval of HLAfloat64Time (a 64-bit IEEE double).
#ifndef RTI_HLAfloat64Interval_h
#define RTI_HLAfloat64Interval_h

#include <RTI/LogicalTimeInterval.h>
#include <RTI/encoding/EncodingConfig.h>

namespace rti1516e {

class RTI_EXPORT HLAfloat64Interval : public LogicalTimeInterval {
 public:
  HLAfloat64Interval();
  HLAfloat64Interval(double value);
  // Throws InvalidLogicalTimeInterval unless value is an HLAfloat64Interval.
  HLAfloat64Interval(LogicalTimeInterval const& value);
  HLAfloat64Interval(HLAfloat64Interval const& value);
  virtual ~HLAfloat64Interval();

  virtual void setZero();
  virtual bool isZero() const;
  virtual void setEpsilon();
  virtual bool isEpsilon() const;

  virtual LogicalTimeInterval& operator=(LogicalTimeInterval const& value);
  virtual LogicalTimeInterval& operator+=(LogicalTimeInterval const& addend);
  virtual LogicalTimeInterval& operator-=(LogicalTimeInterval const& subtrahend);

  virtual bool operator>(LogicalTimeInterval const& value) const;
  virtual bool operator<(LogicalTimeInterval const& value) const;
  virtual bool operator==(LogicalTimeInterval const& value) const;
  virtual bool operator>=(LogicalTimeInterval const& value) const;
  virtual bool operator<=(LogicalTimeInterval const& value) const;
  virtual void setToDifference(LogicalTime const& minuend, LogicalTime const& subtrahend);

  virtual VariableLengthData encode() const;
  virtual size_t encode(void* buffer, size_t bufferSize) const;
  virtual size_t encodedLength() const;
  virtual void decode(VariableLengthData const& encodedValue);
  virtual void decode(void* buffer, size_t bufferSize);

  virtual std::wstring toString() const;
  virtual std::wstring implementationName() const;

  // After the base class's functions, in the standard's order: getInterval, setInterval,
  // operator= (virtual-table slots a federate built against another RTI's headers uses).
  virtual double getInterval() const;
  virtual void setInterval(double value);
  virtual HLAfloat64Interval& operator=(HLAfloat64Interval const& value);
  operator double() const;

 private:
  double _interval;
};

}  // namespace rti1516e

#endif
