"""The rules of a class: who may do what, what an answer may be, and the bounds. No Streamlit.

Every method takes untrusted input (a code from a URL, a choice sent by a page, a secret from a browser's storage)
and returns an :class:`Outcome`: ``ok``, a catalog key saying what happened (``classroom.*``, in en/ko/zh), and a
value. Nothing here raises for bad input or for a store that is down, and nothing bad is stored: the code, the
question, the browser id and the choice are all checked before the store is asked to write.

The bounds: a class lives :data:`CLASS_HOURS` hours; one teacher's browser runs at most
:data:`MAX_CLASSES_PER_TEACHER` classes at once; a class asks at most :data:`MAX_POLLS` questions, each in at most
:data:`MAX_ROUNDS` rounds; a browser answers once per round and may change that answer :data:`MAX_CHANGES` times.
Only the teacher's secret moves the class's view or changes its lesson, both validated by :mod:`classroom.lesson`
before anything is stored; a browser's heartbeat counts for :data:`BEAT_TTL_S` seconds, for at most
:data:`MAX_BROWSERS` browsers per class.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import redis

from classroom.codes import new_code, new_secret, read_browser_id, read_code, secret_hash, secret_matches
from classroom.lesson import LessonError, Step, View, lesson_json, read_lesson, read_view
from classroom.store import MODES, AnswerResult, ClassInfo, Poll, Store

CLASS_HOURS = 4
MAX_CLASSES_PER_TEACHER = 3
MAX_CLASSES = 2000  # every class on the server at once: the store stays small whatever visitors do
MAX_POLLS = 100
MAX_ROUNDS = 3
MAX_CHANGES = 3
MAX_CHOICES = 12
MAX_CHOICE_CHARS = 64
MAX_SETTINGS = 8
_CHECKPOINT = re.compile(r"[a-z][a-z0-9_]{0,39}")
_ASKED = re.compile(r"[0-9a-f]{16}")
BEAT_TTL_S = 5.0  # a browser that has not said its mode for this long is no longer counted (its tab was closed)
MAX_BROWSERS = 1000  # heartbeats kept per class
MAX_WATCHED = 8  # checkpoints one state request may ask about (a page has at most a few)
STORE_ERRORS = (sqlite3.Error, redis.RedisError, OSError, ValueError, KeyError, TypeError)


@dataclass(frozen=True)
class Outcome:
    ok: bool
    message: str  # a catalog key: classroom.<what happened>
    value: object = None


def question_id(choices: Iterable[object], correct: object) -> str:
    """A question as asked (its choices, in order, and the right one): 16 hex digits. Other settings that change
    the choices or the answer make another question."""
    return hashlib.sha256(repr((tuple(choices), correct)).encode()).hexdigest()[:16]


def choice_text(value: object) -> str:
    """How a choice is stored and compared: its text (``str``), the same on every replica."""
    return str(value)[:MAX_CHOICE_CHARS]


class Classroom:
    """The rules over one :class:`~classroom.store.Store`; ``clock`` is seconds since the epoch (tests move it)."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time):
        self.store = store
        self.clock = clock

    def _guard(self, action: Callable[[], Outcome]) -> Outcome:
        try:
            return action()
        except STORE_ERRORS:
            return Outcome(False, "classroom.err_store")

    # the teacher --------------------------------------------------------------------------------------------------
    def start(self, teacher_browser: object) -> Outcome:
        """A new class for this teacher's browser: value (code, secret). The secret is shown to nobody else."""
        teacher = read_browser_id(teacher_browser)
        if teacher is None:
            return Outcome(False, "classroom.err_no_browser")

        def create() -> Outcome:
            now = self.clock()
            for _ in range(5):  # a taken code is a 1-in-10⁸ chance per class: try another
                code, secret = new_code(), new_secret()
                info = ClassInfo(code, secret_hash(secret), teacher, now + CLASS_HOURS * 3600)
                result = self.store.create_class(info, now, MAX_CLASSES_PER_TEACHER, MAX_CLASSES)
                if result == "ok":
                    return Outcome(True, "classroom.started", (code, secret))
                if result != "taken":
                    return Outcome(False, f"classroom.err_{result}")
            return Outcome(False, "classroom.err_store")

        return self._guard(create)

    def is_teacher(self, code: object, secret: object) -> bool:
        code = read_code(code)
        if code is None or not secret:
            return False
        outcome = self._guard(lambda: Outcome(True, "", self.store.class_info(code, self.clock())))
        info = outcome.value
        return isinstance(info, ClassInfo) and secret_matches(secret, info.secret_hash)

    def _teacher_action(self, code: object, secret: object, action: Callable[[str], Outcome]) -> Outcome:
        code = read_code(code)
        if code is None:
            return Outcome(False, "classroom.err_bad_code")
        if not self.is_teacher(code, secret):
            return Outcome(False, "classroom.err_not_teacher")
        return self._guard(lambda: action(code))

    def ask(self, code: object, secret: object, checkpoint: str, choices: Iterable[object], correct: object,
            settings: dict) -> Outcome:  # fmt: skip
        """Open the question on the teacher's screen for the class (idempotent): value its question id."""
        texts = tuple(choice_text(choice) for choice in choices)
        if not _CHECKPOINT.fullmatch(checkpoint) or not 2 <= len(texts) <= MAX_CHOICES or len(set(texts)) != len(texts):
            return Outcome(False, "classroom.err_bad_question")
        asked = question_id(choices, correct)
        settings = {str(k)[:16]: v for k, v in list(settings.items())[:MAX_SETTINGS] if isinstance(v, int | float)}

        def open_(code: str) -> Outcome:
            result = self.store.open_poll(code, checkpoint, asked, texts, settings, self.clock(), MAX_POLLS)
            return Outcome(result == "ok", "classroom.asked" if result == "ok" else f"classroom.err_poll_{result}",
                           asked)  # fmt: skip

        return self._teacher_action(code, secret, open_)

    def reveal(self, code: object, secret: object, checkpoint: str, asked: str) -> Outcome:
        def reveal_(code: str) -> Outcome:
            done = self.store.reveal(code, checkpoint, asked, self.clock())
            return Outcome(done, "classroom.revealed" if done else "classroom.err_no_question")

        return self._teacher_action(code, secret, reveal_)

    def poll_again(
        self, code: object, secret: object, checkpoint: str, asked: str, after: int | None = None
    ) -> Outcome:
        """Start the round after round ``after`` (the one the teacher's screen showed; default the current one). A
        second press of the same button (or a press that Streamlit processes twice) finds that round over: no-op."""

        def next_(code: str) -> Outcome:
            now = self.clock()
            poll = self.store.poll(code, checkpoint, asked, now)
            if poll is None:
                return Outcome(False, "classroom.err_no_question")
            seen = poll.round if after is None else after
            if isinstance(seen, int) and poll.round > seen:  # that round is over already
                return Outcome(True, "classroom.new_round", poll.round)
            round_ = self.store.next_round(code, checkpoint, asked, now, MAX_ROUNDS, seen)
            return Outcome(round_ is not None, "classroom.new_round" if round_ else "classroom.err_last_round", round_)

        return self._teacher_action(code, secret, next_)

    def end(self, code: object, secret: object) -> Outcome:
        def end_(code: str) -> Outcome:
            self.store.end(code)
            return Outcome(True, "classroom.ended")

        return self._teacher_action(code, secret, end_)

    # everyone -----------------------------------------------------------------------------------------------------
    def join(self, raw_code: object) -> Outcome:
        """A code from a link or typed: value the code, if such a class is running."""
        code = read_code(raw_code)
        if code is None:
            return Outcome(False, "classroom.err_bad_code")

        def look() -> Outcome:
            found = self.store.class_info(code, self.clock()) is not None
            return Outcome(found, "classroom.joined" if found else "classroom.err_unknown_class", code)

        return self._guard(look)

    def poll(self, code: object, checkpoint: str, asked: str) -> Outcome:
        """The question and its counts (value a Poll, or None when the teacher has not asked it)."""
        code = read_code(code)
        if code is None or not _CHECKPOINT.fullmatch(str(checkpoint)) or not _ASKED.fullmatch(str(asked)):
            return Outcome(False, "classroom.err_bad_code")
        return self._guard(lambda: Outcome(True, "", self.store.poll(code, checkpoint, asked, self.clock())))

    def current(self, code: object, checkpoint: str) -> Outcome:
        """The question the teacher last asked at ``checkpoint`` (value a Poll or None), whatever its settings."""
        code = read_code(code)
        if code is None or not _CHECKPOINT.fullmatch(str(checkpoint)):
            return Outcome(False, "classroom.err_bad_code")
        return self._guard(lambda: Outcome(True, "", self.store.current_poll(code, checkpoint, self.clock())))

    def answer(self, code: object, checkpoint: str, asked: str, browser: object, choice: object) -> Outcome:
        """Count one browser's answer to the question's current round; value the round."""
        browser = read_browser_id(browser)
        if browser is None:
            return Outcome(False, "classroom.err_no_browser")
        found = self.poll(code, checkpoint, asked)
        if not found.ok:
            return found
        poll: Poll | None = found.value
        if poll is None:
            return Outcome(False, "classroom.err_no_question")
        if poll.revealed:
            return Outcome(False, "classroom.err_closed")
        if not isinstance(choice, str | int | float | bool) or choice_text(choice) not in poll.choices:
            return Outcome(False, "classroom.err_bad_choice")

        def count() -> Outcome:
            result = self.store.answer(read_code(code), checkpoint, asked, poll.round, browser, choice_text(choice),
                                       self.clock(), MAX_CHANGES)  # fmt: skip
            ok = result in (AnswerResult.COUNTED, AnswerResult.CHANGED)
            return Outcome(ok, f"classroom.answer_{result}", poll.round)

        return self._guard(count)

    # following the teacher --------------------------------------------------------------------------------------
    def show(self, code: object, secret: object, raw_view: object) -> Outcome:
        """Make the teacher's view (a :class:`~classroom.lesson.View`, or its JSON-like dict) the class's: value its
        number. A view that does not read (unknown page, a value off its slider …): its ``lesson.err_*`` key, and
        its parameters as the value; nothing stored."""
        try:
            view = read_view(raw_view.as_dict() if isinstance(raw_view, View) else raw_view)
        except LessonError as error:
            return Outcome(False, error.key, error.params)
        text = json.dumps(view.as_dict(), separators=(",", ":"))

        def show_(code: str) -> Outcome:
            seq = self.store.set_view(code, text, self.clock())
            return Outcome(seq is not None, "classroom.shown" if seq else "classroom.err_poll_gone", seq)

        return self._teacher_action(code, secret, show_)

    def view(self, code: object) -> Outcome:
        """The class's view: value (number, View or None); not ok when there is no such class."""
        code = read_code(code)
        if code is None:
            return Outcome(False, "classroom.err_bad_code")

        def look() -> Outcome:
            found = self.store.view(code, self.clock())
            if found is None:
                return Outcome(False, "classroom.class_over")
            seq, text = found
            return Outcome(True, "", (seq, _stored_view(text)))

        return self._guard(look)

    def save_lesson(self, code: object, secret: object, steps: object) -> Outcome:
        """Keep the teacher's lesson (Steps, or JSON-like data read as a lesson file is) in the class."""
        try:
            raw = [step.as_dict() for step in steps] if _all_steps(steps) else steps
            lesson = read_lesson(raw)
        except LessonError as error:
            return Outcome(False, error.key, error.params)

        def keep(code: str) -> Outcome:
            done = self.store.set_lesson(code, lesson_json(lesson), self.clock())
            return Outcome(done, "classroom.lesson_kept" if done else "classroom.err_poll_gone")

        return self._teacher_action(code, secret, keep)

    def lesson(self, code: object) -> Outcome:
        """The class's lesson: value a tuple of Steps (empty when none)."""
        code = read_code(code)
        if code is None:
            return Outcome(False, "classroom.err_bad_code")

        def look() -> Outcome:
            text = self.store.lesson(code, self.clock())
            try:
                return Outcome(True, "", read_lesson(json.loads(text)) if text else ())
            except (LessonError, ValueError):
                return Outcome(True, "", ())

        return self._guard(look)

    def state(self, code: object, watched: object) -> Outcome:
        """What a student's page polls (ui/class_http.py): the class's view and, for each ``(checkpoint, asked)``
        watched (``asked`` None: the checkpoint's current question), the :func:`board_print` of what its board shows.
        Value (number, View or None, {checkpoint: print}); not ok for a malformed request or a class that is over."""
        code = read_code(code)
        if code is None:
            return Outcome(False, "classroom.err_bad_code")
        if not isinstance(watched, list | tuple) or len(watched) > MAX_WATCHED:
            return Outcome(False, "classroom.err_bad_question")
        for item in watched:
            checkpoint, asked = item if isinstance(item, tuple) and len(item) == 2 else ("", "")
            if not _CHECKPOINT.fullmatch(str(checkpoint)) or not (asked is None or _ASKED.fullmatch(str(asked))):
                return Outcome(False, "classroom.err_bad_question")

        def look() -> Outcome:
            now = self.clock()
            found = self.store.view(code, now)
            if found is None:
                return Outcome(False, "classroom.class_over")
            prints = {}
            for checkpoint, asked in watched:
                mine = self.store.poll(code, checkpoint, asked, now) if asked else None
                current = None if mine else self.store.current_poll(code, checkpoint, now)
                prints[checkpoint] = board_print(mine, current)
            return Outcome(True, "", (found[0], _stored_view(found[1]), prints))

        return self._guard(look)

    def beat(self, code: object, browser: object, mode: object) -> Outcome:
        """A student's browser says whether it follows the teacher or explores (``MODES``)."""
        code, browser = read_code(code), read_browser_id(browser)
        if code is None or browser is None or mode not in MODES:
            return Outcome(False, "classroom.err_bad_code" if code is None else "classroom.err_no_browser")

        def beat_() -> Outcome:
            done = self.store.beat(code, browser, mode, self.clock(), BEAT_TTL_S, MAX_BROWSERS)
            return Outcome(done, "" if done else "classroom.class_over")

        return self._guard(beat_)

    def modes(self, code: object) -> Outcome:
        """How many browsers follow and how many explore: value {mode: count} with every mode."""
        code = read_code(code)
        if code is None:
            return Outcome(False, "classroom.err_bad_code")

        def count() -> Outcome:
            counted = self.store.modes(code, self.clock(), BEAT_TTL_S)
            return Outcome(True, "", {mode: counted.get(mode, 0) for mode in MODES})

        return self._guard(count)


def board_print(mine: Poll | None, current: Poll | None = None) -> str:
    """What a class checkpoint's board shows, in a few characters: the question it shows (``mine``: asked id,
    round, revealed, a digest of every round's counts), else the question the teacher asked instead (``current``,
    with other settings), else "none". Equal prints draw the same board, so a page reruns one only when it differs."""
    if mine is not None:
        counts = sorted((r, sorted(choices.items())) for r, choices in mine.counts.items())
        digest = hashlib.blake2s(repr(counts).encode(), digest_size=4).hexdigest()
        return f"{mine.asked[:8]}.{mine.round}.{int(mine.revealed)}.{mine.answered()}.{digest}"
    return f"other.{current.asked[:8]}" if current is not None else "none"


def _all_steps(steps: object) -> bool:
    return isinstance(steps, list | tuple) and bool(steps) and all(isinstance(step, Step) for step in steps)


def _stored_view(text: str | None) -> View | None:
    """A view as the store kept it, read again as untrusted (a store shared with other programs)."""
    if not text:
        return None
    try:
        return read_view(json.loads(text))
    except (LessonError, ValueError):
        return None
