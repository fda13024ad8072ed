"""Figures for the Transformer-XL, DeBERTa and NoPE page, and the comparison table of every family in the app.

Arrays in (numpy or torch), ``ReadOnlyFigure`` (Plotly's format) (or a display table) out; no Streamlit here.
Score matrices are drawn for a window of the first ``MATRIX_WINDOW`` positions: they hold random (untrained)
content, so a small window is easier to read, and twelve heatmaps of that size stay well inside the page budget.
"""

from __future__ import annotations

import math

import numpy as np

from figures.common import (
    SIGNED_COLORS,
    UNSIGNED_COLORS,
    ReadOnlyFigure,
    as_f32,
    colorbar,
    layout,
    panel_title,
)
from figures.table import Table

MATRIX_WINDOW = 48  # positions shown of an [L, L] score matrix: 48 × 48 cells per panel stay readable
OFFSET_SPAN_MAX = 512  # offsets drawn on the δ curve: ±(length − 1), at most ±512 (all past ±k look alike)
NOPE_MAX_LENGTH = 512  # the NoPE curves stop here: 1/(i + 1) is already tiny, and [L, L] weights stay small


def window_length(length: int, limit: int = MATRIX_WINDOW) -> int:
    """How many positions of an [L, L] matrix to draw: all of them, or the first ``limit``."""
    return min(int(length), int(limit))


def offset_span(length: int) -> int:
    """Largest offset |i − j| drawn on a curve: length − 1, capped at ``OFFSET_SPAN_MAX``."""
    return min(int(length) - 1, OFFSET_SPAN_MAX)


def nope_length(length: int) -> int:
    """How many positions the NoPE demonstration computes: the shared length, capped at ``NOPE_MAX_LENGTH``."""
    return min(int(length), NOPE_MAX_LENGTH)


LABEL_KEYS = (  # the translated words and templates the chart builders read from ``labels``
    "logit",
    "hover_query_i",
    "hover_key_j",
    "hover_value",
    "window_note",
    "colours_shared",
    "colours_own",
    "row_delta",
    "delta_matrix_title",
    "key_position_j",
    "query_position_i",
    "delta_curve_title",
    "offset_axis",
    "causal_panel",
    "bidirectional_panel",
    "weight",
    "nope_attention_title",
    "first_weight_panel",
    "distance_panel",
    "line_causal",
    "line_closed",
    "line_bidirectional",
    "signal_title",
    "position_i",
    "weight_axis",
    "toy_head",
    "toy_step",
    "toy_weight_on_start",
    "toy_equal_weights",
    "toy_title",
    "toy_step_axis",
)


