// IEEE 1516.1-2010 C++ API: a variable array: an HLAinteger32BE count, then the elements,
// each at its boundary.
#ifndef RTI_HLAvariableArray_h
#define RTI_HLAvariableArray_h

#include <RTI/encoding/DataElement.h>
#include <vector>

namespace rti1516e {

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

class RTI_EXPORT HLAvariableArray : public DataElement {
 public:
  explicit HLAvariableArray(DataElement const& protoType);
  HLAvariableArray(HLAvariableArray const& rhs);
  virtual ~HLAvariableArray();

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

  // New virtual functions in the standard's order (their virtual-table slots follow it).
  virtual size_t size() const;
  // Whether dataElement has the type of the array's prototype.
  virtual bool hasPrototypeSameTypeAs(DataElement const& dataElement) const;
  // EncoderException when the element's type is not the prototype's.
  virtual void addElement(DataElement const& dataElement);
  virtual void addElementPointer(DataElement* dataElement);
  virtual void set(size_t index, DataElement const& dataElement);
  virtual void setElementPointer(size_t index, DataElement* dataElement);
  virtual DataElement const& get(size_t index) const;
  DataElement const& operator[](size_t index) const;

 private:
  HLAvariableArray();
  HLAvariableArray& operator=(HLAvariableArray const& rhs);
  void clear();
  DataElement* _prototype;
  std::vector<DataElement*> _elements;
  std::vector<bool> _owned;
};

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e

#endif  // RTI_HLAvariableArray_h
