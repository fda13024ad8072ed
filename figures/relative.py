"""Figures for the relative-position page: Shaw's clipped index, T5's buckets and bias, ALiBi's slopes and bias.

Arrays in (numpy or torch), ``plotly.graph_objects.Figure`` (or a small display table) out; no Streamlit here.
Offsets are always r = j − i (key minus query): negative means the key is in the past.
[L, L] matrices are shown as a window of the first ``MATRIX_WINDOW`` positions: they depend only on j − i, so a
window already holds every pattern, and a block mean of whole-number indices would invent values that do not occur.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from figures.common import FONT_SIZE, SIGNED_COLORS, UNSIGNED_COLORS, as_f32, style

MATRIX_WINDOW = 128  # positions shown of an [L, L] matrix: 128 × 128 cells stay readable on a projector
MAX_LINE_POINTS = 512  # points per straight ALiBi line: more adds bytes, not information
REGION_OPACITY = 0.15  # shaded regions: light enough to keep the curve legible in both themes
REGION_COLORS = {"exact": "#2ca02c", "log": "#ff7f0e", "cap": "#d62728", "clipped": "#d62728", "future": "#7f7f7f"}


def window_length(length: int, limit: int = MATRIX_WINDOW) -> int:
    """How many positions of an [L, L] matrix to draw: all of them, or the first ``limit``."""
    return min(int(length), int(limit))


def t5_offset_span(max_distance: int) -> int:
    """Offsets drawn for T5: ±2·max_distance, so the cap at max_distance sits in the middle of each half."""
    return 2 * int(max_distance)


def _window_note(shown: int, length: int) -> str | None:
    if shown >= length:
        return None
    return (
        f"Window: positions 0–{shown - 1} of {length}. The matrix depends only on j − i, "
        "so the rest repeats this pattern along its diagonals."
    )


def _with_note(title: str, note: str | None) -> str:
    return title if note is None else f"{title}<br><sup>{note}</sup>"


def _shade(fig: go.Figure, x0: float, x1: float, kind: str, label: str | None, **where) -> None:
    """Shade offsets x0 … x1 (a region of the curve), with an optional label at the top."""
    if x1 < x0:
        return
    if label is not None:
        where |= {"annotation_text": label, "annotation_position": "top left", "annotation_font_size": FONT_SIZE - 2}
    fig.add_vrect(x0=x0, x1=x1, fillcolor=REGION_COLORS[kind], opacity=REGION_OPACITY, line_width=0, **where)


def _index_heatmap(table: np.ndarray, zmax: float, colorbar: str, hover: str) -> go.Heatmap:
    return go.Heatmap(
        z=table,
        x=np.arange(table.shape[1]),
        y=np.arange(table.shape[0]),
        colorscale=UNSIGNED_COLORS,
        zmin=0.0,
        zmax=max(zmax, 1.0),
        colorbar={"title": {"text": colorbar}},
        hovertemplate=hover,
    )


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
    fig = style(go.Figure(trace), title, "key position j", "query position i", height=520)
    fig.update_yaxes(autorange="reversed", scaleanchor="x", constrain="domain")  # square cells, no empty margins
    fig.update_xaxes(constrain="domain")
    return fig


def shaw_index_curve(offsets, index, k: int) -> go.Figure:
    """Table row vs offset r = j − i, with the clipped offsets (which all look alike to the model) shaded."""
    x, y = as_f32(offsets), as_f32(index)
    trace = go.Scatter(
        x=x,
        y=y,
        mode="lines+markers" if len(x) <= 257 else "lines",
        line={"shape": "hv"},
        name="table row",
        hovertemplate="r = j − i = %{x:.0f}<br>table row %{y:.0f}<extra></extra>",
    )
    fig = style(go.Figure(trace), "Which table row an offset uses", "relative position r = j − i", "table row", 420)
    _shade(fig, float(x.min()), -k - 0.5, "clipped", "same row 0: “far left”")
    _shade(fig, k + 0.5, float(x.max()), "clipped", "same row 2k: “far right”")
    return fig


# ------------------------------------------------------------------------------------------------------------- T5


def t5_bucket_curve(
    offsets, buckets, max_exact: int, max_distance: int, bidirectional: bool, length: int | None = None
) -> go.Figure:
    """T5 bucket vs offset r, with the exact region, the log region and the capped region shaded.

    ``length``: mark ±(length − 1), the offsets that occur in the current sequence, when they fall in the plot.
    """
    x, y = as_f32(offsets), as_f32(buckets)
    trace = go.Scatter(
        x=x,
        y=y,
        mode="lines",
        line={"shape": "hv"},
        name="bucket",
        hovertemplate="r = j − i = %{x:.0f}<br>bucket %{y:.0f}<extra></extra>",
    )
    title = f"T5 bucket of each relative position ({'bidirectional' if bidirectional else 'causal'})"
    fig = style(go.Figure(trace), title, "relative position r = j − i", "bucket")
    low, high = float(x.min()), float(x.max())
    # the past (r ≤ 0) always; the future mirrors it when bidirectional, and is all bucket 0 when causal
    _shade(fig, -max_exact + 0.5, max_exact - 0.5 if bidirectional else 0.5, "exact", "exact")
    _shade(fig, -max_distance + 0.5, -max_exact + 0.5, "log", "log")
    _shade(fig, low, -max_distance + 0.5, "cap", "capped")
    if bidirectional:  # same colours, no second set of labels (they would crowd the exact region)
        _shade(fig, max_exact - 0.5, max_distance - 0.5, "log", None)
        _shade(fig, max_distance - 0.5, high, "cap", None)
    else:
        _shade(fig, 0.5, high, "future", "future keys: bucket 0")
    for edge in (-max_distance, max_distance) if bidirectional else (-max_distance,):
        fig.add_vline(
            x=edge, line_dash="dash", line_width=1, annotation_text="max_distance", annotation_position="bottom right"
        )
    if length is not None and length - 1 <= high:
        fig.add_vline(x=-(length - 1), line_dash="dot", line_width=2)
        fig.add_vline(x=length - 1, line_dash="dot", line_width=2, annotation_text="±(length − 1)")
    return fig


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


def t5_head_bias(offsets, bias) -> go.Figure:
    """Heatmap of each head's T5 bias vs offset: rows = heads (1-based), columns = r."""
    values = as_f32(bias)
    trace = go.Heatmap(
        z=values,
        x=as_f32(offsets),
        y=np.arange(1, len(values) + 1),
        colorscale=SIGNED_COLORS,
        zmid=0.0,
        colorbar={"title": {"text": "bias"}},
        hovertemplate="head %{y}<br>r = j − i = %{x:.0f}<br>bias %{z:.3f}<extra></extra>",
    )
    title = "Per-head bias added to the logits (random, untrained values)"
    fig = style(go.Figure(trace), title, "relative position r = j − i", "head", height=120 + 28 * len(values))
    fig.update_yaxes(autorange="reversed", dtick=1)
    return fig


