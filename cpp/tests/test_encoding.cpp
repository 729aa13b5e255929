// The encoding helpers against IEEE 1516.2-2010's byte layouts, the expected bytes written by
// hand: each basic type in both byte orders, strings with their counts, records and arrays
// with their padding, variant records, opaque data; decoding back, lengths, errors.
#include <RTI/encoding/BasicDataElements.h>
#include <RTI/encoding/HLAfixedArray.h>
#include <RTI/encoding/HLAfixedRecord.h>
#include <RTI/encoding/HLAopaqueData.h>
#include <RTI/encoding/HLAvariableArray.h>
#include <RTI/encoding/HLAvariantRecord.h>

#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "check.h"

using namespace rti1516e;

// A federate's own Float32 / Float64 beside `using namespace rti1516e`: the standard declares
// no such names in rti1516e, so these must not be ambiguous.
typedef float Float32;
typedef double Float64;
Float64 const federateOwnFloat64 = 1.5;
Float32 const federateOwnFloat32 = 2.5f;

namespace {

std::string hex(VariableLengthData const& data) {
  std::ostringstream text;
  unsigned char const* bytes = static_cast<unsigned char const*>(data.data());
  for (size_t i = 0; i < data.size(); ++i) {
    static char const digits[] = "0123456789abcdef";
    text << digits[bytes[i] >> 4] << digits[bytes[i] & 15];
  }
  return text.str();
}

// Encodes, compares with the expected hex, checks the length, decodes into `fresh` and
// checks it encodes the same again.
void roundTrip(DataElement const& element, DataElement& fresh, std::string const& expected, int line) {
  VariableLengthData const encoded = element.encode();
  if (hex(encoded) != expected)
    check::fail(__FILE__, line, "encoded " + hex(encoded) + ", expected " + expected);
  if (element.getEncodedLength() != expected.size() / 2) check::fail(__FILE__, line, "getEncodedLength");
  fresh.decode(encoded);
  if (hex(fresh.encode()) != expected) check::fail(__FILE__, line, "decoded value encodes differently");
}

#define ROUND_TRIP(element, fresh, expected) roundTrip(element, fresh, expected, __LINE__)

void basics() {
  { HLAinteger16BE a(0x0102), b; ROUND_TRIP(a, b, "0102"); CHECK_EQ(b.get(), 0x0102); }
  { HLAinteger16LE a(0x0102), b; ROUND_TRIP(a, b, "0201"); CHECK_EQ(b.get(), 0x0102); }
  { HLAinteger32BE a(0x01020304), b; ROUND_TRIP(a, b, "01020304"); CHECK_EQ(b.get(), 0x01020304); }
  { HLAinteger32LE a(-2), b; ROUND_TRIP(a, b, "feffffff"); CHECK_EQ(b.get(), -2); }
  { HLAinteger64BE a(0x0102030405060708LL), b; ROUND_TRIP(a, b, "0102030405060708"); }
  { HLAinteger64LE a(0x0102030405060708LL), b; ROUND_TRIP(a, b, "0807060504030201"); }
  { HLAfloat32BE a(1.0f), b; ROUND_TRIP(a, b, "3f800000"); CHECK_EQ(b.get(), 1.0f); }
  { HLAfloat32LE a(1.0f), b; ROUND_TRIP(a, b, "0000803f"); }
  { HLAfloat64BE a(1.0), b; ROUND_TRIP(a, b, "3ff0000000000000"); CHECK_EQ(b.get(), 1.0); }
  { HLAfloat64LE a(-2.5), b; ROUND_TRIP(a, b, "00000000000004c0"); CHECK_EQ(b.get(), -2.5); }
  { HLAoctet a(static_cast<Octet>(0xAB)), b; ROUND_TRIP(a, b, "ab"); CHECK_EQ(b.get(), static_cast<Octet>(0xAB)); }
  { HLAbyte a(0x7F), b; ROUND_TRIP(a, b, "7f"); }
  { HLAoctetPairBE a(OctetPair(1, 2)), b; ROUND_TRIP(a, b, "0102"); }
  { HLAoctetPairLE a(OctetPair(1, 2)), b; ROUND_TRIP(a, b, "0201"); }
  { HLAboolean a(true), b; ROUND_TRIP(a, b, "00000001"); CHECK(b.get()); }
  { HLAboolean a(false), b(true); ROUND_TRIP(a, b, "00000000"); CHECK(!b.get()); }
  { HLAASCIIchar a('A'), b; ROUND_TRIP(a, b, "41"); }
  { HLAunicodeChar a(L'\x00e9'), b; ROUND_TRIP(a, b, "00e9"); CHECK(b.get() == L'\x00e9'); }
  { HLAASCIIstring a(std::string("hi")), b; ROUND_TRIP(a, b, "000000026869"); CHECK(b.get() == "hi"); }
  { HLAunicodeString a(std::wstring(L"h\x00e9")), b; ROUND_TRIP(a, b, "00000002006800e9"); }
  CHECK_EQ(HLAinteger64BE().getOctetBoundary(), 8u);
  CHECK_EQ(HLAunicodeString().getOctetBoundary(), 4u);
  CHECK_EQ(HLAoctetPairBE().getOctetBoundary(), 2u);
}

std::wstring units(unsigned const* codes, size_t count) {
  std::wstring text;
  for (size_t i = 0; i < count; ++i) text += static_cast<wchar_t>(codes[i]);
  return text;
}

std::wstring decodedString(VariableLengthData const& encoded) {
  HLAunicodeString decoded;
  decoded.decode(encoded);
  return decoded.get();
}

// HLAunicodeString keeps UTF-16 code units as given, surrogates included: a pair held as two
// wchar_t stays two, a lone surrogate stays itself, in either order, anywhere in the string.
void unicodeStrings() {
  unsigned const pair[] = {'a', 0xD83D, 0xDE00, 'b'};
  { HLAunicodeString a(units(pair, 4)), b; ROUND_TRIP(a, b, "000000040061d83dde000062"); CHECK(b.get() == units(pair, 4)); }
  unsigned const lone[] = {0xDE00, 0xD83D, 'x', 0xD800};
  { HLAunicodeString a(units(lone, 4)), b; ROUND_TRIP(a, b, "00000004de00d83d0078d800"); CHECK(b.get() == units(lone, 4)); }
  // decode(encode(s)) == s for every string of code units: all single units, and every string
  // of up to three units drawn from the surrogate boundaries and their neighbours.
  int mismatches = 0;
  for (unsigned unit = 0; unit <= 0xFFFF; ++unit) {
    std::wstring const text(1, static_cast<wchar_t>(unit));
    if (decodedString(HLAunicodeString(text).encode()) != text) ++mismatches;
  }
  unsigned const edges[] = {0, 0x7F, 0xD7FF, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0xE000, 0xFFFF};
  size_t const edgeCount = sizeof edges / sizeof edges[0];
  for (size_t i = 0; i < edgeCount; ++i)
    for (size_t j = 0; j < edgeCount; ++j)
      for (size_t k = 0; k <= edgeCount; ++k) {
        unsigned const codes[] = {edges[i], edges[j], k < edgeCount ? edges[k] : 'z'};
        std::wstring const text = units(codes, 3);
        if (decodedString(HLAunicodeString(text).encode()) != text) ++mismatches;
      }
  CHECK_EQ(mismatches, 0);
  // A character beyond the basic multilingual plane in one 32-bit wchar_t is sent as its
  // surrogate pair and comes back as those two code units (the same bytes as the pair above).
  if (sizeof(wchar_t) > 2) {
    HLAunicodeString a(std::wstring(1, static_cast<wchar_t>(0x1F600))), b;
    ROUND_TRIP(a, b, "00000002d83dde00");
    unsigned const smiley[] = {0xD83D, 0xDE00};
    CHECK(b.get() == units(smiley, 2));
    // No Unicode code point: refused rather than sent as something else.
    HLAunicodeString invalid(std::wstring(1, static_cast<wchar_t>(0x110000)));
    CHECK_THROWS(invalid.encode(), EncoderException);
    CHECK_THROWS(invalid.getEncodedLength(), EncoderException);
  }
}

void errors() {
  HLAinteger32BE value;
  unsigned char const three[3] = {1, 2, 3};
  CHECK_THROWS(value.decode(VariableLengthData(three, 3)), EncoderException);
  unsigned char const five[5] = {1, 2, 3, 4, 5};
  CHECK_THROWS(value.decode(VariableLengthData(five, 5)), EncoderException);  // a byte left over
  HLAASCIIstring text;
  unsigned char const lying[6] = {0, 0, 0, 9, 'h', 'i'};  // count 9, two bytes
  CHECK_THROWS(text.decode(VariableLengthData(lying, 6)), EncoderException);
  HLAvariableArray array((HLAinteger32BE()));
  unsigned char const huge[4] = {0x7f, 0xff, 0xff, 0xff};  // a count no data backs
  CHECK_THROWS(array.decode(VariableLengthData(huge, 4)), EncoderException);
  CHECK_THROWS(array.addElement(HLAinteger16BE(1)), EncoderException);  // another type
}

void byReference() {
  Integer32 external = 5;
  HLAinteger32BE element(&external);
  external = 7;
  CHECK_EQ(hex(element.encode()), std::string("00000007"));
  unsigned char const bytes[4] = {0, 0, 0, 9};
  element.decode(VariableLengthData(bytes, 4));
  CHECK_EQ(external, 9);  // decoding writes the caller's variable
  RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
  RTI_UNIQUE_PTR<DataElement> copy = element.clone();
  RTI_SUPPRESS_AUTO_PTR_WARNING_END
  CHECK(copy->isSameTypeAs(element));
  CHECK(!copy->isSameTypeAs(HLAinteger32LE()));
  CHECK(copy->hash() == element.hash());
}

void records() {
  // {HLAoctet, HLAinteger32BE}: three bytes of padding put the integer at offset 4.
  HLAfixedRecord record;
  record.appendElement(HLAoctet(1));
  record.appendElement(HLAinteger32BE(2));
  HLAfixedRecord fresh;
  fresh.appendElement(HLAoctet());
  fresh.appendElement(HLAinteger32BE());
  ROUND_TRIP(record, fresh, "0100000000000002");
  CHECK_EQ(record.getOctetBoundary(), 4u);
  CHECK_EQ(static_cast<Integer32>(dynamic_cast<HLAinteger32BE const&>(fresh.get(1))), 2);
  CHECK_THROWS(record.set(1, HLAoctet(3)), EncoderException);
  // Nested: {HLAoctet, {HLAoctet, HLAinteger64BE}}: the inner record starts at 8.
  HLAfixedRecord inner;
  inner.appendElement(HLAoctet(2));
  inner.appendElement(HLAinteger64BE(3));
  HLAfixedRecord outer;
  outer.appendElement(HLAoctet(1));
  outer.appendElement(inner);
  HLAfixedRecord outerFresh(outer);
  ROUND_TRIP(outer, outerFresh, "0100000000000000" "0200000000000000" "0000000000000003");
}

void arrays() {
  // Variable array of HLAinteger64BE: the count (4 bytes), 4 bytes of padding, elements.
  HLAvariableArray array((HLAinteger64BE()));
  array.addElement(HLAinteger64BE(1));
  array.addElement(HLAinteger64BE(2));
  HLAvariableArray fresh((HLAinteger64BE()));
  ROUND_TRIP(array, fresh, "00000002" "00000000" "0000000000000001" "0000000000000002");
  CHECK_EQ(fresh.size(), 2u);
  CHECK_EQ(array.getOctetBoundary(), 8u);
  // Variable array of HLAinteger16BE: no padding after the count.
  HLAvariableArray shorts((HLAinteger16BE()));
  shorts.addElement(HLAinteger16BE(5));
  HLAvariableArray shortsFresh((HLAinteger16BE()));
  ROUND_TRIP(shorts, shortsFresh, "00000001" "0005");
  // Fixed array of three HLAoctetPairBE.
  HLAfixedArray pairs(HLAoctetPairBE(), 3);
  pairs.set(1, HLAoctetPairBE(OctetPair(0xA, 0xB)));
  HLAfixedArray pairsFresh(HLAoctetPairBE(), 3);
  ROUND_TRIP(pairs, pairsFresh, "0000" "0a0b" "0000");
  CHECK_THROWS(pairs.get(3), EncoderException);
  // Elements by reference.
  Integer32 counter = 1;
  HLAinteger32BE element(&counter);
  HLAvariableArray referenced((HLAinteger32BE()));
  referenced.addElementPointer(&element);
  counter = 42;
  CHECK_EQ(hex(referenced.encode()), std::string("00000001" "0000002a"));
}

void variants() {
  // Discriminant HLAinteger16BE; alternative 1: HLAinteger64BE, alternative 2: HLAASCIIstring.
  HLAvariantRecord variant((HLAinteger16BE()));
  variant.addVariant(HLAinteger16BE(1), HLAinteger64BE());
  variant.addVariant(HLAinteger16BE(2), HLAASCIIstring());
  variant.setVariant(HLAinteger16BE(1), HLAinteger64BE(7));
  HLAvariantRecord fresh(variant);
  // discriminant, 6 bytes of padding to the 8-byte boundary, the value.
  ROUND_TRIP(variant, fresh, "0001000000000000" "0000000000000007");
  variant.setVariant(HLAinteger16BE(2), HLAASCIIstring(std::string("ok")));
  ROUND_TRIP(variant, fresh, "00020000" "00000002" "6f6b");
  CHECK_THROWS(variant.setDiscriminant(HLAinteger16BE(3)), EncoderException);
}

void opaque() {
  Octet const bytes[3] = {1, 2, 3};
  HLAopaqueData data(bytes, 3);
  HLAopaqueData fresh;
  ROUND_TRIP(data, fresh, "00000003010203");
  CHECK_EQ(fresh.dataLength(), 3u);
  CHECK(std::memcmp(fresh.get(), bytes, 3) == 0);
}

}  // namespace

