"""The arithmetic task of the toy transformer: answers, tokens, splits and the expression parser."""

import numpy as np
import pytest
import torch

from posenc.toy import data


def _reference_answer(expression: data.Expression) -> str:
    """The true answer written by Python's int arithmetic, digits in the usual order."""
    return str(expression.left + expression.right if expression.op == "+" else expression.left - expression.right)


def _check_examples(expressions: list[data.Expression]) -> None:
    batch = data.make_batch(expressions)
    for row, expression in enumerate(expressions):
        source = [t for t in batch.source[row].tolist() if t != data.PAD]
        assert "".join(data.TOKENS[t] for t in source) == f"{expression.left}{expression.op}{expression.right}="
        written = batch.decoder_output[row].tolist()
        assert data.decode_answer(written) == _reference_answer(expression)
        # the decoder input is the output shifted right by one, after <s>
        assert batch.decoder_input[row, 0] == data.BOS
        assert batch.decoder_input[row, 1:].tolist() == [t if t != data.EOS else data.PAD for t in written[:-1]]


def test_every_held_out_example_has_the_right_answer():
    _check_examples(data.held_out_expressions())


def test_every_out_of_length_example_has_the_right_answer_and_four_digit_operands():
    expressions = data.out_of_length_expressions()
    assert len(expressions) == 2000
    assert all(1000 <= e.left <= 9999 and 1000 <= e.right <= 9999 for e in expressions)
    _check_examples(expressions)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_training_batches_have_the_right_answers_and_no_held_out_pair(seed):
    expressions = data.sample_training(5000, torch.Generator().manual_seed(seed))
    assert len(expressions) == 5000
    _check_examples(expressions)
    pairs = np.array([[e.left, e.right] for e in expressions])
    assert not data.is_held_out(pairs[:, 0], pairs[:, 1]).any()
    assert {e.op for e in expressions} == {"+", "-"}
    assert any(e.left < e.right and e.op == "-" for e in expressions)  # negative answers are included


def test_the_full_grammar_corner_cases_are_right():
    corners = [data.Expression(i, op, j) for i in (0, 9, 10, 99, 100, 999) for j in (0, 1, 999) for op in "+-"]
    _check_examples(corners)
    assert data.decode_answer(data.answer_tokens(-190)) == "-190"
    assert data.answer_tokens(232) == [data.TOKEN_ID[c] for c in "232"]
    assert data.answer_tokens(-190) == [data.TOKEN_ID[c] for c in "-091"]  # sign first, then digits reversed


def test_splits_are_disjoint_deterministic_and_about_one_percent():
    pairs = data.held_out_pairs()
    grid_i, grid_j = np.meshgrid(np.arange(1000), np.arange(1000), indexing="ij")
    held = data.is_held_out(grid_i, grid_j)
    assert held.sum() == len(pairs)
    assert 0.008 < held.mean() < 0.012
    assert np.array_equal(pairs, data.held_out_pairs())  # same split every call
    # a pair is held out for both operators: the training sampler never shows it with either
    assert set(map(tuple, pairs.tolist())) == {(e.left, e.right) for e in data.held_out_expressions()}
    assert len(data.held_out_expressions()) == 2 * len(pairs)
    longest_training = max(len(data.encode_source(data.Expression(999, "+", 999))), 0)
    shortest_long = min(len(data.encode_source(e)) for e in data.out_of_length_expressions())
    assert shortest_long > longest_training  # the out-of-length split is longer than anything trained on


def test_samples_are_reproducible():
    first = data.sample_training(64, torch.Generator().manual_seed(5))
    second = data.sample_training(64, torch.Generator().manual_seed(5))
    assert first == second
    assert data.held_out_expressions(limit=50, seed=3) == data.held_out_expressions(limit=50, seed=3)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("21+211=", data.Expression(21, "+", 211)),
        ("21+211", data.Expression(21, "+", 211)),
        (" 907 - 45 = ", data.Expression(907, "-", 45)),
        ("0-999=", data.Expression(0, "-", 999)),
        ("9999+9999=", data.Expression(9999, "+", 9999)),
    ],
)
def test_parse_accepts_expressions_of_the_grammar(text, expected):
    assert data.parse_expression(text) == expected


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("   ", "empty"),
        ("abc", "Only digits"),
        ("2x+3=", "'x'"),
        ("1++2", "not of the form"),
        ("1+2+3=", "not of the form"),
        ("-5+3=", "not of the form"),
        ("12=", "not of the form"),
        ("+=", "not of the form"),
        ("12345+1=", "at most 4"),
        ("1+123456=", "at most 4"),
        ("007+1=", "leading zeros"),
        ("1" * 200, "too long"),
    ],
)
def test_parse_rejects_bad_input_with_a_message(text, words):
    with pytest.raises(ValueError, match="21\\+211=") as error:
        data.parse_expression(text)
    assert words in str(error.value)
