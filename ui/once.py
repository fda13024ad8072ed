"""``@computed_once``: ``functools.cache`` for work that many sessions may ask for at the same moment. No Streamlit.

Streamlit runs every session's script in a thread of one process, so a per-process lazy value (a catalog, the
source text "show the code" prints) is reached by several threads at once on a fresh server. ``functools.cache``
lets each of them compute the same entry side by side; for work that is not thread-safe (CPython 3.11's ``ast``,
which ``inspect.getsource`` drives for a class, raised ``SystemError: AST constructor recursion depth mismatch``
under a class of 100) that is a crash, not only wasted time. Here one lock per function makes the first caller
compute an entry while the others wait for it, and every later call is a dictionary lookup without the lock.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")


def computed_once(function: Callable[..., T]) -> Callable[..., T]:
    """Memoise ``function`` by its positional arguments; each entry is computed exactly once, by one thread."""
    values: dict[tuple[Hashable, ...], T] = {}
    lock = threading.Lock()

    @functools.wraps(function)
    def once(*args: Hashable) -> T:
        try:
            return values[args]  # a finished entry: no lock (dict reads are atomic)
        except KeyError:
            pass
        with lock:
            if args not in values:
                values[args] = function(*args)
            return values[args]

    once.cache_clear = values.clear  # as functools.cache offers, for tests
    return once
