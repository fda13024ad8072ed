"""Follow the teacher (ui/follow.py) in AppTest, over a real SQLite class store in a temporary folder: a teacher's
session publishes its page, settings and checkpoint; a student's session asks its browser to follow them, stops
following when the student moves a control or opens another page, and follows again on one button; the teacher's
panel counts both. AppTest runs no browser code: the tests read what the page asked the browser to do (the follow
element's data), and do it as the browser would (open the page; say the values were committed); a poll's rerun, which
takes the teacher's values itself, is its callback run from a button (AppTest fires no component triggers)."""

from __future__ import annotations

import pytest
from conftest import element_data, set_shared

import ui.classroom
from classroom.service import Classroom
from classroom.store import open_store
from ui.follow import BROWSER_DONE, MODE, OPEN_SECTIONS
from ui.i18n import catalog

EN = catalog("en")
TEACHER_ID, STUDENT_ID = "teacher0123456789abcdef", "student0123456789abcdef"


@pytest.fixture
def room(tmp_path, monkeypatch):
    room = Classroom(open_store(f"sqlite:///{tmp_path / 'classes.sqlite3'}"))
    monkeypatch.setattr(ui.classroom, "classroom", lambda: room)
    return room


def order(at) -> dict | None:
    """What the page last asked the browser to do (static/follow.js's instruction)."""
    elements = [e for e in at.get("bidi_component") if e.proto.component_name.endswith("posenc_lab_follow")]
    return element_data(elements[-1])["order"] if elements else None


def captions(at) -> str:
    return " ".join(str(element.value) for element in at.caption)


def teacher_class(open_page, room):
    at = open_page("pages/relative.py", query={"present": "1"}, state={"class_browser": TEACHER_ID})
    at.button(key="class_start").click().run()
    return at, at.session_state["class_code"]


def test_a_student_follows_the_teachers_page_then_values_then_checkpoint(open_page, room):
    teacher, code = teacher_class(open_page, room)
    seq, shown = room.view(code).value
    assert shown.step.page == "relative" and shown.step.settings["heads"] == teacher.session_state["shared_heads"]
    student = open_page("pages/home.py", query={"class": code}, state={"class_browser": STUDENT_ID})
    asked = order(student)
    assert asked["page"] == "relative"  # a late joiner lands where the teacher is
    student.switch_page("pages/relative.py").run()  # what the browser does with it
    assert student.session_state[MODE] == "follow"
    set_shared(teacher, heads=12, length=256)
    assert room.view(code).value[0] > seq
    student.run()  # the next poll
    asked = order(student)
    assert asked["values"] == {"heads": 12, "length": 256}
    assert student.session_state["shared_heads"] != 12  # not before the browser set its store and committed
    student.session_state[BROWSER_DONE] = True
    student.run()
    assert (student.session_state["shared_heads"], student.session_state["shared_length"]) == (12, 256)
    assert student.query_params["heads"] == "12"
    assert student.session_state[MODE] == "follow"  # the teacher's values are not the student's own move
    teacher.toggle(key="cp_rel_alibi_class_chart").set_value(True).run()  # the teacher shows a checkpoint's answers
    student.run()
    assert order(student)["checkpoint"] == "cp_rel_alibi"
    assert EN["lesson.following"] in captions(student)


def waiting(at) -> set[str]:
    """Keys of the sections the last run left waiting for the browser (ui/sections.py's deferred element)."""
    elements = [e for e in at.get("bidi_component") if e.proto.component_name.endswith("posenc_lab_deferred")]
    return {element_data(element)["key"] for element in elements}


def test_a_page_step_draws_the_top_of_the_page_and_the_rest_when_near(open_page, room):
    """The relative page's sections, top to bottom: Shaw, T5, ALiBi (pages/relative.py). A class opening the
    teacher's page draws the first (what a student sees at the page's top); T5's and ALiBi's wait, without their
    checkpoints, until the browser has them in view or near; the next full run draws them."""
    _teacher, code = teacher_class(open_page, room)
    student = open_page("pages/home.py", query={"class": code}, state={"class_browser": STUDENT_ID})
    assert order(student)["page"] == "relative"
    student.switch_page("pages/relative.py").run()  # the page step, as the browser's router asks for it
    assert OPEN_SECTIONS == 1 and waiting(student) == {"relative_t5", "relative_alibi"}
    assert not [w for w in student.get("radio") if str(w.key).startswith(("cp_rel_alibi", "cp_rel_t5"))]
    student.run()  # a later full run (a checkpoint's answer makes one) draws every section
    assert waiting(student) == set()


