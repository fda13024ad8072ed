"""Charts of the long-range decay page: curves over relative distance, wavelengths per pair, scaled frequencies.

Arrays in (numpy or torch), plotly figures out; no Streamlit. Every curve is sent as float32. Each figure is built
from plain dicts in one :func:`figures.common.figure` call (Plotly's ``update_*`` / ``add_*`` methods re-validate
the whole figure each time and would cost milliseconds apiece on every rerun).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
from plotly.colors import hex_to_rgb, qualitative

from figures.common import as_f32, figure, layout

COLORS = qualitative.Plotly  # mid-tone colours: legible on light and dark backgrounds
DISTANCE = "relative distance r = m − n"
METHOD_NAMES = {
    "original": "original (no scaling)",
    "linear": "linear interpolation",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3",
}


def _distance_axis(log_x: bool) -> dict:
    # r = 0 has no place on a log axis: the curve starts at r = 1
    return {"xaxis": {"type": "log"}} if log_x else {}


def _hline(y: float, **line) -> dict:
    """A horizontal line across the whole plot at ``y`` (what ``fig.add_hline`` adds)."""
    return {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": y, "y1": y, "line": line}


def _vline(x: float, **line) -> dict:
    """A vertical line over the whole plot height at ``x`` (what ``fig.add_vline`` adds)."""
    return {"type": "line", "xref": "x", "x0": x, "x1": x, "yref": "y domain", "y0": 0, "y1": 1, "line": line}


def decay_bound_figure(distances, bound, log_x: bool = False, height: int = 420) -> go.Figure:
    """The RoPE paper's relative upper bound against relative distance (its Figure 2 at d = 128, base = 10 000)."""
    trace = {
        "type": "scatter",
        "x": as_f32(distances),
        "y": as_f32(bound),
        "mode": "lines",
        "name": "relative upper bound",
        "line": {"color": COLORS[0]},
        "hovertemplate": "r = %{x}<br>bound %{y:.3f}<extra></extra>",
    }
    title = "Relative upper bound (RoFormer, Figure 2)"
    return figure([trace], layout(title, DISTANCE, "relative upper bound", height, **_distance_axis(log_x)))


def score_figure(distances, ones, mean, std, log_x: bool = False, height: int = 420) -> go.Figure:
    """The actual score q·k: for q = k = all ones, and mean ± one standard deviation over random q, k."""
    x, mean, std = as_f32(distances), as_f32(mean), as_f32(std)
    red, green, blue = hex_to_rgb(COLORS[1])
    band = {"type": "scatter", "x": x, "mode": "lines", "line": {"width": 0, "color": COLORS[1]}, "hoverinfo": "skip"}
    traces = [
        {**band, "y": mean - std, "name": "mean − std", "showlegend": False},
        {
            **band,
            "y": mean + std,
            "name": "random q, k: mean ± 1 std",
            "fill": "tonexty",
            "fillcolor": f"rgba({red}, {green}, {blue}, 0.25)",
        },
        {
            "type": "scatter",
            "x": x,
            "y": mean,
            "mode": "lines",
            "name": "random q, k: mean",
            "line": {"color": COLORS[1]},
            "customdata": std,
            "hovertemplate": "r = %{x}<br>mean %{y:.2f} ± %{customdata:.2f}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": x,
            "y": as_f32(ones),
            "mode": "lines",
            "name": "q = k = all ones",
            "line": {"color": COLORS[0]},
            "hovertemplate": "r = %{x}<br>q·k %{y:.2f}<extra></extra>",
        },
    ]
    extra = {"shapes": [_hline(0, width=1, color="gray")], **_distance_axis(log_x)}
    return figure(traces, layout("The actual score q·k at distance r", DISTANCE, "score q·k", height, **extra))


def curves_figure(
    distances,
    curves: Mapping[str, object],
    title: str,
    y_title: str,
    log_x: bool = False,
    marks: Mapping[str, float] | None = None,
    height: int = 420,
) -> go.Figure:
    """Several curves over the same distances, one per label; ``marks`` draws labelled vertical lines (e.g. lengths)."""
    x = as_f32(distances)
    traces = [
        {
            "type": "scatter",
            "x": x,
            "y": as_f32(values),
            "mode": "lines",
            "name": METHOD_NAMES.get(label, label),
            "line": {"color": COLORS[index % len(COLORS)], "dash": "dash" if label == "original" else "solid"},
            "hovertemplate": f"{METHOD_NAMES.get(label, label)}<br>r = %{{x}}<br>{y_title} %{{y:.3f}}<extra></extra>",
        }
        for index, (label, values) in enumerate(curves.items())
    ]
    marks = marks or {}
    shapes = [_vline(position, dash="dot", color="gray") for position in marks.values()]
    annotations = [
        {
            # annotations on a log axis are placed in log10 units (plotly.js), so the label gets its own coordinates
            "x": math.log10(position) if log_x and position > 0 else position,
            "y": 1,
            "yref": "paper",
            "text": text,
            "showarrow": False,
            "xanchor": "right",
            "yanchor": "top",
        }
        for text, position in marks.items()
    ]
    extra = {"shapes": shapes, "annotations": annotations} if marks else {}
    return figure(traces, layout(title, DISTANCE, y_title, height, **extra, **_distance_axis(log_x)))