def _escape(text: str) -> str:
    """Text for Plotly labels: "<s>" would otherwise be read as an HTML tag and vanish."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _word(labels: dict, key: str, **params) -> str:
    """The translated label ``key``, its {placeholders} filled with ``params``, escaped for Plotly."""
    return _escape(labels[key].format(**params))


def _window_note(shown: int, length: int, labels: dict) -> str | None:
    if shown >= length:
        return None
    return _word(labels, "window_note", last=shown - 1, length=length)


def _with_note(title: str, note: str | None) -> str:
    return title if note is None else f"{title}<br><sup>{note}</sup>"


def _square(matrix) -> np.ndarray:
    """A float32 [W, W] matrix from [W, W] or [1, W, W] (one head)."""
    values = as_f32(matrix)
    return values[0] if values.ndim == 3 else values


def _ij_hover(labels: dict, name: str, value: str) -> str:
    """Hover text of a [query, key] heatmap cell: query i, key j and the named value."""
    query, key = _word(labels, "hover_query_i"), _word(labels, "hover_key_j")
    return f"{query} %{{y}}<br>{key} %{{x}}<br>{name} {value}<extra></extra>"


# ----------------------------------------------------------------------------------------- subplot grids (plain dicts)


def _grid_domains(rows: int, cols: int, x_gap: float, y_gap: float) -> list[tuple[list[float], list[float]]]:
    """(x domain, y domain) of each cell of a rows × cols grid, row by row from the top left.

    The same arithmetic as ``plotly.subplots.make_subplots`` (so the cells land exactly where they did), without
    building a figure and re-validating it for every cell.
    """
    widths, heights = [(1.0 - x_gap * (cols - 1)) / cols] * cols, [(1.0 - y_gap * (rows - 1)) / rows] * rows
    cells = []
    for r in range(rows):
        below = rows - 1 - r  # rows under this one: the grid starts at the top
        y_start = sum(heights[:below]) + below * y_gap
        y_domain = [min(max(y_start, 0.0), 1.0), min(max(y_start + heights[-1 - r], 0.0), 1.0)]
        for c in range(cols):
            x_start = sum(widths[:c]) + c * x_gap
            cells.append(([x_start, x_start + widths[c]], y_domain))
    return cells


def _axis_name(n: int, letter: str) -> str:
    """Layout key of the n-th (1-based) axis: "xaxis", "xaxis2" …"""
    return f"{letter}axis" if n == 1 else f"{letter}axis{n}"


def _axis_ref(n: int, letter: str) -> str:
    """Trace/anchor reference of the n-th axis: "x", "x2" …"""
    return letter if n == 1 else f"{letter}{n}"


def _grid_layout(cells, x_axis: dict, y_axes: list[dict]) -> dict:
    """Layout keys of every cell's axes: each x axis gets ``x_axis``, the n-th y axis ``y_axes[n]``."""
    axes = {}
    for n, (x_domain, y_domain) in enumerate(cells, start=1):
        axes[_axis_name(n, "x")] = {"anchor": _axis_ref(n, "y"), "domain": x_domain, **x_axis}
        axes[_axis_name(n, "y")] = {"anchor": _axis_ref(n, "x"), "domain": y_domain, **y_axes[n - 1]}
    return axes


def _panel_titles(names: list[str], cells) -> list[dict]:
    """A title above each named cell (as make_subplots' subplot_titles), each no wider than its cell."""
    return [
        panel_title(name, x_domain) | {"y": y_domain[1]}
        for name, (x_domain, y_domain) in zip(names, cells, strict=False)
        if name
    ]


def _on_cell(trace: dict, n: int) -> dict:
    """``trace`` drawn in the n-th (1-based) cell of a grid."""
    return {**trace, "xaxis": _axis_ref(n, "x"), "yaxis": _axis_ref(n, "y")}


def _title(text: str) -> dict:
    return {"title": {"text": text}}


# ----------------------------------------------------------------------------------------- score terms (XL, DeBERTa)


def score_grid(
    panels: list[tuple[str, object]],
    title: str,
    length: int,
    labels: dict,
    cols: int = 2,
    shared_scale: bool = True,
) -> ReadOnlyFigure:
    """One heatmap per (label, [W, W] matrix), on one shared symmetric colour scale so sizes compare honestly.

    ``shared_scale=False``: each panel gets its own symmetric scale (small terms show their pattern; no colour bar,
    the hover gives values). Rows of each panel are queries i, columns keys j. The last panel is usually the sum.
    ``labels``: the translated words of :data:`LABEL_KEYS`; panel names and ``title`` come translated too.
    """
    values = [_square(matrix) for _, matrix in panels]
    names = [_escape(label) for label, _ in panels]
    rows = math.ceil(len(values) / cols)
    cells = _grid_domains(rows, cols, 0.06, 0.2 if rows > 1 else 0.0)  # a row's panel titles may take three lines
    largest = [float(np.nanmax(np.abs(v))) or 1.0 for v in values]
    hover = _ij_hover(labels, _word(labels, "hover_value"), "%{z:.3f}")
    colorbar_spec = colorbar(_word(labels, "logit"))
    data = []
    for n, (value, name) in enumerate(zip(values, names, strict=True)):
        limit = max(largest) if shared_scale else largest[n]
        trace = {
            "type": "heatmap",
            "z": value,
            "colorscale": SIGNED_COLORS,
            "zmin": -limit,  # symmetric: 0 is white, as with zmid=0
            "zmax": limit,
            "showscale": shared_scale and n == 0,
            "colorbar": colorbar_spec,
            "hovertemplate": f"{name}<br>{hover}",
        }
        data.append(_on_cell(trace, n + 1))
    scale = _word(labels, "colours_shared" if shared_scale else "colours_own")
    note = " ".join(filter(None, (_window_note(values[0].shape[0], length, labels), scale)))
    # every panel has the same window of positions: only the first column shows the y tick labels, which in the
    # other columns stood on the cells of the panel to their left
    y_axes = [{**_title(""), "autorange": "reversed", "showticklabels": n % cols == 0} for n in range(len(cells))]
    axes = _grid_layout(cells, _title(""), y_axes)
    fig_layout = layout(
        _with_note(_escape(title), note),
        "",
        "",
        height=360 * rows + 90,
        margin={"l": 50, "r": 30, "t": 110, "b": 40},
        annotations=_panel_titles(names, cells),
        **axes,
    )
    return ReadOnlyFigure(data, fig_layout)


