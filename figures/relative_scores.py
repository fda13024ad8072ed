"""Figures for the Transformer-XL, DeBERTa and NoPE page, and the comparison table of every family in the app.

Arrays in (numpy or torch), ``plotly.graph_objects.Figure`` (or a display table) out; no Streamlit here.
Score matrices are drawn for a window of the first ``MATRIX_WINDOW`` positions: they hold random (untrained)
content, so a small window is easier to read, and twelve heatmaps of that size stay well inside the page budget.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from figures.common import FONT_SIZE, SIGNED_COLORS, UNSIGNED_COLORS, as_f32, style

MATRIX_WINDOW = 48  # positions shown of an [L, L] score matrix: 48 × 48 cells per panel stay readable
OFFSET_SPAN_MAX = 512  # offsets drawn on the δ curve: ±(length − 1), at most ±512 (all past ±k look alike)
NOPE_MAX_LENGTH = 512  # the NoPE curves stop here: 1/(i + 1) is already tiny, and [L, L] weights stay small
CLIPPED_COLOR = "#d62728"
REGION_OPACITY = 0.15


def window_length(length: int, limit: int = MATRIX_WINDOW) -> int:
    """How many positions of an [L, L] matrix to draw: all of them, or the first ``limit``."""
    return min(int(length), int(limit))


def offset_span(length: int) -> int:
    """Largest offset |i − j| drawn on a curve: length − 1, capped at ``OFFSET_SPAN_MAX``."""
    return min(int(length) - 1, OFFSET_SPAN_MAX)


def nope_length(length: int) -> int:
    """How many positions the NoPE demonstration computes: the shared length, capped at ``NOPE_MAX_LENGTH``."""
    return min(int(length), NOPE_MAX_LENGTH)


def _window_note(shown: int, length: int) -> str | None:
    if shown >= length:
        return None
    return f"Window: positions 0–{shown - 1} of {length}."


def _with_note(title: str, note: str | None) -> str:
    return title if note is None else f"{title}<br><sup>{note}</sup>"


def _escape(text: str) -> str:
    """Token text for Plotly labels: "<s>" would otherwise be read as an HTML tag and vanish."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _square(matrix) -> np.ndarray:
    """A float32 [W, W] matrix from [W, W] or [1, W, W] (one head)."""
    values = as_f32(matrix)
    return values[0] if values.ndim == 3 else values


# ----------------------------------------------------------------------------------------- score terms (XL, DeBERTa)


def score_grid(
    panels: list[tuple[str, object]], title: str, length: int, cols: int = 2, shared_scale: bool = True
) -> go.Figure:
    """One heatmap per (label, [W, W] matrix), on one shared symmetric colour scale so sizes compare honestly.

    ``shared_scale=False``: each panel gets its own symmetric scale (small terms show their pattern; no colour bar,
    the hover gives values). Rows of each panel are queries i, columns keys j. The last panel is usually the sum.
    """
    values = [_square(matrix) for _, matrix in panels]
    rows = math.ceil(len(values) / cols)
    fig = make_subplots(
        rows=rows,
        cols=cols,
        subplot_titles=[label for label, _ in panels],
        horizontal_spacing=0.06,
        vertical_spacing=0.14 if rows > 1 else 0.0,
    )
    largest = [float(np.nanmax(np.abs(v))) or 1.0 for v in values]
    for n, (value, (label, _)) in enumerate(zip(values, panels, strict=True)):
        limit = max(largest) if shared_scale else largest[n]
        fig.add_trace(
            go.Heatmap(
                z=value,
                colorscale=SIGNED_COLORS,
                zmin=-limit,  # symmetric: 0 is white, as with zmid=0
                zmax=limit,
                showscale=shared_scale and n == 0,
                colorbar={"title": {"text": "logit"}},
                hovertemplate=f"{label}<br>query i %{{y}}<br>key j %{{x}}<br>value %{{z:.3f}}<extra></extra>",
            ),
            row=n // cols + 1,
            col=n % cols + 1,
        )
    fig.update_yaxes(autorange="reversed")
    fig.update_annotations(font_size=FONT_SIZE - 2)
    scale = "one colour scale for all panels" if shared_scale else "each panel on its own colour scale"
    note = " ".join(filter(None, (_window_note(values[0].shape[0], length), f"Colours: {scale}.")))
    style(fig, _with_note(title, note), "", "", height=330 * rows + 90)
    fig.update_layout(margin={"l": 50, "r": 30, "t": 110, "b": 40})
    return fig


