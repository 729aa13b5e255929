// Federation save and restore on the standard API (IEEE 1516.1-2010 §4.16–4.31), two
// federates in one process through a real `trellis router`: a timed save initiated at the
// grant of its time, SaveInProgress while saving, the status query, federationSaved; time
// advanced and an object deleted after the save; a restore that puts back logical time and
// the object; a failed save (federateSaveNotComplete) and restoring an unknown label.
#include <RTI/RTI1516.h>
#include <RTI/time/HLAinteger64Time.h>

#include <string>

#include "check.h"
#include "dropin.h"
#include "router.h"

using namespace rti1516e;

namespace {

std::wstring const kFederation = L"cpp-save-restore-test";

struct Saver : public NullFederateAmbassador {
  Saver()
      : regulating(false), constrained(false), granted(-1), initiated(false), savedAt(-1), saved(false),
        notSaved(-1), statuses(0), restoreSucceeded(false), restoreFailed(false), restoreBegun(false),
        restoreInitiated(false), restored(false), discovered(false) {}
  bool regulating, constrained;
  long long granted;
  bool initiated;
  long long savedAt;
  bool saved;
  int notSaved;
  size_t statuses;
  bool restoreSucceeded, restoreFailed, restoreBegun, restoreInitiated, restored;
  bool discovered;
  std::wstring restoreName;
  FederateHandle restoreHandle;

