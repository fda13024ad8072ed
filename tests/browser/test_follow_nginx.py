"""Follow the teacher through the shipped set-up (nginx and two replicas over one SQLite class store), in Chromium.

A teacher at a 1024×768 projector builds a three-step lesson on two pages in presenter mode and walks it (buttons
and a clicker's Page Down); three students, each a browser of its own (one a 390×844 phone), pinned to the replicas
by nginx's route cookie, follow: two wander off (one opens another page, one moves a control), are counted
exploring, and come back with the one button; a late joiner lands on the current step; each replica is restarted
mid-lesson (stopped, started again on the same port over the same store), and its students (their tabs reloaded
here; one Streamlit reconnects by itself follows too: the test after this one) follow the next step, while the
teacher, reloaded on the fresh replica, keeps the class, the lesson and the step. A step forged by a student's
session and a malformed lesson file are refused with one line, and the store is unchanged (read beside the
replicas). Nothing here is timed: every wait is Playwright's ``expect`` with a generous timeout.
"""

from __future__ import annotations

import contextlib
import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout
from playwright.sync_api import expect

from bench.server import ROOT
from tests.browser.class_lab import browser_on, move_slider, open_sidebar, tab

pytestmark = pytest.mark.browser
FAILURES = ROOT / "artifacts" / "screenshots"
WAIT = 90_000  # ms; a replica restart and a cold page on a shared 2-core machine


def follows_step(page, number: int):
    return page.get_by_text(re.compile(rf"Your screen follows the teacher's: step {number}\."))


def counted(teacher, follow: int, explore: int):
    return teacher.get_by_text(f"{follow} following your screen · {explore} exploring on their own")


def in_lesson_panel(teacher, control):
    """``control`` of the lesson panel, the panel opened first when it is closed (it opens only while empty)."""
    if not control.is_visible():
        teacher.locator("[data-testid=stExpander] summary").filter(has_text="Lesson").click()
    expect(control).to_be_visible()
    return control


def add_step(teacher, note: str, checkpoint: str | None, steps: int) -> None:
    """The lesson panel's form: a note, a checkpoint to bring into view, "Add this view as a step"."""
    field = in_lesson_panel(teacher, teacher.get_by_label("Note for the class (one line)"))
    field.fill(note)
    field.press("Enter")
    expect(field).to_have_value(note)
    if checkpoint:  # a rerun (the class panel's count) can close the list as it opens: open it again
        box = teacher.get_by_label("Checkpoint to bring into view")
        for _ in range(5):
            box.click()
            with contextlib.suppress(PlaywrightTimeout):
                teacher.get_by_role("option", name=checkpoint).click(timeout=10_000)
                break
    teacher.get_by_role("button", name="Add this view as a step").click()
    expect(teacher.get_by_text(f"Lesson: step {steps} of {steps}")).to_be_visible()


def walk(teacher, button: str, number: int, path: str) -> None:
    in_lesson_panel(teacher, teacher.get_by_role("button", name=button)).click()
    expect(teacher.get_by_text(f"Lesson: step {number} of 3")).to_be_visible()
    expect(teacher).to_have_url(re.compile(rf"/{path}\?"))


def stored(lab, code: str) -> tuple:
    """The class's view number, view and lesson as the store holds them."""
    rows = lab.rows("SELECT seq, view, lesson FROM views WHERE code = ?", code)
    assert len(rows) == 1
    seq, view, lesson = rows[0]
    return seq, json.loads(view), json.loads(lesson)


