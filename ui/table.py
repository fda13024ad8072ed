"""Draw a :class:`figures.table.Table` as an accessible HTML table in the page (``st.markdown``), not ``st.table``.

``st.table`` converts what it is given with pandas and pyarrow, which then stay in the process: about 70 MB of each
replica's memory. Here every cell is escaped text, the header row is ``<th scope="col">`` and a row's name (when the
table has them) ``<th scope="row">``; the cells wrap to the column, a column of numbers is aligned right, and a
table too wide for a phone scrolls sideways inside its own box (the style is ui/fit.py's, once per tab:
``.posenc-table``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import streamlit as st

from figures.table import Table

NUMBER = re.compile(r"[−+-]?\d[\d.,\s]*")  # 1,000,000 · 1 000 000 (zh) · −5.8 · 0.0000: a column of these aligns right


def _cell(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")  # one line of HTML: a blank line would end Markdown's HTML block


def _numeric_columns(data: Table) -> set[int]:
    """The columns (past a row-name column) whose every cell is a number."""
    first = 1 if data.row_headers else 0
    return {k for k in range(first, len(data.columns))
            if data.rows and all(NUMBER.fullmatch(row[k]) for row in data.rows)}  # fmt: skip


def table_html(
    data: Table, label: str | None = None, height: int | None = None, lines: str = "grid", langs: Sequence = ()
) -> str:
    """The table as one line of HTML in a box of its own (focusable, so a keyboard can scroll it). ``height``: the
    box's height in px (it scrolls); ``lines``: "grid" or "horizontal" (between rows only); ``langs``: the language
    of each column (its header and cells) where it is not the page's (a screen reader reads them in it, Korean
    wraps between words), None for the page's."""
    numeric = _numeric_columns(data)
    langs = [f' lang="{html.escape(lang)}"' if lang else "" for lang in [*langs, *[None] * len(data.columns)]]
    langs = langs[: len(data.columns)]
    attrs = [lang + (' class="num"' if k in numeric else "") for k, lang in enumerate(langs)]
    head = "".join(f'<th scope="col"{lang}>{_cell(column)}</th>' if column else "<td></td>"
                   for lang, column in zip(langs, data.columns, strict=True))  # fmt: skip
    rows = []
    for row in data.rows:
        cells = [f"<td{attr}>{_cell(cell)}</td>" for attr, cell in zip(attrs, row, strict=True)]
        if data.row_headers and row:
            cells[0] = f'<th scope="row"{attrs[0]}>{_cell(row[0])}</th>'
        rows.append(f"<tr>{''.join(cells)}</tr>")
    named = f' role="region" aria-label="{html.escape(label)}"' if label else ""
    style = f' style="max-height: {int(height)}px"' if height else ""
    return (
        f'<div class="posenc-table {lines}" tabindex="0"{named}{style}><table><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def table(
    data: Table, label: str | None = None, height: int | None = None, lines: str = "grid", langs: Sequence = ()
) -> None:
    """Draw ``data`` in the page (:func:`table_html`); ``label`` names its box for a screen reader."""
    st.markdown(table_html(data, label, height, lines, langs), unsafe_allow_html=True)
