"""The "show the code" expander: the exact posenc source behind a picture."""

from __future__ import annotations

import inspect
from collections.abc import Callable

import streamlit as st


def show_code(*functions: Callable, label: str = "Show the code") -> None:
    """An expander with the source of each function, as it runs in this app."""
    with st.expander(label, icon=":material/code:"):
        for function in functions:
            st.caption(f"`{function.__module__}.{function.__qualname__}`")
            st.code(inspect.getsource(function), language="python")
