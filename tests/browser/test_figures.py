"""The figures drawn by the browser (static/figure.js) in a real Chromium: no page downloads Plotly, the value
under the pointer is the figure's own number, and a figure saves as a PNG."""

from __future__ import annotations

import base64
import re
import struct
from pathlib import Path

import numpy as np
import pytest
from playwright.sync_api import expect

from tests.browser.pages import FIGURES_JS, open_page_in, page_paths
from tests.browser.test_browser import real_problems


@pytest.mark.parametrize("path", page_paths())
def test_no_page_downloads_plotly(page, server_url, path):
    open_page_in(page, server_url, path, "en")
    loaded = page.evaluate("() => performance.getEntriesByType('resource').map((entry) => entry.name)")
    assert not [name for name in loaded if re.search(r"plotly", name, re.I)]
    assert page.locator(".js-plotly-plot").count() == 0
    assert real_problems(page) == []


def decoded(array) -> np.ndarray:
    """A figure's array as the browser holds it: a list, base64 (``bdata``) or bytes unpacked by static/packed.js
    (``raw``, handed over as a list of byte values)."""
    if isinstance(array, dict):
        raw = bytes(array["raw"]) if "raw" in array else base64.b64decode(array["bdata"])
        values = np.frombuffer(raw, dtype=np.dtype(array["dtype"]))
        return values.reshape([int(n) for n in str(array["shape"]).split(",")]) if "shape" in array else values
    return np.asarray(array)


def filled(template: str, point: dict) -> str:
    """A hovertemplate filled as Plotly fills it, with Python's format for the numbers; lines joined by newlines."""
    body = re.sub(r"<extra>.*?</extra>", "", template)
    text = re.sub(r"%\{(\w+)(?::([^}]*))?\}", lambda m: format(point[m[1]], m[2] or ""), body)
    return "\n".join(re.sub(r"<[^>]+>", "", line) for line in re.split(r"<br\s*/?>", text)).strip()


def test_the_value_under_the_pointer_is_the_figures_own(page, server_url):
    """The home page's attention map: wherever the pointer rests on it, the read-out is the hovertemplate filled
    with one cell's x, y and weight from the figure the server sent; and the tip shows what the pointer reads."""
    open_page_in(page, server_url, "", "en")
    first = f"({FIGURES_JS})()[0]"
    sent = page.evaluate(
        f"() => JSON.parse(JSON.stringify({first}.querySelector('canvas').posencFigure.figure, "
        "(key, value) => value instanceof Uint8Array ? Array.from(value) : value))"
    )
    expected = set()
    for trace in sent["data"]:  # both sentences' maps
        z = decoded(trace["z"])
        xs, ys = trace.get("x") or list(range(z.shape[1])), trace.get("y") or list(range(z.shape[0]))
        expected |= {filled(trace["hovertemplate"], {"x": xs[c], "y": ys[r], "z": float(z[r, c])})
                     for r in range(z.shape[0]) for c in range(z.shape[1])}  # fmt: skip
    box = page.evaluate(f"() => {{ const r = {first}.querySelector('.plot').getBoundingClientRect(); "
                        "return [r.left, r.top, r.width, r.height]; }")  # fmt: skip
    readouts = page.evaluate(
        f"""([w, h]) => {{
            const figure = {first}.querySelector('canvas').posencFigure, out = [];
            for (let i = 1; i < 24; i++) for (let j = 1; j < 24; j++) out.push(figure.readout(w * i / 24, h * j / 24));
            return out.filter(Boolean);
        }}""",
        box[2:],
    )
    assert len(readouts) > 20  # the pointer met the map
    assert set(readouts) <= expected
    tip = page.locator(".figure-root .tip").first
    page.mouse.move(box[0] + box[2] * 0.3, box[1] + box[3] * 0.5)
    expect(tip).to_be_visible()
    assert tip.inner_text().strip() in expected


def test_a_figure_saves_as_a_png_of_its_size(page, server_url):
    open_page_in(page, server_url, "sinusoidal", "en")
    figure = page.locator(".figure-root").first
    figure.scroll_into_view_if_needed()
    size = page.evaluate(f"() => {{ const d = ({FIGURES_JS})()[0].querySelector('canvas').posencFigure.drawn; "
                         "return [d.width, d.height]; }")  # fmt: skip
    with page.expect_download() as download:
        figure.get_by_role("button", name=re.compile("Save PNG")).click()
    data = Path(download.value.path()).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (size[0] * 2, size[1] * 2)
    assert download.value.suggested_filename.endswith(".png")


def test_a_panel_whose_rows_match_another_is_reversed_with_it(page, server_url):
    """RoPE's layout attention: the right panel's y axis `matches` the left one's, reversed (query 0 at the top), and
    takes its direction as Plotly does: in both panels a point high in the plot reads an earlier query than one low
    in it."""
    open_page_in(page, server_url, "rope", "en")
    canvas = page.locator(".st-key-rope_attention_chart .figure-root canvas")
    canvas.scroll_into_view_if_needed()
    page.wait_for_function("c => c.posencFigure?.drawn", arg=canvas.element_handle())
    queries = canvas.evaluate(
        """c => { const f = c.posencFigure, { width, height } = f.drawn, out = [];
            for (const x of [0.25, 0.75]) for (const y of [0.35, 0.8]) out.push(f.readout(width * x, height * y));
            return out; }"""
    )
    rows = [int(re.search(r"query position m (\d+)", text)[1]) for text in queries]
    assert rows[0] < rows[1] and rows[2] < rows[3], queries
