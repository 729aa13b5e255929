// Handles (value, 8-byte big-endian encoding, decode errors, ordering, hashing, printing, in
// sets and maps), VariableLengthData ownership, RangeBounds, and every exception class.
#include <RTI/RTI1516.h>

#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "check.h"
#include "rti/HandleFriends.h"

using namespace rti1516e;

namespace {

int deleted = 0;
void countDelete(void* data) {
  ++deleted;
  delete[] static_cast<char*>(data);
}

void handles() {
  ObjectInstanceHandle const invalid;
  CHECK(!invalid.isValid());
  ObjectInstanceHandle const object = ObjectInstanceHandleFriend::create(0x0000000100000002ULL);
  CHECK(object.isValid());
  VariableLengthData const encoded = object.encode();
  unsigned char const expected[8] = {0, 0, 0, 1, 0, 0, 0, 2};
  CHECK_EQ(encoded.size(), 8u);
  CHECK(std::memcmp(encoded.data(), expected, 8) == 0);
  CHECK_EQ(object.encodedLength(), 8u);
  unsigned char buffer[8];
  CHECK_EQ(object.encode(buffer, sizeof buffer), 8u);
  CHECK(std::memcmp(buffer, expected, 8) == 0);
  CHECK_THROWS(object.encode(buffer, 4), CouldNotEncode);
  CHECK(ObjectInstanceHandleFriend::decode(encoded) == object);
  CHECK_THROWS(ObjectInstanceHandleFriend::decode(VariableLengthData(expected, 7)), CouldNotDecode);
  ObjectInstanceHandle const other = ObjectInstanceHandleFriend::create(3);
  CHECK(other < object && other != object);
  CHECK(object.hash() == ObjectInstanceHandleFriend::create(0x0000000100000002ULL).hash());
  CHECK(object.toString() == L"ObjectInstanceHandle(4294967298)");
  std::wostringstream printed;
  printed << invalid;
  CHECK(printed.str() == L"ObjectInstanceHandle(invalid)");
  AttributeHandleSet set;
  set.insert(AttributeHandleFriend::create(2));
  set.insert(AttributeHandleFriend::create(1));
  set.insert(AttributeHandleFriend::create(2));
  CHECK_EQ(set.size(), 2u);
  AttributeHandleValueMap map;
  map[AttributeHandleFriend::create(1)] = VariableLengthData("ab", 2);
  CHECK_EQ(map.begin()->second.size(), 2u);
}

void variableLengthData() {
  char source[3] = {'x', 'y', 'z'};
  VariableLengthData borrowed;
  borrowed.setDataPointer(source, 3);
  source[0] = 'X';
  CHECK_EQ(static_cast<char const*>(borrowed.data())[0], 'X');  // refers, does not copy
  VariableLengthData copy(borrowed);
  source[0] = 'Q';
  CHECK_EQ(static_cast<char const*>(copy.data())[0], 'X');  // a copy owns its bytes
  {
    VariableLengthData taken;
    taken.takeDataPointer(new char[4], 4, countDelete);
    CHECK_EQ(taken.size(), 4u);
  }
  CHECK_EQ(deleted, 1);
  VariableLengthData self("abc", 3);
  self.setData(self.data(), 2);  // from its own bytes
  CHECK_EQ(self.size(), 2u);
  CHECK(std::memcmp(self.data(), "ab", 2) == 0);
}

void rangeBounds() {
  RangeBounds bounds(10, 20);
  CHECK_EQ(bounds.getLowerBound(), 10UL);
  bounds.setUpperBound(30);
  CHECK_EQ(bounds.getUpperBound(), 30UL);
}

int exceptions = 0;

// Every exception class: constructed with a message, what() returns it, caught as Exception.
#define TRELLIS_DEFINE_EXCEPTION(A)                                       \
  try {                                                                   \
    throw A(L"message of " L## #A);                                       \
  } catch (Exception const& e) {                                          \
    ++exceptions;                                                         \
    CHECK(e.what() == std::wstring(L"message of " L## #A));               \
    std::wostringstream out;                                              \
    out << e;                                                             \
    CHECK(out.str() == e.what());                                         \
  }

void everyException() {
#include "rti/ExceptionList.inc"
  CHECK_EQ(exceptions, 121);  // every class of the standard's RTI/Exception.h
}

#undef TRELLIS_DEFINE_EXCEPTION

}  // namespace

int main() {
  handles();
  variableLengthData();
  rangeBounds();
  everyException();
  return check::finish("test_handles");
}
