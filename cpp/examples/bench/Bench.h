// What the C++ ports of the ping-pong and throughput benchmarks share: options, a federate
// on the demo object model, waiting with a deadline, statistics, and the results folder
// `trellis report` reads (meta.json, summary.json). Only the standard API.
//
// The payload travels as the vehicle's Name attribute: the demo model sends it HLAreliable
// (Position is HLAbestEffort there, and sheds under overload), as `trellis bench` sends
// reliably by default; the bytes are opaque to the RTI.
#ifndef TRELLIS_EXAMPLES_BENCH_H
#define TRELLIS_EXAMPLES_BENCH_H

#include <RTI/RTI1516.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bench {

using namespace rti1516e;
typedef std::chrono::steady_clock Clock;

struct Options {
  Options() : size(128), count(2000), seconds(5.0), subscribers(1), json(false), callbacks(HLA_EVOKED) {
    char const* env = std::getenv("TRELLIS_RTI_ADDRESS");
    rti = env != 0 ? env : "tcp://127.0.0.1:7000";
    fom = TRELLIS_DEMO_FOM;
  }
  std::string rti, fom, out;
  size_t size, count;
  double seconds;
  size_t subscribers;
  bool json;
  // HLA_EVOKED: each federate's thread evokes; HLA_IMMEDIATE: the library's thread delivers.
  CallbackModel callbacks;
};

inline Options parse(int argc, char** argv, char const* usage) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    std::string const arg = argv[i];
    bool const hasValue = i + 1 < argc;
    if (arg == "--json") {
      o.json = true;
    } else if (arg == "--rti" && hasValue) {
      o.rti = argv[++i];
    } else if (arg == "--fom" && hasValue) {
      o.fom = argv[++i];
    } else if (arg == "--out" && hasValue) {
      o.out = argv[++i];
    } else if (arg == "--size" && hasValue) {
      o.size = std::strtoul(argv[++i], 0, 10);
    } else if (arg == "--count" && hasValue) {
      o.count = std::strtoul(argv[++i], 0, 10);
    } else if (arg == "--seconds" && hasValue) {
      o.seconds = std::strtod(argv[++i], 0);
    } else if (arg == "--subscribers" && hasValue) {
      o.subscribers = std::strtoul(argv[++i], 0, 10);
    } else if (arg == "--callbacks" && hasValue && std::string(argv[i + 1]) == "evoked") {
      o.callbacks = HLA_EVOKED;
      ++i;
    } else if (arg == "--callbacks" && hasValue && std::string(argv[i + 1]) == "immediate") {
      o.callbacks = HLA_IMMEDIATE;
      ++i;
    } else {
      std::fprintf(stderr, "usage: %s\n", usage);
      std::exit(2);
    }
  }
  if (o.size < 1 || o.count < 1 || o.subscribers < 1 || !(o.seconds > 0)) {
    std::fprintf(stderr, "--size, --count, --subscribers and --seconds must be positive\n");
    std::exit(2);
  }
  if (o.out.empty()) {
    std::ostringstream dir;
    dir << "results/cpp-" << std::time(0);
    o.out = dir.str();
  }
  return o;
}

inline std::wstring wide(std::string const& s) { return std::wstring(s.begin(), s.end()); }

inline std::string narrow(std::wstring const& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) out += static_cast<char>(s[i] < 128 ? s[i] : '?');
  return out;
}

// One federate of a benchmark: joined, publishing and subscribing Vehicle.Position, with one
// registered Vehicle. Derived classes count what they reflect.
class Federate : public NullFederateAmbassador {
 public:
  Federate(Options const& options, std::wstring const& federation, std::wstring const& name)
      : callbacks(options.callbacks), discovered(0), registrationAdvised(false), signals_(0), seen_(0) {
    RTIambassadorFactory factory;
    rti.reset(factory.createRTIambassador().release());
    rti->connect(*this, callbacks, wide(options.rti));
    try {
      rti->createFederationExecution(federation, wide(options.fom));
    } catch (FederationExecutionAlreadyExists const&) {
    }
    rti->joinFederationExecution(name, L"benchmark", federation);
    vehicle = rti->getObjectClassHandle(L"Vehicle");
    payloadAttribute = rti->getAttributeHandle(vehicle, L"Name");
    AttributeHandleSet attributes;
    attributes.insert(payloadAttribute);
    rti->publishObjectClassAttributes(vehicle, attributes);
    rti->subscribeObjectClassAttributes(vehicle, attributes);
    object = rti->registerObjectInstance(vehicle);
  }

