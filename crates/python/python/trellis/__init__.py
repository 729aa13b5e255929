"""Trellis: an HLA (IEEE 1516-2010) RTI, from Python.

    import trellis
    with trellis.Router() as router:                       # or a router started elsewhere
        fed = trellis.Federate(router.address)
        fed.create_federation_execution("Demo", ["foms/trellis-demo.xml"])
        fed.join_federation_execution("tank-1", "sim", "Demo")
        fed.publish_object_class_attributes("Vehicle", ["Position"])
        tank = fed.register_object_instance("Vehicle")
        fed.update_attribute_values(tank, {"Position": {"X": 10, "Y": 20}})

Values are encoded and decoded by the object model's data types (see
``ObjectModel.encode``); ``bytes`` are sent as they are. Callbacks come as methods of a
:class:`FederateAmbassador` (``fed.evoke(timeout)``) or as :class:`Event` objects
(``for event in fed.events(timeout=1.0)``).
"""

from . import exceptions
from ._trellis import ObjectModel, Router, RtiAmbassador, __version__
from .analysis import reflections_table
from .exceptions import *  # noqa: F401,F403 (the standard's exception names)
from .exceptions import EncoderException, RTIexception
from .federate import Event, Federate, FederateAmbassador, connect

__all__ = [
    "Event",
    "Federate",
    "FederateAmbassador",
    "ObjectModel",
    "RTIexception",
    "EncoderException",
    "Router",
    "RtiAmbassador",
    "connect",
    "exceptions",
    "reflections_table",
    "__version__",
    *exceptions.STANDARD_NAMES,
]
