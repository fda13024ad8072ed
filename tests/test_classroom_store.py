"""Class mode's store and rules, against both backends: a SQLite file and a real ``redis-server`` (started here on a
free loopback port; no mock). Every test runs on each backend; counts are checked against a tally the test keeps
itself (each browser's last accepted choice), not against the store's own arithmetic. Nothing here is timed.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from system_packages import require_system_packages

from bench.redis_server import RedisServer, redis_binary
from classroom.codes import ALPHABET, CODE_LENGTH, read_code
from classroom.service import (
    CLASS_HOURS,
    MAX_CHANGES,
    MAX_CLASSES_PER_TEACHER,
    MAX_ROUNDS,
    Classroom,
    question_id,
)
from classroom.store import open_store

CHOICES = ("a", "b", "c")
CORRECT = "b"
ASKED = question_id(CHOICES, CORRECT)
TEACHER = "teacher-browser-0001"


def browser(n: int) -> str:
    return f"student-browser-{n:04d}"


@pytest.fixture(scope="module")
def redis_url():
    require_system_packages(**{"redis-server": redis_binary() is not None})
    with RedisServer() as server:
        yield server.url


@pytest.fixture(params=["sqlite", "redis"])
def store_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'data' / 'classes.sqlite3'}"
    url = request.getfixturevalue("redis_url")
    open_store(url).client.flushdb()
    return url


class Clock:
    def __init__(self):
        import time

        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def room(store_url, clock):
    store = open_store(store_url)
    yield Classroom(store, clock)
    store.close()


def started(room: Classroom, teacher: str = TEACHER) -> tuple[str, str]:
    outcome = room.start(teacher)
    assert outcome.ok, outcome
    code, secret = outcome.value
    assert room.ask(code, secret, "cp_test", CHOICES, CORRECT, {"dim": 64}).ok
    return code, secret


def counts(room: Classroom, code: str, round_: int | None = None) -> dict[str, int]:
    poll = room.poll(code, "cp_test", ASKED).value
    return poll.counts.get(poll.round if round_ is None else round_, {})


def test_a_code_is_short_unambiguous_and_read_back_from_what_a_student_types(room):
    code, _ = started(room)
    assert len(code) == CODE_LENGTH and set(code) <= set(ALPHABET) and not set(code) & set("0O1IL")
    spaced = f" {code[:3].lower()}-{code[3:]} "
    assert read_code(spaced) == code and room.join(spaced).ok


def test_every_browser_counts_once_however_often_it_answers(room):
    code, _ = started(room)
    tally: dict[str, str] = {}
    for n in range(12):
        for _reload in range(3):  # a reload, a second tab, a reconnect: the same browser id
            assert room.answer(code, "cp_test", ASKED, browser(n), CHOICES[n % 3]).ok
        tally[browser(n)] = CHOICES[n % 3]
    assert counts(room, code) == dict(Counter(tally.values()))
    assert room.poll(code, "cp_test", ASKED).value.answered() == 12


def test_a_changed_answer_moves_the_count_and_changes_are_bounded(room):
    code, _ = started(room)
    picks = ["a", "b", "c", "a", "b", "c"]
    outcomes = [room.answer(code, "cp_test", ASKED, browser(1), pick) for pick in picks]
    accepted = [pick for pick, outcome in zip(picks, outcomes, strict=True) if outcome.ok]
    assert len(accepted) == 1 + MAX_CHANGES
    assert outcomes[-1].message == "classroom.answer_too_many"
    assert counts(room, code) == {accepted[-1]: 1}


def test_two_tabs_answering_at_the_same_instant_count_once(room):
    code, _ = started(room)
    barrier = threading.Barrier(8)

    def tab(choice: str) -> None:
        barrier.wait()
        room.answer(code, "cp_test", ASKED, browser(7), choice)

    threads = [threading.Thread(target=tab, args=("a",)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counts(room, code) == {"a": 1}


@pytest.mark.parametrize(
    "raw_code", ["", "ABC", "A" * 7, "O0O0O0", "<script>", "x" * 100_000, None, 12, ["AAAAAA", "BBBBBB"], "ÄÄÄÄÄÄ"]
)
def test_a_malformed_or_unknown_code_gets_a_message_and_stores_nothing(room, raw_code):
    code, _ = started(room)
    for outcome in (room.join(raw_code), room.answer(raw_code, "cp_test", ASKED, browser(1), "a")):
        assert not outcome.ok and outcome.message in {"classroom.err_bad_code", "classroom.err_unknown_class",
                                                      "classroom.err_no_question"}  # fmt: skip
    assert counts(room, code) == {}


@pytest.mark.parametrize("choice", ["d", "", "a" * 10_000, None, ["a"], {"a": 1}, "A", " a"])
def test_a_forged_answer_is_refused_and_not_stored(room, choice):
    code, _ = started(room)
    outcome = room.answer(code, "cp_test", ASKED, browser(1), choice)
    assert not outcome.ok and outcome.message == "classroom.err_bad_choice"
    assert counts(room, code) == {}


@pytest.mark.parametrize("bad_browser", ["", "short", "x" * 65, "has space in it!!", None, 5])
def test_an_answer_without_a_valid_browser_id_is_refused(room, bad_browser):
    code, _ = started(room)
    assert room.answer(code, "cp_test", ASKED, bad_browser, "a").message == "classroom.err_no_browser"
    assert counts(room, code) == {}


def test_an_answer_to_a_question_asked_with_other_settings_is_not_counted_here(room):
    code, _ = started(room)
    other = question_id(("a", "b", "c"), "c")
    assert room.answer(code, "cp_test", other, browser(1), "a").message == "classroom.err_no_question"
    current = room.current(code, "cp_test").value
    assert current.asked == ASKED and current.settings == {"dim": 64}
    assert counts(room, code) == {}


@pytest.mark.parametrize("secret", ["", None, "wrong-secret-but-well-formed-xx", "x" * 10_000, 12])
def test_teacher_actions_without_the_secret_do_nothing(room, secret):
    code, real = started(room)
    room.answer(code, "cp_test", ASKED, browser(1), "a")
    assert not room.is_teacher(code, secret)
    for outcome in (room.reveal(code, secret, "cp_test", ASKED), room.poll_again(code, secret, "cp_test", ASKED),
                    room.end(code, secret), room.ask(code, secret, "cp_other", CHOICES, "a", {})):  # fmt: skip
        assert not outcome.ok and outcome.message == "classroom.err_not_teacher"
    poll = room.poll(code, "cp_test", ASKED).value
    assert (poll.round, poll.revealed, poll.counts) == (1, False, {1: {"a": 1}})
    assert room.current(code, "cp_other").value is None
    _other_code, other_secret = started(room, "other-teacher-0001")
    assert not room.is_teacher(code, other_secret) and room.is_teacher(code, real)
    assert not room.end(code, other_secret).ok and room.join(code).ok


def test_reveal_closes_the_round_and_a_second_round_keeps_the_first(room):
    code, secret = started(room)
    for n in range(5):
        room.answer(code, "cp_test", ASKED, browser(n), "a" if n < 3 else "b")
    assert room.reveal(code, secret, "cp_test", ASKED).ok
    assert room.answer(code, "cp_test", ASKED, browser(9), "b").message == "classroom.err_closed"
    assert room.poll_again(code, secret, "cp_test", ASKED).value == 2
    poll = room.poll(code, "cp_test", ASKED).value
    assert (poll.round, poll.revealed) == (2, False)
    for n in range(5):
        room.answer(code, "cp_test", ASKED, browser(n), "b")  # after discussion, the class moves
    assert counts(room, code, 1) == {"a": 3, "b": 2} and counts(room, code, 2) == {"b": 5}
    while room.poll(code, "cp_test", ASKED).value.round < MAX_ROUNDS:
        assert room.poll_again(code, secret, "cp_test", ASKED).ok
    assert room.poll_again(code, secret, "cp_test", ASKED).message == "classroom.err_last_round"


def test_ending_a_class_deletes_its_answers(room, store_url):
    code, secret = started(room)
    room.answer(code, "cp_test", ASKED, browser(1), "a")
    assert room.end(code, secret).ok
    assert room.join(code).message == "classroom.err_unknown_class"
    assert room.poll(code, "cp_test", ASKED).value is None
    assert room.answer(code, "cp_test", ASKED, browser(1), "a").message == "classroom.err_no_question"
    if store_url.startswith("redis"):
        assert room.store.client.keys(f"*{code}*") == []
    else:
        import sqlite3

        with sqlite3.connect(room.store.path) as db:
            for table in ("classes", "polls", "current_polls", "answers"):
                assert db.execute(f"SELECT COUNT(*) FROM {table} WHERE code = ?", (code,)).fetchone() == (0,)


def test_a_class_expires_after_a_few_hours(room, clock):
    code, secret = started(room)
    room.answer(code, "cp_test", ASKED, browser(1), "a")
    clock.now += CLASS_HOURS * 3600 + 1
    assert room.join(code).message == "classroom.err_unknown_class"
    assert room.poll(code, "cp_test", ASKED).value is None and not room.is_teacher(code, secret)
    assert room.answer(code, "cp_test", ASKED, browser(1), "a").message == "classroom.err_no_question"
    assert room.start(TEACHER).ok  # creating a class also sweeps the expired ones (SQLite)


def test_one_browser_runs_a_bounded_number_of_classes(room):
    for _ in range(MAX_CLASSES_PER_TEACHER):
        assert room.start(TEACHER).ok
    assert room.start(TEACHER).message == "classroom.err_teacher_full"
    assert room.start("another-teacher-01").ok


def test_a_second_replica_and_a_restarted_one_see_every_answer(store_url, clock):
    first = Classroom(open_store(store_url), clock)
    code, secret = started(first)
    second = Classroom(open_store(store_url), clock)  # the other replica
    for n in range(6):
        (first if n % 2 else second).answer(code, "cp_test", ASKED, browser(n), "c")
    first.store.close()
    restarted = Classroom(open_store(store_url), clock)  # the first replica, after a restart
    assert restarted.poll(code, "cp_test", ASKED).value.counts == {1: {"c": 6}}
    assert restarted.is_teacher(code, secret) and restarted.reveal(code, secret, "cp_test", ASKED).ok
    assert second.poll(code, "cp_test", ASKED).value.revealed


def test_a_store_that_is_down_gives_a_message_not_an_exception(clock):
    from bench.server import free_port

    room = Classroom(open_store(f"redis://127.0.0.1:{free_port()}/0"), clock)
    assert room.start(TEACHER).message == "classroom.err_store"
    assert room.join("ABCDEF").message == "classroom.err_store"
    assert room.answer("ABCDEF", "cp_test", ASKED, browser(1), "a").message == "classroom.err_store"
    assert not room.is_teacher("ABCDEF", "wrong-secret-but-well-formed-xx")


def test_an_unknown_store_url_is_refused_clearly():
    with pytest.raises(ValueError, match="POSENC_CLASS_STORE"):
        open_store("mysql://somewhere")


def test_poll_again_pressed_twice_moves_one_round(room):
    """Streamlit may process one click twice when a poll's rerun interrupts it: the button says which round it saw."""
    code, secret = started(room)
    assert room.poll_again(code, secret, "cp_test", ASKED, 1).value == 2
    assert room.poll_again(code, secret, "cp_test", ASKED, 1).value == 2  # the same press again: still round 2
    assert room.poll(code, "cp_test", ASKED).value.round == 2
    assert room.poll_again(code, secret, "cp_test", ASKED, 2).value == 3


