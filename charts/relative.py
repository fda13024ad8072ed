"""What the relative-positions page draws, cached: Shaw et al.'s index matrix and clipping curve, T5's bucket curve,
bucket table and per-head bias, and ALiBi's slopes, bias lines and bias matrices, keyed by scalar inputs and the
language (``lang``: the figure words are looked up inside, so the cache key is one short string).

Live charts (``ui.live``): Shaw's matrix and curve over the clip distance k, T5's bucket curve over num_buckets and
max_distance, and ALiBi's slopes and bias lines over heads. For every value of each slider, posenc computes the
picture on the server (``*_picture``); the browser only picks the row of the slider that moved.

Built figures are cached too (building one costs milliseconds), keyed by the controls that shape them and by the
language, so a move rebuilds only the charts it changes. A cached figure is shared by every
session and is never modified.
"""

import numpy as np
import streamlit as st
import torch

from charts import SHARED_ENTRIES
from figures import relative as fig
from figures.common import UNSIGNED_COLORS
from posenc.relative import (
    alibi_bias,
    alibi_bias_per_offset,
    alibi_power_of_two_heads,
    alibi_slope_exponents,
    alibi_slopes,
    relative_offsets,
    shaw_clip_index,
    t5_bias_per_offset,
    t5_bucket_ranges,
    t5_illustrative_bias,
    t5_max_exact,
    t5_relative_bucket,
)
from ui.i18n import text
from ui.limits import LIMITS
from ui.live import sliced, spread_evenly
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


@computed_once(maxsize=256)  # one picture of a live chart's slices (charts/__init__.py)
def shaw_picture(k: int, length: int) -> dict[str, np.ndarray]:
    """Shaw's table row clip(r, −k, k) + k by posenc (``shaw_clip_index``) at every r = −(W − 1) … W − 1 of the
    matrix window ("window": the [W, W] matrix a_ij = f(j − i) is picked from it, and it is the curve's middle),
    and, for a longer sequence, at the offsets beyond it on either side ("far_left", "far_right"). With the colour
    range's top, max(2k, 1), and the marks at ±k."""
    window = fig.window_length(length)
    picture = {"window": shaw_clip_index(relative_offsets(window - 1), k).numpy()}
    far = torch.from_numpy(shaw_far_offsets(length))
    if len(far):
        picture |= {"far_left": shaw_clip_index(-far.flip(0), k).numpy(), "far_right": shaw_clip_index(far, k).numpy()}
    return picture | {"zmax": [max(2 * k, 1)], "left_edge": [-k], "right_edge": [k]}


@st.cache_resource(max_entries=SHARED_ENTRIES)
def shaw_live(lang: str, length: int, k: int) -> dict:
    """The live Shaw chart: the index matrix (Toeplitz, built in the browser by picking f(j − i)) and the curve,
    for every k of the clip distance slider (:func:`shaw_picture`); the offsets are sent once."""
    labels = figure_labels(lang)
    window = fig.window_length(length)
    fixed = {"offsets": relative_offsets(window - 1).numpy()}
    series = [{"x": "offsets", "y": "window", "color": SHAW_LINE}]
    far = shaw_far_offsets(length)
    if len(far):
        fixed |= {"far_left_offsets": -far[::-1], "far_right_offsets": far}
        series.insert(0, {"x": "far_left_offsets", "y": "far_left", "color": SHAW_LINE})
        series.append({"x": "far_right_offsets", "y": "far_right", "color": SHAW_LINE})
    data = sliced({"k": SHAW_KS}, {"k": k}, lambda k: shaw_picture(k, length), fixed=fixed)
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


@computed_once(maxsize=256)  # one picture of a live chart's slices (charts/__init__.py)
def t5_picture(num_buckets: int, max_distance: int, bidirectional: bool, length: int) -> dict[str, np.ndarray]:
    """T5's bucket b(r) by posenc (``t5_relative_bucket``) over r = −2·max_distance … 2·max_distance, sent at the
    first and last offset of each run of equal buckets: the line through them is b at every whole r.
    "invalid" is 1 (and nothing is drawn) where posenc rejects the pair: max_distance within the exact range."""
    marks = {"edge": [max_distance], "back_edge": [-max_distance], "reach": [length - 1], "back_reach": [1 - length]}
    max_exact = [t5_max_exact(bidirectional, num_buckets)]
    offsets = relative_offsets(fig.t5_offset_span(max_distance))
    try:
        buckets = t5_relative_bucket(offsets, bidirectional, num_buckets, max_distance).numpy()
    except ValueError:  # max_distance ≤ n_exact: the chart says why instead
        return {"offsets": [np.nan], "buckets": [np.nan], "invalid": [1], "max_exact": max_exact} | marks
    starts = fig.run_starts(buckets)
    keep = np.unique(np.concatenate([starts, starts[1:] - 1, [len(buckets) - 1]]))
    return {"offsets": offsets.numpy()[keep], "buckets": buckets[keep], "invalid": [0], "max_exact": max_exact} | marks


@st.cache_resource(max_entries=SHARED_ENTRIES)
def t5_live(lang: str, bidirectional: bool, length: int, num_buckets: int, max_distance: int) -> dict:
    """The live T5 bucket curve for every num_buckets and every max_distance of its sliders
    (:func:`t5_picture`), with n_exact as a readout and the old error as a note where the pair is invalid."""
    labels = figure_labels(lang)
    grids = {"num_buckets": T5_NUM_BUCKETS, "max_distance": T5_MAX_DISTANCES}
    server = {"num_buckets": num_buckets, "max_distance": max_distance}
    data = sliced(grids, server, lambda **values: t5_picture(**values, bidirectional=bidirectional, length=length))
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


@computed_once(maxsize=256)  # one picture of a live chart's slices (charts/__init__.py)
def alibi_picture(heads: int, length: int) -> dict[str, np.ndarray]:
    """ALiBi's slopes m_h = 2^(−8h/n) by posenc (``alibi_slopes``) and each head's bias m_h·r over the past offsets
    (``alibi_bias_per_offset``), padded with NaN to 16 heads (the browser skips the padding)."""
    rows = LIMITS.heads_max
    slopes = np.full(rows, np.nan)
    slopes[:heads] = alibi_slopes(heads, dtype=torch.float64).numpy()
    offsets = alibi_offsets(length)
    bias = np.full((rows, len(offsets)), np.nan)
    bias[:heads] = alibi_bias_per_offset(torch.from_numpy(offsets), heads).numpy()
    return {"slopes": slopes, "bias": bias}


@st.cache_resource(max_entries=SHARED_ENTRIES)
def alibi_live(lang: str, length: int, heads: int) -> dict:
    """The live ALiBi chart: slopes as bars (log axis) and the bias lines, for every head count of the shared
    heads slider (:func:`alibi_picture`); the head numbers and offsets are sent once."""
    labels = figure_labels(lang)
    fixed = {"head": np.arange(1, LIMITS.heads_max + 1), "offsets": alibi_offsets(length)}
    data = sliced({"heads": ALIBI_HEADS}, {"heads": heads}, lambda heads: alibi_picture(heads, length), fixed=fixed)
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
