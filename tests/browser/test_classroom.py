"""Class mode in Chromium through the shipped set-up: nginx (deploy/nginx.conf) in front of two replicas that share
one SQLite store. One teacher at a 1024×768 projector and three students (one on a 390 px phone), each its own
browser, pinned by nginx's route cookie so that the class spans both replicas: answer, reveal, poll again, end.
A student who moves to the other replica (a new route cookie, as after a replica restart) keeps the class and is not
counted twice. Nothing here is timed: every wait is Playwright's ``expect`` with a generous timeout.
"""

from __future__ import annotations

import contextlib
import re

import pytest
from playwright.sync_api import expect

from bench import proxy
from bench.server import ROOT
from tests.browser.class_lab import browser_on, tab

pytestmark = pytest.mark.browser
SCREENSHOT = ROOT / "artifacts" / "screenshots" / "class-presenter-en-1024x768.png"
PAGE = "relative"
BOX = ".st-key-cp_rel_t5_box"


def answer(page, choice: int, round_: int) -> None:
    """Pick a choice and send it. The box reruns every 1.5 s, and on a busy machine its elements are often mid-way
    through Streamlit's fade of a running fragment, which Playwright's "stable" check waits out: click as a person
    does (force), and check the pick took before sending."""
    box = page.locator(BOX)
    option = box.locator("[role=radiogroup] label").nth(choice)
    expect(option).to_be_visible()
    for _ in range(5):
        option.click(force=True)
        if box.locator("[role=radiogroup] input").nth(choice).is_checked():
            break
        page.wait_for_timeout(500)
    expect(box.locator("[role=radiogroup] input").nth(choice)).to_be_checked()
    box.get_by_role("button", name="Send my answer").click(force=True)
    expect(box.get_by_text(f"Your answer is in (round {round_}")).to_be_visible()


def test_a_two_round_poll_across_both_replicas(browser, lab):
    url, routes = lab.url, lab.routes
    first, second = sorted(routes.values())
    contexts = []
    try:
        teacher_context = browser_on(browser, url, first)
        contexts.append(teacher_context)
        teacher = tab(teacher_context)
        teacher.goto(f"{url}/{PAGE}?present=1")
        teacher.get_by_role("button", name="Start a class").click()
        expect(teacher.get_by_test_id("class-code")).to_have_text(re.compile(r"^[A-Z2-9]{6}$"))
        code = teacher.get_by_test_id("class-code").inner_text()
        link = teacher.get_by_test_id("stCode").first.inner_text().strip()
        assert f"class={code}" in link and "present" not in link
        teacher_url = teacher.url
        assert f"class={code}" in teacher_url

        # three students, on both replicas; one on a phone
        students = []
        for route, width in [(first, 1024), (second, 390), (second, 1024)]:
            context = browser_on(browser, url, route, width, 800)
            contexts.append(context)
            student = tab(context)
            student.goto(link)
            expect(student.get_by_text(f"You are in class {code}")).to_be_visible()
            assert code in student.url and "present" not in student.url
            html = student.content()
            assert "Start a class" not in html and "End the class" not in html  # no teacher controls
            students.append(student)
        for n, student in enumerate(students):
            answer(student, 0 if n < 2 else 1, 1)
        # a second tab of the first student, and a change of mind there: still one answer, moved to choice 2
        again = tab(contexts[1])
        again.goto(link)
        answer(again, 2, 1)

        board = teacher.locator(BOX)
        expect(board.get_by_test_id("stMetricValue")).to_have_text("3")
        board.get_by_text("Show the class's answers").click()
        expect(board.locator(".class-legend")).to_contain_text("Round 1 (3)")
        counts = [int(n) for n in board.locator(".class-bars b").all_inner_texts()]
        assert sorted(n for n in counts if n) == [1, 1, 1]  # choices 0, 1 and 2: the second tab moved one answer
        assert "✓" not in board.locator(".class-bars").inner_text()  # the right answer is not marked before reveal

        # the class survives moving to another page, as the shared settings do
        wanderer = tab(contexts[3])
        wanderer.goto(link)
        expect(wanderer.get_by_text(f"You are in class {code}")).to_be_visible()
        wanderer.get_by_role("link", name="Sinusoidal encoding").click()
        expect(wanderer).to_have_url(re.compile(rf"/sinusoidal\?.*class={code}"))
        expect(wanderer.get_by_text(f"You are in class {code}")).to_be_visible()
        wanderer.close()

        # a student who edits the URL into the teacher's gets nothing more
        curious = tab(contexts[2])
        curious.goto(teacher_url)
        expect(curious.locator(BOX).get_by_role("button", name="Send my answer")).to_be_visible()
        assert curious.get_by_role("button", name="Reveal to the class").count() == 0
        assert curious.get_by_role("button", name="End the class").count() == 0
        curious.close()

        board.get_by_role("button", name="Reveal to the class").click()
        expect(board.locator(".class-bars")).to_contain_text("✓")
        for student in students:  # without doing anything
            verdict = student.locator(BOX).get_by_text(re.compile(r"^(Right\.|Not quite|The answer:)"))
            expect(verdict.first).to_be_visible()
            expect(student.locator(BOX).locator(".class-bars")).to_be_visible()

        board.get_by_role("button", name="Poll again").click()
        expect(board.get_by_text("Answered (round 2)")).to_be_visible()
        for student in students:
            expect(student.locator(BOX).get_by_text("Round 2: talk it over")).to_be_visible()
        # the second student moves to the other replica (a new route cookie): same browser, same class, one answer
        contexts[2].add_cookies([{"name": proxy.ROUTE_COOKIE, "value": first, "url": url}])
        students[1].goto(link)
        answer(students[1], 1, 2)
        answer(students[1], 1, 2)
        answer(students[0], 1, 2)
        expect(board.get_by_test_id("stMetricValue")).to_have_text("2")
        expect(board.locator(".class-legend")).to_contain_text("Round 1 (3)")
        expect(board.locator(".class-legend")).to_contain_text("Round 2 (2)")
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        board.scroll_into_view_if_needed()
        teacher.screenshot(path=SCREENSHOT)

        # a reload keeps the teacher's rights (the secret is in the teacher's browser, not in any link)
        teacher.reload()
        expect(teacher.get_by_test_id("class-code")).to_have_text(code)
        teacher.get_by_role("button", name="End the class").click()
        for student in students:
            expect(student.locator(BOX).get_by_text("This class has ended")).to_be_visible()
        late = tab(contexts[3])
        late.goto(link)
        expect(late.get_by_text("There is no class with that code")).to_be_visible()
    except BaseException:
        for n, context in enumerate(contexts):  # what each browser showed, for the failure's report
            for m, open_page in enumerate(context.pages):
                with contextlib.suppress(Exception):  # a slow screenshot must not hide the failure itself
                    open_page.screenshot(path=SCREENSHOT.parent / f"class-failure-{n}-{m}.png", timeout=15_000)
        raise
    finally:
        for context in contexts:
            context.close()


