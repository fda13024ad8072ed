"""Figures for the sinusoidal-encoding page: arrays in, Plotly figures out (no Streamlit here).

Big tables are reduced before they are sent (block means, labelled in the title) so that the whole page stays
under ~1.5 MB per rerun even at length 4096 × dim 1024.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from figures.common import FONT_SIZE, SIGNED_COLORS, as_f32, heatmap, reduce_for_screen, style

PE_HEATMAP_CELLS = 80_000  # ≈ 560 × 140 at 4096 × 1024: ~430 KB on the wire
SIMILARITY_SIDE = 280  # the similarity heatmap is at most 280 × 280 blocks: ~420 KB on the wire
SHIFT_MATRIX_PAIRS = 16  # the rotation matrix is drawn for the first 16 pairs (a 32 × 32 picture)


def similarity_block(length: int, side: int = SIMILARITY_SIDE) -> int:
    """Positions per block so that a [length × length] similarity matrix fits in side × side cells."""
    return max(1, math.ceil(length / side))


def _reduced_heatmap(table, max_cells: int, **kwargs) -> go.Figure:
    """figures.common.heatmap with a tighter cell budget; axes keep the original row/column indices."""
    reduced = reduce_for_screen(table, max_cells=max_cells)
    fig = heatmap(reduced.values, **kwargs)
    fig.update_traces(x=reduced.cols, y=reduced.rows)
    if reduced.note:
        fig.update_layout(title_text=f"{kwargs['title']}<br><sup>{reduced.note}</sup>")
    return fig


def pe_heatmap(table, layout: str) -> go.Figure:
    """The sinusoid table [L, D]: one row per position, one column per dimension, values in [−1, 1]."""
    values = as_f32(table)
    fig = _reduced_heatmap(
        values,
        PE_HEATMAP_CELLS,
        title=f"PE[position, dimension] — {values.shape[0]} × {values.shape[1]}, {layout} layout",
        x_title="dimension",
        y_title="position",
        value_name="PE",
        signed=True,
        height=520,
    )
    fig.update_traces(zmin=-1.0, zmax=1.0)
    return fig


def column_label(column: int, pair_columns) -> str:
    """'d5 = cos, pair 2' for a column of the table, given the [P, 2] (sine, cosine) columns of each pair."""
    pairs = np.asarray(pair_columns)
    pair, kind = np.argwhere(pairs == column)[0]
    return f"d{column} = {'sin' if kind == 0 else 'cos'}, pair {pair}"


def waves_figure(table, columns, pair_columns) -> go.Figure:
    """Chosen columns of the table drawn over position: each dimension is a wave of its own wavelength."""
    values = as_f32(table)
    fig = go.Figure()
    for column in columns:
        fig.add_trace(
            go.Scatter(
                y=values[:, column],  # x is the position 0 … L − 1
                mode="lines",
                name=column_label(column, pair_columns),
                hovertemplate="position %{x}<br>PE %{y:.4f}<extra>%{fullData.name}</extra>",
            )
        )
    fig.update_yaxes(range=[-1.1, 1.1])
    return style(fig, "Chosen dimensions over position", "position p", "PE(p, d)", height=420)


def wavelength_figure(wavelengths, length: int) -> go.Figure:
    """λ_i = 2π·base^(2i/D) per pair on a log axis, with the number of positions shown as a reference line."""
    values = as_f32(wavelengths)
    fig = go.Figure(
        go.Scatter(
            y=values,  # x is the pair index i
            mode="lines+markers",
            name="wavelength λ_i",
            hovertemplate="pair %{x}<br>λ = %{y:.4g} positions<extra></extra>",
        )
    )
    fig.add_hline(y=length, line_dash="dash")
    # on a log axis, annotation heights and the axis range are given in log10 units
    fig.add_annotation(
        text=f"length = {length}",
        x=1,
        xref="paper",
        xanchor="right",
        y=math.log10(length),
        yanchor="bottom",
        showarrow=False,
    )
    low, high = math.log10(min(float(values.min()), length)), math.log10(max(float(values.max()), length))
    fig.update_yaxes(type="log", range=[low - 0.2, high + 0.2])
    return style(fig, "Wavelength of each (sin, cos) pair", "pair index i", "wavelength (positions, log)", height=420)


def similarity_heatmap(matrix, block: int, length: int) -> go.Figure:
    """PE·PEᵀ [N, N], N = ⌈L/block⌉; each axis is labelled with the first position of its block."""
    values = as_f32(matrix)
    title = f"PE(p)·PE(q) for {length} positions"
    if block > 1:
        title += f"<br><sup>Reduced for the screen: each cell is the exact mean over a {block}×{block} block.</sup>"
    fig = heatmap(values, title, "position q", "position p", value_name="PE(p)·PE(q)", signed=True, height=520)
    starts = np.arange(values.shape[0]) * block
    fig.update_traces(x=starts, y=starts)
    return fig


def similarity_row_figure(row, closed_form, position: int) -> go.Figure:
    """One row of PE·PEᵀ (dot products) over q, with Σ cos((q − p)ω_i) laid on top."""
    fig = go.Figure(
        [
            go.Scatter(
                y=as_f32(row),
                mode="lines",
                name=f"PE({position})·PE(q), dot products",
                line={"width": 4},
                hovertemplate="q %{x}<br>%{y:.4f}<extra></extra>",
            ),
            go.Scatter(
                y=as_f32(closed_form),
                mode="lines",
                name="Σ cos((q − p)·ω_i), offset only",
                line={"dash": "dot", "width": 2},
                hovertemplate="q %{x}<br>%{y:.4f}<extra></extra>",
            ),
        ]
    )
    fig.add_vline(x=position, line_dash="dash", annotation_text=f"p = {position}")
    return style(fig, f"Row p = {position}: similarity to every position q", "position q", "dot product", 420)


def shift_matrix_figure(matrix, pair_columns, offset: int, max_pairs: int = SHIFT_MATRIX_PAIRS) -> go.Figure:
    """M_k restricted to the first ``max_pairs`` pairs, rows and columns in the table's own order."""
    values = np.asarray(matrix, dtype=np.float64)
    pairs = np.asarray(pair_columns)[:max_pairs]
    keep = np.sort(pairs.ravel())  # the columns of these pairs, in layout order
    labels = [column_label(int(column), pairs).replace(" = ", " ") for column in keep]
    shown = as_f32(values[np.ix_(keep, keep)])
    title = f"Shift matrix M_k for k = {offset}"
    if len(pairs) * 2 < values.shape[0]:
        title += f"<br><sup>First {len(pairs)} of {values.shape[0] // 2} pairs; every other entry is 0 too.</sup>"
    trace = go.Heatmap(
        z=shown,
        x=labels,
        y=labels,
        colorscale=SIGNED_COLORS,
        zmid=0.0,
        zmin=-1.0,
        zmax=1.0,
        colorbar={"title": {"text": "M_k"}},
        hovertemplate="row %{y}<br>column %{x}<br>M_k %{z:.4f}<extra></extra>",
    )
    fig = style(go.Figure(trace), title, "input dimension (PE(p))", "output dimension (PE(p + k))", height=560)
    fig.update_xaxes(tickfont={"size": FONT_SIZE - 4})
    fig.update_yaxes(autorange="reversed", tickfont={"size": FONT_SIZE - 4})
    return fig


