// IEEE 1516.1-2010 C++ API: a fixed record, fields in order, each at its octet boundary.
#ifndef RTI_HLAfixedRecord_h
#define RTI_HLAfixedRecord_h

#include <RTI/encoding/DataElement.h>
#include <vector>

namespace rti1516e {

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

class RTI_EXPORT HLAfixedRecord : public DataElement {
 public:
  HLAfixedRecord();
  HLAfixedRecord(HLAfixedRecord const& rhs);
  virtual ~HLAfixedRecord();

  virtual RTI_UNIQUE_PTR<DataElement> clone() const;
  virtual VariableLengthData encode() const;
  virtual void encode(VariableLengthData& inData) const;
  virtual void encodeInto(std::vector<Octet>& buffer) const;
  virtual void decode(VariableLengthData const& inData);
  virtual size_t decodeFrom(std::vector<Octet> const& buffer, size_t index);
  virtual size_t getEncodedLength() const;
  virtual unsigned int getOctetBoundary() const;
  virtual bool isSameTypeAs(DataElement const& inData) const;
  // Whether inData has the type of the element at `index` (false past the end).
  virtual bool hasElementSameTypeAs(size_t index, DataElement const& inData) const;
  virtual Integer64 hash() const;

  // New virtual functions in the standard's order (their virtual-table slots follow it).
  virtual size_t size() const;
  // A copy of the element is appended (owned by the record).
  virtual void appendElement(DataElement const& dataElement);
  // The caller's element is appended by reference (the caller keeps it alive).
  virtual void appendElementPointer(DataElement* dataElement);
  // EncoderException: index out of range, or another type than the field's.
  virtual void set(size_t index, DataElement const& dataElement);
  virtual void setElementPointer(size_t index, DataElement* dataElement);
  virtual DataElement const& get(size_t index) const;
  DataElement const& operator[](size_t index) const;

 private:
  HLAfixedRecord& operator=(HLAfixedRecord const& rhs);
  std::vector<DataElement*> _elements;
  std::vector<bool> _owned;
};

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e

#endif  // RTI_HLAfixedRecord_h
