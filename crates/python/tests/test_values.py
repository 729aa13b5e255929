"""Values by the object model's data types: round trips of every type of the RPR FOM 2.0
and of the demo model, and bad values refused naming the type and field."""

import math

import pytest

import trellis
from conftest import DEMO_FOM, rpr_modules

MAX_DEPTH = 6


class Sampler:
    """A value of each data type, built from its declaration, that encodes exactly."""

    def __init__(self, model):
        self.model = model

    def value(self, name, depth=0):
        d = self.model.describe_type(name)
        return getattr(self, d["kind"])(name, d, depth)

    def basic(self, name, d, depth):
        return {"signed": -5, "unsigned": 7, "float": 1.5}[d["number"]]

    def simple(self, name, d, depth):
        return self.value(d["representation"], depth + 1)

    def enumerated(self, name, d, depth):
        names = [n for n, _ in d["enumerators"]]
        if sorted(names) == ["HLAfalse", "HLAtrue"]:
            return True
        # The first enumerator with a value of its own decodes as itself.
        taken = set()
        for enumerator, values in d["enumerators"]:
            if values and values[0] not in taken:
                return enumerator
            taken.update(values)
        return names[0]

    def count(self, d, depth):
        if d["fixed"]:
            return d["max"]
        wanted = 0 if depth >= MAX_DEPTH else 2
        if d["min"] is not None:
            wanted = max(wanted, d["min"])
        if d["max"] is not None:
            wanted = min(wanted, d["max"])
        return wanted

    def array(self, name, d, depth):
        if d["encoding"].startswith("RPRpaddingTo"):
            return b""
        return self.elements(d, self.count(d, depth), depth)

    def elements(self, d, n, depth):
        element = d["element"]
        if element == "HLAASCIIchar":
            return ("abcdefgh" * (n // 8 + 1))[:n]
        if element == "HLAunicodeChar":
            return ("hé€x" * (n // 4 + 1))[:n]
        described = self.model.describe_type(element)
        if described["kind"] in ("basic", "simple") and self._octet(element):
            return bytes(range(1, n + 1))
        return [self.value(element, depth + 1) for _ in range(n)]

    def _octet(self, name):
        d = self.model.describe_type(name)
        while d["kind"] == "simple":
            d = self.model.describe_type(d["representation"])
        return d["kind"] == "basic" and d["bits"] == 8 and d["number"] == "unsigned"

    def fixed_record(self, name, d, depth):
        out = {}
        for field, field_type in d["fields"]:
            t = self.model.describe_type(field_type)
            if t["kind"] == "array" and t["encoding"].startswith("RPRpaddingTo"):
                continue
            rule = d["length_rules"].get(field)
            if rule is None:
                out[field] = self.value(field_type, depth + 1)
                continue
            # RPR's count of this lengthless array, worked out here from the fields before
            # it (Python's arithmetic, not the binding's).
            n = eval(rule, {"__builtins__": {}}, dict(out))
            while t["kind"] == "simple":
                t = self.model.describe_type(t["representation"])
            out[field] = self.elements(t, n, depth + 1)
        return out

    def variant_record(self, name, d, depth):
        enumerators = self.model.describe_type(d["discriminant_type"])["enumerators"]
        known = {n for n, _ in enumerators}
        for alternative, alt_type, selectors in d["alternatives"]:
            for selector in selectors:
                if selector in known:
                    value = {d["discriminant"]: selector}
                    if alt_type is not None:
                        value[alternative] = self.value(alt_type, depth + 1)
                    return value
        raise AssertionError(f"{name}: no alternative is chosen by an enumerator")


def _rpr_or_none():
    try:
        return trellis.ObjectModel(rpr_modules())
    except BaseException:  # pytest.skip raises outside a test: collect nothing then
        return None


RPR = _rpr_or_none()
RPR_TYPES = RPR.data_type_names() if RPR else []
@pytest.fixture(scope="module")
def rpr():
    if RPR is None:
        rpr_modules()
    return RPR


@pytest.mark.parametrize("name", RPR_TYPES)
def test_rpr_type_round_trips_exactly(rpr, name):
    value = Sampler(rpr).value(name)
    encoded = rpr.encode(name, value)
    decoded = rpr.decode(name, encoded)
    assert decoded == value, f"{name}: {value!r} came back as {decoded!r}"
    assert rpr.encode(name, decoded) == encoded, f"{name}: re-encoding differs"


def test_rpr_types_cover_every_kind(rpr):
    kinds = {}
    for name in RPR_TYPES:
        kind = rpr.describe_type(name)["kind"]
        kinds[kind] = kinds.get(kind, 0) + 1
    assert set(kinds) == {"basic", "simple", "enumerated", "array", "fixed_record", "variant_record"}
    assert kinds["fixed_record"] > 50 and kinds["variant_record"] > 3, kinds


def test_rpr_values_read_as_python_values(rpr):
    location = {"X": 1.0, "Y": -2.5, "Z": 3e6}
    assert rpr.decode("WorldLocationStruct", rpr.encode("WorldLocationStruct", location)) == location
    # Positionally, as a tuple, too.
    assert rpr.encode("WorldLocationStruct", (1.0, -2.5, 3e6)) == rpr.encode("WorldLocationStruct", location)
    marking = {"MarkingEncodingType": "ASCII", "MarkingData": b"TANK-1\0\0\0\0\0"}
    assert rpr.decode("MarkingStruct", rpr.encode("MarkingStruct", marking)) == marking
    assert rpr.decode("HLAunicodeString", rpr.encode("HLAunicodeString", "tank €")) == "tank €"
    assert rpr.decode("HLAboolean", rpr.encode("HLAboolean", True)) is True
    assert rpr.encode("HLAinteger32BE", 258) == b"\x00\x00\x01\x02"
    assert rpr.decode("HLAfloat64BE", rpr.encode("HLAfloat64BE", math.pi)) == math.pi


def test_bad_values_name_the_type_and_field(rpr):
    with pytest.raises(trellis.EncoderException, match=r"HLAfloat64BE: expects a float, not str \(field Y of WorldLocationStruct\)"):
        rpr.encode("WorldLocationStruct", {"X": 1.0, "Y": "north", "Z": 0.0})
    with pytest.raises(trellis.EncoderException, match="WorldLocationStruct: has no field Altitude"):
        rpr.encode("WorldLocationStruct", {"X": 1.0, "Y": 2.0, "Z": 0.0, "Altitude": 1})
    with pytest.raises(trellis.EncoderException, match="WorldLocationStruct: field Z is missing"):
        rpr.encode("WorldLocationStruct", {"X": 1.0, "Y": 2.0})
    with pytest.raises(trellis.EncoderException, match='ForceIdentifierEnum8: has no enumerator "Purple"'):
        rpr.encode("ForceIdentifierEnum8", "Purple")
    with pytest.raises(trellis.EncoderException, match="HLAoctet: 300 does not fit in 8 bits"):
        rpr.encode("HLAoctet", 300)
    with pytest.raises(trellis.EncoderException, match="NoSuchType"):
        rpr.encode("NoSuchType", 1)
    with pytest.raises(trellis.EncoderException, match="HLAinteger32BE: cannot decode 3 bytes"):
        rpr.decode("HLAinteger32BE", b"\x00\x00\x01")
    # RPR counts this lengthless array by the field before it: a value it does not count
    # would make every decoder misread what follows.
    silent = {"NumberOfEntitiesOfThisType": 3, "NumberOfAppearanceRecords": 2,
              "EntityType": {"EntityKind": 1, "Domain": 2, "CountryCode": 225, "Category": 1,
                             "Subcategory": 3, "Specific": 4, "Extra": 0},
              "EntityAppearance": [7]}
    with pytest.raises(trellis.EncoderException, match=r"SilentEntityStruct: field EntityAppearance holds 1 elements, but RPRlengthlessArrayLength=NumberOfAppearanceRecords gives 2"):
        rpr.encode("SilentEntityStruct", silent)
    assert rpr.describe_type("SilentEntityStruct")["length_rules"] == {"EntityAppearance": "NumberOfAppearanceRecords"}


def test_demo_model_values():
    demo = trellis.ObjectModel([DEMO_FOM])
    assert demo.attribute_type("Vehicle", "Position") == "Position2D"
    value = {"X": 10, "Y": -20}
    assert demo.decode("Position2D", demo.encode("Position2D", value)) == value
    with pytest.raises(trellis.AttributeNotDefined, match='attribute "Altitude" is not defined for object class Vehicle'):
        demo.attribute_type("Vehicle", "Altitude")
    with pytest.raises(trellis.ObjectClassNotDefined, match='object class "Boat"'):
        demo.attribute_type("Boat", "Position")


def test_a_missing_fom_module_is_could_not_open_fdd(tmp_path):
    with pytest.raises(trellis.CouldNotOpenFDD, match="nowhere.xml"):
        trellis.ObjectModel([str(tmp_path / "nowhere.xml")])
    broken = tmp_path / "broken.xml"
    broken.write_text("<objectModel><objectClasses>")
    with pytest.raises((trellis.ErrorReadingFDD, trellis.InconsistentFDD), match="broken.xml"):
        trellis.ObjectModel([str(broken)])


def test_rpr_values_travel_between_federates(router, rpr):
    from conftest import discovered_by, join

    creator = trellis.Federate(router.address)
    creator.create_federation_execution("RprValues", rpr_modules())
    creator.close()
    a, b = join(router, "RprValues", "a"), join(router, "RprValues", "b")
    a.publish_object_class_attributes("Aircraft", ["Marking", "Spatial"])
    b.subscribe_object_class_attributes("BaseEntity.PhysicalEntity", ["Marking", "Spatial"])
    spatial = Sampler(rpr).value("SpatialVariantStruct")
    marking = {"MarkingEncodingType": "ASCII", "MarkingData": b"EAGLE-1" + bytes(4)}
    plane, seen = discovered_by(a, b, "Aircraft", values={"Marking": marking, "Spatial": spatial})
    assert next(e for e in seen if e.kind == "discover_object_instance").object_class == "BaseEntity.PhysicalEntity"
    got = {}
    for event in seen:
        if event.kind == "reflect_attribute_values":
            got.update(event.values)
    if len(got) < 2:
        a.update_attribute_values(plane, {"Marking": marking, "Spatial": spatial})
    while len(got) < 2:
        event = b.wait_for("reflect_attribute_values")
        got.update(event.values)
    assert got == {"Marking": marking, "Spatial": spatial}
    for federate in (a, b):
        federate.close()