  void timeRegulationEnabled(LogicalTime const&) override { regulating = true; }
  void timeConstrainedEnabled(LogicalTime const&) override { constrained = true; }
  void timeAdvanceGrant(LogicalTime const& time) override {
    granted = dynamic_cast<HLAinteger64Time const&>(time).getTime();
  }
  void initiateFederateSave(std::wstring const&) override { initiated = true; }
  void initiateFederateSave(std::wstring const& label, LogicalTime const& time) override {
    initiated = label == L"s1";
    savedAt = dynamic_cast<HLAinteger64Time const&>(time).getTime();
  }
  void federationSaved() override { saved = true; }
  void federationNotSaved(SaveFailureReason reason) override { notSaved = static_cast<int>(reason); }
  void federationSaveStatusResponse(FederateHandleSaveStatusPairVector const& list) override {
    statuses = list.size();
  }
  void requestFederationRestoreSucceeded(std::wstring const&) override { restoreSucceeded = true; }
  void requestFederationRestoreFailed(std::wstring const&) override { restoreFailed = true; }
  void federationRestoreBegun() override { restoreBegun = true; }
  void initiateFederateRestore(std::wstring const&, std::wstring const& name, FederateHandle handle) override {
    restoreInitiated = true;
    restoreName = name;
    restoreHandle = handle;
  }
  void federationRestored() override { restored = true; }
  void discoverObjectInstance(ObjectInstanceHandle, ObjectClassHandle, std::wstring const&) override {
    discovered = true;
  }
};

using dropin::until;

bool knows(RTIambassador& rti, ObjectInstanceHandle object) {
  try {
    rti.getKnownObjectClassHandle(object);
    return true;
  } catch (ObjectInstanceNotKnown const&) {
    return false;
  }
}

long long timeOf(RTIambassador& rti) {
  HLAinteger64Time now;
  rti.queryLogicalTime(now);
  return now.getTime();
}

void advance(RTIambassador& a, Saver& fa, RTIambassador& b, Saver& fb, long long to) {
  a.timeAdvanceRequest(HLAinteger64Time(to));
  b.timeAdvanceRequest(HLAinteger64Time(to));
  CHECK(until(a, b, [&] { return fa.granted == to && fb.granted == to; }));
}

void saveAndRestore(std::wstring const& designator) {
  RTIambassadorFactory factory;
  RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
  RTI_UNIQUE_PTR<RTIambassador> a = factory.createRTIambassador();
  RTI_UNIQUE_PTR<RTIambassador> b = factory.createRTIambassador();
  RTI_SUPPRESS_AUTO_PTR_WARNING_END
  Saver fa, fb;
  a->connect(fa, HLA_EVOKED, designator);
  b->connect(fb, HLA_EVOKED, designator);
  std::wstring const fom = L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml";
  a->createFederationExecution(kFederation, fom, L"HLAinteger64Time");
  a->joinFederationExecution(L"alpha", L"test", kFederation);
  FederateHandle const hb = b->joinFederationExecution(L"beta", L"test", kFederation);
  ObjectClassHandle const vehicle = a->getObjectClassHandle(L"Vehicle");
  AttributeHandleSet attributes;
  attributes.insert(a->getAttributeHandle(vehicle, L"Position"));
  a->publishObjectClassAttributes(vehicle, attributes);
  b->subscribeObjectClassAttributes(vehicle, attributes);
  ObjectInstanceHandle const tank = a->registerObjectInstance(vehicle);
  CHECK(until(*a, *b, [&] { return fb.discovered; }));
  HLAinteger64Interval const lookahead(1);
  a->enableTimeRegulation(lookahead);
  b->enableTimeRegulation(lookahead);
  CHECK(until(*a, *b, [&] { return fa.regulating && fb.regulating; }));
  a->enableTimeConstrained();
  b->enableTimeConstrained();
  CHECK(until(*a, *b, [&] { return fa.constrained && fb.constrained; }));

  // A timed save: initiated at each federate when its grant reaches the time.
  a->requestFederationSave(L"s1", HLAinteger64Time(2));
  advance(*a, fa, *b, fb, 1);
  CHECK(!fa.initiated && !fb.initiated);
  advance(*a, fa, *b, fb, 2);
  CHECK(until(*a, *b, [&] { return fa.initiated && fb.initiated; }));
  CHECK_EQ(fa.savedAt, 2);
  CHECK_THROWS(a->timeAdvanceRequest(HLAinteger64Time(3)), SaveInProgress);
  CHECK_THROWS(a->federateSaveComplete(), FederateHasNotBegunSave);
  a->federateSaveBegun();
  b->federateSaveBegun();
  a->queryFederationSaveStatus();
  CHECK(until(*a, *b, [&] { return fa.statuses == 2; }));
  a->federateSaveComplete();
  b->federateSaveComplete();
  CHECK(until(*a, *b, [&] { return fa.saved && fb.saved; }));
  CHECK_THROWS(a->federateSaveBegun(), SaveNotInitiated);

  // After the save: time goes on and the object goes.
  advance(*a, fa, *b, fb, 5);
  a->deleteObjectInstance(tank, VariableLengthData());
  CHECK(until(*a, *b, [&] { return !knows(*b, tank); }));

  b->requestFederationRestore(L"s1");
  CHECK(until(*a, *b, [&] { return fb.restoreSucceeded && fa.restoreInitiated && fb.restoreInitiated; }));
  CHECK(fa.restoreBegun && fb.restoreBegun);
  CHECK(fb.restoreName == L"beta" && fb.restoreHandle == hb);
  CHECK_THROWS(a->timeAdvanceRequest(HLAinteger64Time(6)), RestoreInProgress);
  a->federateRestoreComplete();
  b->federateRestoreComplete();
  CHECK(until(*a, *b, [&] { return fa.restored && fb.restored; }));
  // Logical time and the object are as they were at the save.
  CHECK_EQ(timeOf(*a), 2);
  CHECK_EQ(timeOf(*b), 2);
  CHECK(knows(*b, tank) && b->getKnownObjectClassHandle(tank) == vehicle);
  advance(*a, fa, *b, fb, 3);

  // A federate that cannot save fails the save; an unknown label cannot be restored.
  fa.initiated = fb.initiated = false;
  a->requestFederationSave(L"s2");
  CHECK(until(*a, *b, [&] { return fa.initiated && fb.initiated; }));
  a->federateSaveBegun();
  b->federateSaveBegun();
  a->federateSaveComplete();
  b->federateSaveNotComplete();
  CHECK(until(*a, *b, [&] { return fa.notSaved >= 0 && fb.notSaved >= 0; }));
  CHECK_EQ(fa.notSaved, static_cast<int>(FEDERATE_REPORTED_FAILURE_DURING_SAVE));
  a->requestFederationRestore(L"s2");
  CHECK(until(*a, *b, [&] { return fa.restoreFailed; }));

  a->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
  b->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
  a->destroyFederationExecution(kFederation);
}

}  // namespace

int main() {
  try {
    TestRouter router;
    saveAndRestore(router.designator());
  } catch (Exception const& e) {
    check::fail(__FILE__, __LINE__, "unexpected exception: " + check::narrow(e.what()));
  } catch (std::exception const& e) {
    check::fail(__FILE__, __LINE__, e.what());
  }
  return check::finish("test_save_restore");
}
