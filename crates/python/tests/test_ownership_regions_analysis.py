"""Ownership transfer and regions between Python federates over TCP, and the analysis
helper that turns reflections into rows."""

import pytest

import trellis
from conftest import discovered_by, until


def test_negotiated_ownership_transfer(pair):
    a, b = pair
    for federate in (a, b):
        federate.publish_object_class_attributes("Vehicle", ["Position", "Velocity"])
        federate.subscribe_object_class_attributes("Vehicle", ["Position", "Velocity"])
    tank, _ = discovered_by(a, b)
    assert a.is_attribute_owned_by_federate(tank, "Velocity")
    assert not b.is_attribute_owned_by_federate(tank, "Velocity")
    a.negotiated_attribute_ownership_divestiture(tank, ["Velocity"], tag=b"offer")
    assumption = b.wait_for("request_attribute_ownership_assumption")
    assert assumption.attributes == ["Velocity"] and assumption.tag == b"offer"
    b.attribute_ownership_acquisition(tank, ["Velocity"], tag=b"take")
    a.wait_for("request_divestiture_confirmation")
    a.confirm_divestiture(tank, ["Velocity"])
    acquired = b.wait_for("attribute_ownership_acquisition_notification")
    assert acquired.attributes == ["Velocity"]
    assert b.is_attribute_owned_by_federate(tank, "Velocity")
    assert not a.is_attribute_owned_by_federate(tank, "Velocity")
    with pytest.raises(trellis.AttributeNotOwned, match="Velocity"):
        a.update_attribute_values(tank, {"Velocity": (1.0, 1.0)})
    b.update_attribute_values(tank, {"Velocity": (2.0, 0.0)})
    reflect = a.wait_for("reflect_attribute_values", lambda e: "Velocity" in e.values)
    assert reflect.values["Velocity"] == {"X": 2.0, "Y": 0.0} and reflect.sender == b.federate_handle


def test_regions_filter_updates(pair):
    a, b = pair
    west = b.create_region({"X": (0, 500), "Y": (0, 1000)})
    b.subscribe_object_class_attributes("Vehicle", ["Position"], regions=[west])
    a.publish_object_class_attributes("Vehicle", ["Position"])
    near = a.create_region({"X": (100, 101), "Y": (10, 11)})
    tank = a.register_object_instance("Vehicle")
    a.associate_regions_for_updates(tank, ["Position"], [near])
    seen = []

    def reflected():
        a.update_attribute_values(tank, {"Position": (100, 10)})
        event = b.evoke(0.05)
        if event is not None and event.kind == "reflect_attribute_values":
            seen.append(event)
        return seen

    until(reflected, "an update inside the region")
    # Moved out of the subscriber's region: the next updates are not reflected, and a
    # later one inside is.
    a.set_range_bounds(near, "X", 700, 701)
    a.update_attribute_values(tank, {"Position": (700, 10)}, tag=b"east")
    a.set_range_bounds(near, "X", 200, 201)
    a.update_attribute_values(tank, {"Position": (200, 10)}, tag=b"west")
    event = b.wait_for("reflect_attribute_values", lambda e: e.tag in (b"east", b"west"))
    assert event.tag == b"west" and event.values["Position"] == {"X": 200, "Y": 10}
    with pytest.raises(trellis.NameNotFound, match='"Z"'):
        a.create_region({"Z": (0, 1)})
    with pytest.raises(trellis.RegionInUseForUpdateOrSubscription):
        b.delete_region(west)


def test_reflections_table_rows_and_dataframe(pair):
    a, b = pair
    a.publish_object_class_attributes("Vehicle", ["Name", "Position"])
    b.subscribe_object_class_attributes("Vehicle", ["Name", "Position"])
    tank, _ = discovered_by(a, b)
    for x in range(3):
        a.update_attribute_values(tank, {"Position": (x, 2 * x)}, tag=b"row")
    events = []
    until(lambda: (events.extend(b.events(timeout=0.05)), sum(e.kind == "reflect_attribute_values" and e.tag == b"row" for e in events) >= 3)[1], "three reflections")
    # Other kinds of events are left out of the rows.
    kept = [e for e in events if e.kind != "reflect_attribute_values" or e.tag == b"row"]
    rows = trellis.reflections_table(kept, as_dataframe=False)
    assert [(r["Position.X"], r["Position.Y"]) for r in rows] == [(0, 0), (1, 2), (2, 4)]
    assert all(r["object"] == tank and r["object_class"] == "Vehicle" and r["time"] is None for r in rows)
    nested = trellis.reflections_table(kept, flatten=False, as_dataframe=False)
    assert nested[1]["Position"] == {"X": 1, "Y": 2}
    try:
        import pandas  # noqa: F401
    except ImportError:
        assert trellis.reflections_table(events) == trellis.reflections_table(events, as_dataframe=False)
        with pytest.raises(ImportError):
            trellis.reflections_table(events, as_dataframe=True)
    else:
        frame = trellis.reflections_table(events)
        assert list(frame["Position.X"])[-3:] == [0, 1, 2]