def wavelength_figure(wavelengths, completes, train_length: int, height: int = 420) -> go.Figure:
    """Wavelength of each pair (log y) against the training length; pairs that finish a turn in it are coloured."""
    wavelengths, completes = as_f32(wavelengths), np.asarray(completes, dtype=bool)
    pairs = np.arange(wavelengths.size, dtype=np.int32)
    groups = (
        (completes, "turns at least once within training", COLORS[0]),
        (~completes, "never turns fully", COLORS[1]),
    )
    traces = [
        {
            "type": "scatter",
            "x": pairs[mask],
            "y": wavelengths[mask],
            "mode": "markers",
            "name": f"{name} ({int(mask.sum())} pairs)",
            "marker": {"color": color, "size": 8},
            "hovertemplate": "pair %{x}<br>wavelength %{y:,.1f} positions<extra></extra>",
        }
        for mask, name, color in groups
    ]
    label = {  # on a log axis plotly.js places annotations in log10 units
        "x": 0, "xref": "paper", "y": math.log10(train_length), "text": f"training length {train_length:,}",
        "showarrow": False, "xanchor": "left", "yanchor": "bottom",
    }  # fmt: skip
    fig_layout = layout(
        "Wavelength of each pair vs the training context",
        "pair i",
        "wavelength (positions)",
        height,
        yaxis={"type": "log"},
        shapes=[_hline(train_length, dash="dot", color="gray")],
        annotations=[label],
    )
    return figure(traces, fig_layout)


def scaled_frequency_figure(frequencies: Mapping[str, object], height: int = 560) -> go.Figure:
    """Per-pair frequencies θ'_i of each method (top, log) and their ratio to the original θ'_i/θ_i (bottom, log).

    ``frequencies`` must hold an ``"original"`` entry. Two stacked plots sharing the pair axis: top on axes x/y,
    bottom on x2/y2 (the layout make_subplots(rows=2, shared_xaxes=True, vertical_spacing=0.08) would give).
    """
    original = as_f32(frequencies["original"])
    pairs = np.arange(original.size, dtype=np.int32)
    traces, lowest = [], 1.0
    for index, (label, values) in enumerate(frequencies.items()):
        values = as_f32(values)
        ratio = values / original  # how much each pair is slowed: 1 = untouched, 1/s = fully interpolated
        lowest = min(lowest, float(ratio.min()))
        line = {"color": COLORS[index % len(COLORS)], "dash": "dash" if label == "original" else "solid"}
        name = METHOD_NAMES.get(label, label)
        common = {"type": "scatter", "x": pairs, "mode": "lines", "name": name, "legendgroup": label, "line": line}
        traces.append(
            {
                **common,
                "y": values,
                "xaxis": "x",
                "yaxis": "y",
                "hovertemplate": f"{name}<br>pair %{{x}}<br>θ' %{{y:.3g}}<extra></extra>",
            }
        )
        traces.append(
            {
                **common,
                "y": ratio,
                "showlegend": False,
                "xaxis": "x2",
                "yaxis": "y2",
                "hovertemplate": f"{name}<br>pair %{{x}}<br>θ'/θ %{{y:.3g}}<extra></extra>",
            }
        )
    halvings = np.arange(int(np.ceil(-np.log2(lowest) - 1e-6)) + 1)  # ticks 1, 1/2, 1/4, … down to the lowest ratio
    log_y = {"type": "log", "exponentformat": "power"}
    fig_layout = layout(
        "Scaled frequencies per pair",
        "",
        "frequency θ'ᵢ",
        height,
        xaxis={"anchor": "y", "domain": [0.0, 1.0], "matches": "x2", "showticklabels": False},
        yaxis={"anchor": "x", "domain": [0.54, 1.0], **log_y},
        xaxis2={"anchor": "y2", "domain": [0.0, 1.0], "title": {"text": "pair i"}},
        yaxis2={
            "anchor": "x2",
            "domain": [0.0, 0.46],
            "title": {"text": "θ'ᵢ / θᵢ (vs original)"},
            **log_y,
            "tickvals": 2.0**-halvings,
            "ticktext": ["1", *(f"1/{2 ** int(k):,}" for k in halvings[1:])],
        },
    )
    return figure(traces, fig_layout)
