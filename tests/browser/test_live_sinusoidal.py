"""The sinusoidal page's "why not 0, 1, 2" and "why add" live charts in Chromium: what is drawn while a slider is
dragged equals posenc, and nothing is sent to the server until the slider is let go.

"Why not 0, 1, 2": integer_positions and normalized_positions of the short and the long input, and the sinusoid
PE(p, column) (the browser's step sin(p·ω_i)) against posenc.absolute.sinusoidal's table. "Why add": the histogram
of posenc.absolute.embedding_pe_cosines (seeded) at the dragged dim, and the spread of the cosines beside 1/√d.
"""

from __future__ import annotations

import re

import numpy as np
from playwright.sync_api import Page, expect

from posenc.absolute import embedding_pe_cosines, integer_positions, normalized_positions, sinusoidal
from tests.browser.test_browser import open_app, real_problems
from tests.browser.test_live import DRAWN_JS, drag_input, requests_in

NAIVE, COSINES = "sin_naive_live", "sin_cosine_live"  # the charts' keys (Streamlit's st-key-… class)
DIM, BASE = 128, 10000.0  # the page's defaults: the sinusoid drawn is pair D/4 = 16, column 32 (interleaved)


def chart(page: Page, key: str):
    return page.locator(f".st-key-{key} .live")


def live_input(page: Page, key: str, name: str):
    return chart(page, key).locator(f"input[name={name}]")


def drawn(page: Page, key: str) -> dict:
    return chart(page, key).locator("input").first.evaluate(f"input => ({DRAWN_JS})(input).drawn")


def drag_step(page: Page, key: str, name: str, slider_value: int) -> dict:
    """Move live slider ``name`` of chart ``key`` to ``slider_value`` as a drag does: :func:`drag_input`."""
    return drag_input(page, live_input(page, key, name), slider_value)


def check_naive(picture: dict) -> None:
    """Every line of the three panels equals posenc at the positions drawn (float32)."""
    short, length = int(picture["at"]["short"]), int(picture["at"]["length"])
    integer, normalised, sinusoid = picture["panels"]
    column = 2 * (DIM // 2 // 4)
    table = sinusoidal(max(short, length), DIM, BASE).numpy()[:, column]

    def line(panel: dict, k: int) -> tuple[np.ndarray, np.ndarray]:
        series = panel["series"][k]
        return np.asarray(series["x"], dtype=np.int64), np.asarray(series["y"], dtype=np.float64)

    x, y = line(integer, 0)
    assert x[0] == 0 and x[-1] == length - 1 and len(x) <= 65
    np.testing.assert_array_equal(y, integer_positions(length)[:, 0].numpy()[x])
    x, y = line(normalised, 0)
    assert x[-1] == length - 1
    np.testing.assert_array_equal(y, normalized_positions(length)[:, 0].numpy()[x])
    x, y = line(normalised, 1)
    np.testing.assert_array_equal(x, np.arange(short))
    np.testing.assert_array_equal(y, normalized_positions(short)[:, 0].numpy())
    x, y = line(sinusoid, 0)
    assert x[0] == 0 and x[-1] == length - 1 and len(x) == min(length, 512)
    np.testing.assert_allclose(y, table[x], atol=2e-6, rtol=0)
    x, y = line(sinusoid, 1)
    np.testing.assert_array_equal(x, np.arange(short))
    np.testing.assert_allclose(y, table[:short], atol=2e-6, rtol=0)
    for panel in picture["panels"]:  # the band of word-embedding entries, ±2, under every panel
        bands = [series for series in panel["series"] if series["y"] in ([2, 2], [-2, -2])]
        assert len(bands) == 2 and all(series["x"] == [0, length - 1] for series in bands)


def test_the_live_naive_chart_follows_both_sliders_and_is_posenc(page, server_url):
    sent: list[bytes] = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(frame)))
    open_app(page, server_url, "sinusoidal")
    expect(live_input(page, NAIVE, "short")).to_be_visible()
    lengths = live_input(page, NAIVE, "length")
    assert int(lengths.get_attribute("max")) + 1 >= 20  # a grid about 1.5× apart from 2 to 4096
    quiet = len(sent)
    steps = [("short", 0), ("short", 18), ("short", 62), ("short", 3)]  # short 2, 20, 64, back to 5
    steps += [("length", 0), ("length", 13), ("length", int(lengths.get_attribute("max"))), ("length", 7)]
    pictures = [drag_step(page, NAIVE, name, value) for name, value in steps]
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    for picture in pictures:
        check_naive(picture)
    seen = [(p["at"]["short"], p["at"]["length"]) for p in pictures]
    assert seen[:3] == [(2, 64), (20, 64), (64, 64)] and seen[4][1] == 2 and seen[6][1] == 4096
    assert len(set(seen)) == len(seen)
    token = float(np.float32(1 / 63))  # token 1 of the 64-token input, in the readout
    assert "1 is 0.25 in the 5-token sentence" in pictures[3]["readouts"]
    assert f"{token:.3g}" in pictures[3]["readouts"] and "integers reach 63" in pictures[3]["readouts"]
    assert real_problems(page) == []


