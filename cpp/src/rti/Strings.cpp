#include "Strings.h"

namespace trellis_cpp {

namespace {
void putCodePoint(std::string& out, unsigned long c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

void putWide(std::wstring& out, unsigned long c) {
  if (sizeof(wchar_t) == 2 && c >= 0x10000) {
    c -= 0x10000;
    out += static_cast<wchar_t>(0xD800 + (c >> 10));
    out += static_cast<wchar_t>(0xDC00 + (c & 0x3FF));
  } else {
    out += static_cast<wchar_t>(c);
  }
}
}  // namespace

std::string toUtf8(std::wstring const& text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned long c = static_cast<unsigned long>(text[i]) & 0x1FFFFF;
    // A UTF-16 surrogate pair (wchar_t of 16 bits) is one code point.
    if (c >= 0xD800 && c <= 0xDBFF && i + 1 < text.size()) {
      unsigned long low = static_cast<unsigned long>(text[i + 1]);
      if (low >= 0xDC00 && low <= 0xDFFF) {
        c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
        ++i;
      }
    }
    if (c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) c = 0xFFFD;
    putCodePoint(out, c);
  }
  return out;
}

std::wstring fromUtf8(char const* text) {
  std::wstring out;
  if (text == 0) return out;
  unsigned char const* p = reinterpret_cast<unsigned char const*>(text);
  while (*p) {
    unsigned long c = *p;
    int extra = c < 0x80 ? 0 : c < 0xE0 ? 1 : c < 0xF0 ? 2 : 3;
    if (extra > 0) c &= (0x3F >> extra);
    ++p;
    for (int i = 0; i < extra; ++i) {
      if ((*p & 0xC0) != 0x80) {  // truncated sequence: replacement character
        c = 0xFFFD;
        break;
      }
      c = (c << 6) | (*p & 0x3F);
      ++p;
    }
    putWide(out, c);
  }
  return out;
}

}  // namespace trellis_cpp
