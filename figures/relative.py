"""Plotly figures and tables for the relative-position page: T5's bucket table and per-head bias, ALiBi's bias
matrices and slopes note. (Shaw's matrix and curve, T5's bucket curve and ALiBi's slopes and lines are live charts:
charts/relative.py.)

Arrays in (numpy or torch), ``ReadOnlyFigure`` (Plotly's format) (or a small display table) out; no Streamlit here.
Every word shown comes from ``labels``: {name: translated text} for every name in :data:`LABELS` (the page builds it
from the ``relative`` catalog); templates with ``{placeholders}`` are filled here.
Offsets are always r = j − i (key minus query): negative means the key is in the past.
[L, L] matrices are shown as a window of the first ``MATRIX_WINDOW`` positions: they depend only on j − i, so a
window already holds every pattern, and a block mean of whole-number indices would invent values that do not occur.
Every builder hands plain trace and layout dicts to ``ReadOnlyFigure(data, layout)`` in one call: Plotly's
``update_*`` / ``add_*`` methods re-validate the whole figure each time and cost milliseconds apiece.
Step functions are sent as their change points only: the per-head bias heatmap (constant over a bucket) once it has
more than ``MAX_BIAS_COLUMNS`` offsets. What is drawn is the same.
"""

from __future__ import annotations

import math

import numpy as np

from figures.common import FONT_SIZE, SIGNED_COLORS, ReadOnlyFigure, as_f32, colorbar, layout
from figures.table import Table

MATRIX_WINDOW = 128  # positions shown of an [L, L] matrix: 128 × 128 cells stay readable on a projector
MAX_BIAS_COLUMNS = 1024  # offsets drawn one column each in the T5 bias heatmap; more are merged by bucket
ALIBI_MARGIN_TOP = 110  # the bias matrices' top margin: room for the window note above the panel titles
PANEL_GAP = 0.1  # horizontal space between the two ALiBi matrix panels (as make_subplots leaves it)
LABELS = (  # the names every builder may look up in ``labels`` (keys ``relative.<name>`` of the catalog)
    "table_row",
    "query_i",
    "key_j",
    "query_position",
    "key_position",
    "relative_position",
    "window_note",
    "shaw_matrix_title",
    "shaw_curve_title",
    "bucket",
    "t5_curve_title_bidirectional",
    "t5_curve_title_causal",
    "region_exact",
    "region_log",
    "region_exact_ahead",
    "region_log_capped",
    "region_unused",
    "never_used",
    "column_offsets",
    "column_count",
    "column_region",
    "bias",
    "head",
    "head_number",
    "t5_bias_title",
    "t5_bias_merged_note",
    "alibi_slopes_title",
    "head_h",
    "alibi_slope_axis",
    "alibi_lines_title",
    "alibi_matrix_title",
    "alibi_steepest_head",
    "alibi_gentlest_head",
    "alibi_note_power",
    "alibi_note_other",
)


def window_length(length: int, limit: int = MATRIX_WINDOW) -> int:
    """How many positions of an [L, L] matrix to draw: all of them, or the first ``limit``."""
    return min(int(length), int(limit))


def t5_offset_span(max_distance: int) -> int:
    """Offsets drawn for T5: ±2·max_distance, so the cap at max_distance sits in the middle of each half."""
    return 2 * int(max_distance)


def run_starts(values) -> np.ndarray:
    """Indices where a step function starts a new value (0 included).

    ``values`` is [N] (one curve) or [H, N] (one row per head: a column starts a run when any row changes).
    """
    table = np.asarray(values)
    table = table.reshape(1, -1) if table.ndim == 1 else table
    if table.shape[1] == 0:
        return np.arange(0)
    return np.concatenate([[0], np.flatnonzero(np.any(table[:, 1:] != table[:, :-1], axis=0)) + 1])


def _window_note(shown: int, length: int, labels: dict) -> str | None:
    if shown >= length:
        return None
    return labels["window_note"].format(last=shown - 1, length=length)


def _with_note(title: str, note: str | None) -> str:
    return title if note is None else f"{title}<br><sup>{note}</sup>"


# ------------------------------------------------------------------------------------------------------------- T5


def _format_offset(value: float) -> str:
    if math.isinf(value):
        return "−∞" if value < 0 else "+∞"
    return f"{int(value):+d}".replace("-", "−") if value else "0"  # the minus sign, as in the formulas


def t5_bucket_table(ranges, max_exact: int, labels: dict) -> Table:
    """The computed bucket boundaries as a display table: bucket, offsets r it covers, how many, region."""
    rows = []
    for bucket, (low, high) in enumerate(np.asarray(ranges, dtype=np.float64)):
        if math.isnan(low):
            rows.append((bucket, labels["never_used"], "0", labels["region_unused"]))
            continue
        count = "∞" if math.isinf(low) or math.isinf(high) else str(int(high - low) + 1)
        covered = _format_offset(low) if low == high else f"{_format_offset(low)} … {_format_offset(high)}"
        nearest = min(abs(low), abs(high))  # the distance closest to the query decides the region
        if nearest < max_exact:
            region = "region_exact" if count == "1" else "region_exact_ahead"
        elif count == "∞":
            region = "region_log_capped"
        else:
            region = "region_log"
        rows.append((bucket, covered, count, labels[region]))
    columns = [labels["bucket"], labels["column_offsets"], labels["column_count"], labels["column_region"]]
    return Table.of(columns, rows, row_headers=True)