# ---------------------------------------------------------------------------------------------------------- NoPE


def nope_attention_pair(causal, bidirectional, length: int, labels: dict) -> ReadOnlyFigure:
    """Causal and bidirectional attention weights side by side for a window; masked (future) cells blank."""
    causal_w = _square(causal)[:MATRIX_WINDOW, :MATRIX_WINDOW]
    both_w = _square(bidirectional)[:MATRIX_WINDOW, :MATRIX_WINDOW]
    causal_w = np.where(np.triu(np.ones_like(causal_w, dtype=bool), k=1), np.nan, causal_w)  # j > i: masked
    panels = [_word(labels, "causal_panel"), _word(labels, "bidirectional_panel")]
    cells = _grid_domains(1, 2, 0.1, 0.3)  # make_subplots' default spacing for 1 × 2
    weight = _word(labels, "weight")
    data = [
        _on_cell(
            {
                "type": "heatmap",
                "z": values,
                "colorscale": UNSIGNED_COLORS,
                "zmin": 0.0,
                "zmax": 1.0,
                "showscale": col == 2,
                "colorbar": colorbar(weight),
                "hovertemplate": _ij_hover(labels, weight, "%{z:.4f}"),
            },
            col,
        )
        for col, values in enumerate((causal_w, both_w), start=1)
    ]
    note = _window_note(len(causal_w), length, labels)
    title = _with_note(_word(labels, "nope_attention_title"), note)
    x_title, y_title = _word(labels, "key_position_j"), _word(labels, "query_position_i")
    shared = {**_title(""), "autorange": "reversed", "matches": "y", "showticklabels": False}  # the left one's rows
    axes = _grid_layout(cells, _title(x_title), [{**_title(y_title), "autorange": "reversed"}, shared])
    fig_layout = layout(
        title, x_title, y_title, height=460, margin={"t": 100}, annotations=_panel_titles(panels, cells), **axes
    )
    return ReadOnlyFigure(data, fig_layout)


