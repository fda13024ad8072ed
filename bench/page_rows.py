"""Turn the AppTest measurements of every page into report rows (rerun time and figure bytes vs budgets)."""

from __future__ import annotations

import statistics

from bench.budgets import FIGURE_KB_DEFAULT, FIGURE_KB_MAX, RERUN_MS_DEFAULT, RERUN_MS_MAX, Row
from bench.page_cases import CASES, PageCase
from bench.reruns import PageUnavailable, page_results


def rows_for_page(case: PageCase, largest: bool, quick: bool, count: int) -> list[Row]:
    size = "max sizes" if largest else "default sizes"
    name = case.path.removeprefix("pages/").removesuffix(".py")
    try:
        results = page_results(case, largest, quick, count)
    except PageUnavailable as reason:
        return [Row(f"rerun {name} ({size})", float("nan"), "ms", None, f"skipped: {reason}")]
    every = [t for result in results for t in result.times_ms]
    slowest = max(results, key=lambda r: r.median_ms)
    moved = f"{len(every)} reruns over {len(results)} widget(s)"
    return [
        Row(
            f"rerun {name} ({size})",
            statistics.median(every),
            "ms",
            RERUN_MS_MAX if largest else RERUN_MS_DEFAULT,
            f"{moved}; slowest widget {slowest.key}: {slowest.median_ms:.0f} ms",
        ),
        Row(
            f"figures {name} ({size})",
            max(result.max_kb for result in results),
            "kB",
            FIGURE_KB_MAX if largest else FIGURE_KB_DEFAULT,
            "largest rerun",
        ),
    ]


def page_rows(quick: bool, count: int, only: str | None = None) -> list[Row]:
    """Rows for every page (or those whose path contains ``only``), default sizes first, then the largest."""
    cases = [case for case in CASES if only is None or only in case.path]
    return [row for largest in (False, True) for case in cases for row in rows_for_page(case, largest, quick, count)]