def delta_matrix(index, k: int, length: int) -> go.Figure:
    """Heatmap of DeBERTa's table row δ(i, j) for a window [W, W]; 0 and 2k − 1 are the clipped edge rows."""
    table = as_f32(index)
    trace = go.Heatmap(
        z=table,
        colorscale=UNSIGNED_COLORS,
        zmin=0.0,
        zmax=max(2 * k - 1, 1),
        colorbar={"title": {"text": "row δ"}},
        hovertemplate="query i %{y}<br>key j %{x}<br>row δ(i, j) = %{z:.0f}<extra></extra>",
    )
    title = _with_note(f"Row δ(i, j) of the relative table, k = {k}", _window_note(len(table), length))
    fig = style(go.Figure(trace), title, "key position j", "query position i", height=460)
    fig.update_yaxes(autorange="reversed", scaleanchor="x", constrain="domain")
    fig.update_xaxes(constrain="domain")
    return fig


def delta_curve(offsets, delta, k: int) -> go.Figure:
    """δ vs the offset i − j, with the clipped offsets (sharing row 0 or row 2k − 1) shaded."""
    x, y = as_f32(offsets), as_f32(delta)
    trace = go.Scatter(
        x=x,
        y=y,
        mode="lines+markers" if len(x) <= 257 else "lines",
        line={"shape": "hv"},
        name="row δ",
        hovertemplate="i − j = %{x:.0f}<br>row δ = %{y:.0f}<extra></extra>",
    )
    fig = style(go.Figure(trace), "Which row an offset uses", "offset i − j (query − key)", "row δ", height=460)
    low, high = float(x.min()), float(x.max())
    regions = ((low, -k + 0.5, "row 0", "top left"), (k - 1.5, high, "row 2k − 1", "top right"))
    for x0, x1, label, where in regions:
        if x1 >= x0:
            fig.add_vrect(
                x0=x0,
                x1=x1,
                fillcolor=CLIPPED_COLOR,
                opacity=REGION_OPACITY,
                line_width=0,
                annotation_text=label,
                annotation_position=where,
                annotation_font_size=FONT_SIZE - 2,
            )
    return fig


# ---------------------------------------------------------------------------------------------------------- NoPE


