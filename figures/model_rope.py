"""Charts of the "Your model's RoPE" page: a model's wavelengths before and after its scaling against its context
windows, and RoFormer's decay bound before and after.

Arrays in (numpy or torch), plotly figures out; no Streamlit. Every word comes in a ``labels`` dict (the page fills
it from ``locales/<lang>/model_rope.toml``, keys :data:`LABEL_KEYS` without the ``model_rope.`` prefix).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from figures.common import ReadOnlyFigure, as_f32, layout
from figures.decay import COLORS

LABEL_KEYS = (  # every label the builders below read
    *("wavelength_title", "pair_axis", "wavelength_axis", "pair_hover", "wavelength_hover"),
    *("turned", "never_turned", "scaled_name", "training_mark", "extended_mark"),
    *("decay_title", "distance", "bound_axis", "bound_before", "bound_after"),
)


def _hline(y: float, text: str, side: str) -> tuple[dict, dict]:
    """A dotted line across the plot at ``y`` on a log y axis, and its label at the left end (where the wavelengths
    are short, so no marker is there), just ``side`` ("above" or "below") the line: with the training line's label
    below it and the extended line's above, the two never meet however close the lines are. Annotations sit in
    log10 units on a log axis."""
    line = {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": y, "y1": y,
            "line": {"dash": "dot", "color": "gray"}}  # fmt: skip
    label = {"x": 0, "xref": "paper", "y": math.log10(y), "text": text, "showarrow": False, "xanchor": "left",
             "yanchor": "bottom" if side == "above" else "top"}  # fmt: skip
    return line, label


def wavelength_figure(
    before, after, completes, training_length: int, extended_length: int, labels: Mapping[str, str], height: int = 440
) -> ReadOnlyFigure:
    """Wavelength λ_i = 2π/θ_i of each rotated pair (log y) against the training and extended context: pairs that
    turn fully within training in one colour, the others in another; ``after`` (the scaled wavelengths, or None
    without scaling) as crosses.

    Shapes: before [P], after [P] or None, completes [P] bool. ``labels``: wavelength_title, pair_axis,
    wavelength_axis, pair_hover ({pair}), wavelength_hover ({value}), turned and never_turned ({count}),
    scaled_name, training_mark and extended_mark ({length}).
    """
    before, completes = as_f32(before), np.asarray(completes, dtype=bool)
    pairs = np.arange(before.size, dtype=np.int32)
    hover = f"{labels['pair_hover']}<br>{labels['wavelength_hover']}<extra></extra>".format(
        pair="%{x}", value="%{y:,.1f}"
    )
    groups = ((completes, labels["turned"], COLORS[0]), (~completes, labels["never_turned"], COLORS[1]))
    traces = [
        {"type": "scatter", "x": pairs[mask], "y": before[mask], "mode": "markers",
         "name": name.format(count=int(mask.sum())), "marker": {"color": color, "size": 8}, "hovertemplate": hover}
        for mask, name, color in groups
    ]  # fmt: skip
    if after is not None:
        traces.append(
            {"type": "scatter", "x": pairs, "y": as_f32(after), "mode": "markers", "name": labels["scaled_name"],
             "marker": {"color": COLORS[2], "size": 7, "symbol": "x"}, "hovertemplate": hover}
        )  # fmt: skip
    shapes, annotations = [], []
    marks = [(training_length, labels["training_mark"], "below")]
    if extended_length != training_length:
        marks.append((extended_length, labels["extended_mark"], "above"))
    for length, text, side in marks:
        line, label = _hline(length, text.format(length=f"{length:,}"), side)
        shapes.append(line)
        annotations.append(label)
    fig_layout = layout(labels["wavelength_title"], labels["pair_axis"], labels["wavelength_axis"], height,
                        yaxis={"type": "log"}, shapes=shapes, annotations=annotations)  # fmt: skip
    return ReadOnlyFigure(traces, fig_layout)


def bound_figure(
    distances, before, after, training_length: int, extended_length: int, labels: Mapping[str, str], height: int = 440
) -> ReadOnlyFigure:
    """RoFormer's relative upper bound over distance (log x) before scaling and, when ``after`` is given, after it
    (times the attention factor squared), with the two context lengths marked by dotted lines, their labels one
    above the other (on a log axis they sit close). Shapes: distances [R], before [R], after [R] or None.
    ``labels``: decay_title, distance, bound_axis, bound_before, bound_after, training_mark and extended_mark
    ({length}).
    """
    x = as_f32(distances)
    curves = [(labels["bound_before"], before, "solid" if after is None else "dash")]  # dashed: the original
    if after is not None:
        curves.append((labels["bound_after"], after, "solid"))
    traces = [
        {"type": "scatter", "x": x, "y": as_f32(values), "mode": "lines", "name": name,
         "line": {"color": COLORS[index], "dash": dash},
         "hovertemplate": f"{name}<br>r = %{{x:,}}<br>{labels['bound_axis']} %{{y:.3f}}<extra></extra>"}
        for index, (name, values, dash) in enumerate(curves)
    ]  # fmt: skip
    marks = [(training_length, labels["training_mark"], 1.0)]
    if extended_length != training_length:
        marks.append((extended_length, labels["extended_mark"], 0.9))
    shapes = [{"type": "line", "xref": "x", "x0": length, "x1": length, "yref": "y domain", "y0": 0, "y1": 1,
               "line": {"dash": "dot", "color": "gray"}} for length, _, _ in marks]  # fmt: skip
    annotations = [  # on a log axis plotly.js places annotations in log10 units
        {"x": math.log10(length), "y": y, "yref": "paper", "text": text.format(length=f"{length:,}"),
         "showarrow": False, "xanchor": "right", "yanchor": "top"}
        for length, text, y in marks
    ]  # fmt: skip
    fig_layout = layout(labels["decay_title"], labels["distance"], labels["bound_axis"], height,
                        xaxis={"type": "log"}, shapes=shapes, annotations=annotations)  # fmt: skip
    return ReadOnlyFigure(traces, fig_layout)
