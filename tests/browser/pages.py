"""Every page of the app as a browser opens it: its URL path (from ui/menu.py, the one page list) and a wait for its
run to finish with every chart drawn."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from playwright.sync_api import Page, expect

from ui.menu import HOME, PAGES


def page_paths() -> list[str]:
    """The URL path of every page: Streamlit names a page after its script's file, and the home page is ``""``."""
    return ["" if page == HOME else PurePosixPath(page.path).stem for page in PAGES]


# Every figure (static/figure.js, inside its component's shadow root) of the page, and whether each has drawn.
FIGURES_JS = """() => {
    const found = [];
    const walk = (root) => {
        found.push(...root.querySelectorAll('.figure-root'));
        for (const el of root.querySelectorAll('*')) if (el.shadowRoot) walk(el.shadowRoot);
    };
    walk(document);
    return found;
}"""
FIGURES_DRAWN_JS = f"() => ({FIGURES_JS})().every(f => f.querySelector('canvas').posencFigure?.drawn)"


def open_page_in(tab: Page, url: str, path: str, lang: str) -> None:
    """Open ``path`` in ``lang`` and wait until its run has finished and every figure has drawn."""
    tab.goto(f"{url}/{path}?lang={lang}")
    expect(tab.locator("h1").first).to_be_visible()
    tab.wait_for_selector('[data-testid="stStatusWidget"]', state="detached")
    tab.wait_for_function(FIGURES_DRAWN_JS)
    tab.wait_for_function("() => window.__posencFitFormulas === true")  # ui/fit.py's script is installed
    tab.wait_for_function("() => document.fonts.status === 'loaded'")  # KaTeX's fonts: formulas are fitted after
    tab.wait_for_timeout(500)  # a figure redrawn once the column has its final width
    tab.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")  # fitted


ENGLISH_FUNCTION_WORDS = re.compile(r"\b(the|and|with|that|this|what|where|which|each|when|only|from|into)\b", re.I)
MAIN_TEXT_JS = """() => {
    const main = document.querySelector('[data-testid="stMain"]').cloneNode(true);
    // formulas, code and chart internals are not prose; the sidebar is outside stMain
    main.querySelectorAll('.katex, pre, code, [data-testid="stCode"]').forEach(n => n.remove());
    return main.innerText;
}"""


def untranslated(tab: Page) -> list[str]:
    """What is left untranslated in the main text of a page opened in Korean or Chinese: English function words
    (a paper's English title, quoted, is a citation and does not count) and a missing catalog key's ⟦…⟧ mark."""
    prose = tab.evaluate(MAIN_TEXT_JS)
    cited = re.sub(r"“[^”]*”", "", prose)
    left = sorted({match.lower() for match in ENGLISH_FUNCTION_WORDS.findall(cited)})
    return left + (["⟦ a missing catalog key"] if "⟦" in prose else [])
