"""bench.load's class-mode scenario runs at a small size (bench/classroom.py): two replicas behind nginx, a teacher
and three simulated students. Nothing here is timed: only what the run must get right (everyone joined, every
answer counted exactly once, every page saw the reveal, no errors; after the reveal the tabs poll over HTTP and rerun
nothing), read from the printed table."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
from system_packages import require_system_packages

from bench import proxy

ROOT = Path(__file__).resolve().parents[1]


def _value(out: str, row: str) -> float:
    match = re.search(rf"^{re.escape(row)}\s+(\S+)", out, re.M)
    assert match, f"no row {row!r} in:\n{out}"
    return float(match.group(1))


@pytest.mark.browser  # two real servers behind nginx
def test_the_class_scenario_counts_every_answer_once_and_every_page_sees_the_reveal():
    require_system_packages(nginx=proxy.nginx_binary() is not None)
    command = [sys.executable, "-m", "bench.load", "--scenario", "class", "--students", "3", "--replicas", "2"]
    command += ["--answer-seconds", "3", "--quiet-seconds", "3"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    out = result.stdout
    assert "scenario class; store sqlite; 2 replica(s); 3 students" in out, out + result.stderr
    assert _value(out, "class: students who joined") == 3
    assert _value(out, "class: answers acknowledged") == 3
    assert _value(out, "class: presenter's count minus answers") == 0
    assert _value(out, "class: errors") == 0
    assert "3 pages; median" in out  # every student's page showed the reveal by itself
    assert _value(out, "class: server CPU per poll, idle CPU included") > 0
    assert _value(out, "class: HTTP polls of class/state") > 0  # the students' tabs poll over HTTP …
    assert _value(out, "class: fragment reruns the polls caused") == 0  # … and rerun nothing once nothing changes
