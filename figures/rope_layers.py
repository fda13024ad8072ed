"""Charts of the "RoPE layer by layer" page: several models' layer stacks side by side (one dot per layer, coloured by
its attention and position kind), and how four ways of allocating frequencies spread a head's pairs against a
context length.

Plain data in, plotly figures out; no Streamlit. Every word comes in a ``labels`` dict (the page fills it from
``locales/<lang>/rope_layers.toml``, keys :data:`LABEL_KEYS` without the ``rope_layers.`` prefix).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from figures.common import ReadOnlyFigure, as_f32, layout, with_room_for_legend
from figures.decay import COLORS

LAYER_KINDS = ("full_rope", "full_prope", "full_nope", "sliding_rope", "chunked_rope", "sliding_nope")
PAIR_KINDS = ("turns", "arc", "meaning")  # posenc.frequency_allocation.PAIR_KINDS without "unrotated" (no λ)
LABEL_KEYS = (  # every label the builders below read
    *("stack_title", "layer_axis", "layer_hover"),
    *(f"kind_{kind}" for kind in LAYER_KINDS),
    *("allocation_title", "wavelength_axis", "pair_hover", "context_mark"),
    *(f"pairs_{kind}" for kind in PAIR_KINDS),
)
KIND_COLORS = dict(zip(LAYER_KINDS, (COLORS[0], COLORS[2], COLORS[1], COLORS[3], COLORS[4], COLORS[5]), strict=True))
PAIR_COLORS = dict(zip(PAIR_KINDS, (COLORS[0], COLORS[4], COLORS[1]), strict=True))


def layer_stack_figure(stacks: Mapping[str, Sequence[tuple[str, str]]], labels: Mapping[str, str]) -> ReadOnlyFigure:
    """One row per model (``stacks``: its name -> one (kind, description) per layer, in order), one dot per layer
    at x = the layer's index, coloured by its kind (one of :data:`LAYER_KINDS`; one legend entry per kind drawn).
    The hover shows the model, the layer and its description. ``labels``: stack_title, layer_axis, layer_hover
    ({layer}), kind_<kind>."""
    names = list(stacks)
    traces = []
    for kind in LAYER_KINDS:
        x, y, custom = [], [], []
        for row, name in enumerate(names):
            for index, (layer_kind, description) in enumerate(stacks[name]):
                if layer_kind == kind:
                    x.append(index)
                    y.append(len(names) - 1 - row)  # the first model on top
                    custom.append([name, description])
        if not x:
            continue
        layer = labels["layer_hover"].format(layer="%{x}")
        hover = f"%{{customdata[0]}}<br>{layer}<br>%{{customdata[1]}}<extra></extra>"
        traces.append({"type": "scatter", "mode": "markers", "x": np.asarray(x, dtype=np.int32),
                       "y": np.asarray(y, dtype=np.int32),
                       "customdata": custom, "name": labels[f"kind_{kind}"],
                       "marker": {"color": KIND_COLORS[kind], "size": 11}, "hovertemplate": hover})  # fmt: skip
    longest = max(len(stack) for stack in stacks.values())
    fig_layout = layout(labels["stack_title"], labels["layer_axis"], "", 140 + 52 * len(names),
                        xaxis={"range": [-1, longest]}, yaxis=_rows_axis(names))  # fmt: skip
    fig_layout = with_room_for_legend(fig_layout, [trace["name"] for trace in traces])
    return ReadOnlyFigure(traces, fig_layout)


def allocation_figure(
    rows: Mapping[str, tuple[np.ndarray, Sequence[str]]], length: int, labels: Mapping[str, str]
) -> ReadOnlyFigure:
    """One row per allocation (``rows``: its label -> (wavelengths of its rotated pairs [R], their kinds, one of
    :data:`PAIR_KINDS` each)), one dot per rotated pair at x = its wavelength 2π/θ_i on a log axis, coloured by what
    it does within a context of ``length`` tokens, which a dotted line marks. Unrotated pairs have no wavelength and
    are counted in the row's label. ``labels``: allocation_title, wavelength_axis, pair_hover ({value}),
    context_mark ({length}), pairs_<kind>."""
    names = list(rows)
    traces = []
    for kind in PAIR_KINDS:
        x, y, custom = [], [], []
        for row, name in enumerate(names):
            wavelengths, kinds = rows[name]
            chosen = [k for k, pair_kind in enumerate(kinds) if pair_kind == kind]
            x.extend(float(wavelengths[k]) for k in chosen)
            y.extend([len(names) - 1 - row] * len(chosen))  # the first allocation on top
            custom.extend([[name]] * len(chosen))
        if not x:
            continue
        hover = f"%{{customdata[0]}}<br>{labels['pair_hover'].format(value='%{x:,.1f}')}<extra></extra>"
        traces.append({"type": "scatter", "mode": "markers", "x": as_f32(x), "y": np.asarray(y, dtype=np.int32),
                       "customdata": custom, "name": labels[f"pairs_{kind}"],
                       "marker": {"color": PAIR_COLORS[kind], "size": 8}, "hovertemplate": hover})  # fmt: skip
    line = {"type": "line", "xref": "x", "x0": length, "x1": length, "yref": "y domain", "y0": 0, "y1": 1,
            "line": {"dash": "dot", "color": "gray"}}  # fmt: skip
    mark = {"x": math.log10(length), "y": 1.0, "yref": "paper", "showarrow": False, "xanchor": "right",
            "yanchor": "bottom", "text": labels["context_mark"].format(length=f"{length:,}")}  # fmt: skip
    fig_layout = layout(labels["allocation_title"], labels["wavelength_axis"], "", 160 + 60 * len(names),
                        xaxis={"type": "log"}, shapes=[line], annotations=[mark], yaxis=_rows_axis(names))  # fmt: skip
    fig_layout = with_room_for_legend(fig_layout, [trace["name"] for trace in traces])
    return ReadOnlyFigure(traces, fig_layout)


def _rows_axis(names: list[str]) -> dict:
    """A y axis with one row per name, the first on top (rows are numbered from the bottom: y = len − 1 − row)."""
    count = len(names)
    return {
        "tickvals": list(range(count)),
        "ticktext": names[::-1],
        "range": [-0.6, count - 0.4],
        "zeroline": False,
        "showgrid": False,
        "automargin": True,
    }
