"""The sidebar's shared controls commit once per release, in Chromium (static/shared_controls.js): a mouse dragging
the thumb commits when it lets go, the value it let go at; a burst of key presses is committed once, with the last
value. Commits are counted, never timed: over HTTP (ui/commit_http.py) or as a websocket message."""

from __future__ import annotations

from bench.live import heartbeat
from tests.browser.class_lab import open_sidebar
from tests.browser.test_browser import open_app


def watch_commits(page) -> list[str]:
    """Every commit the page sends from now on: "http" for a POST to shared/commit, "ws" for a websocket message
    other than Streamlit's heartbeat."""
    sent: list[str] = []
    page.on("request", lambda request: sent.append("http") if request.url.endswith("shared/commit") else None)
    page.on("websocket", lambda socket: socket.on(
        "framesent", lambda payload: None if heartbeat(payload) else sent.append("ws")))  # fmt: skip
    return sent


def dim_slider(page):
    slider = page.locator("#shared-dim")
    if not slider.is_visible():
        open_sidebar(page)
    slider.scroll_into_view_if_needed()
    return slider


def test_a_mouse_drag_commits_once_when_it_lets_go_with_the_value_let_go_at(page, server_url):
    sent = watch_commits(page)
    open_app(page, server_url, "rope", "?dim=128")
    page.wait_for_timeout(1000)
    slider = dim_slider(page)
    box = slider.bounding_box()
    low, high = (float(slider.get_attribute(a)) for a in ("min", "max"))
    value = float(slider.input_value())
    x, y = box["x"] + box["width"] * (value - low) / (high - low), box["y"] + box["height"] / 2
    before = len(sent)
    page.mouse.move(x, y)
    page.mouse.down()
    for k in range(1, 9):
        page.mouse.move(x + 6 * k, y)
        page.wait_for_timeout(40)
    page.wait_for_timeout(600)  # held: nothing is committed however long the thumb rests
    assert sent[before:] == [], "a commit left while the thumb was still held"
    let_go_at = int(slider.input_value())
    assert let_go_at > 128
    page.mouse.up()
    page.wait_for_url(f"**dim={let_go_at}**")  # the commit reached the server, which mirrors it in the URL
    page.wait_for_timeout(1000)
    assert len(sent[before:]) == 1, sent[before:]


def test_a_burst_of_key_presses_is_committed_once_with_the_last_value(page, server_url):
    sent = watch_commits(page)
    open_app(page, server_url, "rope", "?dim=128")
    page.wait_for_timeout(1000)
    slider = dim_slider(page)
    slider.focus()
    step = int(slider.get_attribute("step"))
    before = len(sent)
    for _ in range(3):
        page.keyboard.press("ArrowRight", delay=10)
    page.wait_for_url(f"**dim={128 + 3 * step}**")
    page.wait_for_timeout(1000)
    assert len(sent[before:]) == 1, sent[before:]
