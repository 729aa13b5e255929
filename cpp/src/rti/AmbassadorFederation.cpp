// Federation management (IEEE 1516.1-2010 §4) and the ambassador's own state.
#include <RTI/time/HLAfloat64TimeFactory.h>
#include <RTI/time/HLAinteger64TimeFactory.h>

#include <cmath>

#include "Ambassador.h"
#include "Callbacks.h"
#include "Convert.h"
#include "Errors.h"

namespace trellis_cpp {

RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN

Ambassador::Ambassador() : rti_(0), federate_(0), joined_(false), floatTime_(false) {}

Ambassador::~Ambassador() {
  // Resigns a joined federate with its automatic resign directive and stops the callback
  // thread before this object goes.
  trellis_free(rti_);
}

TrellisRti* Ambassador::connected() const {
  if (rti_ == 0) throw NotConnected(L"not connected: call connect first");
  return rti_;
}

TrellisRti* Ambassador::joined() const {
  TrellisRti* rti = connected();
  if (!joined_) throw FederateNotExecutionMember(L"this federate has not joined a federation execution");
  return rti;
}

void Ambassador::notProvided(char const* service) const {
  connected();
  throw RTIinternalError(fromUtf8(service) + L" is not provided by Trellis");
}

void Ambassador::connect(FederateAmbassador& federateAmbassador, CallbackModel theCallbackModel,
                         std::wstring const& localSettingsDesignator) {
  if (rti_ != 0) throw AlreadyConnected(L"this ambassador is already connected");
  if (theCallbackModel != HLA_EVOKED && theCallbackModel != HLA_IMMEDIATE)
    throw UnsupportedCallbackModel(L"callback model must be HLA_EVOKED or HLA_IMMEDIATE");
  std::string const designator = toUtf8(localSettingsDesignator);
  TrellisRti* rti = 0;
  check(trellis_connect(designator.c_str(), &rti));
  TrellisCallbacks const table = callbackTable(this);
  TrellisStatus status = trellis_set_callbacks(rti, &table);
  if (status == TRELLIS_OK && theCallbackModel == HLA_IMMEDIATE) status = trellis_start_callback_thread(rti);
  if (status != TRELLIS_OK) {
    trellis_free(rti);
    check(status);
  }
  rti_ = rti;
  federate_ = &federateAmbassador;
}

void Ambassador::disconnect() {
  check(trellis_disconnect(connected()));
  trellis_free(rti_);
  rti_ = 0;
  federate_ = 0;
}

void Ambassador::createFederationExecution(std::wstring const& federationExecutionName,
                                           std::wstring const& fomModule,
                                           std::wstring const& logicalTimeImplementationName) {
  createFederationExecutionWithMIM(federationExecutionName, std::vector<std::wstring>(1, fomModule),
                                   L"", logicalTimeImplementationName);
}

void Ambassador::createFederationExecution(std::wstring const& federationExecutionName,
                                           std::vector<std::wstring> const& fomModules,
                                           std::wstring const& logicalTimeImplementationName) {
  createFederationExecutionWithMIM(federationExecutionName, fomModules, L"",
                                   logicalTimeImplementationName);
}

namespace {
// UTF-8 copies of a list of strings and the pointer array the C ABI takes.
struct Texts {
  explicit Texts(std::vector<std::wstring> const& list) {
    for (size_t i = 0; i < list.size(); ++i) owned.push_back(toUtf8(list[i]));
    for (size_t i = 0; i < owned.size(); ++i) pointers.push_back(owned[i].c_str());
  }
  template <typename Set>
  static Texts of(Set const& set) {
    return Texts(std::vector<std::wstring>(set.begin(), set.end()));
  }
  std::vector<std::string> owned;
  std::vector<char const*> pointers;
};
}  // namespace

void Ambassador::createFederationExecutionWithMIM(std::wstring const& federationExecutionName,
                                                  std::vector<std::wstring> const& fomModules,
                                                  std::wstring const& mimModule,
                                                  std::wstring const& logicalTimeImplementationName) {
  Texts modules(fomModules);
  std::string const name = toUtf8(federationExecutionName);
  std::string const mim = toUtf8(mimModule);
  // No logical time implementation named: IEEE 1516.1-2010 (4.5) makes it HLAfloat64Time (the
  // C ABI's own default is HLAinteger64Time, so the standard's is named here).
  std::string const time =
      logicalTimeImplementationName.empty() ? "HLAfloat64Time" : toUtf8(logicalTimeImplementationName);
  check(trellis_create_federation_execution(connected(), name.c_str(), data(modules.pointers),
                                            modules.pointers.size(), mim.empty() ? 0 : mim.c_str(),
                                            time.c_str()));
}

void Ambassador::destroyFederationExecution(std::wstring const& federationExecutionName) {
  std::string const name = toUtf8(federationExecutionName);
  check(trellis_destroy_federation_execution(connected(), name.c_str()));
}

void Ambassador::listFederationExecutions() { check(trellis_list_federation_executions(connected())); }

FederateHandle Ambassador::joinFederationExecution(std::wstring const& federateType,
                                                   std::wstring const& federationExecutionName,
                                                   std::vector<std::wstring> const& additionalFomModules) {
  return joinFederationExecution(L"", federateType, federationExecutionName, additionalFomModules);
}

FederateHandle Ambassador::joinFederationExecution(std::wstring const& federateName,
                                                   std::wstring const& federateType,
                                                   std::wstring const& federationExecutionName,
                                                   std::vector<std::wstring> const& additionalFomModules) {
  Texts modules(additionalFomModules);
  std::string const name = toUtf8(federateName);
  std::string const type = toUtf8(federateType);
  std::string const federation = toUtf8(federationExecutionName);
  uint64_t handle = 0;
  check(trellis_join_federation_execution(connected(), name.empty() ? 0 : name.c_str(), type.c_str(),
                                          federation.c_str(), data(modules.pointers),
                                          modules.pointers.size(), &handle));
  int32_t representation = TRELLIS_TIME_INTEGER64;
  check(trellis_time_representation(rti_, &representation));
  floatTime_ = representation == TRELLIS_TIME_FLOAT64;
  joined_ = true;
  return FederateHandleFriend::create(handle);
}

void Ambassador::resignFederationExecution(ResignAction resignAction) {
  check(trellis_resign_federation_execution(joined(), static_cast<int32_t>(resignAction)));
  joined_ = false;
}

void Ambassador::registerFederationSynchronizationPoint(std::wstring const& label,
                                                        VariableLengthData const& theUserSuppliedTag) {
  std::string const text = toUtf8(label);
  check(trellis_register_federation_synchronization_point(joined(), text.c_str(),
                                                          bytes(theUserSuppliedTag), 0, 0));
}

void Ambassador::registerFederationSynchronizationPoint(std::wstring const& label,
                                                        VariableLengthData const& theUserSuppliedTag,
                                                        FederateHandleSet const& synchronizationSet) {
  std::string const text = toUtf8(label);
  std::vector<uint64_t> const members = values<FederateHandleFriend>(synchronizationSet);
  check(trellis_register_federation_synchronization_point(
      joined(), text.c_str(), bytes(theUserSuppliedTag), data(members), members.size()));
}

void Ambassador::synchronizationPointAchieved(std::wstring const& label, bool successfully) {
  std::string const text = toUtf8(label);
  check(trellis_synchronization_point_achieved(joined(), text.c_str(), successfully));
}

// Save and restore: the federate's RTI component keeps its part under the label (in memory);
// the C ABI translates.
void Ambassador::requestFederationSave(std::wstring const& label) {
  std::string const text = toUtf8(label);
  check(trellis_request_federation_save(joined(), text.c_str(), 0));
}
void Ambassador::requestFederationSave(std::wstring const& label, LogicalTime const& theTime) {
  TrellisRti* rti = joined();
  std::string const text = toUtf8(label);
  TrellisTime const time = toC(theTime);
  check(trellis_request_federation_save(rti, text.c_str(), &time));
}
void Ambassador::federateSaveBegun() { check(trellis_federate_save_begun(joined())); }
void Ambassador::federateSaveComplete() { check(trellis_federate_save_complete(joined(), true)); }
void Ambassador::federateSaveNotComplete() { check(trellis_federate_save_complete(joined(), false)); }
void Ambassador::abortFederationSave() { check(trellis_abort_federation_save(joined())); }
void Ambassador::queryFederationSaveStatus() { check(trellis_query_federation_save_status(joined())); }
void Ambassador::requestFederationRestore(std::wstring const& label) {
  std::string const text = toUtf8(label);
  check(trellis_request_federation_restore(joined(), text.c_str()));
}
void Ambassador::federateRestoreComplete() { check(trellis_federate_restore_complete(joined(), true)); }
void Ambassador::federateRestoreNotComplete() { check(trellis_federate_restore_complete(joined(), false)); }
void Ambassador::abortFederationRestore() { check(trellis_abort_federation_restore(joined())); }
void Ambassador::queryFederationRestoreStatus() { check(trellis_query_federation_restore_status(joined())); }

// ---- logical time across the boundary ----

TrellisTime Ambassador::toC(LogicalTime const& time) const {
  TrellisTime out;
  if (HLAinteger64Time const* integer = dynamic_cast<HLAinteger64Time const*>(&time)) {
    if (floatTime_) throw InvalidLogicalTime(L"this federation's time is HLAfloat64Time");
    out.integer = integer->getTime();
    out.floating = static_cast<double>(out.integer);
  } else if (HLAfloat64Time const* floating = dynamic_cast<HLAfloat64Time const*>(&time)) {
    if (!floatTime_) throw InvalidLogicalTime(L"this federation's time is HLAinteger64Time");
    out.floating = floating->getTime();
    out.integer = static_cast<int64_t>(out.floating);
  } else {
    throw InvalidLogicalTime(L"Trellis takes HLAinteger64Time or HLAfloat64Time, not " +
                             time.implementationName());
  }
  return out;
}

TrellisTime Ambassador::toC(LogicalTimeInterval const& interval) const {
  TrellisTime out;
  if (HLAinteger64Interval const* integer = dynamic_cast<HLAinteger64Interval const*>(&interval)) {
    if (floatTime_) throw InvalidLookahead(L"this federation's time is HLAfloat64Time");
    out.integer = integer->getInterval();
    out.floating = static_cast<double>(out.integer);
  } else if (HLAfloat64Interval const* floating = dynamic_cast<HLAfloat64Interval const*>(&interval)) {
    if (!floatTime_) throw InvalidLookahead(L"this federation's time is HLAinteger64Time");
    out.floating = floating->getInterval();
    out.integer = static_cast<int64_t>(out.floating);
  } else {
    throw InvalidLookahead(L"Trellis takes HLAinteger64Interval or HLAfloat64Interval, not " +
                           interval.implementationName());
  }
  return out;
}

LogicalTime const& Ambassador::time(TrellisTime const& value) {
  if (floatTime_) {
    callbackTime_.reset(new HLAfloat64Time(value.floating));
  } else {
    callbackTime_.reset(new HLAinteger64Time(value.integer));
  }
  return *callbackTime_;
}

RTI_UNIQUE_PTR<LogicalTimeFactory> Ambassador::getTimeFactory() const {
  joined();
  if (floatTime_) return RTI_UNIQUE_PTR<LogicalTimeFactory>(new HLAfloat64TimeFactory());
  return RTI_UNIQUE_PTR<LogicalTimeFactory>(new HLAinteger64TimeFactory());
}

// ---- callbacks ----

void Ambassador::callbackFailed(char const* callback, std::wstring const& what) {
  if (callbackFailure_.empty())
    callbackFailure_ = L"the federate's " + fromUtf8(callback) + L" callback threw: " + what;
}

void Ambassador::rethrowCallbackFailure() {
  if (callbackFailure_.empty()) return;
  std::wstring const failure = callbackFailure_;
  callbackFailure_.clear();
  throw RTIinternalError(failure);
}

bool Ambassador::evoke(double minimum, double maximum, bool multiple) {
  bool pending = false;
  check(trellis_evoke(connected(), minimum, maximum, multiple, &pending));
  rethrowCallbackFailure();
  return pending;
}

bool Ambassador::evokeCallback(double approximateMinimumTimeInSeconds) {
  return evoke(approximateMinimumTimeInSeconds, approximateMinimumTimeInSeconds, false);
}

bool Ambassador::evokeMultipleCallbacks(double approximateMinimumTimeInSeconds,
                                        double approximateMaximumTimeInSeconds) {
  return evoke(approximateMinimumTimeInSeconds, approximateMaximumTimeInSeconds, true);
}

void Ambassador::enableCallbacks() { check(trellis_enable_callbacks(connected(), true)); }
void Ambassador::disableCallbacks() { check(trellis_enable_callbacks(connected(), false)); }

RTI_SUPPRESS_AUTO_PTR_WARNING_END

}  // namespace trellis_cpp
