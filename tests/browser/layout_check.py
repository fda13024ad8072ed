"""What a student sees cut off or overlapping, found in the real browser's layout (issue 17).

:func:`layout_defects` runs one script in the page and returns every defect it finds, each a short dict:

- ``cut``: something in the main column wider than the column: a formula, a table, a chart, a code block. A wide
  formula or table is a defect unless it scrolls *and* shows that it does (a visible scroll bar is not enough on a
  projector, so we ask for no horizontal scrolling at all: formulas break into lines, tables fit);
- ``ellipsis``: a label shortened with "…" (a widget label, a metric, a sidebar entry, a table header);
- ``overlap``: two of a Plotly chart's own text boxes (title, axis titles, tick labels, legend, buttons, slider
  labels, annotations) that cover each other by more than a sliver;
- ``outside``: a chart's text drawn past the chart's edge (a title or annotation cut by the chart's frame).

Run as a script for an inventory of every page × language × size against a running app:
``python -m tests.browser.layout_check http://127.0.0.1:8501``.
"""

from __future__ import annotations

import sys
from pathlib import Path

SIZES = {"1280x800": {"width": 1280, "height": 800}, "1024x768": {"width": 1024, "height": 768}}
LANGUAGES = ("en", "ko", "zh")

# Everything is measured in CSS pixels of the page as laid out. Text boxes of neighbouring lines touch; more than
# SLIVER pixels of overlap in both directions is text drawn over text.
SLIVER = 2

DETECT = (Path(__file__).with_name("layout_check.js")).read_text()  # run in the page: (sliver) => defects


def layout_defects(page) -> list[dict]:
    """Every cut, ellipsised or overlapping piece of text on the page as it is laid out now."""
    return page.evaluate(DETECT, SLIVER)


def main(url: str) -> None:  # pragma: no cover - an inventory tool, run by hand
    from playwright.sync_api import sync_playwright

    from bench.browser import CHROMIUM, CHROMIUM_ARGS
    from tests.browser.pages import open_page_in, page_paths

    total = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for size, viewport in SIZES.items():
            tab = browser.new_page(viewport=viewport)
            for path in page_paths():
                for lang in LANGUAGES:
                    open_page_in(tab, url, path, lang)
                    found = layout_defects(tab)
                    total += len(found)
                    for defect in found:
                        print(size, path or "home", lang, defect)
            tab.close()
        browser.close()
    print("defects:", total)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8501")
