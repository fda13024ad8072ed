"""The toy transformer's budget: one answer with its attention maps, as the page makes it for a typed expression."""

from __future__ import annotations

import statistics
import time

from bench.budgets import TOY_ANSWER_MS, Row
from charts.toy_model import grid_figure
from posenc.toy.model import answer, shipped_checkpoint

WHAT = "toy: one answer with its attention maps"
# Distinct expressions (each one is a fresh answer, as when a student types a new one), all within the model's range.
EXPRESSIONS = tuple(f"{a}+{b}=" for a, b in zip(range(101, 999, 37), range(998, 100, -41), strict=False))


def toy_rows(count: int, pe: str = "rope") -> list[Row]:
    """Median time of one answer (greedy decoding) with its encoder attention grid, the page's default view, over
    ``count`` distinct expressions (one untimed first)."""
    try:
        model = shipped_checkpoint(pe)
    except (OSError, ValueError) as err:
        return [Row(WHAT, float("nan"), "ms", None, f"skipped: {err}")]
    times = []
    for number, expression in enumerate(EXPRESSIONS[: count + 1]):
        started = time.perf_counter()
        grid_figure(answer(model, expression), "en", pe, "encoder_self")
        if number:
            times.append((time.perf_counter() - started) * 1000.0)
    note = f"{pe} model, {len(times)} distinct expressions: answer (greedy decoding) + encoder attention grid"
    return [Row(WHAT, statistics.median(times), "ms", TOY_ANSWER_MS, note)]
