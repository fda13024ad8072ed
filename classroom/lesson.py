"""A lesson and the teacher's view, read from untrusted input (a link, a file, a forged request). No Streamlit.

A **step** is what a teacher shows at one moment: a page, the shared settings (base, dim, length, heads), optionally
one of that page's checkpoints, and a one-line note. A **lesson** is up to :data:`MAX_STEPS` steps. The teacher's
**view** (what a following class sees) is a step plus the lesson's step it came from, if any.

Everything that comes in is read strictly: an unknown page or checkpoint, a value outside its slider's range or off
its grid (an odd dim, a base that is not one of the slider's), too many steps, a note longer than
:data:`MAX_NOTE_CHARS`, or text that is not a lesson raise :class:`LessonError` carrying one catalog key
(``lesson.err_*``, in en/ko/zh) and its parameters, never the input's own text. Nothing is corrected: a lesson is
taken whole or not at all, so nothing half-read is ever stored. A lesson travels as compact JSON, in a link as
URL-safe base64 (:func:`encode_link`), in a file as it is (:func:`lesson_json`).
"""

from __future__ import annotations

import base64
import binascii
import json
import math
from dataclasses import dataclass, field

from ui.limits import SHARED_NAMES
from ui.menu import CHECKPOINTS, PAGES
from ui.query import parse_shared_params

MAX_STEPS = 30  # a lecture's worth; a link of 30 steps is about 3 000 characters
MAX_NOTE_CHARS = 140  # one line on a projector
MAX_LESSON_CHARS = 16_000  # a file or link longer than this is refused unread (30 full steps take ~4 000)
PAGE_NAMES = tuple(page.name for page in PAGES)
FORMAT = "posenc-lab-lesson"  # the "format" field of a saved lesson


class LessonError(ValueError):
    """Why a lesson, step or view was refused: a catalog key (``lesson.err_*``) and its parameters."""

    def __init__(self, key: str, **params):
        super().__init__(key)
        self.key, self.params = key, params


@dataclass(frozen=True)
class Step:
    page: str  # a page name of ui.menu.PAGES ("decay")
    settings: dict = field(default_factory=dict)  # shared name -> value, each on its slider
    checkpoint: str | None = None  # one of the page's checkpoints (ui.menu.CHECKPOINTS), brought into view
    note: str = ""  # one line for the class, at most MAX_NOTE_CHARS

    def as_dict(self) -> dict:
        data = {"page": self.page, "settings": dict(self.settings)}
        if self.checkpoint:
            data["checkpoint"] = self.checkpoint
        if self.note:
            data["note"] = self.note
        return data


@dataclass(frozen=True)
class View:
    """The teacher's view as a following class sees it: a step and its index in the lesson (None off-lesson)."""

    step: Step
    index: int | None = None

    def as_dict(self) -> dict:
        return self.step.as_dict() | ({"index": self.index} if self.index is not None else {})


def read_settings(raw: object) -> dict:
    """Shared values exactly as a slider can hold them: {name: value}. Unknown names are refused, not dropped."""
    if not isinstance(raw, dict):
        raise LessonError("lesson.err_not_a_lesson")
    settings = {}
    for name, value in raw.items():
        if name not in SHARED_NAMES:
            raise LessonError("lesson.err_unknown_setting")
        if type(value) not in (int, float) or not math.isfinite(value):
            raise LessonError("lesson.err_bad_value", name=name)
        parsed, notices = parse_shared_params({name: [repr(value)]})
        if notices or parsed[name] != value:  # out of range, off the grid, not whole: refused, not corrected
            raise LessonError("lesson.err_bad_value", name=name)
        settings[name] = parsed[name]
    return settings


