"""Shared look of every chart: projector-sized fonts, titled axes, colour scales, float32 arrays, read-only figures.

Builders hand finished trace and layout dicts to :class:`ReadOnlyFigure` in one call; it encodes them once as Plotly's
JSON, without Plotly (the tests validate every figure a page sends with Plotly and hold it to Plotly's encoding).

Charts carry float32 numpy arrays: Plotly sends them as compact base64 typed arrays ({"dtype": "f4", "bdata": …}),
where lists and float16 fall back to text that is 3–4× larger and far slower to send.
"""

from __future__ import annotations

import base64
import hashlib
import math
import re
import unicodedata

import numpy as np
from plotly.colors import get_colorscale

# No pandas: Plotly's validators only use it when it is already in sys.modules (get_module("pandas",
# should_load=False)), so with pandas never imported (tests/test_no_pandas.py) there is no half-imported pandas for
# one session's rerun to find while another imports it (the race "partially initialized module 'pandas'").

FONT_SIZE = 16  # readable from the back of a classroom
# Colour scales spelt out as [[fraction, colour], …]: the live charts (static/live.js) get them as they are, and
# Plotly.js in the browser knows neither "RdBu_r" nor every name Python's Plotly does.
SIGNED_COLORS = get_colorscale("RdBu_r")  # diverging: blue negative, white 0, red positive (zmid=0 keeps white at 0)
UNSIGNED_COLORS = get_colorscale("Viridis")


# Where a title line may break: after a word and its spaces, or before any Chinese character (Korean is written with
# spaces between words, so it breaks at spaces, as Latin text does).
BREAKS = re.compile(r"[\u2e80-\u9fff\uff00-\uffef]|[^ \u2e80-\u9fff\uff00-\uffef]+ *| +")
DIGIT_GROUP = re.compile(r"(?<=\d) (?=\d{3}(?!\d))")  # the space of a number grouped as zh writes it: 4 096
# The title hangs from the chart's top edge (measured in Chromium at FONT_SIZE: with a pad of 28 px its first line
# starts 8 px below the edge, and each line takes 27 px).
TITLE_PAD = 28
TITLE_LINE = 27
PANEL_LINE = 24  # pixels per line of a panel title above the plot (a Chinese or Korean line is taller)
TITLE_COLUMNS = 44  # a title line's width in Latin letters (a CJK character counts two): what a chart fits at 1024 px


LEGEND_WIDTH = 500  # px a legend row may take in a chart at 1024 px (the main column beside the sidebar)
LEGEND_ROW = 25  # px per row of a legend at FONT_SIZE
LETTER = 8.6  # px a Latin letter takes at FONT_SIZE
SAMPLE = 44  # px a legend entry's line sample and gaps take beside its name
PLOT_HEIGHT = 260  # px a chart's plot keeps at the least, whatever its title and legend take


def text_width(text: str) -> int:
    """How wide ``text`` is drawn, in Latin letters: Chinese, Japanese and Korean characters are twice as wide."""
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def wrapped(title: str, columns: int = TITLE_COLUMNS) -> str:
    """``title`` broken into lines of at most ``columns`` (Plotly draws a title on one line, cut at the chart's edge):
    at spaces, or before any Chinese character. Parts already split with ``<br>`` or holding other markup
    are kept as they are."""
    lines = []
    for part in title.split("<br>"):
        if "<" in part or text_width(part) <= columns:
            lines.append(part)
            continue
        line = ""
        kept = DIGIT_GROUP.sub("\u00a0", part.replace(" = ", "\u00a0=\u00a0"))  # "k = 4", zh's "4 096": one line
        for word in BREAKS.findall(kept):
            if line and text_width(line + word.rstrip()) > columns:
                lines.append(line.rstrip())
                line = word.lstrip()
            else:
                line += word
        lines.append(line.rstrip())
    return "<br>".join(lines).replace("\u00a0", " ")


def layout(title: str, x_title: str, y_title: str, height: int = 460, **extra) -> dict:
    """The layout every chart shares (title, axis titles, projector-sized fonts, margins) as a plain dict.

    The title is broken into lines that fit a chart at 1024 px (:func:`wrapped`) and the top margin grows with them;
    the legend sits at the bottom of the chart, below the x-axis title, so the two never meet in any language.
    ``extra`` adds or replaces top-level layout keys (``xaxis={"type": "log"}`` is merged into the axis title).
    """
    title = wrapped(title)
    base = {
        "title": {
            "text": title,
            "x": 0.0,
            "xanchor": "left",
            "yref": "container",
            "y": 1.0,
            "yanchor": "top",
            "pad": {"t": TITLE_PAD},
        },
        "font": {"size": FONT_SIZE},
        "height": height,
        "margin": {"l": 70, "r": 30, "t": 60, "b": 60},
        "hoverlabel": {"font": {"size": FONT_SIZE}},
        "legend": {"orientation": "h", "yref": "container", "y": 0, "yanchor": "bottom", "x": 0},
        "xaxis": {"title": {"text": x_title}},
        "yaxis": {"title": {"text": y_title}},
    }
    for key, value in extra.items():
        base[key] = {**base[key], **value} if isinstance(value, dict) and isinstance(base.get(key), dict) else value
    # The title hangs from the top of the chart; the top margin holds its lines and, under them, the panel titles
    # that stand above the plot (each of its lines, placed in paper units at its top, not a label at a data value such
    # as y = log10(length)): a builder's own larger margin is kept.
    base["margin"]["t"] = top_margin(title, base.get("annotations", []), base["margin"]["t"])
    return base