# the teacher's view, the lesson and the heartbeats (issue 36) -------------------------------------------------------
def view(page: str = "decay", index: int | None = None, **settings) -> dict:
    raw = {"page": page, "settings": settings or {"base": 500000.0, "dim": 64}}
    return raw | ({"index": index} if index is not None else {})


def test_only_the_teacher_moves_the_class_and_every_student_reads_the_same_view(room):
    code, secret = started(room)
    assert room.view(code).value == (0, None)  # nothing shown yet
    assert room.show(code, secret, view() | {"checkpoint": "cp_decay_half", "note": "Where is half?"}).value == 1
    seq, shown = room.view(code).value
    assert seq == 1 and shown.step.page == "decay" and shown.step.checkpoint == "cp_decay_half"
    assert shown.step.settings == {"base": 500000.0, "dim": 64} and shown.step.note == "Where is half?"
    assert room.show(code, secret, view("rope", index=2)).value == 2  # every change a new number
    assert room.view(code).value[1].index == 2


@pytest.mark.parametrize("secret", ["", None, "wrong-secret-but-well-formed-xx", 12])
def test_a_forged_move_is_refused_and_changes_nothing(room, secret):
    code, real = started(room)
    room.show(code, real, view())
    room.save_lesson(code, real, [view("rope")])
    assert room.show(code, secret, view("sinusoidal")).message == "classroom.err_not_teacher"
    assert room.save_lesson(code, secret, [view("sinusoidal")]).message == "classroom.err_not_teacher"
    assert room.view(code).value[0] == 1 and room.view(code).value[1].step.page == "decay"
    assert [step.page for step in room.lesson(code).value] == ["rope"]
    _other_code, other_secret = started(room, "other-teacher-0001")
    assert room.show(code, other_secret, view("home")).message == "classroom.err_not_teacher"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (view("admin"), "lesson.err_unknown_page"),
        (view(base=123.0), "lesson.err_bad_value"),  # not one of the slider's bases
        (view(dim=65), "lesson.err_bad_value"),  # odd
        (view(length=10**9), "lesson.err_bad_value"),  # out of range
        (view(heads=True), "lesson.err_bad_value"),  # a bool is not a number here
        (view(dim=float("nan")), "lesson.err_bad_value"),
        (view(evil=1), "lesson.err_unknown_setting"),
        (view() | {"checkpoint": "cp_rope_shift"}, "lesson.err_unknown_checkpoint"),  # another page's
        (view() | {"note": "x" * 141}, "lesson.err_long_note"),
        (view() | {"index": 30}, "lesson.err_not_a_lesson"),
        (view() | {"script": "<b>"}, "lesson.err_not_a_lesson"),
        ("decay", "lesson.err_not_a_lesson"),
    ],
)
def test_a_bad_view_is_refused_with_one_message_and_nothing_is_stored(room, raw, message):
    code, secret = started(room)
    outcome = room.show(code, secret, raw)
    assert not outcome.ok and outcome.message == message
    assert room.view(code).value == (0, None)


