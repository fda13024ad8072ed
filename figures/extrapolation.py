"""Figures for the "train short, test long" page: excess loss past the training length and loss against evaluation
length (ALiBi paper, Figure 1), each with the spread over training seeds, loss by position, attention maps of a
long input, and the learned position table's similarity beside the sinusoid's.

Arrays in, ``ReadOnlyFigure`` (Plotly's format) out; every word comes in ``labels`` (translated by the caller).
"""

from __future__ import annotations

import math

import numpy as np
from plotly.colors import sample_colorscale

from figures.common import (
    FONT_SIZE,
    SIGNED_COLORS,
    UNSIGNED_COLORS,
    ReadOnlyFigure,
    as_f32,
    layout,
    panel_title,
    with_room_for_legend,
)

# one colour per line, the same in every chart of the page (Plotly's default palette, then two more)
COLORS = {
    "none": "#636efa",
    "sinusoidal": "#ef553b",
    "learned": "#00cc96",
    "rope": "#ab63fa",
    "t5": "#ffa15a",
    "alibi": "#19d3f3",
    "linear": "#ff6692",
    "ntk": "#b6e880",
    "yarn": "#ff97ff",
    "yarn_paper": "#b00068",
    "llama3": "#fecb52",
    "ft_linear": "#ff6692",
    "ft_yarn": "#ff97ff",
    "ft_plain": "#ab63fa",
    "t5_clamped": "#ffa15a",
    "none_long": "#636efa",
}
VARIANTS = ("t5_clamped", "none_long")  # dotted, in the colour of the model they vary
FLOOR_COLOR = "#444444"


def _training_mark(train_len: int, text: str, log_x: bool = False) -> dict:
    """A dashed vertical line at the training length with its label on top (layout shapes and annotations).

    On a log axis Plotly places a shape in data units but an annotation in log₁₀ units: the label goes at log₁₀(L).
    """
    x = math.log10(train_len) if log_x else train_len  # where the label goes
    return {
        "shapes": [
            {
                "type": "line",
                "xref": "x",
                "yref": "paper",
                "x0": train_len,
                "x1": train_len,
                "y0": 0,
                "y1": 1,
                "line": {"dash": "dash", "color": FLOOR_COLOR, "width": 1.5},
            }
        ],
        "annotations": [
            {
                "x": x,
                "xref": "x",
                "y": 1,
                "yref": "paper",
                "text": text,
                "showarrow": False,
                "xanchor": "left",
                "yanchor": "top",
            }
        ],
    }


Series = tuple  # (colour key, name, values) or (colour key, name, values, (lowest, highest) over the seeds)
Reference = tuple  # (name, x, y, dash): a grey line drawn for comparison (floor, uniform guess, symbol frequencies)


def _lines(x, series: list[Series], references: list[Reference], labels: dict, hover_x: str) -> list[dict]:
    """One line per series (the mean over the seeds; a vertical bar from the lowest to the highest seed where the
    series carries its spread), then the grey references; hover shows x, the value and the spread."""
    hover = f"{hover_x}<br>{labels['loss']} %{{y:.3f}}<extra>%{{fullData.name}}</extra>"
    traces = []
    for key, name, values, *spread in series:
        trace = {
            "type": "scatter",
            "x": as_f32(x),
            "y": as_f32(values),
            "mode": "lines+markers",
            "name": name,
            "line": {"color": COLORS.get(key), "dash": "dot" if key.startswith("ft_") or key in VARIANTS else "solid"},
            "hovertemplate": hover,
        }
        if spread:
            low, high = (np.asarray(v, dtype=np.float64) for v in spread[0])
            mean = np.asarray(values, dtype=np.float64)
            trace["error_y"] = {"type": "data", "symmetric": False, "array": as_f32(high - mean),
                                "arrayminus": as_f32(mean - low), "thickness": 1.5, "width": 4}  # fmt: skip
            trace["customdata"] = as_f32(np.stack([low, high], axis=-1))
            seeds = labels["spread"].format(low="%{customdata[0]:.3f}", high="%{customdata[1]:.3f}")
            trace["hovertemplate"] = (
                f"{hover_x}<br>{labels['loss']} %{{y:.3f}} ({seeds})<extra>%{{fullData.name}}</extra>"
            )
        traces.append(trace)
    widths = {"dot": 2, "dash": 1, "dashdot": 1.5, "solid": 1}
    for name, ref_x, ref_y, dash in references:
        traces.append(
            {
                "type": "scatter",
                "x": as_f32(ref_x),
                "y": as_f32(ref_y),
                "mode": "lines",
                "name": name,
                "line": {"color": FLOOR_COLOR, "dash": dash, "width": widths.get(dash, 1)},
                "hovertemplate": hover,
            }
        )
    return traces


