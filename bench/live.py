"""The live charts in headless Chromium (issue 14): how fast the picture follows a dragged slider, and what crosses
the network for it. Rows of ``python -m bench.browser``.

For each case a live slider is dragged as the browser delivers a drag: ``STEPS`` `input` events, one per animation
frame, then the release (`change`). (Playwright's own mouse moves arrive about every 80 ms here, slower than a
hand, so they would measure the driver, not the page.) Measured:

- **ms per update while dragging**: the drag's length (first to last `input` event, in the page's clock) over the
  pictures painted in it (``posencLive.draws``); ≤ 33.3 ms is ≥ 30 updates per second (issue 35);
- **server messages per drag step**: websocket frames the page sent before the release, over the steps (0: the
  browser draws alone);
- **release → committed**: until the release's run on the server ended, or its commit over HTTP answered
  (``ui.commit_http``): ≤ 100 ms on an idle server (issue 35);
- **release → settled picture**: until the released value's picture is on screen (0: it was drawn live, before the
  release);
- **bytes per release**: bytes received from the release until the page's rerun has ended (websocket frames), or its
  commit over HTTP (ui.commit_http) has answered (the answer's body);
- **live.js**: the drawing code, downloaded once (Streamlit's static serving sends it uncompressed, with an ETag).
"""

from __future__ import annotations

import time
import urllib.request
from dataclasses import dataclass

from bench.budgets import (
    LIVE_COMMITTED_MS,
    LIVE_FRAME_MS,
    LIVE_MESSAGES_PER_STEP,
    LIVE_RELEASE_BYTES,
    LIVE_SCRIPT_BYTES,
    LIVE_SETTLED_MS,
    Row,
)

STEPS = 60  # drag steps, one animation frame apart
# Streamlit's own record of the script run on the app's root element: "initial" before the first run, then
# "running" / "rerunRequested" / "notRunning". (Its status widget is no signal: it appears only after 500 ms.)
NOT_RUNNING_JS = """() => document.querySelector('[data-testid="stApp"]')?.dataset.testScriptState === 'notRunning'"""
LIVE_JS = "input => input.closest('.live').querySelector('canvas').posencLive"


@dataclass(frozen=True)
class LiveCase:
    """On page ``path``, drag the live slider ``control`` across ``share`` of its range, away from where it is."""

    path: str
    chart: str  # the chart's name in the report
    control: str
    share: float = 0.4
    index: int = 0  # which live chart of the page, in page order


LIVE_CASES = (
    LiveCase("sinusoidal", "table", "base"),
    LiveCase("sinusoidal", "table", "dim"),
    LiveCase("sinusoidal", "table", "length", 0.1),
    LiveCase("sinusoidal", "PE·PEᵀ", "base", index=1),
    LiveCase("sinusoidal", "PE·PEᵀ", "dim", index=1),
    LiveCase("sinusoidal", "PE·PEᵀ", "length", 0.1, index=1),
    LiveCase("sinusoidal", "why not 0, 1, 2", "short", index=2),
    LiveCase("sinusoidal", "add vs concat", "dim", index=3),
    LiveCase("decay", "bound", "base"),
    LiveCase("decay", "bound", "dim"),
    LiveCase("decay", "bound", "max_distance"),
    LiveCase("decay", "context extension", "factor", index=1),
    LiveCase("decay", "context extension", "train", index=1),
    LiveCase("rope", "pair in the plane", "m"),
    LiveCase("rope", "pair in the plane", "base"),
    LiveCase("rope", "score vs shift", "shift", index=1),
    LiveCase("rope", "clocks", "position", 0.2, index=2),
    LiveCase("rope", "half vs interleaved", "offset", index=3),
    LiveCase("relative", "Shaw", "k"),
    LiveCase("relative", "T5", "max_distance", index=1),
    LiveCase("relative", "ALiBi", "heads", index=2),
    LiveCase("relative_scores", "DeBERTa δ", "k"),
)

# A drag as the browser delivers it: one `input` event per animation frame (the most a screen shows), the thumb
# moving one slider step after another, then the release (`change`). Returns what the page saw.
DRAG_JS = f"""async (input, [steps, share]) => {{
    const live = ({LIVE_JS})(input);
    const low = Number(input.min), high = Number(input.max), from = Number(input.value);
    const to = from - low > (high - low) / 2 ? from - share * (high - low) : from + share * (high - low);
    const before = {{draws: live.draws, updates: live.updates}};
    const inputs = [];
    for (let k = 1; k <= steps; k++) {{
        input.value = Math.round(from + (to - from) * k / steps);
        input.dispatchEvent(new Event('input', {{bubbles: true}}));
        inputs.push(performance.now());
        await new Promise((frame) => requestAnimationFrame(frame));
    }}
    window.__benchLive = {{updates: before.updates}};
    return {{draws: live.draws - before.draws, span: inputs[inputs.length - 1] - inputs[0], steps: inputs.length}};
}}"""
RELEASE_JS = """input => {
    window.__benchLive.release = performance.now();
    input.dispatchEvent(new Event('change', {bubbles: true}));
}"""


