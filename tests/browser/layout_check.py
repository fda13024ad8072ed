"""What a student sees cut off or overlapping, found in the real browser's layout (issues 17, 27 and 30).

:func:`layout_defects` runs one script in the page and returns every defect it finds, each a short dict:

- ``cut``: something in the main column wider than the column: a formula, a table, a chart, a code block, a live
  chart's control or its value read-out. On a laptop or projector a wide formula or table is a defect even when it
  scrolls (a scroll bar is not enough on a projector: formulas break into lines, tables fit); on a phone or tablet
  a wide table may scroll sideways inside its own box, but nothing may make the page itself scroll sideways, and no
  box may hide part of what it holds;
- ``ellipsis``: a label shortened with "…" (a widget label, a metric, a sidebar entry, a table header);
- ``overlap``: two of a Plotly chart's own text boxes (title, axis titles, tick labels, legend, buttons, slider
  labels, annotations), or two words a live chart draws in its SVG, that cover each other by more than a sliver;
  on a phone, two panels (``st.columns``) drawn over each other;
- ``intrudes``: a subplot's text (its tick labels, axis titles, its traces' or annotations' words) drawn on another
  subplot's plotting area: the second heatmap's y axis on the first one's cells;
- ``outside``: a chart's text drawn past the chart's edge (a title or annotation cut by the chart's frame);
- ``squeezed`` (phone, tablet): a chart narrower than 300 px although the column is wider: its panels should stack;
- ``small`` (phone, tablet): a live chart's slider or button less than 44 × 44 px, or a button or a radio or
  checkbox option of the page (a checkpoint's, class mode's) less than 44 px high: too small for a finger;
- ``breaks inside words``: Korean text without ``word-break: keep-all`` (a title broken inside a word).

Run as a script for an inventory of every page × language × size against a running app (the full sweep, which the
suite's ``test_layout.py`` runs only with ``LAYOUT_SWEEP=full``):
``python -m tests.browser.layout_check http://127.0.0.1:8501 [size …]``.
"""

from __future__ import annotations

import sys
from pathlib import Path

LANGUAGES = ("en", "ko", "zh")
# Chromium's mobile emulation: a phone and a tablet in portrait, touch events, three device pixels per CSS pixel
MOBILE = {"device_scale_factor": 3, "is_mobile": True, "has_touch": True}
SIZES = {
    "1280x800": {"viewport": {"width": 1280, "height": 800}},  # a laptop
    "1024x768": {"viewport": {"width": 1024, "height": 768}},  # a classroom projector
    "390x844": {"viewport": {"width": 390, "height": 844}, **MOBILE},  # a phone
    "768x1024": {"viewport": {"width": 768, "height": 1024}, **MOBILE},  # a tablet
}
# What the suite checks by default (CI): the projector (the narrowest column beside the sidebar) in every language,
# and every page on the laptop, the phone and the tablet in one language each (the one whose words are longest
# there); LAYOUT_SWEEP=full checks all of them.
SUITE = {"1280x800": ("ko",), "1024x768": LANGUAGES, "390x844": ("ko",), "768x1024": ("en",)}

# Everything is measured in CSS pixels of the page as laid out. Text boxes of neighbouring lines touch; more than
# SLIVER pixels of overlap in both directions is text drawn over text.
SLIVER = 2

SETTLE_MS = 1500  # a page that shows a defect is read once more after this long

DETECT = (Path(__file__).with_name("layout_check.js")).read_text()  # run in the page: ({sliver, mobile}) => defects


def is_mobile(size: str) -> bool:
    """A phone or tablet size (touch, mobile emulation)."""
    return SIZES[size].get("is_mobile", False)


def layout_defects(page, mobile: bool = False) -> list[dict]:
    """Every cut, ellipsised, overlapping or (``mobile``) too small piece of the page once it has settled: a page
    still laying out (a font arriving, a live chart redrawn for its new width, a chart refitted) is read again
    after :data:`SETTLE_MS`, and only what is still wrong then is a defect."""
    found = page.evaluate(DETECT, {"sliver": SLIVER, "mobile": mobile})
    if found:
        page.wait_for_timeout(SETTLE_MS)
        found = page.evaluate(DETECT, {"sliver": SLIVER, "mobile": mobile})
    return found


def main(url: str, sizes: list[str]) -> None:  # pragma: no cover - an inventory tool, run by hand
    from playwright.sync_api import expect, sync_playwright

    from bench.browser import CHROMIUM, CHROMIUM_ARGS
    from tests.browser.pages import open_page_in, page_paths

    expect.set_options(timeout=60_000)  # a page's first run on a busy machine
    total = 0
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for size in sizes:
            context = browser.new_context(**SIZES[size])
            tab = context.new_page()
            tab.set_default_timeout(60_000)
            for path in page_paths():
                for lang in LANGUAGES:
                    open_page_in(tab, url, path, lang)
                    found = layout_defects(tab, is_mobile(size))
                    total += len(found)
                    for defect in found:
                        print(size, path or "home", lang, defect, flush=True)
            context.close()
        browser.close()
    print("defects:", total)


if __name__ == "__main__":  # the README's pictures are taken by python -m bench.screenshots
    main(sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8501", sys.argv[2:] or list(SIZES))
