"""Live charts in Chromium: what the browser draws while a slider is dragged equals posenc, and nothing is sent to
the server until the slider is let go.

A drag step is what the browser does while the thumb moves: the range input's value changes and it fires `input`;
letting go fires `change`. The tests read back the matrix the view painted (static/live.js keeps it on its canvas
as ``posencLive.drawn``: the positions and columns drawn and their values) and compare it with posenc's own table at
float32 precision, at several slider positions and never only the first one.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import torch
from playwright.sync_api import Page, expect

import posenc
import posenc.decay
from bench.live import LIVE_JS as DRAWN_JS  # what static/live.js keeps on a live chart's canvas
from bench.live import heartbeat
from posenc.absolute import sinusoidal
from tests.browser.test_browser import open_app, real_problems


def requests_in(frames: list) -> int:
    """The websocket messages among ``frames`` that ask the server for something (Streamlit's frontend also sends
    a heartbeat now and then, which only says the tab is alive)."""
    return sum(not heartbeat(frame) for frame in frames)


TABLE, SIMILARITY = 0, 1  # the live charts of the sinusoidal page, in page order


def live_input(page: Page, name: str, chart: int = TABLE):
    return page.locator(".live").nth(chart).locator(f"input[name={name}]")


def drawn(page: Page, chart: int = TABLE) -> dict:
    return page.locator(".live").nth(chart).locator("input").first.evaluate(f"input => ({DRAWN_JS})(input).drawn")


def drag_input(page: Page, slider, slider_value: int) -> dict:
    """Move the live slider ``slider`` (a locator of its input) to ``slider_value`` as a drag does (the pointer held
    down on it, an `input` event, no release); return what its chart painted for it. Held, as under a finger, the
    slider keeps its value if the server's data for an earlier run arrives meanwhile."""
    handle = slider.element_handle()
    before = handle.evaluate(f"input => ({DRAWN_JS})(input).draws")
    handle.evaluate(
        "(input, value) => { input.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true}));"
        " input.value = value; input.dispatchEvent(new Event('input', {bubbles: true})); }",
        slider_value,
    )
    page.wait_for_function(
        f"""([input, before]) => {{ const live = ({DRAWN_JS})(input);
            return live.draws > before && live.drawnFor[input.name] === live.values[input.name]; }}""",
        arg=[handle, before],
    )
    picture = handle.evaluate(f"input => ({DRAWN_JS})(input).drawn")
    handle.evaluate("input => input.dispatchEvent(new PointerEvent('pointerup', {bubbles: true}))")  # no release
    return picture


def drag_step(page: Page, name: str, slider_value: int, chart: int = TABLE) -> dict:
    """Move live slider ``name`` of the page's ``chart``-th live chart to ``slider_value``: :func:`drag_input`."""
    return drag_input(page, live_input(page, name, chart), slider_value)


def expected_table(picture: dict, layout: str) -> np.ndarray:
    at = picture["at"]
    table = sinusoidal(int(at["length"]), int(at["dim"]), float(at["base"]), layout=layout).numpy()
    return table[np.ix_(picture["rows"], picture["cols"])]


def test_the_live_table_follows_every_slider_while_dragging_and_equals_posenc(page, server_url):
    sent: list[bytes] = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(frame)))
    open_app(page, server_url, "sinusoidal")
    expect(live_input(page, "base")).to_be_visible()
    assert int(live_input(page, "base").get_attribute("max")) + 1 >= 20  # a fine grid of bases, not a handful
    quiet = len(sent)
    pictures = []
    for index in (3, 12, 28, 18):  # base 30, 1000, 500 000, back to 10 000
        pictures.append(drag_step(page, "base", index))
    for value in (300, 4096, 7):  # length: many rows are sampled, few are all drawn
        pictures.append(drag_step(page, "length", value))
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    seen = set()
    for picture in pictures:
        values = np.asarray(picture["values"], dtype=np.float64).reshape(len(picture["rows"]), len(picture["cols"]))
        np.testing.assert_allclose(values, expected_table(picture, "interleaved"), atol=2e-6, rtol=0)
        seen.add((picture["at"]["base"], picture["at"]["length"]))
    assert len(seen) == len(pictures)  # every step drew a different picture
    assert max(len(p["rows"]) for p in pictures) <= 512  # at most the rows a chart can show
    assert real_problems(page) == []


def test_the_dim_slider_draws_from_the_dims_posenc_sent(page, server_url):
    open_app(page, server_url, "sinusoidal")
    dims = live_input(page, "dim")
    expect(dims).to_be_visible()
    for index in (1, 6, 13, 9):  # dim 4, 48, 512, 128
        picture = drag_step(page, "dim", index)
        values = np.asarray(picture["values"]).reshape(len(picture["rows"]), len(picture["cols"]))
        np.testing.assert_allclose(values, expected_table(picture, "interleaved"), atol=2e-6, rtol=0)
        assert len(picture["cols"]) == min(512, int(picture["at"]["dim"]))


