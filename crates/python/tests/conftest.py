"""What the Python API's tests share: a router in this process on a free loopback port,
the repository's object models, and federates joined to a fresh federation."""

import itertools
import pathlib
import time

import pytest

import trellis

ROOT = pathlib.Path(__file__).resolve().parents[3]
DEMO_FOM = str(ROOT / "foms" / "trellis-demo.xml")
RPR_DIR = ROOT.parent / "shared" / "fom" / "rpr-2.0"
WAIT = 10.0
_names = itertools.count()


def rpr_modules():
    modules = sorted(str(p) for p in RPR_DIR.glob("RPR-*_v2.0.xml"))
    if not modules:
        pytest.skip(f"the RPR FOM 2.0 is not at {RPR_DIR}")
    return modules


@pytest.fixture
def router():
    with trellis.Router("tcp://127.0.0.1:0") as running:
        yield running


@pytest.fixture
def federation(router):
    """A fresh federation on the demo object model: its name."""
    name = f"PyTest{next(_names)}"
    creator = trellis.Federate(router.address)
    creator.create_federation_execution(name, [DEMO_FOM])
    creator.close()
    return name


def join(router, federation, name, ambassador=None, federate_type="pytest"):
    federate = trellis.Federate(router.address, ambassador)
    federate.join_federation_execution(name, federate_type, federation)
    return federate


@pytest.fixture
def pair(router, federation):
    """Two federates joined to `federation`: (a, b)."""
    a = join(router, federation, "a")
    b = join(router, federation, "b")
    yield a, b
    for federate in (a, b):
        federate.close()


def until(condition, what, timeout=WAIT):
    """Wait for `condition()` to hold (it evokes), at most `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")


def discovered_by(publisher, subscriber, object_class="Vehicle", attributes=("Position",), values=None):
    """Register an instance on `publisher` and update it until `subscriber` discovers it
    (the subscription reaches the publisher in its own time). Returns (handle, events the
    subscriber saw)."""
    obj = publisher.register_object_instance(object_class)
    seen = []
    values = values or {"Position": {"X": 1, "Y": 2}}

    def found():
        publisher.update_attribute_values(obj, values)
        publisher.evoke(0.0)
        event = subscriber.evoke(0.05)
        if event is not None:
            seen.append(event)
        return any(e.kind == "discover_object_instance" and e.object == obj for e in seen)

    until(found, f"{subscriber} to discover {object_class}")
    return obj, seen
