"""Medians of repeated runs: one run is noise, the median of several is the figure we report."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable


def median_ms(function: Callable[[], object], repeats: int, warmup: int = 1) -> float:
    """Median wall time of ``function()`` in milliseconds over ``repeats`` runs, after ``warmup`` untimed runs."""
    for _ in range(warmup):
        function()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1000.0
