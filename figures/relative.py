"""Figures for the relative-position page: Shaw's clipped index, T5's buckets and bias, ALiBi's slopes and bias.

Arrays in (numpy or torch), ``plotly.graph_objects.Figure`` (or a small display table) out; no Streamlit here.
Offsets are always r = j − i (key minus query): negative means the key is in the past.
[L, L] matrices are shown as a window of the first ``MATRIX_WINDOW`` positions: they depend only on j − i, so a
window already holds every pattern, and a block mean of whole-number indices would invent values that do not occur.
Every builder hands plain trace and layout dicts to :func:`figures.common.figure` in one call: Plotly's
``update_*`` / ``add_*`` methods re-validate the whole figure each time and cost milliseconds apiece.
Step functions are sent as their change points only: the T5 bucket line always, and the per-head bias heatmap
(constant over a bucket) once it has more than ``MAX_BIAS_COLUMNS`` offsets. What is drawn is the same.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from figures.common import FONT_SIZE, SIGNED_COLORS, UNSIGNED_COLORS, as_f32, figure, layout

MATRIX_WINDOW = 128  # positions shown of an [L, L] matrix: 128 × 128 cells stay readable on a projector
MAX_LINE_POINTS = 512  # points per straight ALiBi line: more adds bytes, not information
MAX_BIAS_COLUMNS = 1024  # offsets drawn one column each in the T5 bias heatmap; more are merged by bucket
REGION_OPACITY = 0.15  # shaded regions: light enough to keep the curve legible in both themes
REGION_COLORS = {"exact": "#2ca02c", "log": "#ff7f0e", "cap": "#d62728", "clipped": "#d62728", "future": "#7f7f7f"}
PANEL_GAP = 0.1  # horizontal space between the two ALiBi matrix panels (as make_subplots leaves it)


def window_length(length: int, limit: int = MATRIX_WINDOW) -> int:
    """How many positions of an [L, L] matrix to draw: all of them, or the first ``limit``."""
    return min(int(length), int(limit))


def t5_offset_span(max_distance: int) -> int:
    """Offsets drawn for T5: ±2·max_distance, so the cap at max_distance sits in the middle of each half."""
    return 2 * int(max_distance)


def run_starts(values) -> np.ndarray:
    """Indices where a step function starts a new value (0 included).

    ``values`` is [N] (one curve) or [H, N] (one row per head: a column starts a run when any row changes).
    """
    table = np.asarray(values)
    table = table.reshape(1, -1) if table.ndim == 1 else table
    if table.shape[1] == 0:
        return np.arange(0)
    return np.concatenate([[0], np.flatnonzero(np.any(table[:, 1:] != table[:, :-1], axis=0)) + 1])


def step_change_points(values) -> np.ndarray:
    """Indices of a step function's samples that start a new value, plus the last sample.

    A line drawn with ``shape="hv"`` through these samples only is the same line as through all of them.
    """
    starts = run_starts(values)
    return starts if len(starts) == 0 else np.unique(np.append(starts, np.shape(values)[-1] - 1))


def _window_note(shown: int, length: int) -> str | None:
    if shown >= length:
        return None
    return (
        f"Window: positions 0–{shown - 1} of {length}. The matrix depends only on j − i, "
        "so the rest repeats this pattern along its diagonals."
    )


def _with_note(title: str, note: str | None) -> str:
    return title if note is None else f"{title}<br><sup>{note}</sup>"


def _shade(x0: float, x1: float, kind: str, label: str | None) -> tuple[list[dict], list[dict]]:
    """Shade offsets x0 … x1 (a region of the curve), with an optional label at the top: (shapes, annotations)."""
    if x1 < x0:
        return [], []
    rect = {
        "type": "rect",
        "xref": "x",
        "yref": "y domain",
        "x0": x0,
        "x1": x1,
        "y0": 0,
        "y1": 1,
        "fillcolor": REGION_COLORS[kind],
        "opacity": REGION_OPACITY,
        "line": {"width": 0},
    }
    if label is None:
        return [rect], []
    text = {
        "text": label,
        "font": {"size": FONT_SIZE - 2},
        "showarrow": False,
        "xref": "x",
        "yref": "y domain",
        "x": x0,
        "y": 1,
        "xanchor": "left",
        "yanchor": "top",
    }
    return [rect], [text]


def _vline(x: float, dash: str, width: int, label: str | None = None, at_top: bool = True):
    """A vertical line at offset x across the plot, with an optional label beside it: (shapes, annotations)."""
    line = {
        "type": "line",
        "xref": "x",
        "yref": "y domain",
        "x0": x,
        "x1": x,
        "y0": 0,
        "y1": 1,
        "line": {"dash": dash, "width": width},
    }
    if label is None:
        return [line], []
    text = {
        "text": label,
        "showarrow": False,
        "xref": "x",
        "yref": "y domain",
        "x": x,
        "y": 1 if at_top else 0,
        "xanchor": "left",
        "yanchor": "top" if at_top else "bottom",
    }
    return [line], [text]


def _collect(parts) -> tuple[list[dict], list[dict]]:
    shapes, annotations = [], []
    for part_shapes, part_annotations in parts:
        shapes += part_shapes
        annotations += part_annotations
    return shapes, annotations


def _index_heatmap(table: np.ndarray, zmax: float, colorbar: str, hover: str) -> dict:
    return {
        "type": "heatmap",
        "z": table,
        "x": np.arange(table.shape[1]),
        "y": np.arange(table.shape[0]),
        "colorscale": UNSIGNED_COLORS,
        "zmin": 0.0,
        "zmax": max(zmax, 1.0),
        "colorbar": {"title": {"text": colorbar}},
        "hovertemplate": hover,
    }


# ---------------------------------------------------------------------------------------------------- Shaw et al.


def shaw_index_matrix(index, k: int, length: int) -> go.Figure:
    """Heatmap of Shaw's table row clip(j − i, −k, k) + k for a window [W, W] of a length-``length`` sequence."""
    table = as_f32(index)
    trace = _index_heatmap(
        table,
        2 * k,
        "table row",
        "query i %{y}<br>key j %{x}<br>row %{z:.0f} of the table<extra></extra>",
    )
    title = _with_note(f"Table row used for each (query, key), clip distance k = {k}", _window_note(len(table), length))
    square = {
        "xaxis": {"constrain": "domain"},
        "yaxis": {"autorange": "reversed", "scaleanchor": "x", "constrain": "domain"},
    }
    return figure([trace], layout(title, "key position j", "query position i", 520, **square))


