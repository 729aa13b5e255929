// IEEE 1516.1-2010 C++ API: where a federate gets its RTIambassador.
#ifndef RTI_RTIambassadorFactory_h
#define RTI_RTIambassadorFactory_h

#include <RTI/Exception.h>
#include <RTI/RTIambassador.h>
#include <RTI/SpecificConfig.h>
#include <memory>

namespace rti1516e {

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

class RTI_EXPORT RTIambassadorFactory {
 public:
  RTIambassadorFactory();
  virtual ~RTIambassadorFactory();
  // RTIinternalError
  RTI_UNIQUE_PTR<RTIambassador> createRTIambassador();
};

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e

#endif  // RTI_RTIambassadorFactory_h
