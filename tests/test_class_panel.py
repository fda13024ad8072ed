"""The teacher's "Start a class" and a student's "Send my answer" in AppTest, over a real SQLite store in a temporary
folder: a press is never lost, whether or not the browser's id (sent by a small element in the browser, which AppTest
does not run) has come yet.
"""

from __future__ import annotations

import pytest

import ui.classroom
from classroom.service import Classroom
from classroom.store import open_store
from ui.i18n import catalog

EN = catalog("en")
BROWSER_ID = "0123456789abcdef0123456789abcdef"


@pytest.fixture
def room(tmp_path, monkeypatch):
    """The app's classroom over a store of this test's own."""
    room = Classroom(open_store(f"sqlite:///{tmp_path / 'classes.sqlite3'}"))
    monkeypatch.setattr(ui.classroom, "classroom", lambda: room)
    return room


def texts(at) -> str:
    return " ".join(str(element.value) for kind in ("caption", "warning", "markdown") for element in at.get(kind))


def test_start_pressed_before_the_browser_is_known_waits_for_it_and_refuses_nothing(open_page, room):
    at = open_page("pages/relative.py", query={"present": "1"})
    assert "class_browser" not in at.session_state  # AppTest runs no browser element: the id never comes
    at.button(key="class_start").click().run()
    assert EN["classroom.connecting"] in texts(at)
    assert EN["classroom.err_no_browser"] not in texts(at)
    assert all(button.key != "class_start" for button in at.button)  # one press is enough
    assert at.session_state["class_code"] is None  # nothing started, nothing stored for a browser not yet known


def test_start_with_the_browser_known_opens_a_class_that_students_can_join(open_page, room):
    at = open_page("pages/relative.py", query={"present": "1"}, state={"class_browser": BROWSER_ID})
    at.button(key="class_start").click().run()
    code = at.session_state["class_code"]
    assert room.join(code).ok  # the class is in the store, under the code the page shows
    assert any(code in str(element.proto.body) for element in at.get("html"))
    assert at.query_params["class"] == code
    assert all(button.key != "class_start" for button in at.button)


def test_send_pressed_before_the_browser_is_known_is_kept_not_refused(open_page, room):
    code, _ = room.start("teacher-browser-0001").value
    at = open_page("pages/relative.py", query={"class": code})
    assert at.session_state["class_code"] == code
    at.radio(key="cp_rel_t5_choice").set_value(at.radio(key="cp_rel_t5_choice").options[0]).run()
    at.button(key="cp_rel_t5_send").click().run()
    assert EN["classroom.connecting"] in texts(at)
    assert EN["classroom.err_no_browser"] not in texts(at)
    assert "cp_rel_t5_class" not in at.session_state  # not sent yet: it waits for the browser's id
