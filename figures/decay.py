"""Charts of the long-range decay page: curves over relative distance, wavelengths per pair, scaled frequencies.

Arrays in (numpy or torch), plotly figures out; no Streamlit. Every curve is sent as float32. Every word a chart shows
comes in a ``labels`` dict (the page fills it from the catalog ``locales/<lang>/decay.toml``, keys :data:`LABEL_KEYS`
without the ``decay.`` prefix); a label with ``{placeholders}`` is filled in here. Each figure is built
from plain dicts in one ``ReadOnlyFigure(data, layout)`` call (Plotly's ``update_*`` / ``add_*`` methods re-validate
the whole figure each time and would cost milliseconds apiece on every rerun).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
from plotly.colors import hex_to_rgb, qualitative

from figures.common import ReadOnlyFigure, as_f32, layout

COLORS = qualitative.Plotly  # mid-tone colours: legible on light and dark backgrounds
METHODS = ("original", "linear", "dynamic", "yarn", "llama3")  # curve keys named by labels["method_<key>"]
LABEL_KEYS = (  # every label the builders below read
    *("distance", "upper_bound", "bound"),
    *("score_title", "score_axis", "band_lower", "band_name", "mean_name", "mean_hover", "ones_name"),
    *(f"method_{method}" for method in METHODS),
    *("wavelength_title", "pair_axis", "pair_hover", "wavelength_axis", "wavelength_hover", "turned", "never_turned"),
    "training_mark",
)


def _distance_axis(log_x: bool) -> dict:
    # r = 0 has no place on a log axis: the curve starts at r = 1
    return {"xaxis": {"type": "log"}} if log_x else {}


def _hline(y: float, **line) -> dict:
    """A horizontal line across the whole plot at ``y`` (what ``fig.add_hline`` adds)."""
    return {"type": "line", "xref": "x domain", "x0": 0, "x1": 1, "yref": "y", "y0": y, "y1": y, "line": line}


def _vline(x: float, **line) -> dict:
    """A vertical line over the whole plot height at ``x`` (what ``fig.add_vline`` adds)."""
    return {"type": "line", "xref": "x", "x0": x, "x1": x, "yref": "y domain", "y0": 0, "y1": 1, "line": line}


def _curve_name(label: str, labels: Mapping[str, str]) -> str:
    """A method key ("linear") by its translated name; any other curve label (e.g. "base 10,000") as it is."""
    return labels[f"method_{label}"] if label in METHODS else label


def score_figure(
    distances, ones, mean, std, labels: Mapping[str, str], log_x: bool = False, height: int = 420
) -> ReadOnlyFigure:
    """The actual score q·k: for q = k = all ones, and mean ± one standard deviation over random q, k.

    ``labels``: score_title, distance, score_axis, band_lower, band_name, mean_name, mean_hover, ones_name.
    """
    x, mean, std = as_f32(distances), as_f32(mean), as_f32(std)
    red, green, blue = hex_to_rgb(COLORS[1])
    band = {"type": "scatter", "x": x, "mode": "lines", "line": {"width": 0, "color": COLORS[1]}, "hoverinfo": "skip"}
    traces = [
        {**band, "y": mean - std, "name": labels["band_lower"], "showlegend": False},
        {
            **band,
            "y": mean + std,
            "name": labels["band_name"],
            "fill": "tonexty",
            "fillcolor": f"rgba({red}, {green}, {blue}, 0.25)",
        },
        {
            "type": "scatter",
            "x": x,
            "y": mean,
            "mode": "lines",
            "name": labels["mean_name"],
            "line": {"color": COLORS[1]},
            "customdata": std,
            "hovertemplate": f"r = %{{x}}<br>{labels['mean_hover']} %{{y:.2f}} ± %{{customdata:.2f}}<extra></extra>",
        },
        {
            "type": "scatter",
            "x": x,
            "y": as_f32(ones),
            "mode": "lines",
            "name": labels["ones_name"],
            "line": {"color": COLORS[0]},
            "hovertemplate": "r = %{x}<br>q·k %{y:.2f}<extra></extra>",
        },
    ]
    extra = {"shapes": [_hline(0, width=1, color="gray")], **_distance_axis(log_x)}
    return ReadOnlyFigure(
        traces, layout(labels["score_title"], labels["distance"], labels["score_axis"], height, **extra)
    )


def curves_figure(
    distances,
    curves: Mapping[str, object],
    title: str,
    y_title: str,
    labels: Mapping[str, str],
    log_x: bool = False,
    marks: Mapping[str, float] | None = None,
    height: int = 420,
) -> ReadOnlyFigure:
    """Several curves over the same distances, one per label; ``marks`` draws labelled vertical lines (e.g. lengths).

    Curve labels that are method keys (:data:`METHODS`) are shown by their translated names. ``labels``: distance,
    method_<key>.
    """
    x = as_f32(distances)
    names = [_curve_name(label, labels) for label in curves]
    traces = [
        {
            "type": "scatter",
            "x": x,
            "y": as_f32(values),
            "mode": "lines",
            "name": name,
            "line": {"color": COLORS[index % len(COLORS)], "dash": "dash" if label == "original" else "solid"},
            "hovertemplate": f"{name}<br>r = %{{x}}<br>{y_title} %{{y:.3f}}<extra></extra>",
        }
        for index, ((label, values), name) in enumerate(zip(curves.items(), names, strict=True))
    ]
    marks = marks or {}
    shapes = [_vline(position, dash="dot", color="gray") for position in marks.values()]
    annotations = [
        {
            # annotations on a log axis are placed in log10 units (plotly.js), so the label gets its own coordinates
            "x": math.log10(position) if log_x and position > 0 else position,
            "y": 1,
            "yref": "paper",
            "text": text,
            "showarrow": False,
            "xanchor": "right",
            "yanchor": "top",
        }
        for text, position in marks.items()
    ]
    extra = {"shapes": shapes, "annotations": annotations} if marks else {}
    return ReadOnlyFigure(traces, layout(title, labels["distance"], y_title, height, **extra, **_distance_axis(log_x)))


def wavelength_figure(
    wavelengths, completes, train_length: int, labels: Mapping[str, str], height: int = 420
) -> ReadOnlyFigure:
    """Wavelength of each pair (log y) against the training length; pairs that finish a turn in it are coloured.

    ``labels``: wavelength_title, pair_axis, wavelength_axis, turned and never_turned ({count}), pair_hover ({pair}),
    wavelength_hover ({value}), training_mark ({length}).
    """
    wavelengths, completes = as_f32(wavelengths), np.asarray(completes, dtype=bool)
    pairs = np.arange(wavelengths.size, dtype=np.int32)
    groups = ((completes, labels["turned"], COLORS[0]), (~completes, labels["never_turned"], COLORS[1]))
    hover = f"{labels['pair_hover']}<br>{labels['wavelength_hover']}<extra></extra>".format(
        pair="%{x}", value="%{y:,.1f}"
    )
    traces = [
        {
            "type": "scatter",
            "x": pairs[mask],
            "y": wavelengths[mask],
            "mode": "markers",
            "name": name.format(count=int(mask.sum())),
            "marker": {"color": color, "size": 8},
            "hovertemplate": hover,
        }
        for mask, name, color in groups
    ]
    label = {  # on a log axis plotly.js places annotations in log10 units
        "x": 0, "xref": "paper", "y": math.log10(train_length),
        "text": labels["training_mark"].format(length=f"{train_length:,}"),
        "showarrow": False, "xanchor": "left", "yanchor": "bottom",
    }  # fmt: skip
    fig_layout = layout(
        labels["wavelength_title"],
        labels["pair_axis"],
        labels["wavelength_axis"],
        height,
        yaxis={"type": "log"},
        shapes=[_hline(train_length, dash="dot", color="gray")],
        annotations=[label],
    )
    return ReadOnlyFigure(traces, fig_layout)
