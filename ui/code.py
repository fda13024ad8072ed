"""The "show the code" expander: the exact posenc source behind a picture."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable

import streamlit as st

from ui.language import t


def show_code(*functions: Callable, label: str | None = None) -> None:
    """An expander with the source of each function, as it runs in this app."""
    with st.expander(t("common.show_code") if label is None else label, icon=":material/code:"):
        for function in functions:
            st.caption(f"`{function.__module__}.{function.__qualname__}`")
            st.code(_source(function), language="python")


@functools.cache
def _source(function: Callable) -> str:
    """The function's source, read from disk once per process (inspect.getsource costs milliseconds)."""
    return inspect.getsource(function)
