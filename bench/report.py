"""Print the rows as an aligned text table (and a markdown one for the README)."""

from __future__ import annotations

from collections.abc import Sequence

from bench.budgets import Row


def _number(value: float) -> str:
    return f"{value:,.1f}" if abs(value) < 1000 else f"{value:,.0f}"


def _cells(row: Row) -> list[str]:
    limit = "—" if row.limit is None else f"≤ {_number(row.limit)}"
    return [row.what, _number(row.value), row.unit, limit, row.verdict, row.note]


HEADER = ["measured", "value", "unit", "budget", "result", "note"]


def text_table(rows: Sequence[Row]) -> str:
    """Columns padded to their widest cell; numbers right-aligned."""
    table = [HEADER, *(_cells(row) for row in rows)]
    widths = [max(len(line[i]) for line in table) for i in range(len(HEADER))]
    lines = []
    for number, line in enumerate(table):
        pairs = enumerate(zip(line, widths, strict=True))
        cells = [cell.rjust(width) if i in (1, 3) else cell.ljust(width) for i, (cell, width) in pairs]
        lines.append("  ".join(cells).rstrip())
        if number == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def markdown_table(rows: Sequence[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + " --- |" * len(HEADER)]
    lines += ["| " + " | ".join(_cells(row)) + " |" for row in rows]
    return "\n".join(lines)


def failures(rows: Sequence[Row]) -> list[Row]:
    return [row for row in rows if row.verdict == "FAIL"]