# Runs again once if it fails: a student reloaded just as its replica restarted has been seen (1 run in 3, session 27)
# to take the teacher's next values but keep the follow line of the step before for 90 s, or to leave the class. One
# cause is found and fixed (session 28: the old tab, reconnected before the reload, sent its own older commit to the
# fresh session, which took it: the test below shows it); the marker stays until more runs show no other.
@pytest.mark.flaky(reruns=1)
def test_a_class_follows_a_lesson_across_both_replicas_and_their_restarts(browser, lab, tmp_path):
    (a_port, a_route), (b_port, b_route) = sorted(lab.routes.items())
    contexts = []

    def browser_at(route: str, width: int = 1024, height: int = 768):
        contexts.append(browser_on(browser, lab.url, route, width, height))
        return tab(contexts[-1])

    try:
        # the teacher (replica A) starts a class and builds the lesson: two steps on one page, one on another
        teacher = browser_at(a_route)
        teacher.goto(f"{lab.url}/relative?present=1")
        teacher.get_by_role("button", name="Start a class").click()
        expect(teacher.get_by_test_id("class-code")).to_have_text(re.compile(r"^[A-Z2-9]{6}$"))
        code = teacher.get_by_test_id("class-code").inner_text()
        link = teacher.get_by_test_id("stCode").first.inner_text().strip()
        assert f"class={code}" in link and "present" not in link
        add_step(teacher, "T5's buckets", "Checkpoint 1 of this page", 1)
        open_sidebar(teacher)
        teacher.get_by_role("link", name="Sinusoidal encoding").click()
        expect(teacher).to_have_url(re.compile(r"/sinusoidal\?"))
        add_step(teacher, "One frequency per pair", None, 2)
        move_slider(teacher, "dim", "ArrowLeft")
        dim = teacher.locator("#shared-dim").input_value()
        expect(teacher).to_have_url(re.compile(rf"dim={dim}\b"))
        add_step(teacher, "Dot products by distance", "Checkpoint 2 of this page", 3)
        lesson = stored(lab, code)[2]
        assert [step["page"] for step in lesson["steps"]] == ["relative", "sinusoidal", "sinusoidal"]
        assert lesson["steps"][2]["settings"]["dim"] == int(dim) != lesson["steps"][1]["settings"]["dim"]
        assert [step.get("checkpoint") for step in lesson["steps"]] == ["cp_rel_t5", None, "cp_sin_dot"]
        walk(teacher, "Previous", 2, "sinusoidal")
        walk(teacher, "Previous", 1, "relative")

        # two students join (one on each replica, one a phone) and land on step 1, its checkpoint in view
        first = browser_at(a_route)
        phone = browser_at(b_route, 390, 844)
        for student in (first, phone):
            student.goto(link.replace("/relative?", "/?"))  # the home page: the step's page opens by itself
            expect(student).to_have_url(re.compile(r"/relative\?"))
            expect(follows_step(student, 1)).to_be_visible()
            expect(student.locator(".st-key-cp_rel_t5_box")).to_be_in_viewport()
            assert student.get_by_role("button", name="Next").count() == 0  # no lesson controls for a student
        expect(counted(teacher, 2, 0)).to_be_visible()

        # Page Down (a presentation clicker) goes to step 2, on the other page: both follow
        teacher.locator("h1").first.click()  # the focus off any control, as on a projector
        teacher.keyboard.press("PageDown")
        expect(teacher.get_by_text("Lesson: step 2 of 3")).to_be_visible()
        for student in (first, phone):
            expect(student).to_have_url(re.compile(r"/sinusoidal\?"))
            expect(follows_step(student, 2)).to_be_visible()

        # one opens another page, one moves a control: both explore, are counted, and come back with one button
        open_sidebar(first)
        first.get_by_role("link", name="Relative positions").click()
        expect(first).to_have_url(re.compile(r"/relative\?"))
        move_slider(phone, "length", "End")
        for student in (first, phone):
            expect(student.get_by_text("You are exploring on your own")).to_be_visible()
        expect(counted(teacher, 0, 2)).to_be_visible()
        teacher_length = teacher.locator("#shared-length").input_value()
        for student in (first, phone):
            student.get_by_role("button", name="Follow the teacher").click()
            expect(student).to_have_url(re.compile(r"/sinusoidal\?"))
            expect(follows_step(student, 2)).to_be_visible()
        expect(phone.locator("#shared-length")).to_have_value(teacher_length)
        expect(counted(teacher, 2, 0)).to_be_visible()

        # replica B restarts mid-lesson: its student follows the next step, and a late joiner there lands on it.
        # (Its tab reloads here; a tab left to Streamlit's reconnect follows as well, the test after this one)
        lab.restart(b_port)
        phone.reload()
        walk(teacher, "Next", 3, "sinusoidal")
        late = browser_at(b_route)
        late.goto(link)
        for student in (first, phone, late):
            expect(follows_step(student, 3)).to_be_visible(timeout=WAIT)
            expect(student).to_have_url(re.compile(rf"/sinusoidal\?.*dim={dim}\b"), timeout=WAIT)
            expect(student.locator("#shared-dim")).to_have_value(dim)
        for student in (first, phone):  # (a late joiner's page is still drawing the pictures above the box)
            expect(student.locator(".st-key-cp_sin_dot_box")).to_be_in_viewport(timeout=WAIT)
        expect(counted(teacher, 3, 0)).to_be_visible(timeout=WAIT)

        # replica A restarts: the teacher reloads on the fresh replica and keeps the class, the lesson and the step
        seq, view, kept = stored(lab, code)
        assert view["index"] == 2 and kept == lesson
        lab.restart(a_port)
        teacher.goto(teacher.url)
        first.reload()
        expect(teacher.get_by_test_id("class-code")).to_have_text(code, timeout=WAIT)
        expect(teacher.get_by_text("Lesson: step 3 of 3")).to_be_visible()
        walk(teacher, "Previous", 2, "sinusoidal")
        for student in (first, phone, late):
            expect(follows_step(student, 2)).to_be_visible(timeout=WAIT)
            expect(student).to_have_url(re.compile(r"/sinusoidal\?"))
        expect(counted(teacher, 3, 0)).to_be_visible(timeout=WAIT)
        seq, view, kept = stored(lab, code)
        assert view["index"] == 1 and kept == lesson

        # a student's session that tries to move the class (the teacher's link, edited in): one line, nothing stored
        query = parse_qs(urlsplit(teacher.url).query)
        forger = tab(contexts[1])  # the first student's browser: its id, no secret
        forger.goto(f"{lab.url}/sinusoidal?present=1&class={code}&lesson={query['lesson'][0]}&step=2")
        in_lesson_panel(forger, forger.get_by_role("button", name="Next")).click()
        expect(forger.get_by_text("Only the class's teacher can do that.")).to_be_visible()
        assert stored(lab, code) == (seq, view, kept)
        forger.close()

        # a malformed lesson file: one line, nothing loaded, nothing stored
        bad = tmp_path / "lesson.json"
        steps = [step | {"settings": {"base": 7}} if n == 1 else step for n, step in enumerate(lesson["steps"])]
        bad.write_text(json.dumps({"format": lesson["format"], "steps": steps}))
        in_lesson_panel(teacher, teacher.get_by_text("Load a lesson file"))
        teacher.get_by_test_id("stFileUploaderDropzoneInput").set_input_files(bad)
        expect(teacher.get_by_text("Step 2: The value of base is not one its slider can take.")).to_be_visible()
        expect(teacher.get_by_text("Lesson: step 2 of 3")).to_be_visible()
        assert stored(lab, code) == (seq, view, kept)
        for student in (first, phone, late):
            expect(follows_step(student, 2)).to_be_visible()
    except BaseException:
        for n, context in enumerate(contexts):  # what each browser showed, for the failure's report
            for m, open_page in enumerate(context.pages):
                with contextlib.suppress(Exception):  # a slow screenshot must not hide the failure itself
                    open_page.screenshot(path=FAILURES / f"follow-failure-{n}-{m}.png", timeout=15_000)
        raise
    finally:
        for context in contexts:
            context.close()


