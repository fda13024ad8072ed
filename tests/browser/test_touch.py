"""A student's phone (issue 30): a finger drags a live chart's slider and the chart follows, the page staying where
it was; a vertical swipe over a chart scrolls the page.

Chromium in mobile emulation (390×844, touch, device scale factor 3) receives real touch events through the
DevTools protocol (``Input.dispatchTouchEvent``): they go through the browser's own gesture handling, so a slider
that let the page take the gesture (``touch-action``) would scroll instead of moving. Every page with a live chart
is checked on its first live slider.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.layout_check import SIZES
from tests.browser.pages import open_page_in
from tests.browser.test_live import DRAWN_JS

LIVE_PAGES = ["sinusoidal", "relative", "relative_scores", "rope", "decay"]  # the pages that draw a live chart
PHONE = "390x844"
MAIN = '[data-testid="stMain"]'  # Streamlit's scrolling box: the page's scroll position is its scrollTop
# where a live slider is, and the control values of the picture its chart drew last
STATE_JS = f"input => ({{value: Number(input.value), drawnFor: ({DRAWN_JS})(input).drawnFor}})"


@pytest.fixture(scope="module")
def phone(browser):
    """A phone-sized tab in mobile emulation, with a DevTools session to send touch events through."""
    context = browser.new_context(**SIZES[PHONE])
    tab = context.new_page()
    tab.set_default_timeout(60_000)
    tab.cdp = context.new_cdp_session(tab)
    yield tab
    context.close()


def touch(tab: Page, kind: str, x: float | None = None, y: float | None = None) -> None:
    points = [] if kind == "touchEnd" else [{"x": x, "y": y, "radiusX": 8, "radiusY": 8, "force": 1, "id": 1}]
    tab.cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def swipe(tab: Page, start: tuple[float, float], end: tuple[float, float], steps: int = 12, wobble: float = 0) -> None:
    """A finger put down at ``start``, moved in ``steps`` to ``end`` (a frame apart) and lifted; ``wobble``: it
    first slips that many pixels down, as a thumb does, which the page takes as a scroll unless the element under
    it keeps the gesture (``touch-action: none``)."""
    touch(tab, "touchStart", *start)
    if wobble:
        touch(tab, "touchMove", start[0], start[1] + wobble)
        tab.wait_for_timeout(16)
    for k in range(1, steps + 1):
        f = k / steps
        touch(tab, "touchMove", start[0] + f * (end[0] - start[0]), start[1] + f * (end[1] - start[1]))
        tab.wait_for_timeout(16)
    touch(tab, "touchEnd")


def scroll_top(tab: Page) -> float:
    return tab.locator(MAIN).evaluate("main => main.scrollTop")


# Runs again once: in a full run on a loaded 2-core machine, decay's three swipes have twice not moved the slider
# (cc71da4, and session 29's last full run, 51 s for the case); run alone, with two processes hogging the cores, it
# passed 6 of 6 times in session 29.
@pytest.mark.flaky(reruns=1)
@pytest.mark.parametrize("path", LIVE_PAGES)
def test_a_finger_drags_a_live_slider_and_the_chart_follows(phone, server_url, path):
    open_page_in(phone, server_url, path, "en")
    slider = phone.locator(".live input[type=range]").first
    slider.scroll_into_view_if_needed()
    expect(slider).to_be_visible()
    phone.wait_for_function(f"input => ({DRAWN_JS})(input).drawnFor !== null", arg=slider.element_handle())
    before = slider.evaluate(STATE_JS)
    low, high = float(slider.get_attribute("min")), float(slider.get_attribute("max"))
    for attempt in range(3):  # a swipe that missed the thumb (the page was still settling) is swiped again
        box = slider.bounding_box()
        assert box["height"] >= 44 and box["width"] >= 44, "a live slider smaller than a finger"
        # the thumb, then half the track towards the farther end: a horizontal drag of a finger
        thumb = box["x"] + 8 + (box["width"] - 16) * (before["value"] - low) / ((high - low) or 1)
        middle = box["y"] + box["height"] / 2
        target = box["x"] + box["width"] * (0.9 if thumb < box["x"] + box["width"] / 2 else 0.1)
        top = scroll_top(phone)
        swipe(phone, (thumb, middle), (target, middle + 12), wobble=12)
        try:
            phone.wait_for_function("([input, value]) => Number(input.value) !== value",
                                    arg=[slider.element_handle(), before["value"]], timeout=15_000)  # fmt: skip
            break
        except PlaywrightTimeout:
            assert attempt < 2, "three swipes did not move the slider"
    phone.wait_for_function(  # the chart draws the value the finger left
        f"input => {{ const live = ({DRAWN_JS})(input);"
        " return live.drawnFor[input.name] === live.values[input.name]; }",
        arg=slider.element_handle(),
    )
    after = slider.evaluate(STATE_JS)
    assert (after["value"] > before["value"]) == (target > thumb), "the slider moved against the finger"
    name = slider.get_attribute("name")
    assert after["drawnFor"][name] != before["drawnFor"][name], "the chart did not follow the slider"
    assert abs(scroll_top(phone) - top) <= 2, "the page scrolled under a finger dragging a slider"


def test_a_vertical_swipe_over_a_live_chart_scrolls_the_page(phone, server_url):
    open_page_in(phone, server_url, "sinusoidal", "en")
    figure = phone.locator(".live .figure").first
    figure.scroll_into_view_if_needed()
    box = figure.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + min(box["height"] / 2, 300)
    top = scroll_top(phone)
    swipe(phone, (x, y + 150), (x, y - 150))
    phone.wait_for_function(f"top => document.querySelector('{MAIN}').scrollTop > top + 50", arg=top)
