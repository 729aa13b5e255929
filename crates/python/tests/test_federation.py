"""Connect, create, join, resign, destroy against a router over TCP, and the standard's
exceptions for each way they fail."""

import socket
import subprocess
import sys

import pytest

import trellis
from conftest import DEMO_FOM, join


def test_create_join_resign_destroy(router):
    fed = trellis.Federate(router.address)
    fed.create_federation_execution("Life", [DEMO_FOM])
    assert ("Life", "HLAinteger64Time") in fed.list_federation_executions()
    handle = fed.join_federation_execution("one", "pytest", "Life")
    assert fed.joined and fed.federate_handle == handle
    assert fed.get_federate_name(handle) == "one"
    assert fed.time_implementation == "HLAinteger64Time"
    assert "Vehicle" in fed.object_model.object_class_names()
    fed.resign_federation_execution()
    assert not fed.joined
    fed.destroy_federation_execution("Life")
    assert all(name != "Life" for name, _ in fed.list_federation_executions())
    fed.close()


def test_federation_management_fails_with_the_standards_exceptions(router):
    fed = trellis.Federate(router.address)
    fed.create_federation_execution("Twice", [DEMO_FOM])
    with pytest.raises(trellis.FederationExecutionAlreadyExists, match="Twice"):
        fed.create_federation_execution("Twice", [DEMO_FOM])
    with pytest.raises(trellis.FederationExecutionDoesNotExist, match="Nowhere"):
        fed.join_federation_execution("x", "pytest", "Nowhere")
    with pytest.raises(trellis.CouldNotOpenFDD, match="missing.xml"):
        fed.create_federation_execution("Broken", ["missing.xml"])
    with pytest.raises(trellis.CouldNotCreateLogicalTimeFactory, match="HLAdecimalTime"):
        fed.create_federation_execution("Odd", [DEMO_FOM], "HLAdecimalTime")
    fed.join_federation_execution("first", "pytest", "Twice")
    with pytest.raises(trellis.FederateAlreadyExecutionMember, match="Twice"):
        fed.join_federation_execution("again", "pytest", "Twice")
    other = trellis.Federate(router.address)
    with pytest.raises(trellis.FederateNameAlreadyInUse, match="first"):
        other.join_federation_execution("first", "pytest", "Twice")
    with pytest.raises(trellis.FederatesCurrentlyJoined):
        other.destroy_federation_execution("Twice")
    with pytest.raises(trellis.InvalidResignAction, match="leave_quietly"):
        fed.resign_federation_execution("leave_quietly")
    fed.resign_federation_execution("delete_objects")
    other.destroy_federation_execution("Twice")


def test_services_before_joining_raise_federate_not_execution_member(router):
    fed = trellis.Federate(router.address)
    for call in (
        lambda: fed.publish_object_class_attributes("Vehicle", ["Position"]),
        lambda: fed.register_object_instance("Vehicle"),
        lambda: fed.time_advance_request(1),
        lambda: fed.synchronization_point_achieved("x"),
    ):
        with pytest.raises(trellis.FederateNotExecutionMember, match="not joined"):
            call()


def test_connecting_where_no_router_listens_is_connection_failed():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(trellis.ConnectionFailed, match=f"127.0.0.1:{port}"):
        trellis.Federate(f"tcp://127.0.0.1:{port}")
    with pytest.raises(trellis.InvalidLocalSettingsDesignator, match='unknown scheme "ftp"'):
        trellis.Federate("ftp://somewhere")


def test_exceptions_form_one_hierarchy():
    assert issubclass(trellis.ObjectClassNotDefined, trellis.RTIexception)
    assert issubclass(trellis.EncoderException, trellis.RTIexception)
    assert trellis.exceptions.exception_class("NoSuchName") is trellis.RTIinternalError


def test_python_m_trellis_router_serves_federates():
    process = subprocess.Popen(
        [sys.executable, "-m", "trellis", "router", "--listen", "tcp://127.0.0.1:0"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("listening on tcp://127.0.0.1:"), line
        address = line.split()[-1]
        fed = trellis.Federate(address)
        fed.create_federation_execution("FromCli", [DEMO_FOM])
        fed.join_federation_execution("cli", "pytest", "FromCli")
        fed.close()
    finally:
        process.terminate()
    assert process.wait(timeout=10) == 0


def test_python_m_trellis_fom_check():
    done = subprocess.run([sys.executable, "-m", "trellis", "fom", "check", DEMO_FOM], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and "object classes" in done.stdout
    done = subprocess.run([sys.executable, "-m", "trellis", "fom", "check", "nowhere.xml"], capture_output=True, text=True, timeout=30)
    assert done.returncode == 1 and "CouldNotOpenFDD" in done.stderr
