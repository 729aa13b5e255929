// Drop-in compatibility, on the standard API only: object models as federates written for
// other RTIs hand them over (IEEE 1516.1-2010 §4.5, §4.9).
// - The exceptions of a failed load: InconsistentFDD for modules that disagree,
//   ErrorReadingFDD for one that is no object model, CouldNotOpenFDD for a missing file.
// - A module written loosely, as real ones are (an order in another letter case), loads with
//   a warning in the library's log naming file and line.
// - Attribute handles follow declaration order, inherited ones first: a federate that walks
//   an AttributeHandleValueMap in handle order meets them as declared.
// - createFederationExecutionWithMIM opens the MIM it is given: the standard MIM saved under
//   another name works, a missing file is CouldNotOpenMIM, a FOM that is no MIM is
//   ErrorReadingMIM, and the designator HLAstandardMIM is DesignatorIsHLAstandardMIM.
// - Additional FOM modules at join extend the federation's model for every member: a member
//   that joined before subscribes to the new class by name and reflects the joiner's
//   updates; a later joiner without modules has it too; a module that changes what the
//   federation has is InconsistentFDD naming it.
#include <RTI/RTI1516.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "check.h"
#include "dropin.h"
#include "router.h"

using namespace rti1516e;
using dropin::make;
using dropin::until;

