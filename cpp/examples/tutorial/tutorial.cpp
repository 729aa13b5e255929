// trellis-tutorial: a federate written the way HLA tutorials write them, on the standard
// C++ API only, on the demo object model (foms/trellis-demo.xml). Run it twice:
//
//   trellis-tutorial --role producer     and     trellis-tutorial --role consumer
//
// Both join, become time regulating (lookahead 1) and constrained, meet at the
// synchronization point "ReadyToRun", and step logical time together. The producer drives a vehicle: each
// step it updates Position (HLAinteger32LE X, Y) with a time stamp, and every fifth step sends
// a Radio interaction. The consumer subscribes to vehicles inside a region of the map and
// checks that updates arrive in time-stamp order, never past its granted time, with the
// values sent. Halfway the producer offers the vehicle's Velocity (negotiated divestiture)
// and the consumer takes it over and updates it from then on.
//
// The same program exists in Rust (crates/net/examples/tutorial.rs); either may take either
// role. Exit status 0 when every check held.
#include <RTI/RTI1516.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

using namespace rti1516e;

// Built outside the repository, name the demo FOM's path (-DTRELLIS_DEMO_FOM="..."; an
// install puts it in $PREFIX/share/trellis/foms) or pass --fom FILE.
#ifndef TRELLIS_DEMO_FOM
#define TRELLIS_DEMO_FOM "trellis-demo.xml"
#endif

namespace {

typedef std::chrono::steady_clock Clock;

struct Settings {
  Settings() : producer(true), steps(20), federation(L"Tutorial"), fom(TRELLIS_DEMO_FOM) {}
  bool producer;
  long long steps;
  std::wstring federation;
  std::string fom;
  std::wstring designator;  // empty: TRELLIS_RTI_ADDRESS or the default
};

std::wstring wide(std::string const& s) { return std::wstring(s.begin(), s.end()); }
std::string narrow(std::wstring const& s) { return std::string(s.begin(), s.end()); }

class Tutorial : public NullFederateAmbassador {
 public:
  explicit Tutorial(Settings const& settings)
      : settings_(settings), announced_(false), synchronized_(false), regulating_(false), constrained_(false),
        granted_(0), lastReflectTime_(-1), reflects_(0), radios_(0), failures_(0), offered_(false),
        acquired_(false), confirmRequested_(false) {}

  int run() {
    RTIambassadorFactory factory;
    rti_.reset(factory.createRTIambassador().release());
    rti_->connect(*this, HLA_EVOKED, settings_.designator);
    try {
      rti_->createFederationExecution(settings_.federation, wide(settings_.fom), L"HLAinteger64Time");
    } catch (FederationExecutionAlreadyExists const&) {
    }
    std::wstring const me = settings_.producer ? L"producer" : L"consumer";
    rti_->joinFederationExecution(me, L"tutorial", settings_.federation);
    declare();
    // Time policies first: once the federation is synchronized, every federate is constrained,
    // so no time-stamped message can reach one still in receive order.
    enableTime();
    meetAtReadyToRun();
    for (long long t = 0; t < settings_.steps; ++t) step(t);
    finish();
    std::printf("%s: %lld steps, %d reflects, %d radios, velocity %s, %d failed checks\n", narrow(me).c_str(),
                settings_.steps, reflects_, radios_,
                settings_.producer ? (offered_ ? "handed over" : "kept") : (acquired_ ? "acquired" : "not acquired"),
                failures_);
    return failures_ == 0 ? 0 : 1;
  }

