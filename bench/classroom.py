"""``python -m bench.load --scenario class --students 100``: a class answers one checkpoint together (class mode).

The README's set-up for a big class: two replicas behind nginx (``deploy/nginx.conf``) sharing one class store
(SQLite by default, ``--class-store redis`` for a real ``redis-server``), every student from the one address
127.0.0.1. Each simulated browser speaks Streamlit's websocket protocol (``bench.protocol``) and does what the page
asks of a browser: it sends its localStorage id once (class mode's ``components.v2`` element); a student's tab polls
``class/state`` over HTTP once a second and beats every 2 s, and reruns a checkpoint's board only when its print
changed (bench/class_tab.py, as static/class_poll.js does); the teacher's page reruns its
``st.fragment(run_every=…)`` at their interval (``ClientState.is_auto_rerun``), as the frontend's timers do.

1. The teacher opens the page in presenter mode, starts a class (the "Start a class" button) and shows the
   distribution of the first checkpoint; the teacher's view polls every second.
2. The students open the join link (``?class=<code>``); once all are in, each picks a choice and sends it at a
   random moment within ``--answer-seconds`` (10 s).
3. Measured: answers the students saw counted; the presenter's count (read from the teacher's own view, as its
   polls bring it) against that number, and how long after the last answer it caught up; the teacher presses
   "Reveal to the class", and how long each student's page takes to show the answer without doing anything; then
   ``--quiet-seconds`` in which only the polls run: the HTTP polls, the reruns they caused, and the replicas' CPU
   time (from /proc) per poll of any kind (HTTP poll, heartbeat, rerun, the teacher's timed reruns) and per
   student-second.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

from bench.budgets import Row
from bench.class_tab import BEAT_S, DEFERRED, POLL_S, ClassTab, Counts, Quiet
from bench.priority import browsers_first
from bench.protocol import (
    FINISHED_OK,
    SECTION,
    HttpResponse,
    StreamlitClient,
    _receive,
    cookies_set_by,
    http_request,
    whole_data,
)
from bench.proxy import NginxProxy
from bench.report import text_table
from bench.server import StreamlitServer, cpu_seconds
from ui.component_data import sent_data

PAGE = "relative"  # a page with two checkpoints, so each student's page polls twice, as a real one does
CHECKPOINT = "cp_rel_t5"
IDENTITY = "posenc_lab_class_identity"  # ui/classroom.py's browser-id element
TEACHER_POLL_S = 1.0  # ui/classroom.py's: the teacher's board reruns by itself
CATCH_UP_BUDGET_S, REVEAL_BUDGET_S, CPU_PER_POLL_BUDGET_MS = 2.0, 3.0, 5.0
JOIN_TIMEOUT_S = 300.0
IDLE_SECONDS = 5.0


@dataclass
class View:
    """What one browser has on screen, as the deltas of its runs built it."""

    widgets: dict[str, tuple[str, list[str]]] = field(default_factory=dict)  # element id -> (fragment, options)
    identity: tuple[str, str] | None = None  # (element id, fragment id) of the browser-id element
    polls: dict[str, float] = field(default_factory=dict)  # fragment id -> run_every seconds
    html: list[str] = field(default_factory=list)
    metrics: list[tuple[str, str]] = field(default_factory=list)  # (fragment id, value)
    alerts: list[tuple[str, str, str]] = field(default_factory=list)  # (fragment id, icon, text)
    errors: list[str] = field(default_factory=list)
    components: dict[str, tuple[str, str, dict]] = field(default_factory=dict)  # name -> (id, fragment, its data)
    pages: dict[str, str] = field(default_factory=dict)  # url path -> page script hash (the navigation message)
    sections: list[str] = field(default_factory=list)  # keys of the page's sections (ui.sections), top to bottom

    def widget(self, key: str) -> tuple[str, str, list[str]]:
        """(element id, fragment, options) of the widget with the user key ``key`` (Streamlit ends ids with it)."""
        for element_id, (fragment, options) in self.widgets.items():
            if element_id.endswith(f"-{key}"):
                return element_id, fragment, options
        raise KeyError(f"no widget keyed {key!r} on the page")


class ClassBrowser(StreamlitClient):
    """A browser in class mode: keeps its widget values (the browser resends them on every run) and reads the
    elements class mode draws."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.widgets: dict[str, tuple[str, object]] = {}  # id -> (WidgetState field, value), resent every run
        self.view = View()
        self.polls_done = 0

    async def run(self, page: str = "", query: str = "", fragment: str = "", triggers: dict | None = None,
                  auto: bool = False, page_hash: str = "") -> View:  # fmt: skip
        """One rerun (the page by name, or by its script's hash as a browser names it; or one fragment); returns
        what it drew."""
        message = BackMsg()
        state = message.rerun_script
        state.page_name, state.query_string, state.fragment_id, state.is_auto_rerun = page, query, fragment, auto
        state.page_script_hash = page_hash or self.view.pages.get(page, "")  # as a browser names it, once known
        state.cached_message_hashes.extend(self.messages.hashes())
        for widget_id, (kind, value) in self.widgets.items():
            widget = state.widget_states.widgets.add()
            widget.id = widget_id
            setattr(widget, kind, value)
        for widget_id, (kind, value) in (triggers or {}).items():
            widget = state.widget_states.widgets.add()
            widget.id = widget_id
            setattr(widget, kind, value)
        await self.socket.send(message.SerializeToString())
        view = View()
        deadline = time.perf_counter() + self.timeout
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                view.errors.append("timeout")
                return view
            try:
                forward = ForwardMsg.FromString(await _receive(self.socket, remaining))
            except TimeoutError:
                view.errors.append("timeout")
                return view
            kind = forward.WhichOneof("type")
            if kind == "ref_hash":
                cached = self.messages.take(forward.ref_hash)
                if cached is None:
                    continue
                cached.metadata.CopyFrom(forward.metadata)
                forward, kind = cached, cached.WhichOneof("type")
            elif forward.metadata.cacheable and forward.hash:
                self.messages.keep(forward)
            if kind == "new_session":
                self.session_id = forward.new_session.initialize.session_id
                self.messages.max_age = forward.new_session.config.max_cached_message_age
            elif kind == "navigation":
                self.view.pages = {page.url_pathname: page.page_script_hash for page in forward.navigation.app_pages}
            elif kind == "auto_rerun":
                self.view.polls[forward.auto_rerun.fragment_id] = forward.auto_rerun.interval
            elif kind == "delta":
                _read(forward, view, self.held)
            elif kind == "script_finished" and forward.script_finished == ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                continue
            elif kind == "script_finished":
                self.messages.run_finished()
                if forward.script_finished not in FINISHED_OK:
                    view.errors.append(ForwardMsg.ScriptFinishedStatus.Name(forward.script_finished))
                self.view.widgets |= view.widgets
                self.view.identity = view.identity or self.view.identity
                whole_page = not fragment  # a page's run draws all its elements anew (another page's are gone)
                if not whole_page:  # a waiting section the fragment run drew is no longer waiting
                    drawn = {f"{DEFERRED}:{key}" for key in view.sections}
                    self.view.components = {name: found for name, found in self.view.components.items()
                                            if name not in drawn}  # fmt: skip
                self.view.components = view.components if whole_page else self.view.components | view.components
                if whole_page:
                    self.view.sections = view.sections
                return view

    async def get_any(self, path: str) -> HttpResponse:
        """GET ``path`` with this browser's cookies, whatever the status (class/state's errors are JSON)."""
        response = await http_request(self.port, "GET", path, self._headers(), None, self.timeout, self.host_name)
        self.cookies.update(cookies_set_by(response))
        return response

    async def post_json(self, path: str, body: object) -> HttpResponse:
        """POST ``body`` as JSON with this browser's cookies (as fetch() does from the page)."""
        headers = self._headers() | {"Content-Type": "application/json"}
        data = json.dumps(body).encode()
        response = await http_request(self.port, "POST", path, headers, data, self.timeout, self.host_name)
        self.cookies.update(cookies_set_by(response))
        return response

    async def identify(self, browser_id: str) -> View:
        """What the browser-id element does on mount: send the id kept in localStorage."""
        element, fragment = self.view.identity
        payload = json.dumps([{"event": "browser", "value": {"id": browser_id, "secret": None}}])
        trigger = {f"$$STREAMLIT_INTERNAL_KEY_{element}__events": ("json_trigger_value", payload)}
        return await self.run(PAGE, fragment=fragment, triggers=trigger)

    async def poll(self, fragment: str) -> View:
        view = await self.run(PAGE, fragment=fragment, auto=True)
        self.polls_done += 1
        return view


