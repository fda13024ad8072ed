"""The chart of "×√d_model before adding": how much of x = c·w + PE(p) points along the word and along the position,
over the model width, with and without the factor. Arrays in, a plotly figure out; words in ``labels``."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from figures.common import ReadOnlyFigure, as_f32, layout
from figures.decay import COLORS


def embedding_scale_figure(
    dims: np.ndarray, curves: Mapping[str, Mapping[str, np.ndarray]], labels: Mapping[str, str], height: int = 420
) -> ReadOnlyFigure:
    """cos(x, word) (solid) and cos(x, PE(p)) (dashed) over d (log x), one colour per treatment (``curves``:
    treatment name -> {"cos_word": [K], "cos_position": [K]}). ``labels``: scale_title, scale_axis_x, scale_axis_y,
    scale_word ({name}) and scale_position ({name})."""
    traces = []
    for k, (name, values) in enumerate(curves.items()):
        for key, dash, label in (("cos_word", "solid", "scale_word"), ("cos_position", "dash", "scale_position")):
            line = {"color": COLORS[k], "dash": dash}
            traces.append({"type": "scatter", "mode": "lines+markers", "x": as_f32(dims), "y": as_f32(values[key]),
                           "name": labels[label].format(name=name), "line": line})  # fmt: skip
    fig_layout = layout(labels["scale_title"], labels["scale_axis_x"], labels["scale_axis_y"], height,
                        xaxis={"type": "log"}, yaxis={"range": [0, 1.02]})  # fmt: skip
    return ReadOnlyFigure(traces, fig_layout)
