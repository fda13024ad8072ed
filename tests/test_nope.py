"""NoPE under a causal mask: identical tokens, bidirectional vs causal, against hand-computed softmax weights."""

from __future__ import annotations

import math

import pytest
import torch

from posenc.nope import causal_first_token_weight, distance_from_last, nope_identical_tokens, nope_tokens


def loop_attention(tokens: torch.Tensor, causal: bool) -> tuple[torch.Tensor, torch.Tensor]:
    """softmax_j(x_i·x_j/√D) over j ≤ i (causal) or all j, and o_i = Σ_j α_ij x_j, with explicit float64 loops."""
    length, dim = tokens.shape
    weights = torch.zeros(length, length, dtype=torch.float64)
    for i in range(length):
        keys = range(i + 1) if causal else range(length)
        logits = [float(tokens[i] @ tokens[j]) / math.sqrt(dim) for j in keys]
        top = max(logits)
        total = sum(math.exp(s - top) for s in logits)
        for j, s in zip(keys, logits, strict=True):
            weights[i, j] = math.exp(s - top) / total
    return weights, weights @ tokens


@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("distinct_first", [True, False])
@pytest.mark.parametrize("gap", [-1.5, 0.0, 2.0])
def test_matches_loop(causal, distinct_first, gap):
    demo = nope_identical_tokens(9, 6, causal, distinct_first, gap, seed=4)
    weights, outputs = loop_attention(nope_tokens(9, 6, distinct_first, gap, seed=4), causal)
    torch.testing.assert_close(demo.weights, weights, rtol=0, atol=1e-12)
    torch.testing.assert_close(demo.outputs, outputs, rtol=0, atol=1e-10)


@pytest.mark.parametrize("gap", [-2.0, 0.0, 0.7, 3.0])
def test_first_token_score_is_exactly_gap_higher(gap):
    tokens = nope_tokens(5, 8, True, gap)
    x, first = tokens[1], tokens[0]
    assert float(x @ first - x @ x) / math.sqrt(8) == pytest.approx(gap, abs=1e-10)
    assert not torch.allclose(first, x)


@pytest.mark.parametrize("length", [2, 7, 50])
def test_causal_weight_on_first_token_is_one_over_i_plus_one(length):
    demo = nope_identical_tokens(length, 16, causal=True)
    want = torch.tensor([1 / (i + 1) for i in range(length)], dtype=torch.float64)
    torch.testing.assert_close(demo.weights[:, 0], want, rtol=0, atol=1e-12)
    torch.testing.assert_close(causal_first_token_weight(length), want, rtol=0, atol=1e-15)


@pytest.mark.parametrize("gap", [-1.0, 1.0, 2.5])
def test_closed_form_with_a_gap(gap):
    demo = nope_identical_tokens(12, 8, causal=True, first_logit_gap=gap)
    want = torch.tensor([math.exp(gap) / (math.exp(gap) + i) for i in range(12)], dtype=torch.float64)
    torch.testing.assert_close(demo.weights[:, 0], want, rtol=0, atol=1e-12)
    torch.testing.assert_close(causal_first_token_weight(12, gap), want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("length", [3, 10, 64])
@pytest.mark.parametrize("gap", [-1.0, 0.0, 2.0])
def test_causal_outputs_strictly_vary_bidirectional_are_identical(length, gap):
    causal = nope_identical_tokens(length, 16, causal=True, first_logit_gap=gap)
    bidirectional = nope_identical_tokens(length, 16, causal=False, first_logit_gap=gap)
    # causal: every pair of x positions has a different output; the distance to the last output falls strictly
    distance = distance_from_last(causal.outputs)[1:]
    assert bool((distance[:-1] > distance[1:]).all())
    assert bool((distance[:-1] > 1e-9).all())
    # bidirectional: every x position gets exactly the same output
    assert float(distance_from_last(bidirectional.outputs)[1:].max()) < 1e-12
    assert float((bidirectional.weights[1:] - bidirectional.weights[1]).abs().max()) < 1e-15


@pytest.mark.parametrize("causal", [True, False])
def test_all_identical_tokens_give_identical_outputs_even_when_causal(causal):
    demo = nope_identical_tokens(10, 8, causal=causal, distinct_first=False)
    assert float(distance_from_last(demo.outputs).max()) < 1e-12


def test_causal_rows_sum_to_one_and_never_look_ahead():
    demo = nope_identical_tokens(8, 4, causal=True)
    torch.testing.assert_close(demo.weights.sum(-1), torch.ones(8, dtype=torch.float64))
    assert torch.count_nonzero(torch.triu(demo.weights, diagonal=1)) == 0


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: nope_identical_tokens(-4), "positive"),
        (lambda: nope_identical_tokens(1), "at least 2"),
        (lambda: nope_identical_tokens(5, 1), "at least 2"),
        (lambda: nope_identical_tokens(5, 0), "positive"),
        (lambda: nope_identical_tokens(5, 4, first_logit_gap=math.inf), "finite"),
        (lambda: causal_first_token_weight(0), "positive"),
        (lambda: distance_from_last(torch.zeros(3)), "shape"),
    ],
)
def test_bad_input_raises_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()