def _read(forward: ForwardMsg, view: View, held: dict) -> None:
    delta = forward.delta
    if delta.WhichOneof("type") == "add_block" and SECTION in delta.add_block.id:
        view.sections.append(delta.add_block.id.split(SECTION, 1)[1])
    if delta.WhichOneof("type") != "new_element":
        return
    element, fragment = delta.new_element, delta.fragment_id
    kind = element.WhichOneof("type")
    if kind == "exception":
        view.errors.append(f"exception: {element.exception.type}: {element.exception.message[:160]}")
    elif kind in ("button", "radio", "checkbox"):
        widget = getattr(element, kind)
        view.widgets[widget.id] = (fragment, list(getattr(widget, "options", [])))
    elif kind == "bidi_component" and element.bidi_component.component_name.endswith(IDENTITY):
        view.identity = (element.bidi_component.id, fragment)
    elif kind == "bidi_component":  # the others by their name's last part (bench/class_tab.py reads them)
        component = element.bidi_component
        name = component.component_name.rsplit(".", 1)[-1]
        data = whole_data(component.id, sent_data(component) or {}, held)
        if isinstance(data, dict) and isinstance(data.get("cp"), str):  # a board: one per checkpoint
            name = f"{name}:{data['cp'].split('.')[0]}"
        elif name == DEFERRED and isinstance(data, dict) and isinstance(data.get("key"), str):  # one per section
            name = f"{name}:{data['key']}"
        view.components[name] = (component.id, fragment, data)
    elif kind == "html":
        view.html.append(element.html.body)
    elif kind == "metric":
        view.metrics.append((fragment, element.metric.body))
    elif kind == "alert":
        view.alerts.append((fragment, element.alert.icon, element.alert.body[:100]))


