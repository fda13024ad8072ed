"""Nothing cut off, nothing overlapping, in every language, on a laptop and on a classroom projector (issue 17).

Every page is opened in English, Korean and Chinese at 1280×800 and 1024×768 with its default settings, and
``layout_check.layout_defects`` reads the page as Chromium laid it out: a formula or table wider than the main
column, a label shortened with "…", two of a chart's own text boxes (titles, axis titles, tick labels, legend,
buttons, slider labels, annotations) drawn over each other or past the chart's edge, or an exception.
"""

from __future__ import annotations

import pytest

from tests.browser.layout_check import LANGUAGES, SIZES, layout_defects
from tests.browser.pages import open_page_in, page_paths


@pytest.fixture(scope="module", params=list(SIZES))
def tab(request, browser):
    """One tab per window size, shared by the pages and languages at that size."""
    context = browser.new_context(viewport=SIZES[request.param])
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    context.close()


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", page_paths())
def test_nothing_is_cut_or_overlapping(tab, server_url, path, lang):
    open_page_in(tab, server_url, path, lang)
    assert layout_defects(tab) == []