@pytest.mark.parametrize("key", ["ArrowRight", "ArrowLeft"])
def test_letting_go_sends_the_settled_value_once_and_the_page_follows(page, server_url, key):
    open_app(page, server_url, "sinusoidal", "?base=10000")
    base = live_input(page, "base")
    base.focus()
    page.keyboard.press(key)  # a key press is a step and its release: one round trip
    expected = "15000" if key == "ArrowRight" else "7000"
    expect(page).to_have_url(re.compile(rf"[?&]base={expected}\b"))
    sidebar = page.locator('[data-testid="stSidebar"]').get_by_role("slider", name="base")
    expect(sidebar).to_have_attribute("aria-valuetext", f"{int(expected):,}")
    picture = drawn(page)
    assert picture["at"]["base"] == float(expected)
    assert page.locator('[data-testid="stException"]').count() == 0


def test_the_live_similarity_follows_its_sliders_and_is_the_gram_matrix(page, server_url):
    sent: list[bytes] = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(frame)))
    open_app(page, server_url, "sinusoidal")
    expect(live_input(page, "base", SIMILARITY)).to_be_visible()
    quiet = len(sent)
    # one slider away from the server's settings at a time (the others back where they were): a drag never moves two
    steps = [
        ("base", 6),
        ("base", 28),
        ("base", 18),
        ("dim", 3),
        ("dim", 12),
        ("dim", 9),
        ("length", 700),
        ("length", 4096),
    ]
    pictures = [drag_step(page, name, value, SIMILARITY) for name, value in steps]
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    for picture in pictures:
        at = picture["at"]
        table = sinusoidal(int(at["length"]), int(at["dim"]), float(at["base"]), dtype=torch.float64).numpy()
        rows = table[picture["rows"]]
        values = np.asarray(picture["values"]).reshape(len(picture["rows"]), len(picture["cols"]))
        np.testing.assert_allclose(values, rows @ rows.T, rtol=1e-5, atol=1e-4 * int(at["dim"]))
        assert len(picture["rows"]) <= 512


def test_the_live_decay_bound_follows_its_sliders_and_is_roformers_bound(page, server_url):
    sent: list[bytes] = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(frame)))
    open_app(page, server_url, "decay")
    expect(live_input(page, "base")).to_be_visible()
    quiet = len(sent)
    steps = [("base", 3), ("base", 28), ("base", 18)]  # one slider at a time; base: the index on its grid
    steps += [("dim", 2), ("dim", 202), ("dim", 128)]  # dim: any even value (the browser computes every curve)
    steps += [("max_distance", 0), ("max_distance", 17), ("max_distance", 10), ("max_distance", 7)]  # 16 … 8192
    pictures = [drag_step(page, name, value) for name, value in steps]
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    for picture in pictures:
        at = picture["at"]
        distances = np.asarray(picture["x"], dtype=int)
        assert distances[-1] == at["max_distance"] and distances.size <= 128
        bound = posenc.rope_decay_bound(int(at["dim"]), float(at["base"]), int(at["max_distance"]))
        np.testing.assert_allclose(picture["y"], bound.numpy()[distances], rtol=1e-6)
    seen = {(p["at"]["base"], p["at"]["dim"], p["at"]["max_distance"]) for p in pictures}
    assert len(seen) == len(pictures) - 2  # two back at 10 000, 128; one back at 256


def test_a_release_inside_a_fragment_moves_the_whole_page(page, server_url):
    """The decay bound sits in an st.fragment; its base slider is a shared control, so letting go reruns the whole
    page: the sidebar and the link follow, not only the fragment."""
    open_app(page, server_url, "decay", "?base=10000")
    base = live_input(page, "base")
    base.focus()
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(r"[?&]base=7000\b"))
    sidebar = page.locator('[data-testid="stSidebar"]').get_by_role("slider", name="base")
    expect(sidebar).to_have_attribute("aria-valuetext", "7,000")
    assert page.locator('[data-testid="stException"]').count() == 0


def test_the_live_context_extension_follows_its_sliders_and_is_posencs_scaling(page, server_url):
    """Training length and factor s: every method's θ'/θ and decay curve as posenc computes them."""
    sent: list[bytes] = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(frame)))
    open_app(page, server_url, "decay")
    extension = 1  # the second live chart of the decay page
    expect(live_input(page, "factor", extension)).to_be_visible()
    quiet = len(sent)
    steps = [("factor", 5), ("factor", 0), ("factor", 3), ("train", 0), ("train", 7), ("train", 4)]  # 32, 1, 8; 256 …
    pictures = [drag_step(page, name, value, extension) for name, value in steps]
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    for picture in pictures:
        train, factor = int(picture["at"]["train"]), picture["at"]["factor"]
        methods = posenc.decay.rope_context_extension(128, 10000.0, train, int(train * factor))
        ratio_panel, decay_panel = picture["panels"]
        theta = methods["original"][0].numpy()
        drawn_pairs = [int(np.argmin(np.abs(2 * np.pi / theta - wavelength))) for wavelength in ratio_panel["x"]]
        distances = torch.tensor(decay_panel["x"], dtype=torch.int64)
        assert decay_panel["x"][-1] == int(train * factor)
        for (method, (scaled, scale)), ratio, decay in zip(
            methods.items(), ratio_panel["series"], decay_panel["series"], strict=True
        ):
            np.testing.assert_allclose(ratio["y"], (scaled / methods["original"][0]).numpy()[drawn_pairs], rtol=1e-6)
            reference = posenc.decay.rope_decay_bound_at(distances, scaled).numpy() * scale**2
            np.testing.assert_allclose(decay["y"], reference, rtol=1e-5, err_msg=method)
    assert len({(p["at"]["train"], p["at"]["factor"]) for p in pictures}) == len(pictures) - 1  # back at 4096, 8
