"""The SQLite backend of the class store: one file, WAL mode, shared by every replica on one host.

WAL lets the replicas' many readers (every live view polls) go on while one writer commits; a writer waits up to
:data:`BUSY_MS` for another's lock. Each poll is two indexed reads (the question's row, and its answers grouped by
round and choice, both by primary key prefix). An answer is one ``BEGIN IMMEDIATE`` transaction, so two tabs of one
browser cannot both count. Expired classes are deleted when a class is created (:meth:`SqliteStore.purge`).
Connections are pooled, not one per thread: Streamlit runs each session's script in threads that come and go.
"""

from __future__ import annotations

import contextlib
import json
import queue
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from classroom.store import AnswerResult, ClassInfo, Poll

BUSY_MS = 5000
POOL = 8  # connections kept open for reuse

SCHEMA = """
CREATE TABLE IF NOT EXISTS classes (
    code TEXT PRIMARY KEY, secret_hash TEXT NOT NULL, teacher TEXT NOT NULL, expires REAL NOT NULL);
CREATE INDEX IF NOT EXISTS classes_by_teacher ON classes (teacher, expires);
CREATE TABLE IF NOT EXISTS polls (
    code TEXT NOT NULL, checkpoint TEXT NOT NULL, asked TEXT NOT NULL, round INTEGER NOT NULL,
    revealed INTEGER NOT NULL, choices TEXT NOT NULL, settings TEXT NOT NULL,
    PRIMARY KEY (code, checkpoint, asked));
CREATE TABLE IF NOT EXISTS current_polls (
    code TEXT NOT NULL, checkpoint TEXT NOT NULL, asked TEXT NOT NULL, PRIMARY KEY (code, checkpoint));
CREATE TABLE IF NOT EXISTS answers (
    code TEXT NOT NULL, checkpoint TEXT NOT NULL, asked TEXT NOT NULL, round INTEGER NOT NULL,
    browser TEXT NOT NULL, choice TEXT NOT NULL, changes INTEGER NOT NULL,
    PRIMARY KEY (code, checkpoint, asked, round, browser));
CREATE TABLE IF NOT EXISTS views (
    code TEXT PRIMARY KEY, seq INTEGER NOT NULL, view TEXT, lesson TEXT);
CREATE TABLE IF NOT EXISTS beats (
    code TEXT NOT NULL, browser TEXT NOT NULL, mode TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (code, browser));
"""
TABLES = ("answers", "current_polls", "polls", "views", "beats", "classes")  # every table keyed by class code
_LIVE = "SELECT 1 FROM classes WHERE code = ? AND expires > ?"

_POLL = """SELECT p.round, p.revealed, p.choices, p.settings FROM polls p JOIN classes c ON c.code = p.code
           WHERE p.code = ? AND p.checkpoint = ? AND p.asked = ? AND c.expires > ?"""
_COUNTS = """SELECT round, choice, COUNT(*) FROM answers WHERE code = ? AND checkpoint = ? AND asked = ?
             GROUP BY round, choice"""