@dataclass
class Tally:
    joined: int = 0
    counted: int = 0  # answers a student saw acknowledged ("Your answer is in")
    last_answer_at: float = float("nan")
    presenter_counts: list[tuple[float, int]] = field(default_factory=list)  # (time, count) from the teacher's polls
    revealed_at: float = float("nan")
    reveal_seen: list[float] = field(default_factory=list)  # seconds from the reveal to each student's page showing it
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, what: str) -> None:
        self.errors[what[:120]] = self.errors.get(what[:120], 0) + 1


def _note(view: View, tally: Tally) -> None:
    for error in view.errors:
        tally.error(error)


class Class:
    """The shared state of one simulated lesson (one event loop: no locks)."""

    def __init__(self, students: int):
        self.students = students
        self.code = ""
        self.started = asyncio.Event()
        self.all_joined = asyncio.Event()
        self.answering_from = 0.0
        self.stop = asyncio.Event()
        self.tally = Tally()
        self.counts = Counts()  # the students' HTTP polls, heartbeats and the reruns they caused
        self.clients: list[ClassBrowser] = []


async def _code_after_start(client: ClassBrowser, tally: Tally) -> str:
    start = client.view.widget("class_start")[0]
    view = await client.run(PAGE, query="present=1", triggers={start: ("trigger_value", True)})
    _note(view, tally)
    codes = [body.split(">")[1].split("<")[0] for body in view.html if 'data-testid="class-code"' in body]
    if not codes:
        raise RuntimeError(f"no class code after 'Start a class': {view.errors}")
    return codes[0]


