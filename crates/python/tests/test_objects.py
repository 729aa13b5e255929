"""Declarations and objects between two Python federates over TCP: publish, subscribe,
register, discover, update, reflect, interactions, delete, name reservation; callbacks
as FederateAmbassador methods and as events; bad input."""

import asyncio

import pytest

import trellis
from conftest import discovered_by, join, until


def test_update_reflect_with_typed_and_raw_values(pair):
    a, b = pair
    a.publish_object_class_attributes("Vehicle", ["Name", "Position", "Velocity"])
    b.subscribe_object_class_attributes("Vehicle", ["Name", "Position", "Velocity"])
    tank, seen = discovered_by(a, b)
    discovery = next(e for e in seen if e.kind == "discover_object_instance")
    assert discovery.object_class == "Vehicle" and discovery.object_name.startswith("HLAobject_")
    a.update_attribute_values(tank, {"Name": "tank-1", "Position": (300, -4), "Velocity": {"X": 0.5, "Y": 2}}, tag=b"t")
    # Reliable and best-effort attributes travel apart: gather the reflections.
    values = {}

    def all_reflected():
        event = b.wait_for("reflect_attribute_values", lambda e: e.tag == b"t")
        assert event.time is None and event.received_order == "receive"
        assert event.sender == a.federate_handle and event.object == tank
        values.update(event.values)
        return len(values) == 3

    until(all_reflected, "the three attributes")
    assert values == {"Name": "tank-1", "Position": {"X": 300, "Y": -4}, "Velocity": {"X": 0.5, "Y": 2.0}}
    # Raw bytes go as they are, and come back both ways.
    a.update_attribute_values(tank, {"Position": b"\x01\x00\x00\x00\x02\x00\x00\x00"})
    raw = b.wait_for("reflect_attribute_values", lambda e: e.values.get("Position") == {"X": 1, "Y": 2})
    assert raw.raw["Position"] == b"\x01\x00\x00\x00\x02\x00\x00\x00"
    # Bytes that do not decode as the type stay bytes, with the reason.
    a.update_attribute_values(tank, {"Position": b"\x01"})
    odd = b.wait_for("reflect_attribute_values", lambda e: e.values.get("Position") == b"\x01")
    assert "Position2D" in odd.decode_errors["Position"]
    a.delete_object_instance(tank, tag=b"bye")
    removed = b.wait_for("remove_object_instance")
    assert removed.object == tank and removed.tag == b"bye"


def test_interactions_with_typed_parameters(pair):
    a, b = pair
    a.publish_interaction_class("Radio")
    b.subscribe_interaction_class("Radio")
    got = []

    def received():
        a.send_interaction("Radio", {"Sender": "a", "Text": "over €"})
        event = b.evoke(0.05)
        if event is not None and event.kind == "receive_interaction":
            got.append(event)
        return got

    until(received, "a radio call")
    assert got[0].interaction_class == "Radio"
    assert got[0].values == {"Sender": "a", "Text": "over €"}


def test_a_federate_ambassador_gets_its_callbacks(router, federation):
    class Viewer(trellis.FederateAmbassador):
        def __init__(self):
            self.discovered, self.positions, self.other = [], [], []

        def discover_object_instance(self, event):
            self.discovered.append(event.object)

        def reflect_attribute_values(self, event):
            self.positions.append(event.values["Position"])

        def unhandled(self, event):
            self.other.append(event.kind)

    viewer = Viewer()
    a = join(router, federation, "mover")
    b = join(router, federation, "viewer", ambassador=viewer)
    a.publish_object_class_attributes("Vehicle", ["Position"])
    b.subscribe_object_class_attributes("Vehicle", ["Position"])
    tank, _ = discovered_by(a, b)
    assert viewer.discovered == [tank]
    a.update_attribute_values(tank, {"Position": {"X": 7, "Y": 8}})
    until(lambda: b.evoke(0.05) is not None and {"X": 7, "Y": 8} in viewer.positions, "the reflection")


def test_events_iterate_and_await(pair):
    a, b = pair
    a.publish_interaction_class("Radio")
    b.subscribe_interaction_class("Radio")

    async def first_radio():
        async for event in b.aevents(timeout=0.05):
            if event.kind == "receive_interaction":
                return event
        return None

    async def until_radio():
        for _ in range(200):
            a.send_interaction("Radio", {"Sender": "a", "Text": "async"})
            event = await first_radio()
            if event is not None:
                return event
        raise AssertionError("no radio call came")

    event = asyncio.run(until_radio())
    assert event.values["Text"] == "async"
    a.send_interaction("Radio", {"Sender": "a", "Text": "iterated"})
    kinds = [e.kind for e in b.events(timeout=0.5)]
    assert "receive_interaction" in kinds


def test_reserved_names_and_lookups(pair):
    a, b = pair
    a.publish_object_class_attributes("Vehicle.GroundVehicle", ["Position", "Fuel"])
    a.reserve_object_instance_name("Tank-7")
    tank = a.register_object_instance("Vehicle.GroundVehicle", "Tank-7")
    assert a.get_object_instance_handle("Tank-7") == tank
    assert a.get_object_instance_name(tank) == "Tank-7"
    assert a.get_known_object_class(tank) == "Vehicle.GroundVehicle"
    with pytest.raises(trellis.ObjectInstanceNameInUse, match="Tank-7"):
        b.reserve_object_instance_name("Tank-7")
    with pytest.raises(trellis.IllegalName, match="HLAmine"):
        b.reserve_object_instance_name("HLAmine")


def test_bad_input_names_what_is_wrong(pair):
    a, _ = pair
    with pytest.raises(trellis.ObjectClassNotDefined, match='"Submarine"'):
        a.publish_object_class_attributes("Submarine", ["Depth"])
    with pytest.raises(trellis.AttributeNotDefined, match='"Depth".*Vehicle'):
        a.publish_object_class_attributes("Vehicle", ["Depth"])
    with pytest.raises(trellis.InteractionClassNotDefined, match='"Telegram"'):
        a.publish_interaction_class("Telegram")
    a.publish_object_class_attributes("Vehicle", ["Position"])
    a.publish_interaction_class("Radio")
    tank = a.register_object_instance("Vehicle")
    with pytest.raises(trellis.EncoderException, match=r"attribute Position of object class Vehicle: data type HLAinteger32LE: expects an int, not float \(field X of Position2D\)"):
        a.update_attribute_values(tank, {"Position": {"X": 1.5, "Y": 2}})
    with pytest.raises(trellis.EncoderException, match="attribute Position of object class Vehicle: data type Position2D: expects a dict or tuple, not str"):
        a.update_attribute_values(tank, {"Position": "north"})
    with pytest.raises(trellis.EncoderException, match="parameter Text of interaction class Radio: data type HLAunicodeString: expects a list of HLAunicodeChar, not int"):
        a.send_interaction("Radio", {"Text": 5})
    with pytest.raises(trellis.InteractionParameterNotDefined, match='"Volume".*Radio'):
        a.send_interaction("Radio", {"Volume": 11})
    with pytest.raises(trellis.AttributeNotPublished, match="Velocity"):
        a.update_attribute_values(tank, {"Velocity": (1.0, 1.0)})
    with pytest.raises(trellis.ObjectInstanceNotKnown, match="12345"):
        a.update_attribute_values(12345, {"Position": (1, 1)})
