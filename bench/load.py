"""``python -m bench.load --students 100 --seconds 60``: a classroom against a real ``streamlit run app.py``.

Each simulated student behaves like a browser (see ``bench.protocol``): it loads the page, keeping its own cookies,
pings the health endpoint, opens the app over Streamlit's websocket with its cookies and XSRF token, goes to a
random page, and every few seconds moves a random slider of that page to a random value (now and then opening
another page instead). A live chart's slider counts as a slider: its drag costs the server nothing, so what the
student sends is its release (the settled values, one rerun), as the browser does. The time of a rerun is from
sending ``rerun_script`` to receiving ``script_finished``. The server is started on 127.0.0.1 at a free port and
stopped at the end; its resident memory is sampled throughout. Everything is bounded: the run time, the number of
students and each rerun's timeout. The students run in this one process, on the same cores as the server, so they
add some load of their own.

``--replicas 2`` runs the README's set-up for a bigger class instead: two server processes behind nginx configured
by ``deploy/nginx.conf`` (sticky per browser by nginx's route cookie; see ``bench.proxy``). All students connect
from the one address 127.0.0.1, as a class behind a school's NAT does. Memory, CPU time and the number of websocket
sessions (from nginx's access log) are then reported per replica.

``--scenario`` picks the class (``bench.scenarios``): ``random`` (the default above), ``exploring`` (every student
on a topic page moves a shared control every few seconds to a value of their own) or ``converging`` (the same, to
the teacher's values). Every run prints its figures beside the budgets of its scenario (``bench.budgets``): the
server CPU per rerun, from each replica's /proc/<pid>/stat once every student has opened their page and at the
end, divided by the reruns served in between; the bytes each shared-control release brought back; p50 / p95;
errors; and each replica's resident memory at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import os
import random
import time
from collections import Counter
from dataclasses import dataclass, field

from bench import budgets, follow
from bench import classroom as class_mode
from bench.budgets import Row
from bench.priority import browsers_first
from bench.protocol import RunResult, StreamlitClient
from bench.proxy import NginxProxy
from bench.report import text_table
from bench.scenarios import (
    SCENARIOS,
    SCROLL_SHARE,
    SHARED,
    TOPIC_PAGES,
    Scenario,
    live_release,
    near_sections,
    shared_moves,
    sidebar_value,
)
from bench.server import StreamlitServer, cpu_seconds, tree_cpu_seconds

MAX_STUDENTS = 500
MAX_SECONDS = 3600
MAX_REPLICAS = 4
HOST_NAME = "lab.example"  # a public name, never resolved: Streamlit waves local names through its Origin check


@dataclass
class CpuWindow:
    """Server CPU over part of the class: from when every student had opened their page to the end."""

    seconds: float
    cpu: list[float]  # CPU seconds each replica used in the window
    reruns: int  # reruns served in the window

    @property
    def ms_per_rerun(self) -> float:
        return 1000 * sum(self.cpu) / self.reruns if self.reruns else float("nan")


@dataclass
class Tally:
    """Everything the students saw, shared by their tasks (one event loop: no locks needed)."""

    moves: list[float] = field(default_factory=list)  # seconds per slider-move rerun
    shared_moves: list[float] = field(default_factory=list)  # the moves of a shared control, also in moves
    shared_bytes: list[int] = field(default_factory=list)  # bytes each shared-control move brought back
    releases: list[float] = field(default_factory=list)  # the moves that let go of a live chart's slider, also in moves
    refreshes: list[float] = field(default_factory=list)  # seconds per stale section asked for after a scroll
    refresh_bytes: int = 0  # bytes those brought back (their CPU is in the window's; they are not moves)
    opens: list[float] = field(default_factory=list)  # seconds per page-open rerun
    errors: Counter = field(default_factory=Counter)
    bytes_received: int = 0
    sessions: int = 0  # websockets opened
    opened: int = 0  # students who have opened their (first) page
    rss: list[tuple[float, list[float]]] = field(default_factory=list)  # (seconds since start, MB per replica)
    window: CpuWindow | None = None  # server CPU from when every student had opened their page to the end
    over_http: int = 0  # shared-control commits that went over HTTP (ui.commit_http: no script ran)

    @property
    def reruns(self) -> int:
        return len(self.moves) + len(self.opens)

    def record_shared(self, result: RunResult) -> None:
        self.over_http += result.over_http
        if not result.errors:
            self.shared_moves.append(result.seconds)
            self.shared_bytes.append(result.payload_bytes)

    def record(self, result: RunResult, kind: list[float]) -> None:
        self.bytes_received += result.payload_bytes
        for error in result.errors:
            self.errors[error[:120]] += 1
        if not result.errors:
            kind.append(result.seconds)


async def join(client: StreamlitClient, tally: Tally):
    """Open the app as a browser does (page, websocket, first run) and count it: the first run's result."""
    await client.open_page()
    await client.connect()
    tally.sessions += 1
    first = await client.rerun()
    tally.record(first, tally.opens)
    return first


