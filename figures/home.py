"""Figures for the home page: two sentences' attention maps, and how much each token's output changed."""

from __future__ import annotations

import html

from figures.common import FONT_SIZE, UNSIGNED_COLORS, ReadOnlyFigure, as_f32, colorbar, layout, text_width


def token_labels(tokens: list[str]) -> list[str]:
    """ "3:likes" for token 3: position-prefixed so repeats stay distinct, markup-escaped for Plotly's labels."""
    return [f"{i}:{html.escape(token)}" for i, token in enumerate(tokens)]


PAPER_WIDTH = 270  # px the two maps and their gap take in a chart at 1024 px (the sidebar open, the colour bar beside)
TICK_LETTER = 7  # px a Latin letter of a tick label takes (a Korean or Chinese character, two)


def panel_gap(right_labels: list[str]) -> float:
    """The gap between the two maps, as a fraction of the chart's paper: the right map's longest token label
    ("6:좋아한다", ~70 px at 1024 px) and 12 px stand in it, never on the left map's cells."""
    widest = max(text_width(label) for label in right_labels)
    return min(0.4, max(0.2, (12 + TICK_LETTER * widest) / PAPER_WIDTH))


def attention_pair(
    weights_a, tokens_a: list[str], weights_b, tokens_b: list[str], title: str, labels: dict
) -> ReadOnlyFigure:
    """Two [L, L] attention maps side by side, queries on y and keys on x, labelled by their tokens.

    ``labels`` holds the translated words: sentence_a, sentence_b, key_axis, query_axis, weight.
    """
    traces, axes, notes = [], {}, []
    gap = panel_gap(token_labels(tokens_b))
    panels = (
        (weights_a, tokens_a, labels["sentence_a"], [0.0, (1 - gap) / 2]),
        (weights_b, tokens_b, labels["sentence_b"], [(1 + gap) / 2, 1.0]),
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
) -> ReadOnlyFigure:
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
