"""A page's sections as keyed fragments, so a shared-control commit reruns only the sections that use what changed
and that the student can see.

``@section("sin_waves", uses=("dim", "base"))`` makes a page function an ``st.fragment`` with that key, drawn in a
container keyed ``section-sin_waves`` (the browser finds it by its class, ``st-key-section-sin_waves``), and records
which shared values it reads. When the browser commits new shared values (the sidebar's release, a live chart's
release: ``ui.shared``), it names the sections within a screen of the viewport (``static/sections.js``), and
:func:`rerun_sections` reruns, in one pass, the sidebar and those of them whose ``uses`` changed, not the page. The
others that use a changed value are noted as stale (:func:`stale_sections`, sent with the sidebar's data); the
browser asks for each when it comes within a screen of the viewport, and :func:`refresh_sections` reruns it then. A
picture that follows the store (``ui.figure``, ``ui.live``) is redrawn in the browser either way; what waits is the
server's part: checkpoints, notices, the pictures only the server draws. A commit that names no sections (a test,
the teacher's values taken by a following student) reruns every section that uses what changed.

A fragment rerun calls the function with the arguments of the page's last full run, so the wrapper replaces every
argument named in ``uses`` by the shared value as it is now.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable

import streamlit as st

_USES = "sections_uses"  # section key -> the shared values it reads, for the page now shown
_STALE = "sections_stale"  # keys of sections a commit changed the values of while they were out of sight
_BY_COMMIT = "sections_by_commit"  # keys of sections whose next run is a commit's (only shared values changed)
_NOW = "section_by_commit_now"  # the section running now is a commit's rerun (ui.figure keeps followed figures)
MAX_NAMED = 64  # a commit naming more sections than this (or anything but keys) is read as naming none
SIDEBAR_KEY = "shared_sidebar"  # the sidebar's controls and the settings caption: rerun with every commit


def forget_sections() -> None:
    """Forget the sections drawn before: called at the top of every full run, which draws them all again."""
    st.session_state[_USES] = {}
    st.session_state[_STALE] = set()
    st.session_state[_BY_COMMIT] = set()


def section(key: str, uses: Iterable[str] = ()) -> Callable:
    """Decorator: the function as a fragment keyed ``key`` that a commit of any of ``uses`` reruns."""
    uses = tuple(uses)

    def decorate(function: Callable) -> Callable:
        signature = inspect.signature(function)

        @st.fragment(key=key)
        @functools.wraps(function)
        def run(*args, **kwargs):
            from ui.shared import shared_value  # ui.shared imports this module

            bound = signature.bind(*args, **kwargs)
            for name in uses:
                if name in bound.arguments:
                    bound.arguments[name] = shared_value(name)
            st.session_state.setdefault(_USES, {})[key] = uses
            st.session_state.setdefault(_STALE, set()).discard(key)
            by_commit = key in st.session_state.get(_BY_COMMIT, set())
            st.session_state.get(_BY_COMMIT, set()).discard(key)
            st.session_state[_NOW] = by_commit
            try:
                with st.container(key=f"section-{key}"):  # the class st-key-section-<key> tells the browser where
                    return function(*bound.args, **bound.kwargs)
            finally:
                st.session_state[_NOW] = False

        return run

    return decorate


def commit_rerun() -> bool:
    """Whether the section running now was rerun by a commit of shared values (nothing else of it changed), so a
    figure the browser redraws from the store need not be built again (:func:`ui.figure.figure_chart`)."""
    return bool(st.session_state.get(_NOW))


def sections_using(changed: Iterable[str]) -> list[str]:
    """Keys of the current page's sections that read any of ``changed``, in the order they were drawn."""
    changed = set(changed)
    return [key for key, uses in st.session_state.get(_USES, {}).items() if changed & set(uses)]


def named_sections(raw) -> set[str] | None:
    """The section keys a browser named (a list of strings), or None when it named none or sent anything else."""
    if not isinstance(raw, list) or len(raw) > MAX_NAMED or not all(isinstance(key, str) for key in raw):
        return None
    return set(raw)


def stale_sections() -> list[str]:
    """Keys of the sections drawn with values a commit has since changed, in the order they were drawn."""
    stale = st.session_state.get(_STALE, set())
    return [key for key in st.session_state.get(_USES, {}) if key in stale]


def rerun_sections(changed: Iterable[str], also: Iterable[str] = (), near=None) -> None:
    """From a callback: rerun the sidebar, the sections that read ``changed`` and the fragments keyed ``also``,
    instead of the page. ``near``: the sections the browser has within a screen of its viewport (a list of keys,
    :func:`named_sections`); the others that read ``changed`` wait, stale, until the browser asks for them."""
    using = sections_using(changed)
    near = named_sections(near)
    if near is not None:
        st.session_state.setdefault(_STALE, set()).update(key for key in using if key not in near)
        using = [key for key in using if key in near]
    st.session_state.setdefault(_BY_COMMIT, set()).update(using)
    st.rerun([SIDEBAR_KEY, *using, *also])


def refresh_sections(raw) -> None:
    """From a callback: the browser has stale sections near its viewport again (a list of keys): rerun those that
    are stale, and the sidebar (its data lists what is still stale); a key that is not stale is ignored."""
    stale = st.session_state.setdefault(_STALE, set())
    asked = [key for key in dict.fromkeys(named_sections(raw) or ()) if key in stale]
    stale.difference_update(asked)  # before the sidebar's rerun, which lists what is still stale
    st.session_state.setdefault(_BY_COMMIT, set()).update(asked)
    st.rerun([SIDEBAR_KEY, *asked])
