"""Figures for the sinusoidal-encoding page: arrays in, Plotly figures out (no Streamlit here).

The table itself and PE·PEᵀ are live charts (charts/sinusoidal.py, drawn in the browser). Every figure is built from
plain dicts in one ``ReadOnlyFigure(data, layout)`` call: each ``update_*`` / ``add_*`` call on a ``go.Figure``
re-validates the whole figure and costs milliseconds, which is what made a rerun slow.
"""

from __future__ import annotations

import math

import numpy as np

from figures.common import FONT_SIZE, SIGNED_COLORS, ReadOnlyFigure, as_f32, colorbar, layout

SHIFT_MATRIX_PAIRS = 16  # the rotation matrix is drawn for the first 16 pairs (a 32 × 32 picture)
VECTOR_SPACING = 0.15  # vertical gap between the two panels of the position-vector figure

# The translated words every builder takes in its ``labels`` dict (the page reads them from the catalog, key
# ``sinusoidal.fig_<name>``). Templates with {placeholders} are filled here, with the numbers only a builder knows.
LABEL_NAMES = (
    "dimension",
    "position",
    "column",
    "matrix_tick",
    "waves_title",
    "position_p",
    "position_q",
    "wavelength_name",
    "pair",
    "positions",
    "length_line",
    "wavelength_title",
    "pair_index",
    "wavelength_axis",
    "row_dots",
    "row_offset",
    "row_title",
    "dot_product",
    "shift_title",
    "shift_note",
    "row",
    "column_word",
    "input_dimension",
    "output_dimension",
    "residual",
    "max_error",
    "residual_title",
    "max_abs_error",
    "value",
    "sinusoid",
    "learned",
    "sinusoid_vector",
    "learned_vector",
    "no_vector",
    "vector_title",
)


def _signed_heatmap(z, x, y, x_title: str, y_title: str, value_name: str, **extra) -> dict:
    """A heatmap trace dict with the diverging colour scale centred at 0 and true values on hover."""
    return {
        "type": "heatmap",
        "z": z,
        "x": x,
        "y": y,
        "colorscale": SIGNED_COLORS,
        "colorbar": colorbar(value_name),
        "hovertemplate": f"{y_title} %{{y}}<br>{x_title} %{{x}}<br>{value_name} %{{z:.4f}}<extra></extra>",
        "zmid": 0.0,
        **extra,
    }


def column_label(column: int, pair_columns, template: str) -> str:
    """'d5 = cos, pair 2' for a column of the table, given the [P, 2] (sine, cosine) columns of each pair.

    ``template`` is the translated label with {column}, {kind} (sin or cos) and {pair} to fill in.
    """
    pairs = np.asarray(pair_columns)
    pair, kind = np.argwhere(pairs == column)[0]
    return template.format(column=column, kind="sin" if kind == 0 else "cos", pair=pair)


def waves_figure(waves, columns, pair_columns, labels: dict) -> ReadOnlyFigure:
    """Chosen columns of the table drawn over position: each dimension is a wave of its own wavelength.

    ``waves``: [L, len(columns)], those columns of the table (column j is the table's column ``columns[j]``)."""
    values = as_f32(waves)
    traces = [
        {
            "type": "scatter",
            "y": values[:, j],  # x is the position 0 … L − 1
            "mode": "lines",
            "name": column_label(column, pair_columns, labels["column"]),
            "hovertemplate": f"{labels['position']} %{{x}}<br>PE %{{y:.4f}}<extra>%{{fullData.name}}</extra>",
        }
        for j, column in enumerate(columns)
    ]
    fig_layout = layout(labels["waves_title"], labels["position_p"], "PE(p, d)", 420, yaxis={"range": [-1.1, 1.1]})
    return ReadOnlyFigure(traces, fig_layout)


