"""What the relative-positions page draws, cached: Shaw et al.'s index matrix and clipping curve, T5's bucket curve,
bucket table and per-head bias, and ALiBi's slopes, bias lines and bias matrices, keyed by scalar inputs and the
language (``lang``: the figure words are looked up inside, so the cache key is one short string).

Live charts (``ui.live``): Shaw's matrix and curve over the clip distance k, T5's bucket curve over num_buckets and
max_distance, and ALiBi's slopes and bias lines over heads. The browser computes them at any value of their sliders
with posenc's twins (static/views/relative.js, static/twins.js); the server sends their words, their panels' layout and
the offsets each curve is drawn at.

Built figures are cached too (building one costs milliseconds), keyed by the controls that shape them and by the
language, so a move rebuilds only the charts it changes. A cached figure is shared by every
session and is never modified.
"""

import numpy as np
import streamlit as st

from charts import SHARED_ENTRIES
from figures import relative as fig
from figures.common import UNSIGNED_COLORS
from posenc.relative import (
    alibi_bias,
    alibi_power_of_two_heads,
    alibi_slope_exponents,
    alibi_slopes,
    relative_offsets,
    t5_bias_per_offset,
    t5_bucket_ranges,
    t5_illustrative_bias,
)
from ui.i18n import text
from ui.limits import LIMITS
from ui.live import spread_evenly
from ui.once import computed_once


@computed_once
def figure_labels(lang: str) -> dict[str, str]:
    """Every word the figure builders draw, in ``lang`` (one shared dict per language: read it, never change it)."""
    return {name: text(lang, f"relative.{name}") for name in fig.LABELS}


def live_words(lang: str, **labels: str) -> dict[str, str]:
    """A live chart's control labels (control name -> catalog key) and the hint under it, in ``lang``."""
    return {name: text(lang, key) for name, key in labels.items()} | {"hint": text(lang, "common.live_hint")}


# ---------------------------------------------------------------------------------------------------- Shaw et al.

SHAW_KS = range(0, 65)  # the clip distance slider: every k from 0 to 64
SHAW_FAR_POINTS = 24  # offsets drawn on each side beyond the matrix window, spread out to ±(length − 1)
SHAW_LINE = "#636efa"  # one colour for the curve's three pieces


def shaw_far_offsets(length: int) -> np.ndarray:
    """The offsets r = W − 1 … length − 1 beyond the matrix window W that the Shaw curve is drawn at: every one
    when few, else :data:`SHAW_FAR_POINTS` + 1 spread evenly, both ends included (the curve is flat there, as the
    window reaches 127 ≥ 64, k's largest value). Empty when the window holds the whole sequence."""
    near = fig.window_length(length) - 1
    if length - 1 <= near:
        return np.arange(0)
    return spread_evenly(near, length - 1, SHAW_FAR_POINTS + 1)


@st.cache_resource(max_entries=SHARED_ENTRIES)
def shaw_live(lang: str, length: int, k: int) -> dict:
    """The live Shaw chart (static/views/relative.js): the index matrix a_ij = f(j − i) (laid along the diagonals in
    the browser) and the curve f(r) = clip(r, −k, k) + k (posenc's shaw_clip_index, in the browser) at any k of the
    clip distance slider, over the matrix window W's offsets and the far ones (:func:`shaw_far_offsets`)."""
    labels = figure_labels(lang)
    series = [{"x": "offsets", "y": "window", "color": SHAW_LINE}]
    far = shaw_far_offsets(length)
    if len(far):
        series.insert(0, {"x": "far_left_offsets", "y": "far_left", "color": SHAW_LINE})
        series.append({"x": "far_right_offsets", "y": "far_right", "color": SHAW_LINE})
    data = {"view": "relative", "picture": "shaw", "controls": {"k": {"values": list(SHAW_KS)}}, "server": {"k": k},
            "arrays": {}, "window": fig.window_length(length), "far": far.tolist()}  # fmt: skip
    matrix = {
        "kind": "heatmap",
        "z": "window",
        "toeplitz": True,
        "zmin": 0,
        "zmax": "zmax",
        "colorscale": UNSIGNED_COLORS,
        "square": True,
        "words": {"title": labels["shaw_matrix_title"], "x": labels["key_position"], "y": labels["query_position"]},
    }
    curve = {
        "kind": "lines",
        "x": "offsets",
        "series": series,
        "marks": [{"x": "left_edge", "label": ""}, {"x": "right_edge", "label": "±k"}],  # math, not words
        "words": {"title": labels["shaw_curve_title"], "x": labels["relative_position"], "y": labels["table_row"]},
    }
    return data | {"height": 420, "words": live_words(lang, k="relative.shaw_k_label"), "panels": [matrix, curve]}


# ------------------------------------------------------------------------------------------------------------- T5

T5_NUM_BUCKETS = range(4, 65, 2)  # the num_buckets slider: every even B from 4 to 64
# The max_distance slider: 2 … 1024, about 1.5× apart (the page's value is added): 19 curves, not 1023.
T5_MAX_DISTANCES = (2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)


