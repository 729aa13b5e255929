// IEEE 1516.1-2010 C++ API: the collections and records services and callbacks exchange.
#ifndef RTI_Typedefs_h
#define RTI_Typedefs_h

#include <RTI/Enums.h>
#include <RTI/Handle.h>
#include <RTI/SpecificConfig.h>
#include <RTI/VariableLengthData.h>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace rti1516e {

typedef std::set<AttributeHandle> AttributeHandleSet;
typedef std::set<FederateHandle> FederateHandleSet;
typedef std::set<DimensionHandle> DimensionHandleSet;
typedef std::set<ParameterHandle> ParameterHandleSet;
typedef std::set<RegionHandle> RegionHandleSet;

typedef std::map<AttributeHandle, VariableLengthData> AttributeHandleValueMap;
typedef std::map<ParameterHandle, VariableLengthData> ParameterHandleValueMap;

typedef std::pair<AttributeHandleSet, RegionHandleSet> AttributeHandleSetRegionHandleSetPair;
typedef std::vector<AttributeHandleSetRegionHandleSetPair>
    AttributeHandleSetRegionHandleSetPairVector;

typedef std::pair<FederateHandle, SaveStatus> FederateHandleSaveStatusPair;
typedef std::vector<FederateHandleSaveStatusPair> FederateHandleSaveStatusPairVector;

// The records below are classes with out-of-line constructors (in librti1516e) and their
// members in the standard's order, so a federate compiled against another RTI's headers finds
// the constructors it calls and reads the members of a SupplementalReflectInfo it is handed
// at the offsets it expects.
class RTI_EXPORT FederateRestoreStatus {
 public:
  FederateRestoreStatus(FederateHandle const& thePreHandle, FederateHandle const& thePostHandle,
                        RestoreStatus theStatus);
  FederateHandle preRestoreHandle;
  FederateHandle postRestoreHandle;
  RestoreStatus status;
};
typedef std::vector<FederateRestoreStatus> FederateRestoreStatusVector;

class RTI_EXPORT FederationExecutionInformation {
 public:
  FederationExecutionInformation(std::wstring const& theFederationExecutionName,
                                 std::wstring const& theLogicalTimeImplementationName);
  std::wstring federationExecutionName;
  std::wstring logicalTimeImplementationName;
};
typedef std::vector<FederationExecutionInformation> FederationExecutionInformationVector;

// What reflectAttributeValues tells beyond the values: who sent them, with which regions.
class RTI_EXPORT SupplementalReflectInfo {
 public:
  SupplementalReflectInfo();
  SupplementalReflectInfo(FederateHandle const& theFederateHandle);
  SupplementalReflectInfo(RegionHandleSet const& theRegionHandleSet);
  SupplementalReflectInfo(FederateHandle const& theFederateHandle,
                          RegionHandleSet const& theRegionHandleSet);
  bool hasProducingFederate;
  bool hasSentRegions;
  FederateHandle producingFederate;
  RegionHandleSet sentRegions;
};

class RTI_EXPORT SupplementalReceiveInfo {
 public:
  SupplementalReceiveInfo();
  SupplementalReceiveInfo(FederateHandle const& theFederateHandle);
  SupplementalReceiveInfo(RegionHandleSet const& theRegionHandleSet);
  SupplementalReceiveInfo(FederateHandle const& theFederateHandle,
                          RegionHandleSet const& theRegionHandleSet);
  bool hasProducingFederate;
  bool hasSentRegions;
  FederateHandle producingFederate;
  RegionHandleSet sentRegions;
};

class RTI_EXPORT SupplementalRemoveInfo {
 public:
  SupplementalRemoveInfo();
  SupplementalRemoveInfo(FederateHandle const& theFederateHandle);
  bool hasProducingFederate;
  FederateHandle producingFederate;
};

}  // namespace rti1516e

#endif  // RTI_Typedefs_h