def test_a_page_step_draws_the_section_of_the_checkpoint_the_teacher_shows(open_page, room):
    teacher, code = teacher_class(open_page, room)
    teacher.toggle(key="cp_rel_alibi_class_chart").set_value(True).run()  # the teacher shows ALiBi's answers
    student = open_page("pages/home.py", query={"class": code}, state={"class_browser": STUDENT_ID})
    asked = order(student)
    assert (asked["page"], asked["checkpoint"], asked["section"]) == ("relative", "cp_rel_alibi", "relative_alibi")
    student.switch_page("pages/relative.py").run()
    assert waiting(student) == {"relative_t5"}  # ALiBi's section is drawn: the browser brings its checkpoint into view


def test_a_page_step_on_a_replica_that_has_not_drawn_the_checkpoint_yet_draws_the_whole_page(open_page, room):
    """Which section a checkpoint is in is learnt as pages run (ui.sections.SECTION_OF): a replica just started has
    not seen it, and the student's page step then draws every section, so the box the browser scrolls to is there."""
    from ui.sections import SECTION_OF

    teacher, code = teacher_class(open_page, room)
    teacher.toggle(key="cp_rel_alibi_class_chart").set_value(True).run()  # the teacher shows ALiBi's answers
    learnt = dict(SECTION_OF)
    SECTION_OF.clear()  # as on a replica that has just started
    try:
        student = open_page("pages/home.py", query={"class": code}, state={"class_browser": STUDENT_ID})
        assert order(student)["checkpoint"] == "cp_rel_alibi" and "section" not in order(student)
        SECTION_OF.clear()  # the home page drew no section; the page step's run is the first to see relative's
        student.switch_page("pages/relative.py").run()
        assert waiting(student) == set() and student.container(key="cp_rel_alibi_box") is not None
    finally:
        SECTION_OF.update(learnt)


def test_a_following_tab_that_opens_the_teachers_page_itself_takes_the_class_view(open_page, room):
    """static/follow.js opens the teacher's page on a poll without the follow line's rerun (teacherPage): that page's
    run reads the class's view, takes the teacher's values, stays following and draws the top of the page."""
    teacher, code = teacher_class(open_page, room)
    student = open_page("pages/relative.py", query={"class": code}, state={"class_browser": STUDENT_ID})
    teacher.switch_page("pages/sinusoidal.py").run()
    set_shared(teacher, dim=256, base=500000.0)
    assert room.view(code).value[1].step.page == "sinusoidal"
    student.switch_page("pages/sinusoidal.py").run()  # the router, as teacherPage asks it
    assert student.session_state[MODE] == "follow"
    assert (student.session_state["shared_dim"], student.session_state["shared_base"]) == (256, 500000.0)
    # the sinusoidal page's sections, top to bottom (pages/sinusoidal.py): the first is drawn
    assert waiting(student) == {"sin_waves", "sin_similarity", "sin_shift", "sin_naive", "sin_add", "sin_learned"}
    student.switch_page("pages/decay.py").run()  # a page the teacher does not show: the student's own way
    assert student.session_state[MODE] == "explore" and student.session_state["shared_dim"] == 256


def test_moving_a_control_or_opening_a_page_explores_and_one_button_follows_again(open_page, room):
    teacher, code = teacher_class(open_page, room)
    student = open_page("pages/relative.py", query={"class": code}, state={"class_browser": STUDENT_ID})
    assert room.modes(code).value == {"follow": 1, "explore": 0}
    set_shared(student, heads=2)  # the student's own move
    assert student.session_state[MODE] == "explore" and student.session_state["shared_heads"] == 2
    assert EN["lesson.exploring"] in captions(student) and room.modes(code).value == {"follow": 0, "explore": 1}
    set_shared(teacher, heads=12)
    student.run()
    assert order(student) is None and student.session_state["shared_heads"] == 2  # left alone
    teacher.run()
    assert EN["lesson.modes"].format(follow=0, explore=1) in captions(teacher)  # the teacher's count
    student.button(key="follow_again").click().run()
    assert order(student)["values"] == {"heads": 12} and room.modes(code).value == {"follow": 1, "explore": 0}
    student.session_state[BROWSER_DONE] = True
    student.switch_page("pages/sinusoidal.py").run()  # opens a page the teacher did not show
    assert student.session_state[MODE] == "explore"
    assert EN["lesson.exploring"] in captions(student)