def shaw_index_curve(offsets, index, k: int) -> go.Figure:
    """Table row vs offset r = j − i, with the clipped offsets (which all look alike to the model) shaded."""
    x, y = as_f32(offsets), as_f32(index)
    trace = {
        "type": "scatter",
        "x": x,
        "y": y,
        "mode": "lines+markers" if len(x) <= 257 else "lines",
        "line": {"shape": "hv"},
        "name": "table row",
        "hovertemplate": "r = j − i = %{x:.0f}<br>table row %{y:.0f}<extra></extra>",
    }
    shapes, annotations = _collect(
        [
            _shade(float(x.min()), -k - 0.5, "clipped", "same row 0: “far left”"),
            _shade(k + 0.5, float(x.max()), "clipped", "same row 2k: “far right”"),
        ]
    )
    title, x_title = "Which table row an offset uses", "relative position r = j − i"
    return figure([trace], layout(title, x_title, "table row", 420, shapes=shapes, annotations=annotations))


# ------------------------------------------------------------------------------------------------------------- T5


def t5_bucket_curve(
    offsets, buckets, max_exact: int, max_distance: int, bidirectional: bool, length: int | None = None
) -> go.Figure:
    """T5 bucket vs offset r, with the exact region, the log region and the capped region shaded.

    The bucket is a step function of r: the line is sent as its change points (the first offset of each run of
    equal buckets, and the last offset), drawn with ``shape="hv"``, which is the same line as through every offset.
    ``length``: mark ±(length − 1), the offsets that occur in the current sequence, when they fall in the plot.
    """
    x, y = as_f32(offsets), as_f32(buckets)
    low, high = float(x.min()), float(x.max())
    keep = step_change_points(y)
    trace = {
        "type": "scatter",
        "x": x[keep],
        "y": y[keep],
        "mode": "lines",
        "line": {"shape": "hv"},
        "name": "bucket",
        "hovertemplate": "r = j − i = %{x:.0f}<br>bucket %{y:.0f}<extra></extra>",
    }
    title = f"T5 bucket of each relative position ({'bidirectional' if bidirectional else 'causal'})"
    # the past (r ≤ 0) always; the future mirrors it when bidirectional, and is all bucket 0 when causal
    parts = [
        _shade(-max_exact + 0.5, max_exact - 0.5 if bidirectional else 0.5, "exact", "exact"),
        _shade(-max_distance + 0.5, -max_exact + 0.5, "log", "log"),
        _shade(low, -max_distance + 0.5, "cap", "capped"),
    ]
    if bidirectional:  # same colours, no second set of labels (they would crowd the exact region)
        parts += [
            _shade(max_exact - 0.5, max_distance - 0.5, "log", None),
            _shade(max_distance - 0.5, high, "cap", None),
        ]
    else:
        parts.append(_shade(0.5, high, "future", "future keys: bucket 0"))
    for edge in (-max_distance, max_distance) if bidirectional else (-max_distance,):
        parts.append(_vline(edge, "dash", 1, "max_distance", at_top=False))
    if length is not None and length - 1 <= high:
        parts += [_vline(-(length - 1), "dot", 2), _vline(length - 1, "dot", 2, "±(length − 1)")]
    shapes, annotations = _collect(parts)
    return figure(
        [trace], layout(title, "relative position r = j − i", "bucket", shapes=shapes, annotations=annotations)
    )


