// Internal: octet boundaries and padding (IEEE 1516.2-2010): an element starts at a multiple
// of its boundary counted from the start of the buffer.
#ifndef TRELLIS_PADDING_H
#define TRELLIS_PADDING_H

#include <RTI/encoding/EncodingExceptions.h>
#include <RTI/encoding/EncodingConfig.h>

#include <sstream>
#include <string>
#include <vector>

namespace trellis_encoding {

using rti1516e::Octet;

inline size_t padded(size_t index, unsigned int boundary) {
  return boundary <= 1 ? index : (index + boundary - 1) / boundary * boundary;
}

inline void pad(std::vector<Octet>& buffer, unsigned int boundary) {
  buffer.resize(padded(buffer.size(), boundary), 0);
}

// Throws EncoderException unless `length` bytes are there at `index`.
inline void need(std::vector<Octet> const& buffer, size_t index, size_t length, wchar_t const* what) {
  if (index > buffer.size() || buffer.size() - index < length) {
    std::wostringstream message;
    message << what << L": needs " << length << L" bytes at offset " << index << L", the buffer has "
            << buffer.size();
    throw rti1516e::EncoderException(message.str());
  }
}

inline void putUnsigned(std::vector<Octet>& buffer, unsigned long long value, size_t bytes, bool bigEndian) {
  for (size_t i = 0; i < bytes; ++i) {
    size_t const shift = 8 * (bigEndian ? bytes - 1 - i : i);
    buffer.push_back(static_cast<Octet>(value >> shift));
  }
}

inline unsigned long long getUnsigned(std::vector<Octet> const& buffer, size_t index, size_t bytes, bool bigEndian) {
  unsigned long long value = 0;
  for (size_t i = 0; i < bytes; ++i) {
    size_t const shift = 8 * (bigEndian ? bytes - 1 - i : i);
    // Octet is a plain (on most hosts signed) char: widen through unsigned char.
    value |= static_cast<unsigned long long>(static_cast<unsigned char>(buffer[index + i])) << shift;
  }
  return value;
}

// Decoding a whole VariableLengthData: every byte must be used.
inline void allUsed(size_t used, size_t size, wchar_t const* what) {
  if (used != size) {
    std::wostringstream message;
    message << what << L": " << size - used << L" bytes left over after decoding " << used;
    throw rti1516e::EncoderException(message.str());
  }
}

}  // namespace trellis_encoding

#endif
