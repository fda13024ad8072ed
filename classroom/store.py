"""Where a class's answers live: one interface, two backends, chosen by the environment variable ``POSENC_CLASS_STORE``.

* ``sqlite:///path/to/classes.sqlite3`` (the default is ``./data/classes.sqlite3``): one file in WAL mode, shared
  by every replica on one host (``classroom.sqlite_store``).
* ``redis://host:port/0``: a Redis server, shared by replicas on several hosts (``classroom.redis_store``).

The store keeps no rule of its own beyond what must be atomic: an answer is one row per (question, round, browser),
so a reload or a second tab replaces it and never counts twice; how often it may change, which choices exist, who
may reveal, are :mod:`classroom.service`'s. A question is identified by its checkpoint and ``asked`` (a digest of its
choices and right answer, so other settings make another question). Times are seconds since the epoch, passed in,
so the tests can move the clock.

Beside the answers, a class keeps the teacher's **view** (the page, settings, checkpoint and lesson step a following
class sees, as JSON :mod:`classroom.lesson` has validated, with a number that grows with every change, so a student's
poll knows whether anything moved), the teacher's **lesson** (JSON), and each student browser's **heartbeat**: its
mode (following the teacher or exploring) and when it last said so. All three go with the class.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

ENV = "POSENC_CLASS_STORE"
DEFAULT_PATH = Path("data") / "classes.sqlite3"
MODES = ("follow", "explore")  # a student's browser follows the teacher's view, or explores on its own


@dataclass(frozen=True)
class ClassInfo:
    code: str
    secret_hash: str
    teacher: str  # the teacher's browser id (bounds the classes one browser may run)
    expires: float


@dataclass(frozen=True)
class Poll:
    """One question asked to a class: its current round, whether the teacher revealed it, its choices (as text), the
    teacher's settings when it was asked, and the counts of every round so far (round -> choice -> answers)."""

    checkpoint: str
    asked: str
    round: int
    revealed: bool
    choices: tuple[str, ...]
    settings: dict = field(default_factory=dict)
    counts: dict[int, dict[str, int]] = field(default_factory=dict)

    def answered(self, round_: int | None = None) -> int:
        return sum(self.counts.get(self.round if round_ is None else round_, {}).values())


class AnswerResult:
    """What :meth:`Store.answer` did (plain strings, so both backends return the same)."""

    COUNTED = "counted"  # a first answer in this round
    CHANGED = "changed"  # the browser's answer in this round replaced
    TOO_MANY = "too_many"  # changed too often this round: kept as it was
    CLOSED = "closed"  # no such question, another round, revealed, or the class is gone


class Store(Protocol):
    """The one interface both backends implement. No method raises for a missing class: it returns None/False."""

    def create_class(self, info: ClassInfo, now: float, max_per_teacher: int, max_classes: int) -> str:
        """Keep a new class: "ok", "taken" (the code exists), "teacher_full" or "store_full"."""

    def class_info(self, code: str, now: float) -> ClassInfo | None:
        """The class, or None when it does not exist or has expired."""

    def open_poll(self, code: str, checkpoint: str, asked: str, choices: tuple[str, ...], settings: dict,
                  now: float, max_polls: int) -> str:  # fmt: skip
        """Open a question (idempotent) and make it the class's current one for its checkpoint: "ok", "full",
        or "gone" (no such class)."""

    def poll(self, code: str, checkpoint: str, asked: str, now: float) -> Poll | None:
        """The question with its counts: the cheap read every live view polls."""

    def current_poll(self, code: str, checkpoint: str, now: float) -> Poll | None:
        """The question the teacher last opened for ``checkpoint`` (whatever its settings)."""

    def answer(self, code: str, checkpoint: str, asked: str, round_: int, browser: str, choice: str, now: float,
               max_changes: int) -> str:  # fmt: skip
        """Count ``browser``'s ``choice`` in ``round_`` (an :class:`AnswerResult`)."""

    def reveal(self, code: str, checkpoint: str, asked: str, now: float) -> bool: ...

    def next_round(self, code: str, checkpoint: str, asked: str, now: float, max_rounds: int,
                   after: int) -> int | None:  # fmt: skip
        """Start the round after round ``after`` (not revealed); its number, or None (no such question, the last
        round, or that round is over already: a button pressed twice moves one round, not two)."""

    def set_view(self, code: str, view: str, now: float) -> int | None:
        """Make ``view`` (JSON) the class's view; the view's new number (1, 2, …), or None (no such class)."""

    def view(self, code: str, now: float) -> tuple[int, str | None] | None:
        """(the view's number, its JSON) — (0, None) before the teacher showed anything —, or None (no such class):
        the cheap read every following student polls."""

    def set_lesson(self, code: str, lesson: str, now: float) -> bool:
        """Keep the class's lesson (JSON); False when there is no such class."""

    def lesson(self, code: str, now: float) -> str | None: ...

    def beat(self, code: str, browser: str, mode: str, now: float, ttl: float, max_browsers: int) -> bool:
        """Note that ``browser`` is in ``mode`` now (one row per browser: a reload or second tab replaces it). False
        when there is no such class, or ``max_browsers`` others beat within ``ttl`` seconds."""

    def modes(self, code: str, now: float, ttl: float) -> dict[str, int]:
        """How many browsers beat in each mode within the last ``ttl`` seconds."""

    def end(self, code: str) -> None:
        """Delete the class, every answer, its view, lesson and heartbeats."""

    def purge(self, now: float) -> int:
        """Delete expired classes (the SQLite backend; Redis expires keys itself). Returns how many went."""

    def close(self) -> None: ...


def store_url() -> str:
    return os.environ.get(ENV, "").strip() or f"sqlite:///{DEFAULT_PATH}"


def open_store(url: str | None = None) -> Store:
    """The store ``url`` (default: ``POSENC_CLASS_STORE``, else the SQLite file in ./data) names."""
    url = url or store_url()
    if url.startswith("sqlite:///"):
        from classroom.sqlite_store import SqliteStore

        return SqliteStore(Path(url.removeprefix("sqlite:///")))
    if url.startswith(("redis://", "rediss://", "unix://")):
        from classroom.redis_store import RedisStore

        return RedisStore(url)
    raise ValueError(f"{ENV} must start with sqlite:/// or redis://, not {url.split(':', 1)[0]!r}")
