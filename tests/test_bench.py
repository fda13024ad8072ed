"""The benchmark and the load tester run at all. Nothing here is timed and nothing asserts on speed."""

import math
import subprocess
import sys
from pathlib import Path

import pytest
from system_packages import require_system_packages

from bench import proxy, report
from bench.__main__ import main as bench_main
from bench.budgets import TOY_ANSWER_MS, Row
from bench.posenc_cases import posenc_rows
from bench.toy_cases import EXPRESSIONS, toy_rows
from posenc.toy.data import parse_expression

ROOT = Path(__file__).resolve().parents[1]
TINY = {"sinusoid": (64, 16), "rope": (1, 2, 16, 8)}


def test_toy_row_times_distinct_expressions_against_its_budget():
    [row] = toy_rows(count=2)
    assert row.what == "toy: one answer with its attention maps" and row.limit == TOY_ANSWER_MS
    assert math.isfinite(row.value) and row.value > 0
    assert len(set(EXPRESSIONS)) == len(EXPRESSIONS) >= 16  # every timed answer is a new one
    assert all(parse_expression(expression).text == expression for expression in EXPRESSIONS)


def test_posenc_rows_measure_every_formulation():
    rows = posenc_rows(repeats=1, sizes=TINY)
    assert sorted(row.what.split(" on ")[0] for row in rows) == [
        "posenc apply_rope",
        "posenc apply_rope_complex",
        "posenc sinusoidal(64, 16)",
        "posenc sinusoidal(64, 16) textbook",
        "rotate_half formulation",
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
    # no browser here: tests/browser/test_bench_browser.py runs it beside the browser tests' own Playwright
    assert bench_main(["--quick", "--no-posenc", "--no-browser", "--pages", "home"]) == 0
    out = capsys.readouterr().out
    assert "rerun home (default sizes)" in out and "figures home (max sizes)" in out
    assert "skipped" not in out


@pytest.mark.browser  # a real server
def test_load_tester_runs_two_students_against_a_real_server():
    # its own process: the browser tests' Playwright keeps an event loop running in this one
    command = [sys.executable, "-m", "bench.load", "--students", "2", "--seconds", "3", "--think", "0.5", "1"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr  # 0: no errors
    out = result.stdout
    assert "reruns/s" in out and "errors 0" in out and "server RSS" in out


def test_proxy_config_is_the_shipped_one_with_our_ports():
    site = proxy.site_config([9001, 9002], 9100)
    shipped = proxy.SITE.read_text()
    sticky = "hash $posenc_route_key consistent;"  # sticky per browser by nginx's route cookie, as deployed
    assert sticky in site and sticky in shipped and f"$cookie_{proxy.ROUTE_COOKIE}" in shipped
    directives = [line.split("#")[0].strip() for line in shipped.splitlines()]
    assert "ip_hash;" not in directives  # a class behind one NAT address would all hash to one replica
    assert site == shipped.replace("127.0.0.1:8501 ", "127.0.0.1:9001 ").replace(
        "127.0.0.1:8502 ", "127.0.0.1:9002 "
    ).replace("listen 80;", "listen 127.0.0.1:9100;")  # nothing else changed (the servers' options kept)
    assert "server 127.0.0.1:9001 max_fails=0;" in site
    assert "location ~ /_stcore/(metrics|script-health-check)$ { return 404; }" in site


def test_the_proxy_log_says_which_replica_served_whom():
    line = "101\tGET\t/_stcore/stream\t127.0.0.1:9002\t127.0.0.1\tbench-student-3\tab12\t48213"
    request = proxy.LoggedRequest.parse(line)
    expected = proxy.LoggedRequest(101, "GET", "/_stcore/stream", 9002, "127.0.0.1", "bench-student-3", "ab12", 48213)
    assert request == expected
    assert request.is_session
    retried = proxy.LoggedRequest.parse("200\tGET\t/\t127.0.0.1:9001, 127.0.0.1:9002\t127.0.0.1\t-\t-\t512")
    assert retried.replica_port == 9002 and retried.user_agent == "" and retried.route_cookie == ""  # the last one
    assert proxy.LoggedRequest.parse("404\tGET\t/_stcore/metrics\t-\t127.0.0.1\tx\t-\t0").replica_port is None


def _nginx() -> str:
    """nginx (installed by .ci/system-packages)."""
    found = proxy.nginx_binary()
    require_system_packages(nginx=found is not None)
    return found


@pytest.mark.browser  # two real servers behind nginx
def test_load_tester_runs_a_class_against_two_replicas_behind_nginx():
    # whether nginx spreads a one-address class over both replicas is tests/test_proxy.py's (16 browsers); 4 students
    # all land on one replica one time in 8, so here only the plumbing: every session counted, both replicas measured
    _nginx()
    command = [sys.executable, "-m", "bench.load", "--students", "4", "--seconds", "6", "--think", "0.5", "1"]
    command += ["--replicas", "2"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr  # 0: no errors
    out = result.stdout
    assert "2 server process(es)" in out and "errors 0" in out
    cpu = [float(n) for n in out.split("CPU seconds")[1].split("\n")[0].split(",")]
    assert len(cpu) == 2 and all(math.isfinite(seconds) for seconds in cpu) and sum(cpu) > 0
    sessions = [int(n) for n in out.split("websocket sessions")[1].split("\n")[0].split(",")]
    assert len(sessions) == 2 and sum(sessions) == 4  # one websocket per student, each logged by nginx


@pytest.mark.browser  # a real server
def test_the_load_client_lets_go_of_a_live_slider_as_the_browser_does():
    """bench.load's students release live charts' sliders: the server takes the trigger, reruns, and the chart is
    drawn around the released value (the protocol the load figures rest on)."""
    import asyncio
    import concurrent.futures
    import json
    import random

    from bench.protocol import StreamlitClient
    from bench.server import StreamlitServer

    async def release(port: int) -> tuple[dict, dict]:
        client = StreamlitClient(port)
        await client.open_page()
        await client.connect()
        try:
            first = await client.rerun()
            opened = await client.rerun(first.pages["decay"])
            live = next(info for info in opened.lives.values() if "max_distance" in info.controls)
            payload = json.dumps([{"event": "settled", "value": live.server | {"max_distance": 8192}}])
            released = await client.rerun(first.pages["decay"], {}, live.fragment_id, {live.trigger_id: payload})
            name, random_payload = live.random_release(random.Random(0))  # what a simulated student sends
            assert name in live.controls and json.loads(random_payload)[0]["event"] == "settled"
            return released, next(info for info in released.lives.values() if "max_distance" in info.controls)
        finally:
            await client.close()

    with StreamlitServer() as server, concurrent.futures.ThreadPoolExecutor(1) as pool:
        released, live = pool.submit(asyncio.run, release(server.port)).result(timeout=240)
    assert released.errors == []
    assert live.server["max_distance"] == 8192


@pytest.mark.browser  # a real server
@pytest.mark.parametrize("scenario", ["exploring", "converging"])
def test_a_class_moving_shared_controls_runs_and_prints_its_budgets(scenario):
    # its own process, as above; tiny: 2 students for 5 s, no timing asserted
    command = [sys.executable, "-m", "bench.load", "--students", "2", "--seconds", "5", "--think", "0.5", "1"]
    command += ["--scenario", scenario]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr  # 0: no errors
    out = result.stdout
    assert f"scenario {scenario}" in out and "errors 0" in out
    rows = {line.split("  ")[0]: line for line in out.splitlines() if line.startswith(f"{scenario}: ")}
    moves = int(rows[f"{scenario}: reruns served"].split("info")[1].split(" moves")[0])
    assert moves > 0 and f"({moves} shared, " in rows[f"{scenario}: reruns served"]  # every move a shared control
    assert "≤ 50.0" in rows[f"{scenario}: bytes per shared-control release"]
    assert "≤ 10.0" in rows[f"{scenario}: server CPU per rerun"]  # per move, both classes
    assert f"{scenario}: replica 1 RSS at the end" in rows


def test_a_converging_student_sets_the_teachers_values_on_every_control():
    import json
    import random

    from bench.protocol import LiveInfo, SliderInfo
    from bench.scenarios import SCENARIOS, TEACHER, live_release, shared_moves, sidebar_value
    from ui.limits import LIMITS
    from ui.live import LIVE_DIMS

    rng, converging = random.Random(0), SCENARIOS["converging"]
    base = SliderInfo("$$ID-ab-shared_base_widget", 0, 30, 1, True, "", shared=True, options=("10", "1,000", "500,000"))
    dim = SliderInfo("$$ID-cd-shared_dim_widget", 2, 1024, 2, True, "", shared=True)
    own = SliderInfo("$$ID-ef-sin_shift_k", 0, 256, 1, True, "frag")  # a section's own slider: not shared
    live = LiveInfo("live", "frag", {"dim": {"values": [2, 64, 128, 256]}, "k": {"min": 0, "max": 9}}, {"dim": 2})
    moves = shared_moves({s.element_id: s for s in (base, dim, own)}, {"live": live})
    assert sorted(move.name for move in moves) == ["base", "dim", "dim"]  # sidebar base and dim, the live dim
    for _ in range(20):
        assert sidebar_value(base, "base", rng, converging) in {"10", "1,000", "500,000"}
        assert sidebar_value(dim, "dim", rng, converging) in TEACHER["dim"]
        assert json.loads(live_release(live, "dim", rng, converging)[1])[0]["value"]["dim"] in TEACHER["dim"]
    # every teacher value lies on the grids the app's sliders move over (a link, the live sliders)
    assert set(TEACHER["base"]) <= set(LIMITS.base_options) and set(TEACHER["dim"]) <= set(LIVE_DIMS)
    assert all(LIMITS.heads_min <= h <= LIMITS.heads_max for h in TEACHER["heads"])
    exploring = SCENARIOS["exploring"]
    drawn = {sidebar_value(dim, "dim", rng, exploring) for _ in range(200)}
    assert len(drawn) > 100 and all(2 <= v <= 1024 and v % 2 == 0 for v in drawn)  # each student's own values
