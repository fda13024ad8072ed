"""Transformer-XL's four-term score against the paper's formula, written as explicit float64 loops."""

from __future__ import annotations

import math

import pytest
import torch

from posenc.absolute import sinusoidal
from posenc.attention import attention_scores
from posenc.transformer_xl import (
    absolute_input_terms,
    diagonal_spread,
    illustration_draws,
    transformer_xl_scores,
    xl_illustration,
    xl_relative_encoding,
)


def reference_r(distance: int, dim: int, base: float) -> list[float]:
    """The reference PositionalEmbedding: [sin(r ω_0) … sin(r ω_{D/2−1}), cos(r ω_0) … cos(r ω_{D/2−1})]."""
    freqs = [1.0 / base ** (2 * i / dim) for i in range(dim // 2)]
    return [math.sin(distance * w) for w in freqs] + [math.cos(distance * w) for w in freqs]


def random_inputs(heads: int, q_len: int, k_len: int, dim: int, rel_dim: int, seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    q = torch.randn(heads, q_len, dim, generator=generator, dtype=torch.float64)
    k = torch.randn(heads, k_len, dim, generator=generator, dtype=torch.float64)
    w_kr = torch.randn(heads, dim, rel_dim, generator=generator, dtype=torch.float64)
    u = torch.randn(heads, dim, generator=generator, dtype=torch.float64)
    v = torch.randn(heads, dim, generator=generator, dtype=torch.float64)
    return q, k, w_kr, u, v


@pytest.mark.parametrize("dim", [2, 8, 32])
@pytest.mark.parametrize("base", [100.0, 10000.0])
def test_relative_encoding_matches_reference_layout(dim, base):
    distances = torch.arange(-7, 12)
    got = xl_relative_encoding(distances, dim, base, dtype=torch.float64)
    want = torch.tensor([reference_r(int(r), dim, base) for r in distances], dtype=torch.float64)
    torch.testing.assert_close(got, want, rtol=0, atol=1e-12)


@pytest.mark.parametrize("length", [1, 5, 40])
def test_relative_encoding_is_concat_sinusoid_for_non_negative_distances(length):
    got = xl_relative_encoding(torch.arange(length), 16)
    torch.testing.assert_close(got, sinusoidal(length, 16, layout="concat"), rtol=0, atol=1e-5)


@pytest.mark.parametrize(
    ("heads", "q_len", "k_len", "dim", "rel_dim"), [(1, 4, 4, 4, 6), (2, 3, 6, 8, 8), (3, 5, 2, 2, 4)]
)
def test_each_term_matches_loop(heads, q_len, k_len, dim, rel_dim):
    q, k, w_kr, u, v = random_inputs(heads, q_len, k_len, dim, rel_dim)
    got = transformer_xl_scores(q, k, w_kr, u, v, base=100.0)
    s = 1 / math.sqrt(dim)
    for h in range(heads):
        for i in range(q_len):
            for j in range(k_len):
                rel_key = w_kr[h] @ torch.tensor(reference_r(i - j, rel_dim, 100.0), dtype=torch.float64)
                want = (
                    s * float(q[h, i] @ k[h, j]),
                    s * float(q[h, i] @ rel_key),
                    s * float(u[h] @ k[h, j]),
                    s * float(v[h] @ rel_key),
                )
                for term, value in zip(got.terms(), want, strict=True):
                    assert float(term[h, i, j]) == pytest.approx(value, abs=1e-10)


def test_terms_sum_to_total_and_batch_dims_work():
    q, k, w_kr, u, v = random_inputs(2, 5, 5, 4, 4)
    batched = transformer_xl_scores(torch.stack([q, 2 * q]), torch.stack([k, k]), w_kr, u, v)
    assert batched.total.shape == (2, 2, 5, 5)
    torch.testing.assert_close(batched.a + batched.b + batched.c + batched.d, batched.total)
    single = transformer_xl_scores(q, k, w_kr, u, v)
    torch.testing.assert_close(batched.total[0], single.total)


def test_no_position_and_no_bias_reduces_to_content_attention():
    q, k, w_kr, u, v = random_inputs(2, 6, 6, 8, 8)
    got = transformer_xl_scores(q, k, torch.zeros_like(w_kr), torch.zeros_like(u), torch.zeros_like(v))
    torch.testing.assert_close(got.total, attention_scores(q, k, "none"))
    for term in (got.b, got.c, got.d):
        assert torch.count_nonzero(term) == 0


def test_position_bias_depends_only_on_distance_and_content_bias_not_on_query():
    q, k, w_kr, u, v = random_inputs(1, 7, 7, 4, 6)
    got = transformer_xl_scores(q, k, w_kr, u, v)
    assert diagonal_spread(got.d) < 1e-12
    torch.testing.assert_close(got.c, got.c[..., :1, :].expand_as(got.c))


def test_memory_positions_shift_the_distances():
    q, k, w_kr, u, v = random_inputs(1, 3, 5, 4, 4)
    memory = transformer_xl_scores(q, k, w_kr, u, v, q_positions=torch.arange(2, 5))
    for i in range(3):
        for j in range(5):
            rel_key = w_kr[0] @ torch.tensor(reference_r(i + 2 - j, 4, 10000.0), dtype=torch.float64)
            assert float(memory.d[0, i, j]) == pytest.approx(float(v[0] @ rel_key) / 2, abs=1e-10)


@pytest.mark.parametrize("heads", [1, 3])
def test_absolute_terms_sum_to_score_of_input_plus_pe(heads):
    generator = torch.Generator().manual_seed(1)
    x, pe = torch.randn(2, 6, 8, generator=generator, dtype=torch.float64)
    w_q, w_k = torch.randn(2, heads, 4, 8, generator=generator, dtype=torch.float64)
    got = absolute_input_terms(x, pe, w_q, w_k)
    for h in range(heads):
        for i in range(6):
            for j in range(6):
                want = float((w_q[h] @ (x[i] + pe[i])) @ (w_k[h] @ (x[j] + pe[j]))) / 2
                assert float(got.total[h, i, j]) == pytest.approx(want, abs=1e-10)
    torch.testing.assert_close(got.a + got.b + got.c + got.d, got.total)


def test_diagonal_spread_detects_toeplitz():
    toeplitz = torch.tensor([[0.0, 1.0, 2.0], [-1.0, 0.0, 1.0], [-2.0, -1.0, 0.0]])
    assert diagonal_spread(toeplitz) == 0.0
    toeplitz[2, 2] = 0.5
    assert diagonal_spread(toeplitz) == pytest.approx(0.5)


def spread_by_loop(matrix: torch.Tensor) -> float:
    """max over diagonals d = j − i of (max − min) of the entries matrix[..., i, i + d], read one by one (each
    difference taken in the matrix's dtype)."""
    q_len, k_len = matrix.shape[-2:]
    spread = 0.0
    for offset in range(-(q_len - 1), k_len):
        for square in matrix.reshape(-1, q_len, k_len):
            diagonal = [square[i, i + offset] for i in range(q_len) if 0 <= i + offset < k_len]
            spread = max(spread, float(max(diagonal) - min(diagonal)))
    return spread


@pytest.mark.parametrize("shape", [(1, 1), (1, 6), (6, 1), (5, 5), (3, 8), (8, 3), (2, 4, 7), (3, 2, 5, 4)])
@pytest.mark.parametrize("dtype", [torch.float64, torch.float32])
def test_diagonal_spread_matches_a_loop_over_diagonals(shape, dtype):
    matrix = torch.randn(shape, generator=torch.Generator().manual_seed(len(shape) * 100 + shape[-1]), dtype=dtype)
    assert diagonal_spread(matrix) == spread_by_loop(matrix)


@pytest.mark.parametrize("shape", [(1, 1), (4, 9), (9, 4), (6, 6), (3, 5, 7)])
def test_diagonal_spread_is_zero_exactly_for_a_toeplitz_matrix(shape):
    """matrix[..., i, j] = t[..., j − i]: each diagonal holds one value, so the spread is 0, not merely small."""
    q_len, k_len = shape[-2:]
    t = torch.randn(*shape[:-2], q_len + k_len - 1, generator=torch.Generator().manual_seed(q_len), dtype=torch.float64)
    offsets = torch.arange(k_len) - torch.arange(q_len)[:, None] + (q_len - 1)  # j − i, from 0
    toeplitz = t[..., offsets]  # [..., Q, K]
    assert diagonal_spread(toeplitz) == 0.0
    toeplitz[(0,) * (len(shape) - 2) + (q_len - 1, 0)] += 1.0  # a diagonal of one entry still spreads 0
    assert diagonal_spread(toeplitz) == 0.0
    if min(q_len, k_len) > 1:
        toeplitz[(0,) * (len(shape) - 2) + (1, 1)] += 0.25  # the main diagonal now spreads by 0.25
        assert diagonal_spread(toeplitz) == pytest.approx(0.25, abs=1e-12)


@pytest.mark.parametrize(("length", "dim"), [(1, 2), (12, 16), (30, 64)])
def test_illustration_shapes_and_reproducibility(length, dim):
    first, second = xl_illustration(length, dim, seed=3), xl_illustration(length, dim, seed=3)
    assert first.relative.total.shape == first.absolute.total.shape == (1, length, length)
    torch.testing.assert_close(first.relative.total, second.relative.total)
    torch.testing.assert_close(first.relative.a, first.absolute.a)  # same tokens, same W_q and W_k
    assert diagonal_spread(first.relative.d) < 1e-9


def test_illustration_leaves_global_random_state_alone():
    torch.manual_seed(0)
    expected = torch.rand(3)
    torch.manual_seed(0)
    xl_illustration(8, 8)
    torch.testing.assert_close(torch.rand(3), expected)


GOOD = random_inputs(1, 3, 3, 4, 4)  # valid q, k, w_kr, u, v to break one at a time
zeros = torch.zeros


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: xl_relative_encoding(torch.arange(3), 5), "even"),
        (lambda: xl_relative_encoding(torch.tensor([0.5]), 4), "whole numbers"),
        (lambda: xl_relative_encoding(torch.arange(3), 4, base=1.0), "greater than 1"),
        (lambda: xl_illustration(-1, 8), "positive"),
        (lambda: xl_illustration(4, 7), "even"),
        (lambda: transformer_xl_scores(*random_inputs(1, 3, 3, 4, 5)), "even"),
        (
            lambda: transformer_xl_scores(
                *random_inputs(1, 3, 3, 4, 4)[:2], torch.zeros(2, 4, 4), *random_inputs(1, 3, 3, 4, 4)[3:]
            ),
            "w_kr",
        ),
        (lambda: transformer_xl_scores(*GOOD[:3], zeros(4), zeros(1, 4)), "u must"),
        (
            lambda: transformer_xl_scores(
                torch.zeros(3, 4), torch.zeros(3, 4), torch.zeros(1, 4, 4), torch.zeros(1, 4), torch.zeros(1, 4)
            ),
            "q and k",
        ),
        (lambda: transformer_xl_scores(*GOOD, q_positions=torch.arange(4)), "q_positions"),
        (
            lambda: absolute_input_terms(
                torch.zeros(3, 4), torch.zeros(2, 4), torch.zeros(1, 2, 4), torch.zeros(1, 2, 4)
            ),
            "x and pe",
        ),
        (lambda: diagonal_spread(torch.zeros(3)), "at least 2"),
    ],
)
def test_bad_input_raises_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize(("dim", "larger"), [(2, 8), (16, 64), (500, 1024)])
def test_a_larger_dim_or_length_adds_to_the_same_draws(dim, larger):
    """Up to the app's largest dim: E, u, v gain columns, the N(0, 1/D) weights rows and columns (rescaled by
    √(D'/D)), the tokens a tail. Past it, the draws are made at the size asked for."""
    small, big = illustration_draws(12, dim, seed=3), illustration_draws(40, larger, seed=3)
    ratio = math.sqrt(larger / dim)
    for got, wider, scale in zip(small[:6], big[:6], (1.0, ratio, ratio, ratio, 1.0, 1.0), strict=True):
        block = wider[..., :dim, :dim] if wider.dim() == 3 else wider[..., :dim]
        torch.testing.assert_close(got, block * scale, rtol=1e-12, atol=0)
    assert torch.equal(small[6], big[6][:12])
    w_q = illustration_draws(4, 256, seed=3)[1]
    assert float(w_q.std()) == pytest.approx(256**-0.5, rel=0.02)  # 65,536 draws of N(0, 1/D)
    assert illustration_draws(3, 1030)[3].shape == (1, 1030, 1030)


def test_a_block_larger_than_its_draw_is_refused():
    from posenc._random import leading_blocks

    with pytest.raises(ValueError, match="fit in its draw"):
        leading_blocks(0, ((4, 4),), ((5, 4),), (1.0,))
