"""The "show the code" expander: the exact posenc source behind a picture, in the form that reads like its formula.

Where the app computes a large picture with a faster form (``posenc.fast``), the expander still shows the textbook
function: the fast one is tested equal to it (``tests/test_fast.py``)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections.abc import Callable, Iterator
from types import ModuleType

import streamlit as st

from ui.language import t
from ui.once import computed_once
from ui.sections import in_section


def show_code(*functions: Callable, label: str | None = None) -> None:
    """An expander with the source of each function, as written in this app, in one code block (each function
    headed by its full name): one element however many functions, since every element is re-sent on a rerun.

    The code block is drawn only while the expander is open: a closed one sends no code, so a first visit does not
    download the browser's code highlighter (0.5 MB compressed) for code nobody opened. Opening it reruns the
    section it is in (``ui.sections``), else only a fragment of its own: a fragment copies Streamlit's container
    stack on every call, and sections draw four or five of these on every rerun."""
    label = t("common.show_code") if label is None else label
    if in_section():
        _expander(functions, label)
    else:
        _code_expander(functions, label)


def code_key(functions: tuple[Callable, ...]) -> str:
    """The expander's widget key: its open state lives in the session under it (tests open it by this key)."""
    return "show_code:" + ",".join(f"{function.__module__}.{function.__qualname__}" for function in functions)


def _expander(functions: tuple[Callable, ...], label: str) -> None:
    with st.expander(label, icon=":material/code:", key=code_key(functions), on_change="rerun") as box:
        if box.open:
            st.code("\n\n".join(map(source_of, functions)), language="python")


_code_expander = st.fragment(_expander)  # outside a section: opening it reruns only itself


@computed_once
def source_of(function: Callable) -> str:
    """``function``'s source headed by its full name, read from disk once per process (``inspect.getsource`` costs
    milliseconds, and for a class it parses the module with ``ast``, which two threads must not do at once)."""
    return f"# {function.__module__}.{function.__qualname__}\n{inspect.getsource(function)}"


def read_sources(package: ModuleType) -> int:
    """Read the source of every function, class and method defined in ``package`` and its modules, before any
    session asks for one (the server's warm-up); returns how many."""
    shown = list(_defined_in(package))
    for function in shown:
        source_of(function)
    return len(shown)


def _defined_in(package: ModuleType) -> Iterator[Callable]:
    """Every function and class defined in ``package``'s modules, and each class's methods written in its file."""
    names = [package.__name__] + [info.name for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")]
    for module in map(importlib.import_module, names):
        for value in vars(module).values():
            if not callable(value) or getattr(value, "__module__", None) != module.__name__:
                continue
            yield value
            if inspect.isclass(value):  # not the methods a dataclass generates: they have no source
                written = [f for f in vars(value).values() if inspect.isfunction(f)]
                yield from (f for f in written if f.__code__.co_filename == module.__file__)