def cosine_histogram(dim: int) -> tuple[np.ndarray, float]:
    """Densities of posenc's seeded cosines (positions below 512) in 100 bins of 0.02, and their spread."""
    cosines = embedding_pe_cosines((dim,), samples=4000, max_position=512, base=BASE, seed=0)[0].numpy()
    counts, _ = np.histogram(cosines, bins=np.linspace(-1, 1, 101))
    return counts / (4000 * 0.02), float(cosines.std())


def test_the_live_cosines_follow_the_dim_and_are_posencs_histogram(page, server_url):
    sent: list[bytes] = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(frame)))
    open_app(page, server_url, "sinusoidal")
    expect(live_input(page, COSINES, "dim")).to_be_visible()
    quiet = len(sent)
    pictures = [drag_step(page, COSINES, "dim", index) for index in (0, 3, 9, 15, 13)]  # d 2, 16, 128, 1024, 512
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    assert [p["at"]["dim"] for p in pictures] == [2, 16, 128, 1024, 512]
    spreads = []
    for picture in pictures:
        dim = int(picture["at"]["dim"])
        density, spread = cosine_histogram(dim)
        histogram, by_dim = picture["panels"]
        bars, normal = histogram["series"]
        np.testing.assert_allclose(bars["x"], np.linspace(-0.99, 0.99, 100), atol=1e-6)
        np.testing.assert_allclose(bars["y"], density, rtol=1e-6)
        centres = np.asarray(bars["x"])
        np.testing.assert_allclose(normal["y"], np.sqrt(dim / 2 / np.pi) * np.exp(-dim * centres**2 / 2),
                                   rtol=1e-5, atol=1e-6)  # fmt: skip
        measured, curve = by_dim["series"]
        dims = np.asarray(measured["x"])
        assert dims[0] == 2 and dims[-1] == 1024
        np.testing.assert_allclose(curve["y"], 1 / np.sqrt(dims), rtol=1e-6)
        np.testing.assert_allclose(measured["y"][list(dims).index(dim)], spread, rtol=1e-6)
        assert picture["picked"]["dim_mark"] == [dim]
        assert f"d = {dim:,}:" in picture["readouts"] and f"{spread:.3f}" in picture["readouts"]
        spreads.append(spread)
    assert spreads[0] > spreads[1] > spreads[2] > spreads[4] > spreads[3]  # narrower as d grows
    assert real_problems(page) == []


def test_a_key_press_on_the_short_length_reaches_the_notice(page, server_url):
    """A key press is a drag step and its release: the notice under the chart follows (the section's rerun)."""
    open_app(page, server_url, "sinusoidal")
    short = live_input(page, NAIVE, "short")
    short.focus()
    page.keyboard.press("ArrowRight")  # 5 -> 6
    # The notice (the section's rerun), not the readout line the browser draws at once with the same words.
    notice = page.locator("p").filter(has_text="What to notice")
    notice = notice.filter(has_text=re.compile(r"0\.2 in the 6-token sentence"))
    expect(notice).to_be_visible()
    assert drawn(page, NAIVE)["at"]["short"] == 6
    assert page.locator('[data-testid="stException"]').count() == 0


def test_a_key_press_on_the_cosines_dim_moves_the_whole_page(page, server_url):
    open_app(page, server_url, "sinusoidal", "?dim=128")
    dim = live_input(page, COSINES, "dim")
    dim.focus()
    page.keyboard.press("ArrowRight")  # 128 -> 192
    expect(page).to_have_url(re.compile(r"[?&]dim=192\b"))
    sidebar = page.locator('[data-testid="stSidebar"]').get_by_role("slider", name="dim")
    expect(sidebar).to_have_attribute("aria-valuetext", "192")
    assert drawn(page, COSINES)["at"]["dim"] == 192
    assert page.locator('[data-testid="stException"]').count() == 0
