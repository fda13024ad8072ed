"""The relative page's live charts in Chromium: Shaw's matrix and curve follow k, T5's bucket curve follows
num_buckets and max_distance, ALiBi's slopes and bias lines follow heads, all while dragging, each drawn picture
equal to posenc's at float32 precision, and nothing is sent to the server until a slider is let go. The browser
computes every number with posenc's twins (static/views/relative.js, static/twins.js); the server sends none."""

from __future__ import annotations

import re

import numpy as np
import torch
from playwright.sync_api import Page, expect

from posenc.relative import (
    alibi_bias_per_offset,
    alibi_slopes,
    shaw_clip_index,
    shaw_relative_index,
    t5_relative_bucket,
)
from tests.browser.conftest import ARTIFACTS
from tests.browser.test_browser import open_app, real_problems
from tests.browser.test_live import drag_step, drawn, live_input, requests_in
from tests.browser.test_live_rope import hold_sidebar_at, wait_drawn_at
from ui.i18n import text

SHAW, T5, ALIBI = 0, 1, 2  # the live charts of the relative page, in page order
WINDOW = 128  # figures.relative.MATRIX_WINDOW


def listen(page: Page) -> list:
    """Every websocket frame the page sends from now on."""
    sent: list = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(frame)))
    return sent


def line(series: dict) -> tuple[np.ndarray, np.ndarray]:
    """A drawn line's x and y as float arrays (null, a gap or padding, as NaN)."""
    as_array = lambda values: np.array([np.nan if v is None else v for v in values], dtype=np.float64)  # noqa: E731
    return as_array(series["x"]), as_array(series["y"])


def check_shaw(picture: dict, length: int) -> None:
    k = int(picture["at"]["k"])
    matrix, curve = picture["panels"]
    window = min(length, WINDOW)
    values = np.asarray(matrix["values"], dtype=np.float64).reshape(window, window)
    np.testing.assert_array_equal(values, shaw_relative_index(window, k).numpy())  # a_ij = clip(j − i, k) + k
    x, y = (np.concatenate(parts) for parts in zip(*(line(s) for s in curve["series"]), strict=True))
    assert x[0] == 1 - length and x[-1] == length - 1 and len(x) <= 320
    np.testing.assert_array_equal(y, shaw_clip_index(torch.from_numpy(x.astype(np.int64)), k).numpy())


def test_the_live_shaw_chart_follows_k_and_is_shaws_index(page, server_url):
    sent = listen(page)
    open_app(page, server_url, "relative")
    expect(live_input(page, "k", SHAW)).to_be_visible()
    assert live_input(page, "k", SHAW).get_attribute("max") == "64"  # every k from 0 to 64
    quiet = len(sent)
    pictures = [drag_step(page, "k", k, SHAW) for k in (0, 1, 37, 64, 8)]
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    for picture in pictures:
        check_shaw(picture, 64)
    assert [picture["at"]["k"] for picture in pictures] == [0, 1, 37, 64, 8]
    title = page.locator(".live").nth(SHAW).locator(".title").first.text_content()
    assert title.endswith("k = 8")  # the title follows the slider
    assert real_problems(page) == []


def test_a_long_sequence_draws_the_window_and_the_far_offsets(page, server_url):
    sent = listen(page)
    open_app(page, server_url, "relative", "?length=3000")
    expect(live_input(page, "k", SHAW)).to_be_visible()
    quiet = len(sent)
    for k in (5, 64, 0):
        check_shaw(drag_step(page, "k", k, SHAW), 3000)
    assert requests_in(sent[quiet:]) == 0


def test_the_live_t5_curve_follows_both_sliders_and_is_t5s_bucket(page, server_url):
    sent = listen(page)
    open_app(page, server_url, "relative")
    expect(live_input(page, "num_buckets", T5)).to_be_visible()
    quiet = len(sent)
    # one slider away from the server's (32, 128) at a time: num_buckets 4, 64, 10, back to 32; then max_distance
    # 2 (too short: a note), 1024, 12, 6 (too short), back to 128
    steps = [("num_buckets", 0), ("num_buckets", 30), ("num_buckets", 3), ("num_buckets", 14)]
    steps += [("max_distance", 0), ("max_distance", 18), ("max_distance", 5), ("max_distance", 3), ("max_distance", 12)]
    pictures = [drag_step(page, name, index, T5) for name, index in steps]
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    at = [(p["at"]["num_buckets"], p["at"]["max_distance"]) for p in pictures]
    assert at == [(4, 128), (64, 128), (10, 128), (32, 128), (32, 2), (32, 1024), (32, 12), (32, 6), (32, 128)]
    for picture in pictures:
        num_buckets, max_distance = int(picture["at"]["num_buckets"]), int(picture["at"]["max_distance"])
        max_exact = num_buckets // 4  # bidirectional: B/4 distances get a bucket each
        x, y = line(picture["panels"][0]["series"][0])
        if max_distance <= max_exact:  # T5's code rejects the pair: no line, the old error as a note
            assert np.isnan(x).all()
            note = text("en", "relative.t5_error", max_exact=max_exact, max_distance=max_distance)
            assert picture["readouts"] == note
            continue
        assert picture["readouts"] == text("en", "relative.t5_live_readout", max_exact=max_exact)
        assert x[0] == -2 * max_distance and x[-1] == 2 * max_distance and len(x) <= 2 * num_buckets
        offsets = torch.from_numpy(x.astype(np.int64))
        np.testing.assert_array_equal(y, t5_relative_bucket(offsets, True, num_buckets, max_distance).numpy())
        every = torch.arange(-2 * max_distance, 2 * max_distance + 1)  # the line drawn, read at every offset
        expected = t5_relative_bucket(every, True, num_buckets, max_distance).numpy()
        np.testing.assert_array_equal(np.interp(every.numpy(), x, y), expected)
    assert real_problems(page) == []


