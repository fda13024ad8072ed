"""Server-drawn figures that follow the sidebar's thumbs in Chromium (ui/figure.py ``follow``, static/figure.js):
while the sidebar's dim or base is dragged (input events, nothing released), the sinusoidal page's waves and
wavelengths and the decay page's bases and wavelengths are redrawn in the browser to posenc's values, with no
message to the server; once let go, the server's figure, drawn at the committed values, replaces the browser's and
agrees with it.
"""

from __future__ import annotations

import re

import numpy as np
import torch
from playwright.sync_api import Page, expect

from charts.rope import SIGN_M, SIGN_N, SIGN_SHIFTS, rope_example_qk, rope_layout_tables
from figures import relative as fig
from posenc.absolute import sinusoid_offset_similarity, sinusoid_pair_columns, sinusoid_wavelengths, sinusoidal
from posenc.attention import attention_weights
from posenc.decay import full_turn_pairs, rope_decay_bound_at, rope_wavelengths
from posenc.relative import alibi_bias, alibi_slopes
from posenc.rope import rope_inv_freq
from posenc.rope_variants import rope_reflect_pairs, rope_signed_scores
from tests.browser.class_lab import open_sidebar
from tests.browser.test_browser import open_app, real_problems
from tests.browser.test_live import requests_in

WAVES, WAVELENGTHS = "sin_waves_chart", "sin_wavelength_chart"  # the figures' keys (Streamlit's st-key-… class)
LENGTH = 300
# What the figure drew (static/figure.js keeps it on its canvas as ``posencFigure``), and the first read-out found on
# a scan of the plot's middle: the value under a pointer there.
HOOK = """canvas => {
  const f = canvas.posencFigure, { width, height } = f.drawn;
  let readout = null;
  for (let x = width * 0.3; x < width * 0.7 && !readout; x += 7)
    for (let y = height * 0.2; y < height * 0.8 && !readout; y += 7) readout = f.readout(x, y);
  return { traces: f.traces, at: f.drawnFor, draws: f.draws, follows: f.follows, readout };
}"""


def canvas(page: Page, key: str):
    return page.locator(f".st-key-{key} .figure-root canvas")


def picture(page: Page, key: str) -> dict:
    return canvas(page, key).evaluate(HOOK)


def drag_sidebar(page: Page, name: str, slider_value: int) -> None:
    """Move the sidebar's shared slider ``name`` as a finger's drag step does: pointer down, a new value and an
    `input` event; nothing is released (no `change`, so nothing is committed)."""
    slider = page.locator(f"#shared-{name}")
    if not slider.is_visible():
        open_sidebar(page)
    slider.evaluate(
        "(input, value) => { input.dispatchEvent(new PointerEvent('pointerdown', {bubbles: true}));"
        " input.value = value; input.dispatchEvent(new Event('input', {bubbles: true})); }",
        slider_value,
    )


def release_sidebar(page: Page, name: str) -> None:
    """Let go of the sidebar's slider ``name``: the pointer up and the `change` event (the commit follows)."""
    page.locator(f"#shared-{name}").evaluate(
        "input => { input.dispatchEvent(new PointerEvent('pointerup', {bubbles: true}));"
        " input.dispatchEvent(new Event('change', {bubbles: true})); }"
    )


def open_at_figure(page: Page, server_url: str, path: str, query: str, key: str) -> list:
    """Open ``path`` with ``query``, scroll figure ``key`` into view and wait until it is drawn; returns the list the
    websocket frames the page sends from then on are appended to."""
    sent: list = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(frame)))
    open_app(page, server_url, path, query)
    canvas(page, key).scroll_into_view_if_needed()
    page.wait_for_function("c => c.posencFigure?.drawn", arg=canvas(page, key).element_handle())
    return sent


def wait_followed(page: Page, key: str, name: str, value: float) -> dict:
    """What figure ``key`` drew once it stands at the store's ``name`` = ``value``."""
    handle = canvas(page, key).element_handle()
    page.wait_for_function("([c, name, value]) => c.posencFigure.drawnFor?.[name] === value", arg=[handle, name, value])
    return picture(page, key)


