"""The class's HTTP routes (ui/class_http.py) through Starlette's TestClient, over a real SQLite class store in a
temporary folder: what a student's tab polls (class/state) follows the class as the store holds it (the teacher's
view, each checkpoint's question: an answer, a reveal, a new round change its print, nothing else does), and a
heartbeat counts for the teacher's panel. Forged, malformed or oversized requests get one short JSON error and
store nothing; a class that is over says so."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

import ui.classroom
from classroom.service import Classroom, question_id
from classroom.store import open_store
from ui.class_http import MAX_BODY, ROUTES

ROOT = Path(__file__).resolve().parents[1]

TEACHER, STUDENT = "teacher0123456789abcdef", "student0123456789abcdef"
CHOICES = ["2", "4", "8"]
ASKED = question_id(CHOICES, "4")
VIEW = {"page": "decay", "settings": {"base": 10000, "dim": 64}, "checkpoint": "cp_decay_half"}


@pytest.fixture
def room(tmp_path, monkeypatch):
    room = Classroom(open_store(f"sqlite:///{tmp_path / 'classes.sqlite3'}"))
    monkeypatch.setattr(ui.classroom, "classroom", lambda: room)
    return room


@pytest.fixture
def client(room):
    return TestClient(Starlette(routes=ROUTES), raise_server_exceptions=False)


@pytest.fixture
def lesson(room):
    code, secret = room.start(TEACHER).value
    assert room.ask(code, secret, "cp_rel_t5", CHOICES, "4", {"heads": 8}).ok
    return code, secret


def state(client, code, cp=None, path="/class/state"):
    params = {"code": code} | ({"cp": cp} if cp is not None else {})
    return client.get(path, params=params)


def beat(client, body, content_type="application/json"):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post("/class/beat", content=raw, headers={"Content-Type": content_type})


def test_the_state_follows_the_teachers_view(client, room, lesson):
    code, secret = lesson
    first = state(client, code).json()
    start = first.pop("start")
    assert first == {"view": 0, "boards": {}}  # the teacher has shown nothing yet
    assert room.show(code, secret, VIEW).ok
    answer = state(client, code)
    assert answer.headers["cache-control"] == "no-store"
    assert answer.json() == {"view": 1, "page": "decay", "settings": {"base": 10000, "dim": 64},
                             "checkpoint": "cp_decay_half", "boards": {}, "start": start}  # fmt: skip
    assert room.show(code, secret, {"page": "home", "settings": {}}).ok
    home = state(client, code).json()
    assert (home["view"], home["page"], "checkpoint" in home) == (2, "", False)  # the home page's url path is ""


def test_each_server_process_answers_with_an_id_of_its_own(client, lesson):
    """The start id is the same for every answer of one process and differs from another process's (a restarted
    replica), so a tab sees the restart."""
    code, _ = lesson
    ids = {state(client, code).json()["start"] for _ in range(3)}
    started = [subprocess.run([sys.executable, "-c", "from ui.class_http import START; print(START)"], cwd=ROOT,
                              capture_output=True, text=True, check=True).stdout.strip() for _ in range(2)]  # fmt: skip
    assert len(ids) == 1 and re.fullmatch(r"[0-9a-f]{16}", ids.pop())
    assert started[0] != started[1] and all(re.fullmatch(r"[0-9a-f]{16}", one) for one in started)


def test_a_boards_print_changes_with_each_answer_reveal_and_round_and_only_then(client, room, lesson):
    code, secret = lesson
    cp = f"cp_rel_t5.{ASKED}"

    def printed() -> str:
        return state(client, code, cp).json()["boards"]["cp_rel_t5"]

    prints = [printed()]
    assert printed() == prints[-1]  # nothing happened: the same print, no rerun
    for step in (
        lambda: room.answer(code, "cp_rel_t5", ASKED, STUDENT, "4"),
        lambda: room.answer(code, "cp_rel_t5", ASKED, STUDENT, "8"),  # a changed answer: same count, other bars
        lambda: room.reveal(code, secret, "cp_rel_t5", ASKED),
        lambda: room.poll_again(code, secret, "cp_rel_t5", ASKED),
    ):
        assert step().ok
        prints.append(printed())
    assert len(set(prints)) == len(prints)


def test_a_checkpoint_asked_with_other_settings_or_not_yet_has_its_own_print(client, room, lesson):
    code, _ = lesson
    other = question_id(["1", "2"], "1")  # the student's own settings make another question
    boards = state(client, code, f"cp_rel_t5.{other},cp_rel_alibi").json()["boards"]
    assert boards["cp_rel_t5"].startswith("other.") and boards["cp_rel_alibi"] == "none"
    assert state(client, code, "cp_rel_t5").json()["boards"]["cp_rel_t5"].startswith("other.")


@pytest.mark.parametrize(
    "params",
    [
        {"code": "OOOOOO"},  # not a code (a letter codes never use)
        {"code": "<b>x</b>"},
        {},  # no code
        {"code": "K7QF3M", "cp": "cp_rel_t5.nothex"},
        {"code": "K7QF3M", "cp": "../etc/passwd"},
        {"code": "K7QF3M", "cp": "CP_UPPER"},
        {"code": "K7QF3M", "cp": ",".join(f"cp_{n}" for n in range(9))},  # more checkpoints than a page has
        {"code": "K7QF3M", "cp": "a" * 2000},  # an oversized query
    ],
)
def test_a_malformed_state_request_gets_one_short_error(client, room, params):
    answer = client.get("/class/state", params=params)
    assert answer.status_code == 400
    assert set(answer.json()) == {"error"} and len(answer.text) < 80  # no traceback, no echo of the input


def test_a_repeated_parameter_is_refused(client, lesson):
    code, _ = lesson
    assert client.get(f"/class/state?code={code}&code={code}").status_code == 400


def test_a_class_that_is_over_or_unknown_says_so(client, room, lesson):
    code, secret = lesson
    assert state(client, "K7QF3M").json() == {"over": True}  # a well-formed code of no class
    assert room.end(code, secret).ok
    assert state(client, code, f"cp_rel_t5.{ASKED}").json() == {"over": True}
    assert beat(client, {"code": code, "browser": STUDENT, "mode": "follow"}).json() == {"over": True}


def test_a_heartbeat_counts_for_the_teachers_panel(client, room, lesson):
    code, _ = lesson
    assert beat(client, {"code": code, "browser": STUDENT, "mode": "follow"}).status_code == 204
    assert room.modes(code).value == {"follow": 1, "explore": 0}
    assert beat(client, {"code": code, "browser": STUDENT, "mode": "explore"}).status_code == 204
    assert room.modes(code).value == {"follow": 0, "explore": 1}  # the same browser, counted once


@pytest.mark.parametrize(
    ("body", "content_type", "status"),
    [
        ({"browser": STUDENT, "mode": "sleep"}, "application/json", 400),  # a mode that does not exist
        ({"browser": "x", "mode": "follow"}, "application/json", 400),  # not a browser id
        ({"browser": STUDENT, "mode": "follow", "secret": "s"}, "application/json", 400),  # a field of no heartbeat
        (b"{not json", "application/json", 400),
        (b"\xff\xfe", "application/json", 400),
        ([1, 2], "application/json", 400),
        ({"browser": STUDENT, "mode": "follow"}, "text/plain", 415),  # another site's form cannot send JSON
        ({"browser": STUDENT, "mode": "follow", "pad": "x" * MAX_BODY}, "application/json", 413),
    ],
)
def test_a_forged_heartbeat_is_refused_and_stores_nothing(client, room, lesson, body, content_type, status):
    code, _ = lesson
    if isinstance(body, dict):
        body = {"code": code} | body
    answer = beat(client, body, content_type)
    assert answer.status_code == status
    assert set(answer.json()) == {"error"} and len(answer.text) < 80
    assert room.modes(code).value == {"follow": 0, "explore": 0}


def test_the_routes_live_beside_the_pages_of_an_app_under_a_folder(client, lesson):
    code, _ = lesson
    assert state(client, code, path="/lab/class/state").json()["view"] == 0
    assert state(client, code, path="/labclass/state").status_code == 404
    assert client.post("/class/state").status_code == 405


def test_a_store_that_is_down_gives_503_not_a_traceback(client, room, lesson, monkeypatch):
    code, _ = lesson

    def down(*args, **kwargs):
        raise OSError("disk gone")

    monkeypatch.setattr(room.store, "view", down)
    answer = state(client, code)
    assert answer.status_code == 503 and set(answer.json()) == {"error"}