def test_outside_a_class_nothing_polls_or_follows(open_page, room):
    at = open_page("pages/relative.py")
    assert order(at) is None and MODE not in at.session_state


def test_a_page_in_the_class_follows_nothing_until_its_browser_is_known(open_page, room):
    """The teacher's own reload opens as a student until its browser sends the secret: it must not be moved."""
    _teacher, code = teacher_class(open_page, room)
    reload = open_page("pages/sinusoidal.py", query={"class": code, "present": "1"})
    assert order(reload) is None and room.view(code).value[1].step.page == "relative"


def _poll_script():
    """A student's tab on page ``page`` with its follow line drawn; the button stands for the follow element's
    ``poll`` trigger (AppTest fires no component triggers), whose callback is ui.follow's."""
    import streamlit as st

    from ui import follow
    from ui.shared import init_shared_state

    init_shared_state()
    st.session_state[follow.PAGE_NOW] = st.session_state[follow._LINE_DRAWN] = st.session_state["page"]
    st.button("poll", key="poll", on_click=follow._polled)


def polled_tab(room, page: str, mode: str = "follow"):
    from streamlit.testing.v1 import AppTest

    code, secret = room.start(TEACHER_ID).value
    at = AppTest.from_function(_poll_script)
    for key, value in {"class_code": code, "page": page, MODE: mode, "shared_heads": 8, "shared_dim": 64}.items():
        at.session_state[key] = value
    return at.run(), code, secret


@pytest.mark.parametrize(("page", "mode", "moved"), [("relative", "follow", True), ("decay", "follow", False),
                                                     ("relative", "explore", False)])  # fmt: skip
def test_a_poll_takes_the_teachers_values_on_the_same_page_in_its_own_rerun(room, page, mode, moved):
    """The poll's rerun stores the view's values itself (the browser only sets its store: ``stored``, no commit
    back), as a link's are validated; another page's view is left to the line's rerun (it opens the page), and an
    exploring student is not moved."""
    at, code, secret = polled_tab(room, page, mode)
    assert room.show(code, secret, {"page": "relative", "settings": {"heads": 12, "dim": 128}}).ok
    at.button(key="poll").click().run()
    values = (at.session_state["shared_heads"], at.session_state["shared_dim"])
    assert values == ((12, 128) if moved else (8, 64))
    asked = at.session_state.get("follow_order")
    if not moved:
        assert asked is None
    else:
        assert (asked["values"], asked["stored"]) == ({"heads": 12, "dim": 128}, True)
        assert at.session_state[MODE] == "follow" and at.query_params["heads"] == "12"
        at.button(key="poll").click().run()  # the same view again: nothing more to take
        assert at.session_state["follow_order"] == asked


def test_a_poll_that_takes_the_teachers_values_names_the_section_of_the_checkpoint_too(room):
    """A step on the same page with other values and a checkpoint (the poll's own rerun takes it): the instruction
    names the checkpoint's section as well, so the browser scrolls to it while it may still wait to be drawn (a page
    step drew the page's top only), and its box then comes into view."""
    at, code, secret = polled_tab(room, "relative")
    view = {"page": "relative", "settings": {"heads": 12, "dim": 128}, "checkpoint": "cp_rel_alibi"}
    assert room.show(code, secret, view).ok
    at.button(key="poll").click().run()
    asked = at.session_state["follow_order"]
    assert (asked["stored"], asked["checkpoint"], asked["section"]) == (True, "cp_rel_alibi", "relative_alibi")


def commit_token(at) -> str | None:
    """The token the sidebar sent for commits over HTTP (ui.commit_http), or None: the tab commits on the page."""
    sidebar = [e for e in at.get("bidi_component") if e.proto.component_name.endswith("posenc_lab_shared")]
    return element_data(sidebar[-1]).get("tab")


def test_only_a_tab_whose_commit_needs_no_run_may_commit_over_http(open_page, room):
    teacher, code = teacher_class(open_page, room)
    assert commit_token(teacher) is None  # the teacher's commit publishes the class's view
    student = open_page("pages/relative.py", query={"class": code}, state={"class_browser": STUDENT_ID})
    assert commit_token(student) is None  # a following student who moves a control explores: the line says so
    set_shared(student, heads=2)
    assert student.session_state[MODE] == "explore"
    student.run()  # the line's run that made it explore beat "explore" after the sidebar was drawn
    token = commit_token(student)
    assert isinstance(token, str) and len(token) >= 20  # exploring: a commit changes nothing but the values
    assert commit_token(open_page("pages/relative.py")) not in (None, token)  # outside a class: a token of its own
