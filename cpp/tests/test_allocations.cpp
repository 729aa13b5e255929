// What an update and its reflect cost the C++ API in allocations (operator new, counted by
// replacing it in this program; the Rust library below allocates with malloc and is
// measured by crates/net/tests/federate_allocations.rs). The federate's own maps are built
// once, as a federate that updates in a loop does; what is counted is the API's.
#include <RTI/RTI1516.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "check.h"
#include "dropin.h"
#include "router.h"

namespace {
std::atomic<unsigned long> allocations(0);
}

// Replacements of the global allocation functions (C++11 and C++17 alike): count, then
// allocate as the default ones do.
void* operator new(std::size_t size) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = std::malloc(size == 0 ? 1 : size);
  if (p == 0) throw std::bad_alloc();
  return p;
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

using namespace rti1516e;
using dropin::make;
using dropin::until;

namespace {

// What a reflect of one attribute costs the C++ API: the value map's node (the standard's
// AttributeHandleValueMap is a std::map, one node per attribute). The values and the tag
// point at the received bytes (not copied); an update passes its values to the C ABI as
// pointers in a buffer kept per thread. Measured before that work: 3.00.
double const ALLOWED_PER_UPDATE = 1.0;

struct Reflections : public NullFederateAmbassador {
  Reflections() : reflected(0), discovered(false) {}
  unsigned long reflected;
  bool discovered;
  void discoverObjectInstance(ObjectInstanceHandle, ObjectClassHandle, std::wstring const&) override {
    discovered = true;
  }
  void discoverObjectInstance(ObjectInstanceHandle, ObjectClassHandle, std::wstring const&,
                              FederateHandle) override {
    discovered = true;
  }
  using NullFederateAmbassador::reflectAttributeValues;
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const& values, VariableLengthData const&,
                              OrderType, TransportationType, SupplementalReflectInfo) override {
    if (values.size() == 1 && values.begin()->second.size() == 64) ++reflected;
  }
};

void updatesAndReflects(std::wstring const& designator) {
  RTIambassador* a = make();
  RTIambassador* b = make();
  NullFederateAmbassador publisher;
  Reflections subscriber;
  a->connect(publisher, HLA_EVOKED, designator);
  b->connect(subscriber, HLA_EVOKED, designator);
  std::vector<std::wstring> modules(1, L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml");
  a->createFederationExecution(L"Allocations", modules, L"HLAinteger64Time");
  a->joinFederationExecution(L"a", L"test", L"Allocations");
  b->joinFederationExecution(L"b", L"test", L"Allocations");
  ObjectClassHandle const vehicle = a->getObjectClassHandle(L"Vehicle");
  AttributeHandle const position = a->getAttributeHandle(vehicle, L"Position");
  AttributeHandleSet attributes;
  attributes.insert(position);
  a->publishObjectClassAttributes(vehicle, attributes);
  b->subscribeObjectClassAttributes(vehicle, attributes);
  ObjectInstanceHandle const tank = a->registerObjectInstance(vehicle);
  std::vector<char> bytes(64, 7);
  AttributeHandleValueMap values;
  values[position] = VariableLengthData(&bytes[0], bytes.size());
  VariableLengthData const tag;
  // Until b's subscription has reached the router, updates go nowhere: send until one is
  // reflected.
  CHECK(until(*a, *b, [&]() {
    a->updateAttributeValues(tank, values, tag);
    return subscriber.reflected > 0;
  }));
  auto round = [&](unsigned long count) {
    for (unsigned long i = 0; i < count; ++i) {
      unsigned long const before = subscriber.reflected;
      a->updateAttributeValues(tank, values, tag);
      if (!until(*a, *b, [&]() { return subscriber.reflected > before; })) {
        check::fail(__FILE__, __LINE__, "an update was not reflected in time");
        return;
      }
    }
  };
  round(1000);  // warm up: the library's buffers reach their working size
  unsigned long const rounds = 5000;
  unsigned long const start = allocations.load();
  round(rounds);
  double const perUpdate = double(allocations.load() - start) / double(rounds);
  std::printf("C++ API: %.2f allocations per update and reflect (operator new)\n", perUpdate);
  CHECK(perUpdate <= ALLOWED_PER_UPDATE);
  a->resignFederationExecution(DELETE_OBJECTS);
  b->resignFederationExecution(NO_ACTION);
  a->destroyFederationExecution(L"Allocations");
  a->disconnect();
  b->disconnect();
  delete a;
  delete b;
}

}  // namespace

int main() {
  try {
    TestRouter router;
    updatesAndReflects(router.designator());
  } catch (Exception const& e) {
    std::fprintf(stderr, "unexpected RTI exception: %ls\n", e.what().c_str());
    check::fail(__FILE__, __LINE__, "an RTI exception escaped");
  } catch (std::exception const& e) {
    check::fail(__FILE__, __LINE__, e.what());
  }
  return check::finish("test_allocations");
}
