"""Server time and figure bytes of a rerun after a widget move, measured in-process with Streamlit's AppTest.

What is timed: ``AppTest.run()`` after one widget changed — the whole script (navigation.py, the page)
runs in AppTest's script thread and every element is serialised to its protobuf, as a real server does before
sending. AppTest's own overhead (a fresh mock runtime per run, polling for the end every 1 ms, parsing the
element tree) is included. Not included: the websocket, the browser drawing, and (because AppTest always reruns
the whole script) the saving from ``st.fragment`` sections, which the real server gets. Figure bytes are the
sum of ``len(spec)`` of every ``st.plotly_chart`` the rerun sent.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path

from streamlit.testing.v1 import AppTest

from bench.page_cases import Move, PageCase
from ui.component_data import sent_size

ROOT = Path(__file__).resolve().parents[1]


class PageUnavailable(Exception):
    """The page does not exist or does not render; it is reported and skipped."""


@dataclass(frozen=True)
class MoveResult:
    key: str
    times_ms: tuple[float, ...]  # each timed rerun
    max_kb: float  # the largest figure payload of the timed reruns

    @property
    def median_ms(self) -> float:
        return statistics.median(self.times_ms)


def open_page(path: str, state: dict | None = None) -> AppTest:
    """An AppTest that ran navigation.py and switched to ``path`` with ``state`` preset (as tests/conftest.py does)."""
    if not (ROOT / path).exists():
        raise PageUnavailable(f"{path} does not exist")
    at = AppTest.from_file(str(ROOT / "navigation.py"), default_timeout=120)
    for key, value in (state or {}).items():
        at.session_state[key] = value
    at.run()
    if path != "pages/home.py":
        try:
            at.switch_page(path).run()
        except ValueError as err:  # not in navigation.py's navigation (yet)
            raise PageUnavailable(f"{path} is not in navigation.py's navigation") from err
    if at.exception:
        raise PageUnavailable(f"{path} raised: {at.exception[0].message}")
    return at


def figure_kb(at: AppTest) -> float:
    """Figures' and live charts' data sent by the last run (every browser element's JSON), in kB (1 kB = 1000 B)."""
    return sum(sent_size(element.proto) for element in at.get("bidi_component")) / 1000.0


def _release(at: AppTest, move: Move, value) -> None:
    """A live chart's slider let go at ``value`` (key "chart:control"), as ui.live.live_chart keeps it."""
    chart, control = move.key.split(":")
    try:
        kept = dict(at.session_state[f"{chart}__values"])
    except KeyError:
        kept = {}
    at.session_state[f"{chart}__values"] = kept | {control: value}


def _widget(at: AppTest, move: Move):
    found = [w for w in at.get(move.kind) if getattr(w, "key", None) == move.key]
    if not found:
        raise PageUnavailable(f"no {move.kind} with key {move.key!r}")
    return found[0]


def time_move(at: AppTest, move: Move, largest: bool, count: int) -> MoveResult:
    """Set the widget to ``count`` of its values in turn; the first rerun is a warm-up, the rest are timed."""
    values = move.values_at(largest)[:count]
    times, sizes = [], []
    for number, value in enumerate(values):
        if move.kind == "live":
            _release(at, move, value)
        elif move.kind == "shared":  # the sidebar's browser slider let go: its commit (ui.shared)
            at.session_state["shared_commit"] = {move.key: value}
        else:
            _widget(at, move).set_value(value)
        start = time.perf_counter()
        at.run()
        elapsed = time.perf_counter() - start
        if at.exception:
            raise PageUnavailable(f"{move.key}={value!r} raised: {at.exception[0].message}")
        if number > 0:
            times.append(elapsed * 1000.0)
            sizes.append(figure_kb(at))
    return MoveResult(move.key, tuple(times), max(sizes))


def page_results(case: PageCase, largest: bool, quick: bool, count: int) -> list[MoveResult]:
    """Every move of the page (only the first with ``quick``), in one session, at default or largest sizes."""
    at = open_page(case.path, case.max_state if largest else None)
    moves = case.moves[:1] if quick else case.moves
    return [time_move(at, move, largest, count) for move in moves]
