"""What a student's tab does in class mode, for the simulated browsers of ``--scenario class`` and ``follow``.

As static/class_poll.js and static/follow.js do it: every :data:`POLL_S` one HTTP ``GET class/state`` for the whole
tab (through nginx, with the tab's cookies: ui/class_http.py, no script run), and every :data:`BEAT_S` one ``POST
class/beat`` with the mode the follow element last drew. A new view of the class on another page is opened at once,
while following (follow.js's teacherPage: one whole-page run, no fragment first). A fragment is rerun (its element's
``poll`` trigger) only when the answer differs from what the element says the server drew, at most one per poll, the
follow line first: the follow line when the class's view number is not the one it drew, or when the tab's page or
values still differ from the view's after :data:`AGAIN_S`; a checkpoint's board when its print changed (at most
every :data:`BOARD_GAP_S`). What the follow line then asks of the browser is done as follow.js does it: open the
teacher's page (a whole-page run, as Streamlit's router sends it) or commit the teacher's values (the element's
``commit`` trigger) unless the line's rerun stored them already.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

from bench.budgets import Row
from bench.scenarios import SCROLL_SHARE, near_sections
from ui.sections import LATER_S  # static/sections.js LATER_MS: a waiting or "later" section near the viewport

DEFERRED = "posenc_lab_deferred"  # a section a page step left waiting (ui/sections.py): "DEFERRED:<key>" in a view

POLL_S, BEAT_S, BOARD_GAP_S, AGAIN_S = 0.5, 2.0, 1.5, 3.0  # class_poll.js's and follow.js's
FOLLOW = "posenc_lab_follow"  # ui/follow.py's element
BOARD = "posenc_lab_class_board"  # ui/classroom.py's board element (one per checkpoint, keyed BOARD:<checkpoint>)
SIDEBAR = "posenc_lab_shared"  # ui/shared.py's sidebar controls


def trigger(element_id: str, event: str, value: object) -> dict:
    payload = json.dumps([{"event": event, "value": value}])
    return {f"$$STREAMLIT_INTERNAL_KEY_{element_id}__events": ("json_trigger_value", payload)}


def component(view, name: str) -> tuple[str, str, dict] | None:
    return next((found for key, found in view.components.items() if key.endswith(name)), None)


def sidebar_values(view) -> dict | None:
    found = component(view, SIDEBAR)
    return dict(found[2]["values"]) if found else None


def body_of(response) -> bytes:
    """The response's body, de-chunked when it came in chunks."""
    if "chunked" not in ",".join(response.header_values("transfer-encoding")).lower():
        return response.body
    rest, body = response.body, b""
    while rest:
        size, _, rest = rest.partition(b"\r\n")
        length = int(size.split(b";")[0] or b"0", 16)
        if length == 0:
            break
        body, rest = body + rest[:length], rest[length + 2 :]
    return body


@dataclass
class Counts:
    """Requests the students' tabs made (all tabs together)."""

    http_polls: int = 0  # GET class/state
    beats: int = 0  # POST class/beat
    reruns: int = 0  # fragment reruns the polls caused (boards and follow lines)
    board_reruns: int = 0  # … of them, boards'
    commits: int = 0  # the teacher's values committed back by the browser (a rerun more)
    refreshes: int = 0  # stale sections asked for after a scroll (a rerun more)
    later: int = 0  # "later" stale sections a follow's rerun left near the viewport, asked for a little later
    waiting: int = 0  # sections a page step left waiting, asked for once near (a rerun each)
    stored: int = 0  # the teacher's values the follow line's rerun stored itself (no commit)
    poll_seconds: list[float] = field(default_factory=list)  # each HTTP poll's round trip, in order
    errors: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return self.http_polls + self.beats + self.reruns

    def error(self, what: str) -> None:
        self.errors[what[:120]] = self.errors.get(what[:120], 0) + 1