def nope_position_signal(
    causal_first, bidirectional_first, closed_form, causal_distance, bidirectional_distance, labels: dict
) -> ReadOnlyFigure:
    """Left: weight on the first token vs position (causal, bidirectional, closed form). Right: ‖o_i − o_last‖.

    ``closed_form`` may be None (no distinct first token: the formula e^g / (e^g + i) does not apply).
    """
    positions = np.arange(len(as_f32(causal_first)), dtype=np.float32)
    cells = _grid_domains(1, 2, 0.1, 0.3)  # make_subplots' default spacing for 1 × 2
    lines = [  # (panel, values, kind, dash): the kind picks the colour and the translated name
        (1, causal_first, "causal", "solid"),
        (1, closed_form, "closed", "dot"),
        (1, bidirectional_first, "bidirectional", "dash"),
        (2, causal_distance, "causal", "solid"),
        (2, bidirectional_distance, "bidirectional", "dash"),
    ]
    colors = {"causal": "#1f77b4", "closed": "#ff7f0e", "bidirectional": "#2ca02c"}
    position = _word(labels, "position_i")
    data = []
    for col, values, kind, dash in (line for line in lines if line[1] is not None):
        name = _word(labels, f"line_{kind}")
        trace = {
            "type": "scatter",
            "x": positions,
            "y": as_f32(values),
            "mode": "lines",
            "name": name,
            "showlegend": col == 1,
            "line": {"dash": dash, "width": 3, "color": colors[kind]},
            "hovertemplate": f"{name}<br>{position} %{{x:.0f}}<br>%{{y:.4f}}<extra></extra>",
        }
        data.append(_on_cell(trace, col))
    y_axes = [
        {**_title(_word(labels, "weight_axis")), "rangemode": "tozero"},
        # its own quantity, so its own tick labels: on the right, where they stand on no other panel
        {**_title("max |o_i − o_last|"), "rangemode": "tozero", "side": "right", "automargin": True},
    ]
    axes = _grid_layout(cells, _title(position), y_axes)
    panels = [_word(labels, "first_weight_panel"), _word(labels, "distance_panel")]
    fig_layout = layout(
        _word(labels, "signal_title"),
        position,
        "",
        height=440,
        margin={"t": 90},
        annotations=_panel_titles(panels, cells),
        **axes,
    )
    return ReadOnlyFigure(data, fig_layout)


def toy_first_step_weight(weights, target_tokens: list[str], reference, layer: int, labels: dict) -> ReadOnlyFigure:
    """One line per head: how much each decoder step t puts on <s> (column 0), with 1/(t + 1) dashed.

    ``weights``: one decoder self-attention layer [H, T, T]; ``reference``: [T] values of 1/(t + 1).
    """
    values = as_f32(weights)[:, :, 0]  # [H, T]: column 0 is the key <s>
    steps = np.arange(values.shape[1], dtype=np.float32)
    ticks = [f"{t} ({_escape(token)})" for t, token in enumerate(target_tokens)]
    step, on_start = _word(labels, "toy_step"), _word(labels, "toy_weight_on_start")
    data = []
    for head, row in enumerate(values, start=1):
        name = _word(labels, "toy_head", head=head)
        data.append(
            {
                "type": "scatter",
                "x": steps,
                "y": row,
                "mode": "lines+markers",
                "name": name,
                "customdata": ticks,
                "hovertemplate": f"{name}<br>{step} %{{customdata}}<br>{on_start} %{{y:.3f}}<extra></extra>",
            }
        )
    data.append(
        {
            "type": "scatter",
            "x": steps,
            "y": as_f32(reference),
            "mode": "lines",
            "name": _word(labels, "toy_equal_weights"),
            "line": {"dash": "dash", "width": 3},
            "hovertemplate": f"{step} %{{x:.0f}}<br>1/(t + 1) = %{{y:.3f}}<extra></extra>",
        }
    )
    fig_layout = layout(
        _word(labels, "toy_title", layer=layer),
        _word(labels, "toy_step_axis"),
        on_start,
        height=420,
        xaxis={"tickmode": "array", "tickvals": steps, "ticktext": ticks},
        yaxis={"range": [0, 1.05]},
    )
    return ReadOnlyFigure(data, fig_layout)


# --------------------------------------------------------------------------------------------- comparison table

FAMILIES = (  # (catalog id, toy pe or None): the words of each row come from the labels, see comparison_label_keys()
    ("nope", "none"),
    ("sinusoidal", "sinusoidal"),
    ("learned", "learned"),
    ("shaw", None),
    ("t5", "t5"),
    ("alibi", "alibi"),
    ("rope", "rope"),
    ("xl", None),
    ("deberta", None),
)
FAMILY_FIELDS = ("name", "kind", "where", "learned", "beyond", "used")  # the text cells of a row, in column order
COMPARISON_COLUMNS = ("family", "kind", "where", "learned", "beyond", "toy_length", "toy_held", "toy_longer", "used")
# The comparison is shown as two tables of four columns beside the family (one of nine was wider than the column at
# 1024 px and scrolled sideways): how position gets in, and how far it carries.
COMPARISON_PARTS = {
    "how": ("kind", "where", "learned", "used"),
    "far": ("beyond", "toy_length", "toy_held", "toy_longer"),
}
TABLE_SYMBOLS = {"r_distance": "R_{i−j}", "w_kr": "W_{k,R}", "w_qr": "W_{q,r}", "w_kr_small": "W_{k,r}"}