async def teacher(lesson: Class, port: int, host_name: str, answer_seconds: float) -> None:
    """Presenter mode: start the class, show the first checkpoint's distribution, poll every second, and reveal
    once every student has had their answer window and the count has caught up."""
    tally = lesson.tally
    client = ClassBrowser(port, timeout=120, name="bench-teacher", host_name=host_name)
    lesson.clients.append(client)
    try:
        await client.open_page()
        await client.connect()
        _note(await client.run(PAGE, query="present=1"), tally)
        _note(await client.identify("bench-teacher-browser-0001"), tally)
        lesson.code = await _code_after_start(client, tally)
        toggle, controls, _ = client.view.widget(f"{CHECKPOINT}_class_chart")
        client.widgets[toggle] = ("bool_value", True)
        _note(await client.run(PAGE, fragment=controls), tally)
        board = await first_poll(client)
        lesson.started.set()
        revealed = False
        while not lesson.stop.is_set():
            view = await client.poll(board)
            _note(view, tally)
            counts = [int(value) for fragment, value in view.metrics if fragment == board and value.isdigit()]
            if counts:
                tally.presenter_counts.append((time.monotonic(), counts[0]))
            window_over = lesson.all_joined.is_set() and time.monotonic() > lesson.answering_from + answer_seconds + 2
            if not revealed and window_over and counts and counts[0] >= tally.counted:
                reveal = client.view.widget(f"{CHECKPOINT}_class_reveal")[0]
                tally.revealed_at = time.monotonic()
                _note(await client.run(PAGE, fragment=controls, triggers={reveal: ("trigger_value", True)}), tally)
                revealed = True
            await asyncio.sleep(TEACHER_POLL_S)
    except (TimeoutError, OSError, RuntimeError, KeyError) as err:
        tally.error(f"teacher: {type(err).__name__}: {err}")
        lesson.started.set()
    finally:
        await client.close()


async def student(number: int, lesson: Class, port: int, host_name: str, answer_seconds: float, rng) -> None:
    """Open the join link, send the browser id, poll the class as the tab does (bench/class_tab.py: one HTTP poll a
    second, a heartbeat every 2 s, a board rerun only when its print changed), answer the first checkpoint at a
    random moment of the answer window, and note when its page shows the reveal."""
    tally = lesson.tally
    client = ClassBrowser(port, timeout=120, name=f"bench-student-{number}", host_name=host_name)
    lesson.clients.append(client)
    try:
        await client.open_page()
        await client.connect()
        _note(await client.run(PAGE, query=f"class={lesson.code}&lang=en"), tally)
        if client.view.identity is None:
            raise RuntimeError("no browser-id element on a student's page")
        browser = f"bench-student-browser-{number:04d}"
        _note(await client.identify(browser), tally)
        radio, inputs, options = client.view.widget(f"{CHECKPOINT}_choice")
        send = client.view.widget(f"{CHECKPOINT}_send")[0]
        tab = ClassTab(client, lesson.code, browser, PAGE, lesson.counts)
        box = next((fragment for name, (_, fragment, _) in client.view.components.items()
                    if name.endswith(f":{CHECKPOINT}")), None)  # fmt: skip
        if box is None or client.view.polls:
            raise RuntimeError(f"a student's page: board {box}, timed polls {list(client.view.polls)}")
        tally.joined += 1
        if tally.joined == lesson.students:
            lesson.answering_from = time.monotonic()
            lesson.all_joined.set()
        next_poll, next_beat = time.monotonic() + rng.uniform(0, POLL_S), time.monotonic() + rng.uniform(0, BEAT_S)
        answer_at, answered, seen = None, False, False
        while not lesson.stop.is_set():
            if lesson.all_joined.is_set() and answer_at is None:
                answer_at = lesson.answering_from + rng.uniform(0, answer_seconds)
            if answer_at is not None and not answered and time.monotonic() >= answer_at:
                client.widgets[radio] = ("string_value", rng.choice(options))
                view = await client.run(PAGE, fragment=inputs, triggers={send: ("trigger_value", True)})
                _note(view, tally)
                if any(icon == ":material/how_to_vote:" for fragment, icon, _ in view.alerts if fragment == inputs):
                    tally.counted += 1
                    tally.last_answer_at = time.monotonic()
                else:
                    tally.error("an answer was not acknowledged")
                answered = True
                continue
            wait = min(next_poll, next_beat) - time.monotonic()
            if answer_at is not None and not answered:
                wait = min(wait, answer_at - time.monotonic())
            if wait > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(lesson.stop.wait(), wait)
                continue
            if time.monotonic() >= next_beat:
                await tab.beat()
                next_beat = time.monotonic() + BEAT_S
                continue
            done = await tab.poll()
            next_poll = time.monotonic() + POLL_S
            for _what, fragment, view in done:
                _note(view, tally)
                if fragment == box and not seen and any(icon in REVEALED for f, icon, _ in view.alerts if f == box):
                    seen = True
                    if tally.revealed_at == tally.revealed_at:  # a reveal was pressed (not NaN)
                        tally.reveal_seen.append(time.monotonic() - tally.revealed_at)
    except (TimeoutError, OSError, RuntimeError, KeyError, ValueError) as err:
        tally.error(f"student: {type(err).__name__}: {err}")
    finally:
        await client.close()


