// What the standard's headers pull in for the headers that include them: a unit that includes
// only RTI/Handle.h may name the exception classes (Handle.h includes Exception.h), and one
// that includes only RTI/encoding/EncodingConfig.h has std::vector and std::pair. Nothing else
// is included before the checks, so a missing include fails to compile here.
#include <RTI/Handle.h>
#include <RTI/encoding/EncodingConfig.h>

#include "check.h"

int main() {
  rti1516e::ObjectInstanceHandle handle;
  CHECK(!handle.isValid());
  rti1516e::CouldNotEncode const error(L"too small");
  CHECK(error.what() == L"too small");
  std::vector<rti1516e::Octet> buffer(2, 'x');
  rti1516e::OctetPair const pair(buffer[0], buffer[1]);
  CHECK(pair.first == 'x' && pair.second == 'x');
  rti1516e::Integer8 const small = 'y';
  CHECK(small == 'y');
  return check::finish("test_standard_includes");
}
