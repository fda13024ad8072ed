"""A class of 100 arriving at once on a freshly started `streamlit run app.py`: real websocket sessions (not
AppTest, which runs one script at a time), every student's first page and slider move at the same instant."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.browser  # a real server and 100 websocket sessions, twice
def test_a_fresh_server_survives_repeated_bursts_of_a_whole_class():
    # its own process: the browser tests' Playwright keeps an event loop running in this one
    command = [sys.executable, "-m", "bench.burst", "--students", "100", "--bursts", "2", "--servers", "1"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stdout + result.stderr  # 0: no student saw an error
    assert len(lines) == 2 and all("100 students" in line and line.endswith("errors 0") for line in lines), lines
    reruns = [int(line.split(" reruns")[0].rsplit(" ", 1)[1]) for line in lines]
    assert all(reruns_in_burst >= 200 for reruns_in_burst in reruns)  # home + a topic page for each student


def test_the_students_see_an_exception_and_tell_the_sidebar_sliders_apart():
    """The burst and load testers count an exception element as an error (so the test above can fail), and know a
    shared sidebar slider from a page slider by the container its delta is addressed to."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.proto.Slider_pb2 import Slider

    from bench.protocol import SIDEBAR, RunResult, _read_delta

    result = RunResult(seconds=0.0)
    crash = ForwardMsg()
    crash.delta.new_element.exception.type = "SystemError"
    crash.delta.new_element.exception.message = "AST constructor recursion depth mismatch"
    _read_delta(crash, result)
    assert result.errors == ["exception: SystemError: AST constructor recursion depth mismatch"]
    for container, element_id in ((SIDEBAR, "dim"), (0, "offset")):
        move = ForwardMsg()
        move.metadata.delta_path.extend([container, 3])
        move.delta.new_element.slider.id = element_id
        move.delta.new_element.slider.type = Slider.SLIDER
        move.delta.new_element.slider.min, move.delta.new_element.slider.max = 0, 10
        _read_delta(move, result)
    assert result.sliders["dim"].shared and not result.sliders["offset"].shared