def test_a_tab_reconnected_to_a_restarted_replica_follows_without_a_reload(browser, lab):
    """Streamlit reconnects the student's tab to a fresh session on the restarted replica, which never ran the page;
    the tab's poll sees the replica's new start id and asks Streamlit for a full run (no reload), so it follows the
    teacher's next page, and its document is the one it had (a marker set before the restart is still there).
    The student explored a value of its own before following again: the tab's last commit is older than the
    teacher's values, and the fresh session must not take it back (the student would explore, at its old value)."""
    (_, a_route), (b_port, b_route) = sorted(lab.routes.items())
    contexts = [browser_on(browser, lab.url, a_route), browser_on(browser, lab.url, b_route)]
    try:
        teacher, student = tab(contexts[0]), tab(contexts[1])
        teacher.goto(f"{lab.url}/relative?present=1")
        teacher.get_by_role("button", name="Start a class").click()
        expect(teacher.get_by_test_id("class-code")).to_have_text(re.compile(r"^[A-Z2-9]{6}$"))
        student.goto(teacher.get_by_test_id("stCode").first.inner_text().strip())
        expect(student.get_by_text("Your screen follows the teacher's.")).to_be_visible()
        teacher_length = teacher.locator("#shared-length").input_value()
        move_slider(student, "length", "End")
        expect(student.get_by_text("You are exploring on your own")).to_be_visible()
        student.get_by_role("button", name="Follow the teacher").click()
        expect(student.get_by_text("Your screen follows the teacher's.")).to_be_visible()
        expect(student).to_have_url(re.compile(rf"length={teacher_length}\b"))
        student.evaluate("window.notReloaded = true")
        lab.restart(b_port)
        open_sidebar(teacher)
        teacher.get_by_role("link", name="Sinusoidal encoding").click()
        expect(student).to_have_url(re.compile(r"/sinusoidal\?"), timeout=45_000)
        expect(student.get_by_text("Your screen follows the teacher's.")).to_be_visible(timeout=WAIT)
        expect(student).to_have_url(re.compile(rf"class=.*length={teacher_length}\b"))
        expect(student.locator("#shared-length")).to_have_value(teacher_length)
        expect(counted(teacher, 1, 0)).to_be_visible(timeout=WAIT)
        assert student.evaluate("window.notReloaded === true")
    finally:
        for context in contexts:
            context.close()


