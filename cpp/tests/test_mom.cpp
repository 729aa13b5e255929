// The Management Object Model (IEEE 1516.1-2010 §11) through the standard API only, as a
// federation manager or logger written for another RTI reads it: a federate subscribing to
// HLAmanager.HLAfederate discovers every member (itself included), decodes the values with
// the standard encoding helpers and the RTI's own handle decoders, and reads another
// member's time state as it advances; HLAmanager.HLAfederation lists the members; and the
// manager drives a member through HLAmanager.HLAfederate.HLAservice interactions whose
// parameters it encodes with the standard helpers (HLAopaqueData around `encode()`); and
// with HLAsetServiceReporting it hears each service the member calls as
// HLAreportServiceInvocation, while the member may not subscribe to the report itself.
#include <RTI/RTI1516.h>
#include <RTI/encoding/BasicDataElements.h>
#include <RTI/time/HLAinteger64Time.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "check.h"
#include "dropin.h"
#include "router.h"

using namespace rti1516e;
using dropin::make;

namespace {

struct Tool : public NullFederateAmbassador {
  std::set<ObjectInstanceHandle> discovered;
  std::map<ObjectInstanceHandle, AttributeHandleValueMap> latest;
  int reflects;
  long long granted;
  bool regulating;
  bool constrained;
  std::vector<ParameterHandleValueMap> interactions;
  Tool() : reflects(0), granted(-1), regulating(false), constrained(false) {}

