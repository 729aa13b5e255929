"""A stimulator: sends Radio interactions into a federation at a steady rate, as a test
driver would, and stops after --count (receive order; no time management).

    python stimulator.py [--rti tcp://HOST:PORT] [--federation NAME] [--count N] [--rate HZ]
"""

import argparse
import os
import pathlib
import sys
import time

import trellis

DEMO_FOM = pathlib.Path(__file__).resolve().parents[3] / "foms" / "trellis-demo.xml"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rti", default=os.environ.get("TRELLIS_RTI_ADDRESS", "tcp://127.0.0.1:7000"))
    parser.add_argument("--federation", default="Stimulus")
    parser.add_argument("--fom", default=str(DEMO_FOM))
    parser.add_argument("--count", type=int, default=10)
    parser.add_argument("--rate", type=float, default=10.0, help="interactions per second")
    parser.add_argument("--wait-for-subscriber", action="store_true",
                        help="send only once someone subscribes (interaction relevance advisory)")
    args = parser.parse_args()
    with trellis.Federate(args.rti) as fed:
        try:
            fed.create_federation_execution(args.federation, [args.fom])
        except trellis.FederationExecutionAlreadyExists:
            pass
        fed.join_federation_execution("stimulator", "stimulator", args.federation)
        fed.publish_interaction_class("Radio")
        if args.wait_for_subscriber:
            fed.enable_interaction_relevance_advisory_switch()
            fed.wait_for("turn_interactions_on", timeout=30)
        period = 1.0 / args.rate
        next_send = time.monotonic()
        for n in range(args.count):
            fed.send_interaction("Radio", {"Sender": "stimulator", "Text": f"stimulus {n}"})
            next_send += period
            # Evoke while waiting for the next send: callbacks are answered meanwhile.
            while (left := next_send - time.monotonic()) > 0:
                fed.evoke(left)
        fed.resign_federation_execution()
        print(f"stimulator: sent {args.count} interactions", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
