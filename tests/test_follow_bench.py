"""bench.load's follow scenario at a small size (bench/follow.py): two replicas behind nginx, a teacher who changes
step and value, three simulated students. Nothing here is timed: only what the run must get right (everyone joined,
the teacher's changes, steps and values both, shown on the students' pages, no errors), read from the printed
table; in the window of polls only, where nothing changes, the students' tabs poll over HTTP and rerun nothing.
(How many changes a student skipped because a newer one came first depends on the machine's speed: not asserted.)"""

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
def test_every_student_shows_every_change_of_the_teacher():
    require_system_packages(nginx=proxy.nginx_binary() is not None)
    command = [sys.executable, "-m", "bench.load", "--scenario", "follow", "--students", "3", "--replicas", "2"]
    command += ["--seconds", "24", "--step-seconds", "12", "--value-seconds", "4", "--quiet-seconds", "5"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    out = result.stdout
    assert "scenario follow; store sqlite; 2 replica(s); 3 students" in out, out + result.stderr
    assert _value(out, "follow: students who joined") == 3
    changes = _value(out, "follow: teacher's changes")
    assert changes >= 4 and "steps to the other page" in out  # values and steps both
    assert _value(out, "follow: changes never shown (a newer came first)") < changes * 3  # some were shown
    assert _value(out, "follow: errors") == 0
    # the teacher's values reach a following tab in the follow line's rerun itself, not in a commit back (one rerun
    # fewer per change); a commit back only when a tab's full run asked for them (at most once per tab, on joining)
    committed = re.search(r"^follow: teacher's values committed back by a tab\s+(\S+).*?(\d+) stored by", out, re.M)
    assert committed, out
    assert float(committed.group(1)) <= 3 and int(committed.group(2)) >= 3
    assert _value(out, "follow: HTTP polls of class/state") > 0  # the tabs poll over HTTP …
    assert _value(out, "follow: fragment reruns the polls caused") == 0  # … and nothing changed in the quiet window
    assert _value(out, "follow: server CPU per poll, idle CPU included") > 0
