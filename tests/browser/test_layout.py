"""Nothing cut off, nothing overlapping, in every language, on a laptop, a classroom projector, a phone and a tablet
(issues 17, 27 and 30).

Every page is opened with its default settings and ``layout_check.layout_defects`` reads the page as Chromium laid
it out: a formula or table wider than the main column, a label shortened with "…", two of a chart's own text boxes
(titles, axis titles, tick labels, legend, buttons, slider labels, annotations, a live chart's SVG words) drawn over
each other or past the chart's edge, one subplot's text on another subplot's plot, Korean without
``word-break: keep-all``, or an exception. A page in Korean or Chinese also has no English sentence left in its main
text (``pages.untranslated``). On the phone (390×844) and the tablet (768×1024), in Chromium's mobile
emulation (touch, device scale factor 3), also: the page scrolling sideways, a box hiding part of what it holds, a
chart squeezed under 300 px, panels over each other, a live control smaller than 44 × 44 px.

The suite checks the projector size in every language and the laptop, phone and tablet in one language each
(``layout_check.SUITE``); ``LAYOUT_SWEEP=full python -m pytest -n 1 tests/browser/test_layout.py`` checks every page
in every language at every size.
"""

from __future__ import annotations

import os

import pytest

from tests.browser.layout_check import LANGUAGES, SIZES, SUITE, is_mobile, layout_defects
from tests.browser.pages import open_page_in, page_paths, untranslated

FULL = os.environ.get("LAYOUT_SWEEP") == "full"
CASES = [(size, lang) for size in SIZES for lang in (LANGUAGES if FULL else SUITE[size])]


@pytest.fixture(scope="module")
def tab_at(browser):
    """One tab per window size (a phone or tablet in mobile emulation), opened when first asked for and shared by
    the pages and languages at that size."""
    opened = {}

    def tab(size: str):
        if size not in opened:
            context = browser.new_context(**SIZES[size])
            opened[size] = (context, context.new_page())
            opened[size][1].set_default_timeout(60_000)
        return opened[size][1]

    yield tab
    for context, _ in opened.values():
        context.close()


@pytest.mark.parametrize("path", page_paths())
@pytest.mark.parametrize(("size", "lang"), CASES)
def test_nothing_is_cut_or_overlapping(tab_at, server_url, size, lang, path):
    tab = tab_at(size)
    open_page_in(tab, server_url, path, lang)
    assert layout_defects(tab, is_mobile(size)) == []
    if lang != "en" and path != "glossary":  # reads in its link's language (the glossary lists English terms too)
        assert untranslated(tab) == []
