"""The app in a real browser: every page draws, sliders move charts, shared controls and links work.

Driven with Playwright in Debian's headless Chromium against `streamlit run app.py` on loopback. Screenshots of
every page at 1280×800 and at a projector-like 1920×1080 go to artifacts/screenshots/ (not committed).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import ARTIFACTS
from tests.browser.pages import FIGURES_DRAWN_JS

# sidebar link title -> (url path, the page's h1)
PAGES = {
    "Why positions?": ("", "Why do transformers need positions?"),
    "Sinusoidal encoding": ("sinusoidal", "Sinusoidal absolute encoding"),
    "Relative positions": ("relative", "Relative positions"),
    "Transformer-XL, DeBERTa, NoPE": ("relative_scores", "Transformer-XL, DeBERTa and NoPE"),
    "RoPE in the complex plane": ("rope", "RoPE in the complex plane"),
    "RoPE in real models": ("rope_practice", "RoPE in real models"),
    "Long-range decay and context": ("decay", "Long-range decay and context length"),
    "RoPE at inference time": ("inference", "RoPE at inference time"),
    "Your model's RoPE": ("model_rope", "Your model's RoPE"),
    "RoPE layer by layer": ("rope_layers", "RoPE layer by layer"),
    "Attention with and without PE": ("toy_model", "Attention with and without positional encoding"),
    "Train short, test long": ("extrapolation", "Train short, test long"),
}
PROJECTOR = {"width": 1920, "height": 1080}


def wait_for_run(page: Page, heading: str) -> None:
    """Wait until the page's title is shown, its charts are drawn and Streamlit's run has finished."""
    expect(page.get_by_role("heading", name=heading, level=1)).to_be_visible()
    page.wait_for_selector(".figure-root svg text")  # every page has at least one figure
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached")
    page.wait_for_function(FIGURES_DRAWN_JS)


def open_app(page: Page, url: str, path: str = "", query: str = "") -> None:
    page.goto(f"{url}/{path}{query}")
    heading = next(h1 for p, h1 in PAGES.values() if p == path)
    wait_for_run(page, heading)


def go_to(page: Page, title: str) -> None:
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name=title).click()
    wait_for_run(page, PAGES[title][1])


def slider(page: Page, label: str):
    return page.locator('[data-testid="stSidebar"]').get_by_role("slider", name=label)


def table_title(page: Page) -> str:
    """The title of the sinusoidal page's live table, as drawn (it names the positions, dimensions and base)."""
    return page.locator(".live .title").first.text_content()


def real_problems(page: Page) -> list[str]:
    """Console errors and failed requests, without the front end's harmless probe of <page>/_stcore/health."""
    return [problem for problem in page.problems if not re.search(r"/\w+/_stcore/health|status of 404", problem)]


@pytest.mark.parametrize("title", list(PAGES))
def test_every_page_draws_its_charts_without_errors(page, server_url, title):
    open_app(page, server_url)
    go_to(page, title)
    assert page.locator('[data-testid="stException"]').count() == 0
    charts = page.locator(".figure-root")
    assert charts.count() >= 1
    for number in range(charts.count()):  # each drew its title (a figure draws once its script has loaded)
        expect(charts.nth(number).locator("svg .title").first).to_be_attached()
    assert real_problems(page) == []
    slug = PAGES[title][0] or "home"
    page.screenshot(path=str(ARTIFACTS / f"{slug}-1280x800.png"))
    page.set_viewport_size(PROJECTOR)
    page.wait_for_timeout(500)  # let the figures redraw at the wider layout
    page.screenshot(path=str(ARTIFACTS / f"{slug}-1920x1080.png"))


def test_keyboard_slider_move_redraws_the_chart(page, server_url):
    open_app(page, server_url, "sinusoidal")
    before = table_title(page)
    length = slider(page, "length (positions)")
    length.focus()
    for _ in range(3):
        page.keyboard.press("ArrowRight")
    expect(length).to_have_value("67")
    # each key press is its own rerun: wait for the one that drew 67 positions
    expect(page.locator(".live .title").first).to_contain_text("67 positions × 128 dimensions")
    assert table_title(page) != before
    assert real_problems(page) == []


def test_shared_controls_survive_a_page_switch_and_fill_the_url(page, server_url):
    open_app(page, server_url, "sinusoidal")
    dim = slider(page, "dim (dimensions)")
    dim.focus()
    page.keyboard.press("ArrowLeft")  # step 2: 128 -> 126
    expect(dim).to_have_value("126")
    expect(page.locator(".live .title").first).to_contain_text("× 126 dimensions")
    go_to(page, "RoPE in the complex plane")
    expect(slider(page, "dim (dimensions)")).to_have_value("126")
    expect(page).to_have_url(re.compile(r"[?&]dim=126"))


def test_a_shared_link_opens_the_same_view(page, server_url):
    open_app(page, server_url, "sinusoidal", "?dim=16&length=100&base=500000")
    expect(slider(page, "dim (dimensions)")).to_have_value("16")
    expect(slider(page, "length (positions)")).to_have_value("100")
    expect(page.locator(".live .title").first).to_contain_text("100 positions × 16 dimensions")
    assert page.locator('[data-testid="stAlert"]').count() == 0
    # the app's navigation, not Streamlit's legacy listing of the pages/ folder ("app", "home", …)
    navigation = page.locator('[data-testid="stSidebarNav"]').inner_text()
    assert "Sinusoidal encoding" in navigation and "\napp\n" not in f"\n{navigation}\n"


@pytest.mark.parametrize(
    "lang, title", [("ko", "트랜스포머에는 왜 위치 정보가 필요할까?"), ("zh", "Transformer 为什么需要位置信息？")]
)
def test_a_link_in_another_language_opens_in_that_language(page, server_url, lang, title):
    page.goto(f"{server_url}/?lang={lang}")
    wait_for_run(page, title)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(ARTIFACTS / f"home-{lang}-1280x800.png"))


def test_a_hostile_link_opens_with_sane_values_and_a_notice(page, server_url):
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    hostile = "?dim=abc&length=%3Cscript%3Ealert(1)%3C%2Fscript%3E&base=-1&heads=" + "9" * 3000
    open_app(page, server_url, "sinusoidal", hostile)
    expect(slider(page, "dim (dimensions)")).to_have_value("128")
    expect(slider(page, "length (positions)")).to_have_value("64")
    alerts = page.locator('[data-testid="stAlert"]')
    assert alerts.count() >= 3
    assert "script" not in alerts.all_inner_texts()[0]
    assert page.locator('[data-testid="stException"]').count() == 0
    assert dialogs == []


def test_glossary_page_shows_the_term_table(page, server_url):
    open_app(page, server_url)
    page.locator('[data-testid="stSidebarNav"]').get_by_role("link", name="Glossary").click()
    expect(page.get_by_role("heading", name="Glossary", level=1)).to_be_visible()
    table = page.locator(".posenc-table table")  # ui/table.py's HTML table
    expect(table).to_be_visible()
    expect(table.get_by_role("columnheader", name="English")).to_be_visible()
    expect(table.get_by_role("cell", name="위치 인코딩", exact=True)).to_have_attribute("lang", "ko")
    assert page.locator('[data-testid="stException"]').count() == 0
    page.screenshot(path=str(ARTIFACTS / "glossary-1280x800.png"))
