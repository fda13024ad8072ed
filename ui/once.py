"""``@computed_once``: ``functools.cache`` for work that many sessions may ask for at the same moment. No Streamlit.

Streamlit runs every session's script in a thread of one process, so a per-process lazy value (a catalog, the
source text "show the code" prints) is reached by several threads at once on a fresh server. ``functools.cache``
lets each of them compute the same entry side by side; for work that is not thread-safe (CPython 3.11's ``ast``,
which ``inspect.getsource`` drives for a class, raised ``SystemError: AST constructor recursion depth mismatch``
under a class of 100) that is a crash, not only wasted time. Here one lock per function makes the first caller
compute an entry while the others wait for it, and every later call is a dictionary lookup without the lock.
It also serves the small pictures of a live chart's slices (``charts/``), bounded by ``maxsize``.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable, Hashable
from typing import TypeVar

T = TypeVar("T")
_CACHES: list[tuple[str, Callable[[], None]]] = []  # every memo made here: its function's module, its clear()


def computed_once(function: Callable[..., T] | None = None, *, maxsize: int | None = None):
    """Memoise ``function`` by its arguments; each entry is computed exactly once, by one thread.

    ``@computed_once`` keeps every entry; ``@computed_once(maxsize=n)`` keeps the ``n`` newest and drops the oldest
    when a new one is made (a cache that many small pictures go through stays bounded)."""
    if function is None:
        return functools.partial(computed_once, maxsize=maxsize)
    values: dict[tuple[Hashable, ...], T] = {}
    lock = threading.Lock()

    @functools.wraps(function)
    def once(*args: Hashable, **kwargs: Hashable) -> T:
        key = (*args, *sorted(kwargs.items())) if kwargs else args
        try:
            return values[key]  # a finished entry: no lock (dict reads are atomic)
        except KeyError:
            pass
        with lock:
            if key not in values:
                if maxsize is not None and len(values) >= maxsize:
                    del values[next(iter(values))]  # the oldest entry (dicts keep their insertion order)
                values[key] = function(*args, **kwargs)
            return values[key]

    once.cache_clear = values.clear  # as functools.cache offers, for tests
    _CACHES.append((function.__module__, values.clear))
    return once


def clear_computed(module_prefix: str) -> None:
    """Empty every memo of the functions defined in modules named ``module_prefix…`` (tests: one test's pictures
    never feed another, as Streamlit's caches cleared between tests)."""
    for module, clear in _CACHES:
        if module.startswith(module_prefix):
            clear()
