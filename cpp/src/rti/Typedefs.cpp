// The constructors of the records in RTI/Typedefs.h, out of line as the standard declares them,
// and the vendor name and version of RTI/RTI1516.h.
#include <RTI/RTI1516.h>
#include <RTI/Typedefs.h>

namespace rti1516e {

FederateRestoreStatus::FederateRestoreStatus(FederateHandle const& thePreHandle,
                                             FederateHandle const& thePostHandle,
                                             RestoreStatus theStatus)
    : preRestoreHandle(thePreHandle), postRestoreHandle(thePostHandle), status(theStatus) {}

FederationExecutionInformation::FederationExecutionInformation(
    std::wstring const& theFederationExecutionName,
    std::wstring const& theLogicalTimeImplementationName)
    : federationExecutionName(theFederationExecutionName),
      logicalTimeImplementationName(theLogicalTimeImplementationName) {}

SupplementalReflectInfo::SupplementalReflectInfo()
    : hasProducingFederate(false), hasSentRegions(false) {}
SupplementalReflectInfo::SupplementalReflectInfo(FederateHandle const& theFederateHandle)
    : hasProducingFederate(true), hasSentRegions(false), producingFederate(theFederateHandle) {}
SupplementalReflectInfo::SupplementalReflectInfo(RegionHandleSet const& theRegionHandleSet)
    : hasProducingFederate(false), hasSentRegions(true), sentRegions(theRegionHandleSet) {}
SupplementalReflectInfo::SupplementalReflectInfo(FederateHandle const& theFederateHandle,
                                                 RegionHandleSet const& theRegionHandleSet)
    : hasProducingFederate(true),
      hasSentRegions(true),
      producingFederate(theFederateHandle),
      sentRegions(theRegionHandleSet) {}

SupplementalReceiveInfo::SupplementalReceiveInfo()
    : hasProducingFederate(false), hasSentRegions(false) {}
SupplementalReceiveInfo::SupplementalReceiveInfo(FederateHandle const& theFederateHandle)
    : hasProducingFederate(true), hasSentRegions(false), producingFederate(theFederateHandle) {}
SupplementalReceiveInfo::SupplementalReceiveInfo(RegionHandleSet const& theRegionHandleSet)
    : hasProducingFederate(false), hasSentRegions(true), sentRegions(theRegionHandleSet) {}
SupplementalReceiveInfo::SupplementalReceiveInfo(FederateHandle const& theFederateHandle,
                                                 RegionHandleSet const& theRegionHandleSet)
    : hasProducingFederate(true),
      hasSentRegions(true),
      producingFederate(theFederateHandle),
      sentRegions(theRegionHandleSet) {}

SupplementalRemoveInfo::SupplementalRemoveInfo() : hasProducingFederate(false) {}
SupplementalRemoveInfo::SupplementalRemoveInfo(FederateHandle const& theFederateHandle)
    : hasProducingFederate(true), producingFederate(theFederateHandle) {}

std::wstring rtiName() { return L"Trellis"; }
std::wstring rtiVersion() { return TRELLIS_RTI_VERSION; }

}  // namespace rti1516e