class SqliteStore:
    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._pool: queue.LifoQueue[sqlite3.Connection] = queue.LifoQueue()
        with self._connection() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)

    # connections -----------------------------------------------------------------------------------------------
    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=BUSY_MS / 1000, isolation_level=None, check_same_thread=False)
        db.execute(f"PRAGMA busy_timeout={BUSY_MS}")
        db.execute("PRAGMA synchronous=NORMAL")  # WAL: durable at each checkpoint, never corrupt
        return db

    @contextlib.contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        try:
            db = self._pool.get_nowait()
        except queue.Empty:
            db = self._connect()
        try:
            yield db
        except BaseException:
            if db.in_transaction:
                db.rollback()
            raise
        finally:
            if self._pool.qsize() < POOL:
                self._pool.put(db)
            else:
                db.close()

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._connection() as db:
            db.execute("BEGIN IMMEDIATE")
            yield db
            db.execute("COMMIT")

    # the interface ---------------------------------------------------------------------------------------------
    def create_class(self, info: ClassInfo, now: float, max_per_teacher: int, max_classes: int) -> str:
        self.purge(now)
        with self._write() as db:
            if db.execute("SELECT 1 FROM classes WHERE code = ?", (info.code,)).fetchone():
                return "taken"
            mine = db.execute("SELECT COUNT(*) FROM classes WHERE teacher = ? AND expires > ?",
                              (info.teacher, now)).fetchone()[0]  # fmt: skip
            if mine >= max_per_teacher:
                return "teacher_full"
            if db.execute("SELECT COUNT(*) FROM classes").fetchone()[0] >= max_classes:
                return "store_full"
            db.execute("INSERT INTO classes VALUES (?, ?, ?, ?)", (info.code, info.secret_hash, info.teacher,
                                                                   info.expires))  # fmt: skip
            return "ok"

    def class_info(self, code: str, now: float) -> ClassInfo | None:
        with self._connection() as db:
            row = db.execute("SELECT secret_hash, teacher, expires FROM classes WHERE code = ? AND expires > ?",
                             (code, now)).fetchone()  # fmt: skip
        return ClassInfo(code, *row) if row else None

    def open_poll(self, code, checkpoint, asked, choices, settings, now, max_polls) -> str:
        with self._write() as db:
            if not db.execute("SELECT 1 FROM classes WHERE code = ? AND expires > ?", (code, now)).fetchone():
                return "gone"
            exists = db.execute("SELECT 1 FROM polls WHERE code = ? AND checkpoint = ? AND asked = ?",
                                (code, checkpoint, asked)).fetchone()  # fmt: skip
            if not exists:
                if db.execute("SELECT COUNT(*) FROM polls WHERE code = ?", (code,)).fetchone()[0] >= max_polls:
                    return "full"
                db.execute("INSERT INTO polls VALUES (?, ?, ?, 1, 0, ?, ?)",
                           (code, checkpoint, asked, json.dumps(list(choices)), json.dumps(settings)))  # fmt: skip
            db.execute("INSERT OR REPLACE INTO current_polls VALUES (?, ?, ?)", (code, checkpoint, asked))
            return "ok"

    def poll(self, code, checkpoint, asked, now) -> Poll | None:
        with self._connection() as db:
            row = db.execute(_POLL, (code, checkpoint, asked, now)).fetchone()
            if row is None:
                return None
            counts: dict[int, dict[str, int]] = {}
            for round_, choice, count in db.execute(_COUNTS, (code, checkpoint, asked)):
                counts.setdefault(round_, {})[choice] = count
        round_, revealed, choices, settings = row
        return Poll(checkpoint, asked, round_, bool(revealed), tuple(json.loads(choices)), json.loads(settings), counts)

    def current_poll(self, code, checkpoint, now) -> Poll | None:
        with self._connection() as db:
            row = db.execute("SELECT asked FROM current_polls WHERE code = ? AND checkpoint = ?",
                             (code, checkpoint)).fetchone()  # fmt: skip
        return self.poll(code, checkpoint, row[0], now) if row else None

    def answer(self, code, checkpoint, asked, round_, browser, choice, now, max_changes) -> str:
        with self._write() as db:
            row = db.execute(_POLL, (code, checkpoint, asked, now)).fetchone()
            if row is None or row[0] != round_ or row[1]:
                return AnswerResult.CLOSED
            key = (code, checkpoint, asked, round_, browser)
            before = db.execute("SELECT choice, changes FROM answers WHERE code = ? AND checkpoint = ? AND asked = ? "
                                "AND round = ? AND browser = ?", key).fetchone()  # fmt: skip
            if before is None:
                db.execute("INSERT INTO answers VALUES (?, ?, ?, ?, ?, ?, 0)", (*key, choice))
                return AnswerResult.COUNTED
            if before[0] == choice:
                return AnswerResult.CHANGED
            if before[1] >= max_changes:
                return AnswerResult.TOO_MANY
            db.execute("UPDATE answers SET choice = ?, changes = changes + 1 WHERE code = ? AND checkpoint = ? "
                       "AND asked = ? AND round = ? AND browser = ?", (choice, *key))  # fmt: skip
            return AnswerResult.CHANGED

    def reveal(self, code, checkpoint, asked, now) -> bool:
        with self._write() as db:
            if not db.execute(_POLL, (code, checkpoint, asked, now)).fetchone():
                return False
            db.execute("UPDATE polls SET revealed = 1 WHERE code = ? AND checkpoint = ? AND asked = ?",
                       (code, checkpoint, asked))  # fmt: skip
            return True

    def next_round(self, code, checkpoint, asked, now, max_rounds, after) -> int | None:
        with self._write() as db:
            row = db.execute(_POLL, (code, checkpoint, asked, now)).fetchone()
            if row is None or row[0] >= max_rounds or row[0] != after:
                return None
            db.execute("UPDATE polls SET round = round + 1, revealed = 0 WHERE code = ? AND checkpoint = ? "
                       "AND asked = ?", (code, checkpoint, asked))  # fmt: skip
            return row[0] + 1

    def set_view(self, code, view, now) -> int | None:
        with self._write() as db:
            if not db.execute(_LIVE, (code, now)).fetchone():
                return None
            upsert = ("INSERT INTO views (code, seq, view) VALUES (?, 1, ?) ON CONFLICT (code) DO UPDATE "
                      "SET seq = seq + 1, view = excluded.view RETURNING seq")  # fmt: skip
            return db.execute(upsert, (code, view)).fetchone()[0]

    def view(self, code, now) -> tuple[int, str | None] | None:
        with self._connection() as db:
            row = db.execute("SELECT v.seq, v.view FROM classes c LEFT JOIN views v ON v.code = c.code "
                             "WHERE c.code = ? AND c.expires > ?", (code, now)).fetchone()  # fmt: skip
        return None if row is None else (row[0] or 0, row[1])

    def set_lesson(self, code, lesson, now) -> bool:
        with self._write() as db:
            if not db.execute(_LIVE, (code, now)).fetchone():
                return False
            db.execute("INSERT INTO views (code, seq, lesson) VALUES (?, 0, ?) ON CONFLICT (code) DO UPDATE "
                       "SET lesson = excluded.lesson", (code, lesson))  # fmt: skip
            return True

    def lesson(self, code, now) -> str | None:
        with self._connection() as db:
            row = db.execute("SELECT v.lesson FROM views v JOIN classes c ON c.code = v.code WHERE v.code = ? "
                             "AND c.expires > ?", (code, now)).fetchone()  # fmt: skip
        return row[0] if row else None

    def beat(self, code, browser, mode, now, ttl, max_browsers) -> bool:
        with self._write() as db:
            if not db.execute(_LIVE, (code, now)).fetchone():
                return False
            known = db.execute("UPDATE beats SET mode = ?, at = ? WHERE code = ? AND browser = ?",
                               (mode, now, code, browser)).rowcount  # fmt: skip
            if known:
                return True
            db.execute("DELETE FROM beats WHERE code = ? AND at <= ?", (code, now - ttl))  # gone quiet: forgotten
            if db.execute("SELECT COUNT(*) FROM beats WHERE code = ?", (code,)).fetchone()[0] >= max_browsers:
                return False
            db.execute("INSERT INTO beats VALUES (?, ?, ?, ?)", (code, browser, mode, now))
            return True

    def modes(self, code, now, ttl) -> dict[str, int]:
        with self._connection() as db:
            rows = db.execute("SELECT mode, COUNT(*) FROM beats WHERE code = ? AND at > ? GROUP BY mode",
                              (code, now - ttl)).fetchall()  # fmt: skip
        return dict(rows)

    def end(self, code: str) -> None:
        with self._write() as db:
            for table in TABLES:
                db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))

    def purge(self, now: float) -> int:
        with self._write() as db:
            gone = [code for (code,) in db.execute("SELECT code FROM classes WHERE expires <= ?", (now,))]
            for code in gone:
                for table in TABLES:
                    db.execute(f"DELETE FROM {table} WHERE code = ?", (code,))
        return len(gone)

    def close(self) -> None:
        while not self._pool.empty():
            self._pool.get_nowait().close()
