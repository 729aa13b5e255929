// Internal: the one implementation of HLAinteger64Time / HLAfloat64Time and their intervals
// and factories, instantiated per type by HLAinteger64.cpp and HLAfloat64.cpp (the classes
// are distinct in the standard; their behaviour differs only in TimeValues.h).
#ifndef TRELLIS_HLA_TIME_IMPLEMENTATION_H
#define TRELLIS_HLA_TIME_IMPLEMENTATION_H

#include "TimeValues.h"

#define TRELLIS_TIME_CAST(Type, Exception, value, what)                                   \
  (dynamic_cast<Type const*>(&(value)) != 0                                              \
       ? *dynamic_cast<Type const*>(&(value))                                            \
       : throw Exception(L"expected " L## #Type L", got " + (value).implementationName() \
                         + L" (" what L")"))

#define TRELLIS_DEFINE_HLA_TIME(TIME, INTERVAL, FACTORY, VALUES, NAME)                   \
  /* ---- interval ---- */                                                               \
  INTERVAL::INTERVAL() : _interval(0) {}                                                 \
  INTERVAL::INTERVAL(VALUES::Value value) : _interval(value) {}                          \
  INTERVAL::INTERVAL(LogicalTimeInterval const& value)                                   \
      : _interval(TRELLIS_TIME_CAST(INTERVAL, InvalidLogicalTimeInterval, value, L"copy")._interval) {} \
  INTERVAL::INTERVAL(INTERVAL const& value) : LogicalTimeInterval(), _interval(value._interval) {} \
  INTERVAL::~INTERVAL() {}                                                               \
  void INTERVAL::setZero() { _interval = 0; }                                            \
  bool INTERVAL::isZero() const { return _interval == 0; }                               \
  void INTERVAL::setEpsilon() { _interval = VALUES::epsilon(); }                         \
  bool INTERVAL::isEpsilon() const { return _interval == VALUES::epsilon(); }            \
  LogicalTimeInterval& INTERVAL::operator=(LogicalTimeInterval const& value) {           \
    _interval = TRELLIS_TIME_CAST(INTERVAL, InvalidLogicalTimeInterval, value, L"assign")._interval; \
    return *this;                                                                        \
  }                                                                                      \
  INTERVAL& INTERVAL::operator=(INTERVAL const& value) {                                 \
    _interval = value._interval;                                                         \
    return *this;                                                                        \
  }                                                                                      \
  void INTERVAL::setToDifference(LogicalTime const& minuend, LogicalTime const& subtrahend) { \
    VALUES::Value a = TRELLIS_TIME_CAST(TIME, InvalidLogicalTime, minuend, L"minuend").getTime(); \
    VALUES::Value b = TRELLIS_TIME_CAST(TIME, InvalidLogicalTime, subtrahend, L"subtrahend").getTime(); \
    VALUES::Value out;                                                                   \
    if (!VALUES::subtract(a, b, out))                                                    \
      throw IllegalTimeArithmetic(L"the difference of " + minuend.toString() + L" and " +  \
                                  subtrahend.toString() + L" overflows");                \
    _interval = out;                                                                     \
  }                                                                                      \
  LogicalTimeInterval& INTERVAL::operator+=(LogicalTimeInterval const& addend) {         \
    VALUES::Value out;                                                                   \
    if (!VALUES::add(_interval,                                                          \
                     TRELLIS_TIME_CAST(INTERVAL, InvalidLogicalTimeInterval, addend, L"addend")._interval, out)) \
      throw IllegalTimeArithmetic(toString() + L" + " + addend.toString() + L" overflows"); \
    _interval = out;                                                                     \
    return *this;                                                                        \
  }                                                                                      \
  LogicalTimeInterval& INTERVAL::operator-=(LogicalTimeInterval const& subtrahend) {     \
    VALUES::Value out;                                                                   \
    if (!VALUES::subtract(_interval,                                                     \
                          TRELLIS_TIME_CAST(INTERVAL, InvalidLogicalTimeInterval, subtrahend, L"subtrahend")._interval, out)) \
      throw IllegalTimeArithmetic(toString() + L" - " + subtrahend.toString() + L" overflows"); \
    _interval = out;                                                                     \
    return *this;                                                                        \
  }                                                                                      \
  bool INTERVAL::operator>(LogicalTimeInterval const& value) const {                     \
    return _interval > TRELLIS_TIME_CAST(INTERVAL, InvalidLogicalTimeInterval, value, L"compare")._interval; \
  }                                                                                      \
  bool INTERVAL::operator<(LogicalTimeInterval const& value) const {                     \
    return _interval < TRELLIS_TIME_CAST(INTERVAL, InvalidLogicalTimeInterval, value, L"compare")._interval; \
  }                                                                                      \
  bool INTERVAL::operator==(LogicalTimeInterval const& value) const {                    \
    return _interval == TRELLIS_TIME_CAST(INTERVAL, InvalidLogicalTimeInterval, value, L"compare")._interval; \
  }                                                                                      \
  bool INTERVAL::operator>=(LogicalTimeInterval const& value) const { return !(*this < value); } \
  bool INTERVAL::operator<=(LogicalTimeInterval const& value) const { return !(*this > value); } \
  VariableLengthData INTERVAL::encode() const {                                          \
    unsigned char bytes[trellis_time::kEncodedLength];                                   \
    trellis_time::putBigEndian(VALUES::bits(_interval), bytes);                          \
    return VariableLengthData(bytes, sizeof bytes);                                      \
  }                                                                                      \
  size_t INTERVAL::encode(void* buffer, size_t bufferSize) const {                       \
    if (bufferSize < trellis_time::kEncodedLength)                                       \
      throw CouldNotEncode(L"" L## #INTERVAL L" needs 8 bytes of buffer");               \
    trellis_time::putBigEndian(VALUES::bits(_interval), buffer);                         \
    return trellis_time::kEncodedLength;                                                 \
  }                                                                                      \
  size_t INTERVAL::encodedLength() const { return trellis_time::kEncodedLength; }        \
  void INTERVAL::decode(VariableLengthData const& encodedValue) {                        \
    _interval = VALUES::fromBits(                                                        \
        trellis_time::getBigEndian(encodedValue.data(), encodedValue.size(), L"" L## #INTERVAL)); \
  }                                                                                      \
  void INTERVAL::decode(void* buffer, size_t bufferSize) {                               \
    _interval = VALUES::fromBits(trellis_time::getBigEndian(buffer, bufferSize, L"" L## #INTERVAL)); \
  }                                                                                      \
  std::wstring INTERVAL::toString() const { return trellis_time::show(_interval); }      \
  std::wstring INTERVAL::implementationName() const { return NAME; }                     \
  VALUES::Value INTERVAL::getInterval() const { return _interval; }                      \
  void INTERVAL::setInterval(VALUES::Value value) { _interval = value; }                 \
  INTERVAL::operator VALUES::Value() const { return _interval; }                         \
  /* ---- time ---- */                                                                   \
  TIME::TIME() : _time(VALUES::initial()) {}                                             \
  TIME::TIME(VALUES::TimeArgument value) : _time(value) {}                               \
  TIME::TIME(LogicalTime const& value)                                                   \
      : _time(TRELLIS_TIME_CAST(TIME, InvalidLogicalTime, value, L"copy")._time) {}      \
  TIME::TIME(TIME const& value) : LogicalTime(), _time(value._time) {}                   \
  TIME::~TIME() {}                                                                       \
  void TIME::setInitial() { _time = VALUES::initial(); }                                 \
  bool TIME::isInitial() const { return _time == VALUES::initial(); }                    \
  void TIME::setFinal() { _time = VALUES::final(); }                                     \
  bool TIME::isFinal() const { return _time == VALUES::final(); }                        \
  LogicalTime& TIME::operator=(LogicalTime const& value) {                               \
    _time = TRELLIS_TIME_CAST(TIME, InvalidLogicalTime, value, L"assign")._time;         \
    return *this;                                                                        \
  }                                                                                      \
  TIME& TIME::operator=(TIME const& value) {                                             \
    _time = value._time;                                                                 \
    return *this;                                                                        \
  }                                                                                      \
  LogicalTime& TIME::operator+=(LogicalTimeInterval const& addend) {                     \
    VALUES::Value out;                                                                   \
    if (!VALUES::add(_time,                                                              \
                     TRELLIS_TIME_CAST(INTERVAL, InvalidLogicalTimeInterval, addend, L"addend").getInterval(), out)) \
      throw IllegalTimeArithmetic(toString() + L" + " + addend.toString() + L" overflows"); \
    _time = out;                                                                         \
    return *this;                                                                        \
  }                                                                                      \
  LogicalTime& TIME::operator-=(LogicalTimeInterval const& subtrahend) {                 \
    VALUES::Value out;                                                                   \
    if (!VALUES::subtract(_time,                                                         \
                          TRELLIS_TIME_CAST(INTERVAL, InvalidLogicalTimeInterval, subtrahend, L"subtrahend").getInterval(), out)) \
      throw IllegalTimeArithmetic(toString() + L" - " + subtrahend.toString() + L" overflows"); \
    _time = out;                                                                         \
    return *this;                                                                        \
  }                                                                                      \
  bool TIME::operator>(LogicalTime const& value) const {                                 \
    return _time > TRELLIS_TIME_CAST(TIME, InvalidLogicalTime, value, L"compare")._time; \
  }                                                                                      \
  bool TIME::operator<(LogicalTime const& value) const {                                 \
    return _time < TRELLIS_TIME_CAST(TIME, InvalidLogicalTime, value, L"compare")._time; \
  }                                                                                      \
  bool TIME::operator==(LogicalTime const& value) const {                                \
    return _time == TRELLIS_TIME_CAST(TIME, InvalidLogicalTime, value, L"compare")._time; \
  }                                                                                      \
  bool TIME::operator>=(LogicalTime const& value) const { return !(*this < value); }     \
  bool TIME::operator<=(LogicalTime const& value) const { return !(*this > value); }     \
  VariableLengthData TIME::encode() const {                                              \
    unsigned char bytes[trellis_time::kEncodedLength];                                   \
    trellis_time::putBigEndian(VALUES::bits(_time), bytes);                              \
    return VariableLengthData(bytes, sizeof bytes);                                      \
  }                                                                                      \
  size_t TIME::encode(void* buffer, size_t bufferSize) const {                           \
    if (bufferSize < trellis_time::kEncodedLength)                                       \
      throw CouldNotEncode(L"" L## #TIME L" needs 8 bytes of buffer");                   \
    trellis_time::putBigEndian(VALUES::bits(_time), buffer);                             \
    return trellis_time::kEncodedLength;                                                 \
  }                                                                                      \
  size_t TIME::encodedLength() const { return trellis_time::kEncodedLength; }            \
  void TIME::decode(VariableLengthData const& encodedLogicalTime) {                      \
    _time = VALUES::fromBits(trellis_time::getBigEndian(                                 \
        encodedLogicalTime.data(), encodedLogicalTime.size(), L"" L## #TIME));           \
  }                                                                                      \
  void TIME::decode(void* buffer, size_t bufferSize) {                                   \
    _time = VALUES::fromBits(trellis_time::getBigEndian(buffer, bufferSize, L"" L## #TIME)); \
  }                                                                                      \
  std::wstring TIME::toString() const { return trellis_time::show(_time); }              \
  std::wstring TIME::implementationName() const { return NAME; }                         \
  VALUES::Value TIME::getTime() const { return _time; }                                  \
  void TIME::setTime(VALUES::Value value) { _time = value; }                             \
  TIME::operator VALUES::Value() const { return _time; }                                 \
  /* ---- factory ---- */                                                                \
  FACTORY::FACTORY() {}                                                                  \
  FACTORY::~FACTORY() {}                                                                 \
  RTI_UNIQUE_PTR<TIME> FACTORY::makeLogicalTime(VALUES::Value value) {                   \
    return RTI_UNIQUE_PTR<TIME>(new TIME(value));                                        \
  }                                                                                      \
  RTI_UNIQUE_PTR<LogicalTime> FACTORY::makeInitial() {                                   \
    return RTI_UNIQUE_PTR<LogicalTime>(new TIME(VALUES::initial()));                     \
  }                                                                                      \
  RTI_UNIQUE_PTR<LogicalTime> FACTORY::makeFinal() {                                     \
    return RTI_UNIQUE_PTR<LogicalTime>(new TIME(VALUES::final()));                       \
  }                                                                                      \
  RTI_UNIQUE_PTR<INTERVAL> FACTORY::makeLogicalTimeInterval(VALUES::Value value) {       \
    return RTI_UNIQUE_PTR<INTERVAL>(new INTERVAL(value));                                \
  }                                                                                      \
  RTI_UNIQUE_PTR<LogicalTimeInterval> FACTORY::makeZero() {                              \
    return RTI_UNIQUE_PTR<LogicalTimeInterval>(new INTERVAL(0));                         \
  }                                                                                      \
  RTI_UNIQUE_PTR<LogicalTimeInterval> FACTORY::makeEpsilon() {                           \
    return RTI_UNIQUE_PTR<LogicalTimeInterval>(new INTERVAL(VALUES::epsilon()));         \
  }                                                                                      \
  RTI_UNIQUE_PTR<LogicalTime> FACTORY::decodeLogicalTime(VariableLengthData const& encoded) { \
    RTI_UNIQUE_PTR<LogicalTime> time(new TIME());                                        \
    time->decode(encoded);                                                               \
    return time;                                                                         \
  }                                                                                      \
  RTI_UNIQUE_PTR<LogicalTime> FACTORY::decodeLogicalTime(void* buffer, size_t bufferSize) { \
    RTI_UNIQUE_PTR<LogicalTime> time(new TIME());                                        \
    time->decode(buffer, bufferSize);                                                    \
    return time;                                                                         \
  }                                                                                      \
  RTI_UNIQUE_PTR<LogicalTimeInterval> FACTORY::decodeLogicalTimeInterval(VariableLengthData const& encoded) { \
    RTI_UNIQUE_PTR<LogicalTimeInterval> interval(new INTERVAL());                        \
    interval->decode(encoded);                                                           \
    return interval;                                                                     \
  }                                                                                      \
  RTI_UNIQUE_PTR<LogicalTimeInterval> FACTORY::decodeLogicalTimeInterval(void* buffer, size_t bufferSize) { \
    RTI_UNIQUE_PTR<LogicalTimeInterval> interval(new INTERVAL());                        \
    interval->decode(buffer, bufferSize);                                                \
    return interval;                                                                     \
  }                                                                                      \
  std::wstring FACTORY::getName() const { return NAME; }

#endif
