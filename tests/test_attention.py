"""attention_scores for every method, checked against the per-method formula written out with einsum/loops."""

import math

import pytest
import torch

import posenc


@pytest.fixture
def qk():
    gen = torch.Generator().manual_seed(0)
    return torch.randn(2, 4, 6, 8, generator=gen, dtype=torch.float64), torch.randn(
        2, 4, 6, 8, generator=gen, dtype=torch.float64
    )


@pytest.mark.parametrize("method", ["none", "sinusoidal", "learned"])
def test_content_only_methods_are_scaled_dot_products(qk, method):
    q, k = qk
    scores = posenc.attention_scores(q, k, method)
    expected = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(8)
    torch.testing.assert_close(scores, expected)


def test_rope_scores_rotate_both_sides(qk):
    q, k = qk
    scores = posenc.attention_scores(q, k, "rope", rope_layout="interleaved")
    rq, rk = posenc.apply_rope(q, layout="interleaved"), posenc.apply_rope(k, layout="interleaved")
    torch.testing.assert_close(scores, torch.einsum("bhqd,bhkd->bhqk", rq, rk) / math.sqrt(8))


def test_alibi_adds_the_linear_bias(qk):
    q, k = qk
    plain = posenc.attention_scores(q, k, "none")
    scores = posenc.attention_scores(q, k, "alibi", causal=True)
    slopes = posenc.alibi_slopes(4, dtype=torch.float64)
    for h in range(4):
        for i in range(6):
            for j in range(6):
                expected = plain[:, h, i, j] - slopes[h] * (i - j) if j <= i else torch.full((2,), -math.inf)
                torch.testing.assert_close(scores[:, h, i, j], expected.to(torch.float64))


def test_t5_adds_the_given_bias(qk):
    q, k = qk
    bias = posenc.T5RelativeBias(4, 8, 16).double()(6, 6)
    scores = posenc.attention_scores(q, k, "t5", position_bias=bias, scale=1.0)
    torch.testing.assert_close(scores, torch.einsum("bhqd,bhkd->bhqk", q, k) + bias)


def test_shaw_adds_query_dot_relative_key(qk):
    q, k = qk
    shaw = posenc.ShawRelativeEmbeddings(2, 8).double()
    rel_keys, _ = shaw(6, 6)
    scores = posenc.attention_scores(q, k, "shaw", relative_keys=rel_keys)
    for i in range(6):
        for j in range(6):
            expected = (q[..., i, :] * (k[..., j, :] + rel_keys[i, j])).sum(-1) / math.sqrt(8)
            torch.testing.assert_close(scores[..., i, j], expected)


def test_weights_are_row_stochastic_and_causal():
    scores = torch.randn(3, 5, 5)
    weights = posenc.attention_weights(scores, causal=True)
    torch.testing.assert_close(weights.sum(-1), torch.ones(3, 5))
    assert (weights[:, torch.triu(torch.ones(5, 5, dtype=torch.bool), 1)] == 0).all()
    assert posenc.causal_mask(3).tolist() == [[False, True, True], [False, False, True], [False, False, False]]


def test_without_positions_identical_tokens_get_identical_rows():
    """The app's core lesson: attention without PE cannot tell two copies of a token apart."""
    torch.manual_seed(0)
    x = torch.randn(5, 16, dtype=torch.float64)
    x[3] = x[1]  # token 3 repeats token 1
    w_q, w_k = torch.randn(2, 16, 16, dtype=torch.float64)
    q, k = (x @ w_q)[None], (x @ w_k)[None]
    none_rows = posenc.attention_weights(posenc.attention_scores(q, k, "none"))[0]
    assert (none_rows[1] - none_rows[3]).abs().max().item() == 0.0
    rope_rows = posenc.attention_weights(posenc.attention_scores(q, k, "rope"))[0]
    assert (rope_rows[1] - rope_rows[3]).abs().max().item() > 1e-3


def test_permuting_tokens_only_permutes_the_output_without_positions():
    torch.manual_seed(0)
    q, k, v = torch.randn(3, 1, 7, 8, dtype=torch.float64)
    perm = torch.randperm(7)
    out = posenc.attention_weights(posenc.attention_scores(q, k)) @ v
    out_perm = posenc.attention_weights(posenc.attention_scores(q[:, perm], k[:, perm])) @ v[:, perm]
    torch.testing.assert_close(out_perm, out[:, perm])
