"""figures.table.Table and ui.table: the tables the pages draw as HTML (no pandas), read back with Python's own HTML
parser (tests/conftest.py's ``tables``), never with the code that wrote them."""

from __future__ import annotations

import pytest
from conftest import tables
from streamlit.testing.v1 import AppTest

from figures.table import Table
from ui.table import table_html

AWKWARD = ("a | b", "<script>alert(1)</script>", "2^−8 & 3 < 4", 'say "hi"', "R_{i−j}", "$x$ **not bold**", "")


def drawn(script, *args) -> AppTest:
    """An AppTest of ``script(*args)`` (a function that draws with ui.table) after one run."""
    return AppTest.from_function(script, args=args, default_timeout=30).run()


def test_every_cell_is_escaped_text_that_reads_back_the_same():
    data = Table.of(["name", "text <th>"], [[f"row {k}", cell] for k, cell in enumerate(AWKWARD)], row_headers=True)

    def script(cells):
        from figures.table import Table
        from ui.table import table

        table(Table.of(["name", "text <th>"], [[f"row {k}", cell] for k, cell in enumerate(cells)], True))

    at = drawn(script, AWKWARD)
    assert not at.exception
    (element,) = at.markdown
    assert element.proto.allow_html  # drawn as HTML, so every cell must be escaped
    assert "<script>" not in element.value and "&lt;script&gt;" in element.value and "text &lt;th&gt;" in element.value
    assert tables(at) == [data]  # the same header, cells and row names, as a browser's parser reads them


def test_header_cells_are_column_headers_and_row_names_row_headers():
    html = table_html(Table.of(["", "Meta", "HF"], [["0", "1.5", "2.5"], ["1", "-0.25", "3.0"]], row_headers=True))
    assert html.count('<th scope="col">') == 2 and "<thead><tr><td></td>" in html  # an empty corner is no header
    assert html.count('<th scope="row">') == 2 and '<th scope="row">0</th>' in html
    plain = table_html(Table.of(["a", "b"], [["x", "y"]]))
    assert 'scope="row"' not in plain and "<td>x</td><td>y</td>" in plain


def test_a_column_of_numbers_aligns_right_and_text_stays_left():
    rows = [["Llama 2", "10,000", "46 / 64", "−5.8"], ["Code Llama", "1 000 000", "37 / 64", "34.7"]]
    html = table_html(Table.of(["model", "base", "turned", "score"], rows, row_headers=True))
    assert '<td class="num">10,000</td>' in html and '<td class="num">1 000 000</td>' in html
    assert '<td class="num">−5.8</td>' in html and "<td>46 / 64</td>" in html  # "46 / 64" is not one number


def test_cells_in_another_language_say_so_and_the_box_can_be_named_and_limited():
    html = table_html(Table.of(["en", "ko"], [["layer", "층"]]), label="Terms & names", height=300, langs=[None, "ko"])
    assert '<th scope="col">en</th><th scope="col" lang="ko">ko</th>' in html  # a column's header is in its language
    assert '<td>layer</td><td lang="ko">층</td>' in html
    assert 'role="region" aria-label="Terms &amp; names"' in html and 'style="max-height: 300px"' in html
    assert html.startswith('<div class="posenc-table grid" tabindex="0"') and "\n" not in html  # one HTML block


def test_a_line_break_in_a_cell_stays_in_the_cell():
    html = table_html(Table.of(["a"], [["one\n\ntwo"]]))
    assert "\n" not in html and "one<br><br>two" in html  # a blank line would end Markdown's HTML block


def test_a_turned_table_has_one_row_per_column_and_one_column_per_row():
    records = [{"model": "A", "head": 128, "base": "10,000"}, {"model": "B", "head": 64, "base": "500"}]
    models = Table.of_records(records)
    assert models.columns == ("model", "head", "base") and models.rows == (("A", "128", "10,000"), ("B", "64", "500"))
    turned = models.transposed(corner="model")
    assert turned.columns == ("model", "A", "B") and turned.row_headers
    assert turned.rows == (("head", "128", "64"), ("base", "10,000", "500"))
    assert turned.transposed(corner="model").rows == models.rows  # turned twice: the same cells
    assert models.select([0, 2]).rows == (("A", "10,000"), ("B", "500"))


def test_a_row_of_the_wrong_length_is_refused():
    with pytest.raises(ValueError, match="a row of 1 cells in a table of 2 columns"):
        Table.of(["a", "b"], [["only one"]])