async def student(
    number: int, port: int, stop_at: float, think: tuple[float, float], tally: Tally, seed: int, host_name: str
) -> None:
    rng = random.Random(seed * 1000 + number)
    client = StreamlitClient(port, name=f"bench-student-{number}", host_name=host_name)
    try:
        first = await join(client, tally)
        tally.opened += 1
        pages = list(first.pages.values()) or [""]
        page, sliders, lives, values = None, {}, {}, {}
        while time.monotonic() < stop_at:
            if page is None or not (sliders or lives) or rng.random() < 0.1:  # open a (new) random page
                page, values = rng.choice(pages), {}
                result = await client.rerun(page)
                sliders, lives = plain(result.sliders), dict(result.lives)
                tally.record(result, tally.opens)
            elif lives and rng.random() < len(lives) / (len(lives) + len(sliders)):  # let go of a live slider
                live = rng.choice(list(lives.values()))
                name = rng.choice(list(live.controls))
                sender, payload = live_release(live, name, rng, None, None, lives)
                result = await client.release(page, values, sender, payload)
                sliders.update(plain(result.sliders))
                lives.update(result.lives)
                tally.record(result, tally.moves)
                if not result.errors:
                    tally.releases.append(result.seconds)
                    if name in SHARED:
                        tally.record_shared(result)
            else:  # move one slider of this page, as a drag ends in one value
                slider = rng.choice(list(sliders.values()))
                values[slider.element_id] = slider.random_value(rng)
                result = await client.rerun(page, values, slider.fragment_id)
                sliders.update(plain(result.sliders))  # a fragment rerun only re-sends its own section
                lives.update(result.lives)
                tally.record(result, tally.moves)
                if slider.shared:
                    tally.record_shared(result)
            await asyncio.sleep(min(rng.uniform(*think), max(0.0, stop_at - time.monotonic())))
    except (TimeoutError, OSError, websockets_errors()) as err:
        tally.errors[f"connection: {type(err).__name__}"] += 1
    finally:
        await client.close()


def plain(sliders: dict) -> dict:
    """The sliders the ``random`` class moves: not select sliders (as before they were read)."""
    return {key: slider for key, slider in sliders.items() if not slider.options}