  virtual ~Federate() {
    try {
      rti->resignFederationExecution(CANCEL_THEN_DELETE_THEN_DIVEST);
      rti->disconnect();
    } catch (Exception const& e) {
      std::fprintf(stderr, "resign: %s\n", narrow(e.what()).c_str());
    }
  }

  // Evoke until `peers` other federates' vehicles are discovered, at most 30 s.
  void waitForPeers(size_t peers) {
    Clock::time_point const deadline = Clock::now() + std::chrono::seconds(30);
    while (discovered < peers) {
      if (Clock::now() > deadline) throw std::runtime_error("the other federates were not discovered in 30 s");
      deliverFor(0.0, 0.05);
    }
  }

  // Let callbacks be delivered for a while: HLA_EVOKED evokes them on this thread
  // (evokeMultipleCallbacks(minSeconds, maxSeconds)); HLA_IMMEDIATE, where the library's
  // thread delivers them, waits until a callback signals or minSeconds (at least 1 ms) pass.
  void deliverFor(double minSeconds, double maxSeconds) {
    if (callbacks == HLA_EVOKED) {
      rti->evokeMultipleCallbacks(minSeconds, maxSeconds);
      return;
    }
    std::unique_lock<std::mutex> lock(signalMutex_);
    std::chrono::duration<double> const wait(std::max(minSeconds, 0.001));
    signalled_.wait_for(lock, wait, [this] { return signals_ != seen_; });
    seen_ = signals_;
  }

  // Wakes a deliverFor waiting on another thread (HLA_IMMEDIATE): called by a callback after
  // it counted what the waiting thread looks at.
  void signal() {
    if (callbacks == HLA_EVOKED) return;
    {
      std::lock_guard<std::mutex> lock(signalMutex_);
      ++signals_;
    }
    signalled_.notify_all();
  }

  void update(std::vector<Octet> const& payload) {
    AttributeHandleValueMap values;
    values[payloadAttribute].setDataPointer(const_cast<Octet*>(&payload[0]), payload.size());
    rti->updateAttributeValues(object, values, VariableLengthData());
  }

  void discoverObjectInstance(ObjectInstanceHandle, ObjectClassHandle, std::wstring const&) override {
    ++discovered;
    signal();
  }

  CallbackModel const callbacks;
  std::unique_ptr<RTIambassador> rti;
  ObjectClassHandle vehicle;
  AttributeHandle payloadAttribute;
  ObjectInstanceHandle object;
  // Counted by callbacks, which HLA_IMMEDIATE delivers on the library's thread.
  std::atomic<size_t> discovered;
  bool registrationAdvised;

 private:
  std::mutex signalMutex_;
  std::condition_variable signalled_;
  unsigned long long signals_, seen_;
};

inline double percentile(std::vector<double> sorted, double p) {
  if (sorted.empty()) return NAN;
  std::sort(sorted.begin(), sorted.end());
  size_t const at = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(at, sorted.size() - 1)];
}

inline double mean(std::vector<double> const& v) {
  double sum = 0;
  for (size_t i = 0; i < v.size(); ++i) sum += v[i];
  return v.empty() ? NAN : sum / static_cast<double>(v.size());
}

inline double stddev(std::vector<double> const& v) {
  double const m = mean(v);
  double sum = 0;
  for (size_t i = 0; i < v.size(); ++i) sum += (v[i] - m) * (v[i] - m);
  return v.size() < 2 ? 0.0 : std::sqrt(sum / static_cast<double>(v.size() - 1));
}

inline std::string number(double value) {
  if (!std::isfinite(value)) return "null";
  std::ostringstream text;
  text.precision(12);
  text << value;
  return text.str();
}

// Writes DIR/meta.json and DIR/summary.json (the folder is made if missing).
inline void writeResults(Options const& o, std::string const& benchmark, std::string const& command,
                         std::string const& summary) {
  std::string const mkdir = "mkdir -p '" + o.out + "'";
  if (std::system(mkdir.c_str()) != 0) throw std::runtime_error("cannot make " + o.out);
  long long const now = static_cast<long long>(std::time(0));
  std::ofstream meta((o.out + "/meta.json").c_str());
  meta << "{\"benchmark\":\"" << benchmark << "\",\"command\":\"" << command
       << "\",\"version\":\"0.1.0\",\"mode\":\"trellis\",\"api\":\"cpp-1516e\",\"transport\":\"reliable\","
       << "\"bundling\":\"adaptive\",\"started_unix\":" << now << ",\"finished_unix\":" << now
       << ",\"complete\":true}\n";
  std::ofstream out((o.out + "/summary.json").c_str());
  out << summary << "\n";
  if (!meta || !out) throw std::runtime_error("cannot write the results in " + o.out);
}

}  // namespace bench

#endif
