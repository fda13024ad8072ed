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


def attention_grid(maps: list, query_tokens: list[str], key_tokens: list[str], title: str, labels: dict) -> go.Figure:
    """One heatmap per (layer, head): a row of heads per layer. ``maps``: one [H, Q, K] array per layer.

    ``labels`` holds the translated words: query_title, key_title, weight, and the templates head ("… {head}"),
    layer ("… {layer}"), layer_head ("… {layer} … {head}") and axes ("… {rows} … {columns}").
    """
    layers = [as_f32(m) for m in maps]
    heads = layers[0].shape[0]
    query_title, key_title, weight = labels["query_title"], labels["key_title"], labels["weight"]
    fig = make_subplots(
        rows=len(layers),
        cols=heads,
        subplot_titles=[labels["head"].format(head=h + 1) for h in range(heads)] + [""] * (heads * (len(layers) - 1)),
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
                    colorbar={"title": {"text": weight}},
                    customdata=[[[q, k] for k in keys] for q in queries],
                    hovertemplate=(
                        f"{labels['layer_head'].format(layer=layer + 1, head=head + 1)}<br>"
                        f"{query_title} %{{customdata[0]}}<br>{key_title} %{{customdata[1]}}<br>"
                        f"{weight} %{{z:.3f}}<extra></extra>"
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
    subtitle = labels["axes"].format(rows=query_title, columns=key_title)
    style(fig, f"{title}<br><sup>{subtitle}</sup>", "", "", 230 * len(layers) + 110)
    fig.update_layout(margin={"l": 60, "r": 20, "t": 100, "b": 30})
    for layer in range(len(layers)):
        fig.update_yaxes(title_text=labels["layer"].format(layer=layer + 1), title_standoff=4, row=layer + 1, col=1)
    return fig


def repeated_rows(weights, tokens: list[str], positions: list[int], title: str, labels: dict) -> go.Figure:
    """The attention rows [S] of every occurrence of a repeated token, overlaid: ``weights`` is one head's [S, S].

    ``labels`` holds the translated words: key_axis, weight_axis, query, key, weight, and the template row_name
    ("… {position} … {token}").
    """
    table = as_f32(weights)
    fig = go.Figure()
    for position, dash in zip(positions, ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot"), strict=False):
        fig.add_trace(
            go.Scatter(
                x=as_f32(range(len(tokens))),
                y=table[position],
                mode="lines+markers",
                name=labels["row_name"].format(position=position, token=html.escape(tokens[position])),
                line={"dash": dash, "width": 3},
                marker={"size": 9},
                hovertemplate=f"{labels['query']} {position}<br>{labels['key']} %{{x}}<br>"
                f"{labels['weight']} %{{y:.4f}}<extra></extra>",
            )
        )
    fig = style(fig, title, labels["key_axis"], labels["weight_axis"], height=380)
    fig.update_xaxes(_token_axis(tokens))
    fig.update_yaxes(rangemode="tozero")
    return fig


def accuracy_bars(models: list[str], held_out: list[float], out_of_length: list[float], labels: dict) -> go.Figure:
    """Exact-match accuracy of each model on held-out 3-digit and on 4-digit expressions, as percentages.

    ``labels`` holds the translated words: title, x_title, y_title, held_name, longer_name, and the template
    exact_hover ("{percent} …").
    """
    fig = go.Figure(
        [
            go.Bar(name=labels["held_name"], x=models, y=as_f32(held_out) * 100),
            go.Bar(name=labels["longer_name"], x=models, y=as_f32(out_of_length) * 100),
        ]
    )
    fig.update_traces(hovertemplate=f"%{{x}}<br>{labels['exact_hover'].format(percent='%{y:.2f}%')}<extra></extra>")
    fig = style(fig, labels["title"], labels["x_title"], labels["y_title"], 400)
    fig.update_yaxes(range=[0, 100])
    return fig


def training_curve(losses: list[float], held_out: list[tuple[int, float]], steps: int, labels: dict) -> go.Figure:
    """Training loss per step (left axis) and held-out exact match at each evaluation (right axis, %).

    ``labels`` holds the translated words: title, x_title, y_title, loss_name, held_name (also the right axis
    title), loss, and the templates step_hover ("… {step}") and exact_hover ("{percent} …").
    """
    step_hover = labels["step_hover"].format(step="%{x}")
    fig = make_subplots(specs=[[{"secondary_y": True}]])
    fig.add_trace(
        go.Scatter(
            x=as_f32(range(1, len(losses) + 1)),
            y=as_f32(losses),
            mode="lines",
            name=labels["loss_name"],
            hovertemplate=f"{step_hover}<br>{labels['loss']} %{{y:.3f}}<extra></extra>",
        ),
        secondary_y=False,
    )
    fig.add_trace(
        go.Scatter(
            x=as_f32([step for step, _ in held_out]),
            y=as_f32([accuracy for _, accuracy in held_out]) * 100,
            mode="lines+markers",
            name=labels["held_name"],
            hovertemplate=f"{step_hover}<br>{labels['exact_hover'].format(percent='%{y:.1f}%')}<extra></extra>",
        ),
        secondary_y=True,
    )
    fig = style(fig, labels["title"], labels["x_title"], labels["y_title"], height=360)
    fig.update_xaxes(range=[0, steps])
    fig.update_yaxes(title_text=labels["held_name"], range=[0, 100], secondary_y=True)
    fig.update_yaxes(rangemode="tozero", secondary_y=False)
    return fig