def test_the_live_alibi_chart_follows_heads_and_is_alibis_slopes_and_bias(page, server_url):
    sent = listen(page)
    open_app(page, server_url, "relative", "?length=300")
    expect(live_input(page, "heads", ALIBI)).to_be_visible()
    quiet = len(sent)
    pictures = [drag_step(page, "heads", index, ALIBI) for index in (0, 15, 11, 4, 7)]  # 1, 16, 12, 5, 8 heads
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    assert [p["at"]["heads"] for p in pictures] == [1, 16, 12, 5, 8]
    for picture in pictures:
        heads = int(picture["at"]["heads"])
        bars, lines = picture["panels"]
        x, y = line(bars["series"][0])
        np.testing.assert_array_equal(x, np.arange(1, 17))
        np.testing.assert_allclose(y[:heads], alibi_slopes(heads).numpy(), rtol=1e-7)  # float32 precision
        assert np.isnan(y[heads:]).all()
        assert [series["name"] for series in lines["series"]] == [f"head {h}" for h in range(1, heads + 1)]
        offsets, _ = line(lines["series"][0])
        assert offsets[0] == -299 and offsets[-1] == 0 and len(offsets) <= 256
        expected = alibi_bias_per_offset(torch.from_numpy(offsets.astype(np.int64)), heads).numpy()
        np.testing.assert_allclose([line(series)[1] for series in lines["series"]], expected, rtol=1e-6)
    assert real_problems(page) == []


def test_a_key_press_on_k_settles_it_and_the_notice_follows(page, server_url):
    open_app(page, server_url, "relative")
    k = live_input(page, "k", SHAW)
    k.focus()
    page.keyboard.press("ArrowRight")  # a step and its release: one round trip, this section's fragment reruns
    expect(page.get_by_text(re.compile("from −9 to \\+9"))).to_be_visible()
    assert drawn(page, SHAW)["at"]["k"] == 9
    assert page.locator('[data-testid="stException"]').count() == 0


def test_a_key_press_on_heads_moves_the_shared_control(page, server_url):
    open_app(page, server_url, "relative", "?heads=8")
    live_input(page, "heads", ALIBI).focus()
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"[?&]heads=9\b"))
    sidebar = page.locator('[data-testid="stSidebar"]').get_by_role("slider", name="heads")
    expect(sidebar).to_have_attribute("aria-valuetext", "9")
    expect(page.get_by_text("heads = 9 is not a power of two")).to_be_visible()  # the slopes note follows
    assert page.locator('[data-testid="stException"]').count() == 0


def test_releasing_an_invalid_max_distance_shows_the_old_error(page, server_url):
    open_app(page, server_url, "relative")
    live_input(page, "max_distance", T5).focus()
    page.keyboard.press("Home")  # max_distance 2: inside the exact range of 32 buckets
    error = text("en", "relative.t5_error", max_exact=8, max_distance=2)
    expect(page.locator('[data-testid="stAlertContentError"]')).to_contain_text(error)
    expect(page.locator(".live").nth(T5).locator(".readouts")).to_have_text(error)  # the chart's note says it too
    page.screenshot(path=str(ARTIFACTS / "relative-live-t5-invalid.png"), full_page=True)


def test_the_charts_follow_the_sidebars_length_while_its_thumb_moves(page, server_url):
    """Shaw's window and curve, T5's ±(length − 1) marks and ALiBi's bias lines follow the sidebar's length (the tab's
    store) while its thumb is held, computed in the browser; nothing is sent."""
    sent = listen(page)
    open_app(page, server_url, "relative")
    expect(live_input(page, "k", SHAW)).to_be_visible()
    quiet = len(sent)
    hold_sidebar_at(page, "length", 3000)
    check_shaw(wait_drawn_at(page, SHAW, length=3000), 3000)
    t5 = wait_drawn_at(page, T5, length=3000)
    assert (t5["picked"]["reach"], t5["picked"]["back_reach"]) == ([2999], [-2999])
    lines = wait_drawn_at(page, ALIBI, length=3000)["panels"][1]["series"]
    offsets, _ = line(lines[0])
    assert offsets[0] == -2999 and offsets[-1] == 0 and len(offsets) == 17
    expected = alibi_bias_per_offset(torch.from_numpy(offsets.astype(np.int64)), 8).numpy()
    np.testing.assert_allclose([line(series)[1] for series in lines], expected, rtol=1e-6)
    assert requests_in(sent[quiet:]) == 0, "a held sidebar thumb sent a message to the server"
    assert real_problems(page) == []