async def shared_student(
    number: int,
    port: int,
    stop_at: float,
    think: tuple[float, float],
    tally: Tally,
    seed: int,
    host_name: str,
    scenario: Scenario,
) -> None:
    """A student of the ``exploring`` or ``converging`` class: one topic page (one with a shared control), where
    every ``think`` seconds one of the page's ways to move a shared control is drawn and moved
    (``bench.scenarios``)."""
    rng = random.Random(seed * 1000 + number)
    client = StreamlitClient(port, name=f"bench-student-{number}", host_name=host_name)
    try:
        first = await join(client, tally)
        others = [page for path, page in first.pages.items() if path not in TOPIC_PAGES]
        topics = [page for path, page in first.pages.items() if path in TOPIC_PAGES]
        rng.shuffle(others)
        pages = [*others, rng.choice(topics)] if topics else others  # popped from the end: a topic page first
        sliders, lives, values, page = {}, {}, {}, None
        while pages and not shared_moves(sliders, lives) and time.monotonic() < stop_at:
            page = pages.pop()  # a random page, until one has a shared control
            result = await client.rerun(page)
            sliders, lives = dict(result.sliders), dict(result.lives)
            tally.record(result, tally.opens)
        tally.opened += 1
        fragment_of = dict(result.sections) if page is not None else {}  # section key -> its fragment id
        sections = list(fragment_of)
        spot = rng.randrange(len(sections)) if sections else 0  # the section the student looks at
        while time.monotonic() < stop_at and (moves := shared_moves(sliders, lives)):
            await asyncio.sleep(min(rng.uniform(*think), max(0.0, stop_at - time.monotonic())))
            if time.monotonic() >= stop_at:
                break
            move = rng.choice(moves)
            if move.live is not None:
                if move.live.event == "settled":  # a live chart's slider: the student looks at its section
                    spot = next((k for k, key in enumerate(sections) if fragment_of[key] == move.live.fragment_id),
                                spot)  # fmt: skip
                near = near_sections(sections, spot) if sections and scenario.near else None
                sender, payload = live_release(move.live, move.name, rng, scenario, near, lives)
                result = await client.release(page, values, sender, payload)
            else:
                values[move.slider.element_id] = sidebar_value(move.slider, move.name, rng, scenario)
                result = await client.rerun(page, values, move.slider.fragment_id)
            sliders.update(result.sliders)
            lives.update(result.lives)
            tally.record(result, tally.moves)
            tally.record_shared(result)
            if move.live is not None and not result.errors:
                tally.releases.append(result.seconds)
            if sections and scenario.near and rng.random() < SCROLL_SHARE:  # scrolls to another section: the
                spot = rng.randrange(len(sections))  # browser asks for the stale ones that came near
                await refresh_near(client, page, lives, near_sections(sections, spot), tally)
    except (TimeoutError, OSError, websockets_errors()) as err:
        tally.errors[f"connection: {type(err).__name__}"] += 1
    finally:
        await client.close()


async def refresh_near(client: StreamlitClient, page: str, lives: dict, near: list[str], tally: Tally) -> None:
    """Ask for the stale sections among ``near`` as static/sections.js does when a scroll brings them near."""
    sidebar = next((live for live in lives.values() if live.event == "commit"), None)
    keys = [key for key in near if sidebar and key in sidebar.stale]
    if not keys:
        return
    result = await client.ask_for(page, sidebar, keys)
    lives.update(result.lives)
    tally.bytes_received += result.payload_bytes
    for error in result.errors:
        tally.errors[error[:120]] += 1
    if not result.errors:
        tally.refreshes.append(result.seconds)
        tally.refresh_bytes += result.payload_bytes


def websockets_errors() -> type[Exception]:
    import websockets.exceptions

    return websockets.exceptions.WebSocketException


async def sample_rss(
    servers: list[StreamlitServer], started: float, stop_at: float, tally: Tally, every: float
) -> None:
    while time.monotonic() < stop_at:
        tally.rss.append((time.monotonic() - started, [server.rss_mb() for server in servers]))
        await asyncio.sleep(every)
    tally.rss.append((time.monotonic() - started, [server.rss_mb() for server in servers]))


def server_cpu(servers: list[StreamlitServer]) -> list[float]:
    """CPU seconds each server process has used so far (NaN for one started elsewhere)."""
    return [cpu_seconds(server.process.pid) if server.process else float("nan") for server in servers]


async def classroom(
    servers: list[StreamlitServer],
    port: int,
    students: int,
    seconds: float,
    think: tuple,
    seed: int,
    host_name: str = "127.0.0.1",
    scenario: Scenario = SCENARIOS["random"],
) -> Tally:
    """``students`` students against 127.0.0.1:``port`` (one server, or the proxy in front of ``servers``)."""
    tally = Tally()
    started = time.monotonic()
    stop_at = started + seconds
    ramp = min(10.0, seconds / 4)  # students arrive over the first seconds, not all in one instant

    async def late(number: int):
        await asyncio.sleep(ramp * number / max(students, 1))
        if scenario.shared_only:
            await shared_student(number, port, stop_at, think, tally, seed, host_name, scenario)
        else:
            await student(number, port, stop_at, think, tally, seed, host_name)

    async def window_opens() -> tuple[float, list[float], int]:
        latest = started + seconds / 2  # a student who never opens a page does not hold the window shut
        while tally.opened < students and time.monotonic() < latest:
            await asyncio.sleep(0.1)
        return time.monotonic(), server_cpu(servers), tally.reruns

    sampler = asyncio.create_task(sample_rss(servers, started, stop_at, tally, every=max(1.0, seconds / 12)))
    window = asyncio.create_task(window_opens())
    await asyncio.gather(*(late(n) for n in range(students)))
    await sampler
    opened_at, cpu_before, reruns_before = await window
    cpu = [after - before for after, before in zip(server_cpu(servers), cpu_before, strict=True)]
    tally.window = CpuWindow(time.monotonic() - opened_at, cpu, tally.reruns - reruns_before)
    return tally


def percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def summary(
    tally: Tally, students: int, seconds: float, cpu: list[float] | None = None, sessions: list[int] | None = None
) -> str:
    every = tally.moves + tally.opens
    ms = [1000 * s for s in every]
    moves_ms = [1000 * s for s in tally.moves]
    shared_ms = [1000 * s for s in tally.shared_moves]
    release_ms = [1000 * s for s in tally.releases]
    exceptions = sum(count for error, count in tally.errors.items() if error.startswith("exception"))
    totals = [(t, sum(mbs)) for t, mbs in tally.rss]  # all replicas together
    warm = [mb for t, mb in totals if t >= seconds / 3] or [float("nan")]
    replicas = len(tally.rss[0][1]) if tally.rss else 1
    lines = [
        f"students {students}, {seconds:.0f} s, {replicas} server process(es): {len(every)} reruns "
        f"({len(tally.moves)} slider moves, {len(tally.opens)} page opens) = {len(every) / seconds:.1f} reruns/s, "
        f"{tally.bytes_received / 1e6 / seconds:.1f} MB/s to the clients",
        f"latency all reruns  p50 {percentile(ms, 0.5):.0f} ms  p95 {percentile(ms, 0.95):.0f} ms  "
        f"p99 {percentile(ms, 0.99):.0f} ms  max {max(ms, default=float('nan')):.0f} ms",
        f"latency slider moves p50 {percentile(moves_ms, 0.5):.0f} ms  p95 {percentile(moves_ms, 0.95):.0f} ms  "
        f"p99 {percentile(moves_ms, 0.99):.0f} ms",
        f"latency live-chart releases ({len(release_ms)}) p50 {percentile(release_ms, 0.5):.0f} ms  "
        f"p95 {percentile(release_ms, 0.95):.0f} ms  p99 {percentile(release_ms, 0.99):.0f} ms",
        f"latency shared controls ({len(shared_ms)} moves) p50 {percentile(shared_ms, 0.5):.0f} ms  "
        f"p95 {percentile(shared_ms, 0.95):.0f} ms  p99 {percentile(shared_ms, 0.99):.0f} ms",
        f"errors {sum(tally.errors.values())}, of which exceptions seen by students {exceptions}"
        + (f": {dict(tally.errors)}" if tally.errors else ""),
        "server RSS (MB) over time: " + ", ".join(f"{t:.0f} s {mb:.0f}" for t, mb in totals),
        f"RSS after warm-up (from {seconds / 3:.0f} s): min {min(warm):.0f}, max {max(warm):.0f}, "
        f"end {totals[-1][1] if totals else float('nan'):.0f} MB",
    ]
    if replicas > 1 and tally.rss:
        ends = ", ".join(f"{mb:.0f}" for mb in tally.rss[-1][1])
        lines.append(f"per replica: RSS at the end {ends} MB; CPU seconds " + ", ".join(f"{c:.1f}" for c in cpu or []))
        if sessions is not None:
            lines.append("per replica: websocket sessions " + ", ".join(str(n) for n in sessions))
    return "\n".join(lines)


