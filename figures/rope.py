"""Figures for the RoPE page: clock hands and the two feature layouts (the pair and the score curves are live charts,
charts/rope.py, drawn in the browser; their colours are named here).

Arrays in (numpy or tensors), ``plotly.graph_objects.Figure`` out; no Streamlit. Animations carry their frames in
the figure (Plotly frames with play/pause buttons and a slider) and are limited to ``MAX_FRAMES`` frames.
Every figure is built from plain trace, layout and frame dicts in one ``ReadOnlyFigure(data, layout, frames)`` call:
Plotly's ``update_*`` / ``add_*`` methods re-validate the whole figure each time and would dominate a rerun.

Every word a figure shows comes in through ``labels``: a dict of translated strings whose keys each builder lists in
its ``*_LABELS`` tuple (the page fills it from the ``rope`` catalog section). Templates in it use ``str.format``
placeholders ({position}, {shown}, {total}), filled here; tokens of Plotly hover templates are added here, never
translated.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go

from figures.common import FONT_SIZE, UNSIGNED_COLORS, ReadOnlyFigure, as_f32, colorbar, layout, panel_title

MAX_FRAMES = 120  # each frame travels with the figure: more would make the page heavy to send
MAX_CLOCKS = 64  # an 8 × 8 grid of dials is the most a projector shows legibly
CLOCK_COLUMNS = 8
ROW_SPACING = 1.25  # rows further apart than columns, so each "i=…" label sits clearly under its own dial
QUERY_COLOR, KEY_COLOR, WRONG_COLOR = "#1f77b4", "#ff7f0e", "#d62728"  # legible on light and dark backgrounds
DIAL_COLOR = "rgba(128, 128, 128, 0.55)"
# The words each builder needs in its ``labels`` dict (catalog keys of the ``rope`` section, without the prefix).
PLAY_LABELS = ("play", "pause")
CLOCK_LABELS = ("clock_title", "clock_note", "clock_prefix", "hover_pair", "hover_speed", "hover_turn_before",
                "hover_turn_after", *PLAY_LABELS)  # fmt: skip
PAIRING_LABELS = ("pairing_title", "feature_axis", "pairing_colorbar", "layout_half", "layout_interleaved")
ATTENTION_LABELS = ("attention_title", "key_position", "query_position", "weight")


def index_list_text(values, limit: int = 16) -> str:
    """A long index list shortened for reading: "[0, 64, 1, 65, …, 63, 127]" (first and last entries kept)."""
    items = [str(int(v)) for v in np.asarray(values).ravel()]
    if len(items) > limit:
        items = [*items[: limit - 2], "…", *items[-2:]]
    return "[" + ", ".join(items) + "]"


ANIMATION_MARGIN = 170  # pixels under the plot for the play/pause row and the frame slider with its labels


def _check_frames(count: int) -> None:
    if not 1 <= count <= MAX_FRAMES:
        raise ValueError(f"an animation needs between 1 and {MAX_FRAMES} frames; got {count}.")


def _animation_controls(labels: list[str], prefix: str, duration_ms: int, words: dict) -> dict:
    """Play/pause buttons (``words["play"]``, ``words["pause"]``) and a frame slider (frames named by index), in two
    rows under the plot (the buttons above, the slider below, offset in pixels): side by side, the slider's current
    value ran under the buttons in every language at 1024 px. The figure's bottom margin needs
    :data:`ANIMATION_MARGIN` pixels for them."""
    play = {"frame": {"duration": duration_ms, "redraw": True}, "fromcurrent": True, "transition": {"duration": 0}}
    pause = {"frame": {"duration": 0, "redraw": False}, "mode": "immediate", "transition": {"duration": 0}}
    jump = {"frame": {"duration": 0, "redraw": True}, "mode": "immediate", "transition": {"duration": 0}}
    return {
        "updatemenus": [
            {
                "type": "buttons",
                "direction": "left",
                "x": 0.0,
                "y": 0.0,
                "xanchor": "left",
                "yanchor": "top",
                "pad": {"t": 8},
                "showactive": False,
                "buttons": [
                    {"label": words["play"], "method": "animate", "args": [None, play]},
                    {"label": words["pause"], "method": "animate", "args": [[None], pause]},
                ],
            }
        ],
        "sliders": [
            {
                "x": 0.0,
                "len": 1.0,
                "y": 0.0,
                "yanchor": "top",
                "pad": {"t": 56},  # below the buttons' row
                "currentvalue": {"prefix": prefix, "font": {"size": FONT_SIZE}},
                "steps": [
                    {"label": label, "method": "animate", "args": [[str(index)], jump]}
                    for index, label in enumerate(labels)
                ],
            }
        ],
    }


def _circle(radius: float, center: tuple[float, float] = (0.0, 0.0), points: int = 65) -> dict:
    """x and y of a circle outline (drawing geometry only)."""
    turn = np.linspace(0.0, 2 * np.pi, points)
    return {"x": as_f32(center[0] + radius * np.cos(turn)), "y": as_f32(center[1] + radius * np.sin(turn))}


def clock_hands(factors, positions, thetas, labels: dict, max_clocks: int = MAX_CLOCKS) -> go.Figure:
    """Every pair as a clock hand: at position p, hand i points at angle p·θ_i. One frame per position.

    factors [F, P] complex e^{i·p_t·θ_i}; positions [F]; thetas [P]. More than ``max_clocks`` pairs: evenly
    spaced pairs are shown (first and last kept) and the title says so. ``labels``: the translated words named in
    ``CLOCK_LABELS`` (clock_title takes {position}, clock_note {shown} and {total}).
    """
    factors, positions, thetas = np.asarray(factors), np.asarray(positions).ravel(), np.asarray(thetas).ravel()
    if factors.ndim != 2 or factors.shape != (len(positions), len(thetas)):
        raise ValueError(f"factors must be [frames, pairs] = [{len(positions)}, {len(thetas)}]; got {factors.shape}.")
    _check_frames(len(positions))
    n_pairs = len(thetas)
    shown = np.unique(np.round(np.linspace(0, n_pairs - 1, min(n_pairs, max_clocks))).astype(int))
    count = len(shown)
    rows = math.ceil(count / CLOCK_COLUMNS)
    centers_x = (np.arange(count) % CLOCK_COLUMNS).astype(np.float64)
    centers_y = -ROW_SPACING * (np.arange(count) // CLOCK_COLUMNS).astype(np.float64)
    radius = 0.42

    # Every frame's hands at once: [F, count, 3] points (centre, tip, gap), one segment per hand.
    tips = 0.9 * radius * factors[:, shown]  # [F, count]
    gaps = np.full(tips.shape, np.nan)
    hands_x = as_f32(np.stack((np.broadcast_to(centers_x, tips.shape), centers_x + tips.real, gaps), axis=-1))
    hands_y = as_f32(np.stack((np.broadcast_to(centers_y, tips.shape), centers_y + tips.imag, gaps), axis=-1))
    hands_x, hands_y = hands_x.reshape(len(positions), -1), hands_y.reshape(len(positions), -1)

    dials = [_circle(radius, (cx, cy), points=17) for cx, cy in zip(centers_x, centers_y, strict=True)]
    dial_x = np.concatenate([np.append(dial["x"], np.nan) for dial in dials])
    dial_y = np.concatenate([np.append(dial["y"], np.nan) for dial in dials])
    info = np.stack((shown, thetas[shown], 2 * np.pi / thetas[shown]), axis=-1)  # pair, θ_i, one turn
    info = as_f32(np.repeat(info, 3, axis=0))  # one row per hand point
    hover = (
        f"{labels['hover_pair']} = %{{customdata[0]:.0f}}<br>θ_i = %{{customdata[1]:.3g}} {labels['hover_speed']}"
        f"<br>{labels['hover_turn_before']} %{{customdata[2]:,.1f}} {labels['hover_turn_after']}<extra></extra>"
    )
    traces = [
        {
            "type": "scatter",
            "x": as_f32(dial_x),
            "y": as_f32(dial_y),
            "mode": "lines",
            "line": {"color": DIAL_COLOR},
            "hoverinfo": "skip",
        },
        {
            "type": "scatter",
            "x": hands_x[0],
            "y": hands_y[0],
            "mode": "lines+markers",
            "line": {"color": QUERY_COLOR, "width": 3},
            "marker": {"size": np.tile(as_f32([0, 7, 0]), count), "color": QUERY_COLOR},
            "customdata": info,
            "hovertemplate": hover,
        },
        {
            "type": "scatter",
            "x": as_f32(centers_x),
            "y": as_f32(centers_y - radius - 0.12),
            "mode": "text",
            "text": [f"i={i}" for i in shown],
            "textfont": {"size": FONT_SIZE - 4},
            "hoverinfo": "skip",
        },
    ]
    note = "" if count == n_pairs else f"<br><sup>{labels['clock_note'].format(shown=count, total=n_pairs)}</sup>"

    def title(t: int) -> str:
        return labels["clock_title"].format(position=f"{int(positions[t]):,}") + note

    frames = [
        {
            "name": str(t),
            "data": [{"type": "scatter", "x": hands_x[t], "y": hands_y[t]}],
            "traces": [1],
            "layout": {"title": {"text": title(t)}},
        }
        for t in range(len(positions))
    ]
    steps = [f"{int(p):,}" for p in positions]
    fig_layout = layout(
        title(0),
        "",
        "",
        height=180 + 100 * rows,  # the dials keep their size above the two control rows
        xaxis={"visible": False, "range": [-0.6, CLOCK_COLUMNS - 0.4]},
        yaxis={
            "visible": False,
            "range": [-ROW_SPACING * (rows - 1) - 0.7, 0.6],
            "scaleanchor": "x",
            "scaleratio": 1,
        },
        **_animation_controls(steps, labels["clock_prefix"], duration_ms=150, words=labels),
        showlegend=False,
        margin={"b": ANIMATION_MARGIN},
    )
    return ReadOnlyFigure(traces, fig_layout, frames)


def layout_pairing(pairs_by_layout: dict[str, np.ndarray], labels: dict) -> go.Figure:
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
        "y": [labels.get(f"layout_{name}", name) for name in names],
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


def layout_attention(right, wrong, right_title: str, wrong_title: str, labels: dict) -> go.Figure:
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
        yaxis2={"anchor": "x2", "domain": [0.0, 1.0], "title": {"text": y_title}, "autorange": "reversed"},
        annotations=[panel_title(right_title, left_cell, FONT_SIZE), panel_title(wrong_title, right_cell, FONT_SIZE)],
        coloraxis={
            "colorscale": UNSIGNED_COLORS,
            "cmin": 0.0,
            "cmax": 1.0,
            "colorbar": colorbar(labels["weight"]),
        },
    )
    return ReadOnlyFigure(traces, fig_layout)
