// IEEE 1516.1-2010 C++ API: the interval of HLAinteger64Time (a 64-bit integer).
#ifndef RTI_HLAinteger64Interval_h
#define RTI_HLAinteger64Interval_h

#include <RTI/LogicalTimeInterval.h>
#include <RTI/encoding/EncodingConfig.h>

namespace rti1516e {

class RTI_EXPORT HLAinteger64Interval : public LogicalTimeInterval {
 public:
  HLAinteger64Interval();
  HLAinteger64Interval(Integer64 value);
  // Throws InvalidLogicalTimeInterval unless value is an HLAinteger64Interval.
  HLAinteger64Interval(LogicalTimeInterval const& value);
  HLAinteger64Interval(HLAinteger64Interval const& value);
  virtual ~HLAinteger64Interval();

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
  virtual Integer64 getInterval() const;
  virtual void setInterval(Integer64 value);
  virtual HLAinteger64Interval& operator=(HLAinteger64Interval const& value);
  operator Integer64() const;

 private:
  Integer64 _interval;
};

}  // namespace rti1516e

#endif