def drag(page, case: LiveCase, sent: list[float] | None = None, finished: list[float] | None = None) -> dict:
    """One drag of the live slider and its release; what the page saw of it. ``sent``: the times of the websocket
    frames the page sends (appended as they go), to count those sent during the drag itself; ``finished``: the times
    the server's runs ended (its script_finished frames), to time the release's."""
    sent = sent if sent is not None else []
    finished = finished if finished is not None else []
    handle = page.locator(".live").nth(case.index).locator(f"input[name={case.control}]").element_handle()
    settle_in_view(page, handle)
    started = time.perf_counter()
    during = handle.evaluate(DRAG_JS, [STEPS, case.share])
    during["sent"] = sum(1 for at in sent if at >= started)
    released = time.perf_counter()
    handle.evaluate(RELEASE_JS)
    # the released value's picture: drawn live, at the latest in the first frame after the release
    page.wait_for_function(
        f"input => {{ const live = ({LIVE_JS})(input); return JSON.stringify(live.drawnFor) === "
        "JSON.stringify(live.values); }",
        arg=handle,
    )
    settled = handle.evaluate(f"input => ({LIVE_JS})(input).drawnAt - window.__benchLive.release")
    # the release's run on the server (the chart's section, or only the parts of the page that compute from a shared
    # value it moved: ui.sections) has ended, or its commit over HTTP answered: the release is committed
    round_trip = wait_committed(page, released, finished)
    return {"during": during, "settled_ms": max(0.0, settled), "round_trip_ms": round_trip, "released": released}


# The sidebar's shared controls (static/shared_controls.js) of every topic page (bench.scenarios.TOPIC_PAGES)
SIDEBAR_PAGES = ("sinusoidal", "relative", "rope", "decay", "relative_scores", "rope_practice")
SHARED_INPUT_JS = """(name) => [...document.querySelectorAll('*')].map((el) => el.shadowRoot?.getElementById(
    `shared-${name}`)).find(Boolean)"""
SIDEBAR_NAMES_JS = """() => [...document.querySelectorAll('*')].flatMap((el) => el.shadowRoot
    ? [...el.shadowRoot.querySelectorAll('input[type=range][id^="shared-"]')] : []).map((input) => input.name)"""
# A finger or mouse on a sidebar control: down, ``steps`` moves one a frame across ``share`` of the range, then let go.
SIDEBAR_DRAG_JS = f"""async ([name, steps, share]) => {{
    const input = ({SHARED_INPUT_JS})(name);
    const low = Number(input.min), high = Number(input.max), from = Number(input.value);
    const to = from - low > (high - low) / 2 ? from - share * (high - low) : from + share * (high - low);
    input.dispatchEvent(new PointerEvent('pointerdown', {{bubbles: true}}));
    for (let k = 1; k <= steps; k++) {{
        input.value = from + (to - from) * k / steps;  // the input snaps it to its step
        input.dispatchEvent(new Event('input', {{bubbles: true}}));
        await new Promise((frame) => requestAnimationFrame(frame));
    }}
}}"""
SIDEBAR_RELEASE_JS = f"""(name) => {{
    const input = ({SHARED_INPUT_JS})(name);
    input.dispatchEvent(new PointerEvent('pointerup', {{bubbles: true}}));
    input.dispatchEvent(new Event('change', {{bubbles: true}}));
}}"""


def settle_in_view(page, handle) -> None:
    """Bring the slider into view, as a student does before dragging it, and let the page settle: the stale sections
    the scroll brings near are asked for (static/sections.js, after 60 ms) and drawn before the drag starts."""
    handle.scroll_into_view_if_needed()
    page.wait_for_timeout(250)
    page.wait_for_function(NOT_RUNNING_JS)
    page.wait_for_timeout(100)
    page.wait_for_function(NOT_RUNNING_JS)


def wait_committed(page, released: float, finished: list[float]) -> float:
    """Milliseconds from ``released`` (perf_counter) until the release's run ended on the server, or its commit over
    HTTP answered (``finished``: the times of either, appended as they come); NaN after 30 s. Then waits for the page's
    rerun to end."""
    deadline = time.perf_counter() + 30
    while not any(at >= released for at in finished) and time.perf_counter() < deadline:
        page.wait_for_timeout(5)
    ended = next((at for at in finished if at >= released), float("nan"))
    page.wait_for_function(NOT_RUNNING_JS)
    return (ended - released) * 1000


def run_ended(payload) -> bool:
    """Whether a websocket frame the page received is the end of a server run (not one ended early for another)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    if not isinstance(payload, bytes):
        return False
    message = ForwardMsg.FromString(payload)
    return message.WhichOneof("type") == "script_finished" and message.script_finished in (
        ForwardMsg.FINISHED_SUCCESSFULLY,
        ForwardMsg.FINISHED_FRAGMENT_RUN_SUCCESSFULLY,
    )


def heartbeat(payload) -> bool:
    """Whether a websocket message the page sent is Streamlit's heartbeat."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    return isinstance(payload, bytes) and BackMsg.FromString(payload).WhichOneof("type") == "app_heartbeat"


