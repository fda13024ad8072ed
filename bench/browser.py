"""``python -m bench.browser [--moves N] [--pages TEXT]``: the app in headless Chromium, timed as a student sees it.

Two figures of issue 5, measured against a fresh ``streamlit run app.py`` (``bench.server.StreamlitServer``) with
Debian's Chromium driven by Playwright, launched as the browser tests launch it:

- **First page drawn after the server is up**: from the moment the server is ready until the home page shows every
  Plotly chart drawn (visible, at its final width) and Streamlit's run has ended (the ``data-test-script-state``
  Streamlit keeps on its root element; the page must then stay so for ``SETTLE_S``, which is not counted). The
  browser is already open, as a student's is. "Ready" is what the hosted set-up waits for before it sends anyone
  to a server: its first ``/_stcore/health`` answer, which ``app.py`` gives only after its warm-up (torch imported,
  caches filled, navigation.py run once). Also reported, as information: how long that warm-up takes, from the
  process start to the first health answer.
- **Slider release → chart drawn**: on a few pages, a slider is dragged with the mouse (down on the thumb, move,
  up) to a new value. The clock starts at the ``pointerup`` event's own timestamp in the page and stops at the first
  animation frame in which every chart fed by that slider shows new data, visible at its final width (the frame
  the browser then paints). Included: the websocket round trip, the server's fragment rerun, Plotly drawing in the
  browser. Each page gets one untimed warm-up move, then ``--moves`` timed ones to values not shown before.

Figures are medians. Run it on an otherwise idle machine: the server, Chromium and this script share the cores.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.budgets import BROWSER_FIRST_PAGE_S, BROWSER_SLIDER_MS, Row
from bench.live import LIVE_CASES, NOT_RUNNING_JS, SIDEBAR_PAGES, LiveCase, live_rows
from bench.report import markdown_table, text_table
from bench.server import StreamlitServer

CHROMIUM = "/usr/bin/chromium"
# Debian's Chromium, launched the same way by the browser tests (tests/browser/conftest.py imports these).
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
VIEWPORT = {"width": 1280, "height": 800}
SERVER_START_S = 120.0  # a cold server on a loaded machine
FIRST_PAGE_TIMEOUT_MS = 120_000  # the first run imports torch: generous, but bounded
PAGE_TIMEOUT_MS = 60_000  # opening one more page on a warm server
MOVE_TIMEOUT_MS = 30_000  # one slider move's rerun and redraw
SLIDER_WAIT_MS = 15_000  # a slider missing for a moment after the page is drawn (see find_slider)
SETTLE_S = 0.5  # a drawn page must stay drawn this long (no new run, no new chart) to count as drawn

FIRST_PAGE_WHAT = "browser: first page drawn after the server is up"
START_WHAT = "browser: server start until ready"
SLIDER_WHAT = "browser: slider release → chart drawn"


@dataclass(frozen=True)
class SliderCase:
    """On page ``path``, drag slider ``slider``; every chart in ``charts`` must then show new data.

    ``charts`` are the ``st.plotly_chart`` keys whose data depends on the slider (a chart that merely reruns with the
    same data would never count as redrawn). Targets are spread over [``low``, ``high``], by default the slider's
    own range; ``low``/``high`` keep a size slider near its default ("default sizes").
    """

    path: str
    slider: str
    charts: tuple[str, ...]
    low: float | None = None
    high: float | None = None


# A server-side slider of each page (most are live charts' sliders now: bench/live.py), and the charts it changes.
CASES = (
    SliderCase("sinusoidal", "sin_sim_row", ("sin_similarity_row_chart",)),
    SliderCase("rope_practice", "rope_partial_fraction", ("rope_partial_chart",)),  # the RoPE page's are all live
    SliderCase("decay", "decay_similarity", ("decay_score_chart",)),
)


# The figures (static/figure.js) under an element, looked for inside the components' shadow roots too.
FIGURES_UNDER = """(root) => {
    const found = [];
    const walk = (node) => {
        found.push(...node.querySelectorAll('.figure-root'));
        for (const el of node.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
    };
    walk(root);
    return found.map((figure) => figure.querySelector('canvas').posencFigure);
}"""

# True once every figure of the page is drawn, nothing is stale and Streamlit's run has ended.
PAGE_DRAWN_JS = f"""() => {{
    if (!document.querySelector('h1')) return false;
    if (document.querySelector('[data-testid="stApp"]')?.dataset.testScriptState !== 'notRunning') return false;
    if (document.querySelector('[data-stale="true"]')) return false;
    const figures = ({FIGURES_UNDER})(document);
    return figures.length > 0 && figures.every((figure) => figure && figure.drawn) ? figures.length : false;
}}"""

# Before a move: remember each chart's figure as the server sent it, and stamp the coming pointerup (the release).
ARM_JS = f"""(keys) => {{
    const charts = {{}};
    for (const key of keys) {{
        const host = document.querySelector(`.st-key-${{key}}`);
        const figure = host && ({FIGURES_UNDER})(host)[0];
        if (!figure) return `no chart with key ${{key}}`;
        charts[key] = {{sent: figure.figure, json: JSON.stringify(figure.figure.data)}};
    }}
    window.__benchMove = {{charts, release: null}};
    window.addEventListener('pointerup', (event) => {{ window.__benchMove.release = event.timeStamp; }},
                            {{capture: true, once: true}});
    return '';
}}"""

# Polled on every animation frame after the release: once every chart shows new data, drawn and visible at its final
# width, [milliseconds since the release, milliseconds until the last websocket message before now]; false until then.
REDRAWN_JS = """(keys) => {
    const FIGURES_UNDER = FIGURES_UNDER_SOURCE;
    const move = window.__benchMove;
    if (!move || move.release === null) return false;
    for (const key of keys) {
        const before = move.charts[key];
        const host = document.querySelector(`.st-key-${key}`);
        const figure = host && FIGURES_UNDER(host)[0];
        if (!figure || !figure.drawn || figure.figure === before.sent) return false;
        if (JSON.stringify(figure.figure.data) === before.json) return false;
    }
    const message = window.__benchLastMessage;
    return [performance.now() - move.release, message > move.release ? message - move.release : null];
}""".replace("FIGURES_UNDER_SOURCE", FIGURES_UNDER)

# Stamps every websocket message the page receives, so a move's time splits into "the server's reply is in" and
# "the browser drew it". Added to the page before Streamlit's own scripts run.
STAMP_MESSAGES_JS = """(() => {
    const Native = window.WebSocket;
    if (!Native || Native.benchStamped) return;
    class Stamped extends Native {
        constructor(...args) {
            super(...args);
            this.addEventListener('message', (event) => { window.__benchLastMessage = event.timeStamp; });
        }
    }
    Stamped.benchStamped = true;
    window.WebSocket = Stamped;
})();"""

# The slider's range and value, its thumb and track on screen (scrolled into view first).
SLIDER_JS = """(key) => {
    const input = document.querySelector(`.st-key-${key} input[type=range]`);
    if (!input) return null;
    input.parentElement.parentElement.scrollIntoView({block: 'center'});
    const thumb = input.parentElement.parentElement.getBoundingClientRect();
    const track = input.parentElement.parentElement.parentElement.getBoundingClientRect();
    return {min: +input.min, max: +input.max, step: +input.step || 1, value: +input.value,
            thumb: {x: thumb.x + thumb.width / 2, y: thumb.y + thumb.height / 2},
            track: {x: track.x, width: track.width}};
}"""

# What the page shows, for an error message: its title, how many charts, the run state, the address.
SHOWN_JS = """() => `"${document.querySelector('h1')?.innerText}", `
    + `${document.querySelectorAll('[data-testid="stPlotlyChart"]').length} charts, `
    + `${document.querySelector('[data-testid="stApp"]')?.dataset.testScriptState}, ${location.pathname}`"""

SLIDER_VALUE_JS = "(key) => +document.querySelector(`.st-key-${key} input[type=range]`).value"


class Unavailable(Exception):
    """The browser benchmark cannot run here (no Chromium, no Playwright, a page or widget is missing)."""


def unavailable() -> str | None:
    """Why the browser benchmark cannot run on this machine, or None."""
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} not found (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "playwright is not installed (pip install -r requirements-dev.txt)"
    return None


def targets(low: float, high: float, step: float, count: int) -> list[float]:
    """``count`` values on the slider's step grid spread over [low, high], in a zig-zag order (far-apart moves)."""
    span = round((high - low) / step)
    values = [low + step * round(span * (i + 0.5) / count) for i in range(count)]
    values = list(dict.fromkeys(values))  # a short range may repeat a value: keep each once
    return values[::2] + values[1::2]


def wait_page_drawn(page, timeout_ms: float) -> tuple[int, float]:
    """Wait until every chart of the page is drawn and the run has ended: (number of charts, ``perf_counter()`` then).

    The page must then stay so for ``SETTLE_S`` (same charts, still not running), or the wait goes on: a page whose
    run ends and another starts (or whose last elements are still coming) is not yet "drawn".
    """
    deadline = time.perf_counter() + timeout_ms / 1000.0
    while True:
        left_ms = max((deadline - time.perf_counter()) * 1000.0, 1.0)
        charts = page.wait_for_function(PAGE_DRAWN_JS, polling="raf", timeout=left_ms).json_value()
        drawn = time.perf_counter()
        page.wait_for_timeout(SETTLE_S * 1000.0)
        if page.evaluate(PAGE_DRAWN_JS) == charts:
            return charts, drawn
        if time.perf_counter() > deadline:
            raise TimeoutError(f"the page did not settle within {timeout_ms / 1000.0:.0f} s")


def find_slider(page, key: str, timeout_ms: float = SLIDER_WAIT_MS) -> dict:
    """Slider ``key``'s range, value and place on screen, waiting for it while the page (re)mounts its widgets.

    Right after a page is drawn, a slider can be missing for a moment (seen now and then on a loaded machine, with
    every chart already drawn): wait for it rather than fail at once.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # playwright is optional for python -m bench

    try:
        return page.wait_for_function(SLIDER_JS, arg=key, polling=100, timeout=timeout_ms).json_value()
    except PlaywrightTimeout as err:
        raise Unavailable(f"no slider with key {key} on a page showing {page.evaluate(SHOWN_JS)}") from err


def drag_to(page, key: str, target: float) -> tuple[float, float]:
    """Drag slider ``key``'s thumb to ``target`` as a user does: mouse down on the thumb, move, release.

    Returns the slider's value before and after.
    """
    slider = find_slider(page, key)
    fraction = (target - slider["min"]) / (slider["max"] - slider["min"])
    x = slider["track"]["x"] + slider["track"]["width"] * min(max(fraction, 0.0), 1.0)
    y = slider["thumb"]["y"]
    page.mouse.move(slider["thumb"]["x"], y)
    page.mouse.down()
    page.mouse.move(x, y, steps=4)
    page.mouse.up()
    return slider["value"], page.evaluate(SLIDER_VALUE_JS, key)


@dataclass(frozen=True)
class Timed:
    """One timed move: release → charts drawn, and release → the last server message received before that."""

    drawn_ms: float
    reply_ms: float | None


def time_moves(page, case: SliderCase, moves: int, warmup: int) -> list[Timed]:
    """Each timed move of ``case`` (the warm-up moves are not returned)."""
    slider = find_slider(page, case.slider)
    low = slider["min"] if case.low is None else case.low
    high = slider["max"] if case.high is None else case.high
    values = [v for v in targets(low, high, slider["step"], warmup + moves + 1) if v != slider["value"]]
    times: list[Timed] = []
    for number, target in enumerate(values[: warmup + moves]):
        problem = page.evaluate(ARM_JS, list(case.charts))
        if problem:
            raise Unavailable(problem)
        before, after = drag_to(page, case.slider, target)
        if after == before:  # the drag did not change the value: no rerun to wait for
            continue
        result = page.wait_for_function(REDRAWN_JS, arg=list(case.charts), polling="raf", timeout=MOVE_TIMEOUT_MS)
        drawn_ms, reply_ms = result.json_value()
        if number >= warmup:
            times.append(Timed(float(drawn_ms), None if reply_ms is None else float(reply_ms)))
        # the next move starts once this rerun has ended (its other elements too)
        page.wait_for_function(NOT_RUNNING_JS, polling="raf", timeout=MOVE_TIMEOUT_MS)
    return times


def slider_note(times: list[Timed], what: str) -> str:
    """The spread of the moves, and how much of the median move was the server's reply."""
    drawn = [t.drawn_ms for t in times]
    replies = [t.reply_ms for t in times if t.reply_ms is not None]
    reply = (
        f"; server's reply in by {statistics.median(replies):.0f} ms (median), the rest is drawing" if replies else ""
    )
    return f"{len(times)} move{'s' * (len(times) > 1)} of {what} ({min(drawn):.0f}–{max(drawn):.0f} ms){reply}"


def first_line(err: BaseException) -> str:
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0] if text else ''}"[:160]


