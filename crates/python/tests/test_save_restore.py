"""Federation save and restore from Python over TCP: every member is told to save, saves,
and hears federationSaved; services the standard forbids during a save raise
SaveInProgress; a restore puts back the time and the subscriptions of the save."""

import pytest

import trellis
from conftest import until
from test_time_sync import all_get, regulate_and_constrain


def test_save_then_restore_puts_back_time_and_subscriptions(pair):
    a, b = pair
    regulate_and_constrain([a, b], 1)
    for federate in (a, b):
        federate.time_advance_request(3)
    all_get([a, b], "time_advance_grant", lambda e: e.time == 3)
    b.subscribe_interaction_class("Radio")

    a.request_federation_save("checkpoint")
    for initiated in all_get([a, b], "initiate_federate_save"):
        assert initiated.label == "checkpoint" and initiated.time is None
    with pytest.raises(trellis.SaveInProgress, match="checkpoint"):
        a.time_advance_request(4)
    for federate in (a, b):
        federate.federate_save_begun()
        federate.federate_save_complete()
    all_get([a, b], "federation_saved")

    # Move on past the save, and drop the subscription.
    for federate in (a, b):
        federate.time_advance_request(6)
    all_get([a, b], "time_advance_grant", lambda e: e.time == 6)
    b.unsubscribe_interaction_class("Radio")

    a.request_federation_restore("checkpoint")
    all_get([a], "request_federation_restore_succeeded", lambda e: e.label == "checkpoint")
    for initiated in all_get([a, b], "initiate_federate_restore"):
        assert initiated.label == "checkpoint"
    for federate in (a, b):
        federate.federate_restore_complete()
    all_get([a, b], "federation_restored")
    assert a.query_logical_time() == 3 and b.query_logical_time() == 3
    # The restored subscription receives again (in receive order, delivered to the
    # constrained b as they come once asynchronous delivery is on). Until b's interest has
    # reached a's node nothing is sent, so a sends until b hears one.
    b.enable_asynchronous_delivery()
    a.publish_interaction_class("Radio")
    heard = []

    def received():
        a.send_interaction("Radio", {"Text": "after the restore"})
        a.evoke(0.01)
        event = b.evoke(0.05)
        if event is not None and event.kind == "receive_interaction":
            heard.append(event)
        return bool(heard)

    until(received, "an interaction to the restored subscription")
    assert heard[0].values["Text"] == "after the restore"


def test_restoring_a_label_never_saved_fails(pair):
    a, _ = pair
    a.request_federation_restore("never-saved")
    all_get([a], "request_federation_restore_failed", lambda e: e.label == "never-saved")
    with pytest.raises(trellis.SaveNotInitiated):
        a.federate_save_begun()
