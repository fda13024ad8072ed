"""Figures for the toy-transformer page: attention maps by layer and head, repeated-token rows, accuracy bars.

Token axes are numeric positions 0 … L−1 labelled with their tokens, so the three "1"s of "21+211=" stay three
separate rows and columns (a categorical axis would merge equal labels into one).
"""

from __future__ import annotations

import html

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from figures.common import FONT_SIZE, UNSIGNED_COLORS, as_f32, style


def _token_axis(tokens: list[str]) -> dict:
    """Axis settings that show token text at integer positions."""
    # escaped: Plotly reads "<s>" in a label as markup and would drop the start token from the axis
    ticks = [html.escape(token) for token in tokens]
    return {"tickmode": "array", "tickvals": list(range(len(tokens))), "ticktext": ticks, "tickangle": 0}


def attention_grid(
    maps: list, query_tokens: list[str], key_tokens: list[str], title: str, query_title: str, key_title: str
) -> go.Figure:
    """One heatmap per (layer, head): a row of heads per layer. ``maps``: one [H, Q, K] array per layer."""
    layers = [as_f32(m) for m in maps]
    heads = layers[0].shape[0]
    fig = make_subplots(
        rows=len(layers),
        cols=heads,
        subplot_titles=[f"head {h + 1}" for h in range(heads)] + [""] * (heads * (len(layers) - 1)),
        horizontal_spacing=0.04,
        vertical_spacing=0.16 / max(len(layers) - 1, 1),
    )
    queries = [f"{i} ({html.escape(t)})" for i, t in enumerate(query_tokens)]
    keys = [f"{j} ({html.escape(t)})" for j, t in enumerate(key_tokens)]
    for layer, weights in enumerate(layers):
        for head in range(heads):
            fig.add_trace(
                go.Heatmap(
                    z=weights[head],
                    zmin=0.0,
                    zmax=1.0,
                    colorscale=UNSIGNED_COLORS,
                    showscale=layer == 0 and head == heads - 1,
                    colorbar={"title": {"text": "weight"}},
                    customdata=[[[q, k] for k in keys] for q in queries],
                    hovertemplate=(
                        f"layer {layer + 1}, head {head + 1}<br>{query_title} %{{customdata[0]}}<br>"
                        f"{key_title} %{{customdata[1]}}<br>weight %{{z:.3f}}<extra></extra>"
                    ),
                ),
                row=layer + 1,
                col=head + 1,
            )
            fig.update_xaxes(_token_axis(key_tokens), row=layer + 1, col=head + 1)
            fig.update_yaxes(
                _token_axis(query_tokens), autorange="reversed", showticklabels=head == 0, row=layer + 1, col=head + 1
            )
    fig.update_annotations(font_size=FONT_SIZE - 2)
    fig.update_xaxes(tickfont={"size": FONT_SIZE - 4})
    fig.update_yaxes(tickfont={"size": FONT_SIZE - 4})
    style(fig, f"{title}<br><sup>rows: {query_title} · columns: {key_title}</sup>", "", "", 230 * len(layers) + 110)
    fig.update_layout(margin={"l": 60, "r": 20, "t": 100, "b": 30})
    for layer in range(len(layers)):
        fig.update_yaxes(title_text=f"layer {layer + 1}", title_standoff=4, row=layer + 1, col=1)
    return fig


def repeated_rows(weights, tokens: list[str], positions: list[int], title: str) -> go.Figure:
    """The attention rows [S] of every occurrence of a repeated token, overlaid: ``weights`` is one head's [S, S]."""
    table = as_f32(weights)
    fig = go.Figure()
    for position, dash in zip(positions, ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot"), strict=False):
        fig.add_trace(
            go.Scatter(
                x=as_f32(range(len(tokens))),
                y=table[position],
                mode="lines+markers",
                name=f"row of position {position} ('{tokens[position]}')",
                line={"dash": dash, "width": 3},
                marker={"size": 9},
                hovertemplate=f"query {position}<br>key %{{x}}<br>weight %{{y:.4f}}<extra></extra>",
            )
        )
    fig = style(fig, title, "key (attended to)", "attention weight", height=380)
    fig.update_xaxes(_token_axis(tokens))
    fig.update_yaxes(rangemode="tozero")
    return fig


def accuracy_bars(labels: list[str], held_out: list[float], out_of_length: list[float]) -> go.Figure:
    """Exact-match accuracy of each model on held-out 3-digit and on 4-digit expressions, as percentages."""
    fig = go.Figure(
        [
            go.Bar(name="held-out, 3-digit", x=labels, y=as_f32(held_out) * 100),
            go.Bar(name="4-digit (longer than training)", x=labels, y=as_f32(out_of_length) * 100),
        ]
    )
    fig.update_traces(hovertemplate="%{x}<br>%{y:.2f}% exact match<extra></extra>")
    fig = style(fig, "Exact-match accuracy of the shipped models", "positional encoding", "exact match (%)", 400)
    fig.update_yaxes(range=[0, 100])
    return fig


def training_curve(losses: list[float], held_out: list[tuple[int, float]], steps: int) -> go.Figure:
    """Training loss per step (left axis) and held-out exact match at each evaluation (right axis, %)."""
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(
        go.Scatter(
            x=as_f32(range(1, len(losses) + 1)),
            y=as_f32(losses),
            mode="lines",
            name="training loss",
            hovertemplate="step %{x}<br>loss %{y:.3f}<extra></extra>",
        ),
        secondary_y=False,
    )
    fig.add_trace(
        go.Scatter(
            x=as_f32([step for step, _ in held_out]),
            y=as_f32([accuracy for _, accuracy in held_out]) * 100,
            mode="lines+markers",
            name="held-out exact match (%)",
            hovertemplate="step %{x}<br>%{y:.1f}% exact match<extra></extra>",
        ),
        secondary_y=True,
    )
    fig = style(fig, "Training live", "step", "cross-entropy loss", height=360)
    fig.update_xaxes(range=[0, steps])
    fig.update_yaxes(title_text="held-out exact match (%)", range=[0, 100], secondary_y=True)
    fig.update_yaxes(rangemode="tozero", secondary_y=False)
    return fig