def _format_offset(value: float) -> str:
    if math.isinf(value):
        return "−∞" if value < 0 else "+∞"
    return f"{int(value):+d}".replace("-", "−") if value else "0"  # the minus sign, as in the formulas


def t5_bucket_table(ranges, max_exact: int) -> pd.DataFrame:
    """The computed bucket boundaries as a display table: bucket, offsets r it covers, how many, region."""
    rows = []
    for bucket, (low, high) in enumerate(np.asarray(ranges, dtype=np.float64)):
        if math.isnan(low):
            rows.append((bucket, "never used", "0", "unused"))
            continue
        count = "∞" if math.isinf(low) or math.isinf(high) else str(int(high - low) + 1)
        covered = _format_offset(low) if low == high else f"{_format_offset(low)} … {_format_offset(high)}"
        nearest = min(abs(low), abs(high))  # the distance closest to the query decides the region
        if nearest < max_exact:
            region = "exact" if count == "1" else "exact (0) + every key ahead"
        elif count == "∞":
            region = "log, then capped"
        else:
            region = "log"
        rows.append((bucket, covered, count, region))
    return pd.DataFrame(rows, columns=["bucket", "relative positions r = j − i", "how many", "region"])


def t5_head_bias(offsets, bias, max_columns: int = MAX_BIAS_COLUMNS) -> go.Figure:
    """Heatmap of each head's T5 bias vs offset: rows = heads (1-based), columns = r.

    More than ``max_columns`` offsets are merged: every offset of a bucket has the same bias in every head, so
    each run of equal columns becomes one cell as wide as the run (exact, nothing averaged; the title says so),
    and the hover gives the run's first and last offset. There are at most as many runs as buckets in use.
    Offsets must be consecutive whole numbers (as ``relative_offsets`` gives): cell edges sit at ±0.5.
    """
    x, values = as_f32(offsets), as_f32(bias)
    heads = len(values)
    trace = {
        "type": "heatmap",
        "z": values,
        "x": x,
        "y": np.arange(1, heads + 1),
        "colorscale": SIGNED_COLORS,
        "zmid": 0.0,
        "colorbar": {"title": {"text": "bias"}},
        "hovertemplate": "head %{y}<br>r = j − i = %{x:.0f}<br>bias %{z:.3f}<extra></extra>",
    }
    title = "Per-head bias added to the logits (random, untrained values)"
    if len(x) > max_columns:
        starts = run_starts(values)
        ends = np.append(starts[1:] - 1, len(x) - 1)  # last offset of each run
        ranges = np.stack([x[starts], x[ends]], axis=-1)  # [R, 2] first and last offset of each run
        trace |= {
            "z": values[:, starts],
            "x": np.append(x[starts] - 0.5, x[-1] + 0.5).astype(np.float32),  # R + 1 cell edges
            "customdata": np.broadcast_to(ranges, (heads, *ranges.shape)).astype(np.float32),
            "hovertemplate": (
                "head %{y}<br>r = j − i = %{customdata[0]:.0f} … %{customdata[1]:.0f}<br>bias %{z:.3f}<extra></extra>"
            ),
        }
        note = (
            f"Offsets that share a bucket share one bias, so each run of them is drawn as one cell: "
            f"{len(starts)} cells stand for all {len(x)} offsets, nothing averaged."
        )
        title = _with_note(title, note)
    extra = {"yaxis": {"autorange": "reversed", "dtick": 1}}
    return figure([trace], layout(title, "relative position r = j − i", "head", 120 + 28 * heads, **extra))


