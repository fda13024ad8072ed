"""Figures for the toy-transformer page: attention maps by layer and head, repeated-token rows, accuracy bars.

Token axes are numeric positions 0 … L−1 labelled with their tokens, so the three "1"s of "21+211=" stay three
separate rows and columns (a categorical axis would merge equal labels into one).

Every builder hands plain trace and layout dicts to ``ReadOnlyFigure(data, layout)`` once: Plotly's ``make_subplots``,
``update_*`` and ``add_trace`` re-validate the whole figure on every call, which made the grids cost ~80 ms each.
"""

from __future__ import annotations

import html

import numpy as np

from figures.common import FONT_SIZE, UNSIGNED_COLORS, ReadOnlyFigure, as_f32, colorbar, layout, panel_title, wrapped

DASHES = ("solid", "dash", "dot", "dashdot", "longdash", "longdashdot")
GRID_H_SPACING = 0.04  # between the heads of a row, as a fraction of the width
GRID_V_SPACING = 0.16  # in total between the layers, as a fraction of the height


def _token_axis(tokens: list[str]) -> dict:
    """Axis settings that show token text at integer positions."""
    # escaped: Plotly reads "<s>" in a label as markup and would drop the start token from the axis
    ticks = [html.escape(token) for token in tokens]
    return {"tickmode": "array", "tickvals": list(range(len(tokens))), "ticktext": ticks, "tickangle": 0}


def _grid_domains(count: int, spacing: float) -> list[list[float]]:
    """The [start, end] of ``count`` equal cells separated by ``spacing`` on [0, 1], first cell at 0.

    Same arithmetic as ``plotly.subplots.make_subplots``, so the cells sit exactly where they used to.
    """
    size = (1.0 - spacing * (count - 1)) / count
    sizes = [size] * count
    return [[sum(sizes[:i]) + i * spacing, min(sum(sizes[:i]) + i * spacing + size, 1.0)] for i in range(count)]


def _axis_name(axis: str, index: int) -> str:
    """Plotly's name of subplot ``index`` (0-based): "x", "x2", "x3", …"""
    return axis if index == 0 else f"{axis}{index + 1}"


def attention_grid(
    maps: list, query_tokens: list[str], key_tokens: list[str], title: str, labels: dict
) -> ReadOnlyFigure:
    """One heatmap per (layer, head): a row of heads per layer. ``maps``: one [H, Q, K] array per layer.

    ``labels`` holds the translated words: query_title, key_title, weight, and the templates head ("… {head}"),
    layer ("… {layer}"), layer_head ("… {layer} … {head}") and axes ("… {rows} … {columns}").
    """
    layers = [as_f32(m) for m in maps]
    heads = layers[0].shape[0]
    query_title, key_title, weight = labels["query_title"], labels["key_title"], labels["weight"]
    columns = _grid_domains(heads, GRID_H_SPACING)
    rows = _grid_domains(len(layers), GRID_V_SPACING / max(len(layers) - 1, 1))[::-1]  # layer 1 on top
    queries = [f"{i} ({html.escape(t)})" for i, t in enumerate(query_tokens)]
    keys = [f"{j} ({html.escape(t)})" for j, t in enumerate(key_tokens)]
    hover_cells = np.array([[[q, k] for k in keys] for q in queries], dtype=str)  # [Q, K, 2]: deep-copied fast
    x_ticks, y_ticks = _token_axis(key_tokens), _token_axis(query_tokens)
    tick_font = {"size": FONT_SIZE - 4}
    traces, axes = [], {}
    for layer, weights in enumerate(layers):
        for head in range(heads):
            index = layer * heads + head
            x_name, y_name = _axis_name("x", index), _axis_name("y", index)
            traces.append(
                {
                    "type": "heatmap",
                    "z": weights[head],
                    "zmin": 0.0,
                    "zmax": 1.0,
                    "colorscale": UNSIGNED_COLORS,
                    "showscale": layer == 0 and head == heads - 1,
                    "colorbar": colorbar(weight),
                    "customdata": hover_cells,
                    "hovertemplate": (
                        f"{labels['layer_head'].format(layer=layer + 1, head=head + 1)}<br>"
                        f"{query_title} %{{customdata[0]}}<br>{key_title} %{{customdata[1]}}<br>"
                        f"{weight} %{{z:.3f}}<extra></extra>"
                    ),
                    "xaxis": x_name,
                    "yaxis": y_name,
                }
            )
            y_title = {"text": labels["layer"].format(layer=layer + 1), "standoff": 4} if head == 0 else {"text": ""}
            axes[x_name.replace("x", "xaxis")] = {
                "anchor": y_name,
                "domain": columns[head],
                **x_ticks,
                "tickfont": tick_font,
                "title": {"text": ""},
            }
            axes[y_name.replace("y", "yaxis")] = {
                "anchor": x_name,
                "domain": rows[layer],
                **y_ticks,
                "autorange": "reversed",
                "showticklabels": head == 0,
                "tickfont": tick_font,
                "title": y_title,
            }
    head_titles = [
        panel_title(labels["head"].format(head=head + 1), columns[head]) | {"y": rows[0][1]} for head in range(heads)
    ]
    subtitle = labels["axes"].format(rows=query_title, columns=key_title)
    fig_layout = layout(
        f"{title}<br><sup>{subtitle}</sup>",
        "",
        "",
        230 * len(layers) + 110,
        margin={"l": 60, "r": 20, "t": 100, "b": 30},
        annotations=head_titles,
        **axes,
    )
    return ReadOnlyFigure(traces, fig_layout)