def shift_residual_figure(residual, offset: int) -> go.Figure:
    """max_d |PE(p + k) − M_k·PE(p)| for every p: flat rounding noise means one matrix serves every position."""
    fig = go.Figure(
        go.Scatter(
            y=as_f32(residual),
            mode="lines",
            name="residual",
            hovertemplate="p %{x}<br>max error %{y:.2e}<extra></extra>",
        )
    )
    fig.update_yaxes(exponentformat="e", rangemode="tozero")
    return style(fig, f"Error of the same M_k at every position (k = {offset})", "position p", "max |error|", 380)


def naive_figure(integers, norm_short, norm_long, pe_short, pe_long, pair_columns, band: float = 2.0) -> go.Figure:
    """Three encodings of position side by side, for a short and a long sentence, against word-embedding scale.

    ``integers`` [L]; ``norm_short`` [Ls], ``norm_long`` [L]; ``pe_short`` [Ls, D], ``pe_long`` [L, D] with the
    [P, 2] ``pair_columns`` of their layout: the sine of pair P/4 is drawn (slow enough to see its shape).
    ``band``: word-embedding entries lie mostly within ±band.
    """
    pe_long, pe_short = as_f32(pe_long), as_f32(pe_short)
    pairs = np.asarray(pair_columns)
    column = int(pairs[len(pairs) // 4, 0])
    short, long = len(pe_short), len(pe_long)
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=("integer p", "p / (L − 1)", f"sinusoid PE(p, {column})"),
        horizontal_spacing=0.08,
    )
    hover = "p %{x}<br>%{y:.4f}<extra>%{fullData.name}</extra>"
    short_style = {"mode": "lines+markers", "marker": {"size": 10}, "line": {"width": 3}}
    traces = [
        (1, go.Scatter(y=as_f32(integers), mode="lines", name=f"integer, L = {long}", hovertemplate=hover)),
        (2, go.Scatter(y=as_f32(norm_long), mode="lines", name=f"normalised, L = {long}", hovertemplate=hover)),
        (2, go.Scatter(y=as_f32(norm_short), name=f"normalised, L = {short}", hovertemplate=hover, **short_style)),
        (3, go.Scatter(y=pe_long[:, column], mode="lines", name=f"sinusoid, L = {long}", hovertemplate=hover)),
        (3, go.Scatter(y=pe_short[:, column], name=f"sinusoid, L = {short}", hovertemplate=hover, **short_style)),
    ]
    for col, trace in traces:
        fig.add_trace(trace, row=1, col=col)
    for col in (1, 2, 3):
        fig.add_hrect(y0=-band, y1=band, opacity=0.15, line_width=0, fillcolor="gray", row=1, col=col)
        fig.update_xaxes(title_text="position p", row=1, col=col)
    fig.update_yaxes(title_text="value", row=1, col=1)
    fig.update_annotations(font_size=FONT_SIZE)
    title = f"Three ways to encode position (grey band: word-embedding entries, mostly within ±{band:g})"
    return style(fig, title, "position p", "value", height=460).update_xaxes(title_text="position p")


def cosine_histogram_figure(cosines, dims) -> go.Figure:
    """Histograms of cos(word, PE) per dimension [len(dims), S]: the spread shrinks like 1/√D."""
    values = as_f32(cosines)
    fig = go.Figure()
    for dim, row in zip(dims, values, strict=True):
        fig.add_trace(
            go.Histogram(
                x=row,
                name=f"D = {dim} (spread ±{float(np.std(row)):.3f}, 1/√D = {1 / math.sqrt(dim):.3f})",
                histnorm="probability density",
                xbins={"start": -1.0, "end": 1.0, "size": 0.02},
                opacity=0.6,
                hovertemplate="cosine %{x}<br>density %{y:.3f}<extra>%{fullData.name}</extra>",
            )
        )
    fig.update_layout(barmode="overlay")
    fig.update_xaxes(range=[-1.0, 1.0])
    style(fig, "cos(word embedding, PE) for random words and positions", "cosine similarity", "density", 460)
    fig.update_layout(legend={"orientation": "v", "y": 1.0, "x": 1.02})
    return fig


def position_vector_figure(sine_row, learned_row, position: int, max_len: int) -> go.Figure:
    """The vector for one position from the formula (always) and from a learned table (only below max_len)."""
    fig = make_subplots(
        rows=2,
        cols=1,
        shared_xaxes=True,
        vertical_spacing=0.15,
        subplot_titles=(f"sinusoid PE({position}): a formula, any p", f"learned row E[{position}] (max_len {max_len})"),
    )
    hover = "dimension %{x}<br>%{y:.4f}<extra></extra>"
    fig.add_trace(go.Bar(y=as_f32(sine_row), name="sinusoid", hovertemplate=hover), row=1, col=1)
    if learned_row is None:
        low, high = fig.layout.yaxis2.domain  # the empty lower panel, in figure (paper) coordinates
        fig.add_annotation(
            text=f"no vector: position {position} ≥ max_len {max_len}",
            showarrow=False,
            xref="paper",
            yref="paper",
            x=0.5,
            y=(low + high) / 2,
        )
    else:
        fig.add_trace(go.Bar(y=as_f32(learned_row), name="learned", hovertemplate=hover), row=2, col=1)
    fig.update_annotations(font_size=FONT_SIZE)
    fig.update_xaxes(title_text="dimension", row=2, col=1)
    style(fig, f"The vector for position {position}", "", "value", height=520)
    fig.update_xaxes(title_text="dimension", row=2, col=1)
    return fig
