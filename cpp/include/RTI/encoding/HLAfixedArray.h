// IEEE 1516.1-2010 C++ API: a fixed array of elements of one type, each at its boundary.
#ifndef RTI_HLAfixedArray_h
#define RTI_HLAfixedArray_h

#include <RTI/encoding/DataElement.h>
#include <vector>

namespace rti1516e {

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

class RTI_EXPORT HLAfixedArray : public DataElement {
 public:
  // `length` copies of the prototype.
  explicit HLAfixedArray(DataElement const& protoType, size_t length);
  HLAfixedArray(HLAfixedArray const& rhs);
  virtual ~HLAfixedArray();

  virtual RTI_UNIQUE_PTR<DataElement> clone() const;
  virtual VariableLengthData encode() const;
  virtual void encode(VariableLengthData& inData) const;
  virtual void encodeInto(std::vector<Octet>& buffer) const;
  virtual void decode(VariableLengthData const& inData);
  virtual size_t decodeFrom(std::vector<Octet> const& buffer, size_t index);
  virtual size_t getEncodedLength() const;
  virtual unsigned int getOctetBoundary() const;
  virtual bool isSameTypeAs(DataElement const& inData) const;
  // Whether dataElement has the type of the array's prototype.
  virtual bool hasPrototypeSameTypeAs(DataElement const& dataElement) const;
  virtual Integer64 hash() const;

  virtual size_t size() const;
  virtual void set(size_t index, DataElement const& dataElement);
  virtual void setElementPointer(size_t index, DataElement* dataElement);
  virtual DataElement const& get(size_t index) const;
  DataElement const& operator[](size_t index) const;

 private:
  HLAfixedArray();
  HLAfixedArray& operator=(HLAfixedArray const& rhs);
  DataElement* _prototype;
  std::vector<DataElement*> _elements;
  std::vector<bool> _owned;
};

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e

#endif  // RTI_HLAfixedArray_h
