// IEEE 1516.1-2010 C++ API: VariableLengthData, the byte buffer every attribute value,
// parameter value, tag and encoded handle travels in.
#ifndef RTI_VariableLengthData_h
#define RTI_VariableLengthData_h

#include <RTI/SpecificConfig.h>
#include <cstddef>

namespace rti1516e {

// Called with the data pointer when a buffer handed over by takeDataPointer is released
// (the standard's name; VLDataDeleterFunction is the same type under another name).
typedef void (*VariableLengthDataDeleteFunction)(void* data);
typedef VariableLengthDataDeleteFunction VLDataDeleterFunction;

class RTI_EXPORT VariableLengthData {
 public:
  VariableLengthData();
  // Copies inSize bytes from inData.
  VariableLengthData(void const* inData, size_t inSize);
  VariableLengthData(VariableLengthData const& rhs);
  ~VariableLengthData();
  VariableLengthData& operator=(VariableLengthData const& rhs);

  void const* data() const;
  size_t size() const;

  // Copies the bytes.
  void setData(void const* inData, size_t inSize);
  // Refers to the caller's bytes without copying; the caller keeps them alive and frees them.
  void setDataPointer(void* inData, size_t inSize);
  // Takes ownership of the bytes; they are released with func (or operator delete[] on a
  // char array when func is null) when no longer used.
  void takeDataPointer(void* inData, size_t inSize, VariableLengthDataDeleteFunction func = 0);

 private:
  // Held inline, not behind a heap implementation: a value borrowed for a callback or an
  // update costs no allocation.
  void release();
  void* _data;
  size_t _size;
  VariableLengthDataDeleteFunction _deleter;
  bool _owned;
};

}  // namespace rti1516e

#endif  // RTI_VariableLengthData_h
