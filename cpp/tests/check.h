// A minimal check harness for the C++ tests: each failed check prints where and what, and
// the program's exit status is the number of failures (ctest reads it).
#ifndef TRELLIS_TESTS_CHECK_H
#define TRELLIS_TESTS_CHECK_H

#include <cstdio>
#include <sstream>
#include <string>

namespace check {
inline int& failures() {
  static int count = 0;
  return count;
}
inline void fail(const char* file, int line, const std::string& what) {
  std::fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what.c_str());
  ++failures();
}
// An exception's wide message as bytes for a failure line (ASCII kept, the rest '?'). Takes
// the message by reference: `std::string(e.what().begin(), e.what().end())` pairs iterators
// of two temporaries, and read past the first (a length_error, seen when a test failed).
inline std::string narrow(const std::wstring& text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) out += text[i] < 128 ? static_cast<char>(text[i]) : '?';
  return out;
}
inline int finish(const char* name) {
  if (failures() == 0) {
    std::printf("%s: all checks passed\n", name);
  } else {
    std::fprintf(stderr, "%s: %d check(s) failed\n", name, failures());
  }
  return failures() == 0 ? 0 : 1;
}
}  // namespace check

#define CHECK(cond)                                           \
  do {                                                        \
    if (!(cond)) check::fail(__FILE__, __LINE__, #cond);      \
  } while (0)

#define CHECK_EQ(a, b)                                                           \
  do {                                                                           \
    if (!((a) == (b))) {                                                         \
      std::ostringstream check_message_;                                         \
      check_message_ << #a " == " #b;                                            \
      check::fail(__FILE__, __LINE__, check_message_.str());                     \
    }                                                                            \
  } while (0)

// Checks that `statement` throws exactly `Exception` (or a subclass).
#define CHECK_THROWS(statement, Exception)                                       \
  do {                                                                           \
    bool check_thrown_ = false;                                                  \
    try {                                                                        \
      statement;                                                                 \
    } catch (Exception const&) {                                                 \
      check_thrown_ = true;                                                      \
    } catch (...) {                                                              \
      check::fail(__FILE__, __LINE__, #statement " threw another exception");    \
      check_thrown_ = true;                                                      \
    }                                                                            \
    if (!check_thrown_) check::fail(__FILE__, __LINE__, #statement " did not throw " #Exception); \
  } while (0)

#endif
