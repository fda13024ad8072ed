"""A class of 100 arriving at once on a freshly started `streamlit run app.py`: real websocket sessions (not
AppTest, which runs one script at a time), every student's first page and slider move at the same instant."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_a_fresh_server_survives_repeated_bursts_of_a_whole_class():
    # its own process: the browser tests' Playwright keeps an event loop running in this one
    command = [sys.executable, "-m", "bench.burst", "--students", "100", "--bursts", "2", "--servers", "1"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
    lines = result.stdout.splitlines()
    assert result.returncode == 0, result.stdout + result.stderr  # 0: no student saw an error
    assert len(lines) == 2 and all("100 students" in line and line.endswith("errors 0") for line in lines), lines
    reruns = [int(line.split(" reruns")[0].rsplit(" ", 1)[1]) for line in lines]
    assert all(reruns_in_burst >= 200 for reruns_in_burst in reruns)  # home + a topic page for each student
