// A federate on the standard API attaches to a real `trellis router` over TLS through the
// designator `tls://127.0.0.1:PORT` and the environment variables TRELLIS_TLS_CA,
// TRELLIS_TLS_CERT and TRELLIS_TLS_KEY, with the router asking for mutual TLS; an
// interaction crosses it. Without the CA variable, and with a certificate the router does
// not trust, connect fails with the standard exceptions. The certificates are made with
// the `openssl` command; without it the test says so and passes without running.
#include <RTI/RTI1516.h>

#include <stdlib.h>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "check.h"
#include "router.h"

using namespace rti1516e;

namespace {

struct Receiver : public NullFederateAmbassador {
  Receiver() : interactions(0), advised(false) {}
  int interactions;
  bool advised;
  std::string lastText;
  using NullFederateAmbassador::receiveInteraction;
  void receiveInteraction(InteractionClassHandle, ParameterHandleValueMap const& parameters,
                          VariableLengthData const&, OrderType, TransportationType,
                          SupplementalReceiveInfo) override {
    ++interactions;
    if (!parameters.empty()) {
      VariableLengthData const& v = parameters.begin()->second;
      lastText.assign(static_cast<char const*>(v.data()), v.size());
    }
  }
  void turnInteractionsOn(InteractionClassHandle) override { advised = true; }
};

bool run(std::string const& command) { return std::system(command.c_str()) == 0; }

// A CA, a router certificate for 127.0.0.1 and a federate certificate in `dir`; with
// `stranger` also a federate certificate of another CA.
bool makeCertificates(std::string const& dir) {
  std::string const ec = " -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes";
  std::string const quiet = " >/dev/null 2>&1";
  std::string const in = "cd " + dir + " && ";
  char const* names[] = {"router", "federate"};
  char const* units[] = {"trellis-router", "trellis-federate"};
  bool ok = true;
  char const* cas[] = {"ca", "stranger-ca"};
  for (int c = 0; c < 2; ++c) {
    std::string const ca = cas[c];
    ok = ok && run(in + "openssl req -x509" + ec + " -keyout " + ca + ".key -out " + ca +
                   ".pem -days 2 -subj '/CN=" + ca + "' -addext basicConstraints=critical,CA:TRUE" +
                   " -addext keyUsage=critical,keyCertSign,cRLSign" + quiet);
  }
  ok = ok && run(in + "printf 'subjectAltName=IP:127.0.0.1\\n' > ext.cnf");
  for (int i = 0; i < 3; ++i) {
    std::string const name = i < 2 ? names[i] : "stranger";
    std::string const unit = i < 2 ? units[i] : units[1];
    std::string const ca = i < 2 ? "ca" : "stranger-ca";
    ok = ok && run(in + "openssl req" + ec + " -keyout " + name + ".key -out " + name + ".csr -subj '/OU=" + unit +
                   "/CN=" + name + "'" + quiet);
    ok = ok && run(in + "openssl x509 -req -in " + name + ".csr -CA " + ca + ".pem -CAkey " + ca +
                   ".key -CAcreateserial -days 2 -extfile ext.cnf -out " + name + ".pem" + quiet);
  }
  return ok;
}

// Connect with the TLS environment as given, then create, join and receive an interaction
// sent by a second federate of the same environment.
void interactionOverTls(std::wstring const& designator) {
  RTIambassadorFactory factory;
  RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
  RTI_UNIQUE_PTR<RTIambassador> a = factory.createRTIambassador();
  RTI_UNIQUE_PTR<RTIambassador> b = factory.createRTIambassador();
  RTI_SUPPRESS_AUTO_PTR_WARNING_END
  Receiver fa, fb;
  a->connect(fa, HLA_EVOKED, designator);
  b->connect(fb, HLA_EVOKED, designator);
  std::wstring const federation = L"cpp-tls-test";
  a->createFederationExecution(federation, L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml");
  a->joinFederationExecution(L"sender", L"test", federation);
  b->joinFederationExecution(L"receiver", L"test", federation);
  InteractionClassHandle const radio = a->getInteractionClassHandle(L"Radio");
  ParameterHandle const textParameter = a->getParameterHandle(radio, L"Text");
  a->publishInteractionClass(radio);
  b->subscribeInteractionClass(radio);
  a->enableInteractionRelevanceAdvisorySwitch();
  std::time_t const deadline = std::time(0) + 20;
  while (!fa.advised && std::time(0) <= deadline) {
    a->evokeMultipleCallbacks(0.0, 0.01);
    b->evokeMultipleCallbacks(0.0, 0.01);
  }
  CHECK(fa.advised);
  ParameterHandleValueMap parameters;
  parameters[textParameter] = VariableLengthData("sealed", 6);
  a->sendInteraction(radio, parameters, VariableLengthData());
  while (fb.interactions == 0 && std::time(0) <= deadline) {
    a->evokeMultipleCallbacks(0.0, 0.01);
    b->evokeMultipleCallbacks(0.0, 0.01);
  }
  CHECK_EQ(fb.interactions, 1);
  CHECK(fb.lastText == "sealed");
  a->resignFederationExecution(NO_ACTION);
  b->resignFederationExecution(NO_ACTION);
  a->destroyFederationExecution(federation);
  a->disconnect();
  b->disconnect();
}

// The federate presents a certificate `name` (or none: "").
void presenting(std::string const& dir, std::string const& name) {
  if (name.empty()) {
    unsetenv("TRELLIS_TLS_CERT");
    unsetenv("TRELLIS_TLS_KEY");
  } else {
    setenv("TRELLIS_TLS_CERT", (dir + "/" + name + ".pem").c_str(), 1);
    setenv("TRELLIS_TLS_KEY", (dir + "/" + name + ".key").c_str(), 1);
  }
}

void refusals(std::string const& dir, std::wstring const& designator) {
  RTIambassadorFactory factory;
  RTI_SUPPRESS_AUTO_PTR_WARNING_BEGIN
  RTI_UNIQUE_PTR<RTIambassador> rti = factory.createRTIambassador();
  RTI_SUPPRESS_AUTO_PTR_WARNING_END
  NullFederateAmbassador federate;
  unsetenv("TRELLIS_TLS_CA");
  CHECK_THROWS(rti->connect(federate, HLA_EVOKED, designator), InvalidLocalSettingsDesignator);
  setenv("TRELLIS_TLS_CA", (dir + "/missing.pem").c_str(), 1);
  CHECK_THROWS(rti->connect(federate, HLA_EVOKED, designator), InvalidLocalSettingsDesignator);
  setenv("TRELLIS_TLS_CA", (dir + "/ca.pem").c_str(), 1);
  // The router requires a certificate from its CA: a stranger's is refused at create.
  presenting(dir, "stranger");
  rti->connect(federate, HLA_EVOKED, designator);
  CHECK_THROWS(rti->createFederationExecution(L"refused", L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml"),
               Exception);
  rti->disconnect();
}

}  // namespace

int main() {
  if (!run("openssl version >/dev/null 2>&1")) {
    std::printf("test_tls_connect: SKIPPED: `openssl` is not installed (it makes the certificates)\n");
    return 0;
  }
  char pattern[] = "/tmp/trellis-cpp-tls-XXXXXX";
  char* made = mkdtemp(pattern);
  if (made == 0) {
    check::fail(__FILE__, __LINE__, "mkdtemp failed");
    return check::finish("test_tls_connect");
  }
  std::string const dir = made;
  CHECK(makeCertificates(dir));
  try {
    std::vector<std::string> arguments;
    arguments.push_back("--listen");
    arguments.push_back("tls://127.0.0.1:0");
    arguments.push_back("--tls-cert");
    arguments.push_back(dir + "/router.pem");
    arguments.push_back("--tls-key");
    arguments.push_back(dir + "/router.key");
    arguments.push_back("--tls-ca");
    arguments.push_back(dir + "/ca.pem");
    arguments.push_back("--mtls");
    TestRouter router(arguments);
    CHECK(router.address().compare(0, 6, "tls://") == 0);
    setenv("TRELLIS_TLS_CA", (dir + "/ca.pem").c_str(), 1);
    presenting(dir, "federate");
    interactionOverTls(router.designator());
    refusals(dir, router.designator());
  } catch (Exception const& e) {
    check::fail(__FILE__, __LINE__, "unexpected exception: " + check::narrow(e.what()));
  } catch (std::exception const& e) {
    check::fail(__FILE__, __LINE__, e.what());
  }
  run("rm -rf " + dir);
  return check::finish("test_tls_connect");
}
