"""A page's sections as keyed fragments, so a shared-control commit reruns only the sections that use what changed.

``@section("sin_waves", uses=("dim", "base"))`` makes a page function an ``st.fragment`` with that key and records
which shared values it reads. When the browser commits new shared values (the sidebar's release, a live chart's
release: ``ui.shared``), :func:`rerun_sections` reruns, in one pass, the sidebar and the sections whose ``uses``
changed, not the page. A fragment rerun calls the function with the arguments of the page's last full run, so the
wrapper replaces every argument named in ``uses`` by the shared value as it is now.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable

import streamlit as st

_USES = "sections_uses"  # section key -> the shared values it reads, for the page now shown
SIDEBAR_KEY = "shared_sidebar"  # the sidebar's controls and the settings caption: rerun with every commit


def forget_sections() -> None:
    """Forget the sections drawn before: called at the top of every full run, which draws them all again."""
    st.session_state[_USES] = {}


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
            return function(*bound.args, **bound.kwargs)

        return run

    return decorate


def sections_using(changed: Iterable[str]) -> list[str]:
    """Keys of the current page's sections that read any of ``changed``, in the order they were drawn."""
    changed = set(changed)
    return [key for key, uses in st.session_state.get(_USES, {}).items() if changed & set(uses)]


def rerun_sections(changed: Iterable[str], also: Iterable[str] = ()) -> None:
    """From a callback: rerun the sidebar, the sections that read ``changed`` and the fragments keyed ``also``,
    instead of the page."""
    st.rerun([SIDEBAR_KEY, *sections_using(changed), *also])