# ---------------------------------------------------------------------------------------------------------- ALiBi


def alibi_slopes_bar(slopes, exponents, power_heads: int) -> go.Figure:
    """Bar per head of its slope m_h (log axis), coloured by where it comes from when heads is not a power of two."""
    m, e = as_f32(slopes), np.asarray(exponents, dtype=np.float64)
    heads = np.arange(1, len(m) + 1)
    labels = [f"2^−{value:g}" for value in e]
    fig = go.Figure()
    groups = [(slice(0, power_heads), f"{power_heads}-head sequence 2^(−8h/{power_heads})")]
    if power_heads < len(m):
        groups.append((slice(power_heads, None), f"every other slope of {2 * power_heads} heads"))
    for part, name in groups:
        fig.add_bar(
            x=heads[part],
            y=m[part],
            text=labels[part],
            textposition="outside",
            name=name,
            hovertemplate="head %{x}<br>slope m = %{text} = %{y:.5f}<extra></extra>",
        )
    style(fig, "ALiBi slope m_h of each head", "head h", "slope m_h (log scale)", height=420)
    fig.update_yaxes(type="log")
    fig.update_xaxes(dtick=1)
    fig.update_layout(showlegend=True, uniformtext_minsize=FONT_SIZE - 4)
    return fig


def alibi_bias_lines(offsets, bias) -> go.Figure:
    """One line per head: bias m_h · r over the past offsets r ≤ 0 (a straight line through 0).

    Long sequences send at most ``MAX_LINE_POINTS`` evenly spaced offsets per line, ends included: the lines are
    straight, so nothing is lost.
    """
    x, values = as_f32(offsets), as_f32(bias)
    if len(x) > MAX_LINE_POINTS:
        keep = np.unique(np.linspace(0, len(x) - 1, MAX_LINE_POINTS).round().astype(np.int64))
        x, values = x[keep], values[:, keep]
    fig = go.Figure()
    for head, row in enumerate(values, start=1):
        fig.add_scatter(
            x=x,
            y=row,
            mode="lines",
            name=f"head {head}",
            hovertemplate=f"head {head}<br>r = j − i = %{{x:.0f}}<br>bias %{{y:.3f}}<extra></extra>",
        )
    return style(fig, "Bias added to the logit vs how far back the key is", "relative position r = j − i", "bias")


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
    fig = make_subplots(
        rows=1, cols=len(picks), subplot_titles=[f"head {h + 1} ({names[n]})" for n, h in enumerate(picks)]
    )
    lowest = float(np.nanmin(values[picks])) if np.isfinite(values[picks]).any() else -1.0
    for col, head in enumerate(picks, start=1):
        fig.add_trace(
            go.Heatmap(
                z=values[head],
                colorscale=SIGNED_COLORS,
                zmin=lowest,  # symmetric range: 0 stays white, as with zmid=0, and both panels share one scale
                zmax=-lowest,
                showscale=col == len(picks),
                colorbar={"title": {"text": "bias"}},
                hovertemplate="query i %{y}<br>key j %{x}<br>bias %{z:.3f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    title = "Bias matrix: steepest and gentlest head (blank = masked future)"
    title = _with_note(title, _window_note(values.shape[1], length))
    style(fig, title, "key position j", "query position i", height=540)
    fig.update_layout(margin={"t": 110})  # room for the window note above the panel titles
    fig.update_yaxes(autorange="reversed")
    return fig


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