def _standard_references(x, floor, guess: float | None, labels: dict) -> list[Reference]:
    """The floor (dotted) and, unless ``guess`` is None, a uniform guess (dashed, flat)."""
    found = [(labels["floor_name"], x, floor, "dot")]
    return found if guess is None else [*found, (labels["guess_name"], [x[0], x[-1]], [guess, guess], "dash")]


def loss_by_length(
    lengths: list[int],
    series: list[Series],
    floor: list[float],
    guess: float,
    train_len: int,
    labels: dict,
    references: list[Reference] = (),
) -> ReadOnlyFigure:
    """Mean loss against evaluation length (log₂ axis), one line per model, the source's floor, the loss of a
    uniform guess (log V) and any further ``references``, training length marked.

    ``series``: (colour key, name, loss per length[, (lowest, highest) per length]). ``labels``: title, x_title,
    y_title, loss, spread ("… {low} … {high}", the seeds' range), floor_name, guess_name, train_mark and the
    template length_hover ("… {length}").
    """
    found = [*_standard_references(lengths, floor, guess, labels), *references]
    traces = _lines(lengths, series, found, labels, labels["length_hover"].format(length="%{x}"))
    return _length_layout(traces, lengths, train_len, labels)


def excess_by_length(
    lengths: list[int], series: list[Series], references: list[Reference], train_len: int, labels: dict
) -> ReadOnlyFigure:
    """Excess loss past the training length (loss − floor on the positions no model saw) against evaluation length,
    log₂ axis, the floor at 0 and the grey ``references`` in the same units. ``labels`` as :func:`loss_by_length`."""
    zero = [(labels["floor_name"], [lengths[0], lengths[-1]], [0.0, 0.0], "dot")]
    traces = _lines(lengths, series, [*zero, *references], labels, labels["length_hover"].format(length="%{x}"))
    return _length_layout(traces, lengths, train_len, labels)


def _length_layout(traces: list[dict], lengths: list[int], train_len: int, labels: dict) -> ReadOnlyFigure:
    """The layout of a chart against length: log axis ticked at the lengths, the training length marked."""
    fig_layout = layout(
        labels["title"],
        labels["x_title"],
        labels["y_title"],
        460,
        xaxis={"type": "log", "tickvals": list(lengths), "ticktext": [str(n) for n in lengths]},
        margin={"l": 70, "r": 30, "t": 60, "b": 90},
        **_training_mark(train_len, labels["train_mark"], log_x=True),
    )
    return ReadOnlyFigure(traces, with_room_for_legend(fig_layout, [trace["name"] for trace in traces]))


def loss_by_position(
    positions: list[float],
    series: list[Series],
    floor: list[float],
    guess: float | None,
    train_len: int,
    labels: dict,
    references: list[Reference] = (),
) -> ReadOnlyFigure:
    """Loss (or excess loss, with ``floor`` all zeros) by position (bins of positions, at their centres), training
    length marked. ``labels``: as :func:`loss_by_length`, with position_hover ("… {position}") for the hover."""
    found = [*_standard_references(positions, floor, guess, labels), *references]
    traces = _lines(positions, series, found, labels, labels["position_hover"].format(position="%{x:.0f}"))
    fig_layout = layout(
        labels["title"],
        labels["x_title"],
        labels["y_title"],
        440,
        margin={"l": 70, "r": 30, "t": 60, "b": 90},
        **_training_mark(train_len, labels["train_mark"]),
    )
    return ReadOnlyFigure(traces, with_room_for_legend(fig_layout, [trace["name"] for trace in traces]))


def sqrt_colorscale(steps: int = 16) -> list[list]:
    """Viridis laid out so that the colour at a fraction f of the range is Viridis(√f): faint weights stay visible
    next to strong ones, while the values (and the hover) remain the weights themselves."""
    fractions = [k / steps for k in range(steps + 1)]
    colours = sample_colorscale(UNSIGNED_COLORS, fractions)
    return [[f * f, colour] for f, colour in zip(fractions, colours, strict=True)]


