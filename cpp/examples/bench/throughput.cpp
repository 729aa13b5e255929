// trellis-cpp-throughput: the throughput benchmark (BmThruput) on the standard C++ API. One
// sender updates its vehicle's Position as fast as the RTI takes updates for --seconds; each
// of --subscribers receivers (own thread, own RTIambassador, HLA_EVOKED or with --callbacks
// immediate HLA_IMMEDIATE) counts reflects.
// Results as `trellis bench throughput` writes them.
#include <atomic>
#include <memory>
#include <thread>

#include "Bench.h"

namespace {

using namespace bench;

std::wstring const kFederation = L"cpp-throughput";

class Receiver : public Federate {
 public:
  Receiver(Options const& o, std::wstring const& name) : Federate(o, kFederation, name), received(0) {}
  using NullFederateAmbassador::reflectAttributeValues;
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const&, VariableLengthData const&,
                              OrderType, TransportationType, SupplementalReflectInfo) override {
    // The clock every 64 reflects (and after each evoke that delivered any, below), as
    // `trellis bench throughput`'s receivers read it: a read per reflect was about 6 % of
    // the receiving thread, a cost of this benchmark and not of the API it measures.
    // HLA_IMMEDIATE: the receiver's own thread reads it, woken every 4096 reflects.
    unsigned long long const count = ++received;
    if (callbacks == HLA_EVOKED) {
      if (count % 64 == 0) last = Clock::now();
    } else if (count % 4096 == 0) {
      signal();
    }
  }
  std::atomic<unsigned long long> received;
  Clock::time_point last;
};

struct Outcome {
  Outcome() : received(0), seconds(0) {}
  unsigned long long received;
  double seconds;
  std::string failure;
};

}  // namespace

int main(int argc, char** argv) {
  Options const o = parse(argc, argv, "trellis-cpp-throughput [--rti URL] [--size BYTES] [--seconds S] [--subscribers N] [--out DIR] [--json] [--fom FILE] [--callbacks evoked|immediate]");
  try {
    Federate sender(o, kFederation, L"sender");
    std::atomic<size_t> ready(0);
    std::atomic<bool> sending(false), done(false);
    // How many updates the sender published, once it is done: receivers wait for all of
    // them (a pause on a loaded machine is not a loss), within a bound of silence.
    std::atomic<unsigned long long> published(0);
    Clock::time_point start;
    std::vector<Outcome> outcomes(o.subscribers);
    std::vector<std::thread> threads;
    for (size_t i = 0; i < o.subscribers; ++i) {
      threads.push_back(std::thread([&, i] {
        try {
          std::wostringstream name;
          name << L"receiver-" << i + 1;
          Receiver receiver(o, name.str());
          receiver.waitForPeers(1);
          ++ready;
          while (!sending) receiver.deliverFor(0.0, 0.01);
          // Receive until the sender is done and everything it sent arrived, or nothing came
          // for 5 s (what is missing then is lost). Waiting up to 20 ms for callbacks when
          // none are pending, as `trellis bench throughput`'s receivers do, instead of
          // spinning on a core the sender and the network need.
          for (;;) {
            unsigned long long const before = receiver.received;
            receiver.deliverFor(0.02, 0.2);
            if (receiver.received != before) receiver.last = Clock::now();
            if (!done) continue;
            if (receiver.received >= published) break;
            if (receiver.received == before && Clock::now() - receiver.last > std::chrono::seconds(5)) break;
          }
          outcomes[i].received = receiver.received;
          outcomes[i].seconds = std::chrono::duration<double>(receiver.last - start).count();
        } catch (Exception const& e) {
          outcomes[i].failure = narrow(e.what());
          ++ready;
        } catch (std::exception const& e) {
          outcomes[i].failure = e.what();
          ++ready;
        }
      }));
    }
    sender.waitForPeers(o.subscribers);
    while (ready < o.subscribers) sender.deliverFor(0.0, 0.01);
    std::vector<Octet> payload(o.size, 0x5A);
    start = Clock::now();
    sending = true;
    unsigned long long sent = 0;
    Clock::time_point const end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.seconds));
    while (Clock::now() < end) {
      // 256 updates between clock reads, as `trellis bench throughput` sends; callbacks (none
      // are expected) are looked at between bursts.
      for (int burst = 0; burst < 256; ++burst, ++sent) sender.update(payload);
      if (sender.callbacks == HLA_EVOKED) sender.rti->evokeCallback(0.0);
    }
    double const sendSeconds = std::chrono::duration<double>(Clock::now() - start).count();
    published = sent;
    done = true;
    for (size_t i = 0; i < threads.size(); ++i) threads[i].join();
    unsigned long long received = 0;
    std::vector<double> rates;
    for (size_t i = 0; i < outcomes.size(); ++i) {
      if (!outcomes[i].failure.empty()) throw std::runtime_error("receiver: " + outcomes[i].failure);
      received += outcomes[i].received;
      rates.push_back(static_cast<double>(outcomes[i].received) / std::max(outcomes[i].seconds, 1e-9));
    }
    unsigned long long const expected = sent * o.subscribers;
    unsigned long long const lost = expected > received ? expected - received : 0;
    double const rate = mean(rates);
    std::ostringstream perSubscriber;
    for (size_t i = 0; i < rates.size(); ++i) perSubscriber << (i ? "," : "") << number(rates[i]);
    std::ostringstream one;
    one << "{\"subscribers\":" << o.subscribers << ",\"size\":" << o.size << ",\"seconds\":" << number(o.seconds)
        << ",\"sent\":" << sent << ",\"received\":" << received << ",\"lost\":" << lost
        << ",\"sender_msgs_per_sec\":" << number(static_cast<double>(sent) / sendSeconds)
        << ",\"msgs_per_sec\":" << number(rate) << ",\"per_subscriber_msgs_per_sec\":[" << perSubscriber.str()
        << "],\"payload_mb_per_sec\":" << number(rate * static_cast<double>(o.size) / 1e6) << "}";
    std::ostringstream summary;
    summary << "{\"mode\":\"trellis\",\"api\":\"cpp-1516e\",\"transport\":\"reliable\",\"size\":" << o.size
            << ",\"cases\":[" << one.str() << "],\"subscribers\":" << o.subscribers << ",\"msgs_per_sec\":"
            << number(rate) << ",\"sent\":" << sent << ",\"received\":" << received << ",\"lost\":" << lost << "}";
    writeResults(o, "throughput", "trellis-cpp-throughput", summary.str());
    if (o.json) {
      std::printf("%s\n", summary.str().c_str());
    } else {
      std::printf("C++ 1516e throughput, %zu B, 1 -> %zu: sent %llu (%.0f/s), received %.0f/s per receiver, lost %llu (%s)\n",
                  o.size, o.subscribers, sent, static_cast<double>(sent) / sendSeconds, rate, lost, o.out.c_str());
    }
    return lost == 0 ? 0 : 1;
  } catch (Exception const& e) {
    std::fprintf(stderr, "trellis-cpp-throughput: %s\n", narrow(e.what()).c_str());
  } catch (std::exception const& e) {
    std::fprintf(stderr, "trellis-cpp-throughput: %s\n", e.what());
  }
  return 1;
}
