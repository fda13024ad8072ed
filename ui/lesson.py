"""Lessons: a teacher's sequence of steps (page, settings, optional checkpoint, a one-line note), walked with
Previous / Next or the keys a presentation clicker sends (→ ← Page Down Page Up).

In presenter mode the lesson panel builds it ("Add this view as a step", reorder, remove), shares it as one link
(``?lesson=<URL-safe base64 of its JSON>&step=<n>``, mirrored in the URL while a lesson is open) and saves or loads
it as a small JSON file. Every lesson that comes in (a link, a file) is read by :mod:`classroom.lesson`: a bad one is
refused whole with one line. In a class the lesson and its step live in the class store, so the teacher's reload
keeps them and every following student sees the step (ui/follow.py); a student without a class walks a lesson link
alone, at their own pace, with the same buttons and keys.

Going to a step stores its settings at once; another page is opened by the browser (``static/follow.js``), the
checkpoint brought into view there.
"""

from __future__ import annotations

import streamlit as st

from classroom.lesson import (
    MAX_NOTE_CHARS,
    MAX_STEPS,
    LessonError,
    Step,
    decode_link,
    encode_link,
    lesson_json,
    parse_json,
    read_lesson,
)
from ui import classroom as class_mode
from ui import follow
from ui.i18n import shown_values
from ui.language import NOTICES, current_language, t
from ui.limits import SHARED_NAMES
from ui.menu import CHECKPOINTS, PAGES

STEPS = "lesson_steps"  # the open lesson: a tuple of classroom.lesson.Step
AT = "lesson_at"  # the index of the step shown, or None
_ORDER = "lesson_order"  # the instruction for the browser after a step (another page, a checkpoint)
_MESSAGE = "lesson_message"  # (key, params) of the last refused file or step, shown once
_KEY_AT = "lesson_key_at"  # the stamp of the last key press acted on (see _keyed_move)
TITLES = {page.name: page.title_key for page in PAGES}


def refusal(error: LessonError) -> tuple[str, dict]:
    """A refused lesson as one line's catalog key and parameters (a step's reason translated into it)."""
    params = dict(error.params)
    if "why" in params:  # its numbers grouped as the language writes them, as show_url_notices groups the rest
        lang = current_language()
        params["why"] = t(params["why"], **shown_values(lang, params))
    return error.key, params


def init_lesson() -> None:
    """On a session's first run: open the lesson the link carries (``?lesson=…&step=…``), or say why not. A
    teacher who reloads gets the class's lesson back."""
    if STEPS not in st.session_state:
        st.session_state[STEPS] = ()
        if "lesson" in st.query_params:
            try:
                steps = decode_link(st.query_params.get_all("lesson"))
            except LessonError as error:
                st.session_state.setdefault(NOTICES, []).append(refusal(error))
                return
            st.session_state[STEPS] = steps
            raw = st.query_params.get("step", "1")
            number = int(raw) if raw.isdigit() and 1 <= int(raw) <= len(steps) else 1
            go_to(number - 1)
    if class_mode.teaching() and not st.session_state[STEPS]:
        code = class_mode.class_code()
        kept = class_mode.classroom().lesson(code).value or ()
        if kept:
            st.session_state[STEPS] = kept
            seen = class_mode.classroom().view(code).value
            index = seen[1].index if seen and seen[1] is not None else None
            st.session_state[AT] = index if index is not None and index < len(kept) else None


def steps() -> tuple[Step, ...]:
    return st.session_state.get(STEPS, ())


def go_to(index: int) -> None:
    """Show step ``index``: its settings now, its page (by the browser) and checkpoint next; the class follows."""
    lesson = steps()
    if not 0 <= index < len(lesson):
        return
    from ui.shared import set_shared_values

    step = lesson[index]
    st.session_state[AT] = index
    set_shared_values(step.settings)
    page = follow.page_running() or follow.page_now()  # a session's first run has noted no page yet
    pending = page not in (None, step.page)
    st.session_state[follow.STEP] = {"index": index, "note": step.note, "page": step.page,
                                     "checkpoint": step.checkpoint, "pending": pending}  # fmt: skip
    target = follow.url_path(step.page) if pending else None
    st.session_state[_ORDER] = follow.new_order(page=target, checkpoint=step.checkpoint)
    if class_mode.teaching():
        view = step.as_dict() | {"index": index}
        if class_mode.classroom().show(class_mode.class_code(), st.session_state.get(class_mode.SECRET), view).ok:
            st.session_state[follow.PUBLISHED] = view


def move(by: int) -> None:
    """One step on or back (a key). In a class only the teacher's session walks the lesson (the class follows it):
    any other session that tries (a student's, the teacher's link edited in) is refused with one line."""
    if _refused():
        return
    at = st.session_state.get(AT)
    go_to(0 if at is None else at + by)


