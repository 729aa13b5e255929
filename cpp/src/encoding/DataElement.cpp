// DataElement's defaults and the encoding exception.
#include <RTI/encoding/DataElement.h>

#include <typeinfo>

namespace rti1516e {

DataElement::~DataElement() {}

bool DataElement::isSameTypeAs(DataElement const& inData) const { return typeid(*this) == typeid(inData); }

// FNV-1a over the encoding: equal values hash equal.
Integer64 DataElement::hash() const {
  VariableLengthData const data = encode();
  unsigned long long h = 1469598103934665603ULL;
  Octet const* bytes = static_cast<Octet const*>(data.data());
  for (size_t i = 0; i < data.size(); ++i) {
    h ^= static_cast<unsigned char>(bytes[i]);
    h *= 1099511628211ULL;
  }
  return static_cast<Integer64>(h);
}

EncoderException::EncoderException(std::wstring const& message) throw() : _msg(message) {}
std::wstring EncoderException::what() const throw() { return _msg; }

}  // namespace rti1516e