def nope_attention_pair(causal, bidirectional, length: int) -> go.Figure:
    """Causal and bidirectional attention weights side by side for a window; masked (future) cells blank."""
    causal_w = _square(causal)[:MATRIX_WINDOW, :MATRIX_WINDOW]
    both_w = _square(bidirectional)[:MATRIX_WINDOW, :MATRIX_WINDOW]
    causal_w = np.where(np.triu(np.ones_like(causal_w, dtype=bool), k=1), np.nan, causal_w)  # j > i: masked
    fig = make_subplots(rows=1, cols=2, subplot_titles=["causal mask (decoder)", "bidirectional (encoder)"])
    for col, values in enumerate((causal_w, both_w), start=1):
        fig.add_trace(
            go.Heatmap(
                z=values,
                colorscale=UNSIGNED_COLORS,
                zmin=0.0,
                zmax=1.0,
                showscale=col == 2,
                colorbar={"title": {"text": "weight"}},
                hovertemplate="query i %{y}<br>key j %{x}<br>weight %{z:.4f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    title = _with_note("Attention weights α_ij, no positional encoding", _window_note(len(causal_w), length))
    style(fig, title, "key position j", "query position i", height=460)
    fig.update_yaxes(autorange="reversed")
    fig.update_annotations(font_size=FONT_SIZE - 2)
    fig.update_layout(margin={"t": 100})
    return fig


def nope_position_signal(
    causal_first, bidirectional_first, closed_form, causal_distance, bidirectional_distance
) -> go.Figure:
    """Left: weight on the first token vs position (causal, bidirectional, closed form). Right: ‖o_i − o_last‖.

    ``closed_form`` may be None (no distinct first token: the formula e^g / (e^g + i) does not apply).
    """
    positions = np.arange(len(as_f32(causal_first)), dtype=np.float32)
    fig = make_subplots(
        rows=1,
        cols=2,
        subplot_titles=["weight on the first token, α_i0", "distance of output i from the last output"],
    )
    lines = [
        (1, causal_first, "causal", "solid"),
        (1, closed_form, "closed form e^g / (e^g + i)", "dot"),
        (1, bidirectional_first, "bidirectional", "dash"),
        (2, causal_distance, "causal ", "solid"),
        (2, bidirectional_distance, "bidirectional ", "dash"),
    ]
    colors = {"causal": "#1f77b4", "closed": "#ff7f0e", "bidirectional": "#2ca02c"}
    for col, values, name, dash in (line for line in lines if line[1] is not None):
        fig.add_trace(
            go.Scatter(
                x=positions,
                y=as_f32(values),
                mode="lines",
                name=name,
                showlegend=col == 1,
                line={"dash": dash, "width": 3, "color": colors[name.split()[0]]},
                hovertemplate=f"{name.strip()}<br>position i %{{x:.0f}}<br>%{{y:.4f}}<extra></extra>",
            ),
            row=1,
            col=col,
        )
    style(fig, "What a position can read from attention alone", "position i", "", height=440)
    fig.update_yaxes(title_text="weight α_i0", row=1, col=1, rangemode="tozero")
    fig.update_yaxes(title_text="max |o_i − o_last|", row=1, col=2, rangemode="tozero")
    fig.update_annotations(font_size=FONT_SIZE - 2)
    fig.update_layout(margin={"t": 90})
    return fig


def toy_first_step_weight(weights, target_tokens: list[str], reference, layer: int) -> go.Figure:
    """One line per head: how much each decoder step t puts on <s> (column 0), with 1/(t + 1) dashed.

    ``weights``: one decoder self-attention layer [H, T, T]; ``reference``: [T] values of 1/(t + 1).
    """
    values = as_f32(weights)[:, :, 0]  # [H, T]: column 0 is the key <s>
    steps = np.arange(values.shape[1], dtype=np.float32)
    labels = [f"{t} ({_escape(token)})" for t, token in enumerate(target_tokens)]
    fig = go.Figure()
    for head, row in enumerate(values, start=1):
        fig.add_scatter(
            x=steps,
            y=row,
            mode="lines+markers",
            name=f"head {head}",
            customdata=labels,
            hovertemplate=f"head {head}<br>step %{{customdata}}<br>weight on &lt;s&gt; %{{y:.3f}}<extra></extra>",
        )
    fig.add_scatter(
        x=steps,
        y=as_f32(reference),
        mode="lines",
        name="1/(t + 1): equal weights",
        line={"dash": "dash", "width": 3},
        hovertemplate="step %{x:.0f}<br>1/(t + 1) = %{y:.3f}<extra></extra>",
    )
    title = f"No-PE toy model, decoder self-attention layer {layer}: weight on &lt;s&gt;"
    fig = style(fig, title, "decoder step t (token it reads)", "weight on &lt;s&gt;", height=420)
    fig.update_xaxes(tickmode="array", tickvals=steps, ticktext=labels)
    fig.update_yaxes(range=[0, 1.05])
    return fig


# --------------------------------------------------------------------------------------------- comparison table

TOY_NOT_TRAINED = "not in the toy"  # families the toy transformer does not implement
TOY_MISSING = "not trained yet"  # a toy family whose checkpoint and metrics are not shipped
FAMILIES = (  # (name, toy pe or None, absolute/relative, where position enters, learned, extrapolation, used by)
    (
        "No PE (NoPE)",
        "none",
        "neither (implicit, causal only)",
        "nowhere; a causal mask lets the model count",
        "none",
        "no table to run out of; the implicit count is only calibrated on lengths seen in training",
        "research decoders (Haviv et al. 2022); some layers of Llama 4",
    ),
    (
        "Sinusoidal",
        "sinusoidal",
        "absolute",
        "input (x + PE)",
        "none",
        "defined for every position, but quality drops past the training length (Press et al. 2021)",
        "the original Transformer (Vaswani et al. 2017), Marian NMT",
    ),
    (
        "Learned absolute",
        "learned",
        "absolute",
        "input (x + E[p])",
        "max_len × d table",
        "none: positions past max_len have no vector",
        "BERT, RoBERTa, GPT-2, GPT-3, OPT",
    ),
    (
        "Shaw et al.",
        None,
        "relative",
        "logits and values (q·(k + a^K))",
        "2 × (2k + 1) × d per layer (keys and values)",
        "any length runs: offsets past ±k share the edge vector",
        "Music Transformer (relative attention)",
    ),
    (
        "T5 bias",
        "t5",
        "relative",
        "logits (+ b[bucket])",
        "buckets × heads, one table for all layers",
        "any length runs: far offsets share the last bucket",
        "T5, mT5, Flan-T5",
    ),
    (
        "ALiBi",
        "alibi",
        "relative",
        "logits (− m_h · distance)",
        "none (fixed slopes)",
        "designed for it: trained short, evaluated longer with little loss (Press et al. 2021)",
        "BLOOM, MPT",
    ),
    (
        "RoPE",
        "rope",
        "relative (through absolute rotations)",
        "q·k rotation",
        "none",
        "runs at any position, but unseen angles hurt; needs scaling (PI, NTK, YaRN) to go far",
        "Llama 1–3, Mistral, Qwen, GPT-NeoX, PaLM",
    ),
    (
        "Transformer-XL / XLNet",
        None,
        "relative",
        "logits: four terms with sinusoidal R_{i−j}",
        "W_{k,R} per layer, u and v per head",
        "R is defined for any distance; with the segment memory it attends past the training segment",
        "Transformer-XL, XLNet",
    ),
    (
        "DeBERTa",
        None,
        "relative",
        "logits: content→position and position→content",
        "table P (2k × d, shared), W_{q,r} and W_{k,r} per layer",
        "any length runs: offsets past ±k share the edge rows",
        "DeBERTa, DeBERTa-v3",
    ),
)
COMPARISON_COLUMNS = [
    "family",
    "absolute or relative",
    "where position enters",
    "learned parameters",
    "beyond training length (literature)",
    "toy: held-out 3-digit",
    "toy: 4-digit (longer than training)",
    "well-known models",
]


def comparison_table(metrics: list[dict]) -> pd.DataFrame:
    """Every family in the app, one row each; the toy columns come from the shipped metrics files.

    ``metrics``: the list of ``posenc.toy.model.shipped_metrics()`` (each with "pe", "held_out_accuracy",
    "out_of_length_accuracy"). A family without a toy model, or whose checkpoint is missing, says so.
    """
    by_pe = {metric["pe"]: metric for metric in metrics}
    rows = []
    for name, pe, kind, where, learned, beyond, used in FAMILIES:
        metric = by_pe.get(pe) if pe is not None else None
        if metric is not None:
            held, longer = f"{metric['held_out_accuracy']:.1%}", f"{metric['out_of_length_accuracy']:.1%}"
        else:
            held = longer = TOY_NOT_TRAINED if pe is None else TOY_MISSING
        rows.append((name, kind, where, learned, beyond, held, longer, used))
    return pd.DataFrame(rows, columns=COMPARISON_COLUMNS)
