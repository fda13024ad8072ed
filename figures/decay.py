"""Charts of the long-range decay page: curves over relative distance, wavelengths per pair, scaled frequencies.

Arrays in (numpy or torch), plotly figures out; no Streamlit. Every curve is sent as float32.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go
from plotly.colors import hex_to_rgb, qualitative
from plotly.subplots import make_subplots

from figures.common import FONT_SIZE, as_f32, style

COLORS = qualitative.Plotly  # mid-tone colours: legible on light and dark backgrounds
DISTANCE = "relative distance r = m − n"
METHOD_NAMES = {
    "original": "original (no scaling)",
    "linear": "linear interpolation",
    "dynamic": "dynamic NTK",
    "yarn": "YaRN",
    "llama3": "Llama 3",
}


def _log_x(fig: go.Figure, log_x: bool) -> go.Figure:
    if log_x:
        fig.update_xaxes(type="log")  # r = 0 has no place on a log axis: the curve starts at r = 1
    return fig


def decay_bound_figure(distances, bound, log_x: bool = False, height: int = 420) -> go.Figure:
    """The RoPE paper's relative upper bound against relative distance (its Figure 2 at d = 128, base = 10 000)."""
    trace = go.Scatter(
        x=as_f32(distances),
        y=as_f32(bound),
        mode="lines",
        name="relative upper bound",
        line={"color": COLORS[0]},
        hovertemplate="r = %{x}<br>bound %{y:.3f}<extra></extra>",
    )
    fig = style(go.Figure(trace), "Relative upper bound (RoFormer, Figure 2)", DISTANCE, "relative upper bound", height)
    return _log_x(fig, log_x)


def score_figure(distances, ones, mean, std, log_x: bool = False, height: int = 420) -> go.Figure:
    """The actual score q·k: for q = k = all ones, and mean ± one standard deviation over random q, k."""
    x, mean, std = as_f32(distances), as_f32(mean), as_f32(std)
    red, green, blue = hex_to_rgb(COLORS[1])
    band = {"mode": "lines", "line": {"width": 0, "color": COLORS[1]}, "hoverinfo": "skip"}
    traces = [
        go.Scatter(x=x, y=mean - std, name="mean − std", showlegend=False, **band),
        go.Scatter(
            x=x,
            y=mean + std,
            name="random q, k: mean ± 1 std",
            fill="tonexty",
            fillcolor=f"rgba({red}, {green}, {blue}, 0.25)",
            **band,
        ),
        go.Scatter(
            x=x,
            y=mean,
            mode="lines",
            name="random q, k: mean",
            line={"color": COLORS[1]},
            customdata=std,
            hovertemplate="r = %{x}<br>mean %{y:.2f} ± %{customdata:.2f}<extra></extra>",
        ),
        go.Scatter(
            x=x,
            y=as_f32(ones),
            mode="lines",
            name="q = k = all ones",
            line={"color": COLORS[0]},
            hovertemplate="r = %{x}<br>q·k %{y:.2f}<extra></extra>",
        ),
    ]
    fig = style(go.Figure(traces), "The actual score q·k at distance r", DISTANCE, "score q·k", height)
    fig.add_hline(y=0, line_width=1, line_color="gray")
    return _log_x(fig, log_x)


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
        go.Scatter(
            x=x,
            y=as_f32(values),
            mode="lines",
            name=METHOD_NAMES.get(label, label),
            line={"color": COLORS[index % len(COLORS)], "dash": "dash" if label == "original" else "solid"},
            hovertemplate=f"{METHOD_NAMES.get(label, label)}<br>r = %{{x}}<br>{y_title} %{{y:.3f}}<extra></extra>",
        )
        for index, (label, values) in enumerate(curves.items())
    ]
    fig = style(go.Figure(traces), title, DISTANCE, y_title, height)
    for text, position in (marks or {}).items():
        fig.add_vline(x=position, line_dash="dot", line_color="gray")
        # annotations on a log axis are placed in log10 units (plotly.js), so the label gets its own coordinates
        label_x = np.log10(position) if log_x and position > 0 else position
        fig.add_annotation(x=label_x, y=1, yref="paper", text=text, showarrow=False, xanchor="right", yanchor="top")
    return _log_x(fig, log_x)


