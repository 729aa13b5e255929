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

struct RTI_EXPORT FederateRestoreStatus {
  FederateRestoreStatus(FederateHandle const& preHandle, FederateHandle const& postHandle,
                        RestoreStatus restoreStatus)
      : preRestoreHandle(preHandle), postRestoreHandle(postHandle), status(restoreStatus) {}
  FederateHandle preRestoreHandle;
  FederateHandle postRestoreHandle;
  RestoreStatus status;
};
typedef std::vector<FederateRestoreStatus> FederateRestoreStatusVector;

struct RTI_EXPORT FederationExecutionInformation {
  FederationExecutionInformation(std::wstring const& federationExecutionName,
                                 std::wstring const& logicalTimeImplementationName)
      : federationExecutionName(federationExecutionName),
        logicalTimeImplementationName(logicalTimeImplementationName) {}
  std::wstring federationExecutionName;
  std::wstring logicalTimeImplementationName;
};
typedef std::vector<FederationExecutionInformation> FederationExecutionInformationVector;

// What reflectAttributeValues tells beyond the values: who sent them, with which regions.
struct RTI_EXPORT SupplementalReflectInfo {
  SupplementalReflectInfo() : hasProducingFederate(false), hasSentRegions(false) {}
  SupplementalReflectInfo(FederateHandle const& producingFederate)
      : producingFederate(producingFederate), hasProducingFederate(true), hasSentRegions(false) {}
  SupplementalReflectInfo(RegionHandleSet const& sentRegions)
      : sentRegions(sentRegions), hasProducingFederate(false), hasSentRegions(true) {}
  SupplementalReflectInfo(FederateHandle const& producingFederate,
                          RegionHandleSet const& sentRegions)
      : producingFederate(producingFederate),
        sentRegions(sentRegions),
        hasProducingFederate(true),
        hasSentRegions(true) {}
  FederateHandle producingFederate;
  RegionHandleSet sentRegions;
  bool hasProducingFederate;
  bool hasSentRegions;
};

struct RTI_EXPORT SupplementalReceiveInfo {
  SupplementalReceiveInfo() : hasProducingFederate(false), hasSentRegions(false) {}
  SupplementalReceiveInfo(FederateHandle const& producingFederate)
      : producingFederate(producingFederate), hasProducingFederate(true), hasSentRegions(false) {}
  SupplementalReceiveInfo(RegionHandleSet const& sentRegions)
      : sentRegions(sentRegions), hasProducingFederate(false), hasSentRegions(true) {}
  SupplementalReceiveInfo(FederateHandle const& producingFederate,
                          RegionHandleSet const& sentRegions)
      : producingFederate(producingFederate),
        sentRegions(sentRegions),
        hasProducingFederate(true),
        hasSentRegions(true) {}
  FederateHandle producingFederate;
  RegionHandleSet sentRegions;
  bool hasProducingFederate;
  bool hasSentRegions;
};

struct RTI_EXPORT SupplementalRemoveInfo {
  SupplementalRemoveInfo() : hasProducingFederate(false) {}
  SupplementalRemoveInfo(FederateHandle const& producingFederate)
      : producingFederate(producingFederate), hasProducingFederate(true) {}
  FederateHandle producingFederate;
  bool hasProducingFederate;
};

}  // namespace rti1516e

#endif  // RTI_Typedefs_h