def measure(
    browser,
    cases: tuple[SliderCase, ...],
    moves: int,
    warmup: int,
    live_cases: tuple[LiveCase, ...] = (),
    sidebar_pages: tuple[str, ...] = (),
) -> list[Row]:
    """Start a server, time its first page in ``browser``, then every slider case; the server is always stopped."""
    rows: list[Row] = []
    context = browser.new_context(viewport=VIEWPORT)
    context.add_init_script(STAMP_MESSAGES_JS)
    server = StreamlitServer(startup_timeout=SERVER_START_S)
    try:
        page = context.new_page()
        page.set_default_timeout(PAGE_TIMEOUT_MS)
        started = time.perf_counter()
        server.start()  # returns at the first /_stcore/health answer, which app.py gives only once warmed up
        ready = time.perf_counter()
        rows.append(Row(START_WHAT, ready - started, "s", None, "process start → first health answer (warm-up)"))
        page.goto(f"{server.url}/", timeout=FIRST_PAGE_TIMEOUT_MS)
        charts, drawn = wait_page_drawn(page, FIRST_PAGE_TIMEOUT_MS)
        note = f"home, {charts} charts; up = the first health answer, nothing run before; Chromium {browser.version}"
        rows.append(Row(FIRST_PAGE_WHAT, drawn - ready, "s", BROWSER_FIRST_PAGE_S, note))
        every: list[Timed] = []
        measured = 0
        for case in cases:
            what = f"{SLIDER_WHAT}, {case.path}"
            try:
                opened = time.perf_counter()
                page.goto(f"{server.url}/{case.path}")
                opened = wait_page_drawn(page, PAGE_TIMEOUT_MS)[1] - opened
                times = time_moves(page, case, moves, warmup)
            except Exception as err:  # one page failing must not lose the others' figures
                rows.append(Row(what, float("nan"), "ms", None, f"error: {first_line(err)}"))
                continue
            if not times:
                rows.append(Row(what, float("nan"), "ms", None, f"error: no move of {case.slider} changed its value"))
                continue
            every += times
            measured += 1
            note = f"{slider_note(times, case.slider)}; page drawn {opened:.1f} s after opening"
            rows.append(Row(what, statistics.median(t.drawn_ms for t in times), "ms", BROWSER_SLIDER_MS, note))
        if measured > 1:
            note = slider_note(every, f"{measured} sliders")
            rows.append(Row(f"{SLIDER_WHAT}, all pages", statistics.median(t.drawn_ms for t in every), "ms",
                            BROWSER_SLIDER_MS, note))  # fmt: skip
        if live_cases or sidebar_pages:
            try:
                rows += live_rows(page, server.url, live_cases, sidebar_pages)
            except Exception as err:  # the other figures stay reported
                rows.append(Row("browser: live charts", float("nan"), "ms", None, f"error: {first_line(err)}"))
    finally:
        server.stop()
        context.close()
    return rows


