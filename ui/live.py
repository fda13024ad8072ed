"""Live charts: a picture that follows its sliders while they are dragged, drawn in the browser (``static/live.js``).

The server sends, once per settled value, the chart's words and settings (``charts/``); the browser computes the
picture at any slider value with twins of ``posenc``'s functions (``static/twins.js``, parity-tested), or, for a
``slices`` view (:func:`sliced`), picks among the arrays ``posenc`` computed along each slider's range, so nothing is
sent while a slider moves. When the student lets go, the settled values come back once, as the
component's ``settled`` trigger; :func:`live_chart` stores them (the shared controls, the URL). The script is
served once from Streamlit's static folder (``server.enableStaticServing``); the component's own inline code is
only the loader below.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Sequence

import numpy as np
import streamlit as st

from ui.component_data import forget_kept, kept_parts, packed_data
from ui.i18n import text
from ui.limits import LIMITS, SHARED_NAMES
from ui.static_files import STATIC_VERSION

LOADER_JS = """
export default function (component) {
  // static/live.js, served once by Streamlit's static file serving, relative to this page (any baseUrlPath); its
  // URL carries the release's version, so a browser never runs an old live.js against a new server
  const script = new URL("app/static/live.js?v=STATIC_VERSION", window.location.href.replace(/[^/]*$/, ""));
  import(script.href).then((live) => live.render(component));
}
""".replace("STATIC_VERSION", STATIC_VERSION)

CSS = """
.live { font-family: var(--st-font, sans-serif); color: var(--st-text-color, #31333f); }
.controls { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; margin-bottom: 0.25rem; }
.controls label { display: flex; align-items: center; gap: 0.5rem; font-size: 0.95rem; flex: 0 1 22rem; }
.controls label { white-space: nowrap; }  /* "base (밑)" on one line; the input gives way */
.controls input { flex: 1 1 8rem; min-width: 6rem; accent-color: var(--st-primary-color, #d6336c); }
.controls input { touch-action: pan-y; }  /* a vertical swipe still scrolls the page on a phone */
.controls output { min-width: 4.5rem; font-variant-numeric: tabular-nums; font-weight: 600; }
.controls button.play { font: inherit; padding: 0.2rem 0.7rem; border: 1px solid currentColor; border-radius: 0.4rem;
                        background: transparent; color: inherit; cursor: pointer; }
.panels { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; }
.figure { position: relative; flex: 1 1 22rem; min-width: 0; }
.figure canvas { display: block; }
.figure svg { position: absolute; left: 0; top: 0; font-size: 12px; fill: currentColor; pointer-events: none; }
.figure svg .title { font-size: 15px; }
.legend { display: flex; flex-wrap: wrap; gap: 0.2rem 1rem; font-size: 0.85rem; margin: 0 0 0.25rem 64px; }
.legend i { display: inline-block; width: 1.2rem; height: 0.2rem; margin: 0 0.35rem 0.2rem 0; vertical-align: middle; }
.legend i.dash { background-image: linear-gradient(90deg, transparent 50%, var(--st-background-color, #fff) 50%);
                 background-size: 0.5rem 100%; }
.readouts { margin: 0.1rem 0 0.25rem; font-variant-numeric: tabular-nums; min-height: 1.2em; }
.readouts.warning { color: var(--st-red-color, #bd4043); font-weight: 600; }
.hint { font-size: 0.85rem; opacity: 0.75; margin: 0; }
"""

_LIVE = st.components.v2.component("posenc_lab_live", js=LOADER_JS, css=CSS)
EVERY_RUN = ("server", "follows")  # what a live chart is sent on every run: where its sliders stand, what it follows


# The dims a live dim slider moves over (the current dim is added): d/2 frequencies or curves each, so every even
# dim from 2 to 1024 would be 131 072 numbers per settled value; these are 1 788 and still show the picture change.
LIVE_DIMS = (2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024)


def live_dims(dim: int) -> list[int]:
    """The live dim slider's values: :data:`LIVE_DIMS` and the current ``dim``."""
    return sorted({*LIVE_DIMS, dim})


def shared_sliders(lang: str, **server: float) -> dict:
    """The live sliders of the shared controls in ``server`` (name -> the value the server drew) of a chart the
    browser computes at any value: each one's grid or range, its label in ``lang``, and where the server's values
    sit. Base moves over the shared base grid, dim and length over their whole ranges, as the sidebar's do, so the
    chart holds any value the sidebar commits and need not be drawn again for it."""
    grids = {
        "base": lambda: {"values": list(LIMITS.base_options)},
        "dim": lambda: {"min": LIMITS.dim_min, "max": LIMITS.dim_max, "step": LIMITS.dim_step},
        "length": lambda: {"min": LIMITS.length_min, "max": LIMITS.length_max, "step": 1},
    }
    labels = {name: text(lang, f"shared.{name}_label") for name in server}
    return {
        "server": server,
        "controls": {name: grids[name]() for name in server},
        "words": labels | {"hint": text(lang, "common.live_hint")},
    }


def spread_evenly(low: int, high: int, count: int) -> np.ndarray:
    """The whole numbers low … high a curve is drawn at (send what is drawn): every one when there are at most
    ``count``, else ``count`` of them spread evenly, both ends included. Returns: [≤ count] int64, increasing."""
    if high - low + 1 <= count:
        return np.arange(low, high + 1)
    return np.unique(np.rint(np.linspace(low, high, count)).astype(np.int64))


def sliced(
    grids: dict[str, Sequence],
    server: dict,
    picture: Callable[..., dict[str, np.ndarray]],
    dtype: str = "f4",
    fixed: dict[str, np.ndarray] | None = None,
) -> dict:
    """A live chart's data for the ``slices`` view: for each control, ``picture(**values)`` (named arrays) at every
    value of its grid with the other controls at the server's values; the browser picks the moved control's row.

    ``grids``: control name -> the values its slider moves over (the server's value is added). Arrays whose length
    changes along a grid are padded with NaN and their lengths sent; one that is the same all along a grid (an
    axis) is sent once, its width {"same": length}. Returns the ``controls``, ``server``,
    ``keys``, ``arrays`` ("key@control": [grid, width]) and ``widths`` entries of the chart's data.
    ``fixed``: arrays that are the same at every value of every control (an axis), sent once as arrays[key] and
    listed in ``fixed``; the browser adds them to every picture it picks.
    """
    controls, arrays, widths, keys = {}, {}, {}, []
    for name, grid in grids.items():
        values = sorted({*grid, server[name]})
        pictures = [picture(**(server | {name: value})) for value in values]
        keys = list(pictures[0])
        for key in keys:
            rows = [np.asarray(one[key], dtype=np.float64).ravel() for one in pictures]
            if all(np.array_equal(row, rows[0], equal_nan=True) for row in rows):  # e.g. an axis: sent once
                arrays[f"{key}@{name}"], widths[f"{key}@{name}"] = typed(rows[0], dtype), {"same": len(rows[0])}
                continue
            lengths = [len(row) for row in rows]
            table = np.full((len(rows), max(lengths)), np.nan)
            for k, row in enumerate(rows):
                table[k, : len(row)] = row
            arrays[f"{key}@{name}"] = typed(table, dtype)
            widths[f"{key}@{name}"] = lengths if len(set(lengths)) > 1 else lengths[0]
        controls[name] = {"values": values}
    data = {"view": "slices", "controls": controls, "server": server, "keys": keys, "arrays": arrays, "widths": widths}
    if fixed:
        arrays |= {key: typed(values, dtype) for key, values in fixed.items()}
        data["fixed"] = list(fixed)
    return data


def _on_grid(value, grid: Sequence) -> bool:
    """Whether a value the browser sent is a number on a slider's grid (not a string, a bool or a list)."""
    return type(value) in (int, float) and value in grid


def settled_values(key: str, defaults: dict) -> dict:
    """The values a live chart's own sliders were last let go at (``defaults`` before the first release)."""
    return defaults | st.session_state.get(f"{key}__values", {})


def typed(values, dtype: str = "f8") -> dict:
    """A float array, flattened, as Plotly's typed-array spec {dtype, bdata}: float64 ("f8") or float32 ("f4"),
    its bytes in base64 (little-endian, as numpy holds them here and as JavaScript's typed arrays read them)."""
    array = np.ascontiguousarray(values, dtype=np.float64 if dtype == "f8" else np.float32).ravel()
    return {"dtype": dtype, "bdata": base64.b64encode(array).decode("ascii")}


def live_chart(data: dict, key: str, shared: bool = False, on_settled: Callable[[dict], object] | None = None) -> None:
    """Mount one live chart. When the student lets go of one of its sliders, before the rest of the script runs:
    the values of its own sliders that lie on their grids are kept (:func:`settled_values` reads them). ``shared``:
    its sliders named after shared controls (base, dim, length, heads) are those controls: they follow the sidebar's
    in the browser, and a release commits them as the sidebar's does (``ui.shared.follow_commit``: the URL, and a
    rerun of what uses them), not only this chart's fragment. ``on_settled(values)``: anything else a release
    changes (e.g. another chart's sliders), called first."""
    from ui.shared import follow_commit, set_shared_values  # ui.shared's sidebar lives beside these charts

    grids = {name: spec["values"] for name, spec in data["controls"].items() if "values" in spec}

    def settled() -> None:
        values = (st.session_state.get(key) or {}).get("settled")
        if not isinstance(values, dict):
            return
        own = {name: values[name] for name, grid in grids.items() if _on_grid(values.get(name), grid)}
        st.session_state[f"{key}__values"] = st.session_state.get(f"{key}__values", {}) | own
        if on_settled is not None:
            on_settled(values)
        if shared and (changed := set_shared_values(values)):
            follow_commit(changed, near=values.get("near"))  # the sections near the viewport (static/live.js)

    if shared:  # its shared controls follow the sidebar's in the browser (static/store.js)
        data = data | {"shared": [name for name in data["controls"] if name in SHARED_NAMES]}
    # a fragment's rerun sends a chart whose arrays, grids and words are unchanged only where its sliders stand
    _LIVE(data=packed_data(kept_parts(data, key, EVERY_RUN)), key=key, on_settled_change=settled,
          on_missing_change=lambda: forget_kept(key))  # fmt: skip
