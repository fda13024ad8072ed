"""The toy-transformer page: answers, attention grids, the repeated-digit test, accuracy table, bad input."""

import json
import time
from pathlib import Path

import numpy as np
import pytest
from conftest import decode, figures, tables
from hypothesis import given, settings
from hypothesis import strategies as hypothesis_st
from streamlit.testing.v1 import AppTest

from charts.toy_model import expression_problem
from posenc.toy.data import parse_expression
from posenc.toy.model import ASSETS, PE_CHOICES
from ui.i18n import text

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(
    not all((ASSETS / f"{pe}.pt").exists() for pe in PE_CHOICES), reason="the toy checkpoints are not all trained yet"
)


def _open(**state) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages" / "toy_model.py"), default_timeout=60)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def _heatmaps(fig: dict) -> list[np.ndarray]:
    return [decode(trace["z"]) for trace in fig["data"] if trace["type"] == "heatmap"]


def test_default_view_shows_every_section():
    at = _open()
    assert not at.exception, at.exception
    assert at.title[0].value == "Attention with and without positional encoding"
    answers = tables(at)[0]
    assert len(answers.rows) == len(PE_CHOICES)
    figs = figures(at)
    assert [len(_heatmaps(f)) for f in figs[:2]] == [8, 8]  # 2 layers x 4 heads, for each of two models
    assert [trace["type"] for trace in figs[2]["data"]] == ["scatter"] * 3  # the three '1's of 21+211=
    assert {trace["type"] for trace in figs[-1]["data"]} == {"bar"}
    assert len(tables(at)[1].rows) == len(PE_CHOICES)


def test_the_repeated_digit_rows_are_exactly_equal_without_pe_and_differ_with_it():
    at = _open()
    at.selectbox(key="toy_token").set_value("1").run()
    figs = figures(at)
    no_pe, sinusoidal = figs[2], figs[3]
    rows = [decode(trace["y"]) for trace in no_pe["data"]]
    assert len(rows) == 3 and all(np.array_equal(rows[0], row) for row in rows[1:])
    pe_rows = [decode(trace["y"]) for trace in sinusoidal["data"]]
    assert max(np.abs(pe_rows[0] - row).max() for row in pe_rows[1:]) > 1e-3
    texts = [m.value for m in at.markdown if "max |difference|" in m.value]
    assert "layer 1: **0**, layer 2: **0**" in texts[0]
    assert "**0**, layer 2: **0**" not in texts[1]


@pytest.mark.parametrize("typed", ["abc", "1++2", "12345+1=", "007+1", "2*3="])
def test_bad_input_shows_a_message_not_a_traceback(typed):
    at = _open()
    at.text_input(key="toy_typed").set_value(typed).run()
    assert not at.exception
    assert len(at.error) == 1 and "21+211=" in at.error[0].value
    assert at.error[0].value.count("The model reads") == 1  # what went wrong, then what the model accepts, once
    assert not figures(at)


@pytest.mark.parametrize("lang", ["ko", "zh"])
@pytest.mark.parametrize(
    "typed, key, values",
    [
        ("abc", "toy.problem_symbols", {"found": "'a', 'b', 'c'"}),
        ("12345+1=", "toy.problem_digits", {"number": "12345", "digits": 5, "max_digits": 4}),
        ("07+1", "toy.problem_zeros", {"number": "07", "value": 7}),
        ("1++2", "toy.problem_form", {"expression": "1++2"}),
    ],
)
def test_bad_input_is_explained_in_the_students_language(lang, typed, key, values):
    at = _open(shared_lang=lang, toy_typed=typed)
    assert not at.exception
    assert len(at.error) == 1 and not figures(at)
    assert at.error[0].value == text(lang, "toy.bad_expression", detail=text(lang, key, **values))
    assert "The model reads" not in at.error[0].value  # no English left


# what a student might type: digits, operators, spaces and a few strays, up to the input's 40 characters
TYPED = hypothesis_st.text(alphabet="0123456789+-= x*.", max_size=40)


@settings(max_examples=300, deadline=None)
@given(typed=TYPED)
def test_the_explained_problem_is_the_one_posenc_finds(typed):
    """The page explains a rejected expression in the student's language (charts.toy_model.expression_problem);
    in English, that explanation is word for word what posenc's parse_expression says went wrong."""
    try:
        parse_expression(typed)
    except ValueError as err:
        detail = str(err).split(" The model reads ", 1)[0]
        key, values = expression_problem(typed)
        assert text("en", key, **values) == detail


def test_typed_expression_is_answered():
    at = _open(toy_typed="40+2=")
    assert not at.exception
    assert "**42**" in " ".join(c.value for c in at.caption)
    assert at.info  # "40+2=" has no repeated token


@pytest.mark.parametrize("example", ["21+211=", "345+678=", "907-45=", "12-500=", "111+11=", "999+999=", "1234+5678="])
def test_every_example_renders(example):
    at = _open(toy_example=example)
    assert not at.exception, at.exception