def check_waves(drawn: dict, columns: list[int]) -> None:
    """Every line is a chosen column of posenc's table at the drawn length, dim and base (float32), named after it."""
    at = drawn["at"]
    length, dim, base = int(at["length"]), int(at["dim"]), float(at["base"])
    table = sinusoidal(length, dim, base).numpy()
    kept = [column for column in columns if column < dim]
    pairs = sinusoid_pair_columns(dim).numpy()
    assert [trace["name"] for trace in drawn["traces"]] == [
        f"d{c} = {'sin' if c % 2 == 0 else 'cos'}, pair {int(np.argwhere(pairs == c)[0][0])}" for c in kept
    ]
    for column, trace in zip(kept, drawn["traces"], strict=True):
        np.testing.assert_array_equal(trace["x"], np.arange(length))
        np.testing.assert_allclose(trace["y"], table[:, column], atol=2e-6, rtol=0)


def check_readout(drawn: dict, columns: list[int]) -> None:
    """The value under the pointer is read from the lines drawn: "position p / PE v", v one chosen column's PE(p)."""
    match = re.fullmatch(r"position (\d+)\nPE (-?\d+\.\d{4})", drawn["readout"] or "")
    assert match, drawn["readout"]
    position, value = int(match[1]), float(match[2])
    at = drawn["at"]
    row = sinusoidal(position + 1, int(at["dim"]), float(at["base"])).numpy()[position]
    assert any(abs(row[c] - value) <= 6e-5 for c in columns if c < at["dim"]), (position, value)


def check_wavelengths(drawn: dict) -> None:
    at = drawn["at"]
    [trace] = drawn["traces"]
    expected = sinusoid_wavelengths(int(at["dim"]), float(at["base"])).numpy()
    np.testing.assert_allclose(trace["y"], expected.astype(np.float32), rtol=1e-6)


def test_the_waves_and_wavelengths_follow_the_sidebar_while_its_thumb_moves(page, server_url):
    sent: list[bytes] = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(frame)))
    open_app(page, server_url, "sinusoidal", f"?length={LENGTH}&dim=128&base=10000")
    canvas(page, WAVES).scroll_into_view_if_needed()
    expect(canvas(page, WAVES)).to_be_visible()
    page.wait_for_function("c => c.posencFigure?.drawn", arg=canvas(page, WAVES).element_handle())
    first = picture(page, WAVES)
    assert first["follows"] == {"length": LENGTH, "dim": 128, "base": 10000}
    columns = [int(trace["name"].split(" ")[0][1:]) for trace in first["traces"]]  # d0, d1, d32, d64: the defaults
    assert columns == [0, 1, 32, 64]
    quiet = len(sent)
    dim = page.locator("#shared-dim")
    step = int(dim.get_attribute("step"))
    seen = []
    for value in (64, 2 + step * 3, 512, 96):  # 64 and below drop column 64 (and 32) as the page does
        drag_sidebar(page, "dim", value)
        waves, wavelengths = wait_followed(page, WAVES, "dim", value), wait_followed(page, WAVELENGTHS, "dim", value)
        check_waves(waves, columns)
        check_wavelengths(wavelengths)
        check_readout(waves, columns)
        seen.append(waves["at"]["dim"])
    base = page.locator("#shared-base")
    for index in (0, int(base.get_attribute("max"))):  # the smallest and the largest base of the sidebar's grid
        shown = picture(page, WAVES)["at"]["base"]
        drag_sidebar(page, "base", index)
        handle = canvas(page, WAVES).element_handle()
        page.wait_for_function("([c, shown]) => c.posencFigure.drawnFor?.base !== shown", arg=[handle, shown])
        waves = picture(page, WAVES)
        check_waves(waves, columns)
        check_wavelengths(wait_followed(page, WAVELENGTHS, "base", waves["at"]["base"]))
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    assert seen == [64, 2 + step * 3, 512, 96]
    browser = picture(page, WAVES)
    release_sidebar(page, "base")  # let go: the commit reruns the section, whose figure replaces the browser's
    handle = canvas(page, WAVES).element_handle()
    page.wait_for_function("([c, base]) => c.posencFigure.follows.base === base", arg=[handle, browser["at"]["base"]])
    server = picture(page, WAVES)
    assert server["follows"] == browser["at"] == {"length": LENGTH, "dim": 96, "base": browser["at"]["base"]}
    for mine, theirs in zip(browser["traces"], server["traces"], strict=True):  # the same picture
        assert mine["name"] == theirs["name"]
        np.testing.assert_allclose(mine["y"], theirs["y"], atol=2e-6, rtol=0)
    assert page.locator(f".st-key-{WAVES} .save").is_visible()  # Save PNG stays
    assert real_problems(page) == []


