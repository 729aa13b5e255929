// The basic data representations of IEEE 1516.2-2010 (Table 24–26): fixed-size integers and
// floats in either byte order, octets, HLAboolean (as HLAinteger32BE), characters and
// strings (an HLAinteger32BE count, then ASCII octets or UTF-16BE code units).
#include <RTI/encoding/BasicDataElements.h>

#include <cstring>
#include <sstream>

#include "Padding.h"

namespace rti1516e {

namespace {

using trellis_encoding::getUnsigned;
using trellis_encoding::need;
using trellis_encoding::pad;
using trellis_encoding::padded;
using trellis_encoding::putUnsigned;

// How one simple type encodes: boundary, length, put, get.
template <typename T, size_t Bytes, bool BigEndian>
struct Fixed {
  static unsigned int boundary() { return Bytes; }
  static size_t length(T const&) { return Bytes; }
  static void put(std::vector<Octet>& out, T const& value) {
    unsigned long long bits = 0;
    std::memcpy(&bits, &value, Bytes);  // the value's bytes, least significant first (a little-endian host)
    putUnsigned(out, bits, Bytes, BigEndian);
  }
  static size_t get(std::vector<Octet> const& in, size_t index, T& value, wchar_t const* what) {
    need(in, index, Bytes, what);
    unsigned long long const bits = getUnsigned(in, index, Bytes, BigEndian);
    std::memcpy(&value, &bits, Bytes);
    return index + Bytes;
  }
};

struct Boolean {
  static unsigned int boundary() { return 4; }
  static size_t length(bool const&) { return 4; }
  static void put(std::vector<Octet>& out, bool const& value) { putUnsigned(out, value ? 1 : 0, 4, true); }
  static size_t get(std::vector<Octet> const& in, size_t index, bool& value, wchar_t const* what) {
    need(in, index, 4, what);
    value = getUnsigned(in, index, 4, true) != 0;
    return index + 4;
  }
};

struct OctetPairCodec {
  template <bool BigEndian>
  struct Order {
    static unsigned int boundary() { return 2; }
    static size_t length(OctetPair const&) { return 2; }
    static void put(std::vector<Octet>& out, OctetPair const& value) {
      out.push_back(BigEndian ? value.first : value.second);
      out.push_back(BigEndian ? value.second : value.first);
    }
    static size_t get(std::vector<Octet> const& in, size_t index, OctetPair& value, wchar_t const* what) {
      need(in, index, 2, what);
      value = BigEndian ? OctetPair(in[index], in[index + 1]) : OctetPair(in[index + 1], in[index]);
      return index + 2;
    }
  };
};

// HLAunicodeChar: one UTF-16BE code unit (characters outside the BMP need a string).
struct UnicodeChar {
  static unsigned int boundary() { return 2; }
  static size_t length(wchar_t const&) { return 2; }
  static void put(std::vector<Octet>& out, wchar_t const& value) {
    putUnsigned(out, static_cast<unsigned long long>(value) & 0xFFFF, 2, true);
  }
  static size_t get(std::vector<Octet> const& in, size_t index, wchar_t& value, wchar_t const* what) {
    need(in, index, 2, what);
    value = static_cast<wchar_t>(getUnsigned(in, index, 2, true));
    return index + 2;
  }
};

size_t getCount(std::vector<Octet> const& in, size_t index, size_t unit, wchar_t const* what) {
  need(in, index, 4, what);
  size_t const count = static_cast<size_t>(getUnsigned(in, index, 4, true));
  need(in, index + 4, count * unit, what);
  return count;
}

struct AsciiString {
  static unsigned int boundary() { return 4; }
  static size_t length(std::string const& value) { return 4 + value.size(); }
  static void put(std::vector<Octet>& out, std::string const& value) {
    putUnsigned(out, value.size(), 4, true);
    out.insert(out.end(), value.begin(), value.end());
  }
  static size_t get(std::vector<Octet> const& in, size_t index, std::string& value, wchar_t const* what) {
    size_t const count = getCount(in, index, 1, what);
    value.assign(in.begin() + index + 4, in.begin() + index + 4 + count);
    return index + 4 + count;
  }
};

// HLAunicodeString is an HLAvariableArray of HLAunicodeChar (IEEE 1516.2-2010, Table 26):
// UTF-16BE code units. A wide string maps to them one for one, as given: a wchar_t up to
// 0xFFFF is one code unit (a surrogate too, alone or in a pair held as two wchar_t), and
// decoding yields one wchar_t per code unit, never joining a pair, so decode(encode(s)) == s
// for every string of code units and encode(decode(b)) == b for every encoding. Where wchar_t
// is 32 bits (Linux), a character above 0xFFFF held in one wchar_t is encoded as its surrogate
// pair (the only UTF-16 for it) and so decodes as those two code units. A wchar_t that is no
// Unicode code point (above 0x10FFFF, or negative) is refused, naming it and where it is.
std::vector<unsigned> utf16(std::wstring const& text) {
  std::vector<unsigned> units;
  units.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned long c = static_cast<unsigned long>(text[i]);
    if (sizeof(wchar_t) > 2 && c > 0x10FFFF) {
      std::wostringstream message;
      message << L"HLAunicodeString: character " << i << L" (0x" << std::hex << c << L") is no Unicode code point";
      throw EncoderException(message.str());
    }
    if (sizeof(wchar_t) > 2 && c >= 0x10000) {
      c -= 0x10000;
      units.push_back(static_cast<unsigned>(0xD800 + (c >> 10)));
      units.push_back(static_cast<unsigned>(0xDC00 + (c & 0x3FF)));
    } else {
      units.push_back(static_cast<unsigned>(c & 0xFFFF));
    }
  }
  return units;
}

struct UnicodeString {
  static unsigned int boundary() { return 4; }
  static size_t length(std::wstring const& value) { return 4 + 2 * utf16(value).size(); }
  static void put(std::vector<Octet>& out, std::wstring const& value) {
    std::vector<unsigned> const units = utf16(value);
    putUnsigned(out, units.size(), 4, true);
    for (size_t i = 0; i < units.size(); ++i) putUnsigned(out, units[i], 2, true);
  }
  static size_t get(std::vector<Octet> const& in, size_t index, std::wstring& value, wchar_t const* what) {
    size_t const count = getCount(in, index, 2, what);
    value.clear();
    value.reserve(count);
    for (size_t i = 0; i < count; ++i)
      value += static_cast<wchar_t>(getUnsigned(in, index + 4 + 2 * i, 2, true));
    return index + 4 + 2 * count;
  }
};

// One codec per helper class.
typedef Fixed<char, 1, true> AsciiCharCodec;
typedef Fixed<Octet, 1, true> ByteCodec;
typedef Fixed<float, 4, true> Float32BECodec;
typedef Fixed<float, 4, false> Float32LECodec;
typedef Fixed<double, 8, true> Float64BECodec;
typedef Fixed<double, 8, false> Float64LECodec;
typedef Fixed<Integer16, 2, true> Integer16BECodec;
typedef Fixed<Integer16, 2, false> Integer16LECodec;
typedef Fixed<Integer32, 4, true> Integer32BECodec;
typedef Fixed<Integer32, 4, false> Integer32LECodec;
typedef Fixed<Integer64, 8, true> Integer64BECodec;
typedef Fixed<Integer64, 8, false> Integer64LECodec;
typedef Fixed<Octet, 1, true> OctetCodec;
typedef OctetPairCodec::Order<true> PairBE;
typedef OctetPairCodec::Order<false> PairLE;

}  // namespace

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