def repeated_rows(weights, tokens: list[str], positions: list[int], title: str, labels: dict) -> ReadOnlyFigure:
    """The attention rows [S] of every occurrence of a repeated token, overlaid: ``weights`` is one head's [S, S].

    ``labels`` holds the translated words: key_axis, weight_axis, query, key, weight, and the template row_name
    ("… {position} … {token}").
    """
    table = as_f32(weights)
    traces = [
        {
            "type": "scatter",
            "x": as_f32(range(len(tokens))),
            "y": table[position],
            "mode": "lines+markers",
            "name": labels["row_name"].format(position=position, token=html.escape(tokens[position])),
            "line": {"dash": dash, "width": 3},
            "marker": {"size": 9},
            "hovertemplate": f"{labels['query']} {position}<br>{labels['key']} %{{x}}<br>"
            f"{labels['weight']} %{{y:.4f}}<extra></extra>",
        }
        for position, dash in zip(positions, DASHES, strict=False)
    ]
    fig_layout = layout(
        title, labels["key_axis"], labels["weight_axis"], 380, xaxis=_token_axis(tokens), yaxis={"rangemode": "tozero"}
    )
    return ReadOnlyFigure(traces, fig_layout)


def accuracy_bars(models: list[str], held_out: list[float], out_of_length: list[float], labels: dict) -> ReadOnlyFigure:
    """Exact-match accuracy of each model on held-out 3-digit and on 4-digit expressions, as percentages.

    ``labels`` holds the translated words: title, x_title, y_title, held_name, longer_name, and the template
    exact_hover ("{percent} …").
    """
    hover = f"%{{x}}<br>{labels['exact_hover'].format(percent='%{y:.2f}%')}<extra></extra>"
    traces = [
        {"type": "bar", "name": name, "x": models, "y": as_f32(values) * 100, "hovertemplate": hover}
        for name, values in ((labels["held_name"], held_out), (labels["longer_name"], out_of_length))
    ]
    names = [wrapped(model, 10) for model in models]  # six names under six bars at 1024 px: two short lines each
    xaxis = {"tickmode": "array", "tickvals": models, "ticktext": names}
    fig_layout = layout(
        labels["title"], labels["x_title"], labels["y_title"], 400, xaxis=xaxis, yaxis={"range": [0, 100]}
    )
    return ReadOnlyFigure(traces, fig_layout)


def training_curve(losses: list[float], held_out: list[tuple[int, float]], steps: int, labels: dict) -> ReadOnlyFigure:
    """Training loss per step (left axis) and held-out exact match at each evaluation (right axis, %).

    ``labels`` holds the translated words: title, x_title, y_title, loss_name, held_name (also the right axis
    title), loss, and the templates step_hover ("… {step}") and exact_hover ("{percent} …").
    """
    step_hover = labels["step_hover"].format(step="%{x}")
    traces = [
        {
            "type": "scatter",
            "x": as_f32(range(1, len(losses) + 1)),
            "y": as_f32(losses),
            "mode": "lines",
            "name": labels["loss_name"],
            "hovertemplate": f"{step_hover}<br>{labels['loss']} %{{y:.3f}}<extra></extra>",
            "xaxis": "x",
            "yaxis": "y",
        },
        {
            "type": "scatter",
            "x": as_f32([step for step, _ in held_out]),
            "y": as_f32([accuracy for _, accuracy in held_out]) * 100,
            "mode": "lines+markers",
            "name": labels["held_name"],
            "hovertemplate": f"{step_hover}<br>{labels['exact_hover'].format(percent='%{y:.1f}%')}<extra></extra>",
            "xaxis": "x",
            "yaxis": "y2",
        },
    ]
    fig_layout = layout(
        labels["title"],
        labels["x_title"],
        labels["y_title"],
        360,
        xaxis={"anchor": "y", "domain": [0.0, 0.94], "range": [0, steps]},  # 0.94: room for the right axis title
        yaxis={"anchor": "x", "domain": [0.0, 1.0], "rangemode": "tozero"},
        yaxis2={
            "anchor": "x",
            "overlaying": "y",
            "side": "right",
            "title": {"text": labels["held_name"]},
            "range": [0, 100],
        },
    )
    return ReadOnlyFigure(traces, fig_layout)
