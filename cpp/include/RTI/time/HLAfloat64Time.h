// IEEE 1516.1-2010 C++ API: HLAfloat64Time, logical time as a 64-bit IEEE double.
#ifndef RTI_HLAfloat64Time_h
#define RTI_HLAfloat64Time_h

#include <RTI/LogicalTime.h>
#include <RTI/encoding/EncodingConfig.h>
#include <RTI/time/HLAfloat64Interval.h>

namespace rti1516e {

class RTI_EXPORT HLAfloat64Time : public LogicalTime {
 public:
  HLAfloat64Time();
  // double const& as in the standard's header (the mangled name must match).
  HLAfloat64Time(double const& value);
  // Throws InvalidLogicalTime unless value is an HLAfloat64Time.
  HLAfloat64Time(LogicalTime const& value);
  HLAfloat64Time(HLAfloat64Time const& value);
  virtual ~HLAfloat64Time();

  virtual void setInitial();
  virtual bool isInitial() const;
  virtual void setFinal();
  virtual bool isFinal() const;

  virtual LogicalTime& operator=(LogicalTime const& value);
  virtual LogicalTime& operator+=(LogicalTimeInterval const& addend);
  virtual LogicalTime& operator-=(LogicalTimeInterval const& subtrahend);

  virtual bool operator>(LogicalTime const& value) const;
  virtual bool operator<(LogicalTime const& value) const;
  virtual bool operator==(LogicalTime const& value) const;
  virtual bool operator>=(LogicalTime const& value) const;
  virtual bool operator<=(LogicalTime const& value) const;

  virtual VariableLengthData encode() const;
  virtual size_t encode(void* buffer, size_t bufferSize) const;
  virtual size_t encodedLength() const;
  virtual void decode(VariableLengthData const& encodedLogicalTime);
  virtual void decode(void* buffer, size_t bufferSize);

  virtual std::wstring toString() const;
  virtual std::wstring implementationName() const;

  // After the base class's functions, in the standard's order: getTime, setTime, operator=
  // (a federate compiled against another RTI's headers calls them by virtual-table slot).
  virtual double getTime() const;
  virtual void setTime(double value);
  virtual HLAfloat64Time& operator=(HLAfloat64Time const& value);
  operator double() const;

 private:
  double _time;
};

}  // namespace rti1516e

#endif