namespace {

std::wstring const kDemoFom = L"" TRELLIS_REPO_ROOT L"/foms/trellis-demo.xml";
std::wstring const kStandardMim = L"" TRELLIS_REPO_ROOT L"/foms/HLAstandardMIM.xml";

// A scratch folder for the modules the tests write, removed at exit.
struct Scratch {
  Scratch() {
    char pattern[] = "/tmp/trellis-dropin-fom-XXXXXX";
    char* made = mkdtemp(pattern);
    if (made == 0) throw std::runtime_error("mkdtemp failed");
    dir = made;
  }
  ~Scratch() {
    for (size_t i = 0; i < files.size(); ++i) std::remove(files[i].c_str());
    rmdir(dir.c_str());
  }
  std::wstring write(char const* name, std::string const& text) {
    std::string const path = dir + "/" + name;
    std::ofstream(path.c_str()) << text;
    files.push_back(path);
    return std::wstring(path.begin(), path.end());
  }
  std::string dir;
  std::vector<std::string> files;
};

std::string module(std::string const& objects, std::string const& interactions = "") {
  return "<?xml version=\"1.0\"?>\n"
         "<objectModel xmlns=\"http://standards.ieee.org/IEEE1516-2010\">\n"
         "<modelIdentification><name>added</name><type>FOM</type><version>1</version></modelIdentification>\n"
         "<objects><objectClass><name>HLAobjectRoot</name>" +
         objects + "</objectClass></objects>\n" +
         (interactions.empty() ? std::string()
                               : "<interactions><interactionClass><name>HLAinteractionRoot</name>" + interactions +
                                     "</interactionClass></interactions>\n") +
         "</objectModel>\n";
}

std::string attribute(char const* name, char const* type) {
  return std::string("<attribute><name>") + name + "</name><dataType>" + type +
         "</dataType><updateType>Conditional</updateType><sharing>PublishSubscribe</sharing>"
         "<transportation>HLAreliable</transportation><order>Receive</order></attribute>";
}

// The demo FOM's Vehicle, restated by name, with a subclass Tank and its Armor.
std::string const kTanks =
    module("<objectClass><name>Vehicle</name><objectClass><name>Tank</name><sharing>PublishSubscribe</sharing>" +
               attribute("Armor", "HLAunicodeString") + "</objectClass></objectClass>",
           "<interactionClass><name>Order</name><sharing>PublishSubscribe</sharing>"
           "<transportation>HLAreliable</transportation><order>Receive</order></interactionClass>");


struct Reflections : public NullFederateAmbassador {
  Reflections() : discovered(0), reflected(0) {}
  int discovered, reflected;
  ObjectClassHandle discoveredAs;
  std::string lastValue;
  void discoverObjectInstance(ObjectInstanceHandle, ObjectClassHandle theClass, std::wstring const&) override {
    ++discovered;
    discoveredAs = theClass;
  }
  using NullFederateAmbassador::reflectAttributeValues;
  void reflectAttributeValues(ObjectInstanceHandle, AttributeHandleValueMap const& values, VariableLengthData const&,
                              OrderType, TransportationType, SupplementalReflectInfo) override {
    ++reflected;
    if (!values.empty())
      lastValue.assign(static_cast<char const*>(values.begin()->second.data()), values.begin()->second.size());
  }
};


// What the exception names, as text.
template <typename Statement>
std::string thrownText(Statement statement) {
  try {
    statement();
  } catch (Exception const& e) {
    std::wstring const what = e.what();
    return std::string(what.begin(), what.end());
  }
  return "";
}

// What `statement` writes to stderr (the library's log), through a file in `scratch`.
template <typename Statement>
std::string stderrOf(Scratch& scratch, Statement statement) {
  std::string const path = scratch.dir + "/stderr.txt";
  scratch.files.push_back(path);
  int const file = open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY, 0600);
  int const saved = dup(2);
  dup2(file, 2);
  close(file);
  statement();
  dup2(saved, 2);
  close(saved);
  std::ifstream in(path.c_str());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void sloppyModule(std::wstring const& designator, Scratch& scratch) {
  RTIambassador* rti = make();
  NullFederateAmbassador federate;
  rti->connect(federate, HLA_EVOKED, designator);
  std::string loose = attribute("Hull", "HLAunicodeString");
  loose.replace(loose.find("<order>Receive"), std::strlen("<order>Receive"), "<order>receive");
  std::wstring const sloppy = scratch.write(
      "sloppy.xml", module("<objectClass><name>Boat</name><sharing>PublishSubscribe</sharing>" + loose + "</objectClass>"));
  std::string const log = stderrOf(scratch, [&] { rti->createFederationExecution(L"dropin-sloppy", sloppy); });
  CHECK(log.find("sloppy.xml") != std::string::npos);
  CHECK(log.find("WARN") != std::string::npos);
  rti->destroyFederationExecution(L"dropin-sloppy");
  rti->disconnect();
  delete rti;
}

void handleOrder(std::wstring const& designator, Scratch& scratch) {
  RTIambassador* rti = make();
  NullFederateAmbassador federate;
  rti->connect(federate, HLA_EVOKED, designator);
  std::wstring const ships = scratch.write(
      "ships.xml", module("<objectClass><name>Ship</name><sharing>PublishSubscribe</sharing>" +
                          attribute("FederateName", "HLAunicodeString") + attribute("ShipTeam", "HLAunicodeString") +
                          attribute("Position", "HLAunicodeString") + "</objectClass>"));
  rti->createFederationExecution(L"dropin-handles", ships);
  rti->joinFederationExecution(L"numbers", L"test", L"dropin-handles");
  ObjectClassHandle const ship = rti->getObjectClassHandle(L"Ship");
  AttributeHandle const privilege = rti->getAttributeHandle(ship, L"HLAprivilegeToDeleteObject");
  AttributeHandle const name = rti->getAttributeHandle(ship, L"FederateName");
  AttributeHandle const team = rti->getAttributeHandle(ship, L"ShipTeam");
  AttributeHandle const position = rti->getAttributeHandle(ship, L"Position");
  CHECK(privilege < name);
  CHECK(name < team);
  CHECK(team < position);
  AttributeHandleValueMap values;
  values[position] = VariableLengthData();
  values[name] = VariableLengthData();
  values[team] = VariableLengthData();
  CHECK(values.begin()->first == name);
  rti->resignFederationExecution(NO_ACTION);
  rti->destroyFederationExecution(L"dropin-handles");
  rti->disconnect();
  delete rti;
}

void loadErrors(std::wstring const& designator, Scratch& scratch) {
  RTIambassador* rti = make();
  NullFederateAmbassador federate;
  rti->connect(federate, HLA_EVOKED, designator);
  // The same class with its attribute of two data types: the modules disagree.
  std::wstring const a = scratch.write("a.xml", module("<objectClass><name>Boat</name><sharing>PublishSubscribe</sharing>" +
                                                       attribute("Hull", "HLAunicodeString") + "</objectClass>"));
  std::wstring const b = scratch.write("b.xml", module("<objectClass><name>Boat</name><sharing>PublishSubscribe</sharing>" +
                                                       attribute("Hull", "HLAinteger32BE") + "</objectClass>"));
  std::vector<std::wstring> both;
  both.push_back(a);
  both.push_back(b);
  CHECK_THROWS(rti->createFederationExecution(L"dropin-fom-errors", both), InconsistentFDD);
  std::wstring const garbage = scratch.write("garbage.xml", "<objectModel><unclosed></objectModel>");
  CHECK_THROWS(rti->createFederationExecution(L"dropin-fom-errors", garbage), ErrorReadingFDD);
  CHECK_THROWS(rti->createFederationExecution(L"dropin-fom-errors", L"/no/such/module.xml"), CouldNotOpenFDD);

  std::vector<std::wstring> demo(1, kDemoFom);
  CHECK_THROWS(rti->createFederationExecutionWithMIM(L"dropin-mim", demo, L"HLAstandardMIM"), DesignatorIsHLAstandardMIM);
  CHECK_THROWS(rti->createFederationExecutionWithMIM(L"dropin-mim", demo, L"/no/such/HLAstandardMIM.xml"), CouldNotOpenMIM);
  CHECK_THROWS(rti->createFederationExecutionWithMIM(L"dropin-mim", demo, kDemoFom), ErrorReadingMIM);
  // The standard MIM saved under another name is a MIM.
  std::ifstream mimFile(std::string(kStandardMim.begin(), kStandardMim.end()).c_str());
  std::stringstream mimText;
  mimText << mimFile.rdbuf();
  std::wstring const renamed = scratch.write("our-mim.xml", mimText.str());
  rti->createFederationExecutionWithMIM(L"dropin-mim", demo, renamed);
  rti->joinFederationExecution(L"mim-user", L"test", L"dropin-mim");
  CHECK(rti->getObjectClassName(rti->getObjectClassHandle(L"HLAmanager.HLAfederate")) ==
        L"HLAobjectRoot.HLAmanager.HLAfederate");
  rti->resignFederationExecution(NO_ACTION);
  rti->destroyFederationExecution(L"dropin-mim");
  rti->disconnect();
  delete rti;
}

void modulesAtJoin(std::wstring const& designator, Scratch& scratch) {
  RTIambassador* early = make();
  RTIambassador* tanks = make();
  Reflections fe, ft;
  early->connect(fe, HLA_EVOKED, designator);
  tanks->connect(ft, HLA_EVOKED, designator);
  std::wstring const federation = L"dropin-modules-at-join";
  early->createFederationExecution(federation, kDemoFom, L"HLAinteger64Time");
  early->joinFederationExecution(L"early", L"test", federation);
  CHECK_THROWS(early->getObjectClassHandle(L"Tank"), NameNotFound);
  ObjectClassHandle const vehicle = early->getObjectClassHandle(L"Vehicle");
  AttributeHandleSet names;
  names.insert(early->getAttributeHandle(vehicle, L"Name"));
  early->subscribeObjectClassAttributes(vehicle, names);

  std::vector<std::wstring> added(1, scratch.write("tanks.xml", kTanks));
  tanks->joinFederationExecution(L"tanks", L"test", federation, added);
  ObjectClassHandle const tank = tanks->getObjectClassHandle(L"Tank");
  AttributeHandle const armor = tanks->getAttributeHandle(tank, L"Armor");
  AttributeHandle const name = tanks->getAttributeHandle(tank, L"Name");
  AttributeHandleSet published;
  published.insert(armor);
  published.insert(name);
  tanks->publishObjectClassAttributes(tank, published);
  ObjectInstanceHandle const t1 = tanks->registerObjectInstance(tank);
  // The early member's subscription to Vehicle covers the new subclass: it discovers the
  // tank as a Vehicle and reflects its Name.
  CHECK(until(*early, *tanks, [&] { return fe.discovered == 1; }));
  CHECK(fe.discoveredAs == vehicle);
  AttributeHandleValueMap values;
  values[name] = VariableLengthData("T-1", 3);
  tanks->updateAttributeValues(t1, values, VariableLengthData());
  CHECK(until(*early, *tanks, [&] { return fe.lastValue == "T-1"; }));
  // ... and knows Tank by name, with the joiner's handles.
  CHECK(early->getObjectClassHandle(L"Tank") == tank);
  CHECK(early->getAttributeHandle(tank, L"Armor") == armor);
  CHECK(early->getInteractionClassHandle(L"Order") == tanks->getInteractionClassHandle(L"Order"));
  AttributeHandleSet armorOnly;
  armorOnly.insert(armor);
  early->subscribeObjectClassAttributes(tank, armorOnly);
  values.clear();
  values[armor] = VariableLengthData("heavy", 5);
  tanks->updateAttributeValues(t1, values, VariableLengthData());
  CHECK(until(*early, *tanks, [&] { return fe.lastValue == "heavy"; }));

  // A later joiner without modules loads the extended model.
  RTIambassador* late = make();
  Reflections fl;
  late->connect(fl, HLA_EVOKED, designator);
  late->joinFederationExecution(L"late", L"test", federation);
  CHECK(late->getObjectClassHandle(L"Tank") == tank);
  // A module that changes what the federation has is refused, naming it.
  std::wstring const clash = scratch.write(
      "clash.xml", module("<objectClass><name>Vehicle</name><objectClass><name>Tank</name><sharing>PublishSubscribe</sharing>" +
                          attribute("Armor", "HLAinteger32BE") + "</objectClass></objectClass>"));
  RTIambassador* other = make();
  NullFederateAmbassador fo;
  other->connect(fo, HLA_EVOKED, designator);
  std::vector<std::wstring> clashing(1, clash);
  std::string const why = thrownText([&] { other->joinFederationExecution(L"other", L"test", federation, clashing); });
  CHECK_THROWS(other->joinFederationExecution(L"other", L"test", federation, clashing), InconsistentFDD);
  CHECK(why.find("clash.xml") != std::string::npos);

  late->resignFederationExecution(NO_ACTION);
  tanks->resignFederationExecution(DELETE_OBJECTS);
  early->resignFederationExecution(NO_ACTION);
  early->destroyFederationExecution(federation);
  RTIambassador* ambassadors[] = {early, tanks, late, other};
  for (RTIambassador* rti : ambassadors) {
    rti->disconnect();
    delete rti;
  }
}

}  // namespace

int main() {
  // The log is read here: at warn whatever the caller's TRELLIS_LOG (it is set once per
  // process, at the first connect).
  setenv("TRELLIS_LOG", "warn", 1);
  try {
    Scratch scratch;
    TestRouter router;
    loadErrors(router.designator(), scratch);
    sloppyModule(router.designator(), scratch);
    handleOrder(router.designator(), scratch);
    modulesAtJoin(router.designator(), scratch);
  } catch (Exception const& e) {
    check::fail(__FILE__, __LINE__, "unexpected exception: " + check::narrow(e.what()));
  } catch (std::exception const& e) {
    check::fail(__FILE__, __LINE__, e.what());
  }
  return check::finish("test_dropin_fom");
}
