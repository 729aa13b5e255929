// trellis-cpp-pingpong: the ping-pong benchmark (rtiperf) on the standard C++ API. A master
// and a slave federate, each on its own thread with its own RTIambassador (HLA_EVOKED, or
// with --callbacks immediate HLA_IMMEDIATE, the library's threads delivering): the
// master updates its vehicle's Position, the slave reflects it and updates its own with the
// same bytes, the master reflects that: one round trip. Results as `trellis bench pingpong`
// writes them (meta.json, summary.json), so `trellis report` shows them beside the Rust API.
#include <atomic>
#include <thread>

#include "Bench.h"

namespace {

using namespace bench;

std::wstring const kFederation = L"cpp-pingpong";
size_t const kWarmupExchanges = 20;

class Side : public Federate {
 public:
  Side(Options const& o, std::wstring const& name) : Federate(o, kFederation, name), echo(false), reflected(0) {}
  using NullFederateAmbassador::reflectAttributeValues;
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const& values, VariableLengthData const&,
                              OrderType, TransportationType, SupplementalReflectInfo) override {
    ++reflected;
    if (!echo) signal();
    if (!echo || values.empty()) return;
    VariableLengthData const& value = values.begin()->second;
    Octet const* bytes = static_cast<Octet const*>(value.data());
    payload.assign(bytes, bytes + value.size());
    update(payload);  // a service called from inside a callback, as the standard allows
  }
  bool echo;
  std::atomic<size_t> reflected;
  std::vector<Octet> payload;
};

// One exchange: update, then evoke until the answer is reflected (at most 5 s).
bool roundTrip(Side& master, std::vector<Octet> const& payload) {
  size_t const before = master.reflected;
  master.update(payload);
  Clock::time_point const deadline = Clock::now() + std::chrono::seconds(5);
  while (master.reflected == before) {
    if (Clock::now() > deadline) return false;
    if (master.callbacks == HLA_EVOKED) {
      master.rti->evokeCallback(1.0);
    } else {
      master.deliverFor(1.0, 1.0);
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options const o = parse(argc, argv, "trellis-cpp-pingpong [--rti URL] [--size BYTES] [--count N] [--out DIR] [--json] [--fom FILE] [--callbacks evoked|immediate]");
  try {
    Side master(o, L"master-1");
    std::atomic<bool> stop(false);
    std::atomic<bool> slaveReady(false);
    std::string slaveFailure;
    std::thread slaveThread([&] {
      try {
        Side slave(o, L"slave-1");
        slave.echo = true;
        slave.waitForPeers(1);
        slaveReady = true;
        // HLA_IMMEDIATE: the slave's thread only waits (the library's thread echoes).
        double const wait = slave.callbacks == HLA_EVOKED ? 0.0 : 0.05;
        while (!stop) slave.deliverFor(wait, 0.05);
      } catch (Exception const& e) {
        slaveFailure = narrow(e.what());
        slaveReady = true;
      } catch (std::exception const& e) {
        slaveFailure = e.what();
        slaveReady = true;
      }
    });
    master.waitForPeers(1);
    while (!slaveReady) master.deliverFor(0.0, 0.01);
    if (!slaveFailure.empty()) throw std::runtime_error("slave: " + slaveFailure);
    std::vector<Octet> payload(o.size, 0x5A);
    std::vector<double> rtts;
    size_t lost = 0;
    for (size_t i = 0; i < kWarmupExchanges + o.count; ++i) {
      Clock::time_point const start = Clock::now();
      bool const answered = roundTrip(master, payload);
      double const us = std::chrono::duration<double, std::micro>(Clock::now() - start).count();
      if (i < kWarmupExchanges) continue;
      if (answered) {
        rtts.push_back(us);
      } else {
        ++lost;
      }
    }
    stop = true;
    slaveThread.join();
    double const p50 = percentile(rtts, 0.5), p99 = percentile(rtts, 0.99), avg = mean(rtts);
    std::ostringstream summary;
    summary << "{\"mode\":\"trellis\",\"api\":\"cpp-1516e\",\"transport\":\"reliable\","
            << "\"pairs\":[{\"master\":\"master-1\",\"slave\":\"slave-1\",\"links\":2}],"
            << "\"sizes\":[{\"size\":" << o.size << ",\"mean_us\":" << number(avg) << ",\"std_us\":"
            << number(stddev(rtts)) << ",\"pair_means_us\":[" << number(avg) << "],\"discarded_us\":[],\"lost\":"
            << lost << "}],\"count\":" << rtts.size() << ",\"lost\":" << lost << ",\"rtt_p50_us\":" << number(p50)
            << ",\"rtt_p99_us\":" << number(p99) << ",\"rtt_mean_us\":" << number(avg) << "}";
    writeResults(o, "pingpong", "trellis-cpp-pingpong", summary.str());
    if (o.json) {
      std::printf("%s\n", summary.str().c_str());
    } else {
      std::printf("C++ 1516e ping-pong, %zu B, %zu round trips: p50 %.1f us, p99 %.1f us, mean %.1f us, lost %zu (%s)\n",
                  o.size, rtts.size(), p50, p99, avg, lost, o.out.c_str());
    }
    return lost == 0 ? 0 : 1;
  } catch (Exception const& e) {
    std::fprintf(stderr, "trellis-cpp-pingpong: %s\n", narrow(e.what()).c_str());
  } catch (std::exception const& e) {
    std::fprintf(stderr, "trellis-cpp-pingpong: %s\n", e.what());
  }
  return 1;
}