# ---------------------------------------------------------------------------------------------------------- ALiBi


def alibi_slopes_bar(slopes, exponents, power_heads: int) -> go.Figure:
    """Bar per head of its slope m_h (log axis), coloured by where it comes from when heads is not a power of two."""
    m, e = as_f32(slopes), np.asarray(exponents, dtype=np.float64)
    heads = np.arange(1, len(m) + 1)
    labels = [f"2^−{value:g}" for value in e]
    groups = [(slice(0, power_heads), f"{power_heads}-head sequence 2^(−8h/{power_heads})")]
    if power_heads < len(m):
        groups.append((slice(power_heads, None), f"every other slope of {2 * power_heads} heads"))
    traces = [
        {
            "type": "bar",
            "x": heads[part],
            "y": m[part],
            "text": labels[part],
            "textposition": "outside",
            "name": name,
            "hovertemplate": "head %{x}<br>slope m = %{text} = %{y:.5f}<extra></extra>",
        }
        for part, name in groups
    ]
    extra = {
        "xaxis": {"dtick": 1},
        "yaxis": {"type": "log"},
        "showlegend": True,
        "uniformtext": {"minsize": FONT_SIZE - 4},
    }
    return figure(traces, layout("ALiBi slope m_h of each head", "head h", "slope m_h (log scale)", 420, **extra))


def alibi_bias_lines(offsets, bias) -> go.Figure:
    """One line per head: bias m_h · r over the past offsets r ≤ 0 (a straight line through 0).

    Long sequences send at most ``MAX_LINE_POINTS`` evenly spaced offsets per line, ends included: the lines are
    straight, so nothing is lost.
    """
    x, values = as_f32(offsets), as_f32(bias)
    if len(x) > MAX_LINE_POINTS:
        keep = np.unique(np.linspace(0, len(x) - 1, MAX_LINE_POINTS).round().astype(np.int64))
        x, values = x[keep], values[:, keep]
    traces = [
        {
            "type": "scatter",
            "x": x,
            "y": row,
            "mode": "lines",
            "name": f"head {head}",
            "hovertemplate": f"head {head}<br>r = j − i = %{{x:.0f}}<br>bias %{{y:.3f}}<extra></extra>",
        }
        for head, row in enumerate(values, start=1)
    ]
    title = "Bias added to the logit vs how far back the key is"
    return figure(traces, layout(title, "relative position r = j − i", "bias"))


