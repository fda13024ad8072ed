"""RoPE against the paper's complex-multiplication form (written here with numpy), and the properties taught."""

import cmath
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc


def rope_by_complex_numbers(x: np.ndarray, positions, base: float, layout: str) -> np.ndarray:
    """arXiv 2104.09864 eq. (12): each pair (a, b) is a + ib, multiplied by e^{i m θ_j}, one pair at a time."""
    dim = x.shape[1]
    half = dim // 2
    out = np.zeros_like(x, dtype=np.float64)
    for row, m in enumerate(positions):
        for j in range(half):
            theta = base ** (-2 * j / dim)
            first, second = (j, j + half) if layout == "half" else (2 * j, 2 * j + 1)
            z = complex(x[row, first], x[row, second]) * cmath.exp(1j * m * theta)
            out[row, first], out[row, second] = z.real, z.imag
    return out


@pytest.mark.parametrize("dim", [2, 8, 64])
@pytest.mark.parametrize("base", [10000.0, 500000.0, 10.0])
@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_apply_rope_matches_complex_multiplication(dim, base, layout):
    rng = np.random.default_rng(dim)
    x = rng.standard_normal((12, dim))
    positions = [0, 1, 2, 3, 7, 10, 100, 255, 1000, 4095, 8191, 3]
    expected = rope_by_complex_numbers(x, positions, base, layout)
    got64 = posenc.apply_rope(torch.from_numpy(x), torch.tensor(positions), base, layout)
    got32 = posenc.apply_rope(torch.from_numpy(x).float(), torch.tensor(positions), base, layout)
    np.testing.assert_allclose(got64.numpy(), expected, rtol=0, atol=1e-10)
    assert got32.dtype == torch.float32
    np.testing.assert_allclose(got32.double().numpy(), expected, rtol=0, atol=2e-5)


def test_apply_rope_broadcasts_over_batch_and_heads_and_keeps_dtype():
    x = torch.randn(2, 3, 5, 8, dtype=torch.bfloat16)
    out = posenc.apply_rope(x)
    assert out.shape == x.shape and out.dtype == torch.bfloat16
    # position 0 is not rotated
    torch.testing.assert_close(out[..., 0, :], x[..., 0, :])


def test_rotate_half_is_multiplication_by_i():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0])  # pairs (1, 3) and (2, 4): 1+3i, 2+4i
    assert posenc.rotate_half(x).tolist() == [-3.0, -4.0, 1.0, 2.0]  # i(1+3i) = −3+i, i(2+4i) = −4+2i


def test_inv_freq_is_geometric():
    theta = posenc.rope_inv_freq(8, 10000.0, dtype=torch.float64)
    assert theta.tolist() == pytest.approx([1.0, 10000**-0.25, 10000**-0.5, 10000**-0.75])


@settings(max_examples=60, deadline=None)
@given(
    half=st.integers(1, 32),
    m=st.integers(0, 5000),
    n=st.integers(0, 5000),
    shift=st.integers(-3000, 3000),
    base=st.sampled_from([100.0, 10000.0, 500000.0]),
    layout=st.sampled_from(["half", "interleaved"]),
    seed=st.integers(0, 2**16),
)
def test_scores_depend_only_on_relative_position(half, m, n, shift, base, layout, seed):
    """⟨R_m q, R_n k⟩ = ⟨R_{m+s} q, R_{n+s} k⟩ for every shift s."""
    gen = torch.Generator().manual_seed(seed)
    q, k = torch.randn(2, 1, 2 * half, generator=gen, dtype=torch.float64)
    shift = max(shift, -min(m, n))

    def score(a, b):
        rotated_q = posenc.apply_rope(q, torch.tensor([a]), base, layout)
        rotated_k = posenc.apply_rope(k, torch.tensor([b]), base, layout)
        return (rotated_q * rotated_k).sum()

    torch.testing.assert_close(score(m, n), score(m + shift, n + shift), rtol=1e-9, atol=1e-9)


