"""The DeBERTa δ chart of the "Transformer-XL, DeBERTa and NoPE" page in Chromium: the matrix δ(i, j) and the curve
δ(i − j) follow k while it is dragged, each drawn value equal to posenc's ``deberta_delta``, and nothing is sent to
the server until the slider is let go; then the terms below follow the released k."""

from __future__ import annotations

import numpy as np
import torch
from playwright.sync_api import expect

from posenc.deberta import deberta_delta, deberta_relative_index
from tests.browser.pages import FIGURES_JS
from tests.browser.test_browser import open_app, real_problems
from tests.browser.test_live import drag_step, live_input, requests_in
from tests.browser.test_live_relative import line, listen

DEBERTA = 0  # the page's only live chart


def check_deberta(picture: dict, length: int) -> None:
    k = int(picture["at"]["k"])
    matrix, curve = picture["panels"]
    window = min(length, 48)  # figures.relative_scores.MATRIX_WINDOW
    values = np.asarray(matrix["values"], dtype=np.float64).reshape(window, window)
    np.testing.assert_array_equal(values, deberta_relative_index(window, k).numpy())  # row δ(i, j) of cell (i, j)
    x, y = line(curve["series"][0])
    span = min(length - 1, 512)
    assert x[0] == -span and x[-1] == span
    np.testing.assert_array_equal(y, deberta_delta(torch.from_numpy(x.astype(np.int64)), k).numpy())
    assert picture["picked"]["last_row"] == [2 * k - 1]


def test_the_live_delta_chart_follows_k_and_is_posencs_delta(page, server_url):
    sent = listen(page)
    open_app(page, server_url, "relative_scores")
    expect(live_input(page, "k", DEBERTA)).to_be_visible()
    quiet = len(sent)
    pictures = [drag_step(page, "k", index, DEBERTA) for index in (0, 1, 36, 63, 3)]  # k = index + 1
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    assert [picture["at"]["k"] for picture in pictures] == [1, 2, 37, 64, 4]
    for picture in pictures:
        check_deberta(picture, 64)
    title = page.locator(".live").nth(DEBERTA).locator(".title").first.text_content()
    assert title.endswith("k = 4")  # the title follows the slider
    assert "2k rows, 0 … 7" in pictures[-1]["readouts"]
    assert real_problems(page) == []


def test_a_long_input_draws_the_window_and_far_offsets(page, server_url):
    open_app(page, server_url, "relative_scores", "?length=3000")
    expect(live_input(page, "k", DEBERTA)).to_be_visible()
    for index in (63, 0, 9):
        check_deberta(drag_step(page, "k", index, DEBERTA), 3000)


def test_a_release_moves_the_terms_below(page, server_url):
    open_app(page, server_url, "relative_scores")
    slider = live_input(page, "k", DEBERTA)
    expect(slider).to_be_visible()
    terms = f"() => ({FIGURES_JS})()[1]?.querySelector('canvas').posencFigure.figure.data[1].z"  # DeBERTa's c2p
    before = page.evaluate(f"() => JSON.stringify(({terms})())")
    c2c = f"() => ({FIGURES_JS})()[1].querySelector('canvas').posencFigure.figure.data[0].z"
    c2c_print = page.evaluate(f"() => ({c2c})().print")
    slider.focus()
    slider.press("End")  # a key press is a release: k = 64 goes to the server, and the terms follow it
    page.wait_for_function(
        f"before => {{ const z = ({terms})(); return z && JSON.stringify(z) !== before; }}", arg=before
    )
    expect(page.get_by_text("With k = 64, a key 10 positions before")).to_be_visible()  # so does the checkpoint
    # c2c reads no k: the server sent its array as a print, and the figure put the one it held back (ui/figure.py)
    held = page.evaluate(f"() => {{ const z = ({c2c})(); return [z.print, z.raw?.length ?? 0, z.kept ?? null]; }}")
    assert held == [c2c_print, 48 * 48 * 4, None], held  # the float32 cells it held, not a kept marker
    assert page.evaluate(f"() => ({FIGURES_JS})()[1].querySelector('canvas').posencFigure.drawn.traces") == 4
    assert real_problems(page) == []