def alibi_head_matrices(bias, slopes, length: int) -> go.Figure:
    """[W, W] ALiBi bias of the steepest and the gentlest head side by side; masked keys blank.

    The steepest head is not always head 1: with a non-power-of-two head count the extra heads (e.g. 2^−0.5) are
    steeper, so the panels are picked by slope.
    """
    values = as_f32(bias)  # [H, W, W]
    values = np.where(np.isneginf(values), np.nan, values)  # −inf (masked future) drawn as an empty cell
    m = as_f32(slopes)
    picks = [int(np.argmax(m))] if len(values) == 1 else [int(np.argmax(m)), int(np.argmin(m))]
    names = ["steepest", "gentlest"]
    lowest = float(np.nanmin(values[picks])) if np.isfinite(values[picks]).any() else -1.0
    width = (1.0 - PANEL_GAP * (len(picks) - 1)) / len(picks)
    traces, panels, titles = [], {}, []
    for n, head in enumerate(picks):
        suffix = "" if n == 0 else str(n + 1)
        domain = [n * (width + PANEL_GAP), n * (width + PANEL_GAP) + width]
        traces.append(
            {
                "type": "heatmap",
                "z": values[head],
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "colorscale": SIGNED_COLORS,
                "zmin": lowest,  # symmetric range: 0 stays white, as with zmid=0, and both panels share one scale
                "zmax": -lowest,
                "showscale": n == len(picks) - 1,
                "colorbar": {"title": {"text": "bias"}},
                "hovertemplate": "query i %{y}<br>key j %{x}<br>bias %{z:.3f}<extra></extra>",
            }
        )
        panels[f"xaxis{suffix}"] = {"title": {"text": "key position j"}, "domain": domain, "anchor": f"y{suffix}"}
        panels[f"yaxis{suffix}"] = {
            "title": {"text": "query position i"},
            "domain": [0.0, 1.0],
            "anchor": f"x{suffix}",
            "autorange": "reversed",
        }
        titles.append(
            {
                "text": f"head {head + 1} ({names[n]})",
                "font": {"size": FONT_SIZE},
                "showarrow": False,
                "xref": "paper",
                "yref": "paper",
                "x": (domain[0] + domain[1]) / 2,
                "y": 1.0,
                "xanchor": "center",
                "yanchor": "bottom",
            }
        )
    title = "Bias matrix: steepest and gentlest head (blank = masked future)"
    title = _with_note(title, _window_note(values.shape[1], length))
    margin = {"t": 110}  # room for the window note above the panel titles
    return figure(
        traces, layout(title, "key position j", "query position i", 540, margin=margin, annotations=titles, **panels)
    )


def alibi_slopes_note(exponents, power_heads: int) -> str:
    """Markdown that says how the slopes were built for this head count, with the computed exponents."""
    e = [f"{value:g}" for value in np.asarray(exponents, dtype=np.float64)]
    n = len(e)
    if n == power_heads:
        return (
            f"**heads = {n} is a power of two**, so the slopes are the geometric sequence m_h = 2^(−8h/{n}): "
            f"exponents {', '.join(e)}. Head 1 is the steepest; each next one is gentler by the same factor."
        )
    return (
        f"**heads = {n} is not a power of two.** ALiBi takes the {power_heads}-head slopes 2^(−8h/{power_heads}) "
        f"for heads 1–{power_heads} (exponents {', '.join(e[:power_heads])}), then fills the other "
        f"{n - power_heads} heads with every other slope of the {2 * power_heads}-head sequence, h = 1, 3, 5, … "
        f"(exponents {', '.join(e[power_heads:])}). These fall between the first slopes, so no slope repeats and "
        "they still span steep to gentle."
    )
