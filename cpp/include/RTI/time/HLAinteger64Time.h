// IEEE 1516.1-2010 C++ API: HLAinteger64Time, logical time as a 64-bit integer.
#ifndef RTI_HLAinteger64Time_h
#define RTI_HLAinteger64Time_h

#include <RTI/LogicalTime.h>
#include <RTI/encoding/EncodingConfig.h>
#include <RTI/time/HLAinteger64Interval.h>

namespace rti1516e {

class RTI_EXPORT HLAinteger64Time : public LogicalTime {
 public:
  HLAinteger64Time();
  HLAinteger64Time(Integer64 value);
  // Throws InvalidLogicalTime unless value is an HLAinteger64Time.
  HLAinteger64Time(LogicalTime const& value);
  HLAinteger64Time(HLAinteger64Time const& value);
  virtual ~HLAinteger64Time();

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
  virtual Integer64 getTime() const;
  virtual void setTime(Integer64 value);
  virtual HLAinteger64Time& operator=(HLAinteger64Time const& value);
  operator Integer64() const;

 private:
  Integer64 _time;
};

}  // namespace rti1516e

#endif