class ClassTab:
    """One student's tab over a joined :class:`bench.classroom.ClassBrowser` on url path ``page``."""

    def __init__(self, client, code: str, browser: str, page: str, counts: Counts):
        self.client, self.code, self.browser, self.page, self.counts = client, code, browser, page, counts
        self.board_at: dict[str, float] = {}
        self.asked_for, self.asked_at, self.differs_since = None, 0.0, None
        self.done: set[str] = set()  # follow instructions carried out
        self.rng = random.Random(browser)
        self.spot = 0  # the section of the page the student looks at (bench.scenarios.near_sections)
        self.later: dict[str, float] = {}  # waiting sections near the viewport -> when the tab asks for each
        self.stale_later: dict[str, float] = {}  # "later" stale sections a follow left (ui/sections.py) -> when asked

    def near(self) -> list[str] | None:
        """The sections the tab names as near its viewport (static/sections.js), as bench.load's students do."""
        sections = self.client.view.sections
        if not sections:
            return None
        self.spot = min(self.spot, len(sections) - 1)
        return near_sections(sections, self.spot)

    async def scroll(self) -> None:
        """Now and then (bench.scenarios.SCROLL_SHARE), after the teacher's change is shown, look at another section
        and ask for the stale ones near it, as static/sections.js does."""
        sections = self.client.view.sections
        if not sections or self.rng.random() >= SCROLL_SHARE:
            return
        self.spot = self.rng.randrange(len(sections))
        await self.draw_waiting()
        found = component(self.client.view, SIDEBAR)
        stale = set(found[2].get("stale", ())) if found else set()
        in_view = sections[self.spot]  # a "later" one is asked for only in view (static/sections.js)
        keys = [key for key in near_sections(sections, self.spot)
                if key in stale and (key not in self.stale_later or key == in_view)]  # fmt: skip
        for key in keys:
            self.stale_later.pop(key, None)
        if keys:
            element, fragment, _ = found
            await self.client.run(fragment=fragment, triggers=trigger(element, "refresh", keys), page_hash=self.here())
            self.counts.refreshes += 1

    async def draw_waiting(self) -> list:
        """Ask for the section in view if a page step left it waiting (ui/sections.py), as its element
        (static/sections.js, watchDeferred) does: one fragment run; the waiting ones near the viewport are asked
        for :data:`LATER_S` later (:meth:`draw_later`)."""
        views = []
        now = time.monotonic()
        for key in self.near() or ():
            if f"{DEFERRED}:{key}" not in self.client.view.components:
                continue
            if key == self.client.view.sections[self.spot]:
                self.later.pop(key, None)
                views.append(await self.ask_waiting(key))
            else:
                self.later.setdefault(key, now + LATER_S)
        return views

    def next_later(self) -> float:
        """When the tab next asks for a waiting section near the viewport, or for a "later" stale one (infinity when
        none waits)."""
        return min([*self.later.values(), *self.stale_later.values()], default=float("inf"))

    def note_later(self) -> None:
        """The sidebar's "later" stale sections (a follow's rerun left them, within a screen of the viewport), each
        asked for LATER_S after it was first listed, as static/sections.js's watchStale does."""
        found = component(self.client.view, SIDEBAR)
        later = set(found[2].get("later", ())) if found else set()
        now = time.monotonic()
        self.stale_later = {key: self.stale_later.get(key, now + LATER_S) for key in later}

    async def refresh_later(self) -> list:
        """Ask for the "later" stale sections whose time has come, together (the sidebar's ``refresh``)."""
        now = time.monotonic()
        due = [key for key, at in self.stale_later.items() if at <= now]
        if not due:
            return []
        for key in due:
            del self.stale_later[key]
        found = component(self.client.view, SIDEBAR)
        if found is None:
            return []
        element, fragment, _ = found
        self.counts.later += 1
        return [await self.client.run(fragment=fragment, triggers=trigger(element, "refresh", due),
                                      page_hash=self.here())]  # fmt: skip

    async def draw_later(self) -> list:
        """Ask for the waiting sections whose time has come (:meth:`draw_waiting`), those still waiting."""
        now = time.monotonic()
        due = [key for key, at in self.later.items() if at <= now]
        views = []
        for key in due:
            del self.later[key]
            if f"{DEFERRED}:{key}" in self.client.view.components:
                views.append(await self.ask_waiting(key))
        return views

    async def ask_waiting(self, key: str):
        element, fragment, _ = self.client.view.components[f"{DEFERRED}:{key}"]
        self.counts.waiting += 1
        return await self.client.run(fragment=fragment, triggers=trigger(element, "near", True), page_hash=self.here())

    def here(self) -> str:
        return self.client.view.pages.get(self.page, "")

    def boards(self) -> list[tuple[str, str, dict]]:
        return [found for name, found in self.client.view.components.items() if name.startswith(BOARD)]

    def watch(self) -> tuple[str, str, dict] | None:
        found = component(self.client.view, FOLLOW)
        return found if found and found[2].get("watch") else None

    async def beat(self) -> None:
        found = self.watch()
        if found is None:
            return
        body = {"code": self.code, "browser": self.browser, "mode": found[2]["watch"]["mode"]}
        response = await self.client.post_json("/class/beat", body)
        self.counts.beats += 1
        if response.status not in (200, 204):
            self.counts.error(f"class/beat answered {response.status}")

    async def poll(self) -> list[tuple[str, str, object]]:
        """One poll and the reruns it causes: [(what, fragment, the rerun's View)], what being "board" or "follow"
        (then also "page" or "commit" for what the follow line asked of the browser)."""
        boards = self.boards()
        query = {"code": self.code} | ({"cp": ",".join(data["cp"] for _, _, data in boards)} if boards else {})
        sent = time.perf_counter()
        response = await self.client.get_any(f"/class/state?{urlencode(query)}")
        self.counts.poll_seconds.append(time.perf_counter() - sent)
        self.counts.http_polls += 1
        if response.status != 200:
            self.counts.error(f"class/state answered {response.status}")
            return []
        answer = json.loads(body_of(response))
        page = self.teacher_page(answer, time.monotonic())
        if page is not None:  # follow.js's teacherPage: open it at once; its run takes the class's view
            self.asked_for, self.asked_at = answer["view"], time.monotonic()
            return await self.open(page)
        done = []
        why = self.follow_reason(answer, time.monotonic())
        if why:  # the follow line first; the boards wait for the next poll (following redraws most of them)
            element, fragment, _ = self.watch()
            self.asked_for, self.asked_at = answer["view"], time.monotonic()
            asked = {"view": answer["view"]}
            if (near := self.near()) is not None:  # in view: the section the student looks at (follow.js)
                asked |= {"near": near, "visible": [self.client.view.sections[self.spot]]}
            view = await self.client.run(fragment=fragment, triggers=trigger(element, "poll", asked),
                                         page_hash=self.here())  # fmt: skip
            self.note_later()
            self.counts.reruns += 1
            done.append(("follow", fragment, view))
            return done + await self.obey(view)
        now = time.monotonic()
        for element, fragment, data in boards:
            name = data["cp"].split(".")[0]
            printed = "over" if answer.get("over") else answer.get("boards", {}).get(name)
            if printed is None or printed == data["shown"] or now - self.board_at.get(name, 0.0) < BOARD_GAP_S:
                continue
            self.board_at[name] = now
            view = await self.client.run(fragment=fragment, triggers=trigger(element, "poll", printed),
                                         page_hash=self.here())  # fmt: skip
            self.counts.reruns += 1
            self.counts.board_reruns += 1
            done.append(("board", fragment, view))
            break  # one trigger per poll, as class_poll.js sends them: the next board at the next poll
        return done

    def teacher_page(self, answer: dict, now: float) -> str | None:
        """follow.js's teacherPage: a new view on another page, while following."""
        found = self.watch()
        if found is None or answer.get("over") or not isinstance(answer.get("view"), int):
            return None
        watch, page = found[2]["watch"], answer.get("page")
        if not watch.get("following") or not isinstance(page, str) or answer["view"] == watch.get("seen"):
            return None
        if self.asked_for == answer["view"] and now - self.asked_at < AGAIN_S:
            return None
        return page if page != self.page else None

    async def open(self, page: str) -> list[tuple[str, str, object]]:
        """Open ``page`` at its top, as the router does, and ask for the waiting sections near the viewport."""
        self.page, self.spot, self.later, self.stale_later = page, 0, {}, {}
        opened = await self.client.run(page_hash=self.here())
        return [("page", "", opened)] + [("section", "", view) for view in await self.draw_waiting()]

    def follow_reason(self, answer: dict, now: float) -> str | None:
        """follow.js's followReason."""
        found = self.watch()
        if found is None or answer.get("over") or not isinstance(answer.get("view"), int):
            return None
        watch = found[2]["watch"]
        if not watch.get("following"):
            return None
        if answer["view"] != watch.get("seen"):
            asked_again = self.asked_for == answer["view"] and now - self.asked_at < AGAIN_S
            return None if asked_again else "view"
        values = sidebar_values(self.client.view) or {}
        settings = answer.get("settings") or {}
        differs = (isinstance(answer.get("page"), str) and answer["page"] != self.page) or any(
            name in values and values[name] != value for name, value in settings.items()
        )
        if not differs:
            self.differs_since = None
            return None
        if self.differs_since is None:
            self.differs_since = now
        if now - self.differs_since < AGAIN_S or now - self.asked_at < AGAIN_S:
            return None
        return "behind"

    async def obey(self, view) -> list[tuple[str, str, object]]:
        """What the follow line asked of the browser (follow.js's render)."""
        found = component(view, FOLLOW)
        order = found[2].get("order") if found else None
        if not order or order["id"] in self.done:
            return []
        self.done.add(order["id"])
        if isinstance(order.get("page"), str) and order["page"] != self.page:  # open the page, at its top
            return await self.open(order["page"])
        if order.get("values") and order.get("stored"):  # stored by the line's rerun: the store is set, no commit
            self.counts.stored += 1
            return [("values", found[1], view)]
        if order.get("values"):  # set the store, then commit for the server's pictures
            element, fragment, _ = found
            near = self.near()
            commit = trigger(element, "commit", {"id": order["id"]} | ({"near": near} if near is not None else {}))
            self.counts.commits += 1
            return [("commit", fragment, await self.client.run(fragment=fragment, triggers=commit,
                                                                page_hash=self.here()))]  # fmt: skip
        return []