def in_chromium(measure: Callable[[Any], list[Row]], browser=None, what: str = FIRST_PAGE_WHAT, unit: str = "s"):
    """``measure(browser)``'s rows, in ``browser`` (the tests pass theirs) or in a Chromium launched and closed here;
    one "skipped" row named ``what`` with the reason instead when Chromium cannot run or the measurement fails: a
    benchmark never crashes."""
    reason = unavailable()
    if reason:
        return [Row(what, float("nan"), unit, None, f"skipped: {reason}")]
    try:
        if browser is not None:
            return measure(browser)
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=60_000)
            try:
                return measure(launched)
            finally:
                launched.close()
    except Exception as err:  # never crash the benchmark: report why there is no figure
        return [Row(what, float("nan"), unit, None, f"skipped: {first_line(err)}")]


def browser_rows(moves: int = 8, warmup: int = 1, only: str | None = None, browser=None) -> list[Row]:
    """The browser figures as report rows; a single "skipped"/"error" row instead when they cannot be measured.

    ``only`` keeps the slider pages whose path contains it (the first page is always measured). ``browser``: a
    Playwright Browser to use (the tests pass theirs); by default Chromium is launched here and closed afterwards.
    """
    cases = tuple(case for case in CASES if only is None or only in f"pages/{case.path}.py")
    live_cases = tuple(case for case in LIVE_CASES if only is None or only in f"pages/{case.path}.py")
    sidebar_pages = tuple(path for path in SIDEBAR_PAGES if only is None or only in f"pages/{path}.py")
    return in_chromium(lambda chromium: measure(chromium, cases, moves, warmup, live_cases, sidebar_pages), browser)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.browser", description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=8, help="timed slider moves per page, after one warm-up (8)")
    parser.add_argument("--pages", metavar="TEXT", help="only slider pages whose path contains TEXT (e.g. rope)")
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown")
    parser.add_argument("--no-first-visit", action="store_true", help="leave out bench.first_visit's figures")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    started = time.perf_counter()
    rows = browser_rows(moves=max(args.moves, 1), only=args.pages)
    if not args.no_first_visit:
        from bench.first_visit import first_visit_rows

        rows += first_visit_rows()  # through the shipped proxy: first and second visit, fast 3G, a class arriving
    print(markdown_table(rows) if args.markdown else text_table(rows))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"\nrun in {time.perf_counter() - started:.0f} s on {platform.machine()}, {os.cpu_count()} CPUs, "
        f"load average {load:.1f} at the end; server, Chromium ({shutil.which('chromium') or CHROMIUM}) and this "
        "script share the machine. Times are medians."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
