"""Federates in Python: callbacks as methods of a FederateAmbassador, or as events."""

import asyncio
import time as _time

from ._trellis import RtiAmbassador


class Event:
    """One callback: ``kind`` is the standard callback's name in snake case
    (``"reflect_attribute_values"``), and its arguments are attributes (``event.values``,
    ``event.object``, ``event.time``, ...; ``event.args`` holds them all)."""

    __slots__ = ("kind", "args")

    def __init__(self, kind, args):
        self.kind = kind
        self.args = args

    def __getattr__(self, name):
        try:
            return self.args[name]
        except KeyError:
            raise AttributeError(f"{self.kind} has no argument {name!r}") from None

    def __repr__(self):
        return f"Event({self.kind}, {self.args!r})"


class FederateAmbassador:
    """Override the callbacks you need; each gets the :class:`Event`. Names are the
    standard's (IEEE 1516.1-2010) in snake case. Callbacks without a method go to
    :meth:`unhandled`, which ignores them."""

    def unhandled(self, event):
        pass

    def dispatch(self, event):
        getattr(self, event.kind, self.unhandled)(event)


def _wait_seconds(timeout):
    return 0.0 if timeout is None else max(0.0, float(timeout))


class Federate(RtiAmbassador):
    """A connection to a Trellis router (connect), and every service of the joined
    federate by the object model's names. ``address`` is the router's URL
    (``tcp://HOST:PORT``); None reads ``$TRELLIS_RTI_ADDRESS``, else tcp://127.0.0.1:7000.
    Give ``ambassador`` (a :class:`FederateAmbassador`) to have :meth:`evoke` call it."""

    def __new__(cls, address=None, ambassador=None, *, decode=True):
        return super().__new__(cls, address, decode=decode)

    def __init__(self, address=None, ambassador=None, *, decode=True):
        self.ambassador = ambassador

    def evoke(self, timeout=0.0):
        """Deliver the next callback within ``timeout`` seconds (to the ambassador, if
        one was given) and return its Event, or None when none came."""
        found = self.evoke_callback(_wait_seconds(timeout))
        if found is None:
            return None
        event = Event(*found)
        if self.ambassador is not None:
            self.ambassador.dispatch(event)
        return event

    def evoke_multiple(self, timeout=0.0, maximum=1000):
        """Deliver every callback ready within ``timeout``; return how many came."""
        deadline = _time.monotonic() + _wait_seconds(timeout)
        count = 0
        while count < maximum:
            if self.evoke(max(0.0, deadline - _time.monotonic())) is None:
                break
            count += 1
        return count

    def events(self, timeout=0.0):
        """Iterate over callbacks as Events until none comes within ``timeout`` seconds."""
        while True:
            event = self.evoke(timeout)
            if event is None:
                return
            yield event

    def wait_for(self, kind, predicate=None, timeout=10.0):
        """Evoke until a callback of ``kind`` (matching ``predicate``) comes and return it;
        the ones before it go to the ambassador. TimeoutError after ``timeout`` seconds."""
        deadline = _time.monotonic() + timeout
        while True:
            left = deadline - _time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {kind} callback within {timeout} s")
            event = self.evoke(min(left, 0.5))
            if event is not None and event.kind == kind and (predicate is None or predicate(event)):
                return event

    async def aevents(self, timeout=None):
        """``async for event in federate.aevents()``: each wait runs in the event loop's
        default executor with the GIL released, so other tasks run meanwhile. Ends when no
        callback comes within ``timeout`` seconds (None: never)."""
        loop = asyncio.get_running_loop()
        slice_seconds = 0.2 if timeout is None else _wait_seconds(timeout)
        while True:
            event = await loop.run_in_executor(None, self.evoke, slice_seconds)
            if event is not None:
                yield event
            elif timeout is not None:
                return

    def advance_to(self, time, timeout=10.0, kind="time_advance_request"):
        """timeAdvanceRequest (or ``kind``: next_message_request, ...) and evoke until the
        grant; returns the granted time."""
        getattr(self, kind)(time)
        return self.wait_for("time_advance_grant", timeout=timeout).time

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def connect(address=None, ambassador=None, *, decode=True):
    """connect: a :class:`Federate` connected to the router at ``address``."""
    return Federate(address, ambassador, decode=decode)