async def first_poll(client: ClassBrowser) -> str:
    """The teacher's polling fragment of the page's first checkpoint (each checkpoint's board registers its poll in
    page order, after the class panel's count of who follows), found by polling each once: it draws the answered
    count."""
    for fragment in list(client.view.polls):
        view = await client.poll(fragment)
        if any(f == fragment for f, _ in view.metrics):
            return fragment
    raise RuntimeError("the page has no checkpoint's polling fragment")


REVEALED = {":material/visibility:", ":material/check_circle:", ":material/cancel:"}  # ui/checkpoint.py's verdicts


async def lesson_run(port: int, args: argparse.Namespace, cpu: Callable[[], float]) -> tuple[Tally, Quiet]:
    """The whole lesson; then ``args.quiet_seconds`` in which only the polls run. Returns (tally, the quiet
    window's polls and the replicas' CPU in it)."""
    lesson = Class(args.students)
    rng = random.Random(args.seed)
    teacher_task = asyncio.create_task(teacher(lesson, port, args.host_name, args.answer_seconds))
    await asyncio.wait_for(lesson.started.wait(), JOIN_TIMEOUT_S)
    ramp = min(20.0, args.students * 0.2)  # students arrive over some seconds, as a class does
    tasks = []
    for number in range(args.students):
        tasks.append(asyncio.create_task(student(number, lesson, port, args.host_name, args.answer_seconds,
                                                 random.Random(rng.random()))))  # fmt: skip
        await asyncio.sleep(ramp / args.students)
    tally = lesson.tally
    deadline = time.monotonic() + JOIN_TIMEOUT_S + args.answer_seconds + 60
    while time.monotonic() < deadline and not (tally.reveal_seen and len(tally.reveal_seen) >= tally.counted):
        if all(task.done() for task in tasks):
            break
        await asyncio.sleep(0.25)
    teacher_client = lesson.clients[0]  # the teacher's browser came first
    before, teacher_before, cpu_before = replace(lesson.counts), teacher_client.polls_done, cpu()
    await asyncio.sleep(args.quiet_seconds)
    after, used = replace(lesson.counts), cpu() - cpu_before
    teacher_polls = teacher_client.polls_done - teacher_before
    lesson.stop.set()
    await asyncio.gather(teacher_task, *tasks, return_exceptions=True)
    for what, n in lesson.counts.errors.items():
        tally.errors[what] = tally.errors.get(what, 0) + n
    return tally, Quiet(before, after, teacher_polls, used, 0.0, args.quiet_seconds, args.students)


@dataclass
class Figures:
    tally: Tally
    quiet: Quiet  # the window of polls only
    students: int
    answer_seconds: float
    store: str

    def catch_up(self) -> float:
        """Seconds from the last acknowledged answer to the teacher's view first showing every one of them."""
        for at, count in self.tally.presenter_counts:
            if count >= self.tally.counted and at >= self.tally.last_answer_at:
                return at - self.tally.last_answer_at
        return float("inf")

    def final_count(self) -> int:
        return self.tally.presenter_counts[-1][1] if self.tally.presenter_counts else 0

    def rows(self) -> list[Row]:
        tally = self.tally
        seen = sorted(tally.reveal_seen)
        worst_reveal = seen[-1] if seen and len(seen) >= tally.counted else float("inf")
        return [
            Row("class: students who joined", float(tally.joined), "", None, f"of {self.students}"),
            Row("class: answers acknowledged", float(tally.counted), "", None, f"within {self.answer_seconds:.0f} s"),
            Row(
                "class: presenter's count minus answers",
                float(abs(self.final_count() - tally.counted)),
                "",
                0.0,
                "every answer counted exactly once",
            ),
            Row("class: presenter caught up after the last answer", self.catch_up(), "s", CATCH_UP_BUDGET_S),
            Row(
                "class: reveal seen by the slowest student",
                worst_reveal,
                "s",
                REVEAL_BUDGET_S,
                f"{len(seen)} pages; median {seen[len(seen) // 2]:.2f} s" if seen else "none seen",
            ),
            *self.quiet.rows("class", CPU_PER_POLL_BUDGET_MS),
            Row("class: errors", float(sum(tally.errors.values())), "", 0.0, str(tally.errors)[:200]),
        ]


