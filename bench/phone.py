"""``python -m bench.phone``: dragging the sidebar's shared controls on a student's phone (issue 35).

Each topic page is opened in Chromium as a phone (390×844, touch, mobile) with its CPU slowed 4× (DevTools'
``Emulation.setCPUThrottlingRate``, as Lighthouse emulates a mid-range phone). For every shared control of the
sidebar (``static/shared_controls.js``) the thumb is moved ``--steps`` times, one step per animation frame, as a
finger delivers a drag, and nothing is released in between. Measured per step, in the page's own clock (so the
throttle counts):

- **work per drag frame**: the `input` event's handlers (the store, the sidebar's read-out) plus every
  ``requestAnimationFrame`` callback of the frame that follows (each live picture redrawn from the store: the twins'
  arithmetic, the canvas, the SVG axes). The browser's own style, layout and paint after the scripts are not in it.
  Budget: ≤ 16 ms, one frame of a 60 Hz screen (``PHONE_FRAME_MS``); the table gives the median and the slowest
  frame of each control, and which page's control is the heaviest;
- **websocket frames while held**: messages the page sent before the release (0: the browser draws alone).

A page is measured at its top, as a student opens it; ``PAGE@KEY`` measures it scrolled to the element keyed KEY
(e.g. ``sinusoidal@sin_waves_chart``: with the figures that follow the store on screen, so they redraw every step).

Nothing is timed in the tests (``tests/test_bench_phone.py`` only checks that rows come out).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import time

from bench.browser import CHROMIUM, CHROMIUM_ARGS, unavailable, wait_page_drawn
from bench.budgets import LIVE_MESSAGES_PER_STEP, PHONE_FRAME_MS, Row
from bench.live import SHARED_INPUT_JS, SIDEBAR_NAMES_JS
from bench.report import markdown_table, text_table
from bench.server import StreamlitServer

PAGES = ("sinusoidal", "relative", "rope", "decay", "relative_scores", "rope_practice")  # bench.scenarios.TOPIC_PAGES
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 3}
THROTTLE = 4  # Chromium's CPU slow-down: a mid-range phone
PAGE_TIMEOUT_MS = 180_000

# Before any page script: time every requestAnimationFrame callback, summed per frame (its timestamp).
FRAME_CLOCK_JS = """
(() => {
  const frames = new Map();
  const original = window.requestAnimationFrame.bind(window);
  window.__posencFrames = frames;
  window.__posencRaf = original;
  window.requestAnimationFrame = (callback) => original((stamp) => {
    const started = performance.now();
    try { callback(stamp); } finally { frames.set(stamp, (frames.get(stamp) ?? 0) + performance.now() - started); }
  });
})();
"""

# Move the sidebar control `name` `steps` times (away from its end, then back), one step per frame; per step the
# input handlers' time plus the following frame's callbacks (ours is registered last, so it runs after them).
DRAG_JS = """
async ([name, steps]) => {
  const input = [...document.querySelectorAll('*')].map((el) => el.shadowRoot?.getElementById(`shared-${name}`))
    .find(Boolean) ?? document.getElementById(`shared-${name}`);
  if (!input) return null;
  const low = Number(input.min), high = Number(input.max), step = Number(input.step) || 1;
  const up = Number(input.value) + step * steps <= high;
  const work = [];
  for (let k = 0; k < steps; k++) {
    const started = performance.now();
    input.value = String(Number(input.value) + (up ? step : -step));
    input.dispatchEvent(new Event("input", { bubbles: true }));
    const handlers = performance.now() - started;
    const stamp = await new Promise((done) => window.__posencRaf(done));
    work.push(handlers + (window.__posencFrames.get(stamp) ?? 0));
  }
  return { work, low, high };
}
"""


def controls_on(page) -> list[str]:
    """The shared controls the page's sidebar shows (their names)."""
    return page.evaluate(SIDEBAR_NAMES_JS)


