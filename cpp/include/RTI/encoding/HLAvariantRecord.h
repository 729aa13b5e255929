// IEEE 1516.1-2010 C++ API: a variant record: the discriminant, then the alternative it
// selects, at the alternative's boundary.
#ifndef RTI_HLAvariantRecord_h
#define RTI_HLAvariantRecord_h

#include <RTI/encoding/DataElement.h>
#include <vector>

namespace rti1516e {

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

class RTI_EXPORT HLAvariantRecord : public DataElement {
 public:
  explicit HLAvariantRecord(DataElement const& discriminantPrototype);
  HLAvariantRecord(HLAvariantRecord const& rhs);
  virtual ~HLAvariantRecord();

  virtual RTI_UNIQUE_PTR<DataElement> clone() const;
  virtual VariableLengthData encode() const;
  virtual void encode(VariableLengthData& inData) const;
  virtual void encodeInto(std::vector<Octet>& buffer) const;
  virtual void decode(VariableLengthData const& inData);
  virtual size_t decodeFrom(std::vector<Octet> const& buffer, size_t index);
  virtual size_t getEncodedLength() const;
  virtual unsigned int getOctetBoundary() const;
  virtual bool isSameTypeAs(DataElement const& inData) const;
  // Whether inData has the type of the alternative `discriminant` selects (EncoderException
  // when no alternative was added for it).
  virtual bool isSameTypeAs(DataElement const& discriminant, DataElement const& inData) const;
  // Whether dataElement has the type of the discriminant prototype.
  virtual bool hasMatchingDiscriminantTypeAs(DataElement const& dataElement) const;
  virtual Integer64 hash() const;

  // The alternative selected by `discriminant` (a copy of valuePrototype / the caller's).
  virtual void addVariant(DataElement const& discriminant, DataElement const& valuePrototype);
  virtual void addVariantPointer(DataElement const& discriminant, DataElement* valuePtr);
  // EncoderException for a discriminant without an alternative.
  virtual void setDiscriminant(DataElement const& discriminant);
  virtual void setVariant(DataElement const& discriminant, DataElement const& value);
  virtual void setVariantPointer(DataElement const& discriminant, DataElement* valuePtr);
  virtual DataElement const& getDiscriminant() const;
  virtual DataElement const& getVariant() const;

 private:
  HLAvariantRecord();
  HLAvariantRecord& operator=(HLAvariantRecord const& rhs);
  size_t find(DataElement const& discriminant) const;
  DataElement* _discriminant;
  std::vector<DataElement*> _keys;
  std::vector<DataElement*> _values;
  std::vector<bool> _owned;
};

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e

#endif  // RTI_HLAvariantRecord_h