def scenario_rows(tally: Tally, scenario: Scenario, elapsed: float, rss_end: list[float]) -> list[Row]:
    """The class's figures beside its scenario's budgets (``bench.budgets``; ``info`` where it has none)."""
    exploring, converging = scenario.name == "exploring", scenario.name == "converging"
    shared = scenario.shared_only
    timed = [1000 * s for s in (tally.shared_moves if shared else tally.moves + tally.opens)]
    which = "shared-control reruns" if shared else "all reruns"
    window = tally.window or CpuWindow(float("nan"), [], 0)
    cpu_limit = budgets.CPU_NEW_RERUN_MS if exploring else budgets.CPU_CACHED_RERUN_MS if converging else None
    cores = ", ".join(f"{c / window.seconds:.2f}" for c in window.cpu) if window.seconds > 0 else "—"
    sent = tally.shared_bytes
    mean_kb = (sum(sent) + tally.refresh_bytes) / len(sent) / 1000 if sent else float("nan")  # with the stale
    # sections asked for after a scroll, shared over the moves
    p95_limit = budgets.EXPLORING_P95_MS if exploring else budgets.CONVERGING_P95_MS if converging else None
    rows = [
        Row(
            f"{scenario.name}: reruns served",
            tally.reruns / elapsed,
            "/s",
            None,
            f"{len(tally.moves)} moves ({len(tally.shared_moves)} shared, {tally.over_http} committed over HTTP), "
            f"{len(tally.opens)} page opens",
        ),
        Row(
            f"{scenario.name}: p50 {which}",
            percentile(timed, 0.5),
            "ms",
            budgets.EXPLORING_P50_MS if exploring else None,
            f"{len(timed)} reruns",
        ),
        Row(
            f"{scenario.name}: p95 {which}",
            percentile(timed, 0.95),
            "ms",
            p95_limit if shared else budgets.LOAD_P95_MS,
            f"p99 {percentile(timed, 0.99):.0f} ms",
        ),
        Row(f"{scenario.name}: errors", float(sum(tally.errors.values())), "", 0.0),
        Row(
            f"{scenario.name}: server CPU per rerun",
            window.ms_per_rerun,
            "ms",
            cpu_limit,
            f"{sum(window.cpu):.1f} CPU s / {window.reruns} reruns in the last {window.seconds:.0f} s; "
            f"cores per replica {cores}",
        ),
        Row(
            f"{scenario.name}: bytes per shared-control release",
            mean_kb,
            "kB",
            budgets.SHARED_RELEASE_BYTES / 1000 if shared else None,
            f"mean of {len(sent)}; median {percentile(sent, 0.5) / 1000:.1f} kB, "
            f"p95 {percentile(sent, 0.95) / 1000:.1f} kB, max {max(sent, default=0) / 1000:.1f} kB",
        ),
    ]
    if tally.refreshes:
        refresh_ms = [1000 * s for s in tally.refreshes]
        rows.append(Row(f"{scenario.name}: p95 stale sections asked for after a scroll", percentile(refresh_ms, 0.95),
                        "ms", None, f"{len(refresh_ms)} asked; p50 {percentile(refresh_ms, 0.5):.0f} ms; their CPU "
                        "is in the CPU per rerun, their bytes in the bytes per release"))  # fmt: skip
    if exploring and len(rss_end) == 2 and tally.rss:
        peak = max(sum(mbs) for _, mbs in tally.rss)
        rows.append(Row(f"{scenario.name}: two replicas' RSS together, the most over the run", peak, "MB",
                        budgets.RSS_TOGETHER_MB, f"{sum(rss_end):.0f} MB at the end"))  # fmt: skip
    for number, mb in enumerate(rss_end, 1):
        rows.append(
            Row(
                f"{scenario.name}: replica {number} RSS at the end",
                mb,
                "MB",
                None,
                f"before issue 25: ≈ {budgets.RSS_BEFORE_MB:.0f} MB each after the exploring class",
            )
        )
    return rows  # fmt: skip


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.load", description=__doc__)
    parser.add_argument("--students", type=int, default=30, help=f"simulated students (1–{MAX_STUDENTS})")
    parser.add_argument("--seconds", type=float, default=60, help=f"length of the class (1–{MAX_SECONDS})")
    parser.add_argument("--think", type=float, nargs=2, default=(2.0, 6.0), metavar=("MIN", "MAX"),
                        help="seconds between one student's moves, uniform in [MIN, MAX] (default 2 6)")  # fmt: skip
    parser.add_argument("--port", type=int, help="use a server already running on 127.0.0.1:PORT (not started)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (pages, sliders, values)")
    host_help = "the server's name as students type it, sent as Host and Origin (every request goes to 127.0.0.1)"
    parser.add_argument("--host-name", default=HOST_NAME, help=f"{host_help}; default {HOST_NAME}")
    replicas_help = f"server processes (1–{MAX_REPLICAS}); more than 1: nginx in front (deploy/nginx.conf)"
    parser.add_argument("--replicas", type=int, default=1, help=replicas_help)
    parser.add_argument("--scenario", choices=[*sorted(SCENARIOS), "class", "follow"], default="random",
                        help="the class: random (a random slider of the page; default), exploring (shared controls "
                             "to each student's own values), converging (to the teacher's values), class (class "
                             "mode: the class answers a checkpoint together; bench/classroom.py), follow (class mode: "
                             "the class follows a teacher who changes step and value; bench/follow.py)")  # fmt: skip
    parser.add_argument("--all-sections", action="store_true",
                        help="exploring/converging: commits name no section near the viewport, so every section "
                             "that uses the value reruns (as before static/sections.js)")  # fmt: skip
    class_mode.add_arguments(parser)
    follow.add_arguments(parser)
    args = parser.parse_args(argv)
    if not 1 <= args.students <= MAX_STUDENTS or not 1 <= args.seconds <= MAX_SECONDS:
        parser.error(f"--students must be 1–{MAX_STUDENTS} and --seconds 1–{MAX_SECONDS}")
    if not 1 <= args.replicas <= MAX_REPLICAS or (args.port and args.replicas > 1):
        parser.error(f"--replicas must be 1–{MAX_REPLICAS}, and 1 with --port")
    return args