  void discoverObjectInstance(ObjectInstanceHandle object, ObjectClassHandle, std::wstring const&) override {
    discovered.insert(object);
  }
  using NullFederateAmbassador::reflectAttributeValues;
  void reflectAttributeValues(ObjectInstanceHandle object, AttributeHandleValueMap const& values,
                              VariableLengthData const&, OrderType, TransportationType,
                              SupplementalReflectInfo) override {
    ++reflects;
    for (AttributeHandleValueMap::const_iterator i = values.begin(); i != values.end(); ++i)
      latest[object][i->first] = i->second;
  }
  using NullFederateAmbassador::receiveInteraction;
  void receiveInteraction(InteractionClassHandle, ParameterHandleValueMap const& values, VariableLengthData const&,
                          OrderType, TransportationType, SupplementalReceiveInfo) override {
    interactions.push_back(values);
  }
  void timeRegulationEnabled(LogicalTime const&) override { regulating = true; }
  void timeConstrainedEnabled(LogicalTime const&) override { constrained = true; }
  void timeAdvanceGrant(LogicalTime const& time) override {
    granted = dynamic_cast<HLAinteger64Time const&>(time).getTime();
  }
};

std::wstring unicode(VariableLengthData const& value) {
  HLAunicodeString decoded;
  decoded.decode(value);
  return decoded.get();
}

// HLAhandle and HLAlogicalTime: a variable array of bytes around the encoded value.
VariableLengthData opaque(VariableLengthData const& value) {
  HLAopaqueData decoded;
  decoded.decode(value);
  return VariableLengthData(decoded.get(), decoded.dataLength());
}

// The other way: a MOM parameter of HLAhandle or HLAlogicalTime around an encoded value.
VariableLengthData bytesOf(VariableLengthData const& encoded) {
  HLAopaqueData data(static_cast<Octet const*>(encoded.data()), encoded.size());
  return data.encode();
}

int integer(VariableLengthData const& value) {
  HLAinteger32BE decoded;
  decoded.decode(value);
  return decoded.get();
}

// A manager tool and a member connected to the router at `designator`, the federation `name`
// created on the demo FOM and both joined; returns their handles (tool's, member's).
std::pair<FederateHandle, FederateHandle> joinManaged(RTIambassador& tool, Tool& ft, RTIambassador& member,
                                                      Tool& fm, std::wstring const& designator,
                                                      std::wstring const& name) {
  tool.connect(ft, HLA_EVOKED, designator);
  member.connect(fm, HLA_EVOKED, designator);
  std::vector<std::wstring> modules(1, L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml");
  tool.createFederationExecution(name, modules, L"HLAinteger64Time");
  FederateHandle const toolHandle = tool.joinFederationExecution(L"tool", L"manager", name);
  return std::make_pair(toolHandle, member.joinFederationExecution(L"member", L"sim", name));
}

// Both resign, the federation `name` is destroyed, and both disconnect and go.
void leaveManaged(RTIambassador* tool, RTIambassador* member, std::wstring const& name) {
  member->resignFederationExecution(NO_ACTION);
  tool->resignFederationExecution(NO_ACTION);
  tool->destroyFederationExecution(name);
  tool->disconnect();
  member->disconnect();
  delete tool;
  delete member;
}

void federatesAndTheirTimeState(std::wstring const& designator) {
  Tool ft, fm;
  RTIambassador* tool = make();
  RTIambassador* member = make();
  std::pair<FederateHandle, FederateHandle> const joined =
      joinManaged(*tool, ft, *member, fm, designator, L"Managed");
  FederateHandle const toolHandle = joined.first;
  FederateHandle const memberHandle = joined.second;

  ObjectClassHandle const federate = tool->getObjectClassHandle(L"HLAmanager.HLAfederate");
  AttributeHandle const name = tool->getAttributeHandle(federate, L"HLAfederateName");
  AttributeHandle const handle = tool->getAttributeHandle(federate, L"HLAfederateHandle");
  AttributeHandle const regulating = tool->getAttributeHandle(federate, L"HLAtimeRegulating");
  AttributeHandle const time = tool->getAttributeHandle(federate, L"HLAlogicalTime");
  AttributeHandleSet attributes;
  attributes.insert(name);
  attributes.insert(handle);
  attributes.insert(regulating);
  attributes.insert(time);
  tool->subscribeObjectClassAttributes(federate, attributes);
  CHECK(dropin::until(*tool, *member, [&] { return ft.discovered.size() == 2; }));

  // The member regulates and advances to 5; the tool asks for the values.
  member->enableTimeRegulation(HLAinteger64Interval(1));
  CHECK(dropin::until(*tool, *member, [&] { return fm.regulating; }));
  member->timeAdvanceRequest(HLAinteger64Time(5));
  CHECK(dropin::until(*tool, *member, [&] { return fm.granted == 5; }));
  tool->requestAttributeValueUpdate(federate, attributes, VariableLengthData());
  std::map<std::wstring, FederateHandle> handles;
  CHECK(dropin::until(*tool, *member, [&] {
    handles.clear();
    for (std::map<ObjectInstanceHandle, AttributeHandleValueMap>::iterator i = ft.latest.begin();
         i != ft.latest.end(); ++i) {
      if (i->second.count(name) && i->second.count(handle))
        handles[unicode(i->second[name])] = tool->decodeFederateHandle(opaque(i->second[handle]));
    }
    return handles.size() == 2;
  }));
  CHECK(handles[L"tool"] == toolHandle);
  CHECK(handles[L"member"] == memberHandle);
  for (std::map<ObjectInstanceHandle, AttributeHandleValueMap>::iterator i = ft.latest.begin(); i != ft.latest.end();
       ++i) {
    bool const isMember = unicode(i->second[name]) == L"member";
    CHECK_EQ(integer(i->second[regulating]), isMember ? 1 : 0);
    HLAinteger64Time logical;
    logical.decode(opaque(i->second[time]));
    CHECK_EQ(logical.getTime(), isMember ? 5LL : 0LL);
  }

  // The federation's instance lists both members.
  ObjectClassHandle const federation = tool->getObjectClassHandle(L"HLAmanager.HLAfederation");
  AttributeHandle const members = tool->getAttributeHandle(federation, L"HLAfederatesInFederation");
  AttributeHandleSet federationAttributes;
  federationAttributes.insert(members);
  tool->subscribeObjectClassAttributes(federation, federationAttributes);
  CHECK(dropin::until(*tool, *member, [&] { return ft.discovered.size() == 3; }));
  tool->requestAttributeValueUpdate(federation, federationAttributes, VariableLengthData());
  std::set<FederateHandle> listed;
  CHECK(dropin::until(*tool, *member, [&] {
    for (std::map<ObjectInstanceHandle, AttributeHandleValueMap>::iterator i = ft.latest.begin();
         i != ft.latest.end(); ++i) {
      if (!i->second.count(members)) continue;
      HLAvariableArray list((HLAopaqueData()));
      list.decode(i->second[members]);
      for (size_t k = 0; k < list.size(); ++k) {
        HLAopaqueData const& element = dynamic_cast<HLAopaqueData const&>(list.get(k));
        listed.insert(tool->decodeFederateHandle(VariableLengthData(element.get(), element.dataLength())));
      }
    }
    return !listed.empty();
  }));
  CHECK(listed.size() == 2 && listed.count(toolHandle) == 1 && listed.count(memberHandle) == 1);

  // The manager makes the member time-constrained and advances it to 8 through HLAservice:
  // the member hears the callbacks as if it had asked.
  InteractionClassHandle const constrain =
      tool->getInteractionClassHandle(L"HLAmanager.HLAfederate.HLAservice.HLAenableTimeConstrained");
  InteractionClassHandle const advance =
      tool->getInteractionClassHandle(L"HLAmanager.HLAfederate.HLAservice.HLAtimeAdvanceRequest");
  tool->publishInteractionClass(constrain);
  tool->publishInteractionClass(advance);
  ParameterHandleValueMap toMember;
  toMember[tool->getParameterHandle(constrain, L"HLAfederate")] = bytesOf(memberHandle.encode());
  tool->sendInteraction(constrain, toMember, VariableLengthData());
  CHECK(dropin::until(*tool, *member, [&] { return fm.constrained; }));
  ParameterHandleValueMap advanceTo8;
  advanceTo8[tool->getParameterHandle(advance, L"HLAfederate")] = bytesOf(memberHandle.encode());
  advanceTo8[tool->getParameterHandle(advance, L"HLAtimeStamp")] = bytesOf(HLAinteger64Time(8).encode());
  tool->sendInteraction(advance, advanceTo8, VariableLengthData());
  CHECK(dropin::until(*tool, *member, [&] { return fm.granted == 8; }));

  leaveManaged(tool, member, L"Managed");
}

// HLAsetServiceReporting: the manager hears the member's calls, numbered, with the
// standard's exception name for one refused; the member may not subscribe to the report.
void serviceInvocationsReported(std::wstring const& designator) {
  Tool ft, fm;
  RTIambassador* tool = make();
  RTIambassador* member = make();
  FederateHandle const memberHandle = joinManaged(*tool, ft, *member, fm, designator, L"Reported").second;

  InteractionClassHandle const report =
      tool->getInteractionClassHandle(L"HLAmanager.HLAfederate.HLAreport.HLAreportServiceInvocation");
  ParameterHandle const service = tool->getParameterHandle(report, L"HLAservice");
  ParameterHandle const success = tool->getParameterHandle(report, L"HLAsuccessIndicator");
  ParameterHandle const exception = tool->getParameterHandle(report, L"HLAexception");
  ParameterHandle const serial = tool->getParameterHandle(report, L"HLAserialNumber");
  tool->subscribeInteractionClass(report);
  InteractionClassHandle const reporting =
      tool->getInteractionClassHandle(L"HLAmanager.HLAfederate.HLAadjust.HLAsetServiceReporting");
  tool->publishInteractionClass(reporting);
  ParameterHandleValueMap on;
  on[tool->getParameterHandle(reporting, L"HLAfederate")] = bytesOf(memberHandle.encode());
  on[tool->getParameterHandle(reporting, L"HLAreportingState")] = HLAboolean(true).encode();

  // Once reporting is on, the member's calls come back to the manager. The switch is sent
  // until then: sent before the member's interest reached the tool's node, it goes nowhere.
  InteractionClassHandle const radio = member->getInteractionClassHandle(L"Radio");
  CHECK(dropin::until(*tool, *member, [&] {
    tool->sendInteraction(reporting, on, VariableLengthData());
    member->publishInteractionClass(radio);
    return !ft.interactions.empty();
  }));
  if (ft.interactions.empty()) return leaveManaged(tool, member, L"Reported");
  bool refused = false;
  try {
    member->subscribeInteractionClass(report);
  } catch (FederateServiceInvocationsAreBeingReportedViaMOM const&) {
    refused = true;
  }
  CHECK(refused);
  CHECK(dropin::until(*tool, *member, [&] {
    return unicode(ft.interactions.back()[service]) == L"subscribeInteractionClass";
  }));
  ParameterHandleValueMap& first = ft.interactions.front();
  ParameterHandleValueMap& last = ft.interactions.back();
  CHECK(unicode(first[service]) == L"publishInteractionClass");
  CHECK_EQ(integer(first[success]), 1);
  CHECK_EQ(integer(first[serial]), 1);
  CHECK_EQ(integer(last[success]), 0);
  CHECK_EQ(integer(last[serial]), static_cast<int>(ft.interactions.size()));
  CHECK(unicode(last[exception]).find(L"FederateServiceInvocationsAreBeingReportedViaMOM") == 0);

  leaveManaged(tool, member, L"Reported");
}

}  // namespace

int main() {
  try {
    TestRouter router;
    federatesAndTheirTimeState(router.designator());
    serviceInvocationsReported(router.designator());
  } catch (Exception const& e) {
    check::fail(__FILE__, __LINE__, "unexpected exception: " + check::narrow(e.what()));
  } catch (std::exception const& e) {
    check::fail(__FILE__, __LINE__, e.what());
  }
  return check::finish("test_mom");
}