// The standard's encoding interface as third-party federates use it, where Trellis's headers
// once differed: Octet is a plain char (Integer8), so char buffers go straight into
// HLAopaqueData and HLAbyte, and bytes above 0x7f decode without sign extension; the basic
// helpers' constructors are explicit; the composites answer the standard's type queries.
void standardInterface() {
  CHECK((std::is_same<Integer8, char>::value));
  CHECK((std::is_same<Octet, Integer8>::value));
  CHECK((std::is_same<OctetPair, std::pair<char, char> >::value));
  CHECK((std::is_same<Integer64, long long>::value));
  CHECK(!(std::is_convertible<Integer32, HLAinteger32BE>::value));
  CHECK(!(std::is_convertible<double, HLAfloat64BE>::value));
  CHECK(!(std::is_convertible<std::wstring, HLAunicodeString>::value));
  CHECK(!(std::is_convertible<Integer32*, HLAinteger32BE>::value));
  CHECK(federateOwnFloat64 + federateOwnFloat32 == 4.0);

  char const text[] = "\x01\xff";
  HLAopaqueData opaque(text, 2);
  CHECK(hex(opaque.encode()) == "0000000201ff");
  CHECK_EQ(opaque.get()[1], '\xff');
  { HLAbyte a('\xff'), b; ROUND_TRIP(a, b, "ff"); CHECK_EQ(b.get(), '\xff'); }
  { HLAinteger16BE a(static_cast<Integer16>(-129)), b; ROUND_TRIP(a, b, "ff7f"); CHECK_EQ(b.get(), -129); }
  { HLAinteger32LE a(0x7f80ff01), b; ROUND_TRIP(a, b, "01ff807f"); CHECK_EQ(b.get(), 0x7f80ff01); }
  { HLAunicodeChar a(static_cast<wchar_t>(0xfffe)), b; ROUND_TRIP(a, b, "fffe"); CHECK(b.get() == 0xfffe); }
  std::vector<Octet> buffer;
  HLAinteger64BE(-2).encodeInto(buffer);
  HLAinteger64BE minusTwo;
  CHECK_EQ(minusTwo.decodeFrom(buffer, 0), 8u);
  CHECK_EQ(minusTwo.get(), -2);

  HLAfixedArray fixedArray(HLAinteger16BE(), 2);
  CHECK(fixedArray.hasPrototypeSameTypeAs(HLAinteger16BE()));
  CHECK(!fixedArray.hasPrototypeSameTypeAs(HLAinteger16LE()));
  HLAvariableArray variableArray(HLAASCIIchar('a'));
  CHECK(variableArray.hasPrototypeSameTypeAs(HLAASCIIchar()));
  CHECK(!variableArray.hasPrototypeSameTypeAs(HLAbyte()));

  HLAfixedRecord record;
  record.appendElement(HLAinteger32BE(7));
  record.appendElement(HLAASCIIstring(std::string("x")));
  CHECK(record.hasElementSameTypeAs(0, HLAinteger32BE()));
  CHECK(!record.hasElementSameTypeAs(1, HLAinteger32BE()));
  CHECK(record.hasElementSameTypeAs(1, HLAASCIIstring()));
  CHECK(!record.hasElementSameTypeAs(2, HLAinteger32BE()));
  CHECK_EQ(dynamic_cast<HLAinteger32BE const&>(record[0]).get(), 7);
  CHECK(&record[1] == &record.get(1));

  HLAvariantRecord variant(HLAinteger32BE(0));
  variant.addVariant(HLAinteger32BE(1), HLAfloat64BE());
  CHECK(variant.hasMatchingDiscriminantTypeAs(HLAinteger32BE(5)));
  CHECK(!variant.hasMatchingDiscriminantTypeAs(HLAinteger16BE()));
  CHECK(variant.isSameTypeAs(HLAinteger32BE(1), HLAfloat64BE()));
  CHECK(!variant.isSameTypeAs(HLAinteger32BE(1), HLAfloat32BE()));
  bool threw = false;
  try {
    variant.isSameTypeAs(HLAinteger32BE(2), HLAfloat64BE());
  } catch (EncoderException const&) {
    threw = true;
  }
  CHECK(threw);
  HLAvariantRecord const copy(variant);
  CHECK(variant.isSameTypeAs(copy));
}

int main() {
  basics();
  unicodeStrings();
  errors();
  byReference();
  records();
  arrays();
  variants();
  opaque();
  standardInterface();
  return check::finish("test_encoding");
}