def top_margin(title: str, annotations: list[dict], own: int) -> int:
    """The top margin that holds the (wrapped) ``title``'s lines and, under them, the tallest panel title among
    ``annotations``; a builder's ``own`` larger margin is kept."""
    panels = [note["text"].count("<br>") + 1 for note in annotations if note.get("yref") == "paper" and
              note.get("y", 0) >= 1]  # fmt: skip
    return max(own, 24 + TITLE_LINE * (title.count("<br>") + 1) + PANEL_LINE * max(panels, default=0))


def legend_rows(names: list[str]) -> int:
    """Rows a horizontal legend takes at 1024 px: its entries (line sample, then name) packed left to right."""
    rows, used = 0, LEGEND_WIDTH
    for name in names:
        width = SAMPLE + LETTER * text_width(name)
        if used + width > LEGEND_WIDTH:
            rows, used = rows + 1, 0
        used += width
    return rows


def with_room_for_legend(fig_layout: dict, names: list[str]) -> dict:
    """``fig_layout`` made tall enough that its plot keeps :data:`PLOT_HEIGHT` px under its title and over its x
    axis and a legend of ``names`` (Plotly takes a wrapping legend's rows out of the plot: with eight long names at
    1024 px the plot was 90 px high and its y tick labels stood on each other)."""
    margin = fig_layout["margin"]
    needed = margin["t"] + margin["b"] + PLOT_HEIGHT + LEGEND_ROW * max(0, legend_rows(names) - 1)
    return {**fig_layout, "height": max(fig_layout["height"], math.ceil(needed))}


PANEL_COLUMNS = 48  # letters a panel title may take across a whole chart at 1024 px (the panels' smaller font),
# leaving room at each end for the neighbouring panel's tick labels


def panel_title(text: str, x_domain: list[float], size: int = FONT_SIZE - 2) -> dict:
    """A title centred above a panel of a grid (an annotation, as make_subplots' subplot titles), broken into lines
    no wider than the panel at 1024 px: on one line, a long title ran over its neighbour's tick labels."""
    columns = max(8, int(PANEL_COLUMNS * (x_domain[1] - x_domain[0]) * (FONT_SIZE - 2) / size))
    return {"text": wrapped(text, columns), "font": {"size": size}, "showarrow": False, "x": sum(x_domain) / 2,
            "xanchor": "center", "xref": "paper", "y": 1.0, "yanchor": "bottom", "yref": "paper"}  # fmt: skip


def colorbar(title: str) -> dict:
    """A colour bar titled beside it, turned like a y-axis title: a title above the bar sat on its top tick label."""
    return {"title": {"text": title, "side": "right"}}


# numpy dtype -> plotly.js's typed-array name
TYPED = {"int8": "i1", "uint8": "u1", "int16": "i2", "uint16": "u2", "int32": "i4", "uint32": "u4",
         "float32": "f4", "float64": "f8"}  # fmt: skip
NOT_TYPED = {"range", "layer", "layers", "geojson"}  # keys whose arrays Plotly sends as plain lists


def with_array_prints(figure: dict) -> dict:
    """A figure as sent (``ReadOnlyFigure.to_dict()``) with each typed array of its traces given a ``print`` of its
    bytes: equal prints, equal arrays (ui.figure sends an array the browser holds as its print alone). The layout's
    few arrays (tick values) are left as they are: always sent."""

    def printed(value):  # a typed array is always a dict's value (sendable lists an array inside a list)
        if isinstance(value.get("bdata"), str):
            return {**value, "print": hashlib.blake2b(value["bdata"].encode(), digest_size=8).hexdigest()}
        return {key: printed(item) if isinstance(item, dict) else item for key, item in value.items()}

    return {**figure, "data": [printed(trace) for trace in figure.get("data", ())]}


