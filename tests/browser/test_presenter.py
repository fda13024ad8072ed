"""Presenter mode in a real browser: a teacher's link with ``?present=1`` opens with the sidebar collapsed, the
settings in a caption at the top, and a checkpoint that shows no answer until "Reveal" is pressed."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.conftest import ARTIFACTS
from tests.browser.pages import FIGURES_DRAWN_JS
from ui.i18n import text


def open_presenting(tab, url: str, path: str, query: str) -> None:
    tab.goto(f"{url}/{path}?present=1&{query}")
    expect(tab.locator("h1").first).to_be_visible()
    tab.wait_for_selector('[data-testid="stStatusWidget"]', state="detached")
    tab.wait_for_function(FIGURES_DRAWN_JS)


def test_a_presenter_link_collapses_the_sidebar_shows_the_settings_and_holds_the_answer(page, server_url):
    open_presenting(page, server_url, "sinusoidal", "dim=16&length=32")
    expect(page.locator('[data-testid="stSidebar"]')).to_have_attribute("data-collapsed", "true")
    settings = "Settings: base = 10,000 · dim (dimensions) = 16 · length (positions) = 32"
    expect(page.get_by_text(settings)).to_be_visible()
    box = page.locator(".st-key-cp_sin_fastest_box")
    reveal = box.get_by_role("button", name=text("en", "checkpoint.reveal"))
    expect(reveal).to_be_visible()
    box.get_by_text("Columns 14, 15 (pair 7)").click()  # the class's guess: not judged on its own
    page.wait_for_timeout(500)
    page.wait_for_selector('[data-testid="stStatusWidget"]', state="detached")
    expect(box.locator(".verdict.info")).to_have_count(0)
    page.screenshot(path=str(ARTIFACTS / "presenter-before-reveal-1280x800.png"))
    reveal.click()
    answer = box.locator(".verdict")
    expect(answer).to_contain_text("The answer: Columns 0, 1 (pair 0).")
    expect(answer).not_to_contain_text("Not quite")
    assert page.url.count("present=1") == 1
    page.screenshot(path=str(ARTIFACTS / "presenter-after-reveal-1280x800.png"))
