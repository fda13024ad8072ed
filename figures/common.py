"""Shared look of every chart (projector-sized fonts, titled axes) and the reduction of tables too big to send.

Charts carry float32 numpy arrays: Plotly encodes them as compact base64, where lists and float16 fall back to text
that is 3–4× larger and far slower to send.
"""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass

import numpy as np
import pandas  # noqa: F401  (see below)
import plotly.graph_objects as go
import plotly.io as pio
from _plotly_utils.utils import is_skipped_key, to_typed_array_spec  # how Plotly's to_dict encodes arrays
from plotly.basedatatypes import BaseFigure
from plotly.colors import get_colorscale

from ui.once import computed_once  # no Streamlit: a locked functools.cache

# Plotly's validators import pandas lazily and take it from sys.modules even while another thread is still
# importing it; with several sessions rerunning at once on a fresh server, one of them then fails with
# "partially initialized module 'pandas' has no attribute 'Series'". Importing it here, once, closes the race.

FONT_SIZE = 16  # readable from the back of a classroom
# Colour scales spelt out as [[fraction, colour], …]: the browser's Plotly.js knows neither "RdBu_r" nor Python's
# version of every named scale, and Plotly's validation (skipped in the app, see SentFigure) would expand them.
SIGNED_COLORS = get_colorscale("RdBu_r")  # diverging: blue negative, white 0, red positive (zmid=0 keeps white at 0)
UNSIGNED_COLORS = get_colorscale("Viridis")
MAX_HEATMAP_CELLS = 120_000  # ~350 × 350 ≈ 0.6 MB encoded: keeps a page at max settings under 1.5 MB per rerun


def layout(title: str, x_title: str, y_title: str, height: int = 460, **extra) -> dict:
    """The layout every chart shares (title, axis titles, projector-sized fonts, margins) as a plain dict.

    ``extra`` adds or replaces top-level layout keys (``xaxis={"type": "log"}`` is merged into the axis title).
    """
    base = {
        "title": {"text": title, "x": 0.0, "xanchor": "left"},
        "font": {"size": FONT_SIZE},
        "height": height,
        "margin": {"l": 70, "r": 30, "t": 60, "b": 60},
        "hoverlabel": {"font": {"size": FONT_SIZE}},
        "legend": {"orientation": "h", "y": -0.2},
        "xaxis": {"title": {"text": x_title}},
        "yaxis": {"title": {"text": y_title}},
    }
    for key, value in extra.items():
        base[key] = {**base[key], **value} if isinstance(value, dict) and isinstance(base.get(key), dict) else value
    return base


VALIDATE = False  # tests turn Plotly's validation on for every figure they build (tests/conftest.py)


class SentFigure(BaseFigure):
    """What the app hands to ``st.plotly_chart``: a finished figure, already in the plain JSON values it is sent as.

    ``st.plotly_chart`` calls ``to_dict()`` on every rerun; a ``go.Figure`` deep-copies itself and re-encodes every
    numpy array as base64 each time (1–5 ms a figure), and building Plotly's objects for every trace and frame in
    the first place costs more than the rest of a figure (~0.5 ms a trace or frame, even unvalidated). Our figures
    are cached and shared read-only, so the JSON is made once, straight from the builder's dicts, and this object
    only carries it to Streamlit (which accepts any Plotly ``BaseFigure`` and asks it for ``to_dict()``). No
    Plotly object is built, so Plotly's ``__init__`` is not called and nothing but ``to_dict()`` may be used.
    """

    def __init__(self, sent: dict):
        self.__dict__["_sent"] = sent

    def to_dict(self) -> dict:
        return self.__dict__["_sent"]

    def __repr__(self) -> str:
        return f"SentFigure({len(self._sent['data'])} traces, {len(self._sent.get('frames', ()))} frames)"


class ReadyFigure(go.Figure):
    """The same figure as a full, validated ``go.Figure`` (tests: ``VALIDATE`` on), read as ``fig.data`` and
    ``fig.layout``; its JSON is made once, on first use, in the same plain values a ``SentFigure`` holds."""

    def to_dict(self) -> dict:
        sent = self.__dict__.get("_sent")
        if sent is None:
            sent = self.__dict__["_sent"] = json.loads(pio.to_json(super().to_dict(), validate=False))
        return sent


def _plain_json(spec: dict) -> dict:
    """``spec`` as ``go.Figure(spec).to_dict()`` would send it, in plain JSON values: numpy arrays as base64 typed
    arrays (as Plotly's ``to_dict`` encodes them), the default template in the layout (as ``go.Figure`` adds it)."""
    sent = json.loads(pio.to_json(_typed_arrays(spec), validate=False))
    sent["layout"].setdefault("template", _default_template())  # one shared, read-only dict
    return sent


