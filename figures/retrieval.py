"""Figures of the needle task: accuracy over context length × needle depth (the needle-in-a-haystack picture), and
retrieval accuracy against length beside the Markov task's excess loss.

Arrays in, ``ReadOnlyFigure`` (Plotly's format) out; every word comes in ``labels`` (translated by the caller).
"""

from __future__ import annotations

import numpy as np

from figures.common import FONT_SIZE, ReadOnlyFigure, as_f32, colorbar, layout, panel_title, with_room_for_legend
from figures.extrapolation import COLORS, VARIANTS

# red (never) → yellow → green (always): the colours of the needle-in-a-haystack pictures practitioners know
ACCURACY_COLORS = [[0.0, "#c0392b"], [0.5, "#f1c40f"], [1.0, "#27ae60"]]
EXTRA_COLORS = {"yarn_no_factor": "#7f3c8d"}


def needle_grid(accuracy: np.ndarray, low: np.ndarray, high: np.ndarray, lengths: list[int], depths: list[float],
                labels: dict) -> ReadOnlyFigure:  # fmt: skip
    """Accuracy as a heatmap: context length across (categories), needle depth down (0 % = the first token at the
    top), colour from 0 (red) to 1 (green). accuracy, low, high: [depths, lengths] — the mean over the training
    seeds and its lowest and highest. ``labels``: title, x_title, y_title, accuracy, spread ("… {low} … {high}"),
    length_hover ("… {length}"), depth_hover ("… {depth}")."""
    depth_names = [f"{round(100 * d)}%" for d in depths]
    seeds = labels["spread"].format(low="%{customdata[0]:.2f}", high="%{customdata[1]:.2f}")
    trace = {
        "type": "heatmap",
        "z": as_f32(accuracy),
        "x": [str(n) for n in lengths],
        "y": depth_names,
        "customdata": as_f32(np.stack([low, high], axis=-1)),
        "colorscale": ACCURACY_COLORS,
        "zmin": 0,
        "zmax": 1,
        "colorbar": colorbar(labels["accuracy"]),
        "hovertemplate": f"{labels['length_hover'].format(length='%{x}')}<br>"
        f"{labels['depth_hover'].format(depth='%{y}')}<br>{labels['accuracy']} %{{z:.2f}} ({seeds})<extra></extra>",
    }
    fig_layout = layout(
        labels["title"],
        labels["x_title"],
        labels["y_title"],
        420,
        xaxis={"type": "category"},
        yaxis={"type": "category", "autorange": "reversed"},
        margin={"l": 80, "r": 30, "t": 60, "b": 70},
    )
    return ReadOnlyFigure([trace], fig_layout)


Series = tuple  # (colour key, name, x, mean, (lowest, highest))


def _panel(series: list[Series], axis: str, hover: str) -> list[dict]:
    """One line per series in the panel of x axis ``axis`` ("" or "2"), the seeds' range as error bars."""
    traces = []
    for key, name, x, mean, (low, high) in series:
        mean, low, high = (np.asarray(v, dtype=np.float64) for v in (mean, low, high))
        traces.append(
            {
                "type": "scatter",
                "x": as_f32(x),
                "y": as_f32(mean),
                "mode": "lines+markers",
                "name": name,
                "legendgroup": key,
                "showlegend": axis == "2",
                "line": {
                    "color": COLORS.get(key, EXTRA_COLORS.get(key)),
                    "dash": "dot" if key.startswith("ft_") or key in VARIANTS else "solid",
                },
                "error_y": {
                    "type": "data",
                    "symmetric": False,
                    "array": as_f32(high - mean),
                    "arrayminus": as_f32(mean - low),
                    "thickness": 1.5,
                    "width": 4,
                },
                "customdata": as_f32(np.stack([low, high], axis=-1)),
                "xaxis": f"x{axis}",
                "yaxis": f"y{axis}",
                "hovertemplate": hover,
            }
        )
    return traces


def accuracy_beside_loss(
    markov: list[Series], needle: list[Series], chance: float, train_len: int, labels: dict
) -> ReadOnlyFigure:
    """Two panels over context length (log axes): left the Markov task's excess loss past the training length
    (0 = as good as the source allows), right the needle task's accuracy (mean over depths; chance marked), each
    line the mean over seeds with the lowest and highest. ``labels``: title, x_title, markov_title, needle_title,
    excess_axis, accuracy_axis, chance_name, spread, length_hover (the training length is a dashed line)."""
    seeds = labels["spread"].format(low="%{customdata[0]:.2f}", high="%{customdata[1]:.2f}")
    at = labels["length_hover"].format(length="%{x}")
    traces = _panel(markov, "", f"{at}<br>%{{y:.3f}} ({seeds})<extra>%{{fullData.name}}</extra>")
    traces += _panel(needle, "2", f"{at}<br>%{{y:.2f}} ({seeds})<extra>%{{fullData.name}}</extra>")
    lengths = sorted({x for *_, xs, _, _ in needle for x in xs})
    traces.append({"type": "scatter", "x": [lengths[0], lengths[-1]], "y": [chance, chance], "mode": "lines",
                   "name": labels["chance_name"], "line": {"color": "#444444", "dash": "dash", "width": 1},
                   "xaxis": "x2", "yaxis": "y2", "hoverinfo": "skip"})  # fmt: skip
    ticks = {"type": "log", "tickvals": lengths, "ticktext": [str(n) for n in lengths]}
    left, right = [0.0, 0.45], [0.55, 1.0]
    mark = {"type": "line", "yref": "paper", "y0": 0, "y1": 1, "line": {"color": "#888888", "dash": "dash", "width": 1}}
    fig_layout = layout(
        labels["title"],
        "",
        "",
        480,
        xaxis={**ticks, "domain": left, "anchor": "y", "title": {"text": labels["x_title"]}},
        yaxis={"anchor": "x", "title": {"text": labels["excess_axis"]}},
        xaxis2={**ticks, "domain": right, "anchor": "y2", "title": {"text": labels["x_title"]}},
        yaxis2={"anchor": "x2", "range": [-0.02, 1.02], "title": {"text": labels["accuracy_axis"]}},
        shapes=[
            {**mark, "xref": "x", "x0": train_len, "x1": train_len},
            {**mark, "xref": "x2", "x0": train_len, "x1": train_len},
        ],
        annotations=[
            panel_title(labels["markov_title"], left, FONT_SIZE),
            panel_title(labels["needle_title"], right, FONT_SIZE),
        ],
        margin={"l": 70, "r": 30, "t": 60, "b": 90},
    )
    names = [trace["name"] for trace in traces if trace.get("showlegend", True)]
    return ReadOnlyFigure(traces, with_room_for_legend(fig_layout, names))
