"""Charts of the page "RoPE at inference time": angle errors per pair, softmax weights under attention temperatures,
and the error of cached keys moved to a new offset.

Arrays in (numpy or torch), plotly figures out; no Streamlit. Every curve is sent as float32; every word a chart shows
is given by the caller (from ``locales/<lang>/inference.toml``). Each figure is built from plain dicts in one
``ReadOnlyFigure(data, layout)`` call.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from figures.common import ReadOnlyFigure, as_f32, layout, with_room_for_legend
from figures.decay import COLORS


def _vline(x: float, **line) -> dict:
    """A vertical line over the whole plot height at ``x`` (what ``fig.add_vline`` adds)."""
    return {"type": "line", "xref": "x", "x0": x, "x1": x, "yref": "y domain", "y0": 0, "y1": 1, "line": line}


PRECISION_FLOOR = 1e-7  # radians: smaller errors (float32's exact products included) are drawn at this floor


def precision_figure(
    errors: Mapping[str, np.ndarray], theta: np.ndarray, title: str, labels: Mapping[str, str], height: int = 420
) -> ReadOnlyFigure:
    """Mean |angle error| of each pair (log y, floored at :data:`PRECISION_FLOOR`), one curve per way of computing
    the angles (``errors``: curve name -> [P], NaN where the dtype overflows), and each pair's own step θ_i (dashed):
    an error above it blurs neighbouring positions in that pair. ``labels``: pair_axis, precision_axis,
    precision_theta_name."""
    pairs = np.arange(len(theta), dtype=np.int32)
    traces = [
        {"type": "scatter", "mode": "lines", "x": pairs, "y": as_f32(np.maximum(values, PRECISION_FLOOR)),
         "name": name, "line": {"color": COLORS[k], "width": 3}}
        for k, (name, values) in enumerate(errors.items())
    ]  # fmt: skip
    step = {"color": "gray", "dash": "dash", "width": 2}
    traces.append({"type": "scatter", "mode": "lines", "x": pairs, "y": as_f32(theta),
                   "name": labels["precision_theta_name"], "line": step})  # fmt: skip
    fig_layout = layout(title, labels["pair_axis"], labels["precision_axis"], height, yaxis={"type": "log"})
    return ReadOnlyFigure(traces, fig_layout)


def temperature_figure(
    positions: np.ndarray, weights: Mapping[str, np.ndarray], title: str, labels: Mapping[str, str], height: int = 420
) -> ReadOnlyFigure:
    """The softmax weight on one matching key against the number of keys (log x), one curve per temperature
    (``weights``: curve name -> [N]), with the training length marked. ``labels``: temperature_axis_x,
    temperature_axis_y, mark_training, and ``training`` (the length, as a number)."""
    x = as_f32(positions)
    dashes = ("solid", "dash", "dot", "dashdot")
    traces = [
        {"type": "scatter", "mode": "lines", "x": x, "y": as_f32(values), "name": name,
         "line": {"color": COLORS[k], "width": 3, "dash": dashes[k % len(dashes)]}}
        for k, (name, values) in enumerate(weights.items())
    ]  # fmt: skip
    training = float(labels["training"])
    shapes = [_vline(training, dash="dot", color="gray")]
    annotations = [{"x": math.log10(training), "y": 1.0, "yref": "paper", "text": labels["mark_training"],
                    "showarrow": False, "xanchor": "left", "yanchor": "top"}]  # fmt: skip
    axes = {"xaxis": {"type": "log"}, "yaxis": {"range": [0, 1.02]}}
    fig_layout = layout(title, labels["temperature_axis_x"], labels["temperature_axis_y"], height, **axes,
                        shapes=shapes, annotations=annotations)  # fmt: skip
    return ReadOnlyFigure(traces, fig_layout)


MOVE_FLOOR = 1e-7  # score errors below this (exact moves in float64) are drawn at this floor


def move_error_figure(
    shifts: np.ndarray, errors: Mapping[str, np.ndarray], title: str, labels: Mapping[str, str], height: int = 440
) -> ReadOnlyFigure:
    """The largest score error of a cached chunk moved Δ positions on, against recomputing its keys there (log x
    and y, floored at :data:`MOVE_FLOOR`), one curve per way of moving it (``errors``: name -> [S]). ``labels``:
    move_axis_x, move_axis_y, mark (the words of the dotted line) and ``at`` (its Δ, as a number)."""
    x = as_f32(shifts)
    dashes = ("solid", "dash", "dot", "dashdot", "longdash")
    traces = [
        {"type": "scatter", "mode": "lines", "x": x, "y": as_f32(np.maximum(values, MOVE_FLOOR)), "name": name,
         "line": {"color": COLORS[k], "width": 3, "dash": dashes[k % len(dashes)]},
         "hovertemplate": f"{name}<br>Δ = %{{x:,.0f}}<br>%{{y:.2g}}<extra></extra>"}
        for k, (name, values) in enumerate(errors.items())
    ]  # fmt: skip
    at = float(labels["at"])
    annotations = [{"x": math.log10(at), "y": 0.5, "yref": "paper", "text": labels["mark"], "showarrow": False,
                    "xanchor": "right", "yanchor": "middle"}]  # fmt: skip
    axes = {"xaxis": {"type": "log"}, "yaxis": {"type": "log"}}
    fig_layout = layout(title, labels["move_axis_x"], labels["move_axis_y"], height, **axes,
                        shapes=[_vline(at, dash="dot", color="gray")], annotations=annotations)  # fmt: skip
    return ReadOnlyFigure(traces, with_room_for_legend(fig_layout, list(errors)))