@settings(max_examples=40, deadline=None)
@given(half=st.integers(1, 32), seq=st.integers(1, 20), layout=st.sampled_from(["half", "interleaved"]))
def test_rope_preserves_norms(half, seq, layout):
    x = torch.randn(3, seq, 2 * half, dtype=torch.float64)
    positions = torch.randint(0, 10000, (seq,))
    out = posenc.apply_rope(x, positions, layout=layout)
    torch.testing.assert_close(out.norm(dim=-1), x.norm(dim=-1), rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(half=st.integers(1, 32), seq=st.integers(1, 16))
def test_layouts_agree_under_the_permutation(half, seq):
    dim = 2 * half
    perm = posenc.rope_layout_permutation(dim)
    assert sorted(perm.tolist()) == list(range(dim))
    q, k = torch.randn(2, seq, dim, dtype=torch.float64)
    q_half, k_half = posenc.apply_rope(q, layout="half"), posenc.apply_rope(k, layout="half")
    q_int = posenc.apply_rope(q[..., perm], layout="interleaved")
    k_int = posenc.apply_rope(k[..., perm], layout="interleaved")
    torch.testing.assert_close(q_half[..., perm], q_int, rtol=0, atol=1e-12)
    torch.testing.assert_close(q_half @ k_half.T, q_int @ k_int.T, rtol=1e-10, atol=1e-10)


def test_wrong_layout_changes_the_scores():
    """Running interleaved weights with half pairing is not a relabelling: the scores change."""
    torch.manual_seed(0)
    q, k = torch.randn(2, 8, 16, dtype=torch.float64)
    right = posenc.apply_rope(q, layout="half") @ posenc.apply_rope(k, layout="half").T
    wrong = posenc.apply_rope(q, layout="interleaved") @ posenc.apply_rope(k, layout="interleaved").T
    assert (right - wrong).abs().max() > 0.1


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_complex_view_is_the_same_rotation(layout):
    x = torch.randn(4, 6, 10, dtype=torch.float64)
    z = posenc.apply_rope_complex(x, layout=layout)
    assert z.shape == (4, 6, 5) and z.is_complex()
    torch.testing.assert_close(posenc.from_complex_pairs(z, layout), posenc.apply_rope(x, layout=layout))
    torch.testing.assert_close(posenc.from_complex_pairs(posenc.to_complex_pairs(x, layout), layout), x)
    # pair j at position m has turned by exactly m·θ_j
    angles = torch.angle(z / posenc.to_complex_pairs(x, layout))
    expected = torch.angle(posenc.rope_rotation_factors(torch.arange(6), posenc.rope_inv_freq(10, dtype=torch.float64)))
    torch.testing.assert_close(angles, expected.expand_as(angles), rtol=0, atol=1e-9)


def decay_bound_by_brute_force(dim: int, base: float, r: int) -> float:
    half = dim // 2
    thetas = [base ** (-2 * i / dim) for i in range(half)]
    partial, total = 0j, 0.0
    for j in range(half):
        partial += cmath.exp(1j * r * thetas[j])  # S_{j+1} = Σ_{k ≤ j} e^{i r θ_k}
        total += abs(partial)
    return total / half


@pytest.mark.parametrize("dim, base", [(128, 10000.0), (64, 500000.0), (16, 100.0)])
def test_decay_bound_matches_brute_force(dim, base):
    bound = posenc.rope_decay_bound(dim, base, max_distance=300)
    assert bound.shape == (301,)
    for r in (0, 1, 2, 17, 100, 256, 300):
        assert bound[r].item() == pytest.approx(decay_bound_by_brute_force(dim, base, r), rel=1e-12)


def test_decay_bound_reproduces_paper_figure_2():
    bound = posenc.rope_decay_bound(128, 10000.0, 256)
    assert bound[0].item() == pytest.approx(32.5)
    assert bound[256].item() == pytest.approx(6.5, abs=0.1)
    # overall it decays: the tail stays well below the start
    assert bound[50:].max() < 0.5 * bound[0]


def test_relative_scores_equal_rotated_dot_products():
    torch.manual_seed(1)
    q, k = torch.randn(2, 32, dtype=torch.float64)
    scores = posenc.rope_relative_scores(q, k, max_distance=40)
    for r in (0, 3, 40):
        direct = posenc.apply_rope(q[None], torch.tensor([r + 5])) @ posenc.apply_rope(k[None], torch.tensor([5])).T
        assert scores[r].item() == pytest.approx(direct.item(), rel=1e-10, abs=1e-10)
    ones = torch.ones(128, dtype=torch.float64)
    assert posenc.rope_relative_scores(ones, ones, 0)[0].item() == pytest.approx(128.0)


def test_apply_rope_handles_a_long_multi_head_sequence():
    """The size the benchmark uses: [1, 8, 8192, 64] in one call, finite everywhere."""
    out = posenc.apply_rope(torch.randn(1, 8, 8192, 64))
    assert out.shape == (1, 8, 8192, 64)
    assert math.isfinite(out.abs().max().item())


# ---- The complex-plane page: functions in posenc.rope, checked against numpy loops and closed forms ----

R = posenc.rope  # the new page functions are imported from the submodule


def pair_of(x: np.ndarray, i: int, layout: str) -> complex:
    """x̃_i by the definition: (x_i, x_{i+D/2}) for half, (x_2i, x_2i+1) for interleaved."""
    half = len(x) // 2
    return complex(x[i], x[i + half]) if layout == "half" else complex(x[2 * i], x[2 * i + 1])


def rotated_dot(q: np.ndarray, k: np.ndarray, m: float, n: float, base: float, layout: str) -> float:
    """⟨R_m q, R_n k⟩ from the numpy complex-multiplication reference, one pair at a time."""
    rq = rope_by_complex_numbers(q[None], [m], base, layout)[0]
    rk = rope_by_complex_numbers(k[None], [n], base, layout)[0]
    return float(sum(a * b for a, b in zip(rq, rk, strict=True)))


@pytest.mark.parametrize("dim, pair", [(2, 0), (8, 3), (64, 10)])
@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_pair_points_are_the_rotated_complex_number(dim, pair, layout):
    x = np.random.default_rng(dim + pair).standard_normal(dim)
    positions = [0, 1, 5, 100, 4095, 123456]
    got = R.rope_pair_points(torch.from_numpy(x), torch.tensor(positions), pair, 10000.0, layout)
    theta = 10000.0 ** (-2 * pair / dim)
    expected = [pair_of(x, pair, layout) * cmath.exp(1j * p * theta) for p in positions]
    assert got.dtype == torch.complex128 and got.shape == (len(positions),)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-12)
    # and it is the same point apply_rope puts into features (i, i + D/2) or (2i, 2i + 1)
    reference = rope_by_complex_numbers(np.tile(x, (len(positions), 1)), positions, 10000.0, layout)
    expected_pairs = [pair_of(row, pair, layout) for row in reference]
    np.testing.assert_allclose(got.numpy(), expected_pairs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
@pytest.mark.parametrize("base", [100.0, 10000.0])
def test_scores_at_match_rotated_dot_products(layout, base):
    q, k = (np.random.default_rng(seed).standard_normal(12) for seed in (1, 2))
    m, n = [0, 3, 7, 500, 2000], [0, 9, 7, 1, 2500]
    got = R.rope_scores_at(torch.from_numpy(q), torch.from_numpy(k), torch.tensor(m), torch.tensor(n), base, layout)
    expected = [rotated_dot(q, k, a, b, base, layout) for a, b in zip(m, n, strict=True)]
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10, atol=1e-10)