@dataclass
class Quiet:
    """A window of polls only (nothing changes in the class): what the tabs asked, and the replicas' CPU in it."""

    before: Counts  # the students' counts when the window opened
    after: Counts  # … and when it closed
    teacher_polls: int  # the teacher's timed fragment reruns (its board, its count of who follows)
    cpu_seconds: float  # every replica's CPU in the window
    idle_cpu_seconds: float  # what the replicas burn in as long with nobody connected
    seconds: float
    students: int

    def rows(self, prefix: str, budget_ms: float) -> list[Row]:
        http = self.after.http_polls - self.before.http_polls
        beats = self.after.beats - self.before.beats
        reruns = self.after.reruns - self.before.reruns
        polls = http + beats + reruns + self.teacher_polls
        net = self.cpu_seconds - self.idle_cpu_seconds
        per_poll = 1000 * net / polls if polls else float("nan")
        per_student_second = 1000 * net / (self.students * self.seconds) if self.students else float("nan")
        idle = f"idle {1000 * self.idle_cpu_seconds / max(self.seconds, 1e-9):.0f} ms/s"
        trips = sorted(self.after.poll_seconds[self.before.http_polls : self.after.http_polls])
        p50, p95 = (1000 * trips[int(share * (len(trips) - 1))] for share in (0.5, 0.95)) if trips else (0, 0)
        trip = f"round trip p50 {p50:.0f} ms, p95 {p95:.0f} ms; " if trips else ""
        return [
            Row(
                f"{prefix}: HTTP polls of class/state",
                float(http),
                "",
                None,
                f"in {self.seconds:.0f} s of polls only ({trip}and {beats} heartbeats)",
            ),
            Row(
                f"{prefix}: fragment reruns the polls caused",
                float(reruns),
                "",
                None,
                f"and {self.teacher_polls} timed reruns of the teacher's fragments",
            ),
            Row(
                f"{prefix}: server CPU per student poll",
                per_poll,
                "ms",
                budget_ms,
                f"{polls} polls of any kind, all replicas, less their {idle}",
            ),
            Row(
                f"{prefix}: server CPU per student-second",
                per_student_second,
                "ms",
                None,
                f"{self.students} students; the same CPU ÷ students ÷ seconds",
            ),
            Row(
                f"{prefix}: server CPU per poll, idle CPU included",
                1000 * self.cpu_seconds / polls if polls else float("nan"),
                "ms",
                None,
                idle,
            ),
        ]