def attention_heads(maps: np.ndarray, block: int, title: str, labels: dict) -> ReadOnlyFigure:
    """One heatmap per head of one layer: maps [H, Q', K'] already averaged over ``block``×``block`` cells.

    Cell (i, j) covers queries i·block … and keys j·block …; axes are in token positions. The colour follows
    √weight (:func:`sqrt_colorscale`), so the faint long-range attention stays visible next to the strong local one.
    ``labels``: query_title, key_title, weight, head ("… {head}").
    """
    maps = as_f32(maps)
    colorscale, top = sqrt_colorscale(), float(maps.max()) or 1.0
    heads, rows, columns = maps.shape
    positions_q, positions_k = np.arange(rows) * block, np.arange(columns) * block
    width, gap = (1.0 - 0.03 * (heads - 1)) / heads, 0.03
    traces, axes = [], {}
    for h in range(heads):
        suffix = "" if h == 0 else str(h + 1)
        traces.append(
            {
                "type": "heatmap",
                "z": maps[h],
                "x": as_f32(positions_k),
                "y": as_f32(positions_q),
                "colorscale": colorscale,
                "zmin": 0,
                "zmax": top,
                "showscale": False,
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "hovertemplate": f"{labels['query_title']} %{{y}}<br>{labels['key_title']} %{{x}}<br>"
                f"{labels['weight']} %{{z:.3g}}<extra></extra>",
            }
        )
        start = h * (width + gap)
        axes[f"xaxis{suffix}"] = {
            "domain": [start, min(start + width, 1.0)],
            "anchor": f"y{suffix}",
            "title": {"text": labels["key_title"] if h == 0 else ""},
        }
        axes[f"yaxis{suffix}"] = {
            "anchor": f"x{suffix}",
            "autorange": "reversed",
            "scaleanchor": f"x{suffix}",
            "showticklabels": h == 0,
            "title": {"text": labels["query_title"] if h == 0 else ""},
        }
    annotations = [
        panel_title(labels["head"].format(head=h + 1), [h * (width + gap), h * (width + gap) + width], FONT_SIZE)
        for h in range(heads)
    ]
    fig_layout = layout(title, "", "", 400, annotations=annotations, **axes)
    return ReadOnlyFigure(traces, fig_layout)


def similarity_pair(learned: np.ndarray, sinusoid: np.ndarray, labels: dict) -> ReadOnlyFigure:
    """Cosine similarity of every pair of position vectors: the trained table [L, L] beside the sinusoid [L, L].

    ``labels``: title, learned_title, sinusoid_title, position, other_position, similarity.
    """
    hover = (
        f"{labels['position']} %{{y}}<br>{labels['other_position']} %{{x}}<br>"
        f"{labels['similarity']} %{{z:.2f}}<extra></extra>"
    )
    traces, axes, annotations = [], {}, []
    for index, (matrix, name) in enumerate(((learned, labels["learned_title"]), (sinusoid, labels["sinusoid_title"]))):
        suffix = "" if index == 0 else "2"
        start = 0.0 if index == 0 else 0.53
        traces.append(
            {
                "type": "heatmap",
                "z": as_f32(matrix),
                "colorscale": SIGNED_COLORS,
                "zmin": -1,
                "zmax": 1,
                "showscale": index == 1,
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "hovertemplate": hover,
            }
        )
        axes[f"xaxis{suffix}"] = {
            "domain": [start, start + 0.43],
            "anchor": f"y{suffix}",
            "title": {"text": labels["other_position"]},
        }
        axes[f"yaxis{suffix}"] = {
            "anchor": f"x{suffix}",
            "autorange": "reversed",
            "scaleanchor": f"x{suffix}",
            "title": {"text": labels["position"] if index == 0 else ""},
            "showticklabels": index == 0,  # the same positions as the left panel: no labels on its cells
        }
        annotations.append(panel_title(name, [start, start + 0.43], FONT_SIZE))
    fig_layout = layout(labels["title"], "", "", 440, annotations=annotations, **axes)
    return ReadOnlyFigure(traces, fig_layout)