def test_a_teacher_whose_browser_answer_is_lost_keeps_the_rights_on_a_reload(browser, lab):
    """The browser's answer to "who are you" (its id and the teacher's secret) is a trigger, and Streamlit drops a
    trigger that shares a batch with another fragment's change: a reload then opened as a student, the teacher's
    rights lost. Drop the first answer on the websocket: the element sends it again and the rights come back."""
    url, route = lab.url, sorted(lab.routes.values())[0]
    dropped = []

    def drop_the_first_answer(ws) -> None:
        server = ws.connect_to_server()

        def up(message) -> None:
            raw = message if isinstance(message, bytes) else message.encode()
            if b"class_identity" in raw and b"secret" in raw and not dropped:
                dropped.append(message)
            else:
                server.send(message)

        ws.on_message(up)
        server.on_message(ws.send)

    context = browser_on(browser, url, route)
    try:
        teacher = tab(context)
        teacher.goto(f"{url}/relative?present=1")
        teacher.get_by_role("button", name="Start a class").click()
        expect(teacher.get_by_test_id("class-code")).to_have_text(re.compile(r"^[A-Z2-9]{6}$"))
        code = teacher.get_by_test_id("class-code").inner_text()
        teacher.route_web_socket(re.compile(r".*/_stcore/stream.*"), drop_the_first_answer)
        teacher.reload()
        expect(teacher.get_by_test_id("class-code")).to_have_text(code)
        assert dropped, "no answer was dropped: the test did not make the loss it is about"
        teacher.get_by_role("button", name="End the class").click()
        expect(teacher.get_by_role("button", name="Start a class")).to_be_visible()
    finally:
        context.close()
