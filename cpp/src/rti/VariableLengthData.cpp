// VariableLengthData: owned copy, borrowed pointer, or taken-over pointer with a deleter.
#include <RTI/VariableLengthData.h>

#include <cstring>

namespace rti1516e {

VariableLengthData::VariableLengthData() : _data(0), _size(0), _deleter(0), _owned(false) {}

VariableLengthData::VariableLengthData(void const* inData, size_t inSize)
    : _data(0), _size(0), _deleter(0), _owned(false) {
  setData(inData, inSize);
}

VariableLengthData::VariableLengthData(VariableLengthData const& rhs)
    : _data(0), _size(0), _deleter(0), _owned(false) {
  setData(rhs._data, rhs._size);
}

VariableLengthData::~VariableLengthData() { release(); }

VariableLengthData& VariableLengthData::operator=(VariableLengthData const& rhs) {
  if (this != &rhs) setData(rhs._data, rhs._size);
  return *this;
}

void const* VariableLengthData::data() const { return _data; }
size_t VariableLengthData::size() const { return _size; }

void VariableLengthData::setData(void const* inData, size_t inSize) {
  // Copy before releasing: inData may point into the buffer being replaced.
  char* fresh = inSize == 0 ? 0 : new char[inSize];
  if (inSize != 0) std::memcpy(fresh, inData, inSize);
  release();
  _data = fresh;
  _size = inSize;
  _owned = true;
}

void VariableLengthData::setDataPointer(void* inData, size_t inSize) {
  release();
  _data = inData;
  _size = inSize;
}

void VariableLengthData::takeDataPointer(void* inData, size_t inSize, VariableLengthDataDeleteFunction func) {
  release();
  _data = inData;
  _size = inSize;
  _owned = true;
  _deleter = func;
}

void VariableLengthData::release() {
  if (_owned && _data != 0) {
    if (_deleter != 0) {
      _deleter(_data);
    } else {
      delete[] static_cast<char*>(_data);
    }
  }
  _data = 0;
  _size = 0;
  _deleter = 0;
  _owned = false;
}

}  // namespace rti1516e
