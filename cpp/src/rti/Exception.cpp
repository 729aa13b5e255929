// The exception classes: each keeps its message and returns it from what().
#include <RTI/Exception.h>

#include <ostream>

namespace rti1516e {

Exception::Exception() {}
Exception::Exception(Exception const&) {}
Exception& Exception::operator=(Exception const&) { return *this; }
Exception::~Exception() {}

std::wostream& operator<<(std::wostream& stream, Exception const& e) {
  return stream << e.what();
}

#define TRELLIS_DEFINE_EXCEPTION(A)                            \
  A::A(std::wstring const& message) throw() : _msg(message) {} \
  std::wstring A::what() const throw() { return _msg; }
#include "ExceptionList.inc"
#undef TRELLIS_DEFINE_EXCEPTION

}  // namespace rti1516e
