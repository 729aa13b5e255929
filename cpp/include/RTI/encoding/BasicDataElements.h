// IEEE 1516.1-2010 C++ API: the basic data representations and simple types of IEEE
// 1516.2-2010 as encoding helpers. Each holds its value, or (constructed from a pointer, or
// after setDataPointer) refers to a variable of the caller's, which it then reads and writes.
#ifndef RTI_BasicDataElements_h
#define RTI_BasicDataElements_h

#include <RTI/SpecificConfig.h>
#include <RTI/encoding/DataElement.h>
#include <RTI/encoding/EncodingConfig.h>
#include <string>

namespace rti1516e {

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

#define RTI_DEFINE_ENCODING_HELPER_CLASS(EncodableDataType, SimpleDataType)  \
  class RTI_EXPORT EncodableDataType : public DataElement {                  \
   public:                                                                   \
    EncodableDataType();                                                     \
    explicit EncodableDataType(SimpleDataType const& inData);                \
    explicit EncodableDataType(SimpleDataType* inData);                      \
    EncodableDataType(EncodableDataType const& rhs);                         \
    virtual ~EncodableDataType();                                            \
    EncodableDataType& operator=(EncodableDataType const& rhs);              \
    EncodableDataType& operator=(SimpleDataType rhs);                        \
    operator SimpleDataType() const;                                         \
    virtual RTI_UNIQUE_PTR<DataElement> clone() const;                       \
    virtual VariableLengthData encode() const;                               \
    virtual void encode(VariableLengthData& inData) const;                   \
    virtual void encodeInto(std::vector<Octet>& buffer) const;               \
    virtual void decode(VariableLengthData const& inData);                   \
    virtual size_t decodeFrom(std::vector<Octet> const& buffer, size_t index); \
    virtual size_t getEncodedLength() const;                                 \
    virtual unsigned int getOctetBoundary() const;                           \
    virtual Integer64 hash() const;                                          \
    virtual void setDataPointer(SimpleDataType* inData);                     \
    virtual void set(SimpleDataType inData);                                 \
    virtual SimpleDataType get() const;                                      \
                                                                             \
   private:                                                                  \
    SimpleDataType _value;                                                   \
    SimpleDataType* _reference;                                              \
  };

RTI_DEFINE_ENCODING_HELPER_CLASS(HLAASCIIchar, char)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAASCIIstring, std::string)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAboolean, bool)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAbyte, Octet)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAfloat32BE, float)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAfloat32LE, float)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAfloat64BE, double)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAfloat64LE, double)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAinteger16BE, Integer16)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAinteger16LE, Integer16)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAinteger32BE, Integer32)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAinteger32LE, Integer32)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAinteger64BE, Integer64)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAinteger64LE, Integer64)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAoctet, Octet)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAoctetPairBE, OctetPair)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAoctetPairLE, OctetPair)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAunicodeChar, wchar_t)
RTI_DEFINE_ENCODING_HELPER_CLASS(HLAunicodeString, std::wstring)

#undef RTI_DEFINE_ENCODING_HELPER_CLASS

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e

#endif  // RTI_BasicDataElements_h
