"""Follow the teacher in Chromium (ui/follow.py, static/follow.js): a teacher (presenter mode) and a student on a
phone, each a browser of its own, on one server. The student joins on another page and lands on the teacher's; the
teacher opens another page and moves a sidebar slider, and the student's page follows both (the slider moves with
no reload); the student moves a slider, explores, is counted as exploring, and follows again on one button.
Nothing here is timed: every wait is Playwright's ``expect`` with a generous timeout."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.browser.class_lab import move_slider, open_sidebar

pytestmark = pytest.mark.browser


def tab(browser, width: int = 1024, height: int = 768):
    page = browser.new_context(viewport={"width": width, "height": height}).new_page()
    page.set_default_timeout(90_000)
    return page


def test_a_student_follows_the_teacher_explores_and_comes_back(browser, server_url):
    teacher = tab(browser)
    teacher.goto(f"{server_url}/relative?present=1")
    teacher.get_by_role("button", name="Start a class").click()
    expect(teacher.get_by_test_id("class-code")).to_have_text(re.compile(r"^[A-Z2-9]{6}$"))
    code = teacher.get_by_test_id("class-code").inner_text()

    student = tab(browser, 390, 800)  # a phone
    student.goto(f"{server_url}/?class={code}&lang=en")  # joins on the home page: lands on the teacher's
    expect(student).to_have_url(re.compile(r"/relative\?"))
    expect(student.get_by_text("Your screen follows the teacher's.")).to_be_visible()
    expect(teacher.get_by_text("1 following your screen · 0 exploring on their own")).to_be_visible()

    open_sidebar(teacher)
    teacher.get_by_role("link", name="Sinusoidal encoding").click()
    expect(student).to_have_url(re.compile(r"/sinusoidal\?"))
    # the class opened the page at once: its last section waits, empty, until the student scrolls near it
    last = student.locator(".st-key-section-sin_learned")
    expect(last.locator(".st-key-deferred-sin_learned")).to_have_count(1)
    last.scroll_into_view_if_needed()
    expect(last.locator(".st-key-deferred-sin_learned")).to_have_count(0)
    expect(last.locator(".st-key-sin_learned_chart")).to_have_count(1)
    before = student.locator("#shared-dim").input_value()
    move_slider(teacher, "dim", "End")  # the teacher's release: the class follows
    expect(student.locator("#shared-dim")).not_to_have_value(before)
    expect(student).to_have_url(re.compile(r"dim=1024"))

    move_slider(student, "length", "End")  # the student's own move: exploring
    expect(student.get_by_text("You are exploring on your own")).to_be_visible()
    expect(teacher.get_by_text("0 following your screen · 1 exploring on their own")).to_be_visible()
    student.get_by_role("button", name="Follow the teacher").click()
    expect(student.get_by_text("Your screen follows the teacher's.")).to_be_visible()
    expect(teacher.get_by_text("1 following your screen · 0 exploring on their own")).to_be_visible()
