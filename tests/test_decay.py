"""posenc.decay against independent formulas: Python loops with math/cmath, closed forms and statistical facts."""

import cmath
import math

import numpy as np
import pytest
import torch

from posenc.decay import (
    CONTEXT_METHODS,
    distance_grid,
    far_half_ones_score,
    full_turn_pairs,
    rope_context_extension,
    rope_decay_bound_at,
    rope_extension_decay,
    rope_ones_score_at,
    rope_random_score_moments,
    rope_random_score_stats,
    rope_wavelengths,
)
from posenc.rope import rope_inv_freq, rope_relative_scores


def thetas(dim: int, base: float) -> list[float]:
    return [base ** (-2 * i / dim) for i in range(dim // 2)]


def bound_by_loop(freqs, r: int) -> float:
    """(1/P) Σ_j |S_j|, S_j = Σ_{k<j} e^{i r θ_k}, one term at a time."""
    partial, total = 0j, 0.0
    for theta in freqs:
        partial += cmath.exp(1j * r * theta)
        total += abs(partial)
    return total / len(freqs)


def ones_score_by_rotation(dim: int, freqs, r: int) -> float:
    """Rotate q = (1, …, 1) by r with explicit 2×2 rotation matrices ("half" layout) and dot it with k = (1, …, 1)."""
    half = dim // 2
    q = np.ones(dim)
    rotated = q.copy()
    for i, theta in enumerate(freqs):
        c, s = math.cos(r * theta), math.sin(r * theta)
        rotated[i], rotated[i + half] = c * q[i] - s * q[i + half], s * q[i] + c * q[i + half]
    return float(rotated @ np.ones(dim))


@pytest.mark.parametrize("dim, base", [(2, 10000.0), (16, 100.0), (128, 10000.0), (64, 500000.0)])
def test_wavelengths_are_two_pi_base_power(dim, base):
    got = rope_wavelengths(rope_inv_freq(dim, base, dtype=torch.float64))
    expected = [2 * math.pi * base ** (2 * i / dim) for i in range(dim // 2)]
    assert got.dtype == torch.float64
    assert got.tolist() == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    "dim, base, length", [(128, 10000.0, 4096), (128, 500000.0, 8192), (16, 100.0, 7), (2, 10.0, 8)]
)
def test_full_turn_pairs_are_those_whose_wavelength_fits_in_the_largest_distance(dim, base, length):
    got = full_turn_pairs(rope_inv_freq(dim, base, dtype=torch.float64), length).tolist()
    expected = [2 * math.pi * base ** (2 * i / dim) <= length - 1 for i in range(dim // 2)]
    assert got == expected


def test_full_turn_pairs_count_at_llama2_settings():
    """λ_i ≤ 4095 ⇔ i ≤ 64·ln(4095/2π)/ln(10000) ≈ 45.03: pairs 0 … 45 turn fully, 46 of the 64."""
    count = math.floor(64 * math.log(4095 / (2 * math.pi)) / math.log(10000)) + 1
    assert count == 46
    assert int(full_turn_pairs(rope_inv_freq(128, 10000.0), 4096).sum()) == count


@pytest.mark.parametrize("max_distance, max_points", [(0, 10), (5, 10), (2047, 2048), (2048, 2048), (131072, 2048)])
def test_distance_grid_covers_zero_to_max_in_at_most_max_points(max_distance, max_points):
    grid = distance_grid(max_distance, max_points)
    assert grid.dtype == torch.int64
    assert grid[0].item() == 0 and grid[-1].item() == max_distance
    assert grid.numel() <= max_points
    assert bool((grid[1:] > grid[:-1]).all())
    if max_distance + 1 <= max_points:
        assert grid.tolist() == list(range(max_distance + 1))


def test_distance_grid_is_geometric_far_away():
    grid = distance_grid(131072, 2048).double()
    ratios = grid[-100:] / grid[-101:-1]
    assert float(ratios.min()) == pytest.approx(float(ratios.max()), rel=1e-3)  # constant ratio: even on a log axis


@pytest.mark.parametrize("dim, base, factor", [(128, 10000.0, 1.0), (64, 500000.0, 8.0), (8, 10.0, 3.0)])
def test_decay_bound_at_matches_loop_for_any_frequencies(dim, base, factor):
    freqs = [t / factor for t in thetas(dim, base)]
    distances = torch.tensor([0, 1, 7, 100, 4095, 70000])
    got = rope_decay_bound_at(distances, torch.tensor(freqs, dtype=torch.float64))
    expected = [bound_by_loop(freqs, int(r)) for r in distances]
    assert got.tolist() == pytest.approx(expected, rel=1e-10)


def test_decay_bound_at_many_distances_spans_chunks():
    freqs = thetas(32, 10000.0)
    got = rope_decay_bound_at(torch.arange(2500), torch.tensor(freqs, dtype=torch.float64))  # more than one chunk
    assert got.shape == (2500,)
    for r in (0, 1023, 1024, 2499):
        assert got[r].item() == pytest.approx(bound_by_loop(freqs, r), rel=1e-10)


@pytest.mark.parametrize("dim, base", [(2, 10000.0), (16, 100.0), (128, 10000.0)])
def test_ones_score_equals_explicit_rotation(dim, base):
    freqs = thetas(dim, base)
    distances = torch.tensor([0, 1, 2, 33, 256, 5000])
    got = rope_ones_score_at(distances, torch.tensor(freqs, dtype=torch.float64))
    expected = [ones_score_by_rotation(dim, freqs, int(r)) for r in distances]
    assert got.tolist() == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert got[0].item() == pytest.approx(dim)  # |1|² summed over D features


def test_random_stats_are_deterministic_and_leave_the_global_generator_alone():
    torch.manual_seed(123)
    before = torch.get_rng_state()
    first = rope_random_score_stats(16, 10000.0, 20, 0.3, samples=32, seed=7)
    second = rope_random_score_stats(16, 10000.0, 20, 0.3, samples=32, seed=7)
    other = rope_random_score_stats(16, 10000.0, 20, 0.3, samples=32, seed=8)
    assert torch.equal(torch.get_rng_state(), before)
    assert torch.equal(first[0], second[0]) and torch.equal(first[1], second[1])
    assert not torch.equal(first[0], other[0])


def test_unrelated_random_vectors_do_not_decay_on_average():
    """ρ = 0: E[s(r)] = 0 and Var[s(r)] = Σ_i Var Re(q̃_i k̃_i* e^{irθ}) = P·2 = D at every distance."""
    dim, samples = 8, 20000
    mean, std = rope_random_score_stats(dim, 10000.0, 50, 0.0, samples=samples, seed=0)
    assert mean.shape == std.shape == (51,)
    standard_error = math.sqrt(dim / samples)
    assert float(mean.abs().max()) < 5 * standard_error
    assert std.tolist() == pytest.approx([math.sqrt(dim)] * 51, rel=0.05)


@pytest.mark.parametrize("similarity", [0.5, 1.0])
def test_similar_random_vectors_follow_the_cosine_sum(similarity):
    """k = ρq + √(1−ρ²)ε: E[s(r)] = ρ Σ_i E|q̃_i|² cos(rθ_i) = 2ρ Σ_i cos(rθ_i)."""
    dim, base, samples = 8, 100.0, 20000
    mean, std = rope_random_score_stats(dim, base, 40, similarity, samples=samples, seed=3)
    expected = [2 * similarity * sum(math.cos(r * t) for t in thetas(dim, base)) for r in range(41)]
    tolerance = 5 * float(std.max()) / math.sqrt(samples)
    assert np.abs(mean.numpy() - np.array(expected)).max() < tolerance


@pytest.mark.parametrize("dim", [2, 4, 64, 128])
def test_context_extension_methods(dim):
    base, trained, target = 10000.0, 4096, 32768
    s = target / trained
    methods = rope_context_extension(dim, base, trained, target)
    assert tuple(methods) == CONTEXT_METHODS
    plain = thetas(dim, base)
    assert methods["original"][0].tolist() == pytest.approx(plain, rel=1e-12)
    assert methods["linear"][0].tolist() == pytest.approx([t / s for t in plain], rel=1e-12)
    # Dynamic NTK at L = target (YaRN §3.3): NTK-aware base' = base·s^(D/(D−2)); with D = 2 the one pair stays at 1
    expected = plain if dim == 2 else thetas(dim, base * s ** (dim / (dim - 2)))
    assert methods["dynamic"][0].tolist() == pytest.approx(expected, rel=1e-12)
    assert methods["yarn"][1] == pytest.approx(0.1 * math.log(s) + 1)
    for name in ("linear", "dynamic", "llama3"):
        assert methods[name][1] == 1.0


def test_ntk_keeps_the_fastest_pair_and_divides_the_slowest_by_s():
    methods = rope_context_extension(128, 10000.0, 4096, 32768)
    original, dynamic = methods["original"][0], methods["dynamic"][0]
    assert dynamic[0].item() == pytest.approx(original[0].item())
    assert dynamic[-1].item() == pytest.approx(original[-1].item() / 8, rel=1e-12)


def test_yarn_and_llama3_keep_fast_pairs_and_interpolate_slow_ones():
    trained, s = 4096, 8
    methods = rope_context_extension(128, 10000.0, trained, trained * s)
    plain = thetas(128, 10000.0)
    for name in ("yarn", "llama3"):
        freqs = methods[name][0].tolist()
        for i, theta in enumerate(plain):
            wavelength = 2 * math.pi / theta
            if trained / wavelength > 32:  # turns more than β_fast = 32 times (also λ < L/4 for Llama 3)
                assert freqs[i] == pytest.approx(theta, rel=1e-12), (name, i)
            if wavelength > trained:  # never turns once: fully interpolated
                assert freqs[i] == pytest.approx(theta / s, rel=1e-12), (name, i)


def test_no_extension_leaves_every_method_at_the_original():
    methods = rope_context_extension(64, 10000.0, 2048, 2048)
    for freqs, factor in methods.values():
        assert freqs.tolist() == pytest.approx(thetas(64, 10000.0), rel=1e-12)
        assert factor == 1.0


def test_linear_decay_is_the_original_stretched_by_s():
    """θ' = θ/s: the bound at distance s·r after scaling is the original bound at r."""
    dim, base, trained, s = 32, 10000.0, 64, 4
    distances, curves = rope_extension_decay(dim, base, trained, trained * s, "bound")
    assert distances.tolist() == list(range(trained * s + 1))
    for r in (0, 1, 5, 40, 64):
        assert curves["linear"][s * r].item() == pytest.approx(bound_by_loop(thetas(dim, base), r), rel=1e-10)


@pytest.mark.parametrize("kind, at_zero", [("bound", lambda dim: (dim / 2 + 1) / 2), ("ones", lambda dim: dim)])
def test_yarn_curve_carries_the_attention_factor_squared(kind, at_zero):
    dim, trained, s = 64, 1024, 16
    _, curves = rope_extension_decay(dim, 10000.0, trained, trained * s, kind)
    assert set(curves) == set(CONTEXT_METHODS)
    assert curves["original"][0].item() == pytest.approx(at_zero(dim))
    assert curves["yarn"][0].item() == pytest.approx(at_zero(dim) * (0.1 * math.log(s) + 1) ** 2)


def test_extension_decay_stays_small_for_long_targets():
    distances, curves = rope_extension_decay(128, 10000.0, 4096, 131072, "ones", max_points=512)
    assert distances.numel() <= 512 and distances[-1].item() == 131072
    assert all(values.shape == distances.shape for values in curves.values())


@pytest.mark.parametrize("dim, base", [(2, 10000.0), (16, 100.0), (32, 10000.0)])
def test_bound_at_sparse_distances_matches_the_loop(dim, base):
    freqs = thetas(dim, base)
    distances = torch.tensor([0, 3, 50, 999, 123456])
    got = rope_decay_bound_at(distances, torch.tensor(freqs, dtype=torch.float64))
    assert got.dtype == torch.float64 and got.shape == (5,)
    assert got.tolist() == pytest.approx([bound_by_loop(freqs, int(r)) for r in distances], rel=1e-10)
    ones = rope_ones_score_at(distances, torch.tensor(freqs, dtype=torch.float64))
    assert ones.tolist() == pytest.approx([ones_score_by_rotation(dim, freqs, int(r)) for r in distances], abs=1e-9)


def test_whole_float_distances_are_accepted_and_fractions_refused():
    freqs = torch.tensor(thetas(8, 100.0), dtype=torch.float64)
    assert torch.equal(
        rope_decay_bound_at(torch.tensor([0.0, 4.0]), freqs), rope_decay_bound_at(torch.tensor([0, 4]), freqs)
    )
    with pytest.raises(ValueError, match="whole numbers"):
        rope_decay_bound_at(torch.tensor([0.5]), freqs)


@pytest.mark.parametrize("dim, base", [(2, 10000.0), (16, 100.0), (64, 10000.0)])
def test_ones_score_on_every_distance_equals_explicit_rotation(dim, base):
    freqs = thetas(dim, base)
    got = rope_ones_score_at(torch.arange(1200), torch.tensor(freqs, dtype=torch.float64))
    for r in (0, 1, 34, 35, 1199):  # around the angle-addition block edges (B = 35 for r ≤ 1199)
        assert got[r].item() == pytest.approx(ones_score_by_rotation(dim, freqs, r), rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("dim, similarity, samples", [(16, 0.3, 8), (128, 0.9, 32)])
def test_sampled_stats_equal_the_scores_of_the_same_random_vectors(dim, similarity, samples):
    """The samples are the documented q and k (float32 normals from the seed, widened), scored as rope_relative_scores
    scores them."""
    generator = torch.Generator().manual_seed(5)  # the illustrations draw float32 normals, widened to float64
    q = torch.randn(samples, dim, generator=generator, dtype=torch.float32).double()
    noise = torch.randn(samples, dim, generator=generator, dtype=torch.float32).double()
    k = similarity * q + math.sqrt(1 - similarity**2) * noise
    scores = rope_relative_scores(q, k, 700, 10000.0)
    mean, std = rope_random_score_stats(dim, 10000.0, 700, similarity, samples=samples, seed=5)
    np.testing.assert_allclose(mean.numpy(), scores.mean(dim=0).numpy(), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(std.numpy(), scores.std(dim=0).numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dim, base", [(2, 10000.0), (8, 100.0), (128, 10000.0)])
def test_exact_moments_at_the_two_ends(dim, base):
    """ρ = 0: mean 0, variance D. ρ = 1: s(r) = Σ_i |q̃_i|² cos(rθ_i) with |q̃_i|² ~ χ²₂ (mean 2, variance 4)."""
    freqs = thetas(dim, base)
    mean, std = rope_random_score_moments(dim, base, 300, 0.0)
    assert mean.abs().max().item() == 0.0
    assert std.tolist() == pytest.approx([math.sqrt(dim)] * 301, rel=1e-12)
    mean, std = rope_random_score_moments(dim, base, 300, 1.0)
    for r in (0, 1, 17, 300):
        assert mean[r].item() == pytest.approx(2 * sum(math.cos(r * t) for t in freqs), abs=1e-9)
        variance = 4 * sum(math.cos(r * t) ** 2 for t in freqs)
        assert std[r].item() ** 2 == pytest.approx(variance, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("similarity", [0.0, 0.5, 0.8])
def test_exact_moments_match_many_samples(similarity):
    dim, base, samples = 8, 100.0, 20000
    mean, std = rope_random_score_moments(dim, base, 60, similarity)
    sampled_mean, sampled_std = rope_random_score_stats(dim, base, 60, similarity, samples=samples, seed=2)
    assert float((sampled_mean - mean).abs().max()) < 5 * float(std.max()) / math.sqrt(samples)
    assert sampled_std.tolist() == pytest.approx(std.tolist(), rel=0.05)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: rope_context_extension(64, 10000.0, 4096, 1024), "at least the training length"),
        (lambda: rope_random_score_stats(8, similarity=1.5), "between 0 and 1"),
        (lambda: rope_random_score_stats(8, samples=1), "at least 2"),
        (lambda: rope_random_score_stats(7), "even"),
        (lambda: rope_random_score_stats(8, inv_freq=torch.ones(3)), "dim/2"),
        (lambda: rope_random_score_moments(8, similarity=-0.1), "between 0 and 1"),
        (lambda: rope_random_score_moments(9), "even"),
        (lambda: distance_grid(-1), "0 or more"),
        (lambda: distance_grid(100, 2), "at least 3"),
        (lambda: full_turn_pairs(torch.ones(4), 0), "positive"),
        (lambda: rope_decay_bound_at(torch.tensor([-1, 2]), torch.ones(4)), "0 or more"),
        (lambda: rope_decay_bound_at(torch.zeros(2, 2), torch.ones(4)), "1-D"),
        (lambda: rope_ones_score_at(torch.arange(3), torch.tensor([1.0, 0.0])), "positive"),
        (lambda: rope_wavelengths(torch.ones(2, 2)), "1-D"),
        (lambda: rope_extension_decay(8, 10000.0, 16, 32, kind="sum"), "kind"),
    ],
)
def test_bad_input_raises_a_clear_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("base, length, dim", [(10000.0, 4096, 128), (500000.0, 8192, 128), (1e6, 100, 16)])
def test_far_half_ones_score_is_the_mean_all_ones_score_over_the_far_half(base, length, dim):
    """Against the definition, written per distance in plain numpy: 2 Σ_i cos(r·base^(−2i/D)), r = ⌊L/2⌋ … L."""
    thetas = base ** (-np.arange(0, dim, 2) / dim)
    by_hand = np.mean([2 * np.cos(r * thetas).sum() for r in range(length // 2, length + 1)])
    inv_freq = torch.from_numpy(thetas)
    assert far_half_ones_score(inv_freq, length) == pytest.approx(by_hand, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("length", [128, 512, 2048])
def test_the_decay_pages_ntk_aware_curve_is_the_extrapolation_pages(length):
    """One formula under one name (decay.method_dynamic "NTK-aware (dynamic NTK at L)", extrapolation "NTK-aware"):
    the decay page's extension and the toy experiment's "ntk" scaling both use base' = base·(L/L_train)^(d/(d−2))."""
    from posenc.decay import rope_context_extension
    from posenc.toy.extrapolate import rope_scaling
    from posenc.toy.lm import LMConfig

    config = LMConfig(pe="rope")  # 16 dimensions per head, base 10 000, trained on 64 tokens
    dim, trained = config.d_model // config.heads, config.max_len
    closed = 10000.0 * (length / trained) ** (dim / (dim - 2))
    expected = closed ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    decay, _ = rope_context_extension(dim, config.rope_base, trained, length)["dynamic"]
    toy, _ = rope_scaling("ntk", length / trained, config, length)
    torch.testing.assert_close(decay, expected, rtol=1e-12, atol=0)
    torch.testing.assert_close(toy.double(), expected, rtol=1e-6, atol=0)
