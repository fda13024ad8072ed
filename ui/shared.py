"""The shared controls (base, dim, length, heads): one value per session, kept across pages and mirrored in the URL.

A page calls ``use_shared_controls("base", "dim")`` first and gets the current values back. Values live in plain
session-state keys (``shared_dim`` …), not in widget keys, so they survive pages that do not draw the widget; the
sidebar widget is seeded from that value and writes back through ``on_change``. On a session's first run the URL's
values are validated by :mod:`ui.query` (clamped, snapped, or replaced by the default, with a notice). After every
run the URL shows the current values, so a teacher can share the exact view. Because each page sets this up itself,
a page also runs on its own (``AppTest.from_file("pages/x.py")``).
"""

from __future__ import annotations

from collections.abc import Iterable

import streamlit as st

from ui.checkpoint import progress_line
from ui.language import NOTICES, current_language, init_language, language_switcher, t
from ui.limits import LIMITS, SHARED_NAMES, shared_default
from ui.presenter import init_presenter, mirror_presenter_in_url, presenter_toggle, presenter_view
from ui.query import parse_shared_params


def _store(name: str) -> str:
    return f"shared_{name}"


def _widget(name: str) -> str:
    return f"shared_{name}_widget"


def init_shared_state() -> None:
    """On a session's first run, seed every shared value from the URL (validated) or its default."""
    missing = [name for name in SHARED_NAMES if _store(name) not in st.session_state]
    if not missing:
        return
    in_url = {name: st.query_params.get_all(name) for name in SHARED_NAMES if name in st.query_params}
    values, notices = parse_shared_params(in_url)
    for name in missing:
        st.session_state[_store(name)] = values.get(name, shared_default(name))
    st.session_state.setdefault(NOTICES, []).extend(notices)


def shared_value(name: str) -> float | int:
    """Current value of a shared control; its default when the page runs outside the app."""
    return st.session_state.get(_store(name), shared_default(name))


def shared_controls(names: Iterable[str]) -> None:
    """Draw the sidebar widgets for ``names``, each seeded from and writing back to its shared value."""
    for name in names:
        st.session_state[_widget(name)] = shared_value(name)
        label, help_text = t(f"shared.{name}_label"), t(f"shared.{name}_help")
        common = {"key": _widget(name), "help": help_text, "on_change": _commit, "args": (name,)}
        if name == "base":
            st.sidebar.select_slider(label, options=LIMITS.base_options, format_func=lambda v: f"{v:,.0f}", **common)
        else:
            low, high = getattr(LIMITS, f"{name}_min"), getattr(LIMITS, f"{name}_max")
            step = LIMITS.dim_step if name == "dim" else 1
            st.sidebar.slider(label, min_value=low, max_value=high, step=step, **common)


def use_shared_controls(*names: str) -> dict[str, float | int]:
    """Set up the shared state, draw the language switcher, the sidebar controls ``names``, the presenter toggle and
    the checkpoints answered, mirror the URL; in presenter mode, show the settings ``names`` at the top.

    Returns every shared value.
    """
    init_language()
    init_shared_state()
    init_presenter()
    language_switcher()
    shared_controls(names)
    presenter_toggle()
    progress_line()
    mirror_in_url()
    show_url_notices()
    values = {name: shared_value(name) for name in SHARED_NAMES}
    presenter_view(names, values)
    return values


def set_shared_values(raw: dict) -> bool:
    """Store shared values sent by the browser (a live chart's settled sliders), validated as a link's are: a value
    that is out of range, malformed or not on the grid is corrected or dropped, never stored as sent. Returns
    whether a stored value changed."""
    in_url = {name: [str(raw[name])] for name in SHARED_NAMES if name in raw}
    values, _ = parse_shared_params(in_url)
    changed = False
    for name, value in values.items():
        changed |= st.session_state.get(_store(name)) != value
        st.session_state[_store(name)] = value
    return changed


def _commit(name: str) -> None:
    st.session_state[_store(name)] = st.session_state[_widget(name)]


def mirror_in_url() -> None:
    """Write every shared value, the language and presenter mode into the query string (only what changed: fewer
    messages)."""
    wanted = {"lang": current_language()}
    for name in SHARED_NAMES:
        value = shared_value(name)
        wanted[name] = str(int(value)) if float(value).is_integer() else str(value)
    for name, text in wanted.items():
        if st.query_params.get(name) != text:
            st.query_params[name] = text
    mirror_presenter_in_url()


def show_url_notices() -> None:
    """Show, once, what was corrected in the link the session was opened with, in the student's language."""
    for key, params in st.session_state.pop(NOTICES, []):
        st.warning(t(key, **params), icon=":material/link_off:")
