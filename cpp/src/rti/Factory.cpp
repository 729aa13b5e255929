// RTIambassadorFactory and the base classes' constructors.
#include <RTI/FederateAmbassador.h>
#include <RTI/RTIambassadorFactory.h>

#include "Ambassador.h"

namespace rti1516e {

RTIambassador::RTIambassador() {}
RTIambassador::~RTIambassador() {}
FederateAmbassador::FederateAmbassador() {}
FederateAmbassador::~FederateAmbassador() {}

RTIambassadorFactory::RTIambassadorFactory() {}
RTIambassadorFactory::~RTIambassadorFactory() {}

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
RTI_UNIQUE_PTR<RTIambassador> RTIambassadorFactory::createRTIambassador() {
  return RTI_UNIQUE_PTR<RTIambassador>(new trellis_cpp::Ambassador());
}
RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace rti1516e
