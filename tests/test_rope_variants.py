"""RoPE as real models use it (posenc.rope_variants), against independent formulas written here: Meta's complex Llama
rotation, Hugging Face's rotate_half and weight permutation, a per-pair loop with 2×2 rotations, and properties."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from posenc.rope_variants import (
    apply_partial_rope,
    hf_llama_permute,
    partial_rope_score_parts,
    rope_attention_output,
    rope_reflect_pairs,
    rope_signed_scores,
)

# ---- Meta's Llama (complex, interleaved) and Hugging Face's port (rotate_half, permuted weights) ----


def meta_precompute_freqs_cis(dim: int, end: int, theta: float = 10000.0) -> torch.Tensor:
    """meta-llama/llama model.py ``precompute_freqs_cis``, in float64. Returns [end, dim/2] complex."""
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].double() / dim))
    t = torch.arange(end, dtype=torch.float64)
    freqs = torch.outer(t, freqs)
    return torch.polar(torch.ones_like(freqs), freqs)


def meta_apply_rotary_emb(x: torch.Tensor, freqs_cis: torch.Tensor) -> torch.Tensor:
    """meta-llama ``apply_rotary_emb`` for one tensor [L, H, D]: consecutive features (2i, 2i+1) are one complex."""
    x_ = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2).contiguous())  # [L, H, D/2]
    return torch.view_as_real(x_ * freqs_cis[:, None, :]).flatten(-2)  # [L, H, D]


def hf_permute(w: torch.Tensor, n_heads: int) -> torch.Tensor:
    """convert_llama_weights_to_hf.py ``permute(w, n_heads, dim1, dim2)``."""
    dim1, dim2 = w.shape
    return w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2)


def hf_rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2 :]
    return torch.cat((-x2, x1), dim=-1)


def hf_apply_rotary_pos_emb(x: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """modeling_llama.py: emb = cat(freqs, freqs); x·cos + rotate_half(x)·sin, for x [L, H, D]."""
    dim = x.shape[-1]
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim))
    freqs = torch.outer(torch.arange(x.shape[0], dtype=torch.float64), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)[:, None, :]  # [L, 1, D]
    return x * emb.cos() + hf_rotate_half(x) * emb.sin()


@pytest.mark.parametrize(("heads", "head_dim", "width"), [(1, 8, 8), (2, 16, 12), (4, 4, 6)])
def test_hf_permutation_makes_half_rope_equal_meta_interleaved_rope(heads, head_dim, width):
    g = torch.Generator().manual_seed(heads * head_dim)
    w_q, w_k = (torch.randn(heads * head_dim, width, generator=g, dtype=torch.float64) for _ in range(2))
    x = torch.randn(10, width, generator=g, dtype=torch.float64)
    torch.testing.assert_close(hf_llama_permute(w_q, heads), hf_permute(w_q, heads), rtol=0, atol=0)

    freqs = meta_precompute_freqs_cis(head_dim, 10)
    q_meta = meta_apply_rotary_emb((x @ w_q.T).view(10, heads, head_dim), freqs)  # [L, H, D]
    k_meta = meta_apply_rotary_emb((x @ w_k.T).view(10, heads, head_dim), freqs)
    q_hf = hf_apply_rotary_pos_emb((x @ hf_llama_permute(w_q, heads).T).view(10, heads, head_dim))
    k_hf = hf_apply_rotary_pos_emb((x @ hf_llama_permute(w_k, heads).T).view(10, heads, head_dim))
    scores_meta = torch.einsum("mhd,nhd->hmn", q_meta, k_meta)
    scores_hf = torch.einsum("mhd,nhd->hmn", q_hf, k_hf)
    torch.testing.assert_close(scores_hf, scores_meta, rtol=0, atol=1e-10)
    # the features themselves are the same numbers, reordered within each head: HF feature c·P + i = Meta 2i + c
    order = torch.arange(head_dim).view(head_dim // 2, 2).T.reshape(-1)  # [0, 2, 4, …, 1, 3, 5, …]
    torch.testing.assert_close(q_hf, q_meta[..., order], rtol=0, atol=1e-10)
    # without the permutation the half layout does not give Meta's scores
    q_wrong = hf_apply_rotary_pos_emb((x @ w_q.T).view(10, heads, head_dim))
    k_wrong = hf_apply_rotary_pos_emb((x @ w_k.T).view(10, heads, head_dim))
    if head_dim > 2:
        assert not torch.allclose(torch.einsum("mhd,nhd->hmn", q_wrong, k_wrong), scores_meta)


def test_hf_permute_rejects_an_odd_head_dimension():
    with pytest.raises(ValueError, match="head_dim"):
        hf_llama_permute(torch.zeros(6, 4), 2)


# ---- partial rotary ----


def rotate_pairs_by_loop(x: np.ndarray, position: float, base: float) -> np.ndarray:
    """Half layout, one pair at a time with its 2×2 rotation matrix; θ_i = base^(−2i/len(x))."""
    half = len(x) // 2
    out = x.astype(np.float64).copy()
    for i in range(half):
        angle = position * base ** (-2 * i / len(x))
        c, s = math.cos(angle), math.sin(angle)
        out[i], out[i + half] = c * x[i] - s * x[i + half], s * x[i] + c * x[i + half]
    return out


@pytest.mark.parametrize(("dim", "rotary_dim"), [(96, 24), (256, 64), (80, 32), (8, 8), (8, 2)])
def test_partial_rope_rotates_the_first_features_with_their_own_frequencies(dim, rotary_dim):
    x = np.random.default_rng(dim).standard_normal((5, dim))
    positions = [0, 1, 7, 100, 2047]
    got = apply_partial_rope(torch.from_numpy(x), rotary_dim, torch.tensor(positions)).numpy()
    for row, m in enumerate(positions):
        want = np.concatenate([rotate_pairs_by_loop(x[row, :rotary_dim], m, 10000.0), x[row, rotary_dim:]])
        np.testing.assert_allclose(got[row], want, rtol=0, atol=1e-10)


def test_partial_rope_score_splits_into_a_relative_part_and_a_constant_part():
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 64, generator=g, dtype=torch.float64)
    distances = torch.arange(0, 300, 7)
    rotated, passed = partial_rope_score_parts(q, k, 16, distances)
    torch.testing.assert_close(passed, torch.full_like(passed, float(q[16:] @ k[16:])), rtol=0, atol=1e-12)
    # the rotated part is the 16-feature RoPE score: the same at (m + 5, n + 5)
    for r, value in zip(distances.tolist(), rotated.tolist(), strict=True):
        q5 = apply_partial_rope(q[None], 16, torch.tensor([r + 5]))[0]
        k5 = apply_partial_rope(k[None], 16, torch.tensor([5]))[0]
        assert math.isclose(float(q5[:16] @ k5[:16]), value, abs_tol=1e-10)
    assert rotated.std() > 0.1


def test_partial_rope_refuses_more_rotated_features_than_the_head_has():
    with pytest.raises(ValueError, match="rotary_dim"):
        apply_partial_rope(torch.zeros(3, 8), 10)


# ---- values are never rotated ----


def test_values_are_not_rotated_but_the_output_still_depends_on_order():
    g = torch.Generator().manual_seed(1)
    a, b, x = torch.randn(3, 8, generator=g, dtype=torch.float64)
    v_a, v_b, v_x = torch.randn(3, 4, generator=g, dtype=torch.float64)
    positions = torch.arange(3)
    first = torch.stack((a, b, x)), torch.stack((v_a, v_b, v_x))
    second = torch.stack((b, a, x)), torch.stack((v_b, v_a, v_x))
    w1, o1 = rope_attention_output(first[0], first[0], first[1], positions)
    _, o2 = rope_attention_output(second[0], second[0], second[1], positions)
    torch.testing.assert_close(o1, w1 @ first[1], rtol=0, atol=0)  # the output mixes the raw values
    assert (o1[2] - o2[2]).abs().max() > 1e-3  # the last token's output changed with the order
    # with every token at one position nothing rotates differently: the order no longer matters
    same = torch.zeros(3, dtype=torch.long)
    _, o1 = rope_attention_output(first[0], first[0], first[1], same)
    _, o2 = rope_attention_output(second[0], second[0], second[1], same)
    torch.testing.assert_close(o1[2], o2[2], rtol=0, atol=1e-12)
    # shifting every position keeps every output (the scores are relative)
    _, shifted = rope_attention_output(first[0], first[0], first[1], positions + 1000)
    _, plain = rope_attention_output(first[0], first[0], first[1], positions)
    torch.testing.assert_close(shifted, plain, rtol=0, atol=1e-9)


# ---- the sign convention ----


def signed_score_by_loop(q, k, m, n, q_sign, k_sign, base, layout):
    """Σ over pairs of (R(σ_q m θ_i) q_pair)·(R(σ_k n θ_i) k_pair), with explicit 2×2 rotation matrices."""
    dim, half = len(q), len(q) // 2
    total = 0.0
    for i in range(half):
        first, second = (i, i + half) if layout == "half" else (2 * i, 2 * i + 1)
        theta = base ** (-2 * i / dim)

        def rotation(angle):
            return np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])

        qp = rotation(q_sign * m * theta) @ np.array([q[first], q[second]])
        kp = rotation(k_sign * n * theta) @ np.array([k[first], k[second]])
        total += float(qp @ kp)
    return total


vectors = st.integers(0, 2**16).map(lambda seed: torch.randn(2, 8, generator=torch.Generator().manual_seed(seed),
                                                             dtype=torch.float64))  # fmt: skip
positions = st.integers(0, 3000)
signs = st.sampled_from([1, -1])
layouts = st.sampled_from(["half", "interleaved"])


@settings(max_examples=40, deadline=None)
@given(qk=vectors, m=positions, n=positions, q_sign=signs, k_sign=signs, layout=layouts)
def test_signed_scores_match_a_per_pair_loop(qk, m, n, q_sign, k_sign, layout):
    q, k = qk
    got = rope_signed_scores(q, k, torch.tensor([m]), torch.tensor([n]), q_sign, k_sign, 100.0, layout)
    want = signed_score_by_loop(q.numpy(), k.numpy(), m, n, q_sign, k_sign, 100.0, layout)
    assert math.isclose(got.item(), want, rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=40, deadline=None)
@given(qk=vectors, m=positions, n=positions, shift=positions, layout=layouts)
def test_the_minus_convention_is_the_plus_convention_of_reflected_vectors(qk, m, n, shift, layout):
    q, k = qk
    one = lambda p: torch.tensor([p])  # noqa: E731
    minus = rope_signed_scores(q, k, one(m), one(n), -1, -1, layout=layout)
    # = the + score at distance −(m − n): positions swapped
    assert math.isclose(minus.item(), rope_signed_scores(q, k, one(n), one(m), layout=layout).item(), abs_tol=1e-9)
    # = the + score of the reflected q and k (a fixed map W_q, W_k can absorb)
    reflected = rope_signed_scores(rope_reflect_pairs(q, layout), rope_reflect_pairs(k, layout), one(m), one(n),
                                   layout=layout)  # fmt: skip
    assert math.isclose(minus.item(), reflected.item(), abs_tol=1e-9)
    # still relative: the same after shifting both positions
    moved = rope_signed_scores(q, k, one(m + shift), one(n + shift), -1, -1, layout=layout)
    assert math.isclose(minus.item(), moved.item(), abs_tol=1e-8)


@settings(max_examples=40, deadline=None)
@given(qk=vectors, m=positions, n=positions, layout=layouts)
def test_mixed_signs_depend_on_the_sum_of_positions(qk, m, n, layout):
    q, k = qk
    one = lambda p: torch.tensor([p])  # noqa: E731
    mixed = rope_signed_scores(q, k, one(m), one(n), 1, -1, layout=layout)
    # = the + score at distance m + n
    at_sum = rope_signed_scores(q, k, one(m + n), one(0), layout=layout)
    assert math.isclose(mixed.item(), at_sum.item(), abs_tol=1e-8)


def test_mixed_signs_are_not_relative():
    q, k = torch.randn(2, 16, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    shifts = torch.arange(0, 200, 10)
    mixed = rope_signed_scores(q, k, 30 + shifts, 10 + shifts, 1, -1)
    same = rope_signed_scores(q, k, 30 + shifts, 10 + shifts, -1, -1)
    assert mixed.std() > 0.1
    torch.testing.assert_close(same, same[:1].expand_as(same), rtol=0, atol=1e-9)


@pytest.mark.parametrize("bad", [0, 2, True, 0.5])
def test_signs_must_be_plus_or_minus_one(bad):
    with pytest.raises(ValueError, match="q_sign"):
        rope_signed_scores(torch.ones(4), torch.ones(4), torch.tensor([1]), torch.tensor([0]), bad, 1)
