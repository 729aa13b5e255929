"""Update -> reflect rate and ping-pong round trip from Python, to set beside the Rust federate
API's (`trellis bench throughput --api federate`, `trellis bench pingpong --api federate`) run
on the same machine at the same time. A benchmark, not a test: it reports, it asserts nothing
beyond losing no reliable update.

    python crates/python/examples/bench.py [--rti tcp://HOST:PORT] [--seconds 5] [--size 64]
        [--rounds 2000]

Without --rti it starts a router in this process. Each federate runs in a process of its own,
so the two Python interpreters do not share a GIL. Values are raw bytes (no encoding by data
type): the figure is the API's cost, not the encoder's.
"""

import argparse
import multiprocessing as mp
import os
import statistics
import time

import trellis

FOM = os.path.join(os.path.dirname(__file__), "..", "..", "..", "foms", "trellis-demo.xml")
FEDERATION = "PythonBench"


def joined(rti, name):
    fed = trellis.Federate(rti, decode=False)
    try:
        fed.create_federation_execution(FEDERATION, [FOM])
    except trellis.FederationExecutionAlreadyExists:
        pass
    fed.join_federation_execution(name, "bench", FEDERATION)
    return fed


def wait_evoking(fed, event, bound=30.0):
    """Wait for `event` while evoking: a federate's node answers heartbeats only then."""
    deadline = time.perf_counter() + bound
    while not event.wait(0.01):
        fed.evoke(0)
        if time.perf_counter() > deadline:
            raise SystemExit(f"nothing within {bound} s")


def publisher(rti, seconds, size, ready, results):
    fed = joined(rti, "publisher")
    fed.publish_object_class_attributes("Vehicle", ["Name"])
    vehicle = fed.register_object_instance("Vehicle")
    value = {"Name": bytes(size)}
    wait_evoking(fed, ready)
    sent = 0
    began = time.perf_counter()
    while time.perf_counter() - began < seconds:
        for _ in range(100):
            fed.update_attribute_values(vehicle, value)
        sent += 100
        fed.evoke(0)
    results.put(("sent", sent, time.perf_counter() - began))
    # Stay joined until the subscriber has drained, so nothing in flight is cut.
    ready.clear()
    wait_evoking(fed, ready)
    fed.resign_federation_execution()
    fed.close()


def subscriber(rti, ready, results):
    fed = joined(rti, "subscriber")
    fed.subscribe_object_class_attributes("Vehicle", ["Name"])
    # Discover the instance first: then every timed update has a subscriber.
    fed.wait_for("discover_object_instance", timeout=30)
    ready.set()
    count, first, last = 0, None, None
    while True:
        event = fed.evoke(2.0)
        if event is None:
            break
        if event.kind == "reflect_attribute_values":
            now = time.perf_counter()
            first = first or now
            last = now
            count += 1
    results.put(("received", count, (last or 0) - (first or 0)))
    ready.set()
    fed.resign_federation_execution()
    fed.close()


def echo(rti, rounds, ready):
    fed = joined(rti, "echo")
    fed.publish_interaction_class("Radio")
    fed.subscribe_interaction_class("Radio")
    ready.set()
    answered = 0
    while answered < rounds:
        event = fed.evoke(10.0)
        if event is None:
            break
        if event.kind == "receive_interaction":
            fed.send_interaction("Radio", {"Text": event.raw["Text"]})
            answered += 1
    fed.resign_federation_execution()
    fed.close()


def pingpong(rti, rounds, size, ready):
    fed = joined(rti, "ping")
    fed.publish_interaction_class("Radio")
    fed.subscribe_interaction_class("Radio")
    wait_evoking(fed, ready)
    # The echo's interest must have reached the router before the first ping.
    began = time.perf_counter()
    while time.perf_counter() - began < 0.5:
        fed.evoke(0.05)
    payload = {"Text": bytes(size)}
    trips = []
    for _ in range(rounds):
        began = time.perf_counter()
        fed.send_interaction("Radio", payload)
        while True:
            event = fed.evoke(10.0)
            if event is None:
                raise SystemExit("no echo within 10 s")
            if event.kind == "receive_interaction":
                break
        trips.append(time.perf_counter() - began)
    fed.resign_federation_execution()
    fed.close()
    return trips


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rti")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    router = None if args.rti else trellis.Router("tcp://127.0.0.1:0")
    rti = args.rti or router.address
    context = mp.get_context("spawn")

    ready, results = context.Event(), context.Queue()
    procs = [
        context.Process(target=subscriber, args=(rti, ready, results)),
        context.Process(target=publisher, args=(rti, args.seconds, args.size, ready, results)),
    ]
    for p in procs:
        p.start()
    figures = dict((kind, (n, t)) for kind, n, t in (results.get(timeout=120) for _ in procs))
    for p in procs:
        p.join(60)
    sent, _ = figures["sent"]
    received, span = figures["received"]
    print(f"python update->reflect, {args.size} B reliable 1 -> 1: {received / span:,.0f} msg/s "
          f"({received} of {sent} reflected{', LOST DATA' if received != sent else ''})")

    ready = context.Event()
    echoer = context.Process(target=echo, args=(rti, args.rounds, ready))
    echoer.start()
    trips = pingpong(rti, args.rounds, args.size, ready)
    echoer.join(60)
    trips.sort()
    p50 = trips[len(trips) // 2] * 1e6
    p99 = trips[int(len(trips) * 0.99)] * 1e6
    print(f"python ping-pong, {args.size} B interactions: p50 {p50:.0f} us, p99 {p99:.0f} us, "
          f"mean {statistics.mean(trips) * 1e6:.0f} us over {len(trips)} round trips")
    if router:
        router.stop()


if __name__ == "__main__":
    main()