def wavelength_figure(wavelengths, length: int, labels: dict) -> ReadOnlyFigure:
    """λ_i = 2π·base^(2i/D) per pair on a log axis, with the number of positions shown as a reference line."""
    values = as_f32(wavelengths)
    trace = {
        "type": "scatter",
        "y": values,  # x is the pair index i
        "mode": "lines+markers",
        "name": labels["wavelength_name"],
        "hovertemplate": f"{labels['pair']} %{{x}}<br>λ = %{{y:.4g}} {labels['positions']}<extra></extra>",
    }
    length_line = {
        "type": "line",
        "xref": "x domain",
        "x0": 0,
        "x1": 1,
        "yref": "y",
        "y0": length,
        "y1": length,
        "line": {"dash": "dash"},
    }
    # on a log axis, annotation heights and the axis range are given in log10 units
    length_label = {
        "text": labels["length_line"].format(length=length),
        "x": 1,
        "xref": "paper",
        "xanchor": "right",
        "y": math.log10(length),
        "yanchor": "bottom",
        "showarrow": False,
    }
    low, high = math.log10(min(float(values.min()), length)), math.log10(max(float(values.max()), length))
    fig_layout = layout(
        labels["wavelength_title"],
        labels["pair_index"],
        labels["wavelength_axis"],
        420,
        yaxis={"type": "log", "range": [low - 0.2, high + 0.2]},
        shapes=[length_line],
        annotations=[length_label],
    )
    return ReadOnlyFigure([trace], fig_layout)


def similarity_row_figure(row, closed_form, position: int, labels: dict) -> ReadOnlyFigure:
    """One row of PE·PEᵀ (dot products) over q, with Σ cos((q − p)ω_i) laid on top."""
    hover = "q %{x}<br>%{y:.4f}<extra></extra>"
    traces = [
        {
            "type": "scatter",
            "y": as_f32(row),
            "mode": "lines",
            "name": labels["row_dots"].format(position=position),
            "line": {"width": 4},
            "hovertemplate": hover,
        },
        {
            "type": "scatter",
            "y": as_f32(closed_form),
            "mode": "lines",
            "name": labels["row_offset"],
            "line": {"dash": "dot", "width": 2},
            "hovertemplate": hover,
        },
    ]
    row_line = {
        "type": "line",
        "xref": "x",
        "x0": position,
        "x1": position,
        "yref": "y domain",
        "y0": 0,
        "y1": 1,
        "line": {"dash": "dash"},
    }
    row_label = {
        "text": f"p = {position}",
        "showarrow": False,
        "xref": "x",
        "x": position,
        "xanchor": "left",
        "yref": "y domain",
        "y": 1,
        "yanchor": "top",
    }
    title = labels["row_title"].format(position=position)
    fig_layout = layout(
        title, labels["position_q"], labels["dot_product"], 420, shapes=[row_line], annotations=[row_label]
    )
    return ReadOnlyFigure(traces, fig_layout)


def shift_matrix_figure(
    matrix, pair_columns, offset: int, labels: dict, max_pairs: int = SHIFT_MATRIX_PAIRS
) -> ReadOnlyFigure:
    """M_k restricted to the first ``max_pairs`` pairs, rows and columns in the table's own order."""
    values = np.asarray(matrix, dtype=np.float64)
    pairs = np.asarray(pair_columns)[:max_pairs]
    keep = np.sort(pairs.ravel())  # the columns of these pairs, in layout order
    ticks = [column_label(int(column), pairs, labels["matrix_tick"]) for column in keep]
    shown = as_f32(values[np.ix_(keep, keep)])
    title = labels["shift_title"].format(offset=offset)
    if len(pairs) * 2 < values.shape[0]:
        title += f"<br><sup>{labels['shift_note'].format(shown=len(pairs), total=values.shape[0] // 2)}</sup>"
    trace = {
        "type": "heatmap",
        "z": shown,
        "x": ticks,
        "y": ticks,
        "colorscale": SIGNED_COLORS,
        "zmid": 0.0,
        "zmin": -1.0,
        "zmax": 1.0,
        "colorbar": colorbar("M_k"),
        "hovertemplate": f"{labels['row']} %{{y}}<br>{labels['column_word']} %{{x}}<br>M_k %{{z:.4f}}<extra></extra>",
    }
    small_ticks = {"size": FONT_SIZE - 4}
    fig_layout = layout(
        title,
        labels["input_dimension"],
        labels["output_dimension"],
        560,
        xaxis={"tickfont": small_ticks},
        yaxis={"autorange": "reversed", "tickfont": small_ticks},
    )
    return ReadOnlyFigure([trace], fig_layout)