#define TRELLIS_BASIC_ELEMENT(Type, Simple, Codec)                                            \
  Type::Type() : _value(), _reference(0) {}                                                  \
  Type::Type(Simple const& inData) : _value(inData), _reference(0) {}                        \
  Type::Type(Simple* inData) : _value(), _reference(inData) {}                               \
  Type::Type(Type const& rhs) : DataElement(), _value(rhs.get()), _reference(0) {}           \
  Type::~Type() {}                                                                           \
  Type& Type::operator=(Type const& rhs) {                                                   \
    set(rhs.get());                                                                          \
    return *this;                                                                            \
  }                                                                                          \
  Type& Type::operator=(Simple rhs) {                                                        \
    set(rhs);                                                                                \
    return *this;                                                                            \
  }                                                                                          \
  Type::operator Simple() const { return get(); }                                           \
  RTI_UNIQUE_PTR<DataElement> Type::clone() const { return RTI_UNIQUE_PTR<DataElement>(new Type(*this)); } \
  VariableLengthData Type::encode() const {                                                  \
    std::vector<Octet> buffer;                                                               \
    encodeInto(buffer);                                                                      \
    return VariableLengthData(buffer.empty() ? 0 : &buffer[0], buffer.size());              \
  }                                                                                          \
  void Type::encode(VariableLengthData& inData) const { inData = encode(); }                 \
  void Type::encodeInto(std::vector<Octet>& buffer) const {                                  \
    pad(buffer, Codec::boundary());                                                          \
    Codec::put(buffer, get());                                                               \
  }                                                                                          \
  void Type::decode(VariableLengthData const& inData) {                                      \
    Octet const* bytes = static_cast<Octet const*>(inData.data());                          \
    std::vector<Octet> const buffer(bytes, bytes + inData.size());                           \
    trellis_encoding::allUsed(decodeFrom(buffer, 0), buffer.size(), L## #Type);              \
  }                                                                                          \
  size_t Type::decodeFrom(std::vector<Octet> const& buffer, size_t index) {                  \
    Simple value = Simple();                                                                 \
    size_t const next = Codec::get(buffer, padded(index, Codec::boundary()), value, L## #Type); \
    set(value);                                                                              \
    return next;                                                                             \
  }                                                                                          \
  size_t Type::getEncodedLength() const { return Codec::length(get()); }                    \
  unsigned int Type::getOctetBoundary() const { return Codec::boundary(); }                 \
  Integer64 Type::hash() const { return DataElement::hash(); }                               \
  void Type::setDataPointer(Simple* inData) {                                                \
    if (inData == 0) throw EncoderException(L"" L## #Type L"::setDataPointer: null pointer"); \
    _reference = inData;                                                                     \
  }                                                                                          \
  void Type::set(Simple inData) {                                                            \
    if (_reference != 0) {                                                                   \
      *_reference = inData;                                                                  \
    } else {                                                                                 \
      _value = inData;                                                                       \
    }                                                                                        \
  }                                                                                          \
  Simple Type::get() const { return _reference != 0 ? *_reference : _value; }

TRELLIS_BASIC_ELEMENT(HLAASCIIchar, char, AsciiCharCodec)
TRELLIS_BASIC_ELEMENT(HLAASCIIstring, std::string, AsciiString)
TRELLIS_BASIC_ELEMENT(HLAboolean, bool, Boolean)
TRELLIS_BASIC_ELEMENT(HLAbyte, Octet, ByteCodec)
TRELLIS_BASIC_ELEMENT(HLAfloat32BE, float, Float32BECodec)
TRELLIS_BASIC_ELEMENT(HLAfloat32LE, float, Float32LECodec)
TRELLIS_BASIC_ELEMENT(HLAfloat64BE, double, Float64BECodec)
TRELLIS_BASIC_ELEMENT(HLAfloat64LE, double, Float64LECodec)
TRELLIS_BASIC_ELEMENT(HLAinteger16BE, Integer16, Integer16BECodec)
TRELLIS_BASIC_ELEMENT(HLAinteger16LE, Integer16, Integer16LECodec)
TRELLIS_BASIC_ELEMENT(HLAinteger32BE, Integer32, Integer32BECodec)
TRELLIS_BASIC_ELEMENT(HLAinteger32LE, Integer32, Integer32LECodec)
TRELLIS_BASIC_ELEMENT(HLAinteger64BE, Integer64, Integer64BECodec)
TRELLIS_BASIC_ELEMENT(HLAinteger64LE, Integer64, Integer64LECodec)
TRELLIS_BASIC_ELEMENT(HLAoctet, Octet, OctetCodec)
TRELLIS_BASIC_ELEMENT(HLAoctetPairBE, OctetPair, PairBE)
TRELLIS_BASIC_ELEMENT(HLAoctetPairLE, OctetPair, PairLE)
TRELLIS_BASIC_ELEMENT(HLAunicodeChar, wchar_t, UnicodeChar)
TRELLIS_BASIC_ELEMENT(HLAunicodeString, std::wstring, UnicodeString)

#undef TRELLIS_BASIC_ELEMENT

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e
