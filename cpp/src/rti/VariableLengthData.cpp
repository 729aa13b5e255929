// VariableLengthData: owned copy, borrowed pointer, or taken-over pointer with a deleter.
#include <RTI/VariableLengthData.h>

#include <cstring>

namespace rti1516e {

class VariableLengthDataImplementation {
 public:
  VariableLengthDataImplementation() : data_(0), size_(0), deleter_(0), owned_(false) {}
  ~VariableLengthDataImplementation() { release(); }

  void copy(void const* data, size_t size) {
    // Copy before releasing: data may point into the buffer being replaced.
    char* fresh = size == 0 ? 0 : new char[size];
    if (size != 0) std::memcpy(fresh, data, size);
    release();
    data_ = fresh;
    size_ = size;
    owned_ = true;
  }
  void borrow(void* data, size_t size) {
    release();
    data_ = data;
    size_ = size;
  }
  void take(void* data, size_t size, VLDataDeleterFunction deleter) {
    release();
    data_ = data;
    size_ = size;
    owned_ = true;
    deleter_ = deleter;
  }
  void const* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  void release() {
    if (owned_ && data_ != 0) {
      if (deleter_ != 0) {
        deleter_(data_);
      } else {
        delete[] static_cast<char*>(data_);
      }
    }
    data_ = 0;
    size_ = 0;
    deleter_ = 0;
    owned_ = false;
  }

  void* data_;
  size_t size_;
  VLDataDeleterFunction deleter_;
  bool owned_;

  VariableLengthDataImplementation(VariableLengthDataImplementation const&);
  VariableLengthDataImplementation& operator=(VariableLengthDataImplementation const&);
};

VariableLengthData::VariableLengthData() : _impl(new VariableLengthDataImplementation()) {}

VariableLengthData::VariableLengthData(void const* inData, size_t inSize)
    : _impl(new VariableLengthDataImplementation()) {
  _impl->copy(inData, inSize);
}

VariableLengthData::VariableLengthData(VariableLengthData const& rhs)
    : _impl(new VariableLengthDataImplementation()) {
  _impl->copy(rhs.data(), rhs.size());
}

VariableLengthData::~VariableLengthData() { delete _impl; }

VariableLengthData& VariableLengthData::operator=(VariableLengthData const& rhs) {
  if (this != &rhs) _impl->copy(rhs.data(), rhs.size());
  return *this;
}

void const* VariableLengthData::data() const { return _impl->data(); }
size_t VariableLengthData::size() const { return _impl->size(); }

void VariableLengthData::setData(void const* inData, size_t inSize) { _impl->copy(inData, inSize); }

void VariableLengthData::setDataPointer(void* inData, size_t inSize) {
  _impl->borrow(inData, inSize);
}

void VariableLengthData::takeDataPointer(void* inData, size_t inSize,
                                         VLDataDeleterFunction func) {
  _impl->take(inData, inSize, func);
}

}  // namespace rti1516e