def _walk(index: int, drawn: tuple) -> None:
    """Previous / Next: go to the step the button was drawn for, once (see :func:`_unchanged`). A session without the
    teacher's rights is refused first, whatever has changed since its button was drawn (a poll, its first run)."""
    if not _refused() and _unchanged(drawn):
        go_to(index)


def _refused() -> bool:
    """In a class, a session without the teacher's rights moves nothing: one line says why."""
    if not class_mode.class_code() or class_mode.teaching():
        return False
    known = class_mode.BROWSER in st.session_state  # before it is, a teacher's reload has not its rights yet
    st.session_state[_MESSAGE] = ("classroom.err_not_teacher" if known else "classroom.err_no_browser", {})
    return True


def _drawn() -> tuple:
    """The lesson and its step as a button is drawn, for its callback to check (:func:`_unchanged`)."""
    return steps(), st.session_state.get(AT)


def _unchanged(drawn: tuple) -> bool:
    """Whether the lesson is still as the pressed button was drawn. Streamlit can deliver one press twice (a
    click's rerun coalesced with the polled fragments' reruns replays its trigger): the second finds the lesson
    changed and does nothing, so one press adds, moves or removes one step."""
    return drawn == _drawn()


def _keyed_move() -> None:
    """The browser's key (→ ← Page Down Page Up): one step on or back, once per press. The browser stamps each press
    (``at``, its clock in ms); Streamlit can deliver one trigger twice (a rerun coalesced with the polled fragments'
    replays it), so a stamp already acted on, or none, moves nothing."""
    sent = (st.session_state.get("lesson_element") or {}).get("step")
    if not isinstance(sent, dict) or sent.get("by") not in (1, -1) or type(sent.get("at")) not in (int, float):
        return
    if sent["at"] == st.session_state.get(_KEY_AT):
        return
    st.session_state[_KEY_AT] = sent["at"]
    move(sent["by"])


def mirror_lesson_in_url() -> None:
    """``lesson`` and ``step`` in the link while a lesson is open (so a reload or a copied link keeps it)."""
    lesson = steps()
    wanted = {"lesson": encode_link(lesson), "step": str(st.session_state.get(AT, 0) + 1)} if lesson else {}
    for name in ("lesson", "step"):
        if name in wanted and st.query_params.get(name) != wanted[name]:
            st.query_params[name] = wanted[name]
        elif name not in wanted and name in st.query_params:
            del st.query_params[name]


def _changed(lesson: tuple[Step, ...], at: int | None) -> None:
    """Keep an edited lesson (in the class store too, when teaching)."""
    st.session_state[STEPS] = lesson
    st.session_state[AT] = at
    if class_mode.teaching() and lesson:
        class_mode.classroom().save_lesson(class_mode.class_code(), st.session_state.get(class_mode.SECRET), lesson)


def _add_step(drawn: tuple) -> None:
    from ui.shared import shared_value

    if not _unchanged(drawn):
        return
    raw = {"page": follow.page_now() or PAGES[0].name, "note": st.session_state.get("lesson_note", ""),
           "settings": {name: shared_value(name) for name in SHARED_NAMES}}  # fmt: skip
    if st.session_state.get("lesson_checkpoint"):
        raw["checkpoint"] = st.session_state["lesson_checkpoint"]
    try:
        lesson = read_lesson([*(step.as_dict() for step in steps()), raw])
    except LessonError as error:
        st.session_state[_MESSAGE] = refusal(error)
        return
    st.session_state["lesson_note"], st.session_state["lesson_checkpoint"] = "", None
    _changed(lesson, len(lesson) - 1)


def _reorder(index: int, by: int, drawn: tuple) -> None:
    if not _unchanged(drawn):
        return
    lesson, other = list(steps()), index + by
    if 0 <= other < len(lesson):
        lesson[index], lesson[other] = lesson[other], lesson[index]
        at = st.session_state.get(AT)
        _changed(tuple(lesson), other if at == index else index if at == other else at)


def _remove(index: int, drawn: tuple) -> None:
    if not _unchanged(drawn):
        return
    lesson = steps()[:index] + steps()[index + 1 :]
    at = st.session_state.get(AT)
    _changed(lesson, None if at is None or not lesson else min(at - (at > index), len(lesson) - 1))


def _load_file() -> None:
    upload = st.session_state.get("lesson_file")
    if upload is None:
        return
    try:
        lesson = read_lesson(parse_json(upload.getvalue()))
    except LessonError as error:
        st.session_state[_MESSAGE] = refusal(error)
        return
    _changed(lesson, None)
    st.session_state[_MESSAGE] = ("lesson.loaded", {"steps": len(lesson)})
    go_to(0)