@pytest.mark.parametrize("part", ["encoder_self", "decoder_self", "cross"])
def test_each_attention_part_has_the_right_axes(part):
    at = _open(toy_part=part)
    assert not at.exception
    assert at.radio(key="toy_part").format_func(part) == text("en", f"toy.part_{part}")
    grid = _heatmaps(figures(at)[0])
    answer_len = len(figures(at)[0]["layout"]["yaxis"]["ticktext"])
    width = {"encoder_self": 7, "decoder_self": answer_len, "cross": 7}[part]
    assert grid[0].shape[1] == width
    assert all(np.allclose(z.sum(axis=1), 1.0, atol=1e-4) for z in grid)


@pytest.mark.parametrize("left, right", [("none", "sinusoidal"), ("rope", "t5"), ("alibi", "learned"), ("t5", "none")])
def test_choosing_other_models_changes_the_maps(left, right):
    at = _open()
    before = _heatmaps(figures(at)[0])
    at.selectbox(key="toy_left").set_value(left).run()
    at.selectbox(key="toy_right").set_value(right).run()
    assert not at.exception
    after = _heatmaps(figures(at)[0])
    assert (left == "none") == all(np.array_equal(a, b) for a, b in zip(before, after, strict=True))


@pytest.mark.parametrize("layer, head", [(1, 1), (2, 4), (1, 4), (2, 1)])
def test_layer_and_head_sliders_at_their_bounds(layer, head):
    at = _open()
    at.slider(key="toy_layer").set_value(layer).run()
    at.slider(key="toy_head").set_value(head).run()
    assert not at.exception
    assert f"layer {layer}, head {head}" in figures(at)[2]["layout"]["title"]["text"]


def test_train_it_yourself_runs_one_bounded_run_and_shows_its_curve():
    at = _open()
    assert at.slider(key="toy_train_steps").min == 20
    at.slider(key="toy_train_steps").set_value(20).run()
    at.selectbox(key="toy_train_pe").set_value("alibi").run()
    at.button(key="toy_train_start").click().run()
    assert not at.exception
    at.button(key="toy_train_start").click().run()  # a second start while the first runs is refused politely
    assert not at.exception
    for _ in range(120):
        at.run()
        if "step 20 / 20" in at.get("progress")[0].proto.text and not at.info:
            break
        time.sleep(0.5)
    assert "ALiBi: step 20 / 20" in at.get("progress")[0].proto.text
    curve = next(f for f in figures(at) if f["layout"]["title"]["text"] == "Training live")
    assert len(decode(curve["data"][0]["y"])) == 20


@pytest.mark.parametrize("steps", [20, 600])
def test_training_controls_at_their_bounds_render_without_starting(steps):
    at = _open()
    at.slider(key="toy_train_steps").set_value(steps).run()
    at.selectbox(key="toy_train_pe").set_value("none").run()
    assert not at.exception
    assert at.slider(key="toy_train_steps").max == 600
    assert at.get("progress")[0].proto.text == "No run yet."


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_page_reads_in_each_language(open_page, lang):
    at = open_page("pages/toy_model.py", query={"lang": lang})
    assert not at.exception, at.exception
    assert at.title[0].value == text(lang, "toy.title")
    shown = [element.value for element in [*at.markdown, *at.caption, *at.title, *at.subheader, *at.info]]
    widgets = [*at.selectbox, *at.slider, *at.radio, *at.text_input, *at.button]
    shown += [widget.label for widget in widgets]
    shown += [option for widget in [*at.selectbox, *at.radio] for option in widget.options]  # as displayed
    assert text(lang, "toy.part_cross") in at.radio(key="toy_part").options
    assert text(lang, "toy.pe_none") in at.selectbox(key="toy_left").options
    shown += [at.get("progress")[0].proto.text]
    assert shown and not [value for value in shown if "⟦" in value]
    assert at.get("progress")[0].proto.text == text(lang, "toy.train_none")
    assert text(lang, "toy.column_model") in tables(at)[0].columns
    assert text(lang, "toy.column_seconds") in tables(at)[1].columns
    english = figures(open_page("pages/toy_model.py"))
    translated = figures(at)
    assert len(translated) == len(english) == 5
    for before, after in zip(english, translated, strict=True):
        assert after["layout"]["title"]["text"] != before["layout"]["title"]["text"]
        assert "⟦" not in str(after["layout"])


def test_the_accuracy_notice_quotes_the_shipped_metrics():
    """The No-PE model's held-out share and the best 4-digit share in toy.accuracy_notice come from the metrics
    files (the sentences themselves are measured in tests/test_toy_claims.py)."""
    at = _open()
    shown = next(c.value for c in at.caption if "as often as a guess" in c.value)
    files = {pe: json.loads((ASSETS / f"{pe}.json").read_text()) for pe in PE_CHOICES}
    assert f"it gets {100 * files['none']['held_out_accuracy']:.1f}% right" in shown
    best = max(m["out_of_length_accuracy"] for m in files.values())
    assert f"(the best gets {100 * best:.1f}%)" in shown
