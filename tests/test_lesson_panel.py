"""Lessons in AppTest (ui/lesson.py): built in presenter mode from the views on screen, reordered, walked with
Previous / Next; shared as one link that a student walks alone; in a class, kept in the class store (a teacher's
reload gets it back) and followed by the class. AppTest runs no browser code: the tests read what the page asked
the browser to do (open a page, bring a checkpoint into view) and do it as the browser would."""

from __future__ import annotations

import pytest
from conftest import element_data, set_shared

import ui.classroom
from classroom.lesson import Step, decode_link, encode_link
from classroom.service import Classroom
from classroom.store import open_store
from ui.i18n import catalog

EN = catalog("en")
TEACHER_ID = "teacher0123456789abcdef"


def order(at, key: str = "lesson_element") -> dict:
    element = next(e for e in at.get("bidi_component") if e.proto.id.endswith(key))
    return element_data(element)


def build(open_page) -> object:
    """A teacher's three-step lesson on two pages: decay with its first checkpoint, decay at dim 64, rope."""
    at = open_page("pages/decay.py", query={"present": "1"})
    at.text_input(key="lesson_note").input("Where is half?")
    at.selectbox(key="lesson_checkpoint").select("cp_decay_half")
    at.button(key="lesson_add").click().run()
    set_shared(at, dim=64)
    at.button(key="lesson_add").click().run()
    at.switch_page("pages/rope.py").run()
    at.button(key="lesson_add").click().run()
    return at


def test_a_teacher_builds_reorders_and_walks_a_lesson(open_page):
    at = build(open_page)
    steps = at.session_state["lesson_steps"]
    assert [(s.page, s.settings["dim"], s.checkpoint, s.note) for s in steps] == [
        ("decay", 128, "cp_decay_half", "Where is half?"),
        ("decay", 64, None, ""),
        ("rope", 64, None, ""),
    ]
    link = next(str(code.value) for code in at.code if "lesson=" in str(code.value))
    assert decode_link(link.split("lesson=")[1].split("&")[0]) == steps  # the shared link is the lesson
    at.button(key="lesson_up_2").click().run()  # rope moves before the second decay step
    assert [s.page for s in at.session_state["lesson_steps"]] == ["decay", "rope", "decay"]
    at.button(key="lesson_previous").click().run()  # from the added step (now the 2nd) back to the 1st
    assert at.session_state["lesson_at"] == 0 and at.session_state["shared_dim"] == 128
    asked = order(at)
    assert asked["keys"] and asked["order"]["page"] == "decay" and asked["order"]["checkpoint"] == "cp_decay_half"
    at.switch_page("pages/decay.py").run()  # what the browser does
    at.button(key="lesson_remove_1").click().run()
    assert [s.page for s in at.session_state["lesson_steps"]] == ["decay", "decay"]
    at.button(key="lesson_next").click().run()
    assert at.session_state["lesson_at"] == 1 and at.session_state["shared_dim"] == 64
    assert at.query_params["step"] == "2" and decode_link(at.query_params["lesson"]) == at.session_state["lesson_steps"]


def test_a_student_walks_a_lesson_link_alone(open_page):
    lesson = (Step("decay", {"base": 500000.0, "dim": 64}, "cp_decay_turns", "Count the turns"), Step("rope", {}))
    at = open_page("pages/home.py", query={"lesson": encode_link(lesson), "lang": "en"})
    assert order(at)["order"]["page"] == "decay" and at.session_state["shared_base"] == 500000.0
    at.switch_page("pages/decay.py").run()
    assert EN["lesson.solo"].format(step=1, steps=2) in " ".join(c.value for c in at.caption)
    assert any("Count the turns" in m.value for m in at.markdown)
    at.button(key="lesson_next").click().run()
    assert order(at)["order"]["page"] == "rope" and at.session_state["lesson_at"] == 1


