// HLAinteger64Time / HLAfloat64Time: arithmetic, comparison, the standard's 8-byte
// big-endian encodings (expected bytes written by hand), and the errors of mixing types.
#include <RTI/LogicalTimeFactory.h>
#include <RTI/time/HLAfloat64TimeFactory.h>
#include <RTI/time/HLAinteger64TimeFactory.h>

#include <cstring>
#include <limits>

#include "check.h"

using namespace rti1516e;

namespace {

bool bytesAre(VariableLengthData const& data, unsigned char const* expected) {
  return data.size() == 8 && std::memcmp(data.data(), expected, 8) == 0;
}

void integerTime() {
  HLAinteger64Time t(10);
  HLAinteger64Interval step(5);
  t += step;
  CHECK_EQ(t.getTime(), 15);
  t -= HLAinteger64Interval(20);
  CHECK_EQ(t.getTime(), -5);
  CHECK(HLAinteger64Time(3) < HLAinteger64Time(4));
  CHECK(HLAinteger64Time(4) >= HLAinteger64Time(4));
  CHECK(HLAinteger64Time(4) == HLAinteger64Time(4));
  HLAinteger64Interval difference;
  difference.setToDifference(HLAinteger64Time(9), HLAinteger64Time(2));
  CHECK_EQ(difference.getInterval(), 7);
  HLAinteger64Time initial;
  CHECK(initial.isInitial());
  initial.setFinal();
  CHECK(initial.isFinal());
  CHECK_THROWS(initial += HLAinteger64Interval(1), IllegalTimeArithmetic);
  HLAinteger64Interval epsilon;
  epsilon.setEpsilon();
  CHECK(epsilon.isEpsilon());
  CHECK_EQ(epsilon.getInterval(), 1);

  unsigned char const bytes258[8] = {0, 0, 0, 0, 0, 0, 1, 2};
  CHECK(bytesAre(HLAinteger64Time(258).encode(), bytes258));
  unsigned char const minusOne[8] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
  CHECK(bytesAre(HLAinteger64Interval(-1).encode(), minusOne));
  HLAinteger64Time decoded;
  decoded.decode(VariableLengthData(bytes258, 8));
  CHECK_EQ(decoded.getTime(), 258);
  CHECK_THROWS(decoded.decode(VariableLengthData(bytes258, 7)), CouldNotDecode);
  unsigned char small[4];
  CHECK_THROWS(decoded.encode(small, sizeof small), CouldNotEncode);
  CHECK_EQ(decoded.implementationName(), std::wstring(L"HLAinteger64Time"));
  CHECK_EQ(decoded.toString(), std::wstring(L"258"));
}

void floatTime() {
  HLAfloat64Time t(1.5);
  t += HLAfloat64Interval(0.25);
  CHECK_EQ(t.getTime(), 1.75);
  unsigned char const onePointFive[8] = {0x3F, 0xF8, 0, 0, 0, 0, 0, 0};
  CHECK(bytesAre(HLAfloat64Time(1.5).encode(), onePointFive));
  HLAfloat64Time decoded;
  decoded.decode(VariableLengthData(onePointFive, 8));
  CHECK_EQ(decoded.getTime(), 1.5);
  // Epsilon moves to the next representable time, so t + epsilon > t even for large t.
  HLAfloat64Time large(1.0e12);
  HLAfloat64Interval epsilon;
  epsilon.setEpsilon();
  HLAfloat64Time next(large);
  next += epsilon;
  CHECK(next > large);
  HLAfloat64Time final;
  final.setFinal();
  CHECK(final.isFinal());
  CHECK_THROWS(final += HLAfloat64Interval(std::numeric_limits<double>::max()),
               IllegalTimeArithmetic);
}

// Arithmetic past the representable range throws IllegalTimeArithmetic, as the standard's
// declarations name it, and leaves the operand unchanged (OpenRTI instead saturates at final).
void arithmeticPastTheRange() {
  Integer64 const max = std::numeric_limits<Integer64>::max();
  Integer64 const min = std::numeric_limits<Integer64>::min();
  HLAinteger64Time nearEnd(max - 1);
  CHECK_THROWS(nearEnd += HLAinteger64Interval(2), IllegalTimeArithmetic);
  CHECK_EQ(nearEnd.getTime(), max - 1);
  nearEnd += HLAinteger64Interval(1);
  CHECK(nearEnd.isFinal());
  nearEnd += HLAinteger64Interval(0);
  CHECK(nearEnd.isFinal());
  HLAinteger64Time nearStart(min + 1);
  CHECK_THROWS(nearStart -= HLAinteger64Interval(2), IllegalTimeArithmetic);
  CHECK_EQ(nearStart.getTime(), min + 1);
  HLAinteger64Interval big(max);
  CHECK_THROWS(big += HLAinteger64Interval(1), IllegalTimeArithmetic);
  CHECK_EQ(big.getInterval(), max);
  HLAinteger64Interval difference(5);
  CHECK_THROWS(difference.setToDifference(HLAinteger64Time(max), HLAinteger64Time(-1)), IllegalTimeArithmetic);
  CHECK_EQ(difference.getInterval(), 5);

  double const largest = std::numeric_limits<double>::max();
  HLAfloat64Time final;
  final.setFinal();
  // A sum that rounds to a finite double is that double (largest + 1.0 is largest) ...
  final += HLAfloat64Interval(1.0);
  CHECK(final.isFinal());
  // ... one that overflows to infinity throws, and the time stays where it was.
  CHECK_THROWS(final += HLAfloat64Interval(largest), IllegalTimeArithmetic);
  CHECK(final.isFinal());
  HLAfloat64Time lowest(-largest);
  CHECK_THROWS(lowest -= HLAfloat64Interval(largest), IllegalTimeArithmetic);
  CHECK_EQ(lowest.getTime(), -largest);
  HLAfloat64Interval wide(largest);
  CHECK_THROWS(wide += HLAfloat64Interval(largest), IllegalTimeArithmetic);
  CHECK_EQ(wide.getInterval(), largest);
}

void mixingTypes() {
  HLAinteger64Time integer(1);
  HLAfloat64Time floating(1.0);
  CHECK_THROWS(integer += HLAfloat64Interval(1.0), InvalidLogicalTimeInterval);
  CHECK_THROWS((void)(integer < floating), InvalidLogicalTime);
  LogicalTime& base = integer;
  CHECK_THROWS(base = floating, InvalidLogicalTime);
}

void factories() {
  RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
  RTI_UNIQUE_PTR<LogicalTimeFactory> integer =
      LogicalTimeFactoryFactory::makeLogicalTimeFactory(L"HLAinteger64Time");
  RTI_UNIQUE_PTR<LogicalTimeFactory> floating =
      HLAlogicalTimeFactoryFactory::makeLogicalTimeFactory(L"HLAfloat64Time");
  RTI_UNIQUE_PTR<LogicalTimeFactory> unknown =
      LogicalTimeFactoryFactory::makeLogicalTimeFactory(L"NoSuchTime");
  CHECK(integer.get() != 0 && floating.get() != 0);
  CHECK(unknown.get() == 0);
  CHECK_EQ(integer->getName(), std::wstring(L"HLAinteger64Time"));
  CHECK_EQ(floating->getName(), std::wstring(L"HLAfloat64Time"));
  RTI_UNIQUE_PTR<LogicalTime> initial = integer->makeInitial();
  CHECK(initial->isInitial());
  RTI_UNIQUE_PTR<LogicalTimeInterval> zero = floating->makeZero();
  CHECK(zero->isZero());
  unsigned char const bytes[8] = {0, 0, 0, 0, 0, 0, 0, 42};
  RTI_UNIQUE_PTR<LogicalTime> decoded = integer->decodeLogicalTime(VariableLengthData(bytes, 8));
  CHECK(*decoded == HLAinteger64Time(42));
  HLAinteger64TimeFactory direct;
  CHECK_EQ(direct.makeLogicalTime(7)->getTime(), 7);
  RTI_SUPPRESS_AUTO_PTR_WARNING_END
}

}  // namespace

int main() {
  integerTime();
  floatTime();
  arithmeticPastTheRange();
  mixingTypes();
  factories();
  return check::finish("test_logical_time");
}
