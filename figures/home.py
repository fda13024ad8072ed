"""Figures for the home page: two sentences' attention maps, and how much each token's output changed."""

from __future__ import annotations

import html

import plotly.graph_objects as go

from figures.common import FONT_SIZE, UNSIGNED_COLORS, ReadOnlyFigure, as_f32, colorbar, layout


def token_labels(tokens: list[str]) -> list[str]:
    """ "3:likes" for token 3: position-prefixed so repeats stay distinct, markup-escaped for Plotly's labels."""
    return [f"{i}:{html.escape(token)}" for i, token in enumerate(tokens)]


def attention_pair(
    weights_a, tokens_a: list[str], weights_b, tokens_b: list[str], title: str, labels: dict
) -> go.Figure:
    """Two [L, L] attention maps side by side, queries on y and keys on x, labelled by their tokens.

    ``labels`` holds the translated words: sentence_a, sentence_b, key_axis, query_axis, weight.
    """
    traces, axes, notes = [], {}, []
    panels = (
        # 0.26 apart: the right panel's token labels ("2:싫어한다", ~80 px) stand in the gap, not on the left panel's
        # cells, on a 1024-px projector with the sidebar open
        (weights_a, tokens_a, labels["sentence_a"], [0.0, 0.37]),
        (weights_b, tokens_b, labels["sentence_b"], [0.63, 1.0]),
    )
    for col, (weights, tokens, name, domain) in enumerate(panels, start=1):
        ticks = token_labels(tokens)
        suffix = "" if col == 1 else str(col)
        traces.append(
            {
                "type": "heatmap",
                "z": as_f32(weights),
                "x": ticks,
                "y": ticks,
                "xaxis": f"x{suffix}",
                "yaxis": f"y{suffix}",
                "zmin": 0.0,
                "zmax": 1.0,
                "colorscale": UNSIGNED_COLORS,
                "showscale": col == 2,
                "colorbar": colorbar(labels["weight"]),
                "hovertemplate": f"{labels['query_axis']} %{{y}}<br>{labels['key_axis']} %{{x}}<br>"
                f"{labels['weight']} %{{z:.3f}}<extra></extra>",
            }
        )
        axes[f"xaxis{suffix}"] = {"domain": domain, "title": {"text": labels["key_axis"]}, "anchor": f"y{suffix}"}
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
    axes["yaxis"]["title"] = {"text": labels["query_axis"]}
    return ReadOnlyFigure(
        traces, layout(title, labels["key_axis"], labels["query_axis"], height=440, annotations=notes, **axes)
    )


def output_change_bars(
    without_pe: list[tuple[str, float]], with_pe: list[tuple[str, float]], labels: dict
) -> go.Figure:
    """Per token: relative change of its output between the two sentences, without and with positions.

    ``labels`` holds the translated words: changes_title, changes_x, changes_hover, bar_without, bar_with.
    """
    ticks = token_labels([token for token, _ in without_pe])
    hover = f"%{{x}}<br>{labels['changes_hover']} %{{y:.3g}}<extra></extra>"
    bars = [
        {"type": "bar", "name": labels["bar_without"], "x": ticks, "y": as_f32([d for _, d in without_pe])},
        {"type": "bar", "name": labels["bar_with"], "x": ticks, "y": as_f32([d for _, d in with_pe])},
    ]
    for bar in bars:
        bar["hovertemplate"] = hover
    return ReadOnlyFigure(bars, layout(labels["changes_title"], labels["changes_x"], "‖z_A − z_B‖ / ‖z_A‖", height=400))
