// The handle classes: a 64-bit value, invalid when all ones, encoded as 8 big-endian bytes.
#include <RTI/Exception.h>
#include <RTI/Handle.h>

#include <ostream>
#include <sstream>

namespace rti1516e {

namespace {
unsigned long long const kInvalid = ~0ULL;
size_t const kEncodedLength = 8;

void putBigEndian(unsigned long long value, unsigned char* out) {
  for (size_t i = 0; i < kEncodedLength; ++i) {
    out[i] = static_cast<unsigned char>(value >> (8 * (kEncodedLength - 1 - i)));
  }
}

unsigned long long decodeValue(VariableLengthData const& encoded, wchar_t const* kind) {
  if (encoded.size() != kEncodedLength) {
    std::wostringstream message;
    message << L"a " << kind << L" is encoded in " << kEncodedLength << L" bytes, not "
            << encoded.size();
    throw CouldNotDecode(message.str());
  }
  unsigned char const* bytes = static_cast<unsigned char const*>(encoded.data());
  unsigned long long value = 0;
  for (size_t i = 0; i < kEncodedLength; ++i) value = (value << 8) | bytes[i];
  return value;
}
}  // namespace

#define TRELLIS_HANDLE_IMPLEMENTATION(HandleKind)                                        \
  HandleKind::HandleKind() : _value(kInvalid) {}                                         \
  HandleKind::~HandleKind() {}                                                           \
  HandleKind::HandleKind(HandleKind const& rhs) : _value(rhs._value) {}                  \
  HandleKind::HandleKind(VariableLengthData const& encodedValue)                         \
      : _value(decodeValue(encodedValue, L## #HandleKind)) {}                            \
  HandleKind& HandleKind::operator=(HandleKind const& rhs) {                             \
    _value = rhs._value;                                                                 \
    return *this;                                                                        \
  }                                                                                      \
  bool HandleKind::isValid() const { return _value != kInvalid; }                        \
  bool HandleKind::operator==(HandleKind const& rhs) const { return _value == rhs._value; } \
  bool HandleKind::operator!=(HandleKind const& rhs) const { return _value != rhs._value; } \
  bool HandleKind::operator<(HandleKind const& rhs) const { return _value < rhs._value; } \
  long HandleKind::hash() const { return static_cast<long>(_value ^ (_value >> 32)); }   \
  VariableLengthData HandleKind::encode() const {                                        \
    unsigned char bytes[kEncodedLength];                                                 \
    putBigEndian(_value, bytes);                                                         \
    return VariableLengthData(bytes, kEncodedLength);                                    \
  }                                                                                      \
  void HandleKind::encode(VariableLengthData& buffer) const { buffer = encode(); }       \
  size_t HandleKind::encode(void* buffer, size_t bufferSize) const {                     \
    if (bufferSize < kEncodedLength) {                                                   \
      throw CouldNotEncode(L"a " L## #HandleKind L" needs 8 bytes of buffer");           \
    }                                                                                    \
    putBigEndian(_value, static_cast<unsigned char*>(buffer));                           \
    return kEncodedLength;                                                               \
  }                                                                                      \
  size_t HandleKind::encodedLength() const { return kEncodedLength; }                    \
  std::wstring HandleKind::toString() const {                                            \
    std::wostringstream text;                                                            \
    if (isValid()) {                                                                     \
      text << L## #HandleKind << L"(" << _value << L")";                                 \
    } else {                                                                             \
      text << L## #HandleKind << L"(invalid)";                                           \
    }                                                                                    \
    return text.str();                                                                   \
  }                                                                                      \
  std::wostream& operator<<(std::wostream& stream, HandleKind const& handle) {           \
    return stream << handle.toString();                                                  \
  }

TRELLIS_HANDLE_IMPLEMENTATION(FederateHandle)
TRELLIS_HANDLE_IMPLEMENTATION(ObjectClassHandle)
TRELLIS_HANDLE_IMPLEMENTATION(InteractionClassHandle)
TRELLIS_HANDLE_IMPLEMENTATION(ObjectInstanceHandle)
TRELLIS_HANDLE_IMPLEMENTATION(AttributeHandle)
TRELLIS_HANDLE_IMPLEMENTATION(ParameterHandle)
TRELLIS_HANDLE_IMPLEMENTATION(DimensionHandle)
TRELLIS_HANDLE_IMPLEMENTATION(MessageRetractionHandle)
TRELLIS_HANDLE_IMPLEMENTATION(RegionHandle)

}  // namespace rti1516e
