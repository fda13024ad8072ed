"""``python -m bench.load --scenario follow --students 100 --replicas 2``: a class follows its teacher (ui/follow.py).

The set-up of ``--scenario class`` (bench/classroom.py): replicas behind nginx sharing one class store, every browser
speaking Streamlit's websocket protocol. The teacher (presenter mode) starts a class on the first page; the students
open the join link. Then, for ``--seconds``, the teacher changes step every ``--step-seconds`` (opens the other of
two pages, as a lesson's Next does) and moves a shared value every ``--value-seconds`` (a sidebar release: one of the
teacher's values of bench.scenarios.TEACHER). Each student's tab does what the browser does (bench/class_tab.py):
one HTTP poll of ``class/state`` every :data:`bench.class_tab.POLL_S` and a heartbeat every 2 s, through nginx with its
cookies, and a fragment rerun only when the answer differs from what its element says the server drew; when the follow
line then asks it to, it opens the teacher's page (a whole-page run, as Streamlit's router sends it); the teacher's
values on the same page the line's rerun stores itself, rerunning what uses them in the same pass (a commit back, the
element's ``commit`` trigger, only when a full run asked for them).

Measured, for every teacher change and every student: seconds from the teacher's change being sent to the student's
page showing that page and those values (the run that drew them finished). The p95 of these against the issue's
2 s; changes a student never showed (a newer one came first) are counted apart. Then ``--quiet-seconds`` of polls
only: the HTTP polls, the reruns they caused, and the replicas' CPU per student poll (any kind: HTTP poll, heartbeat,
rerun) and per student-second, less their idle CPU (as bench/classroom.py measures it).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import itertools
import os
import random
import time
from dataclasses import dataclass, field, replace

from bench import budgets
from bench.budgets import Row
from bench.class_tab import BEAT_S, POLL_S, SIDEBAR, ClassTab, Counts, Quiet, component, sidebar_values, trigger
from bench.classroom import ClassBrowser, View, class_servers
from bench.report import text_table
from bench.scenarios import TEACHER

PAGES = ("sinusoidal", "relative")  # the lesson's two pages (both built of sections), by url path
JOIN_TIMEOUT_S = 300.0
SETTLE_S, SETTLE_MAX_S = 3.0, 90.0  # after the teacher's last change: no reruns for this long before the quiet window


@dataclass
class Change:
    at: float  # when the teacher sent it (monotonic)
    page: str
    values: dict  # the teacher's sidebar values after it (the page's shared controls)


@dataclass
class Tally:
    changes: list[Change] = field(default_factory=list)
    joined: int = 0
    seen: dict[tuple[int, int], float] = field(default_factory=dict)  # (change, student) -> seconds to show it
    shown: list[tuple[int, float, str, dict]] = field(default_factory=list)  # (student, when, page, values) drawn
    counts: Counts = field(default_factory=Counts)  # the students' HTTP polls, heartbeats, reruns they caused
    errors: dict[str, int] = field(default_factory=dict)

    def error(self, what: str) -> None:
        self.errors[what[:120]] = self.errors.get(what[:120], 0) + 1

    def note(self, view: View) -> None:
        for error in view.errors:
            self.error(error)

    def credit(self) -> None:
        """Fill ``seen`` once the lesson is over, from what each page showed and when: each showing counts for the
        latest change sent before it that it matches (an older one the teacher's view also matched, a value it came
        back to, was not shown by this page, however late). Done afterwards, with every change known: the teacher's
        change is listed when its run returns, and a student's page may show it before that (counted before as an
        older matching change, tens of seconds late)."""
        for number, at, page, values in sorted(self.shown, key=lambda shown: shown[1]):
            for index in range(len(self.changes) - 1, -1, -1):
                change = self.changes[index]
                same = change.page == page and all(values.get(k) == v for k, v in change.values.items())
                if same and change.at <= at:
                    self.seen.setdefault((index, number), at - change.at)
                    break


class Lesson:
    def __init__(self, students: int):
        self.students = students
        self.code = ""
        self.started = asyncio.Event()
        self.all_joined = asyncio.Event()
        self.over = asyncio.Event()  # the teacher's last change is sent
        self.stop = asyncio.Event()  # the quiet window is over too
        self.tally = Tally()
        self.clients: list[ClassBrowser] = []


async def teacher(lesson: Lesson, port: int, host_name: str, args: argparse.Namespace) -> None:
    tally = lesson.tally
    client = ClassBrowser(port, timeout=120, name="bench-teacher", host_name=host_name)
    lesson.clients.append(client)
    rng = random.Random(args.seed)
    try:
        await client.open_page()
        await client.connect()
        tally.note(await client.run(PAGES[0], query="present=1"))
        element, fragment = client.view.identity
        value = {"id": "bench-teacher-browser-0001", "secret": None}
        home = client.view.pages.get(PAGES[0], "")  # the page as a browser names it
        tally.note(await client.run(fragment=fragment, triggers=trigger(element, "browser", value), page_hash=home))
        start = client.view.widget("class_start")[0]
        view = await client.run(PAGES[0], query="present=1", triggers={start: ("trigger_value", True)})
        tally.note(view)
        codes = [body.split(">")[1].split("<")[0] for body in view.html if 'data-testid="class-code"' in body]
        if not codes:
            raise RuntimeError(f"no class code after 'Start a class': {view.errors}")
        lesson.code = codes[0]
        lesson.started.set()
        await asyncio.wait_for(lesson.all_joined.wait(), JOIN_TIMEOUT_S)
        page, values = PAGES[0], sidebar_values(client.view) or {}
        shown = (page, values)
        began = time.monotonic()
        next_step, next_value = began + args.step_seconds, began + args.value_seconds
        while time.monotonic() < began + args.seconds:
            await asyncio.sleep(max(0.0, min(next_step, next_value) - time.monotonic()))
            sent = time.monotonic()
            if sent >= next_step:  # a step: the other page, as Next opens it
                page = PAGES[(PAGES.index(page) + 1) % len(PAGES)]
                view = await client.run(page_hash=client.view.pages.get(page, ""))
                next_step += args.step_seconds
                next_value = max(next_value, sent + args.value_seconds)
            else:  # a value: the sidebar let go at one of the teacher's values
                element, fragment, data = component(client.view, SIDEBAR)
                name = rng.choice([c["name"] for c in data["controls"]])
                moved = values | {name: rng.choice([v for v in TEACHER[name] if v != values.get(name)])}
                value = {"values": moved, "seq": int(sent * 1000) % 2**30}
                commit = trigger(element, "commit", value)
                view = await client.run(fragment=fragment, triggers=commit, page_hash=client.view.pages.get(page, ""))
                next_value += args.value_seconds
            tally.note(view)
            now = sidebar_values(view) or sidebar_values(client.view) or values
            if (page, now) != shown:  # (a release that changed nothing is no change)
                tally.changes.append(Change(sent, page, dict(now)))
            values, shown = now, (page, now)
    except (TimeoutError, OSError, RuntimeError, KeyError, TypeError) as err:
        tally.error(f"teacher: {type(err).__name__}: {err}")
        lesson.started.set()
    finally:
        lesson.over.set()
        await client.close()


async def student(number: int, lesson: Lesson, port: int, host_name: str, rng: random.Random) -> None:
    """Join, then poll as the tab does until the lesson ends; note when each change is shown."""
    tally = lesson.tally
    client = ClassBrowser(port, timeout=120, name=f"bench-student-{number}", host_name=host_name)
    lesson.clients.append(client)
    try:
        await client.open_page()
        await client.connect()
        tally.note(await client.run(PAGES[0], query=f"class={lesson.code}&lang=en"))
        element, fragment = client.view.identity
        browser = f"bench-student-browser-{number:04d}"
        value = {"id": browser, "secret": None}
        here = client.view.pages.get(PAGES[0], "")
        tally.note(await client.run(fragment=fragment, triggers=trigger(element, "browser", value), page_hash=here))
        tab = ClassTab(client, lesson.code, browser, PAGES[0], tally.counts)
        if client.view.polls:
            raise RuntimeError(f"a student's page reruns fragments by a timer: {list(client.view.polls)}")
        tally.joined += 1
        if tally.joined == lesson.students:
            lesson.all_joined.set()
        next_poll, next_beat = time.monotonic() + rng.uniform(0, POLL_S), time.monotonic() + rng.uniform(0, BEAT_S)
        while not lesson.stop.is_set():
            wait = min(next_poll, next_beat, tab.next_later()) - time.monotonic()
            if wait > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(lesson.stop.wait(), wait)
                continue
            if time.monotonic() >= tab.next_later():  # waiting or "later" sections near the viewport, a little later
                for view in [*await tab.draw_later(), *await tab.refresh_later()]:
                    tally.note(view)
                continue
            if time.monotonic() >= next_beat:
                await tab.beat()
                next_beat = time.monotonic() + BEAT_S
                continue
            done = await tab.poll()
            next_poll = time.monotonic() + POLL_S
            for _what, _fragment, view in done:
                tally.note(view)
            if not any(what in ("page", "commit", "values") for what, _, _ in done):
                continue
            # what the page now shows, and when: matched to the teacher's changes when the lesson is over (credit)
            tally.shown.append((number, time.monotonic(), tab.page, dict(sidebar_values(client.view) or {})))
            await tab.scroll()  # now and then to another section, asking for the stale ones there
    except (TimeoutError, OSError, RuntimeError, KeyError, ValueError) as err:
        tally.error(f"student: {type(err).__name__}: {err}")
    finally:
        await client.close()


async def settled(counts: Counts) -> None:
    """Wait until the tabs have rerun nothing for SETTLE_S (a busy server may still be sending the last change),
    at most SETTLE_MAX_S."""
    until, reruns, quiet_since = time.monotonic() + SETTLE_MAX_S, counts.reruns, time.monotonic()
    while time.monotonic() < until and time.monotonic() - quiet_since < SETTLE_S:
        await asyncio.sleep(0.25)
        if counts.reruns != reruns:
            reruns, quiet_since = counts.reruns, time.monotonic()


async def lesson_run(port: int, args: argparse.Namespace, cpu) -> tuple[Tally, Quiet]:
    lesson = Lesson(args.students)
    rng = random.Random(args.seed)
    teacher_task = asyncio.create_task(teacher(lesson, port, args.host_name, args))
    await asyncio.wait_for(lesson.started.wait(), JOIN_TIMEOUT_S)
    tasks = []
    for number in range(args.students):
        tasks.append(asyncio.create_task(student(number, lesson, port, args.host_name, random.Random(rng.random()))))
        await asyncio.sleep(min(20.0, args.students * 0.2) / args.students)
    await teacher_task  # the lesson
    await settled(lesson.tally.counts)  # the last change reached every tab before the window of polls only
    before, cpu_before = replace(lesson.tally.counts), cpu()
    await asyncio.sleep(args.quiet_seconds)
    after, used = replace(lesson.tally.counts), cpu() - cpu_before
    lesson.stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    for what, n in lesson.tally.counts.errors.items():
        lesson.tally.errors[what] = lesson.tally.errors.get(what, 0) + n
    return lesson.tally, Quiet(before, after, 0, used, 0.0, args.quiet_seconds, args.students)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))] if ordered else float("nan")


def rows(tally: Tally, students: int, quiet: Quiet) -> list[Row]:
    seen = list(tally.seen.values())
    wanted = len(tally.changes) * tally.joined
    spread = f"p50 {percentile(seen, 0.5):.2f} s, max {max(seen, default=float('nan')):.2f} s, {len(seen)} shown"
    p95 = percentile(seen, 0.95)
    pages = [PAGES[0]] + [change.page for change in tally.changes]  # the lesson starts on the first page
    stepped = {index for index, (before, after) in enumerate(itertools.pairwise(pages)) if before != after}
    steps = len(stepped)
    by_kind = {kind: [s for (index, _), s in tally.seen.items() if (index in stepped) == (kind == "steps")]
               for kind in ("steps", "values")}  # fmt: skip
    kinds = "; ".join(f"{kind}: p50 {percentile(times, 0.5):.2f} s, p95 {percentile(times, 0.95):.2f} s ({len(times)})"
                      for kind, times in by_kind.items())  # fmt: skip
    return [
        Row("follow: students who joined", float(tally.joined), "", None, f"of {students}"),
        Row(
            "follow: teacher's changes", float(len(tally.changes)), "", None, f"{steps} of them steps to the other page"
        ),
        Row("follow: p95 teacher's change → student's page", p95, "s", budgets.FOLLOW_P95_S, spread),
        Row("follow: … p95 of the page steps alone", percentile(by_kind["steps"], 0.95), "s", None, kinds),
        Row("follow: changes never shown (a newer came first)", float(wanted - len(seen)), "", None, f"of {wanted}"),
        Row(
            "follow: reruns the polls caused in the lesson",
            float(quiet.before.reruns),
            "",
            None,
            f"{quiet.before.board_reruns} of them boards; {quiet.before.http_polls} HTTP polls",
        ),
        Row(
            "follow: teacher's values committed back by a tab",
            float(quiet.before.commits),
            "",
            None,
            f"{quiet.before.stored} stored by the follow line's own rerun",
        ),
        Row(
            "follow: sections a page step left waiting, asked for near the viewport",
            float(quiet.before.waiting),
            "",
            None,
            f"{quiet.before.refreshes} stale sections asked for after a scroll",
        ),
        Row(
            "follow: asks for the sections a value's rerun left near the viewport",
            float(quiet.before.later),
            "",
            None,
            "only the section in view reruns with the teacher's values; those within a screen, a little later",
        ),
        *quiet.rows("follow", budgets.FOLLOW_CPU_PER_POLL_MS),
        Row("follow: errors", float(sum(tally.errors.values())), "", 0.0, str(tally.errors)[:200]),
    ]


def main(args: argparse.Namespace) -> int:
    """``bench.load``'s entry for ``--scenario follow``."""
    with class_servers(args, "bench-follow-") as (port, cpu, idle_rate):
        tally, quiet = asyncio.run(lesson_run(port, args, cpu))
    tally.credit()
    quiet = replace(quiet, idle_cpu_seconds=idle_rate * quiet.seconds)
    print(f"scenario follow; store {args.class_store}; {args.replicas} replica(s); {args.students} students; "
          f"step every {args.step_seconds:g} s, value every {args.value_seconds:g} s; "
          f"load average {os.getloadavg()[0]:.2f} (1 min) at the end")  # fmt: skip
    table = rows(tally, args.students, quiet)
    print(text_table(table))
    return 0 if all(row.verdict != "FAIL" for row in table) and not tally.errors else 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--step-seconds", type=float, default=20.0,
                        help="--scenario follow: the teacher opens the other page this often (default 20)")  # fmt: skip
    parser.add_argument("--value-seconds", type=float, default=5.0,
                        help="--scenario follow: the teacher moves a shared value this often (default 5)")  # fmt: skip
