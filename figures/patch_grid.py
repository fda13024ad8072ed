"""Charts of the 2-D positions section: one query patch's RoPE score against every patch of the grid (a heatmap with
the query marked), and a strip of the head's pairs, one row per axis, each pair filled in its own axis's row.

Plain data in, plotly figures out; no Streamlit. Every word comes in a ``labels`` dict (keys :data:`LABEL_KEYS`,
filled from ``locales/<lang>/patch_grid.toml``).
"""

from __future__ import annotations

import numpy as np

from figures.common import UNSIGNED_COLORS, ReadOnlyFigure, as_f32, colorbar, layout
from figures.decay import COLORS

AXES = ("time", "row", "column")  # posenc.patch_grid's axis numbers 0, 1, 2
LABEL_KEYS = ("grid_title", "column_axis", "row_axis", "score", "query", "axes_title", "pair_axis",
              *(f"axis_{axis}" for axis in AXES))  # fmt: skip


def similarity_figure(scores: np.ndarray, row: int, column: int, labels: dict) -> ReadOnlyFigure:
    """The scores [rows, columns] (1 at the query) as a heatmap, row 0 on top, the query patch ringed. The colours
    span the grid's own range (a grid that barely changes still shows its pattern; the colour bar gives the range)."""
    hover = (f"{labels['row_axis']} %{{y}}, {labels['column_axis']} %{{x}}<br>{labels['score']} %{{z:.5f}}"
             "<extra></extra>")  # fmt: skip
    heat = {"type": "heatmap", "z": as_f32(scores), "colorscale": UNSIGNED_COLORS, "hovertemplate": hover,
            "colorbar": colorbar(f"{labels['score']} ({scores.min():.5f} … 1)")}  # fmt: skip
    ring = {"type": "scatter", "x": [column], "y": [row], "mode": "markers", "name": labels["query"],
            "marker": {"symbol": "circle-open", "size": 18, "color": "#d62728", "line": {"width": 3}},
            "hovertemplate": f"{labels['query']}<extra></extra>", "showlegend": False}  # fmt: skip
    fig_layout = layout(labels["grid_title"], labels["column_axis"], labels["row_axis"], height=480,
                        yaxis={"autorange": "reversed", "scaleanchor": "x"})  # fmt: skip
    return ReadOnlyFigure([heat, ring], fig_layout)


def axes_figure(axes: np.ndarray, labels: dict) -> ReadOnlyFigure:
    """One row per axis (time, row, column), one cell per pair (fastest on the left), filled where that axis owns
    the pair and left empty elsewhere."""
    axes = np.asarray(axes)
    owned = np.where(axes[None, :] == np.arange(len(AXES))[:, None], np.arange(len(AXES))[:, None], np.nan)
    names = [labels[f"axis_{axis}"] for axis in AXES]
    steps = [[0.0, COLORS[2]], [1 / 3, COLORS[2]], [1 / 3, COLORS[0]], [2 / 3, COLORS[0]], [2 / 3, COLORS[1]],
             [1.0, COLORS[1]]]  # fmt: skip
    trace = {"type": "heatmap", "z": as_f32(owned), "x": np.arange(axes.size), "y": names, "zmin": -0.5, "zmax": 2.5,
             "colorscale": steps, "showscale": False, "xgap": 1,
             "hovertemplate": f"{labels['pair_axis']} %{{x}}: %{{y}}<extra></extra>"}  # fmt: skip
    fig_layout = layout(labels["axes_title"], labels["pair_axis"], "", height=240, yaxis={"autorange": "reversed"})
    return ReadOnlyFigure([trace], fig_layout)