def t5_head_bias(offsets, bias, labels: dict, max_columns: int = MAX_BIAS_COLUMNS) -> ReadOnlyFigure:
    """Heatmap of each head's T5 bias vs offset: rows = heads (1-based), columns = r.

    More than ``max_columns`` offsets are merged: every offset of a bucket has the same bias in every head, so
    each run of equal columns becomes one cell as wide as the run (exact, nothing averaged; the title says so),
    and the hover gives the run's first and last offset. There are at most as many runs as buckets in use.
    Offsets must be consecutive whole numbers (as ``relative_offsets`` gives): cell edges sit at ±0.5.
    """
    x, values = as_f32(offsets), as_f32(bias)
    heads = len(values)
    head_of_y = labels["head_number"].format(head="%{y}")
    trace = {
        "type": "heatmap",
        "z": values,
        "x": x,
        "y": np.arange(1, heads + 1),
        "colorscale": SIGNED_COLORS,
        "zmid": 0.0,
        "colorbar": colorbar(labels["bias"]),
        "hovertemplate": f"{head_of_y}<br>r = j − i = %{{x:.0f}}<br>{labels['bias']} %{{z:.3f}}<extra></extra>",
    }
    title = labels["t5_bias_title"]
    if len(x) > max_columns:
        starts = run_starts(values)
        ends = np.append(starts[1:] - 1, len(x) - 1)  # last offset of each run
        ranges = np.stack([x[starts], x[ends]], axis=-1)  # [R, 2] first and last offset of each run
        trace |= {
            "z": values[:, starts],
            "x": np.append(x[starts] - 0.5, x[-1] + 0.5).astype(np.float32),  # R + 1 cell edges
            "customdata": np.broadcast_to(ranges, (heads, *ranges.shape)).astype(np.float32),
            "hovertemplate": (
                f"{head_of_y}<br>r = j − i = %{{customdata[0]:.0f}} … %{{customdata[1]:.0f}}<br>"
                f"{labels['bias']} %{{z:.3f}}<extra></extra>"
            ),
        }
        title = _with_note(title, labels["t5_bias_merged_note"].format(cells=len(starts), offsets=len(x)))
    extra = {"yaxis": {"autorange": "reversed", "dtick": 1}}
    axes = (labels["relative_position"], labels["head"])
    return ReadOnlyFigure([trace], layout(title, *axes, 120 + 28 * heads, **extra))


# ---------------------------------------------------------------------------------------------------------- ALiBi


def alibi_head_matrices(bias, slopes, length: int, labels: dict) -> ReadOnlyFigure:
    """[W, W] ALiBi bias of the steepest and the gentlest head side by side; masked keys blank.

    The steepest head is not always head 1: with a non-power-of-two head count the extra heads (e.g. 2^−0.5) are
    steeper, so the panels are picked by slope.
    """
    values = as_f32(bias)  # [H, W, W]
    values = np.where(np.isneginf(values), np.nan, values)  # −inf (masked future) drawn as an empty cell
    m = as_f32(slopes)
    picks = [int(np.argmax(m))] if len(values) == 1 else [int(np.argmax(m)), int(np.argmin(m))]
    names = [labels["alibi_steepest_head"], labels["alibi_gentlest_head"]]
    lowest = float(np.nanmin(values[picks])) if np.isfinite(values[picks]).any() else -1.0
    width = (1.0 - PANEL_GAP * (len(picks) - 1)) / len(picks)
    hover = f"{labels['query_i']} %{{y}}<br>{labels['key_j']} %{{x}}<br>{labels['bias']} %{{z:.3f}}<extra></extra>"
    traces, panels, titles = [], {}, []
    for n, head in enumerate(picks):
        suffix = "" if n == 0 else str(n + 1)
        domain = [n * (width + PANEL_GAP), n * (width + PANEL_GAP) + width]
        traces.append(
            {
                "type": "heatmap",
                "z": values[head],
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "colorscale": SIGNED_COLORS,
                "zmin": lowest,  # symmetric range: 0 stays white, as with zmid=0, and both panels share one scale
                "zmax": -lowest,
                "showscale": n == len(picks) - 1,
                "colorbar": colorbar(labels["bias"]),
                "hovertemplate": hover,
            }
        )
        panels[f"xaxis{suffix}"] = {"title": {"text": labels["key_position"]}, "domain": domain, "anchor": f"y{suffix}"}
        panels[f"yaxis{suffix}"] = {  # the second panel shares the first one's y axis: no labels on its cells
            "title": {"text": labels["query_position"] if n == 0 else ""},
            "domain": [0.0, 1.0],
            "anchor": f"x{suffix}",
            "autorange": "reversed",
            **({"matches": "y", "showticklabels": False} if n else {}),
        }
        titles.append(
            {
                "text": names[n].format(head=head + 1),
                "font": {"size": FONT_SIZE},
                "showarrow": False,
                "xref": "paper",
                "yref": "paper",
                "x": (domain[0] + domain[1]) / 2,
                "y": 1.0,
                "xanchor": "center",
                "yanchor": "bottom",
            }
        )
    title = _with_note(labels["alibi_matrix_title"], _window_note(values.shape[1], length, labels))
    margin = {"t": ALIBI_MARGIN_TOP}
    axes = (labels["key_position"], labels["query_position"])
    return ReadOnlyFigure(traces, layout(title, *axes, 540, margin=margin, annotations=titles, **panels))


def alibi_slopes_note(exponents, power_heads: int, labels: dict) -> str:
    """Markdown that says how the slopes were built for this head count, with the computed exponents."""
    e = [f"{value:g}" for value in np.asarray(exponents, dtype=np.float64)]
    n = len(e)
    if n == power_heads:
        return labels["alibi_note_power"].format(heads=n, exponents=", ".join(e))
    return labels["alibi_note_other"].format(
        heads=n,
        power=power_heads,
        first=", ".join(e[:power_heads]),
        rest=n - power_heads,
        double=2 * power_heads,
        second=", ".join(e[power_heads:]),
    )