def _typed_arrays(value, key: str | None = None):
    """A copy of ``value`` (nested dicts and lists) with every numpy array as Plotly's typed-array spec."""
    if isinstance(value, dict):
        return {name: _typed_arrays(item, name) for name, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_typed_arrays(item) for item in value]
    if isinstance(value, np.ndarray) and not is_skipped_key(key):
        return typed_array(value)
    return value


def typed_array(values: np.ndarray):
    """Plotly's typed-array spec of an array: float arrays directly (the common case), others as Plotly does it."""
    code = {"float32": "f4", "float64": "f8"}.get(str(values.dtype))
    if code is None or values.size == 0:
        return to_typed_array_spec(values)
    spec = {"dtype": code, "bdata": base64.b64encode(np.ascontiguousarray(values)).decode("ascii")}
    if values.ndim > 1:
        spec["shape"] = str(values.shape)[1:-1]  # "rows, cols", as Plotly writes it
    return spec


@computed_once
def _default_template() -> dict:
    """The template ``go.Figure`` puts into every layout (Streamlit's theme restyles it in the browser)."""
    return json.loads(pio.json.to_json_plotly(go.Figure().layout.template))


def figure(data: list[dict], fig_layout: dict, frames: list[dict] | None = None) -> BaseFigure:
    """One read-only figure from plain trace, layout and frame dicts, built in a single call.

    Plotly's ``update_layout`` / ``add_shape`` each re-validate the whole figure and cost milliseconds apiece.
    Here the finished dicts are handed over once. In the app the result is a :class:`SentFigure`, its JSON
    encoded straight from the dicts, unvalidated; tests turn ``VALIDATE`` on and get a full, validated
    :class:`ReadyFigure` instead, and tests/test_figures_common.py checks that both send the same JSON.
    """
    spec = {"data": data, "layout": fig_layout, **({"frames": frames} if frames else {})}
    return ReadyFigure(spec) if VALIDATE else SentFigure(_plain_json(spec))


def step_trace(offsets, rows, name: str, hovertemplate: str) -> dict:
    """A step line (table row vs offset): each offset keeps its row until the next one. Markers while they fit."""
    x, y = as_f32(offsets), as_f32(rows)
    return {
        "type": "scatter",
        "x": x,
        "y": y,
        "mode": "lines+markers" if len(x) <= 257 else "lines",
        "line": {"shape": "hv"},
        "name": name,
        "hovertemplate": hovertemplate,
    }


def as_f32(values) -> np.ndarray:
    """A float32 numpy copy of a tensor or array: what Plotly sends compactly."""
    if hasattr(values, "detach"):
        values = values.detach().cpu().numpy()
    return np.asarray(values, dtype=np.float32)


@dataclass(frozen=True)
class Reduced:
    """A table shrunk to fit a screen: ``values`` [r, c], the original index of each kept row/column, and a note."""

    values: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    note: str | None


def reduce_for_screen(table, note_template: str, max_cells: int = MAX_HEATMAP_CELLS) -> Reduced:
    """Shrink a [R, C] table to at most ``max_cells`` by averaging k×k blocks (an honest aggregate, no aliasing).

    Taking every k-th row would alias the fastest sinusoids into moiré; a block mean shows what is there on
    average, and the note says so. ``note_template`` is the translated note, with {row_step}, {col_step}, {rows}
    and {cols} to fill in. Small tables come back unchanged with ``note=None``. Edge blocks are averaged over the
    cells they really have (block sums over zero padding, divided by the true block sizes).
    """
    values = as_f32(table)
    n_rows, n_cols = values.shape
    if n_rows * n_cols <= max_cells:
        return Reduced(values, np.arange(n_rows), np.arange(n_cols), None)
    factor = math.ceil(math.sqrt(n_rows * n_cols / max_cells))
    row_step, col_step = min(factor, n_rows), min(factor, n_cols)
    while (math.ceil(n_rows / row_step) * math.ceil(n_cols / col_step)) > max_cells:
        row_step, col_step = min(row_step + 1, n_rows), min(col_step + 1, n_cols)
    padded_rows, padded_cols = math.ceil(n_rows / row_step) * row_step, math.ceil(n_cols / col_step) * col_step
    padded = values
    if (padded_rows, padded_cols) != (n_rows, n_cols):
        padded = np.zeros((padded_rows, padded_cols), dtype=np.float32)
        padded[:n_rows, :n_cols] = values
    blocks = padded.reshape(padded_rows // row_step, row_step, padded_cols // col_step, col_step)
    rows, cols = np.arange(0, n_rows, row_step), np.arange(0, n_cols, col_step)
    counts = np.minimum(row_step, n_rows - rows)[:, None] * np.minimum(col_step, n_cols - cols)[None, :]
    averaged = (blocks.sum(axis=(1, 3)) / counts.astype(np.float32)).astype(np.float32)
    note = note_template.format(row_step=row_step, col_step=col_step, rows=n_rows, cols=n_cols)
    return Reduced(averaged, rows, cols, note)
