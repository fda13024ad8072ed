"""The "show the code" expander: the exact posenc source behind a picture."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

import streamlit as st

from ui.language import t


def show_code(*functions: Callable, label: str | None = None) -> None:
    """An expander with the source of each function, as it runs in this app, in one code block (each function
    headed by its full name): one element however many functions, since every element is re-sent on a rerun."""
    with st.expander(t("common.show_code") if label is None else label, icon=":material/code:"):
        st.code(_sources(functions), language="python")


@functools.cache
def _sources(functions: tuple[Callable, ...]) -> str:
    """The functions' sources, read from disk once per process (inspect.getsource costs milliseconds)."""
    return "\n\n".join(
        f"# {function.__module__}.{function.__qualname__}\n{inspect.getsource(function)}" for function in functions
    )
