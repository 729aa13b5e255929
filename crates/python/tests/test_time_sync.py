"""Synchronization points and time management between Python federates over TCP:
regulation, constraint, time advance and next message requests, lookahead,
time-stamped updates and interactions in time-stamp order, retraction, float time."""

import pytest

import trellis
from conftest import DEMO_FOM, discovered_by, join, until


def all_get(federates, kind, predicate=lambda e: True, what=None):
    """Evoke every federate in turn until each has had a `kind` callback; returns them in
    order. Each keeps evoking after its own came: with callbacks evoked on the federate's
    thread, the others' requests (a constrained federate asking for GALT) are answered
    only while it evokes."""
    got = {}

    def everyone():
        for index, federate in enumerate(federates):
            event = federate.evoke(0.02)
            if index not in got and event is not None and event.kind == kind and predicate(event):
                got[index] = event
        return len(got) == len(federates)

    until(everyone, what or kind)
    return [got[i] for i in range(len(federates))]


def synchronize(federates, label):
    federates[0].register_federation_synchronization_point(label, tag=b"go")
    for announced in all_get(federates, "announce_synchronization_point", lambda e: e.label == label):
        assert announced.tag == b"go"
    for federate in federates:
        federate.synchronization_point_achieved(label)
    for done in all_get(federates, "federation_synchronized", lambda e: e.label == label):
        assert done.failed == []


def test_synchronization_points(pair):
    a, b = pair
    synchronize([a, b], "ReadyToRun")
    with pytest.raises(trellis.SynchronizationPointLabelNotAnnounced, match="Never"):
        a.synchronization_point_achieved("Never")
    a.register_federation_synchronization_point("Twice")
    a.register_federation_synchronization_point("Twice")
    a.wait_for("synchronization_point_registration_succeeded", lambda e: e.label == "Twice")
    failed = a.wait_for("synchronization_point_registration_failed", lambda e: e.label == "Twice")
    assert "LabelNotUnique" in failed.reason


def regulate_and_constrain(federates, lookahead):
    for federate in federates:
        federate.enable_time_regulation(lookahead)
    all_get(federates, "time_regulation_enabled")
    for federate in federates:
        federate.enable_time_constrained()
    all_get(federates, "time_constrained_enabled")


def test_time_stepped_pair_in_time_stamp_order(pair):
    a, b = pair
    a.publish_object_class_attributes("Vehicle", ["Position"])
    a.publish_interaction_class("Radio")
    b.subscribe_object_class_attributes("Vehicle", ["Position"])
    b.subscribe_interaction_class("Radio")
    tank, _ = discovered_by(a, b)
    regulate_and_constrain([a, b], 1)
    assert a.query_lookahead() == 1
    synchronize([a, b], "Start")
    reflected, radios = [], []
    for step in range(1, 6):
        handle = a.update_attribute_values(tank, {"Position": (step, 0)}, time=step)
        assert handle is not None, "a regulating federate's time-stamped update is retractable"
        a.send_interaction("Radio", {"Sender": "a", "Text": f"t{step}"}, time=step)
        a.time_advance_request(step)
        b.time_advance_request(step)
        granted = set()

        def both_granted():
            for federate in (a, b):
                event = federate.evoke(0.02)
                if event is None:
                    continue
                if federate is b and event.kind == "reflect_attribute_values" and event.time is not None:
                    reflected.append((event.time, event.values["Position"]["X"], event.received_order))
                if federate is b and event.kind == "receive_interaction":
                    radios.append((event.time, event.values["Text"]))
                if event.kind == "time_advance_grant":
                    assert event.time == step
                    granted.add(id(federate))
            return len(granted) == 2

        until(both_granted, f"both granted {step}")
        assert a.query_logical_time() == step
    assert reflected == [(t, t, "timestamp") for t in range(1, 6)]
    assert radios == [(t, f"t{t}") for t in range(1, 6)]


def test_next_message_request_lookahead_and_bad_times(pair):
    a, b = pair
    regulate_and_constrain([a, b], 2)
    with pytest.raises(trellis.InvalidLogicalTime, match="HLAinteger64Time, not float"):
        a.time_advance_request(1.5)
    with pytest.raises(trellis.InvalidLookahead, match="str"):
        a.modify_lookahead("soon")
    a.modify_lookahead(3)
    assert a.query_lookahead() == 3
    a.next_message_request(10)
    b.next_message_request(10)
    assert [e.time for e in all_get([a, b], "time_advance_grant")] == [10, 10]
    assert a.query_galt() is not None
    with pytest.raises(trellis.TimeRegulationAlreadyEnabled):
        a.enable_time_regulation(1)
    with pytest.raises(trellis.LogicalTimeAlreadyPassed):
        a.time_advance_request(5)
    a.disable_time_regulation()
    a.disable_time_constrained()


def test_retraction_withdraws_a_queued_message(pair):
    a, b = pair
    a.publish_interaction_class("Radio")
    b.subscribe_interaction_class("Radio")
    until(lambda: (a.send_interaction("Radio", {"Text": "warm-up"}), b.evoke(0.05))[1] is not None, "a radio call")
    regulate_and_constrain([a, b], 1)
    keep = a.send_interaction("Radio", {"Text": "kept"}, time=5)
    gone = a.send_interaction("Radio", {"Text": "retracted"}, time=6)
    assert keep is not None and gone is not None
    a.retract(gone)
    a.time_advance_request(10)
    b.time_advance_request(10)
    texts = []

    granted = set()

    def both_granted():
        for federate in (a, b):
            event = federate.evoke(0.02)
            if event is not None and event.kind == "receive_interaction" and event.time is not None:
                texts.append(event.values["Text"])
            if event is not None and event.kind == "time_advance_grant":
                granted.add(id(federate))
        return len(granted) == 2

    until(both_granted, "both granted 10")
    assert texts == ["kept"]
    with pytest.raises(trellis.InvalidMessageRetractionHandle):
        a.retract(12345)


def test_float_time_federation(router):
    fed = trellis.Federate(router.address)
    fed.create_federation_execution("Floaty", [DEMO_FOM], "HLAfloat64Time")
    fed.join_federation_execution("f", "pytest", "Floaty")
    assert fed.time_implementation == "HLAfloat64Time"
    regulate_and_constrain([fed], 0.5)
    assert fed.query_lookahead() == 0.5
    assert fed.advance_to(2.25) == 2.25
    assert fed.query_logical_time() == 2.25
    fed.close()
