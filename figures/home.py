"""Figures for the home page: two sentences' attention maps, and how much each token's output changed."""

from __future__ import annotations

import plotly.graph_objects as go

from figures.common import FONT_SIZE, UNSIGNED_COLORS, as_f32, figure, layout


def attention_pair(weights_a, tokens_a: list[str], weights_b, tokens_b: list[str], title: str) -> go.Figure:
    """Two [L, L] attention maps side by side, queries on y and keys on x, labelled by their tokens."""
    traces, axes, notes = [], {}, []
    for col, (weights, tokens, name, domain) in enumerate(
        ((weights_a, tokens_a, "Sentence A", [0.0, 0.44]), (weights_b, tokens_b, "Sentence B", [0.56, 1.0])), start=1
    ):
        labels = [f"{i}:{token}" for i, token in enumerate(tokens)]  # position-prefixed, so repeats stay distinct
        suffix = "" if col == 1 else str(col)
        traces.append(
            {
                "type": "heatmap",
                "z": as_f32(weights),
                "x": labels,
                "y": labels,
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "zmin": 0.0,
                "zmax": 1.0,
                "colorscale": UNSIGNED_COLORS,
                "showscale": col == 2,
                "colorbar": {"title": {"text": "weight"}},
                "hovertemplate": "query %{y}<br>key %{x}<br>weight %{z:.3f}<extra></extra>",
            }
        )
        axes[f"xaxis{suffix}"] = {"domain": domain, "title": {"text": "key (attended to)"}, "anchor": f"y{suffix}"}
        axes[f"yaxis{suffix}"] = {"autorange": "reversed", "anchor": f"x{suffix}"}
        notes.append(
            {
                "text": name,
                "x": sum(domain) / 2,
                "y": 1.0,
                "xref": "paper",
                "yref": "paper",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": FONT_SIZE},
            }
        )
    axes["yaxis"]["title"] = {"text": "query (attending)"}
    return figure(
        traces, layout(title, "key (attended to)", "query (attending)", height=440, annotations=notes, **axes)
    )


def output_change_bars(without_pe: list[tuple[str, float]], with_pe: list[tuple[str, float]]) -> go.Figure:
    """Per token: relative change of its output between the two sentences, without and with positions."""
    labels = [f"{i}:{token}" for i, (token, _) in enumerate(without_pe)]
    hover = "%{x}<br>relative change %{y:.3g}<extra></extra>"
    bars = [
        {"type": "bar", "name": "no positional encoding", "x": labels, "y": as_f32([d for _, d in without_pe])},
        {"type": "bar", "name": "with sinusoidal encoding", "x": labels, "y": as_f32([d for _, d in with_pe])},
    ]
    for bar in bars:
        bar["hovertemplate"] = hover
    title = "How much did each word's output change when the sentence was reordered?"
    return figure(bars, layout(title, "token of sentence A", "‖z_A − z_B‖ / ‖z_A‖", height=400))