def measure_page(browser, url: str, path: str, steps: int) -> list[tuple[str, list[float], int]]:
    """(control, work per step in ms, websocket frames sent while held) for each shared control of ``path``."""
    path, _, at = path.partition("@")  # PAGE@KEY: scrolled to the element keyed KEY
    context = browser.new_context(**PHONE)
    context.add_init_script(FRAME_CLOCK_JS)
    page = context.new_page()
    try:
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        sent: list[int] = []
        cdp.on("Network.webSocketFrameSent", lambda event: sent.append(1))
        page.goto(f"{url}/{path}", timeout=PAGE_TIMEOUT_MS)
        wait_page_drawn(page, PAGE_TIMEOUT_MS)
        if at:
            page.locator(f".st-key-{at}").first.scroll_into_view_if_needed()
            page.wait_for_timeout(1500)  # what comes into view draws first
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": THROTTLE})  # after the load: a phone that has the page
        results = []
        for name in controls_on(page):
            before = len(sent)
            done = page.evaluate(DRAG_JS, [name, steps])
            held = len(sent) - before
            if done:
                results.append((name, done["work"], held))
            page.evaluate(  # let go: the commit, then a quiet moment before the next control
                f"(name) => ({SHARED_INPUT_JS})(name)?.dispatchEvent(new Event('change', {{ bubbles: true }}))", name
            )
            page.wait_for_timeout(3000)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": 1})
        return results
    finally:
        context.close()


def phone_rows(pages: tuple[str, ...] = PAGES, steps: int = 30, browser=None, url: str | None = None) -> list[Row]:
    """One row per page and shared control (median work per drag frame, slowest in the note), and the heaviest.
    ``browser``: a Playwright Browser to use (the tests pass theirs); ``url``: a running server (else one starts)."""
    reason = unavailable()
    if reason:
        return [Row("phone: work per drag frame", float("nan"), "ms", PHONE_FRAME_MS, f"skipped: {reason}")]
    with contextlib.ExitStack() as stack:
        if url is None:
            url = stack.enter_context(StreamlitServer()).url
        if browser is None:
            from playwright.sync_api import sync_playwright

            playwright = stack.enter_context(sync_playwright())
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            stack.callback(browser.close)
        return _rows(browser, url.rstrip("/"), pages, steps)


def _rows(browser, url: str, pages: tuple[str, ...], steps: int) -> list[Row]:
    rows: list[Row] = []
    worst: tuple[float, str] = (0.0, "")
    for path in pages:
        for name, work, held in measure_page(browser, url, path, steps):
            median, slowest = statistics.median(work), max(work)
            note = f"{len(work)} steps at {THROTTLE}× CPU throttle; slowest frame {slowest:.1f} ms"
            rows.append(Row(f"phone: {path}, sidebar {name}, work per drag frame (median)", median, "ms",
                            PHONE_FRAME_MS, note))  # fmt: skip
            rows.append(Row(f"phone: {path}, sidebar {name}, websocket frames while held", held, "",
                            LIVE_MESSAGES_PER_STEP, f"over {len(work)} steps"))  # fmt: skip
            worst = max(worst, (median, f"{path}, {name}"))
    if worst[1]:
        rows.append(Row("phone: the heaviest control's median drag frame", worst[0], "ms", PHONE_FRAME_MS, worst[1]))
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.phone", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    parser.add_argument("--pages", nargs="+", default=list(PAGES),
                        help="topic pages by url path; PAGE@KEY: scrolled to the element keyed KEY")  # fmt: skip
    parser.add_argument("--steps", type=int, default=30, help="drag steps per control (one per frame)")
    parser.add_argument("--url", help="measure a server that is already running (default: start one)")
    parser.add_argument("--markdown", action="store_true", help="print the table as markdown")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows = phone_rows(tuple(args.pages), max(args.steps, 2), url=args.url)
    print(markdown_table(rows) if args.markdown else text_table(rows))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\nrun in {time.perf_counter() - started:.0f} s; load average {load:.1f} at the end (server and Chromium "
          "share the machine).")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