def wavelength_figure(wavelengths, completes, train_length: int, height: int = 420) -> go.Figure:
    """Wavelength of each pair (log y) against the training length; pairs that finish a turn in it are coloured."""
    wavelengths, completes = as_f32(wavelengths), np.asarray(completes, dtype=bool)
    pairs = np.arange(wavelengths.size, dtype=np.int32)
    groups = (
        (completes, "turns at least once within training", COLORS[0]),
        (~completes, "never turns fully", COLORS[1]),
    )
    traces = [
        go.Scatter(
            x=pairs[mask],
            y=wavelengths[mask],
            mode="markers",
            name=f"{name} ({int(mask.sum())} pairs)",
            marker={"color": color, "size": 8},
            hovertemplate="pair %{x}<br>wavelength %{y:,.1f} positions<extra></extra>",
        )
        for mask, name, color in groups
    ]
    title = "Wavelength of each pair vs the training context"
    fig = style(go.Figure(traces), title, "pair i", "wavelength (positions)", height)
    fig.update_yaxes(type="log")
    fig.add_hline(y=train_length, line_dash="dot", line_color="gray")
    fig.add_annotation(  # on a log axis plotly.js places annotations in log10 units
        x=0, xref="paper", y=np.log10(train_length), text=f"training length {train_length:,}", showarrow=False,
        xanchor="left", yanchor="bottom",
    )  # fmt: skip
    return fig


def scaled_frequency_figure(frequencies: Mapping[str, object], height: int = 560) -> go.Figure:
    """Per-pair frequencies θ'_i of each method (top, log) and their ratio to the original θ'_i/θ_i (bottom, log).

    ``frequencies`` must hold an ``"original"`` entry.
    """
    original = as_f32(frequencies["original"])
    pairs = np.arange(original.size, dtype=np.int32)
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08)
    lowest = 1.0
    for index, (label, values) in enumerate(frequencies.items()):
        values = as_f32(values)
        lowest = min(lowest, float((values / original).min()))
        line = {"color": COLORS[index % len(COLORS)], "dash": "dash" if label == "original" else "solid"}
        name = METHOD_NAMES.get(label, label)
        fig.add_trace(
            go.Scatter(
                x=pairs,
                y=values,
                mode="lines",
                name=name,
                legendgroup=label,
                line=line,
                hovertemplate=f"{name}<br>pair %{{x}}<br>θ' %{{y:.3g}}<extra></extra>",
            ),
            row=1,
            col=1,
        )
        fig.add_trace(
            go.Scatter(
                x=pairs,
                y=values / original,  # how much each pair is slowed: 1 = untouched, 1/s = fully interpolated
                mode="lines",
                name=name,
                legendgroup=label,
                showlegend=False,
                line=line,
                hovertemplate=f"{name}<br>pair %{{x}}<br>θ'/θ %{{y:.3g}}<extra></extra>",
            ),
            row=2,
            col=1,
        )
    style(fig, "Scaled frequencies per pair", "", "frequency θ'ᵢ", height)
    fig.update_yaxes(type="log", exponentformat="power")
    halvings = np.arange(int(np.ceil(-np.log2(lowest) - 1e-6)) + 1)  # ticks 1, 1/2, 1/4, … down to the lowest ratio
    fig.update_yaxes(
        title_text="θ'ᵢ / θᵢ (vs original)",
        tickvals=2.0**-halvings,
        ticktext=["1", *(f"1/{2 ** int(k):,}" for k in halvings[1:])],
        row=2,
        col=1,
    )
    fig.update_xaxes(title_text="pair i", row=2, col=1)
    fig.update_annotations(font_size=FONT_SIZE)
    return fig