@pytest.mark.parametrize("raw", ["ZZZZZZ", "not-a-code-at-all-but-very-long-indeed-xxxxxxxxx", "<b>x</b>"])
def test_a_bad_class_link_says_so_and_the_page_works_alone(page, lab, raw):
    url = lab.url
    page.goto(f"{url}/{PAGE}?class={raw}")
    expect(page.get_by_text(re.compile("no class with that code|not a class code"))).to_be_visible()
    expect(page.locator(BOX).get_by_text("Predict first:")).to_be_visible()  # the page's own checkpoint, alone
    assert page.get_by_text("You are in class").count() == 0
    assert page.get_by_role("button", name="Send my answer").count() == 0
    assert "<b>x</b>" not in page.locator("[data-testid=stMain]").inner_text()


def test_start_pressed_before_the_browser_has_said_who_it_is_starts_the_class_when_it_does(browser, lab):
    """On a slow machine the teacher can press "Start a class" before the page's identity element has run. Hold
    that element back (the server's messages that carry it) until after the press: the press is kept, the page says
    it is connecting, and the class starts by itself once the element runs; a reload keeps the teacher's rights."""
    url, routes = lab.url, lab.routes
    held, released, page_side = [], [], []

    def hold_the_identity_element(ws) -> None:
        server = ws.connect_to_server()

        def down(message) -> None:
            raw = message if isinstance(message, bytes) else message.encode()
            if b"posenc_lab_class_identity" in raw and not released:
                held.append(message)
            else:
                ws.send(message)

        server.on_message(down)
        ws.on_message(server.send)
        page_side.append(ws)

    context = browser_on(browser, url, sorted(routes.values())[0])
    try:
        teacher = tab(context)
        teacher.route_web_socket(re.compile(r".*/_stcore/stream.*"), hold_the_identity_element)
        teacher.goto(f"{url}/{PAGE}?present=1")
        teacher.get_by_role("button", name="Start a class").click()
        expect(teacher.get_by_text("Connecting your browser to the class…")).to_be_visible()
        assert held, "the identity element was not held back: the test did not make the race it is about"
        assert teacher.get_by_test_id("class-code").count() == 0
        released.append(True)
        page_side[-1].send(held[-1])  # the element as the last run drew it
        expect(teacher.get_by_test_id("class-code")).to_have_text(re.compile(r"^[A-Z2-9]{6}$"))
        code = teacher.get_by_test_id("class-code").inner_text()
        assert f"class={code}" in teacher.url
        teacher.reload()
        expect(teacher.get_by_test_id("class-code")).to_have_text(code)
        teacher.get_by_role("button", name="End the class").click()
        expect(teacher.get_by_role("button", name="Start a class")).to_be_visible()
    finally:
        context.close()
