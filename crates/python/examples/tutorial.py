"""The tutorial federate of cpp/examples/tutorial/tutorial.cpp and
crates/net/examples/tutorial.rs, in Python: the same roles, messages and checks, so a
Python federate takes either role against a C++ or Rust one.

    python tutorial.py --role consumer [--rti tcp://HOST:PORT] [--steps N]
                       [--federation NAME] [--fom FILE]

A time-stepped pair: both meet at the synchronization point ReadyToRun, become time
regulating (lookahead 1) and constrained, and step logical time together. The producer
updates a vehicle's Position each step and sends a Radio interaction every fifth; the
consumer subscribes through a region, checks time-stamp order and values, and halfway takes
over the vehicle's Velocity by negotiated ownership transfer.
"""

import argparse
import os
import pathlib
import sys
import time

import trellis

DEMO_FOM = pathlib.Path(__file__).resolve().parents[3] / "foms" / "trellis-demo.xml"


class Tutorial(trellis.FederateAmbassador):
    def __init__(self, args):
        self.args = args
        self.producer = args.role == "producer"
        self.me = args.role
        self.announced = self.synchronized = self.regulating = self.constrained = False
        self.granted, self.last_reflect = 0, 0
        self.reflects = self.radios = self.failures = 0
        self.acquired = self.confirm_requested = False
        self.car = None
        self.rti = trellis.Federate(args.rti, self)

    def expect(self, condition, what):
        if not condition:
            self.failures += 1
            print(f"check failed: {what}", file=sys.stderr)

    # ---- callbacks ----------------------------------------------------------------------
    def announce_synchronization_point(self, e):
        self.announced |= e.label == "ReadyToRun"

    def federation_synchronized(self, e):
        self.synchronized |= e.label == "ReadyToRun"

    def time_regulation_enabled(self, e):
        self.regulating = True

    def time_constrained_enabled(self, e):
        self.constrained = True

    def time_advance_grant(self, e):
        self.granted = e.time

    def discover_object_instance(self, e):
        self.car = e.object

    def reflect_attribute_values(self, e):
        self.expect(e.received_order == "timestamp", "an update arrived in receive order")
        self.expect(e.time >= self.last_reflect, "updates arrived out of time-stamp order")
        self.expect(e.time > self.granted, "an update arrived at or before the granted time")
        self.last_reflect = e.time
        if "Position" in e.values:
            self.expect(e.values["Position"] == {"X": 10 * e.time, "Y": 50}, "the position is not the one sent")
            self.reflects += 1

    def receive_interaction(self, e):
        self.expect(e.values.get("Text") == "beep", "the radio text is not the one sent")
        self.radios += 1

    def request_attribute_ownership_assumption(self, e):
        self.rti.attribute_ownership_acquisition(e.object, e.attributes, b"take")

    def request_divestiture_confirmation(self, e):
        self.confirm_requested = True

    def attribute_ownership_acquisition_notification(self, e):
        self.acquired = True

    # ---- the run ------------------------------------------------------------------------
    def await_until(self, what, done, timeout=30.0):
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError(f"timed out waiting for {what}")
            self.rti.evoke(0.1)

    def declare(self):
        both = ["Position", "Velocity"]
        if self.producer:
            self.rti.publish_object_class_attributes("Vehicle", both)
            self.rti.publish_interaction_class("Radio")
            self.car = self.rti.register_object_instance("Vehicle")
            return
        region = self.rti.create_region({"X": (0, 1000), "Y": (0, 100)})
        self.rti.subscribe_object_class_attributes("Vehicle", both, regions=[region])
        self.rti.subscribe_interaction_class("Radio")
        self.rti.publish_object_class_attributes("Vehicle", ["Velocity"])

    def meet_at_ready_to_run(self):
        if self.producer:
            def consumer_joined():
                try:
                    self.rti.get_federate_handle("consumer")
                    return True
                except trellis.NameNotFound:
                    return False
            self.await_until("the consumer to join", consumer_joined)
            self.rti.register_federation_synchronization_point("ReadyToRun")
        self.await_until("the announcement of ReadyToRun", lambda: self.announced)
        self.rti.synchronization_point_achieved("ReadyToRun")
        self.await_until("the federation to synchronize", lambda: self.synchronized)

    def step(self, step):
        stamp = step + 1
        if self.producer:
            values = {"Position": {"X": 10 * stamp, "Y": 50}}
            if self.rti.is_attribute_owned_by_federate(self.car, "Velocity"):
                values["Velocity"] = (1.0, 0.0)
            self.rti.update_attribute_values(self.car, values, time=stamp)
            if step % 5 == 0:
                self.rti.send_interaction("Radio", {"Text": "beep"}, time=stamp)
            if step == self.args.steps // 2:
                self.rti.negotiated_attribute_ownership_divestiture(self.car, ["Velocity"], b"offer")
            if self.confirm_requested:
                self.confirm_requested = False
                self.rti.confirm_divestiture(self.car, ["Velocity"])
        elif self.acquired:
            self.rti.update_attribute_values(self.car, {"Velocity": (2.0, 0.0)}, time=stamp)
        self.rti.time_advance_request(stamp)
        self.await_until("a time advance grant", lambda: self.granted > step)

    def finish(self):
        if not self.producer:
            steps = self.args.steps
            self.expect(self.reflects == steps, "not every update was reflected")
            self.expect(self.radios == (steps + 4) // 5, "not every radio call was received")
            self.expect(self.acquired, "Velocity was not acquired")
        self.rti.resign_federation_execution("cancel_then_delete_then_divest")
        try:
            self.rti.destroy_federation_execution(self.args.federation)
        except (trellis.FederatesCurrentlyJoined, trellis.FederationExecutionDoesNotExist):
            pass

    def run(self):
        try:
            self.rti.create_federation_execution(self.args.federation, [self.args.fom])
        except trellis.FederationExecutionAlreadyExists:
            pass
        self.rti.join_federation_execution(self.me, "tutorial", self.args.federation)
        self.declare()
        self.rti.enable_time_regulation(1)
        self.await_until("time regulation", lambda: self.regulating)
        self.rti.enable_time_constrained()
        self.await_until("time constraint", lambda: self.constrained)
        self.meet_at_ready_to_run()
        for step in range(self.args.steps):
            self.step(step)
        self.finish()
        print(f"{self.me} (Python): {self.args.steps} steps, {self.reflects} reflects, "
              f"{self.radios} radios, {self.failures} failed checks", flush=True)
        return self.failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--role", choices=["producer", "consumer"], default="producer")
    parser.add_argument("--rti", default=os.environ.get("TRELLIS_RTI_ADDRESS", "tcp://127.0.0.1:7000"))
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--federation", default="Tutorial")
    parser.add_argument("--fom", default=str(DEMO_FOM))
    args = parser.parse_args()
    try:
        return 0 if Tutorial(args).run() == 0 else 1
    except (trellis.RTIexception, TimeoutError) as error:
        print(f"tutorial: {type(error).__name__}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