@settings(max_examples=40, deadline=None)
@given(
    half=st.integers(1, 16),
    m=st.integers(0, 3000),
    n=st.integers(0, 3000),
    shift=st.integers(0, 3000),
    seed=st.integers(0, 99),
    layout=st.sampled_from(["half", "interleaved"]),
)
def test_score_and_pair_angle_depend_only_on_the_distance(half, m, n, shift, seed, layout):
    q, k = torch.from_numpy(np.random.default_rng(seed).standard_normal((2, 2 * half)))
    q_pos, k_pos = torch.tensor([m, m + shift]), torch.tensor([n, n + shift])
    scores = R.rope_scores_at(q, k, q_pos, k_pos, layout=layout)
    assert scores[0].item() == pytest.approx(scores[1].item(), rel=1e-9, abs=1e-9)
    pair = half - 1
    angles = R.rope_pair_angles_at(q, k, q_pos, k_pos, pair, layout=layout)
    assert cmath.exp(1j * angles[0].item()) == pytest.approx(cmath.exp(1j * angles[1].item()), abs=1e-9)


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_pair_angles_follow_the_closed_form_and_rebuild_the_score(layout):
    dim, base, m, n = 10, 10000.0, 37, 5
    q, k = torch.from_numpy(np.random.default_rng(7).standard_normal((2, dim)))
    qn, kn = q.numpy(), k.numpy()
    angles = [R.rope_pair_angles_at(q, k, torch.tensor([m]), torch.tensor([n]), i, base, layout)[0].item()
              for i in range(dim // 2)]  # fmt: skip
    total = 0.0
    for i, angle in enumerate(angles):
        qi, ki = pair_of(qn, i, layout), pair_of(kn, i, layout)
        raw = cmath.phase(qi) - cmath.phase(ki) + (m - n) * base ** (-2 * i / dim)  # arg q̃ − arg k̃ + (m − n)θ
        wrapped = math.atan2(math.sin(raw), math.cos(raw))
        assert -math.pi < angle <= math.pi
        assert angle == pytest.approx(wrapped, abs=1e-9)
        total += abs(qi) * abs(ki) * math.cos(angle)  # pair i's share of the score
    assert total == pytest.approx(rotated_dot(qn, kn, m, n, base, layout), rel=1e-9)


@pytest.mark.parametrize("dim, offset", [(8, 0), (64, 3), (128, 16), (16, 5)])
@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_offset_detector_peaks_at_its_offset(dim, offset, layout):
    base = 10000.0
    q, k = R.rope_offset_detector(dim, offset, base, layout)
    scores = R.rope_scores_at(q, k, torch.arange(40), torch.zeros(40, dtype=torch.long), base, layout)
    thetas = [base ** (-2 * i / dim) for i in range(dim // 2)]
    expected = [sum(math.cos((r - offset) * t) for t in thetas) for r in range(40)]  # Σ cos((r − r₀)θ_i)
    np.testing.assert_allclose(scores.numpy(), expected, rtol=1e-10, atol=1e-10)
    assert int(scores.argmax()) == offset and scores[offset].item() == pytest.approx(dim / 2)


@pytest.mark.parametrize("dim", [2, 4, 10, 64])
@pytest.mark.parametrize("source, target", [("half", "interleaved"), ("interleaved", "half"), ("half", "half")])
def test_convert_layout_commutes_with_rope(dim, source, target):
    x = torch.randn(5, dim, dtype=torch.float64)
    converted = R.rope_convert_layout(x, source, target)
    assert sorted(converted[0].tolist()) == sorted(x[0].tolist())  # only a reordering
    torch.testing.assert_close(
        posenc.apply_rope(converted, layout=target),
        R.rope_convert_layout(posenc.apply_rope(x, layout=source), source, target),
    )
    back = R.rope_convert_layout(converted, target, source)
    torch.testing.assert_close(back, x, rtol=0, atol=0)


def test_convert_layout_moves_pair_members_next_to_each_other():
    x = torch.arange(8.0)  # half pairs: (0, 4), (1, 5), (2, 6), (3, 7)
    assert R.rope_convert_layout(x, "half", "interleaved").tolist() == [0, 4, 1, 5, 2, 6, 3, 7]
    assert R.rope_convert_layout(torch.tensor([0.0, 4, 1, 5, 2, 6, 3, 7]), "interleaved", "half").tolist() == list(
        range(8)
    )


@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_score_table_is_toeplitz_and_matches_the_loop(layout):
    q, k = (np.random.default_rng(seed).standard_normal(8) for seed in (5, 6))
    table = R.rope_score_table(torch.from_numpy(q), torch.from_numpy(k), 9, 100.0, layout)
    assert table.shape == (9, 9)
    for m, n in [(0, 0), (3, 7), (8, 2)]:
        assert table[m, n].item() == pytest.approx(rotated_dot(q, k, m, n, 100.0, layout), rel=1e-10, abs=1e-10)
    for d in range(-8, 9):  # constant along every diagonal m − n = −d
        diagonal = torch.diagonal(table, offset=d)
        torch.testing.assert_close(diagonal, diagonal[:1].expand_as(diagonal), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("dim", [2, 6, 16])
@pytest.mark.parametrize("layout", ["half", "interleaved"])
def test_feature_pairs_agree_with_the_complex_view(dim, layout):
    pairs = R.rope_feature_pairs(dim, layout)
    for feature in range(dim):  # a one-hot feature lands in exactly the pair the table names
        one_hot = torch.zeros(dim, dtype=torch.float64)
        one_hot[feature] = 1.0
        assert posenc.to_complex_pairs(one_hot, layout).abs().argmax().item() == pairs[feature].item()
    assert sorted(pairs.tolist()) == sorted(list(range(dim // 2)) * 2)


@pytest.mark.parametrize(
    "call",
    [
        lambda: R.rope_pair_points(torch.ones(8), torch.arange(3), 4),
        lambda: R.rope_pair_points(torch.ones(8), torch.arange(3), -1),
        lambda: R.rope_pair_points(torch.ones(2, 8), torch.arange(3), 0),
        lambda: R.rope_scores_at(torch.ones(8), torch.ones(6), torch.arange(3), torch.arange(3)),
        lambda: R.rope_scores_at(torch.ones(8), torch.ones(8), torch.arange(3), torch.arange(4)),
        lambda: R.rope_offset_detector(8, -2),
        lambda: R.rope_convert_layout(torch.ones(8), "half", "diagonal"),
        lambda: R.rope_feature_pairs(5),
    ],
)
def test_page_functions_reject_bad_input_with_a_sentence(call):
    with pytest.raises(ValueError, match=r"\w+ \w+"):
        call()
