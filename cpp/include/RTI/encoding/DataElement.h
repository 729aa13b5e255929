// IEEE 1516.1-2010 C++ API: the base of every encoding helper. Encodings follow IEEE
// 1516.2-2010: each element starts at a multiple of its octet boundary, counted from the
// start of the buffer being encoded into (encodeInto / decodeFrom).
#ifndef RTI_DataElement_h
#define RTI_DataElement_h

#include <RTI/SpecificConfig.h>
#include <RTI/VariableLengthData.h>
#include <RTI/encoding/EncodingConfig.h>
#include <RTI/encoding/EncodingExceptions.h>
#include <memory>
#include <vector>

namespace rti1516e {

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

class RTI_EXPORT DataElement {
 public:
  virtual ~DataElement() = 0;
  virtual RTI_UNIQUE_PTR<DataElement> clone() const = 0;
  // Throw EncoderException.
  virtual VariableLengthData encode() const = 0;
  virtual void encode(VariableLengthData& inData) const = 0;
  virtual void encodeInto(std::vector<Octet>& buffer) const = 0;
  virtual void decode(VariableLengthData const& inData) = 0;
  // Decodes starting at `index` (padding to the boundary first); returns the index after.
  virtual size_t decodeFrom(std::vector<Octet> const& buffer, size_t index) = 0;
  virtual size_t getEncodedLength() const = 0;
  virtual unsigned int getOctetBoundary() const = 0;
  // Same encoding type (the class, and for arrays and records the element types).
  virtual bool isSameTypeAs(DataElement const& inData) const;
  virtual Integer64 hash() const;
};

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e

#endif  // RTI_DataElement_h