  // ---- callbacks ----
  void announceSynchronizationPoint(std::wstring const& label, VariableLengthData const&) override {
    if (label == L"ReadyToRun") announced_ = true;
  }
  void federationSynchronized(std::wstring const& label, FederateHandleSet const&) override {
    if (label == L"ReadyToRun") synchronized_ = true;
  }
  void timeRegulationEnabled(LogicalTime const&) override { regulating_ = true; }
  void timeConstrainedEnabled(LogicalTime const&) override { constrained_ = true; }
  void timeAdvanceGrant(LogicalTime const& time) override { granted_ = static_cast<HLAinteger64Time const&>(time).getTime(); }
  void discoverObjectInstance(ObjectInstanceHandle object, ObjectClassHandle, std::wstring const&) override {
    car_ = object;
  }
  using NullFederateAmbassador::reflectAttributeValues;
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const& values, VariableLengthData const&,
                              OrderType, TransportationType, LogicalTime const& time, OrderType received,
                              SupplementalReflectInfo) override {
    long long const t = static_cast<HLAinteger64Time const&>(time).getTime();
    expect(received == TIMESTAMP, "an update arrived in receive order");
    expect(t >= lastReflectTime_, "updates arrived out of time-stamp order");
    expect(t > granted_, "an update arrived at or before the granted time");
    lastReflectTime_ = t;
    AttributeHandleValueMap::const_iterator p = values.find(position_);
    if (p != values.end()) {
      HLAfixedRecord decoded = positionRecord(0, 0);
      decoded.decode(p->second);
      Integer32 const x = static_cast<HLAinteger32LE const&>(decoded.get(0));
      // The producer sends X = 10 * (its time stamp), inside the consumer's region.
      expect(x == 10 * t, "the position is not the one sent");
      ++reflects_;
    }
  }
  using NullFederateAmbassador::receiveInteraction;
  void receiveInteraction(InteractionClassHandle, ParameterHandleValueMap const& parameters, VariableLengthData const&,
                          OrderType, TransportationType, LogicalTime const&, OrderType, SupplementalReceiveInfo) override {
    HLAunicodeString text;
    ParameterHandleValueMap::const_iterator p = parameters.find(text_);
    if (p != parameters.end()) text.decode(p->second);
    expect(text.get() == L"beep", "the radio text is not the one sent");
    ++radios_;
  }
  void requestAttributeOwnershipAssumption(ObjectInstanceHandle object, AttributeHandleSet const& offered,
                                           VariableLengthData const&) override {
    // The consumer takes the Velocity it is offered.
    rti_->attributeOwnershipAcquisition(object, offered, VariableLengthData("take", 4));
  }
  void requestDivestitureConfirmation(ObjectInstanceHandle, AttributeHandleSet const&) override {
    confirmRequested_ = true;
  }
  void attributeOwnershipAcquisitionNotification(ObjectInstanceHandle, AttributeHandleSet const&,
                                                 VariableLengthData const&) override {
    acquired_ = true;
  }

 private:
  static HLAfixedRecord positionRecord(Integer32 x, Integer32 y) {
    HLAfixedRecord record;
    record.appendElement(HLAinteger32LE(x));
    record.appendElement(HLAinteger32LE(y));
    return record;
  }

  void expect(bool condition, char const* what) {
    if (!condition) {
      ++failures_;
      std::fprintf(stderr, "check failed: %s\n", what);
    }
  }

  // Evoke until `flag` is set, at most 30 s.
  void await(bool const& flag, char const* what) {
    Clock::time_point const deadline = Clock::now() + std::chrono::seconds(30);
    while (!flag) {
      if (Clock::now() > deadline) throw std::runtime_error(std::string("timed out waiting for ") + what);
      rti_->evokeMultipleCallbacks(0.0, 0.1);
    }
  }

  void declare() {
    vehicle_ = rti_->getObjectClassHandle(L"Vehicle");
    position_ = rti_->getAttributeHandle(vehicle_, L"Position");
    velocity_ = rti_->getAttributeHandle(vehicle_, L"Velocity");
    radio_ = rti_->getInteractionClassHandle(L"Radio");
    text_ = rti_->getParameterHandle(radio_, L"Text");
    AttributeHandleSet both;
    both.insert(position_);
    both.insert(velocity_);
    if (settings_.producer) {
      rti_->publishObjectClassAttributes(vehicle_, both);
      rti_->publishInteractionClass(radio_);
      car_ = rti_->registerObjectInstance(vehicle_);
      return;
    }
    // The consumer listens in a region of the map: X in [0, 1000), Y in [0, 100).
    DimensionHandle const x = rti_->getDimensionHandle(L"X");
    DimensionHandle const y = rti_->getDimensionHandle(L"Y");
    DimensionHandleSet dimensions;
    dimensions.insert(x);
    dimensions.insert(y);
    RegionHandle const region = rti_->createRegion(dimensions);
    rti_->setRangeBounds(region, x, RangeBounds(0, 1000));
    rti_->setRangeBounds(region, y, RangeBounds(0, 100));
    RegionHandleSet regions;
    regions.insert(region);
    rti_->commitRegionModifications(regions);
    AttributeHandleSetRegionHandleSetPairVector pairs;
    pairs.push_back(std::make_pair(both, regions));
    rti_->subscribeObjectClassAttributesWithRegions(vehicle_, pairs);
    rti_->subscribeInteractionClass(radio_);
    AttributeHandleSet velocity;
    velocity.insert(velocity_);
    rti_->publishObjectClassAttributes(vehicle_, velocity);  // to take Velocity over
  }

  // The producer registers "ReadyToRun" once the consumer has joined; both achieve it.
  void meetAtReadyToRun() {
    if (settings_.producer) {
      Clock::time_point const deadline = Clock::now() + std::chrono::seconds(30);
      for (;;) {
        try {
          rti_->getFederateHandle(L"consumer");
          break;
        } catch (NameNotFound const&) {
          if (Clock::now() > deadline) throw std::runtime_error("the consumer did not join within 30 s");
          rti_->evokeMultipleCallbacks(0.0, 0.1);
        }
      }
      rti_->registerFederationSynchronizationPoint(L"ReadyToRun", VariableLengthData());
    }
    await(announced_, "the announcement of ReadyToRun");
    rti_->synchronizationPointAchieved(L"ReadyToRun");
    await(synchronized_, "the federation to synchronize at ReadyToRun");
  }

