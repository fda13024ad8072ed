"""Figures for the home page: two sentences' attention maps, and how much each token's output changed."""

from __future__ import annotations

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from figures.common import FONT_SIZE, UNSIGNED_COLORS, as_f32, style


def attention_pair(weights_a, tokens_a: list[str], weights_b, tokens_b: list[str], title: str) -> go.Figure:
    """Two [L, L] attention maps side by side, queries on y and keys on x, labelled by their tokens."""
    fig = make_subplots(rows=1, cols=2, subplot_titles=("Sentence A", "Sentence B"), horizontal_spacing=0.12)
    for col, (weights, tokens) in enumerate(((weights_a, tokens_a), (weights_b, tokens_b)), start=1):
        labels = [f"{i}:{token}" for i, token in enumerate(tokens)]  # position-prefixed, so repeats stay distinct
        fig.add_trace(
            go.Heatmap(
                z=as_f32(weights),
                x=labels,
                y=labels,
                zmin=0.0,
                zmax=1.0,
                colorscale=UNSIGNED_COLORS,
                showscale=col == 2,
                colorbar={"title": {"text": "weight"}},
                hovertemplate="query %{y}<br>key %{x}<br>weight %{z:.3f}<extra></extra>",
            ),
            row=1,
            col=col,
        )
        fig.update_yaxes(autorange="reversed", row=1, col=col)
    fig.update_annotations(font_size=FONT_SIZE)
    style(fig, title, "key (attended to)", "", height=440)
    fig.update_yaxes(title_text="query (attending)", row=1, col=1)
    return fig


def output_change_bars(without_pe: list[tuple[str, float]], with_pe: list[tuple[str, float]]) -> go.Figure:
    """Per token: relative change of its output between the two sentences, without and with positions."""
    labels = [f"{i}:{token}" for i, (token, _) in enumerate(without_pe)]
    fig = go.Figure(
        [
            go.Bar(name="no positional encoding", x=labels, y=as_f32([d for _, d in without_pe])),
            go.Bar(name="with sinusoidal encoding", x=labels, y=as_f32([d for _, d in with_pe])),
        ]
    )
    fig.update_traces(hovertemplate="%{x}<br>relative change %{y:.3g}<extra></extra>")
    return style(
        fig,
        "How much did each word's output change when the sentence was reordered?",
        "token of sentence A",
        "‖z_A − z_B‖ / ‖z_A‖",
        height=400,
    )
