"""A figure built in Plotly's format (``figures/``) drawn in the browser by ``static/figure.js``, without Plotly.

``figure_chart(fig, key)`` stands where ``st.plotly_chart(fig, key=key)`` stood. The figure travels as the JSON
Plotly would send, its typed arrays' bytes packed after it (``ui.component_data.packed_data``); the browser draws its
heatmaps, lines, bars, axes, titles, annotations, legend and colour bar, reads out the value under the pointer from
each trace's hovertemplate, and saves the picture as a PNG. No page then renders ``st.plotly_chart``, so Streamlit
never downloads its 1.4 MB Plotly chunk.
A figure that depends on a shared value may name a browser view that redraws it while the sidebar's thumb moves; a
server figure that quotes one may be built by the commit instead of a rerun of its fragment (:func:`figure_part`).
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Callable, Iterable

import streamlit as st

from figures.common import ReadOnlyFigure, sendable, with_array_prints
from ui.component_data import packed_data
from ui.language import t
from ui.sections import fragment_rerun, keyed_part, note_part
from ui.static_files import STATIC_VERSION
from ui.words import note_computed, said_version

LOADER_JS = """
export default function (component) {
  // static/figure.js with the release's version (see ui/live.py's loader)
  const script = new URL("app/static/figure.js?v=STATIC_VERSION", window.location.href.replace(/[^/]*$/, ""));
  import(script.href).then((figure) => figure.render(component));
}
""".replace("STATIC_VERSION", STATIC_VERSION)

CSS = """
.figure-root { font-family: var(--st-font, sans-serif); color: var(--st-text-color, #31333f); position: relative; }
.plot { position: relative; touch-action: pan-y; }
.plot canvas { display: block; }
.plot svg { position: absolute; left: 0; top: 0; pointer-events: none; fill: currentColor; }
.plot svg text { fill: currentColor; }
.plot svg .title { font-weight: 600; }
.plot svg .title.sub { font-weight: 400; }
.plot svg .grid { stroke: currentColor; stroke-opacity: 0.12; }
.tip { position: absolute; pointer-events: none; background: var(--st-background-color, #fff); padding: 0.25rem 0.5rem;
       border: 1px solid currentColor; border-radius: 0.3rem; font-size: 0.85rem; white-space: nowrap;
       font-variant-numeric: tabular-nums; box-shadow: 0 1px 4px rgba(0, 0, 0, 0.15); z-index: 2; }
.tools { display: flex; justify-content: flex-end; }  /* under the picture: never over its title */
.save { font: inherit; font-size: 0.75rem; padding: 0.1rem 0.5rem; border: 1px solid currentColor;
        border-radius: 0.3rem; background: var(--st-background-color, #fff); color: inherit; opacity: 0.55;
        cursor: pointer; }
.save:hover, .save:focus-visible { opacity: 1; }
@media (pointer: coarse) { .save { min-height: 44px; min-width: 44px; } }
"""

_FIGURE = st.components.v2.component("posenc_lab_figure", js=LOADER_JS, css=CSS)


def figure_json(fig) -> dict:
    """The figure as Plotly sends it (arrays as base64 typed arrays): a built figure's own ``to_dict()``, made once
    and never changed (``figures.common.ReadOnlyFigure``); a figure given as a dict, in the same form."""
    return fig.to_dict() if isinstance(fig, ReadOnlyFigure) else sendable(fig)


_SENT = "figures_sent"  # key -> what the browser's server figure follows (its view and data), as JSON
_ARRAYS = "figure_arrays_sent"  # key -> the prints of the arrays the browser's figure was last sent


def forget_sent_figures() -> None:
    """At the top of every full run of a page: its figures are drawn anew, each sent whole."""
    st.session_state.pop(_SENT, None)
    st.session_state.pop(_ARRAYS, None)


def array_prints(figure: dict) -> set[str]:
    """The prints of the typed arrays of a printed figure's traces (figures.common.with_array_prints)."""

    def found(value: dict) -> set[str]:  # a typed array is always a dict's value
        if "print" in value:
            return {value["print"]}
        return set().union(*(found(item) for item in value.values() if isinstance(item, dict)))

    return set().union(*map(found, figure.get("data", [])))


def with_arrays_kept(figure: dict, held: set[str]) -> dict:
    """A printed figure with each array of its traces the browser holds (its print in ``held``, those it was last
    sent) sent as ``{"kept": print}``: a fragment's rerun that changes one panel of a grid sends that panel's arrays
    only, and a new colour range or title sends none (static/figure.js puts the held arrays back)."""

    def kept(value: dict) -> dict:  # a typed array is always a dict's value
        if value.get("print") in held:
            return {"kept": value["print"]}
        return {key: kept(item) if isinstance(item, dict) else item for key, item in value.items()}

    return {**figure, "data": [kept(trace) for trace in figure.get("data", [])]}


def said_key(key: str) -> str:
    """The key of figure ``key``'s pictures in the tab's store (static/store.js ``say``; words have theirs)."""
    return f"figure:{key}"


def _printed(fig) -> dict:
    """``fig`` (a figure, its dict, or a function that builds it) as sent, with its arrays' prints."""
    built = fig() if callable(fig) else fig
    return built.printed() if isinstance(built, ReadOnlyFigure) else with_array_prints(figure_json(built))


def _sent_figure(key: str, fig, keep_held: bool) -> dict:
    """``fig`` as the browser's figure ``key`` is sent it, and its arrays' prints noted as what that figure holds
    after it; ``keep_held``: each array it holds already goes as its print (:func:`with_arrays_kept`)."""
    figure = _printed(fig)
    arrays = st.session_state.setdefault(_ARRAYS, {})
    held = arrays.get(key) if keep_held else None
    arrays[key] = array_prints(figure)
    return with_arrays_kept(figure, held) if held else figure


def said_figure(key: str, fig) -> dict:
    """Figure ``key`` as a commit sends it with the sidebar's data (``said``, :func:`figure_part`): the element's data
    under a newer version, each array the browser's figure holds sent as its print (:func:`with_arrays_kept`); the
    browser's figure ``key`` draws the newest it has."""
    data = {"figure": _sent_figure(key, fig, keep_held=True), "words": {"save": t("common.save_png")}}
    return {"key": said_key(key), "version": said_version(), "data": data}


def figure_chart(fig, key: str, follow: dict | None = None, said: bool = False) -> None:
    """Draw ``fig`` (a ``go.Figure``, its dict, or a function that builds it) in the browser, as
    ``st.plotly_chart(fig, key=key)`` did.

    ``follow``: how the browser redraws the figure from the tab's store while a shared control's thumb moves:
    ``{"view": name, "follows": {shared name: the value fig is drawn at}, "data": JSON}``. The view,
    ``static/views/<name>.js``, exports ``view(data, values, figure)``: the figure (Plotly's format, as sent) at the
    store's values, computed with twins of posenc (``static/twins.js``), held to the figure the server builds at
    those values (tests/test_figure_follow.py). So when a fragment reruns (a commit of shared values, or a widget of
    its own: :func:`ui.sections.fragment_rerun`) and the browser has the server's figure for the same view and view
    data (so only the followed values may differ), the figure is not built again: only ``follow`` is sent
    (``keep``), and the view redraws from the figure the browser has. A browser without it asks with the trigger
    ``missing``, and the section's rerun sends it whole. A figure built again in a fragment's rerun sends only the
    arrays the browser does not hold (:func:`with_arrays_kept`). What was sent is forgotten at each full run of a page
    (:func:`forget_sent_figures`).

    ``said``: a commit computes this figure and sends it with the sidebar's data (:func:`figure_part`,
    :func:`said_figure`): its data carries ``said`` (its key in the tab's store and a version), and the browser draws
    the newest of the two."""
    sent = st.session_state.setdefault(_SENT, {})
    words = {"save": t("common.save_png")}
    drawn = json.dumps([follow["view"], follow["data"]], sort_keys=True) if follow is not None else None
    if drawn is not None and fragment_rerun() and sent.get(key) == drawn:
        data = {"keep": True, "follow": follow, "words": words}
    else:
        data = {"figure": _sent_figure(key, fig, keep_held=fragment_rerun()), "words": words}
        if follow is not None:
            data["follow"] = follow
        sent[key] = drawn
    if said:
        data["said"] = {"key": said_key(key), "version": said_version()}
    _FIGURE(data=packed_data(data), key=key, on_missing_change=lambda: _forget(key))


def _forget(key: str) -> None:
    """The browser's figure ``key`` has nothing to redraw from, or lacks a kept array: its next run sends it whole."""
    st.session_state.get(_SENT, {}).pop(key, None)
    st.session_state.get(_ARRAYS, {}).pop(key, None)


def _said(figures: dict) -> list[dict]:
    """A commit's entries for the sidebar's data: each figure, built at the values now."""
    return [said_figure(key, fig) for key, fig in figures.items()]


def figure_part(key: str, uses: Iterable[str] = ()) -> Callable:
    """Decorator: the figures ``function`` returns (``{figure key: figure}``, each as :func:`figure_chart` takes it),
    drawn in a fragment keyed ``key`` that a commit of ``uses`` does not rerun, as ui.words' words parts: the commit's
    callback builds the figures again, with the shared values as they are now and the function's other arguments as
    its last run had them (:func:`ui.words.compute_words`), and the sidebar's rerun sends them (``said``: each
    figure's data under a newer version, the arrays the browser holds as their prints: :func:`said_figure`). The
    browser's figure draws the newest it has, from its own run or a commit's (static/figure.js). A widget of the
    part's own section still reruns it."""
    uses = tuple(uses)

    def body(function: Callable, bound: inspect.BoundArguments) -> None:
        figures = function(*bound.args, **bound.kwargs)
        note_part(key, uses, computed=True)
        note_computed(key, function, bound.arguments, _said)
        for name, fig in figures.items():
            figure_chart(fig, key=name, said=True)

    return keyed_part(key, body)