@st.cache_resource(max_entries=SHARED_ENTRIES)
def t5_live(lang: str, bidirectional: bool, length: int, num_buckets: int, max_distance: int) -> dict:
    """The live T5 bucket curve (static/views/relative.js): b(r) by posenc's t5_relative_bucket (in the browser) over
    r = ±2·max_distance at any num_buckets and max_distance of its sliders, with n_exact (t5_max_exact) as a readout
    and the old error as a note where posenc refuses the pair; marks at ±max_distance and ±(length − 1)."""
    labels = figure_labels(lang)
    controls = {"num_buckets": {"values": sorted({*T5_NUM_BUCKETS, num_buckets})},
                "max_distance": {"values": sorted({*T5_MAX_DISTANCES, max_distance})}}  # fmt: skip
    data = {"view": "relative", "picture": "t5", "controls": controls, "arrays": {}, "bidirectional": bidirectional,
            "length": length, "server": {"num_buckets": num_buckets, "max_distance": max_distance}}  # fmt: skip
    marks = [{"x": "back_edge", "label": "max_distance"}]  # the slider's name, not translated
    marks += [{"x": "edge", "label": ""}] if bidirectional else []
    marks += [{"x": "back_reach", "label": ""}, {"x": "reach", "label": "±(length − 1)"}]  # the shared control
    title = labels["t5_curve_title_bidirectional" if bidirectional else "t5_curve_title_causal"]
    curve = {
        "kind": "lines",
        "x": "offsets",
        "series": [{"y": "buckets"}],
        "marks": marks,
        "words": {"title": title, "x": labels["relative_position"], "y": labels["bucket"]},
    }
    words = live_words(lang, num_buckets="relative.t5_num_buckets_label", max_distance="relative.t5_max_distance_label")
    return data | {
        "height": 420,
        "words": words,
        "panels": [curve],
        "readouts": [text(lang, "relative.t5_live_readout")],
        "notes": [{"when": "invalid", "text": text(lang, "relative.t5_error")}],
    }


@st.cache_data(max_entries=64)
def t5_ranges(bidirectional: bool, num_buckets: int, max_distance: int):
    """The [B, 2] bucket ranges as numpy (``t5_bucket_ranges`` raises ValueError for an invalid pair)."""
    return t5_bucket_ranges(bidirectional, num_buckets, max_distance).numpy()


@st.cache_resource(max_entries=SHARED_ENTRIES)
def t5_bias_figure(bidirectional: bool, num_buckets: int, max_distance: int, heads: int, lang: str):
    labels = figure_labels(lang)
    offsets = relative_offsets(fig.t5_offset_span(max_distance))
    bias = t5_bias_per_offset(t5_illustrative_bias(heads, num_buckets, max_distance, bidirectional), offsets)
    return fig.t5_head_bias(offsets, bias.detach(), labels)


# ---------------------------------------------------------------------------------------------------------- ALiBi

ALIBI_LINE_POINTS = 17  # points per bias line at most: the lines are straight, so these draw them exactly
ALIBI_HEADS = range(LIMITS.heads_min, LIMITS.heads_max + 1)  # the heads slider: every count from 1 to 16
SLOPE_AXIS = (0.002, 1.0)  # every slope of 1 … 16 heads lies in 2^−8 … 2^−0.5: the log axis stays put


def alibi_offsets(length: int) -> np.ndarray:
    """The past offsets r the bias lines are drawn at: every r from −(length − 1) to 0 when few, else
    :data:`ALIBI_LINE_POINTS` of them spread evenly, both ends included."""
    return spread_evenly(1 - length, 0, ALIBI_LINE_POINTS)


@st.cache_resource(max_entries=SHARED_ENTRIES)
def alibi_live(lang: str, length: int, heads: int) -> dict:
    """The live ALiBi chart (static/views/relative.js): the slopes m_h (posenc's alibi_slopes, in the browser) as
    bars on a log axis and each head's bias m_h·r (alibi_bias_per_offset) over :func:`alibi_offsets`, at any head
    count of the shared heads slider."""
    labels = figure_labels(lang)
    data = {"view": "relative", "picture": "alibi", "controls": {"heads": {"values": list(ALIBI_HEADS)}},
            "server": {"heads": heads}, "arrays": {}, "rows": LIMITS.heads_max,
            "offsets": alibi_offsets(length).tolist()}  # fmt: skip
    bars = {
        "kind": "lines",
        "x": "head",
        "series": [{"y": "slopes", "mode": "bars"}],
        "log_y": True,
        "x_min": 0,
        "x_max": LIMITS.heads_max + 1,
        "y_min": SLOPE_AXIS[0],
        "y_max": SLOPE_AXIS[1],
        "words": {"title": labels["alibi_slopes_title"], "x": labels["head_h"], "y": labels["alibi_slope_axis"]},
    }
    lines = {
        "kind": "lines",
        "x": "offsets",
        "family": {"y": "bias", "name": labels["head_number"].format(head="{row}")},
        "words": {"title": labels["alibi_lines_title"], "x": labels["relative_position"], "y": labels["bias"]},
    }
    return data | {"height": 420, "words": live_words(lang, heads="shared.heads_label"), "panels": [bars, lines]}


@st.cache_resource(max_entries=SHARED_ENTRIES)
def alibi_figures(length: int, heads: int, lang: str):
    """The windowed [H, W, W] bias matrices of the steepest and gentlest head, and the note on how the slopes are
    built (both follow the heads slider when it is let go)."""
    labels = figure_labels(lang)
    slopes, exponents, power = alibi_slopes(heads), alibi_slope_exponents(heads), alibi_power_of_two_heads(heads)
    matrices = fig.alibi_head_matrices(alibi_bias(fig.window_length(length), heads), slopes, length, labels)
    return matrices, fig.alibi_slopes_note(exponents, power, labels)