def check_bases(drawn: dict) -> None:
    """One curve per base (10,000, 500,000 and the sidebar's when it is another): posenc's bound at the distances
    drawn, at the drawn dim (float32)."""
    at = drawn["at"]
    bases = list(dict.fromkeys((10000.0, 500000.0, float(at["base"]))))
    assert [trace["name"] for trace in drawn["traces"]] == [f"base {b:,.0f}" for b in bases]
    for b, trace in zip(bases, drawn["traces"], strict=True):
        distances = torch.tensor(trace["x"], dtype=torch.float64)
        bound = rope_decay_bound_at(distances, rope_inv_freq(int(at["dim"]), b, dtype=torch.float64)).numpy()
        np.testing.assert_allclose(trace["y"], bound.astype(np.float32), rtol=1e-5, atol=1e-7)


def check_turns(drawn: dict, train: int = 4096) -> None:
    """The pairs that turn fully within the training length, then those that never do, at λ_i (float32 θ_i)."""
    at = drawn["at"]
    theta = rope_inv_freq(int(at["dim"]), float(at["base"]))
    turns, wavelengths = full_turn_pairs(theta, train).numpy(), rope_wavelengths(theta).numpy().astype(np.float32)
    for trace, pairs in zip(drawn["traces"], (np.flatnonzero(turns), np.flatnonzero(~turns)), strict=True):
        np.testing.assert_array_equal(trace["x"], pairs)
        np.testing.assert_allclose(trace["y"], wavelengths[pairs], rtol=1e-6)
        assert f"({len(pairs)} pairs)" in trace["name"]


def test_the_decay_pages_bases_and_wavelengths_follow_the_sidebar_while_its_thumb_moves(page, server_url):
    sent: list[bytes] = []
    page.on("websocket", lambda socket: socket.on("framesent", lambda frame: sent.append(frame)))
    open_app(page, server_url, "decay", "?dim=128&base=10000")
    bases, turns = "decay_base_chart", "decay_wavelength_chart"
    canvas(page, bases).scroll_into_view_if_needed()
    page.wait_for_function("c => c.posencFigure?.drawn", arg=canvas(page, turns).element_handle())
    quiet = len(sent)
    for value in (32, 1024, 96):
        drag_sidebar(page, "dim", value)
        check_bases(wait_followed(page, bases, "dim", value))
        check_turns(wait_followed(page, turns, "dim", value))
    shown = picture(page, bases)["at"]["base"]
    drag_sidebar(page, "base", 0)  # the smallest base of the sidebar's grid: a third curve
    page.wait_for_function("([c, shown]) => c.posencFigure.drawnFor?.base !== shown",
                           arg=[canvas(page, bases).element_handle(), shown])  # fmt: skip
    drawn = picture(page, bases)
    assert len(drawn["traces"]) == 3
    check_bases(drawn)
    check_turns(wait_followed(page, turns, "base", drawn["at"]["base"]))
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    assert real_problems(page) == []


def test_the_alibi_matrices_follow_the_sidebars_heads_and_length_while_its_thumb_moves(page, server_url):
    """Each panel is posenc's ALiBi bias of the steepest or the gentlest head (one panel for one head) over the
    window's first min(length, MATRIX_WINDOW) positions, the masked future blank; nothing is sent while the thumb
    moves."""
    key = "relative_alibi_matrix"
    sent = open_at_figure(page, server_url, "relative", "?length=40&heads=8", key)
    quiet = len(sent)
    for name, slider_value, at in (("heads", 3, {"length": 40, "heads": 3}), ("heads", 1, {"length": 40, "heads": 1}),
                                   ("length", 12, {"length": 12, "heads": 1}),
                                   ("heads", 12, {"length": 12, "heads": 12})):  # fmt: skip
        drag_sidebar(page, name, slider_value)
        drawn = wait_followed(page, key, name, slider_value)
        assert drawn["at"] == at
        window = min(at["length"], fig.MATRIX_WINDOW)
        slopes = alibi_slopes(at["heads"]).numpy()
        picks = [int(np.argmax(slopes))] + ([int(np.argmin(slopes))] if at["heads"] > 1 else [])
        bias = alibi_bias(window, at["heads"]).numpy()
        assert len(drawn["traces"]) == len(picks)
        for head, trace in zip(picks, drawn["traces"], strict=True):
            expected = np.where(np.isneginf(bias[head]), np.nan, bias[head]).ravel()
            got = np.asarray([np.nan if v is None else v for v in trace["z"]], dtype=np.float64)
            np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    assert real_problems(page) == []