  void enableTime() {
    rti_->enableTimeRegulation(HLAinteger64Interval(1));
    await(regulating_, "time regulation");
    rti_->enableTimeConstrained();
    await(constrained_, "time constraint");
  }

  void step(long long t) {
    HLAinteger64Time const stamp(t + 1);  // the earliest a regulating federate may send at t
    if (settings_.producer) {
      AttributeHandleValueMap values;
      values[position_] = positionRecord(static_cast<Integer32>(10 * (t + 1)), 50).encode();
      if (rti_->isAttributeOwnedByFederate(car_, velocity_)) values[velocity_] = velocity(1.0f);
      rti_->updateAttributeValues(car_, values, VariableLengthData(), stamp);
      if (t % 5 == 0) {
        ParameterHandleValueMap parameters;
        parameters[text_] = HLAunicodeString(std::wstring(L"beep")).encode();
        rti_->sendInteraction(radio_, parameters, VariableLengthData(), stamp);
      }
      handOverVelocity(t);
    } else if (acquired_) {
      AttributeHandleValueMap values;
      values[velocity_] = velocity(2.0f);
      rti_->updateAttributeValues(car_, values, VariableLengthData(), stamp);
    }
    rti_->timeAdvanceRequest(stamp);
    Clock::time_point const deadline = Clock::now() + std::chrono::seconds(30);
    while (granted_ < t + 1) {
      if (Clock::now() > deadline) throw std::runtime_error("no time advance grant within 30 s");
      rti_->evokeMultipleCallbacks(0.0, 0.1);
    }
  }

  static VariableLengthData velocity(float value) {
    HLAfixedRecord record;
    record.appendElement(HLAfloat32LE(value));
    record.appendElement(HLAfloat32LE(0.0f));
    return record.encode();
  }

  void handOverVelocity(long long t) {
    AttributeHandleSet velocity;
    velocity.insert(velocity_);
    if (t == settings_.steps / 2) {
      rti_->negotiatedAttributeOwnershipDivestiture(car_, velocity, VariableLengthData("offer", 5));
      offered_ = true;
    }
    if (confirmRequested_) {
      confirmRequested_ = false;
      rti_->confirmDivestiture(car_, velocity, VariableLengthData());
    }
  }

  void finish() {
    if (settings_.producer) {
      expect(!offered_ || !rti_->isAttributeOwnedByFederate(car_, velocity_), "Velocity was not handed over");
    } else {
      expect(reflects_ == settings_.steps, "not every update was reflected");
      expect(radios_ == (settings_.steps + 4) / 5, "not every radio call was received");
      expect(acquired_, "Velocity was not acquired");
    }
    rti_->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
    try {
      rti_->destroyFederationExecution(settings_.federation);
    } catch (FederatesCurrentlyJoined const&) {
      // The other federate is still there; it destroys the federation when it leaves.
    } catch (FederationExecutionDoesNotExist const&) {
    }
    rti_->disconnect();
  }

  Settings settings_;
  std::unique_ptr<RTIambassador> rti_;
  ObjectClassHandle vehicle_;
  AttributeHandle position_, velocity_;
  InteractionClassHandle radio_;
  ParameterHandle text_;
  ObjectInstanceHandle car_;
  bool announced_, synchronized_, regulating_, constrained_;
  long long granted_, lastReflectTime_;
  int reflects_, radios_, failures_;
  bool offered_, acquired_, confirmRequested_;
};

}  // namespace

int main(int argc, char** argv) {
  Settings settings;
  for (int i = 1; i < argc; ++i) {
    std::string const arg = argv[i];
    if (arg == "--role" && i + 1 < argc) {
      std::string const role = argv[++i];
      if (role != "producer" && role != "consumer") {
        std::fprintf(stderr, "--role must be producer or consumer\n");
        return 2;
      }
      settings.producer = role == "producer";
    } else if (arg == "--steps" && i + 1 < argc) {
      settings.steps = std::atoll(argv[++i]);
    } else if (arg == "--federation" && i + 1 < argc) {
      settings.federation = wide(argv[++i]);
    } else if (arg == "--rti" && i + 1 < argc) {
      settings.designator = wide(argv[++i]);
    } else if (arg == "--fom" && i + 1 < argc) {
      settings.fom = argv[++i];
    } else {
      std::fprintf(stderr, "usage: trellis-tutorial --role producer|consumer [--steps N] [--federation NAME] [--rti URL] [--fom FILE]\n");
      return 2;
    }
  }
  if (settings.steps < 2) {
    std::fprintf(stderr, "--steps must be at least 2\n");
    return 2;
  }
  try {
    return Tutorial(settings).run();
  } catch (Exception const& e) {
    std::fprintf(stderr, "trellis-tutorial: %s\n", narrow(e.what()).c_str());
  } catch (std::exception const& e) {
    std::fprintf(stderr, "trellis-tutorial: %s\n", e.what());
  }
  return 1;
}
