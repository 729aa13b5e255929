// Internal: what differs between the two standard time types, for the shared implementation
// in HLAtimes.cpp: the value type, initial / final / epsilon, checked arithmetic, and the
// 8-byte big-endian encoding.
#ifndef TRELLIS_TIME_VALUES_H
#define TRELLIS_TIME_VALUES_H

#include <RTI/Exception.h>
#include <RTI/encoding/EncodingConfig.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>

namespace trellis_time {

// The standard names no floating-point typedef: HLAfloat64Time holds a double.
typedef double Float64;
using rti1516e::Integer64;

struct Integer64Values {
  typedef Integer64 Value;
  // How the time's value constructor takes it, as the standard declares it.
  typedef Integer64 TimeArgument;
  static Value initial() { return 0; }
  static Value final() { return std::numeric_limits<Integer64>::max(); }
  static Value epsilon() { return 1; }
  static bool add(Value a, Value b, Value& out) {
    if ((b > 0 && a > final() - b) || (b < 0 && a < std::numeric_limits<Integer64>::min() - b))
      return false;
    out = a + b;
    return true;
  }
  static bool subtract(Value a, Value b, Value& out) {
    if ((b < 0 && a > final() + b) || (b > 0 && a < std::numeric_limits<Integer64>::min() + b))
      return false;
    out = a - b;
    return true;
  }
  static unsigned long long bits(Value v) { return static_cast<unsigned long long>(v); }
  static Value fromBits(unsigned long long b) { return static_cast<Value>(b); }
};

// HLAfloat64Time: final is the largest finite double (federates advance "to the end" with
// it, and it still orders); the epsilon interval is the smallest positive double, and adding
// it to a time moves to the next representable double, so t + epsilon > t always holds.
struct Float64Values {
  typedef Float64 Value;
  typedef Float64 const& TimeArgument;
  static Value initial() { return 0.0; }
  static Value final() { return std::numeric_limits<Float64>::max(); }
  static Value epsilon() { return std::numeric_limits<Float64>::denorm_min(); }
  static bool add(Value a, Value b, Value& out) {
    out = b == epsilon() ? std::nextafter(a, std::numeric_limits<Float64>::infinity()) : a + b;
    return std::isfinite(out);
  }
  static bool subtract(Value a, Value b, Value& out) {
    out = b == epsilon() ? std::nextafter(a, -std::numeric_limits<Float64>::infinity()) : a - b;
    return std::isfinite(out);
  }
  static unsigned long long bits(Value v) {
    unsigned long long b;
    std::memcpy(&b, &v, sizeof b);
    return b;
  }
  static Value fromBits(unsigned long long b) {
    Value v;
    std::memcpy(&v, &b, sizeof v);
    return v;
  }
};

size_t const kEncodedLength = 8;

inline void putBigEndian(unsigned long long bits, void* buffer) {
  unsigned char* out = static_cast<unsigned char*>(buffer);
  for (size_t i = 0; i < kEncodedLength; ++i)
    out[i] = static_cast<unsigned char>(bits >> (8 * (kEncodedLength - 1 - i)));
}

// Throws CouldNotDecode naming the type unless there are exactly 8 bytes.
inline unsigned long long getBigEndian(void const* buffer, size_t size, wchar_t const* type) {
  if (size != kEncodedLength || buffer == 0) {
    std::wostringstream message;
    message << type << L" is encoded in 8 bytes, not " << size;
    throw rti1516e::CouldNotDecode(message.str());
  }
  unsigned char const* in = static_cast<unsigned char const*>(buffer);
  unsigned long long bits = 0;
  for (size_t i = 0; i < kEncodedLength; ++i) bits = (bits << 8) | in[i];
  return bits;
}

template <typename Value>
std::wstring show(Value value) {
  std::wostringstream text;
  text.precision(17);
  text << value;
  return text.str();
}

}  // namespace trellis_time

#endif