class _Existing(StreamlitServer):
    """A server someone else started: never started or stopped here, memory not sampled."""

    def start(self):
        return self

    def stop(self):
        pass


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.scenario == "class":  # class mode's own lesson (bench/classroom.py)
        return class_mode.main(args)
    if args.scenario == "follow":  # a class following its teacher (bench/follow.py)
        return follow.main(args)
    with contextlib.ExitStack() as stack:
        if args.port:
            servers = [stack.enter_context(_Existing(port=args.port))]
        else:
            servers = [stack.enter_context(StreamlitServer()) for _ in range(args.replicas)]
        port, proxy = servers[0].port, None
        if len(servers) > 1:
            proxy = stack.enter_context(NginxProxy([server.port for server in servers]))
            port = proxy.port
        print(stack.enter_context(browsers_first()))  # the servers are started: they keep their priority
        cpu_before = [cpu_seconds(server.process.pid) if server.process else 0.0 for server in servers]
        others_before = (time.process_time(), tree_cpu_seconds(proxy.process.pid) if proxy else 0.0)
        started = time.perf_counter()
        scenario = SCENARIOS[args.scenario]
        if args.all_sections:
            scenario = dataclasses.replace(scenario, near=False)
        tally = asyncio.run(
            classroom(
                servers, port, args.students, args.seconds, tuple(args.think), args.seed, args.host_name, scenario
            )
        )
        elapsed = time.perf_counter() - started
        cpu = [
            cpu_seconds(server.process.pid) - before if server.process else float("nan")
            for server, before in zip(servers, cpu_before, strict=True)
        ]
        others = (time.process_time(), tree_cpu_seconds(proxy.process.pid) if proxy else 0.0)
        sessions = list(proxy.sessions_per_replica(expected=tally.sessions).values()) if proxy else None
    print(f"scenario {scenario.name}; load average {os.getloadavg()[0]:.2f} (1 min) at the end")
    print(summary(tally, args.students, elapsed, cpu, sessions))
    simulated, nginx = (after - before for after, before in zip(others, others_before, strict=True))
    print(
        f"on the same cores: the simulated class (this process) {simulated / elapsed:.2f} cores, "
        f"nginx {nginx / elapsed:.2f} cores"
    )
    print(text_table(scenario_rows(tally, scenario, elapsed, tally.rss[-1][1] if tally.rss else [])))
    return 1 if tally.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