def read_step(raw: object) -> Step:
    """One step from JSON-like data (``{"page", "settings", "checkpoint"?, "note"?}``)."""
    if not isinstance(raw, dict) or set(raw) - {"page", "settings", "checkpoint", "note"}:
        raise LessonError("lesson.err_not_a_lesson")
    page = raw.get("page")
    if not isinstance(page, str) or page not in PAGE_NAMES:
        raise LessonError("lesson.err_unknown_page")
    settings = read_settings(raw.get("settings", {}))
    checkpoint = raw.get("checkpoint")
    if checkpoint is not None and (not isinstance(checkpoint, str) or checkpoint not in CHECKPOINTS.get(page, ())):
        raise LessonError("lesson.err_unknown_checkpoint")
    note = raw.get("note", "")
    if not isinstance(note, str):
        raise LessonError("lesson.err_not_a_lesson")
    note = " ".join(note.split())  # one line
    if len(note) > MAX_NOTE_CHARS:
        raise LessonError("lesson.err_long_note", most=MAX_NOTE_CHARS)
    return Step(page, settings, checkpoint, note)


def read_lesson(raw: object) -> tuple[Step, ...]:
    """A lesson from JSON-like data: ``{"format": FORMAT, "steps": [...]}`` or the list of steps alone. A bad step
    names its number (from 1)."""
    if isinstance(raw, dict):
        if raw.get("format", FORMAT) != FORMAT or set(raw) - {"format", "steps"}:
            raise LessonError("lesson.err_not_a_lesson")
        raw = raw.get("steps")
    if not isinstance(raw, list) or not raw:
        raise LessonError("lesson.err_not_a_lesson")
    if len(raw) > MAX_STEPS:
        raise LessonError("lesson.err_too_many_steps", most=MAX_STEPS)
    steps = []
    for number, item in enumerate(raw, 1):
        try:
            steps.append(read_step(item))
        except LessonError as error:
            raise LessonError("lesson.err_in_step", step=number, why=error.key, **error.params) from None
    return tuple(steps)


def read_view(raw: object) -> View:
    """The teacher's view from JSON-like data: a step with ``index`` (0 … MAX_STEPS − 1) or none."""
    if not isinstance(raw, dict):
        raise LessonError("lesson.err_not_a_lesson")
    index = raw.get("index")
    if index is not None and (type(index) is not int or not 0 <= index < MAX_STEPS):
        raise LessonError("lesson.err_not_a_lesson")
    return View(read_step({key: value for key, value in raw.items() if key != "index"}), index)


def parse_json(text: object) -> object:
    """JSON text (a file's bytes or a string), bounded: too long, not UTF-8 or not JSON raise LessonError."""
    if isinstance(text, bytes | bytearray):
        if len(text) > MAX_LESSON_CHARS:
            raise LessonError("lesson.err_too_big")
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise LessonError("lesson.err_not_a_lesson") from None
    if not isinstance(text, str) or len(text) > MAX_LESSON_CHARS:
        raise LessonError("lesson.err_too_big")
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        raise LessonError("lesson.err_not_a_lesson") from None


def lesson_json(steps: tuple[Step, ...] | list[Step]) -> str:
    """A lesson as the file it is saved in (what :func:`read_lesson` reads back)."""
    return json.dumps({"format": FORMAT, "steps": [step.as_dict() for step in steps]}, ensure_ascii=False, indent=1)


def encode_link(steps: tuple[Step, ...] | list[Step]) -> str:
    """The ``lesson`` URL value that carries ``steps``: URL-safe base64 of their compact JSON, without padding."""
    compact = json.dumps([step.as_dict() for step in steps], separators=(",", ":"), ensure_ascii=False)
    return base64.urlsafe_b64encode(compact.encode()).decode().rstrip("=")


def decode_link(raw: object) -> tuple[Step, ...]:
    """The lesson a ``lesson`` URL value carries (LessonError when it is not one)."""
    if isinstance(raw, list):
        raw = raw[-1] if raw else ""
    if not isinstance(raw, str) or not raw or len(raw) > MAX_LESSON_CHARS:
        raise LessonError("lesson.err_too_big" if isinstance(raw, str) and raw else "lesson.err_not_a_lesson")
    try:
        data = base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4))
    except (binascii.Error, ValueError):
        raise LessonError("lesson.err_not_a_lesson") from None
    return read_lesson(parse_json(data))
