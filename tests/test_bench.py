"""The benchmark and the load tester run at all. Nothing here is timed and nothing asserts on speed."""

import math
import subprocess
import sys
from pathlib import Path

import pytest

from bench import report
from bench.__main__ import main as bench_main
from bench.budgets import Row
from bench.posenc_cases import posenc_rows

ROOT = Path(__file__).resolve().parents[1]
TINY = {"sinusoid": (64, 16), "rope": (1, 2, 16, 8)}


def test_posenc_rows_measure_every_formulation():
    rows = posenc_rows(repeats=1, sizes=TINY)
    assert [row.what.split(" on ")[0] for row in rows] == [
        "posenc sinusoidal(64, 16)",
        "rotate_half formulation",
        "posenc apply_rope",
        "posenc apply_rope_complex",
    ]
    assert all(math.isfinite(row.value) and row.value >= 0 for row in rows)


@pytest.mark.parametrize(
    "row, verdict",
    [(Row("a", 1.0, "ms", 2.0), "PASS"), (Row("a", 3.0, "ms", 2.0), "FAIL"), (Row("a", 3.0, "ms", None), "info")],
)
def test_a_row_is_judged_against_its_budget(row, verdict):
    assert row.verdict == verdict
    assert verdict in report.text_table([row]) and verdict in report.markdown_table([row])


def test_bench_quick_on_one_page_prints_the_table(capsys):
    assert bench_main(["--quick", "--no-posenc", "--pages", "home"]) == 0
    out = capsys.readouterr().out
    assert "rerun home (default sizes)" in out and "figures home (max sizes)" in out
    assert "skipped" not in out


def test_load_tester_runs_two_students_against_a_real_server():
    # its own process: the browser tests' Playwright keeps an event loop running in this one
    command = [sys.executable, "-m", "bench.load", "--students", "2", "--seconds", "3", "--think", "0.5", "1"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr  # 0: no errors
    out = result.stdout
    assert "reruns/s" in out and "errors 0" in out and "server RSS" in out
