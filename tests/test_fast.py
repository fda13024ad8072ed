"""posenc.fast against the textbook functions it stands in for: the same values, at the sizes and edges where the
tricks could slip (the √L blocks of the sinusoid, the angle-addition tables of the decay curves)."""

import numpy as np
import pytest
import torch

from posenc import fast
from posenc.absolute import sinusoidal, sinusoidal_shift_residual
from posenc.decay import rope_decay_bound_at, rope_ones_score_at, rope_random_score_moments
from posenc.nope import distance_from_last, nope_identical_tokens
from posenc.rope import rope_inv_freq
from posenc.rope_variants import rope_signed_scores
from posenc.transformer_xl import diagonal_spread, xl_illustration


@pytest.mark.parametrize("length, dim", [(1, 2), (2, 8), (35, 16), (36, 16), (37, 64), (1000, 128), (4096, 1024)])
@pytest.mark.parametrize("layout", ["interleaved", "concat"])
@pytest.mark.parametrize("base", [10.0, 10000.0, 1e6])
def test_sinusoid_by_blocks_is_the_sinusoid(length, dim, layout, base):
    expected = sinusoidal(length, dim, base, layout, dtype=torch.float64)
    got = fast.sinusoidal_by_blocks(length, dim, base, layout, dtype=torch.float64)
    assert got.shape == expected.shape and got.dtype == torch.float64
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-10)
    got32 = fast.sinusoidal_by_blocks(length, dim, base, layout)
    assert got32.dtype == torch.float32
    torch.testing.assert_close(got32, expected.float(), rtol=0, atol=2e-6)


@pytest.mark.parametrize("offset, length, dim", [(0, 10, 2), (1, 64, 16), (37, 300, 64), (500, 1000, 128)])
@pytest.mark.parametrize("layout", ["interleaved", "concat"])
@pytest.mark.parametrize("dtype, rounding", [(torch.float64, 1e-12), (torch.float32, 2e-6)])
def test_shift_residual_by_pairs_is_the_shift_residual(offset, length, dim, layout, dtype, rounding):
    """Both are rounding only: each stays below ``rounding`` and they agree to it."""
    expected = sinusoidal_shift_residual(offset, length, dim, 10000.0, layout, dtype)
    got = fast.sinusoidal_shift_residual_by_pairs(offset, length, dim, 10000.0, layout, dtype)
    assert got.shape == expected.shape == (length,) and got.dtype == torch.float64
    assert float(expected.max()) < rounding and float(got.max()) < rounding
    torch.testing.assert_close(got, expected, rtol=0, atol=rounding)


DISTANCES = {
    "dense": torch.arange(8193),  # 0 … r_max: the blocks cover it exactly
    "dense, short": torch.arange(6),
    "sparse": torch.tensor([0, 3, 50, 999, 123456]),
    "log-spaced": torch.unique(torch.logspace(0, 17, 128, base=2).round().long()),
    "empty": torch.arange(0),
}


@pytest.mark.parametrize("distances", DISTANCES.values(), ids=DISTANCES.keys())
@pytest.mark.parametrize("dim, base", [(2, 10000.0), (16, 100.0), (128, 10000.0), (1024, 500000.0)])
def test_decay_curves_by_blocks_are_the_textbook_curves(distances, dim, base):
    freqs = rope_inv_freq(dim, base, dtype=torch.float64)
    bound = fast.rope_decay_bound_by_blocks(distances, freqs)
    assert bound.dtype == torch.float64 and bound.shape == distances.shape
    np.testing.assert_allclose(bound.numpy(), rope_decay_bound_at(distances, freqs).numpy(), rtol=1e-10)
    ones = fast.rope_ones_score_by_blocks(distances, freqs)
    np.testing.assert_allclose(ones.numpy(), rope_ones_score_at(distances, freqs).numpy(), rtol=1e-9, atol=1e-9)


def test_sparse_distances_without_a_prebuilt_table(monkeypatch):
    """Sparse distances too many for one [P, R] table are rotated one pair at a time; same values."""
    monkeypatch.setattr(fast._Rotations, "_TABLE_LIMIT", 0)
    test_decay_curves_by_blocks_are_the_textbook_curves(DISTANCES["sparse"], 32, 10000.0)


