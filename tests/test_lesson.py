"""A lesson read from a link or a file (classroom/lesson.py): what it writes it reads back as the same steps, and
anything else (another format, a forged or truncated link, a step out of bounds) is refused whole with one catalog
key, never corrected and never half-read. The reference for "valid" is the sliders' own rule (ui.query)."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from classroom.lesson import (
    MAX_LESSON_CHARS,
    MAX_STEPS,
    LessonError,
    Step,
    decode_link,
    encode_link,
    lesson_json,
    parse_json,
    read_lesson,
)
from ui.i18n import catalog
from ui.limits import LIMITS
from ui.menu import CHECKPOINTS, PAGES

pages = st.sampled_from([page.name for page in PAGES])
valid_settings = st.fixed_dictionaries(
    {},
    optional={
        "base": st.sampled_from(LIMITS.base_options),
        "dim": st.integers(LIMITS.dim_min // 2, LIMITS.dim_max // 2).map(lambda n: 2 * n),
        "length": st.integers(LIMITS.length_min, LIMITS.length_max),
        "heads": st.integers(LIMITS.heads_min, LIMITS.heads_max),
    },
)


@st.composite
def steps(draw) -> Step:
    page = draw(pages)
    checkpoint = draw(st.sampled_from([None, *CHECKPOINTS.get(page, ())]))
    note = draw(st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Z")), max_size=40))
    return Step(page, draw(valid_settings), checkpoint, note)


@settings(max_examples=60, deadline=None)
@given(st.lists(steps(), min_size=1, max_size=MAX_STEPS))
def test_a_lesson_survives_its_link_and_its_file(lesson):
    assert decode_link(encode_link(lesson)) == tuple(lesson)
    assert read_lesson(parse_json(lesson_json(lesson).encode())) == tuple(lesson)


def link_of(raw) -> str:
    return base64.urlsafe_b64encode(json.dumps(raw).encode()).decode().rstrip("=")


STEP = {"page": "decay", "settings": {"base": 500000.0}}


@pytest.mark.parametrize(
    ("link", "key"),
    [
        ("", "lesson.err_not_a_lesson"),
        ("not base64 at all!", "lesson.err_not_a_lesson"),
        (link_of({"hello": 1}), "lesson.err_not_a_lesson"),
        (link_of({"format": "slides", "steps": [STEP]}), "lesson.err_not_a_lesson"),
        (link_of([]), "lesson.err_not_a_lesson"),
        (link_of([STEP] * (MAX_STEPS + 1)), "lesson.err_too_many_steps"),
        (link_of([STEP, {"page": "../../etc/passwd"}]), "lesson.err_in_step"),
        (link_of([{"page": "decay", "settings": {"dim": 2048}}]), "lesson.err_in_step"),
        (encode_link([Step("decay", {"base": 500000.0})])[:-3], "lesson.err_not_a_lesson"),  # cut short
        ("A" * (MAX_LESSON_CHARS + 1), "lesson.err_too_big"),
        (["x", link_of([STEP])], None),  # ?lesson=x&lesson=… : the last one, as st.query_params reads it
    ],
)
def test_a_bad_link_is_refused_whole_with_one_key_that_every_language_has(link, key):
    if key is None:
        assert decode_link(link) == (Step("decay", {"base": 500000.0}),)
        return
    with pytest.raises(LessonError) as refused:
        decode_link(link)
    assert refused.value.key == key
    for lang in ("en", "ko", "zh"):
        line = catalog(lang)[key].format(**refused.value.params | {"why": ""})
        assert "\n" not in line and "{" not in line


def test_a_bad_step_says_which_step_and_why_in_one_line():
    with pytest.raises(LessonError) as refused:
        read_lesson([STEP, STEP, {"page": "decay", "settings": {"heads": 99}}])
    assert refused.value.params == {"step": 3, "why": "lesson.err_bad_value", "name": "heads"}


@pytest.mark.parametrize("data", [b"\xff\xfe{}", b"{" * 10_000, b"x" * (MAX_LESSON_CHARS + 1), "[1, 2"])
def test_a_file_that_is_not_a_lesson_is_refused(data):
    with pytest.raises(LessonError):
        read_lesson(parse_json(data))


def test_a_note_is_one_line():
    (step,) = read_lesson([STEP | {"note": "  Set base\n to 500,000 \t now "}])
    assert step.note == "Set base to 500,000 now"
