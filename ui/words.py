"""Words that quote the shared values (a notice's numbers, a checkpoint question), computed on the server and drawn
by the browser (``static/words.js``), so that a commit sends them with the sidebar's data instead of rerunning a
fragment for them.

``@words_part("rope_pair_numbers", uses=("dim", "base"))`` turns a function that *returns* what to show (a
:class:`Text`, a :class:`figures.table.Table`, a list of them, or a :class:`Question`) into a keyed fragment that
draws it as one browser element. It is a part of the section it is drawn in (ui.sections): a commit of any of
``uses`` does not rerun it. The commit's callback computes its words again, with the shared values as they are now
and its other arguments as its last run had them (:func:`compute_words`), and the sidebar's rerun sends them
(``said``, ui/shared.py). The tab's store keeps the newest words of each element (``version``), and the element
shows them. Streamlit builds no element for them, so a commit whose near sections need only words reruns the
sidebar alone, in one pass, or nothing at all (ui.commit_http).

A question is graded on the server. The element's "Check" sends the pick and the question as it was shown
(``asked``: a print of its words, never its answer). The callback grades it against the question at the values now;
a pick on a question that has changed since is dropped. The element's fragment reruns with the verdict. In a class a
question is a classic checkpoint (ui.checkpoint: the class's answers, the teacher's reveal), rerun by a commit as any
part is. A test answers by setting :data:`ANSWER` (``{checkpoint key: choice}``, or ``{"pick": its place}`` as the
browser picks) before a run.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
import json
import time
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

import streamlit as st

from figures.table import Table
from ui.checkpoint import checkpoint, record_answer, rerun_for_count, shown_result, verdict_words
from ui.classroom import class_code
from ui.component_data import component_data
from ui.language import t
from ui.limits import SHARED_NAMES
from ui.notice import notice_text
from ui.presenter import presenting
from ui.sections import keyed_part, note_checkpoint, note_part
from ui.static_files import STATIC_VERSION
from ui.table import table, table_html

ANSWER = "words_answer"  # {checkpoint key: choice} a test sets before a run: answered as the browser's Check does
_DRAWN = "words_drawn"  # part key -> (its function, its arguments at its last run, say): see note_computed
_SAID = "words_said"  # words computed by a commit, waiting for the sidebar's rerun to send them: [element data]


class Text(NamedTuple):
    """A paragraph: ``kind`` "markdown" (st.markdown's) or "caption" (st.caption's), with **bold**, *italics* and
    `code` as Markdown writes them."""

    kind: str
    text: str


class Question(NamedTuple):
    """A checkpoint (ui.checkpoint.checkpoint's arguments): a question, its choices (value -> words), the right
    one, and why (one text for the right answer; for a wrong one, one text or one per choice)."""

    key: str
    question: str
    choices: Mapping
    correct: object
    explain_right: str
    explain_wrong: str | Mapping


def caption(text: str) -> Text:
    return Text("caption", text)


def markdown(text: str) -> Text:
    return Text("markdown", text)


def notice_words(key: str, **params) -> Text:
    """ui.notice.notice's caption: "What to notice", then the catalog string ``key`` filled with ``params``."""
    return caption(notice_text(key, **params))


LOADER_JS = """
export default function (component) {
  // static/words.js with the release's version (see ui/live.py's loader)
  const script = new URL("app/static/words.js?v=STATIC_VERSION", window.location.href.replace(/[^/]*$/, ""));
  import(script.href).then((words) => words.render(component));
}
""".replace("STATIC_VERSION", STATIC_VERSION)

# no css: static/words.js brings its own, downloaded once, not sent with every element
_WORDS = st.components.v2.component("posenc_lab_words", js=LOADER_JS)


def forget_words() -> None:
    """At the top of every full run: the page's words are drawn anew."""
    st.session_state[_DRAWN] = {}
    st.session_state.pop(_SAID, None)


def asked_print(question: Question) -> str:
    """What identifies a question as shown (its words and its choices' words), not its answer: 12 hex digits."""
    shown = json.dumps([question.question, [str(words) for words in question.choices.values()]], ensure_ascii=False)
    return hashlib.blake2b(shown.encode(), digest_size=6).hexdigest()


def _asked(question: Question) -> str:
    """The question as ui.checkpoint keeps an answer against it: its choices and its right answer."""
    return repr((tuple(question.choices), question.correct))


def _parts(said) -> list:
    """What a words function returned, as a list of parts."""
    return list(said) if isinstance(said, list) else [said]


def _element_part(part) -> dict:
    """One part as the browser draws it: a paragraph, a table (ui.table's HTML, every cell escaped), or a question
    with the verdict on the answer kept for it."""
    if isinstance(part, Text):
        return {"kind": part.kind, "text": part.text}
    if isinstance(part, Table):
        return {"kind": "table", "html": table_html(part)}
    choices = list(part.choices)
    result = shown_result(part.key, _asked(part))
    verdict = None
    if result is not None:
        tone, text = verdict_words(result, part.choices, part.correct, part.explain_right, part.explain_wrong)
        verdict = {"tone": tone, "text": text}
    picked = choices.index(result["chosen"]) if result is not None and result["chosen"] in choices else None
    button = t("checkpoint.reveal") if presenting() else t("checkpoint.check")
    return {"kind": "question", "key": part.key, "lead": t("checkpoint.predict"), "question": part.question,
            "label": t("checkpoint.your_answer"), "choices": [str(part.choices[c]) for c in choices],
            "button": button, "asked": asked_print(part), "picked": picked, "verdict": verdict}  # fmt: skip


def element_data(key: str, said) -> dict:
    """The element's data: its key, a version (newer words win in the tab's store) and its parts."""
    return {"key": key, "version": said_version(), "parts": [_element_part(part) for part in _parts(said)]}


def said_version() -> int:
    """What orders the words and pictures of one element in the tab's store (newer wins): the server's clock in µs."""
    return time.time_ns() // 1000


def _classic(said) -> bool:
    """In a class a question is a classic checkpoint, drawn by Streamlit and rerun by commits."""
    return bool(class_code()) and any(isinstance(part, Question) for part in _parts(said))


def _draw_classic(said) -> None:
    for part in _parts(said):
        if isinstance(part, Question):
            checkpoint(part.key, part.question, part.choices, part.correct, part.explain_right, part.explain_wrong)
        elif isinstance(part, Table):
            table(part)
        elif part.kind == "caption":
            st.caption(part.text)
        else:
            st.markdown(part.text)


def _answer_from_test(said) -> None:
    """Answers a test set (:data:`ANSWER`): kept as the browser's Check keeps them."""
    answers = st.session_state.get(ANSWER)
    if not isinstance(answers, dict):
        return
    for part in _parts(said):
        if isinstance(part, Question) and part.key in answers:
            chosen, choices = answers.pop(part.key), list(part.choices)
            if isinstance(chosen, dict) and type(chosen.get("pick")) is int:  # by its place, as the browser picks
                chosen = choices[chosen["pick"]]
            record_answer(part.key, _asked(part), chosen if chosen in choices else None)


def words_part(key: str, uses: Iterable[str] = ()) -> Callable:
    """Decorator: the words ``function`` returns, drawn by the browser in a fragment keyed ``key`` that a commit of
    ``uses`` does not rerun: it computes the words and the sidebar sends them (see the module's docstring)."""
    uses = tuple(uses)

    def body(function: Callable, bound: inspect.BoundArguments) -> None:
        said = function(*bound.args, **bound.kwargs)
        for part in _parts(said):
            if isinstance(part, Question):
                note_checkpoint(part.key)
        classic = _classic(said)
        note_part(key, uses, computed=not classic)
        if classic:
            _draw_classic(said)
            return
        note_computed(key, function, bound.arguments, lambda now: [element_data(key, now)])
        _answer_from_test(said)
        data = component_data(element_data(key, said))
        questions = [part.key for part in _parts(said) if isinstance(part, Question)]
        # a question's box keeps the classic checkpoint's key: a lesson's step scrolls to it (static/follow.js)
        with st.container(key=f"{questions[0]}_box") if questions else contextlib.nullcontext():
            _WORDS(data=data, key=f"words-{key}", on_check_change=functools.partial(_check, key))
        rerun_for_count()

    return keyed_part(key, body)


def note_computed(key: str, function: Callable, arguments: Mapping, say: Callable[[object], list[dict]]) -> None:
    """Part ``key`` of the page now shown is computed by a commit, not rerun: ``function`` with ``arguments`` (its
    last run's; the shared values among them are taken as they are then), and ``say`` turns what it returns into
    the entries the sidebar sends (``said``: each ``{"key", "version", ...}``, for the browser element of that key).
    Words parts note themselves; so do the figure parts (ui.figure.figure_part)."""
    st.session_state.setdefault(_DRAWN, {})[key] = _Drawn(function, dict(arguments), say)


class _Drawn(NamedTuple):
    """A part of the page now shown that a commit computes (:func:`note_computed`)."""

    function: Callable
    arguments: dict  # its last run's
    say: Callable[[object], list[dict]]  # what it returns -> the sidebar's entries


def _now(key: str):
    """What the part ``key``'s function returns at the shared values now (None if this page did not draw it)."""
    from ui.shared import shared_value

    entry = st.session_state.get(_DRAWN, {}).get(key)
    if entry is None:
        return None
    arguments = {name: shared_value(name) if name in SHARED_NAMES else value for name, value in entry.arguments.items()}
    return entry.function(**arguments)


def compute_words(keys: Iterable[str]) -> None:
    """From a commit's callback: the words (or pictures) of the parts ``keys`` at the values now, for the sidebar's
    rerun to send."""
    said = st.session_state.setdefault(_SAID, [])
    for key in keys:
        now = _now(key)
        if now is not None:
            said.extend(st.session_state[_DRAWN][key].say(now))


def pending_words() -> list[dict]:
    """The words (and pictures) a commit computed, to send once (the sidebar's data: ``said``)."""
    return st.session_state.pop(_SAID, None) or []


def _check(key: str) -> None:
    """The browser's Check (or Reveal): ``{"question": its key, "pick": index or null (none picked), "asked": the
    print of the question as shown}``. Graded against the question at the values now; anything malformed, a pick that
    is not one of its choices, or a pick on a question that has changed since, is dropped, never stored (the
    fragment's rerun shows the question as it is now)."""
    sent = (st.session_state.get(f"words-{key}") or {}).get("check")
    now = _now(key)
    if not isinstance(sent, dict) or now is None:
        return
    for part in _parts(now):
        if isinstance(part, Question) and part.key == sent.get("question") and asked_print(part) == sent.get("asked"):
            choices, pick = list(part.choices), sent.get("pick")
            if pick is not None and not (type(pick) is int and 0 <= pick < len(choices)):
                return  # not a choice of this question: dropped
            record_answer(part.key, _asked(part), None if pick is None else choices[pick])