def shift_residual_figure(residual, offset: int, labels: dict) -> ReadOnlyFigure:
    """max_d |PE(p + k) − M_k·PE(p)| for every p: flat rounding noise means one matrix serves every position."""
    trace = {
        "type": "scatter",
        "y": as_f32(residual),
        "mode": "lines",
        "name": labels["residual"],
        "hovertemplate": f"p %{{x}}<br>{labels['max_error']} %{{y:.2e}}<extra></extra>",
    }
    fig_layout = layout(
        labels["residual_title"].format(offset=offset),
        labels["position_p"],
        labels["max_abs_error"],
        380,
        yaxis={"exponentformat": "e", "rangemode": "tozero"},
    )
    return ReadOnlyFigure([trace], fig_layout)


def _panel_title(text: str, x: float, y: float) -> dict:
    """A subplot title: centred above its panel, in paper coordinates (what make_subplots would add)."""
    return {
        "text": text,
        "font": {"size": FONT_SIZE},
        "showarrow": False,
        "xref": "paper",
        "x": x,
        "xanchor": "center",
        "yref": "paper",
        "y": y,
        "yanchor": "bottom",
    }


def position_vector_figure(sine_row, learned_row, position: int, max_len: int, labels: dict) -> ReadOnlyFigure:
    """The vector for one position from the formula (always) and from a learned table (only below max_len)."""
    height = (1.0 - VECTOR_SPACING) / 2  # two panels stacked, sharing the dimension axis
    low, high = 0.0, height  # the lower panel (the learned row), in figure (paper) coordinates
    hover = f"{labels['dimension']} %{{x}}<br>%{{y:.4f}}<extra></extra>"
    sine_trace = {"type": "bar", "y": as_f32(sine_row), "name": labels["sinusoid"], "hovertemplate": hover}
    traces = [{**sine_trace, "xaxis": "x", "yaxis": "y"}]
    notes = [
        _panel_title(labels["sinusoid_vector"].format(position=position), 0.5, 1.0),
        _panel_title(labels["learned_vector"].format(position=position, max_len=max_len), 0.5, high),
    ]
    if learned_row is None:
        notes.append(
            {
                "text": labels["no_vector"].format(position=position, max_len=max_len),
                "showarrow": False,
                "xref": "paper",
                "yref": "paper",
                "x": 0.5,
                "y": (low + high) / 2,
                "font": {"size": FONT_SIZE},
            }
        )
    else:
        traces.append(
            {
                "type": "bar",
                "y": as_f32(learned_row),
                "name": labels["learned"],
                "hovertemplate": hover,
                "xaxis": "x2",
                "yaxis": "y2",
            }
        )
    fig_layout = layout(
        labels["vector_title"].format(position=position),
        "",
        labels["value"],
        520,
        xaxis={"anchor": "y", "domain": [0.0, 1.0], "matches": "x2", "showticklabels": False},
        yaxis={"anchor": "x", "domain": [high + VECTOR_SPACING, 1.0]},
        xaxis2={"anchor": "y2", "domain": [0.0, 1.0], "title": {"text": labels["dimension"]}},
        yaxis2={"anchor": "x2", "domain": [low, high], "title": {"text": labels["value"]}},
        annotations=notes,
    )
    return ReadOnlyFigure(traces, fig_layout)
