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
        n = self.count(d, depth)
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
            out[field] = self.value(field_type, depth + 1)
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
# Encodings trellis_core::encoding::value does not implement yet: these round trips are
# expected to fail (strictly: when core learns them, the mark must go).
UNSUPPORTED_ENCODINGS = {"RPRextendedVariantRecord"}


def _uses_unsupported(model, name, depth=0, seen=None):
    seen = set() if seen is None else seen
    if name in seen or depth > 20:
        return False
    seen.add(name)
    d = model.describe_type(name)
    if d.get("encoding") in UNSUPPORTED_ENCODINGS:
        return True
    children = {
        "simple": lambda: [d["representation"]],
        "enumerated": lambda: [],
        "basic": lambda: [],
        "array": lambda: [d["element"]],
        "fixed_record": lambda: [t for _, t in d["fields"]],
        "variant_record": lambda: [d["discriminant_type"]] + [t for _, t, _ in d["alternatives"] if t],
    }[d["kind"]]()
    return any(_uses_unsupported(model, child, depth + 1, seen) for child in children)


def _ends_open(model, name, depth=0):
    """Whether the type's encoding runs to the end of the buffer (an RPRlengthlessArray
    last)."""
    d = model.describe_type(name)
    if depth > 20:
        return False
    if d["kind"] == "simple":
        return _ends_open(model, d["representation"], depth + 1)
    if d["kind"] == "array":
        return d["encoding"] == "RPRlengthlessArray"
    if d["kind"] == "fixed_record":
        return bool(d["fields"]) and _ends_open(model, d["fields"][-1][1], depth + 1)
    if d["kind"] == "variant_record":
        first = d["alternatives"][0][1] if d["alternatives"] else None
        return bool(first) and _ends_open(model, first, depth + 1)
    return False


def _lengthless_inside(model, name, depth=0):
    """Whether an RPRlengthlessArray is followed by more data: RPR gives its length in
    another field, which a decoder by data types alone cannot follow."""
    d = model.describe_type(name)
    if depth > 20:
        return False
    if d["kind"] == "simple":
        return _lengthless_inside(model, d["representation"], depth + 1)
    if d["kind"] == "array":
        element = d["element"]
        repeated = d["encoding"] == "RPRlengthlessArray" or not (d["fixed"] and d["max"] == 1)
        return (repeated and _ends_open(model, element)) or _lengthless_inside(model, element, depth + 1)
    if d["kind"] == "fixed_record":
        types = [t for _, t in d["fields"]]
        return any(_ends_open(model, t) for t in types[:-1]) or any(_lengthless_inside(model, t, depth + 1) for t in types)
    if d["kind"] == "variant_record":
        # The sampler's value takes the first alternative.
        first = d["alternatives"][0][1] if d["alternatives"] else None
        return bool(first) and _lengthless_inside(model, first, depth + 1)
    return False


def _type_param(name):
    marks = []
    if _lengthless_inside(RPR, name):
        marks.append(pytest.mark.xfail(strict=True, reason="an RPRlengthlessArray followed by more data: its length is another field's"))
    elif _uses_unsupported(RPR, name):
        marks.append(pytest.mark.xfail(strict=True, raises=trellis.EncoderException,
                                       reason="an RPR encoding core does not implement"))
    return pytest.param(name, marks=marks, id=name)


@pytest.fixture(scope="module")
def rpr():
    if RPR is None:
        rpr_modules()
    return RPR


@pytest.mark.parametrize("name", [_type_param(n) for n in RPR_TYPES])
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
