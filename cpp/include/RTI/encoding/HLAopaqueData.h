// IEEE 1516.1-2010 C++ API: opaque bytes: an HLAinteger32BE count, then the bytes.
#ifndef RTI_HLAopaqueData_h
#define RTI_HLAopaqueData_h

#include <RTI/encoding/DataElement.h>
#include <vector>

namespace rti1516e {

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

class RTI_EXPORT HLAopaqueData : public DataElement {
 public:
  HLAopaqueData();
  // Copies dataSize bytes.
  HLAopaqueData(Octet const* inData, size_t dataSize);
  // Refers to the caller's buffer (*inData, bufferSize long, dataSize of it in use).
  HLAopaqueData(Octet** inData, size_t bufferSize, size_t dataSize);
  HLAopaqueData(HLAopaqueData const& rhs);
  virtual ~HLAopaqueData();

  virtual RTI_UNIQUE_PTR<DataElement> clone() const;
  virtual VariableLengthData encode() const;
  virtual void encode(VariableLengthData& inData) const;
  virtual void encodeInto(std::vector<Octet>& buffer) const;
  virtual void decode(VariableLengthData const& inData);
  virtual size_t decodeFrom(std::vector<Octet> const& buffer, size_t index);
  virtual size_t getEncodedLength() const;
  virtual unsigned int getOctetBoundary() const;
  virtual bool isSameTypeAs(DataElement const& inData) const;
  virtual Integer64 hash() const;

  virtual size_t bufferLength() const;
  virtual size_t dataLength() const;
  virtual void setDataPointer(Octet** inData, size_t bufferSize, size_t dataSize);
  virtual void set(Octet const* inData, size_t dataSize);
  virtual Octet const* get() const;
  operator Octet const*() const;

 private:
  HLAopaqueData& operator=(HLAopaqueData const& rhs);
  std::vector<Octet> _data;
  Octet** _reference;
  size_t _bufferSize;
  size_t _dataSize;
};

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e

#endif  // RTI_HLAopaqueData_h
