"""What the relative-positions page draws, cached: Shaw et al.'s index matrix and clipping curve, T5's bucket curve,
bucket table and per-head bias, and ALiBi's slopes, bias lines and bias matrices, keyed by scalar inputs and the
language (``lang``: the figure words are looked up inside, so the cache key is one short string).

Live charts (``ui.live``): Shaw's matrix and curve over the clip distance k, T5's bucket curve over num_buckets and
max_distance, and ALiBi's slopes and bias lines over heads. The browser computes them at any value of their sliders
with posenc's twins (static/views/relative.js, static/twins.js), at the shared length the sidebar's thumb is on; the
server sends their words and their panels' layout.

Built figures are cached too (building one costs milliseconds), keyed by the controls that shape them and by the
language, so a move rebuilds only the charts it changes. A cached figure is shared by every
session and is never modified.
"""

from charts import SHARED_ENTRIES
from figures import relative as fig
from figures.common import UNSIGNED_COLORS, top_margin, wrapped
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
# Offsets drawn on each side beyond the matrix window W, out to ±(length − 1): W − 1 … length − 1, every one when few,
# else 25 spread evenly (the curve is flat there: W reaches 127 ≥ 64, k's largest value; static/views/relative.js)
SHAW_FAR_POINTS = 24
SHAW_LINE = "#636efa"  # one colour for the curve's three pieces


@computed_once(maxsize=SHARED_ENTRIES)
def shaw_live(lang: str, length: int, k: int) -> dict:
    """The live Shaw chart (static/views/relative.js): the index matrix a_ij = f(j − i) (laid along the diagonals in
    the browser) and the curve f(r) = clip(r, −k, k) + k (posenc's shaw_clip_index, in the browser) at any k of the
    clip distance slider, over the matrix window's offsets and :data:`SHAW_FAR_POINTS` far ones, at the length it
    follows."""
    labels = figure_labels(lang)
    series = [{"x": x, "y": y, "color": SHAW_LINE} for x, y in (("far_left_offsets", "far_left"),
              ("offsets", "window"), ("far_right_offsets", "far_right"))]  # fmt: skip
    data = {"view": "relative", "picture": "shaw", "controls": {"k": {"values": list(SHAW_KS)}}, "server": {"k": k},
            "arrays": {}, "follows": {"length": length}, "matrix_window": fig.MATRIX_WINDOW,
            "far_points": SHAW_FAR_POINTS + 1}  # fmt: skip
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


@computed_once(maxsize=SHARED_ENTRIES)
def t5_live(lang: str, bidirectional: bool, length: int, num_buckets: int, max_distance: int) -> dict:
    """The live T5 bucket curve (static/views/relative.js): b(r) by posenc's t5_relative_bucket (in the browser) over
    r = ±2·max_distance at any num_buckets and max_distance of its sliders, with n_exact (t5_max_exact) as a readout
    and the old error as a note where posenc refuses the pair; marks at ±max_distance and ±(length − 1)."""
    labels = figure_labels(lang)
    controls = {"num_buckets": {"values": sorted({*T5_NUM_BUCKETS, num_buckets})},
                "max_distance": {"values": sorted({*T5_MAX_DISTANCES, max_distance})}}  # fmt: skip
    server = {"num_buckets": num_buckets, "max_distance": max_distance}
    data = {"view": "relative", "picture": "t5", "controls": controls, "server": server, "arrays": {},
            "bidirectional": bidirectional, "follows": {"length": length}}  # fmt: skip
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


@computed_once(maxsize=64)
def t5_ranges(bidirectional: bool, num_buckets: int, max_distance: int):
    """The [B, 2] bucket ranges as numpy (``t5_bucket_ranges`` raises ValueError for an invalid pair)."""
    return t5_bucket_ranges(bidirectional, num_buckets, max_distance).numpy()


@computed_once(maxsize=SHARED_ENTRIES)
def t5_bias_figure(bidirectional: bool, num_buckets: int, max_distance: int, heads: int, lang: str):
    labels = figure_labels(lang)
    offsets = relative_offsets(fig.t5_offset_span(max_distance))
    bias = t5_bias_per_offset(t5_illustrative_bias(heads, num_buckets, max_distance, bidirectional), offsets)
    return fig.t5_head_bias(offsets, bias.detach(), labels)


# ---------------------------------------------------------------------------------------------------------- ALiBi

# Points per bias line at most, spread evenly over −(length − 1) … 0 (static/views/relative.js): the lines are
# straight, so these draw them exactly
ALIBI_LINE_POINTS = 17
ALIBI_HEADS = range(LIMITS.heads_min, LIMITS.heads_max + 1)  # the heads slider: every count from 1 to 16
SLOPE_AXIS = (0.002, 1.0)  # every slope of 1 … 16 heads lies in 2^−8 … 2^−0.5: the log axis stays put


@computed_once(maxsize=SHARED_ENTRIES)
def alibi_live(lang: str, length: int, heads: int) -> dict:
    """The live ALiBi chart (static/views/relative.js): the slopes m_h (posenc's alibi_slopes, in the browser) as
    bars on a log axis and each head's bias m_h·r (alibi_bias_per_offset) over :data:`ALIBI_LINE_POINTS` past
    offsets, at any head count of the shared heads slider and the length it follows."""
    labels = figure_labels(lang)
    data = {"view": "relative", "picture": "alibi", "controls": {"heads": {"values": list(ALIBI_HEADS)}},
            "server": {"heads": heads}, "arrays": {}, "rows": LIMITS.heads_max, "follows": {"length": length},
            "line_points": ALIBI_LINE_POINTS}  # fmt: skip
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


@computed_once(maxsize=SHARED_ENTRIES)
def alibi_follow(length: int, heads: int, lang: str) -> dict:
    """How the browser redraws the bias matrices of :func:`alibi_matrices` while the sidebar's length or heads moves
    (``ui.figure.figure_chart``'s ``follow``): the view static/views/alibi_matrices.js computes them with the twins of
    posenc's alibi_slopes and alibi_bias_per_offset and names the panels from the catalog's templates."""
    labels = figure_labels(lang)
    title, panel = wrapped(labels["alibi_matrix_title"]), [{"text": "", "yref": "paper", "y": 1.0}]
    tops = {lines: top_margin(title + "<br>" * (lines - 1), panel, fig.ALIBI_MARGIN_TOP) for lines in (1, 2)}
    data = {"window": fig.MATRIX_WINDOW, "panel_gap": fig.PANEL_GAP, "title": title,
            "margin_top": tops[1], "margin_top_noted": tops[2],  # the title alone, and with the window note
            "window_note": labels["window_note"], "names": [labels["alibi_steepest_head"],
                                                            labels["alibi_gentlest_head"]]}  # fmt: skip
    return {"view": "alibi_matrices", "follows": {"length": length, "heads": heads}, "data": data}


def alibi_matrices(length: int, heads: int, lang: str):
    """The windowed [H, W, W] bias matrices of the steepest and the gentlest head (figures.relative)."""
    bias = alibi_bias(fig.window_length(length), heads)
    return fig.alibi_head_matrices(bias, alibi_slopes(heads), length, figure_labels(lang))


def alibi_note(heads: int, lang: str) -> str:
    """The note on how the slopes are built for ``heads`` heads, with their exponents."""
    exponents, power = alibi_slope_exponents(heads), alibi_power_of_two_heads(heads)
    return fig.alibi_slopes_note(exponents, power, figure_labels(lang))