def test_a_row_of_pe_dot_pe_follows_the_sidebar_while_its_thumb_moves(page, server_url):
    """Both lines are posenc's closed form Σ cos((q − p)·ω_i) at the drawn length, dim and base; a length that
    leaves the row out sends it back to length // 2, as the page's slider does once the length is let go."""
    open_app(page, server_url, "sinusoidal", "?length=300&dim=128&base=10000")
    key = "sin_similarity_row_chart"
    canvas(page, key).scroll_into_view_if_needed()
    page.wait_for_function("c => c.posencFigure?.drawn", arg=canvas(page, key).element_handle())
    for name, value, row in (("dim", 64, 150), ("length", 100, 50)):
        drag_sidebar(page, name, value)
        drawn = wait_followed(page, key, name, value)
        at = drawn["at"]
        expected = sinusoid_offset_similarity(row, int(at["length"]), int(at["dim"]), float(at["base"])).numpy()
        for trace in drawn["traces"]:
            np.testing.assert_allclose(trace["y"], expected.astype(np.float32), rtol=2e-6, atol=3e-5)
        assert drawn["traces"][0]["name"] == f"PE({row})·PE(q), dot products"
    assert real_problems(page) == []


def test_the_rope_layout_attention_follows_the_sidebar_while_its_thumb_moves(page, server_url):
    """Both heatmaps are posenc's causal attention of the offset detector (trained with half pairing, r₀ = 3, the
    page's defaults) run with each pairing, at the drawn dim and base; nothing is sent while the thumb moves."""
    key = "rope_attention_chart"
    sent = open_at_figure(page, server_url, "rope", "?dim=128&base=10000", key)
    quiet = len(sent)
    shown = picture(page, key)["at"]["base"]
    for name, value in (("dim", 32), ("dim", 1000), ("base", 0)):
        drag_sidebar(page, name, value)
        if name == "dim":
            drawn = wait_followed(page, key, name, value)
        else:  # the base slider moves over the grid's index: wait for another base than the one drawn
            page.wait_for_function("([c, shown]) => c.posencFigure.drawnFor?.base !== shown",
                                   arg=[canvas(page, key).element_handle(), shown])  # fmt: skip
            drawn = picture(page, key)
        dim, base = int(drawn["at"]["dim"]), float(drawn["at"]["base"])
        for table, trace in zip(rope_layout_tables(dim, 3, 48, base, "half"), drawn["traces"], strict=True):
            expected = attention_weights(table, causal=True).numpy().ravel()
            np.testing.assert_allclose(np.asarray(trace["z"], dtype=np.float64), expected, rtol=1e-5, atol=1e-7)
    assert drawn["at"]["dim"] == 1000
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    assert real_problems(page) == []


def test_rope_practices_sign_chart_follows_the_sidebar_while_its_thumb_moves(page, server_url):
    """The four curves are posenc's rope_signed_scores of the page's q and k at the drawn dim and base (the browser
    holds them at the largest dim and takes their first D features); nothing is sent while the thumb moves."""
    key = "rope_sign_chart"
    sent = open_at_figure(page, server_url, "rope_practice", "?dim=128&base=10000", key)
    quiet = len(sent)
    for value in (6, 1024, 300):
        drag_sidebar(page, "dim", value)
        drawn = wait_followed(page, key, "dim", value)
        q, k = rope_example_qk(value)
        m, n = SIGN_M + torch.arange(SIGN_SHIFTS + 1), SIGN_N + torch.arange(SIGN_SHIFTS + 1)
        signs = [(q, k, 1, 1), (q, k, -1, -1), (rope_reflect_pairs(q), rope_reflect_pairs(k), 1, 1), (q, k, 1, -1)]
        for (a, b, qs, ks), trace in zip(signs, drawn["traces"], strict=True):
            expected = rope_signed_scores(a, b, m, n, qs, ks, float(drawn["at"]["base"])).numpy()
            np.testing.assert_allclose(trace["y"], expected.astype(np.float32), rtol=1e-5, atol=1e-5)
    assert requests_in(sent[quiet:]) == 0, "a drag step sent a message to the server"
    assert real_problems(page) == []