@pytest.mark.parametrize("dim, base, max_distance", [(2, 10000.0, 5), (8, 100.0, 300), (128, 10000.0, 8192)])
@pytest.mark.parametrize("similarity", [0.0, 0.5, 1.0])
def test_moments_by_blocks_are_the_textbook_moments(dim, base, max_distance, similarity):
    mean, std = fast.rope_random_score_moments_by_blocks(dim, base, max_distance, similarity)
    expected_mean, expected_std = rope_random_score_moments(dim, base, max_distance, similarity)
    np.testing.assert_allclose(mean.numpy(), expected_mean.numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(std.numpy(), expected_std.numpy(), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(
    "length, dim, base, seed, vocab",
    [(1, 2, 10000.0, 0, 8), (2, 4, 100.0, 1, 1), (17, 64, 10.0, 5, 3), (48, 512, 1e6, 0, 8)],
)
@pytest.mark.parametrize("view", ["relative", "absolute"])
def test_xl_illustration_view_by_vocabulary_is_that_view_of_the_illustration(view, length, dim, base, seed, vocab):
    """The same four terms and total to rounding (relative to the largest entry of each), and so the same diagonal
    spreads: (d) of Transformer-XL still exactly 0."""
    expected = getattr(xl_illustration(length, dim, base, seed, vocab), view)
    got = fast.xl_illustration_view_by_vocabulary(view, length, dim, base, seed, vocab)
    for want, part in zip((*expected.terms(), expected.total), (*got.terms(), got.total), strict=True):
        assert part.shape == want.shape == (1, length, length) and part.dtype == torch.float64
        torch.testing.assert_close(part, want, rtol=0, atol=1e-13 * float(want.abs().max()))
    for want, part in zip(expected.terms(), got.terms(), strict=True):
        assert diagonal_spread(part) == pytest.approx(diagonal_spread(want), rel=1e-12, abs=1e-13)
    if view == "relative":
        assert diagonal_spread(got.d) == 0.0


@pytest.mark.parametrize("length, dim", [(2, 2), (9, 6), (130, 16), (512, 300)])
@pytest.mark.parametrize("distinct_first, gap", [(True, 0.0), (True, -2.5), (True, 3.0), (False, 0.0), (False, 1.5)])
def test_nope_drawn_both_ways_is_what_the_textbook_demo_draws(length, dim, distinct_first, gap):
    """Causal and not: the textbook demo's window of weights, weight on the first token and distances from the last
    output, to rounding (the distances are all rounding when every token is x: here exactly 0)."""
    got = fast.nope_drawn_both_ways(length, dim, distinct_first, gap, window=48, seed=2)
    window = min(48, length)
    for causal, drawn in zip((True, False), got, strict=True):
        want = nope_identical_tokens(length, dim, causal, distinct_first, gap, seed=2)
        torch.testing.assert_close(drawn.window, want.weights[:window, :window], rtol=0, atol=1e-14)
        torch.testing.assert_close(drawn.first, want.weights[:, 0], rtol=0, atol=1e-14)
        scale = 1e-13 * float(want.outputs.abs().max())  # each output is a weighted sum of the L tokens
        torch.testing.assert_close(drawn.distance, distance_from_last(want.outputs), rtol=0, atol=scale)
        assert drawn.window.shape == (window, window) and drawn.first.shape == drawn.distance.shape == (length,)
        if causal:  # nothing after the query is read
            assert torch.equal(drawn.window.triu(1), torch.zeros(window, window, dtype=torch.float64))
    with pytest.raises(ValueError, match="at least 2"):
        fast.nope_drawn_both_ways(1, dim)


def test_xl_illustration_view_names_the_views_it_knows():
    with pytest.raises(ValueError, match="relative"):
        fast.xl_illustration_view_by_vocabulary("sideways", 4, 8)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize(("dim", "base", "seed"), [(2, 10.0, 0), (64, 10000.0, 1), (1024, 500000.0, 2)])
@pytest.mark.parametrize(("q_sign", "k_sign"), [(1, 1), (-1, -1), (1, -1), (-1, 1)])
def test_signed_scores_by_phase_are_the_rotated_dot_products(layout, dim, base, seed, q_sign, k_sign):
    generator = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, dim, generator=generator, dtype=torch.float64)
    m = torch.randint(-300, 300, (40,), generator=generator)
    n = torch.cat((m[:20] - 3, torch.randint(0, 600, (20,), generator=generator)))  # a fixed offset, then any
    want = rope_signed_scores(q, k, m, n, q_sign, k_sign, base, layout)
    got = fast.rope_signed_scores_by_phase(q, k, m, n, q_sign, k_sign, base, layout)
    assert got.shape == want.shape == (40,) and got.dtype == torch.float64
    torch.testing.assert_close(got, want, rtol=0, atol=1e-12 * float(q.norm() * k.norm()))


def test_signed_scores_by_phase_refuse_what_the_reference_refuses():
    with pytest.raises(ValueError, match=r"\+1 or −1"):
        fast.rope_signed_scores_by_phase(torch.ones(4), torch.ones(4), torch.arange(3), torch.arange(3), 0, 1)
    with pytest.raises(ValueError, match="one shape"):
        fast.rope_signed_scores_by_phase(torch.ones(4), torch.ones(6), torch.arange(3), torch.arange(3))
    with pytest.raises(ValueError, match="same length"):
        fast.rope_signed_scores_by_phase(torch.ones(4), torch.ones(4), torch.arange(3), torch.arange(4))