def live_rows(
    page, url: str, cases: tuple[LiveCase, ...] = LIVE_CASES, sidebar_pages: tuple[str, ...] = SIDEBAR_PAGES
) -> list[Row]:
    """The live-chart rows: one drag per case (after one untimed warm-up drag per page); then, on each of
    ``sidebar_pages`` opened at its top, one drag of each of the sidebar's shared controls."""
    frames_sent: list[float] = []
    frames_received: list[tuple[float, int]] = []
    runs_ended: list[float] = []

    def received(payload) -> None:
        frames_received.append((time.perf_counter(), len(payload)))
        if run_ended(payload):
            runs_ended.append(frames_received[-1][0])

    def watch(socket) -> None:  # the frontend's heartbeats (the tab is alive) are not requests of the drag
        socket.on("framesent", lambda payload: None if heartbeat(payload) else frames_sent.append(time.perf_counter()))
        socket.on("framereceived", received)

    def answered(response) -> None:  # a commit over HTTP (ui.commit_http): the release's answer when no script runs
        if response.url.endswith("/shared/commit") and response.status == 200:
            frames_received.append((time.perf_counter(), int(response.headers.get("content-length") or 0)))
            runs_ended.append(frames_received[-1][0])

    page.on("websocket", watch)
    page.on("response", answered)
    rows: list[Row] = []
    opened = None
    for case in cases:
        if opened != case.path:
            page.goto(f"{url}/{case.path}")
            page.locator(f".live input[name={case.control}]").first.wait_for(timeout=60_000)
            page.wait_for_function(NOT_RUNNING_JS)
            drag(page, case)  # untimed warm-up
            opened = case.path
        seen = drag(page, case, frames_sent, runs_ended)
        draws, span, steps = seen["during"]["draws"], seen["during"]["span"], seen["during"]["steps"]
        released_bytes = sum(size for at, size in frames_received if at >= seen["released"])
        what = f"browser: live {case.path} {case.chart} {case.control}"
        rows.append(Row(f"{what}, ms per update while dragging", span / max(draws, 1), "ms", LIVE_FRAME_MS,
                        f"{draws} pictures, {steps} drag steps (one a frame), {span:.0f} ms"))  # fmt: skip
        sent = seen["during"]["sent"]
        rows.append(Row(f"{what}, server messages per drag step", sent / steps, "", LIVE_MESSAGES_PER_STEP,
                        f"{sent} websocket messages sent during the drag (the release then sends one)"))  # fmt: skip
        rows.append(Row(f"{what}, release → settled picture", seen["settled_ms"], "ms", LIVE_SETTLED_MS,
                        "the released value's picture, drawn in the browser (0: on screen at release)"))  # fmt: skip
        rows.append(Row(f"{what}, release → committed", seen["round_trip_ms"], "ms", LIVE_COMMITTED_MS,
                        "until the server's run for it ended, or its commit over HTTP answered: the rest of the "
                        "page, the sidebar and the link follow"))  # fmt: skip
        rows.append(Row(f"{what}, bytes per release", released_bytes / 1000, "kB", LIVE_RELEASE_BYTES / 1000,
                        "bytes received from the release until the page's rerun ended: websocket frames and a "
                        "commit's HTTP answer"))  # fmt: skip
    for path in sidebar_pages:
        page.goto(f"{url}/{path}")
        page.locator(".shared-controls input").first.wait_for(timeout=60_000)
        page.wait_for_function(NOT_RUNNING_JS)
        page.wait_for_timeout(500)
        for name in page.evaluate(SIDEBAR_NAMES_JS):
            started = time.perf_counter()
            page.evaluate(SIDEBAR_DRAG_JS, [name, STEPS // 2, 0.3])
            sent = sum(1 for at in frames_sent if at >= started)
            released = time.perf_counter()
            page.evaluate(SIDEBAR_RELEASE_JS, name)
            round_trip = wait_committed(page, released, runs_ended)
            released_bytes = sum(size for at, size in frames_received if at >= released)
            page.wait_for_timeout(300)  # the stale sections it left are asked for once near: not this release's
            what = f"browser: sidebar {path} {name}"
            rows.append(Row(f"{what}, server messages per drag step", sent / (STEPS // 2), "", LIVE_MESSAGES_PER_STEP,
                            f"{sent} websocket messages sent while the thumb was held"))  # fmt: skip
            rows.append(Row(f"{what}, release → committed", round_trip, "ms", LIVE_COMMITTED_MS,
                            f"the page at its top; {released_bytes / 1000:.1f} kB received for it"))  # fmt: skip
    with urllib.request.urlopen(f"{url}/app/static/live.js", timeout=30) as response:
        size = len(response.read())
    rows.append(Row("browser: live.js, downloaded once", size / 1000, "kB", LIVE_SCRIPT_BYTES / 1000,
                    "uncompressed (Streamlit's static serving), cached by the browser (ETag)"))  # fmt: skip
    return rows
