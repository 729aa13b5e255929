// Internal: std::wstring (the API's strings) to and from UTF-8 (the C ABI's), correct for
// every Unicode code point whether wchar_t is 16 (UTF-16) or 32 bits wide.
#ifndef TRELLIS_STRINGS_H
#define TRELLIS_STRINGS_H

#include <string>

namespace trellis_cpp {

std::string toUtf8(std::wstring const& text);
std::wstring fromUtf8(char const* text);

}  // namespace trellis_cpp

#endif
