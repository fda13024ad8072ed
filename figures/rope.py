"""Figures for the RoPE page: the two feature layouts (the pair, the score curves and the clock hands are live
charts, charts/rope.py, drawn in the browser; their colours and the dials' geometry are named here).

Arrays in (numpy or tensors), ``ReadOnlyFigure`` (Plotly's format) out; no Streamlit. Every figure is built from plain
trace and layout dicts in one ``ReadOnlyFigure(data, layout)`` call: Plotly's ``update_*`` / ``add_*`` methods
re-validate the whole figure each time and would dominate a rerun.

Every word a figure shows comes in through ``labels``: a dict of translated strings whose keys each builder lists in
its ``*_LABELS`` tuple (the page fills it from the ``rope`` catalog section). Templates in it use ``str.format``
placeholders, filled here; tokens of Plotly hover templates are added here, never translated.
"""

from __future__ import annotations

import numpy as np

from figures.common import (
    FONT_SIZE,
    UNSIGNED_COLORS,
    ReadOnlyFigure,
    as_f32,
    colorbar,
    layout,
    panel_title,
    wrapped,
)

MAX_CLOCKS = 64  # an 8 × 8 grid of dials is the most a projector shows legibly
CLOCK_COLUMNS = 8
ROW_SPACING = 1.25  # rows further apart than columns, so each "i=…" label sits clearly under its own dial
DIAL_RADIUS, HAND_LENGTH = 0.42, 0.378  # in units of the distance between two dials' centres
QUERY_COLOR, KEY_COLOR, WRONG_COLOR = "#1f77b4", "#ff7f0e", "#d62728"  # legible on light and dark backgrounds
DIAL_COLOR = "rgba(128, 128, 128, 0.55)"
# The words each builder needs in its ``labels`` dict (catalog keys of the ``rope`` section, without the prefix).
PAIRING_LABELS = ("pairing_title", "feature_axis", "pairing_colorbar", "layout_half", "layout_interleaved")
ATTENTION_LABELS = ("attention_title", "key_position", "query_position", "weight")


def index_list_text(values, limit: int = 16) -> str:
    """A long index list shortened for reading: "[0, 64, 1, 65, …, 63, 127]" (first and last entries kept)."""
    items = [str(int(v)) for v in np.asarray(values).ravel()]
    if len(items) > limit:
        items = [*items[: limit - 2], "…", *items[-2:]]
    return "[" + ", ".join(items) + "]"


def layout_pairing(pairs_by_layout: dict[str, np.ndarray], labels: dict) -> ReadOnlyFigure:
    """Which pair each feature belongs to, one row per layout. pairs_by_layout: layout -> [D] pair index.

    ``labels``: the translated words named in ``PAIRING_LABELS``; a row is named by ``labels["layout_<layout>"]``.
    """
    names = list(pairs_by_layout)
    table = np.stack([np.asarray(pairs_by_layout[name]).ravel() for name in names])  # [layouts, D]
    dim = table.shape[1]
    trace = {
        "type": "heatmap",
        "z": as_f32(table),
        "x": np.arange(dim),
        # a row's name in lines of at most 24 letters: on one line it took a phone's whole width from the chart
        "y": [wrapped(labels.get(f"layout_{name}", name), 24) for name in names],
        "colorscale": UNSIGNED_COLORS,
        "colorbar": colorbar(labels["pairing_colorbar"]),
        "hovertemplate": f"%{{y}}<br>{labels['feature_axis']} %{{x}}<br>{labels['pairing_colorbar']} %{{z}}"
        "<extra></extra>",
    }
    if dim <= 32:
        trace["texttemplate"] = "%{z}"
    fig_layout = layout(
        labels["pairing_title"],
        labels["feature_axis"],
        "",
        height=300,
        yaxis={"autorange": "reversed"},  # first layout on top
    )
    return ReadOnlyFigure([trace], fig_layout)


def layout_attention(right, wrong, right_title: str, wrong_title: str, labels: dict) -> ReadOnlyFigure:
    """Two causal attention patterns [L, L] side by side (weights 0 … 1, query rows, key columns).

    ``labels``: the translated words named in ``ATTENTION_LABELS``.
    """
    x_title, y_title = labels["key_position"], labels["query_position"]
    hover = f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>{labels['weight']} %{{z:.3f}}<extra></extra>"
    traces = [
        {"type": "heatmap", "z": as_f32(table), "coloraxis": "coloraxis", "hovertemplate": hover, **axes}
        for table, axes in ((right, {"xaxis": "x", "yaxis": "y"}), (wrong, {"xaxis": "x2", "yaxis": "y2"}))
    ]
    # two side-by-side cells, 0.08 apart (as make_subplots(rows=1, cols=2, horizontal_spacing=0.08) lays them out)
    left_cell, right_cell = [0.0, 0.46], [0.54, 1.0]

    fig_layout = layout(
        labels["attention_title"],
        x_title,
        y_title,
        480,
        xaxis={"anchor": "y", "domain": left_cell},
        yaxis={"anchor": "x", "domain": [0.0, 1.0], "autorange": "reversed"},
        xaxis2={"anchor": "y2", "domain": right_cell, "title": {"text": x_title}},
        # the right panel has the left one's positions: it shares its y axis, with no tick labels of its own that
        # would stand on the left panel's cells
        yaxis2={"anchor": "x2", "domain": [0.0, 1.0], "matches": "y", "showticklabels": False},
        annotations=[panel_title(right_title, left_cell, FONT_SIZE), panel_title(wrong_title, right_cell, FONT_SIZE)],
        coloraxis={
            "colorscale": UNSIGNED_COLORS,
            "cmin": 0.0,
            "cmax": 1.0,
            "colorbar": colorbar(labels["weight"]),
        },
    )
    return ReadOnlyFigure(traces, fig_layout)
