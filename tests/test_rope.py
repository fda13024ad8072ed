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