def test_a_lesson_is_kept_whole_or_not_at_all(room):
    from classroom.lesson import MAX_STEPS

    code, secret = started(room)
    steps = [view("sinusoidal", dim=128), view("decay"), view("rope") | {"checkpoint": "cp_rope_shift"}]
    assert room.save_lesson(code, secret, steps).ok
    kept = room.lesson(code).value
    assert [step.page for step in kept] == ["sinusoidal", "decay", "rope"] and kept[2].checkpoint == "cp_rope_shift"
    too_many = room.save_lesson(code, secret, [view()] * (MAX_STEPS + 1))
    bad_third = room.save_lesson(code, secret, [view(), view(), view(dim=3)])
    assert (too_many.message, too_many.value) == ("lesson.err_too_many_steps", {"most": MAX_STEPS})
    assert bad_third.message == "lesson.err_in_step" and bad_third.value["step"] == 3
    assert room.lesson(code).value == kept  # the refused ones changed nothing


def test_the_class_counts_who_follows_and_who_explores_once_per_browser(room, clock):
    from classroom.service import BEAT_TTL_S

    code, _ = started(room)
    tally = {}
    for n in range(9):
        for mode in ("follow", "explore", "follow")[: 1 + n % 3]:  # a browser that changes its mind counts once
            assert room.beat(code, browser(n), mode).ok
            tally[browser(n)] = mode
    assert room.modes(code).value == {mode: list(tally.values()).count(mode) for mode in ("follow", "explore")}
    assert not room.beat(code, browser(1), "asleep").ok and not room.beat(code, "x", "follow").ok
    clock.now += BEAT_TTL_S + 1  # every tab went quiet (closed)
    assert room.beat(code, browser(0), "explore").ok
    assert room.modes(code).value == {"follow": 0, "explore": 1}


def test_the_view_lesson_and_heartbeats_survive_a_restart_and_go_with_the_class(store_url, clock):
    first = Classroom(open_store(store_url), clock)
    code, secret = started(first)
    first.show(code, secret, view("rope", index=1))
    first.save_lesson(code, secret, [view("decay"), view("rope")])
    first.beat(code, browser(1), "follow")
    first.store.close()
    restarted = Classroom(open_store(store_url), clock)
    assert restarted.view(code).value[1].step.page == "rope" and len(restarted.lesson(code).value) == 2
    assert restarted.modes(code).value["follow"] == 1
    assert restarted.end(code, secret).ok
    assert not restarted.view(code).ok and restarted.lesson(code).value == ()
    assert not restarted.beat(code, browser(1), "follow").ok and restarted.modes(code).value["follow"] == 0
    if store_url.startswith("redis"):
        assert restarted.store.client.keys(f"*{code}*") == []
    else:
        import sqlite3

        with sqlite3.connect(restarted.store.path) as db:
            for table in ("views", "beats"):
                assert db.execute(f"SELECT COUNT(*) FROM {table} WHERE code = ?", (code,)).fetchone() == (0,)