def comparison_label_keys() -> list[str]:
    """The label names :func:`comparison_table` reads: column headers, the two toy notes, every family's cells."""
    columns = [f"col_{column}" for column in COMPARISON_COLUMNS]
    cells = [f"{family}_{field}" for family, _ in FAMILIES for field in FAMILY_FIELDS]
    return [*columns, "toy_not_in_toy", "toy_not_trained", *cells]


def length_evidence(extrapolation: dict | None) -> tuple[int, int, dict[str, tuple[float, float]]] | None:
    """What the "train short, test long" experiment measured for each encoding, for the table's length column.

    ``extrapolation``: ``assets/toy/extrapolation.json`` as read (or None). Returns (training length L, longest
    evaluated length, {pe: (mean loss at L, mean loss at the longest length)}), each the mean over the training
    seeds in ``runs`` (as the "train short, test long" page shows them), or None without the file.
    """
    if not extrapolation:
        return None
    train, longest = extrapolation["train_len"], max(extrapolation["eval_lengths"])
    losses = {}
    for pe in extrapolation["models"]:  # the six encodings; ``models`` holds seed 0 only, ``runs`` every seed
        seeds = extrapolation["runs"][pe].values()
        losses[pe] = tuple(sum(run["curves"][str(n)]["loss"] for run in seeds) / len(seeds) for n in (train, longest))
    return train, longest, losses


def comparison_table(metrics: list[dict], labels: dict, extrapolation: dict | None = None) -> Table:
    """Every family in the app, one row each (named by the family); the toy columns come from the shipped measurements.

    ``metrics``: the list of ``posenc.toy.model.shipped_metrics()`` (each with "pe", "held_out_accuracy",
    "out_of_length_accuracy"). ``extrapolation``: ``assets/toy/extrapolation.json`` (or None): the length column
    shows each encoding's loss at the training length → at the longest evaluated length, and their ratio. A family
    without a toy model, or whose measurement is missing, says so.
    ``labels``: the translated words named by :func:`comparison_label_keys` (symbols like {w_kr} filled in here).
    """
    by_pe = {metric["pe"]: metric for metric in metrics}
    evidence = length_evidence(extrapolation)
    train, longest, losses = evidence if evidence else ("–", "–", {})
    rows = []
    for family, pe in FAMILIES:
        name, kind, where, learned, beyond, used = (
            labels[f"{family}_{field}"].format(**TABLE_SYMBOLS) for field in FAMILY_FIELDS
        )
        missing = labels["toy_not_in_toy"] if pe is None else labels["toy_not_trained"]
        metric = by_pe.get(pe) if pe is not None else None
        if metric is not None:
            held, longer = f"{metric['held_out_accuracy']:.1%}", f"{metric['out_of_length_accuracy']:.1%}"
        else:
            held = longer = missing
        if pe in losses:
            short, long = losses[pe]
            length = f"{short:.2f} → {long:.2f} (×{long / short:.2f})"
        else:
            length = missing
        rows.append((name, kind, where, learned, beyond, length, held, longer, used))
    headers = [labels[f"col_{column}"] for column in COMPARISON_COLUMNS]
    headers[COMPARISON_COLUMNS.index("toy_length")] = labels["col_toy_length"].format(train=train, long=longest)
    return Table.of(headers, rows, row_headers=True)


def comparison_parts(table: Table) -> dict[str, Table]:
    """:func:`comparison_table` as the tables of :data:`COMPARISON_PARTS`, each with the family (its first column)."""
    return {
        part: table.select([0, *(COMPARISON_COLUMNS.index(name) for name in columns)])
        for part, columns in COMPARISON_PARTS.items()
    }
