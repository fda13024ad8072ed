"""A table as the pages show it: column headers and rows of text, every cell already formatted.

The builders in ``charts/`` and ``figures/`` return a :class:`Table`; ``ui.table.table`` draws it as an HTML table.
No pandas: importing it (with pyarrow) would take about 70 MB of every replica's memory for a handful of small
tables. A table whose rows are named by their first cell (``row_headers``) draws that cell as the row's header.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Table:
    """``columns``: the header of each column; ``rows``: each row's cells, one per column (text as shown).
    ``row_headers``: the first cell of each row names it (its column's header names what the rows are)."""

    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    row_headers: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "columns", tuple(str(column) for column in self.columns))
        object.__setattr__(self, "rows", tuple(tuple(str(cell) for cell in row) for row in self.rows))
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"a row of {len(row)} cells in a table of {len(self.columns)} columns: {row}")

    @classmethod
    def of(cls, columns: Iterable, rows: Iterable[Iterable], row_headers: bool = False) -> Table:
        """A table from any iterables (cells turned to text with ``str``)."""
        return cls(tuple(columns), tuple(tuple(row) for row in rows), row_headers)

    @classmethod
    def of_records(cls, records: Sequence[dict], row_headers: bool = False) -> Table:
        """A table with one row per record (a dict: column header -> cell), columns in the first record's order."""
        columns = tuple(records[0]) if records else ()
        return cls.of(columns, ([record[column] for column in columns] for record in records), row_headers)

    def transposed(self, corner: str = "") -> Table:
        """The table turned: one row per column of this one after the first (its header names the row), one column
        per row of this one (named by the row's first cell); ``corner`` heads the column of row names."""
        columns = (corner, *(row[0] for row in self.rows))
        rows = ((self.columns[k], *(row[k] for row in self.rows)) for k in range(1, len(self.columns)))
        return Table.of(columns, rows, row_headers=True)

    def select(self, indices: Sequence[int], row_headers: bool | None = None) -> Table:
        """The table's columns at ``indices``, in that order (the rows' headers kept unless told)."""
        rows = (tuple(row[k] for k in indices) for row in self.rows)
        keep = self.row_headers if row_headers is None else row_headers
        return Table.of((self.columns[k] for k in indices), rows, keep)
