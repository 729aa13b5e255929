// IEEE 1516.1-2010 C++ API: the exception the encoding helpers throw.
#ifndef RTI_EncodingExceptions_h
#define RTI_EncodingExceptions_h

#include <RTI/Exception.h>
#include <RTI/SpecificConfig.h>
#include <string>

namespace rti1516e {

class RTI_EXPORT EncoderException : public Exception {
 public:
  EncoderException(std::wstring const& message) throw();
  std::wstring what() const throw();

 private:
  std::wstring _msg;
};

}  // namespace rti1516e

#endif  // RTI_EncodingExceptions_h
