"""Sections out of sight wait for the student (ui/sections.py, static/sections.js), in Chromium: a commit of the
sidebar's dim at the top of the sinusoidal page reruns the sections near the viewport, not the learned table's at the
bottom, whose notice still counts the old table; scrolled down, the browser asks for it and it shows the new count,
max_len × d parameters, before the student reads it.
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from tests.browser.class_lab import open_sidebar
from tests.browser.test_browser import open_app

LEARNED = ".st-key-section-sin_learned"
MAX_LEN = 512  # the learned table's default rows (pages/sinusoidal.py)


def near(page: Page) -> list[str]:
    """The sections the page names as near its viewport now."""
    return page.evaluate(
        "async () => (await import(new URL('app/static/sections.js', location.href.replace(/[^/]*$/, '')).href))"
        ".nearSections()"
    )


def parameters(dim: int) -> str:
    return f"{MAX_LEN * dim:,}"


def test_a_section_out_of_sight_is_brought_up_to_date_when_scrolled_to(page, server_url):
    open_app(page, server_url, "sinusoidal", "?dim=128")
    section = page.locator(LEARNED)
    expect(section).to_contain_text(parameters(128))
    page.locator('[data-testid="stMain"]').evaluate("main => main.scrollTo(0, 0)")
    assert "sin_learned" not in near(page), "the page is short enough to keep the learned table near the top"
    slider = page.locator("#shared-dim")
    if not slider.is_visible():
        open_sidebar(page)
    slider.focus()
    slider.press("ArrowLeft")  # one step down: a key press is a release, committed once
    step = int(slider.get_attribute("step"))
    dim = 128 - step
    page.wait_for_url(f"**dim={dim}**")  # the commit reached the server, which mirrors it in the URL
    page.wait_for_timeout(1500)  # time for any rerun the commit caused to arrive
    expect(section).to_contain_text(parameters(128))  # out of sight: not rerun
    section.scroll_into_view_if_needed()
    expect(section).to_contain_text(parameters(dim))
    assert "sin_learned" in near(page)
