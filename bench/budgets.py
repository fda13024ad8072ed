"""The budgets of issue 5, in one place: each measured figure is printed beside its limit."""

from __future__ import annotations

from dataclasses import dataclass

RERUN_MS_DEFAULT = 25.0  # median server time of a rerun after a slider move, default sizes
RERUN_MS_MAX = 60.0  # … at the largest allowed sizes
FIGURE_KB_DEFAULT = 250.0  # Plotly figure JSON sent per rerun, default sizes
FIGURE_KB_MAX = 1500.0  # … at the largest allowed sizes
SINUSOIDAL_MS = 50.0  # sinusoidal(8192, 2048)
LOAD_P95_MS = 500.0  # 100 simulated students on one server
TOY_ANSWER_MS = 50.0  # the toy transformer: one answer with its attention maps, server time
BROWSER_SLIDER_MS = 300.0  # headless Chromium: slider release → the updated chart drawn, median, default sizes
BROWSER_FIRST_PAGE_S = 3.0  # headless Chromium: the first page fully drawn after the server is up
FIRST_VISIT_MB = 1.2  # a first visit through the shipped proxy (empty cache): everything, websocket too (issue 35)
SECOND_VISIT_KB = 100.0  # the same page again in the same browser (its cache kept)
FAST_3G_FIRST_PAGE_S = 8.0  # a first visit on Chromium's emulated fast 3G (1.44 Mbit/s, 562.5 ms): page drawn
FAST_3G_150_MS_FIRST_PAGE_S = 10.0  # issue 35's fast 3G (1.6 Mbit/s down, 150 ms round trip): a first page drawn
# Issue 14, live charts in headless Chromium:
LIVE_FRAME_MS = 1000 / 30  # while a live slider is dragged: ms per redrawn picture (issue 35: ≥ 30 updates a second)
LIVE_MESSAGES_PER_STEP = 0.0  # websocket messages the page sends per drag step
LIVE_SETTLED_MS = 100.0  # release → the released value's picture on screen
LIVE_COMMITTED_MS = 100.0  # issue 35: release → committed (the server's run ended, or its HTTP commit answered), idle
LIVE_RELEASE_BYTES = 50_000  # bytes received per release
LIVE_SCRIPT_BYTES = 1_500_000  # the drawing code a first visit downloads beyond Streamlit's own
PHONE_FRAME_MS = 16.0  # a phone (Chromium's 4× CPU throttle) dragging a sidebar control: script work per frame
# Issue 25, a class of 100 through the shipped 2-replica nginx set-up, one client address (bench.load --scenario):
EXPLORING_P50_MS = 150.0  # every student's own values: median shared-control rerun
EXPLORING_P95_MS = 1000.0  # … and its 95th percentile
CONVERGING_P95_MS = 250.0  # the teacher's values
CPU_NEW_RERUN_MS = 10.0  # server CPU per shared-control move (all replicas' CPU ÷ moves), exploring (issue 35)
CPU_CACHED_RERUN_MS = 10.0  # … converging
SHARED_RELEASE_BYTES = 50_000  # bytes a shared-control release brings back, mean
RSS_BEFORE_MB = 900.0  # each replica's resident memory after the exploring class before issue 25 (reference)
RSS_TOGETHER_MB = 1000.0  # issue 35: two replicas' resident memory under the exploring class, together, at most
# Issue 36, a class following its teacher (bench.load --scenario follow, the 2-replica nginx set-up):
FOLLOW_P95_S = 2.0  # the teacher's change (a step or a value) → a student's page showing it, 95th percentile
FOLLOW_CPU_PER_POLL_MS = 5.0  # server CPU per student poll (all replicas' CPU in a window of polls only ÷ polls)


@dataclass(frozen=True)
class Row:
    """One line of the report: what was measured, the value, its unit and the limit it must stay under (or None)."""

    what: str
    value: float
    unit: str
    limit: float | None
    note: str = ""

    @property
    def verdict(self) -> str:
        if self.limit is None:
            return "info"
        return "PASS" if self.value <= self.limit else "FAIL"