@pytest.mark.parametrize("link", ["garbage", encode_link([Step("decay", {})])[:-4] + "!!!!"])
def test_a_bad_lesson_link_opens_the_page_with_one_line_and_no_lesson(open_page, link):
    at = open_page("pages/home.py", query={"lesson": link})
    assert not at.exception and at.session_state["lesson_steps"] == ()
    assert [w.value for w in at.warning] == [EN["lesson.err_not_a_lesson"]]
    assert "lesson" not in at.query_params


@pytest.fixture
def room(tmp_path, monkeypatch):
    room = Classroom(open_store(f"sqlite:///{tmp_path / 'classes.sqlite3'}"))
    monkeypatch.setattr(ui.classroom, "classroom", lambda: room)
    return room


def test_in_a_class_the_lesson_is_kept_with_the_class_and_its_step_followed(open_page, room):
    at = open_page("pages/decay.py", query={"present": "1"}, state={"class_browser": TEACHER_ID})
    at.button(key="class_start").click().run()
    code, secret = at.session_state["class_code"], at.session_state["class_secret"]
    at.button(key="lesson_add").click().run()
    at.switch_page("pages/rope.py").run()
    at.button(key="lesson_add").click().run()
    assert [s.page for s in room.lesson(code).value] == ["decay", "rope"]
    at.button(key="lesson_previous").click().run()
    view = room.view(code).value[1]
    assert (view.step.page, view.index) == ("decay", 0)  # published before the teacher's browser got there
    at.run()  # a full run still on rope, the browser on its way: the class is not sent back
    assert room.view(code).value[1].step.page == "decay"
    reload = open_page("pages/decay.py", query={"present": "1", "class": code},
                       state={"class_browser": TEACHER_ID, "class_secret": secret})  # fmt: skip
    assert [s.page for s in reload.session_state["lesson_steps"]] == ["decay", "rope"]
    assert reload.session_state["lesson_at"] == 0


def test_a_session_without_the_teachers_rights_cannot_walk_the_class_and_nothing_is_stored(open_page, room):
    """A student who edits the teacher's link into theirs (presenter mode, the lesson, the class) gets the lesson
    panel, but Next refuses with one line: the class's view is not moved, nothing is stored."""
    teacher = open_page("pages/decay.py", query={"present": "1"}, state={"class_browser": TEACHER_ID})
    teacher.button(key="class_start").click().run()
    code = teacher.session_state["class_code"]
    teacher.button(key="lesson_add").click().run()
    teacher.switch_page("pages/rope.py").run()
    teacher.button(key="lesson_add").click().run()
    teacher.button(key="lesson_previous").click().run()
    kept, lesson = room.view(code).value, room.lesson(code).value
    assert kept[1].index == 0
    forged = {"present": "1", "class": code, "lesson": encode_link(lesson), "step": "1"}
    student = open_page("pages/decay.py", query=forged, state={"class_browser": "student0123456789abcdef"})
    student.button(key="lesson_next").click().run()
    assert [i.value for i in student.info] == [EN["classroom.err_not_teacher"]]
    assert student.session_state["lesson_at"] == 0  # not even the student's own screen moved
    assert room.view(code).value == kept and room.lesson(code).value == lesson  # nothing moved, nothing stored


def test_a_session_without_the_teachers_rights_is_refused_even_when_its_button_is_out_of_date(open_page, room):
    """The refusal comes before the "pressed twice" check: a student whose lesson step moved between the drawing of
    Next and the press (a poll of the class, its first run still drawing) gets the line too, not silence."""
    teacher = open_page("pages/decay.py", query={"present": "1"}, state={"class_browser": TEACHER_ID})
    teacher.button(key="class_start").click().run()
    code = teacher.session_state["class_code"]
    teacher.button(key="lesson_add").click().run()
    teacher.button(key="lesson_add").click().run()
    forged = {"present": "1", "class": code, "lesson": encode_link(room.lesson(code).value), "step": "1"}
    student = open_page("pages/decay.py", query=forged, state={"class_browser": "student0123456789abcdef"})
    student.session_state["lesson_at"] = 1  # moved under the drawn button
    student.button(key="lesson_next").click().run()
    assert [i.value for i in student.info] == [EN["classroom.err_not_teacher"]]
    assert student.session_state["lesson_at"] == 1