@contextlib.contextmanager
def class_servers(args: argparse.Namespace, prefix: str) -> Iterator[tuple[int, Callable[[], float], float]]:
    """Start the class store (SQLite in a temporary folder, or a redis-server), ``args.replicas`` replicas sharing
    it and nginx in front of two or more; yields (the port to connect to, the replicas' CPU seconds so far as a
    function, and the CPU they burn per second with nobody connected, measured over IDLE_SECONDS)."""
    with contextlib.ExitStack() as stack:
        work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix=prefix)))
        before = os.environ.get("POSENC_CLASS_STORE")
        if args.class_store == "redis":
            from bench.redis_server import RedisServer

            os.environ["POSENC_CLASS_STORE"] = stack.enter_context(RedisServer()).url
        else:
            os.environ["POSENC_CLASS_STORE"] = f"sqlite:///{work / 'classes.sqlite3'}"
        try:  # the replicas inherit the store's address
            servers = [stack.enter_context(StreamlitServer(startup_timeout=240)) for _ in range(args.replicas)]
        finally:
            if before is None:
                os.environ.pop("POSENC_CLASS_STORE")
            else:
                os.environ["POSENC_CLASS_STORE"] = before
        port = servers[0].port
        if len(servers) > 1:
            port = stack.enter_context(NginxProxy([server.port for server in servers])).port

        def cpu() -> float:
            return sum(cpu_seconds(server.process.pid) for server in servers)

        idle_from, idle_cpu = time.monotonic(), cpu()
        time.sleep(IDLE_SECONDS)  # the replicas with nobody connected: what they burn anyway
        print(stack.enter_context(browsers_first()))  # the servers are started: they keep their priority
        yield port, cpu, (cpu() - idle_cpu) / (time.monotonic() - idle_from)


def run_class(args: argparse.Namespace) -> Figures:
    """Start the store, the replicas and nginx; run the lesson; stop everything."""
    with class_servers(args, "bench-class-") as (port, cpu, idle_rate):
        tally, quiet = asyncio.run(lesson_run(port, args, cpu))
    quiet = replace(quiet, idle_cpu_seconds=idle_rate * quiet.seconds)
    return Figures(tally, quiet, args.students, args.answer_seconds, args.class_store)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``bench.load``'s options for ``--scenario class``."""
    parser.add_argument(
        "--class-store",
        choices=("sqlite", "redis"),
        default="sqlite",
        help="--scenario class: where the answers live (default sqlite; redis starts a redis-server)",
    )
    parser.add_argument(
        "--answer-seconds",
        type=float,
        default=10.0,
        help="--scenario class: the window in which every student answers (default 10)",
    )
    parser.add_argument(
        "--quiet-seconds",
        type=float,
        default=15.0,
        help="--scenario class: polls only, after the reveal, to measure CPU per poll (default 15)",
    )


def main(args: argparse.Namespace) -> int:
    """``bench.load``'s entry for ``--scenario class`` (with its --students, --replicas, --seed, --host-name)."""
    figures = run_class(args)
    print(f"scenario class; store {figures.store}; {args.replicas} replica(s); {args.students} students; "
          f"load average {os.getloadavg()[0]:.2f} (1 min) at the end")  # fmt: skip
    rows = figures.rows()
    print(text_table(rows))
    return 0 if all(row.verdict != "FAIL" for row in rows) and not figures.tally.errors else 1