# drawing -------------------------------------------------------------------------------------------------------
def lesson_bar() -> None:
    """Presenter mode: the lesson panel. Walking a lesson link alone: Previous / Next and the step's note. A student
    in a class: nothing (the class follows the teacher)."""
    from ui.presenter import presenting

    if presenting():
        _panel()
    elif steps() and not class_mode.class_code():
        _walk_buttons(t("lesson.solo", step=(st.session_state.get(AT) or 0) + 1, steps=len(steps())))
    if steps() and not (class_mode.class_code() and not class_mode.teaching()):  # a following student has none
        follow.browser_order(st.session_state.get(_ORDER), "lesson_element", keys=True, on_step=_keyed_move)
    mirror_lesson_in_url()


def _walk_buttons(title: str) -> None:
    at = st.session_state.get(AT)
    back, where, on = st.columns([2, 5, 2], vertical_alignment="center")
    back.button(t("lesson.previous"), key="lesson_previous", icon=":material/arrow_back:", on_click=_walk,
                args=((at or 0) - 1, _drawn()), disabled=not at, width="stretch")  # fmt: skip
    where.caption(title)
    on.button(t("lesson.next"), key="lesson_next", icon=":material/arrow_forward:", on_click=_walk,
              args=(0 if at is None else at + 1, _drawn()),
              disabled=at is not None and at >= len(steps()) - 1, width="stretch")  # fmt: skip
    if at is not None and steps()[at].note:
        st.markdown(f"**{steps()[at].note}**")


def _panel() -> None:
    lesson, at = steps(), st.session_state.get(AT)
    title = t("lesson.title_steps", step=at + 1, steps=len(lesson)) if at is not None else t("lesson.title")
    with st.expander(title, expanded=not lesson, icon=":material/format_list_numbered:"):
        message = st.session_state.pop(_MESSAGE, None)
        if message:
            st.info(t(message[0], **message[1]), icon=":material/info:")
        if lesson:
            _walk_buttons(t("lesson.keys_help"))
            for index, step in enumerate(lesson):
                _step_row(index, step, index == at)
        else:
            st.caption(t("lesson.empty"))
        _add_form()
        if lesson:
            link = f"{(st.context.url or '').split('?')[0]}?lesson={encode_link(lesson)}&lang={current_language()}"
            st.markdown(t("lesson.link_label"))
            st.code(link, language=None, wrap_lines=True)
            st.download_button(t("lesson.download"), lesson_json(lesson), file_name="lesson.json",
                               mime="application/json", icon=":material/download:", key="lesson_download")  # fmt: skip
        st.file_uploader(t("lesson.upload"), type=["json"], key="lesson_file", on_change=_load_file)


def _step_row(index: int, step: Step, current: bool) -> None:
    settings = " · ".join(f"{t(f'shared.{name}_label')} = {value:g}" for name, value in step.settings.items())
    line = t("lesson.step_line", number=index + 1, page=t(TITLES[step.page]), settings=settings)
    words, up, down, remove = st.columns([5, 2, 2, 2], vertical_alignment="center")
    words.markdown(f"**{line}**" if current else line)
    if step.note:
        words.caption(step.note)
    # worded buttons: a screen reader names them, and each is a full-size target on a phone
    up.button(t("lesson.move_up"), key=f"lesson_up_{index}", icon=":material/arrow_upward:", on_click=_reorder,
              args=(index, -1, _drawn()), disabled=index == 0, width="stretch")  # fmt: skip
    down.button(t("lesson.move_down"), key=f"lesson_down_{index}", icon=":material/arrow_downward:",
                on_click=_reorder, args=(index, 1, _drawn()), disabled=index == len(steps()) - 1,
                width="stretch")  # fmt: skip
    remove.button(t("lesson.remove"), key=f"lesson_remove_{index}", icon=":material/delete:", on_click=_remove,
                  args=(index, _drawn()), width="stretch")  # fmt: skip


def _checkpoint_name(page: str, key: str | None) -> str:
    if key is None:
        return t("lesson.no_checkpoint")
    return t("lesson.checkpoint_number", number=CHECKPOINTS[page].index(key) + 1)


def _add_form() -> None:
    page = follow.page_now()
    if page is None or len(steps()) >= MAX_STEPS:
        return
    note, checkpoint = st.columns([3, 2])
    note.text_input(t("lesson.note_label"), key="lesson_note", max_chars=MAX_NOTE_CHARS)
    # the names worded now: AppTest replays format_func later, outside this run's language (ui/patch_grid.py)
    names = {key: _checkpoint_name(page, key) for key in (None, *CHECKPOINTS.get(page, ()))}
    checkpoint.selectbox(t("lesson.checkpoint_label"), list(names), key="lesson_checkpoint",
                         format_func=names.get)  # fmt: skip
    st.button(t("lesson.add_step"), key="lesson_add", icon=":material/add:", on_click=_add_step, args=(_drawn(),),
              help=t("lesson.add_step_help"))  # fmt: skip
