"""One federate used from two Python threads: one evokes in a loop while another calls
services (a simulation loop sending while a thread waits for callbacks). A service called
meanwhile breaks the evoke's wait and is served at once."""

import threading
import time

from conftest import WAIT, join, until

SENDS = 100
PEER_EVERY = 10
SEND_BOUND = 2.0


class Evoker:
    """A thread that evokes `federate` in a loop, collecting the Text of each interaction
    it receives, until `stop()`."""

    def __init__(self, federate):
        self.federate = federate
        self.texts = []
        self.errors = []
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        try:
            while self.running:
                found = self.federate.evoke_callback(10.0)
                if found is not None and found[0] == "receive_interaction":
                    self.texts.append(found[1]["values"]["Text"])
        except Exception as error:  # reported by the test, not lost with the thread
            self.errors.append(error)

    def stop(self, waker):
        """End the loop: the flag, and one more interaction from `waker` to end the evoke's
        wait now (its 10 s timeout bounds it otherwise)."""
        self.running = False
        try:
            waker.send_interaction("Radio", {"Sender": "waker", "Text": "stop"})
        finally:
            self.thread.join(WAIT + 5.0)


def handshake(sender, receiver, text):
    """Send until `receiver` has one: the receiver's subscription has reached the sender."""

    def received():
        sender.send_interaction("Radio", {"Sender": "handshake", "Text": text})
        found = receiver.evoke_callback(0.05)
        return found is not None and found[0] == "receive_interaction"

    until(received, f"the handshake {text!r}")


def test_a_service_called_while_another_thread_evokes_is_served_at_once(router, federation):
    evoking = join(router, federation, "evoking")
    peer = join(router, federation, "peer")
    for federate in (evoking, peer):
        federate.publish_interaction_class("Radio")
        federate.subscribe_interaction_class("Radio")
    handshake(evoking, peer, "evoking to peer")
    handshake(peer, evoking, "peer to evoking")
    evoker = Evoker(evoking)
    evoker.thread.start()
    peer_got, slowest = [], 0.0

    def peer_evokes(timeout):
        found = peer.evoke_callback(timeout)
        if found is not None and found[0] == "receive_interaction":
            peer_got.append(found[1]["values"]["Text"])

    try:
        for i in range(SENDS):
            started = time.monotonic()
            evoking.send_interaction("Radio", {"Sender": "evoking", "Text": f"evoking {i}"})
            took = time.monotonic() - started
            slowest = max(slowest, took)
            assert took < SEND_BOUND, f"send {i} took {took:.3f} s while the other thread evoked"
            if i % PEER_EVERY == 0:
                peer.send_interaction("Radio", {"Sender": "peer", "Text": f"peer {i}"})
            peer_evokes(0.0)
        said = [f"peer {i}" for i in range(0, SENDS, PEER_EVERY)]
        sent = [f"evoking {i}" for i in range(SENDS)]

        def all_arrived():
            peer_evokes(0.01)
            heard = all(t in evoker.texts for t in said)
            return evoker.errors or (heard and all(t in peer_got for t in sent))

        until(all_arrived, "every call at the other federate")
        assert not evoker.errors, evoker.errors
    finally:
        evoker.stop(peer)
        alive = evoker.thread.is_alive()
        evoking.close()
        peer.close()
    assert not alive, "the evoking thread did not stop"
    assert not evoker.errors, evoker.errors
    print(f"slowest send while the other thread evoked: {slowest * 1000:.1f} ms")
