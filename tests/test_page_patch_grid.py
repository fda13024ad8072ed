"""The 2-D positions section of "RoPE layer by layer" (ui/patch_grid.py) in AppTest: the heatmap's scores against a
by-hand formula, the query ringed, the strip of which axis owns each pair, the predict-first question, a query kept
inside a grid made smaller, and the section in every language."""

from __future__ import annotations

import math

import numpy as np
import pytest
from conftest import decode, figure_by_key

from ui.i18n import LANGUAGES, text

PAGE = "pages/rope_layers.py"


def axial_by_hand(side: int, row: int, column: int) -> np.ndarray:
    """Qwen2-VL's vision encoder: 20 pairs turn with the row, 20 with the column, each at 10 000^(−j/20)."""
    theta = [1e4 ** (-j / 20) for j in range(20)]
    out = np.zeros((side, side))
    for r in range(side):
        for c in range(side):
            out[r, c] = sum(math.cos((r - row) * t) + math.cos((c - column) * t) for t in theta) / 40
    return out


def strip(at) -> list[int]:
    """The axis of every pair, read from the strip: rows time, row, column; a pair's cell filled in its axis's row."""
    owned = decode(figure_by_key(at, "rope_layers_patch_axes")["data"][0]["z"])
    assert (np.isfinite(owned).sum(axis=0) == 1).all()  # every pair in exactly one row
    return np.argmax(np.isfinite(owned), axis=0).tolist()


def test_the_heatmap_is_the_axial_score_of_the_picked_patch(open_page):
    state = {"rope_layers_patch_layout": "axial", "rope_layers_patch_side": 6, "rope_layers_patch_row": 1,
             "rope_layers_patch_column": 4}  # fmt: skip
    at = open_page(PAGE, state=state)
    assert not at.exception
    heat, ring = figure_by_key(at, "rope_layers_patch_chart")["data"]
    np.testing.assert_allclose(decode(heat["z"]), axial_by_hand(6, 1, 4), atol=1e-6)  # float32 on the wire
    assert (ring["x"], ring["y"]) == ([4], [1])
    assert strip(at) == [1] * 20 + [2] * 20  # rows, then columns; no time pair


def test_the_strip_says_which_axis_owns_which_pairs(open_page):
    at = open_page(PAGE, state={"rope_layers_patch_layout": "chunked"})
    assert strip(at) == [0] * 16 + [1] * 24 + [2] * 24  # Qwen2-VL's mrope_section [16, 24, 24]
    at = open_page(PAGE, state={"rope_layers_patch_layout": "interleaved"})
    axes = strip(at)
    assert axes[:6] == [0, 1, 2, 0, 1, 2] and axes[60:] == [0] * 4  # Qwen3-VL: [24, 20, 20], interleaved
    assert any("20 for height, 20 for width" in caption.value for caption in at.caption)


def test_the_question_is_answered_by_the_slow_pairs_of_chunked_m_rope(open_page):
    at = open_page(PAGE)
    heat, _ = figure_by_key(at, "rope_layers_patch_chart")["data"]
    drop = 1 - decode(heat["z"]).min()  # the default: chunked, 16 × 16, the query in the middle
    assert 0 < drop < 0.01
    at.radio(key="cp_layers_patch_choice").set_value(0)
    at.button(key="cp_layers_patch_check").click().run()
    assert not at.exception
    assert any(f"It falls by only {drop:.4f}" in element.value for element in at.success)


def test_a_smaller_grid_keeps_the_query_inside(open_page):
    at = open_page(PAGE, state={"rope_layers_patch_row": 15, "rope_layers_patch_column": 15})
    at.slider(key="rope_layers_patch_side").set_value(4).run()
    assert not at.exception
    _, ring = figure_by_key(at, "rope_layers_patch_chart")["data"]
    assert (ring["x"], ring["y"]) == ([3], [3])


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_the_section_reads_in_another_language(open_page, lang):
    at = open_page(PAGE, query={"lang": lang})
    assert not at.exception
    assert text(lang, "patch_grid.header") in [header.value for header in at.subheader]
    assert figure_by_key(at, "rope_layers_patch_chart")["layout"]["title"]["text"].startswith(
        text(lang, "patch_grid.grid_title")[:6]
    )
