"""The examples run: the Python tutorial pair (a time-stepped producer and consumer), the
Python tutorial with the Rust tutorial federate in one federation both ways round, and the
stimulator."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

import trellis
from conftest import WAIT, join

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"
# scripts/python-test builds crates/net/examples/tutorial.rs and names it here.
RUST_TUTORIAL = os.environ.get("TRELLIS_RUST_TUTORIAL")
# cpp/examples/tutorial/tutorial.cpp built against librti1516e (scripts/cpp-test builds it);
# the test that runs it with the Python tutorial is skipped without it.
CPP_TUTORIAL = os.environ.get("TRELLIS_CPP_TUTORIAL")


def python_tutorial(role, address, federation, steps):
    return [sys.executable, str(EXAMPLES / "tutorial.py"), "--role", role, "--rti", address,
            "--federation", federation, "--steps", str(steps)]


def cpp_tutorial(role, address, federation, steps):
    return [CPP_TUTORIAL, "--role", role, "--rti", address, "--federation", federation, "--steps", str(steps)]


def rust_tutorial(role, address, federation, steps):
    return [RUST_TUTORIAL, "--role", role, "--rti", address, "--federation", federation, "--steps", str(steps)]


def run_pair(producer, consumer):
    processes = [subprocess.Popen(c, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for c in (consumer, producer)]
    outputs = []
    for process in processes:
        try:
            out, err = process.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            for p in processes:
                p.kill()
            raise
        outputs.append((process.returncode, out, err))
    return outputs


def check_pair(outputs, consumer_lang, producer_lang, steps):
    (consumer_rc, consumer_out, consumer_err), (producer_rc, producer_out, producer_err) = outputs
    assert consumer_rc == 0, consumer_err
    assert producer_rc == 0, producer_err
    radios = (steps + 4) // 5
    # The C++ tutorial prints "consumer: ..., velocity ..., 0 failed checks".
    label = {"C++": ""}.get(consumer_lang, f" ({consumer_lang})")
    assert re.search(rf"consumer{re.escape(label)}: {steps} steps, {steps} reflects, {radios} radios, .*0 failed checks", consumer_out), consumer_out
    assert f"{steps} steps" in producer_out


def test_python_tutorial_pair(router):
    outputs = run_pair(python_tutorial("producer", router.address, "TutorialPy", 10),
                       python_tutorial("consumer", router.address, "TutorialPy", 10))
    check_pair(outputs, "Python", "Python", 10)


@pytest.mark.skipif(not RUST_TUTORIAL, reason="TRELLIS_RUST_TUTORIAL names no tutorial binary (scripts/python-test builds it)")
@pytest.mark.parametrize("producer_lang", ["Rust", "Python"])
def test_python_and_rust_tutorials_in_one_federation(router, producer_lang):
    federation = f"Mixed{producer_lang}"
    make = {"Rust": rust_tutorial, "Python": python_tutorial}
    consumer_lang = "Python" if producer_lang == "Rust" else "Rust"
    outputs = run_pair(make[producer_lang]("producer", router.address, federation, 10),
                       make[consumer_lang]("consumer", router.address, federation, 10))
    check_pair(outputs, consumer_lang, producer_lang, 10)


@pytest.mark.skipif(not CPP_TUTORIAL, reason="TRELLIS_CPP_TUTORIAL names no C++ tutorial binary")
@pytest.mark.parametrize("producer_lang", ["C++", "Python"])
def test_python_and_cpp_tutorials_in_one_federation(router, producer_lang):
    federation = "MixedCpp" + ("Producer" if producer_lang == "C++" else "Consumer")
    make = {"C++": cpp_tutorial, "Python": python_tutorial}
    consumer_lang = "Python" if producer_lang == "C++" else "C++"
    outputs = run_pair(make[producer_lang]("producer", router.address, federation, 10),
                       make[consumer_lang]("consumer", router.address, federation, 10))
    check_pair(outputs, consumer_lang, producer_lang, 10)


def test_stimulator_sends_interactions(router, federation):
    listener = join(router, federation, "listener")
    listener.subscribe_interaction_class("Radio")
    process = subprocess.Popen(
        [sys.executable, str(EXAMPLES / "stimulator.py"), "--rti", router.address, "--federation", federation,
         "--count", "5", "--rate", "100", "--wait-for-subscriber"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    texts = []
    try:
        while len(texts) < 5:
            event = listener.wait_for("receive_interaction", timeout=WAIT)
            texts.append(event.values["Text"])
    finally:
        out, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert texts == [f"stimulus {n}" for n in range(5)]
    assert "sent 5 interactions" in out
    listener.close()
