"""Predict, then see: a question above the chart that would give its answer away.

A page computes the answer from its current settings (``charts/checkpoints.py``) and calls
``checkpoint(key, question, choices, correct, explain_right, explain_wrong)``. The student picks an answer and presses
"Check": right or wrong, with one line of why. In presenter mode the button is "Reveal" and shows the right answer
without judging a pick. The answer is kept in the session state against the question as it was asked (its choices
and right answer), so when a slider changes the question, the old verdict is not shown for the new one. The charts
are never hidden: a student who skips the questions loses nothing. The sidebar counts the checkpoints answered on
this visit (session state only; nothing is stored anywhere else).
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from ui.classroom import class_checkpoint, class_code
from ui.i18n import sentences
from ui.language import t
from ui.menu import CHECKPOINTS
from ui.presenter import presenting
from ui.sections import note_checkpoint

ALL_CHECKPOINTS = tuple(key for keys in CHECKPOINTS.values() for key in keys)
ANSWERED = "checkpoints_answered"  # the set of checkpoint keys checked or revealed on this visit
_RERUN = "checkpoints_rerun"  # a checkpoint inside a fragment was answered: rerun the app so the sidebar counts it


def checkpoint(
    key: str,
    question: str,
    choices: Mapping[object, str],
    correct: object,
    explain_right: str,
    explain_wrong: str | Mapping[object, str],
) -> None:
    """A question with its choices (value -> words), a "Check" ("Reveal" when presenting) button and, once pressed,
    the verdict: ``explain_right`` for the right answer; for a wrong one, ``explain_wrong`` (one text, or one per
    choice) and then ``explain_right``."""
    note_checkpoint(key)  # a following student's browser scrolls to its section, which may be waiting
    if class_code():  # in a class: the answer goes to the class, and the teacher reveals (ui/classroom.py)
        class_checkpoint(key, question, choices, correct,
                         lambda result: _verdict(result, choices, correct, explain_right, explain_wrong),
                         explain_right, lambda: st.session_state.setdefault(ANSWERED, set()).add(key))  # fmt: skip
        return
    asked = repr((tuple(choices), correct))  # the question as asked now: other settings, another question
    result = shown_result(key, asked)  # a verdict on another question is not shown under this one
    if result is not None and f"{key}_choice" not in st.session_state:  # back on the page: show the pick again
        st.session_state[f"{key}_choice"] = result["chosen"]
    with st.container(border=True, key=f"{key}_box"):
        st.markdown(f"**{t('checkpoint.predict')}** {question}")
        st.radio(t("checkpoint.your_answer"), list(choices), index=None, format_func=lambda v: choices[v],
                 key=f"{key}_choice", label_visibility="collapsed")  # fmt: skip
        label = t("checkpoint.reveal") if presenting() else t("checkpoint.check")
        st.button(label, key=f"{key}_check", on_click=_check, args=(key, asked))
        if result is not None:
            _verdict(result, choices, correct, explain_right, explain_wrong)
    rerun_for_count()  # inside a fragment, only the fragment reran: the sidebar's count follows


def _verdict(result: dict, choices: Mapping, correct: object, explain_right: str, explain_wrong) -> None:
    """The answer to a pressed button, drawn (:func:`verdict_words`)."""
    tone, text = verdict_words(result, choices, correct, explain_right, explain_wrong)
    draw = {"info": st.info, "warning": st.warning, "success": st.success, "error": st.error}[tone]
    draw(text, icon=VERDICT_ICONS[tone])


VERDICT_ICONS = {"info": ":material/visibility:", "warning": ":material/touch_app:",
                 "success": ":material/check_circle:", "error": ":material/cancel:"}  # fmt: skip


def verdict_words(result: dict, choices: Mapping, correct: object, explain_right: str, explain_wrong) -> tuple:
    """The answer to a pressed button as (tone, words): revealed (presenter mode: "info"), "pick one first"
    ("warning"), right ("success"), or wrong with why ("error")."""
    chosen = result["chosen"]
    if result["revealed"]:
        return "info", sentences(t("checkpoint.revealed", answer=choices[correct]), explain_right)
    if chosen is None or chosen not in choices:
        return "warning", t("checkpoint.pick_first")
    if chosen == correct:
        return "success", sentences(t("checkpoint.right"), explain_right)
    why = explain_wrong.get(chosen, "") if isinstance(explain_wrong, Mapping) else explain_wrong
    return "error", sentences(t("checkpoint.wrong", answer=choices[correct]), why, explain_right)


def _check(key: str, asked: str) -> None:
    record_answer(key, asked, st.session_state.get(f"{key}_choice"))


def record_answer(key: str, asked: str, chosen: object) -> None:
    """Keep the answer ``chosen`` (None: no pick) to checkpoint ``key`` as it was ``asked`` (its choices and right
    answer), revealed when presenting, and count it answered (the sidebar's count follows on the next run)."""
    revealed = presenting()
    st.session_state[f"{key}_result"] = {"asked": asked, "chosen": chosen, "revealed": revealed}
    answered = st.session_state.setdefault(ANSWERED, set())
    if (chosen is not None or revealed) and key not in answered:
        answered.add(key)
        st.session_state[_RERUN] = True


def shown_result(key: str, asked: str) -> dict | None:
    """The answer kept for checkpoint ``key`` when it was asked as it is now (``asked``), else None."""
    result = st.session_state.get(f"{key}_result")
    return result if result is not None and result["asked"] == asked else None


def rerun_for_count() -> None:
    """After a first answer inside a fragment: rerun the app, so that the sidebar counts it."""
    if st.session_state.pop(_RERUN, False):
        st.rerun()


def progress_line() -> None:
    """The sidebar line "Checkpoints answered on this visit: 3 / 16"."""
    answered = len(st.session_state.get(ANSWERED, set()) & set(ALL_CHECKPOINTS))
    st.sidebar.caption(t("checkpoint.progress", answered=answered, total=len(ALL_CHECKPOINTS)))