class ReadOnlyFigure:
    """A finished figure in Plotly's format: traces, layout and frames as plain dicts, sent as Plotly sends them.

    ``to_dict()`` is the JSON ``plotly.io.to_json(go.Figure(...).to_dict())`` gives (arrays as base64 typed arrays,
    NaN as null), made once without Plotly: building a ``go.Figure``, deep-copying it with its default template and
    walking it again took a quarter of a shared-control rerun's CPU (tests/test_figures_common.py holds the two equal
    for every figure a page sends). Plotly's default template is not sent: ``static/figure.js`` draws with the lab's
    own look and never read it (7 kB of every figure). Anything else asked of the figure (``fig.data``,
    ``fig.layout``: the tests read it as a ``go.Figure``) is a ``go.Figure`` made from the same dicts on first use,
    unvalidated, as the figure was before; tests/test_figures_valid.py validates every figure every page sends. Never
    change one after it is built: figures are cached in ``charts/`` and shared by every session.
    """

    def __init__(self, data=None, layout=None, frames=None) -> None:
        self._parts = (list(data or ()), dict(layout or {}), list(frames or ()))
        self._sent = None
        self._printed = None
        self._plotly = None

    def to_dict(self) -> dict:
        if self._sent is None:
            data, fig_layout, frames = self._parts
            sent = {"data": [{**sendable(trace), "type": trace.get("type", "scatter")} for trace in data],
                    "layout": sendable(fig_layout)}  # fmt: skip
            if frames:
                sent["frames"] = sendable(frames)
            self._sent = sent
        return self._sent

    def printed(self) -> dict:
        """:meth:`to_dict` with its arrays' prints (:func:`with_array_prints`), made once."""
        if self._printed is None:
            self._printed = with_array_prints(self.to_dict())
        return self._printed

    def __getattr__(self, name: str):
        """What a ``go.Figure`` has (``data``, ``layout``, …): read from one made on first use (tests, not pages)."""
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._as_plotly(), name)

    def __getitem__(self, key):
        """``figure["layout"]``, as a ``go.Figure`` reads (tests, not pages)."""
        return self._as_plotly()[key]

    def _as_plotly(self):
        if self._plotly is None:
            import plotly.graph_objects as go  # only a test reads a figure this way: a page never imports it

            self._plotly = go.Figure(*self._parts, _validate=False)
        return self._plotly


def sendable(value):
    """``value`` as Plotly's JSON carries it: a non-empty numeric numpy array (or tensor) that is a dict's value as a
    base64 typed array {dtype, bdata[, shape]} (int64 narrowed to the smallest int that holds it, as Plotly does);
    any other array (one in a list, empty, not numeric) as a list; numpy numbers as Python numbers; NaN, ±inf as
    null."""
    if isinstance(value, dict):
        return {key: (_listed(item) if key in NOT_TYPED else sendable(item)) for key, item in value.items()}
    if hasattr(value, "detach"):  # a torch tensor
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        return _typed(value)
    return _listed(value)


def _typed(array: np.ndarray):
    """A numpy array as plotly.js's typed-array spec, or a list where Plotly sends one (empty, not numeric)."""
    if array.size == 0 or array.dtype.kind not in "uif":
        return _listed(array)
    if array.dtype.kind in "iu" and array.dtype.itemsize == 8:
        low, high = int(array.min()), int(array.max())
        kinds = ("uint8", "uint16", "uint32") if array.dtype.kind == "u" else ("int8", "int16", "int32")
        fits = [kind for kind in kinds if np.iinfo(kind).min <= low and high <= np.iinfo(kind).max]
        if not fits:
            return _listed(array)
        array = array.astype(fits[0])
    name = TYPED.get(str(array.dtype))
    if name is None:
        return _listed(array)
    spec = {"dtype": name, "bdata": base64.b64encode(np.ascontiguousarray(array)).decode("ascii")}
    if array.ndim > 1:
        spec["shape"] = str(array.shape)[1:-1]
    return spec


def _listed(value):
    """``value`` in JSON, its arrays as lists (what Plotly sends for an array in a list), NaN and ±inf as null."""
    if isinstance(value, dict):
        return sendable(value)
    if hasattr(value, "detach"):
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_listed(item) for item in value]
    if isinstance(value, np.floating):  # written as short as its own precision allows, as Plotly writes it
        return float(str(value)) if math.isfinite(value) else None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, np.generic):
        return value.item()
    return value


def as_f32(values) -> np.ndarray:
    """A float32 numpy copy of a tensor or array: what Plotly sends compactly."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    return np.asarray(values, dtype=np.float32)


def lines_figure(x, series: list[dict], title: str, x_title: str, y_title: str, height: int = 420) -> ReadOnlyFigure:
    """Curves over one x axis: ``series`` holds dicts with ``name``, ``y`` and optionally ``color``, ``dash``
    ("dash", "dot"), ``width`` and ``mode`` ("lines", "lines+markers"). Arrays in, a finished figure out.

    Evenly spaced x (0, 1, 2, …) is sent as Plotly's ``x0`` and ``dx`` rather than one copy of the array per curve.
    """
    x = as_f32(x)
    steps = np.diff(x)
    even = len(x) > 2 and bool(np.all(steps == steps[0]))
    axis = {"x0": float(x[0]), "dx": float(steps[0])} if even else {"x": x}
    traces = []
    for line in series:
        style = {"width": line.get("width", 3), "dash": line.get("dash", "solid")}
        if "color" in line:
            style["color"] = line["color"]
        traces.append({"type": "scatter", "mode": line.get("mode", "lines"), **axis, "y": as_f32(line["y"]),
                       "name": line["name"], "line": style})  # fmt: skip
    fig_layout = layout(title, x_title, y_title, height)
    return ReadOnlyFigure(traces, with_room_for_legend(fig_layout, [line["name"] for line in series]))
