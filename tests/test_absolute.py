"""Absolute encodings against the paper's formula written as a plain double loop, and the properties taught."""

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import posenc


def sinusoid_by_loop(length: int, dim: int, base: float) -> np.ndarray:
    """arXiv 1706.03762 §3.5, one entry at a time, in float64."""
    table = np.zeros((length, dim))
    for pos in range(length):
        for i in range(dim // 2):
            angle = pos / base ** (2 * i / dim)
            table[pos, 2 * i] = math.sin(angle)
            table[pos, 2 * i + 1] = math.cos(angle)
    return table


@pytest.mark.parametrize("length, dim", [(1, 2), (7, 4), (50, 16), (129, 64), (300, 10)])
@pytest.mark.parametrize("base", [10000.0, 100.0, 500000.0])
def test_sinusoidal_matches_double_loop(length, dim, base):
    expected = sinusoid_by_loop(length, dim, base)
    got64 = posenc.sinusoidal(length, dim, base, dtype=torch.float64)
    got32 = posenc.sinusoidal(length, dim, base)
    assert got32.dtype == torch.float32 and got32.shape == (length, dim)
    np.testing.assert_allclose(got64.numpy(), expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(got32.numpy(), expected, rtol=0, atol=4e-7)


def test_sinusoidal_long_positions_stay_exact_in_float32():
    """Far positions keep float32 accuracy (a naive float32 angle would be off by ~5e-4 here)."""
    length, dim = 6000, 8
    got = posenc.sinusoidal(length, dim)[-1].double().numpy()
    np.testing.assert_allclose(got, sinusoid_by_loop(length, dim, 10000.0)[-1], atol=4e-7)


@pytest.mark.parametrize("length, dim", [(9, 6), (40, 32)])
def test_concat_layout_is_sines_then_cosines(length, dim):
    inter = posenc.sinusoidal(length, dim, layout="interleaved", dtype=torch.float64)
    concat = posenc.sinusoidal(length, dim, layout="concat", dtype=torch.float64)
    torch.testing.assert_close(concat[:, : dim // 2], inter[:, 0::2], rtol=0, atol=1e-12)
    torch.testing.assert_close(concat[:, dim // 2 :], inter[:, 1::2], rtol=0, atol=1e-12)


def test_wavelengths_run_from_two_pi_to_base_times_two_pi_geometrically():
    wavelengths = posenc.sinusoid_wavelengths(512, 10000.0)
    assert wavelengths[0].item() == pytest.approx(2 * math.pi)
    assert wavelengths[-1].item() == pytest.approx(2 * math.pi * 10000 ** (510 / 512))
    ratios = wavelengths[1:] / wavelengths[:-1]
    torch.testing.assert_close(ratios, torch.full_like(ratios, 10000 ** (2 / 512)))


@settings(max_examples=40, deadline=None)
@given(
    half=st.integers(1, 24),
    offset=st.integers(-50, 50),
    base=st.sampled_from([10.0, 10000.0]),
    layout=st.sampled_from(["interleaved", "concat"]),
)
def test_shift_is_one_fixed_rotation_for_every_position(half, offset, base, layout):
    dim = 2 * half
    table = posenc.sinusoidal(200, dim, base, layout=layout, dtype=torch.float64)
    matrix = posenc.sinusoidal_shift_matrix(offset, dim, base, layout=layout)
    start = max(0, -offset)
    positions = torch.arange(start, start + 100)
    # PE(p + k) = M_k PE(p) for all p, with the same M_k
    torch.testing.assert_close(table[positions] @ matrix.T, table[positions + offset], rtol=0, atol=1e-9)
    # M_k is a rotation: orthogonal with determinant 1
    torch.testing.assert_close(matrix @ matrix.T, torch.eye(dim, dtype=torch.float64), rtol=0, atol=1e-12)
    assert torch.linalg.det(matrix).item() == pytest.approx(1.0)


def test_dot_product_of_encodings_depends_only_on_offset():
    table = posenc.sinusoidal(300, 64, dtype=torch.float64)
    gram = table @ table.T
    for offset in (0, 1, 5, 40):
        diagonal = torch.diagonal(gram, offset)
        torch.testing.assert_close(diagonal, torch.full_like(diagonal, diagonal[0].item()), rtol=0, atol=1e-9)
    assert gram[0, 0] == pytest.approx(32.0)  # D/2 pairs of sin² + cos² = 1


def test_naive_encodings():
    integers = posenc.integer_positions(6, 3)
    assert integers.shape == (6, 3)
    assert integers[:, 1].tolist() == [0, 1, 2, 3, 4, 5]
    normalized = posenc.normalized_positions(5, 2)
    assert normalized[:, 0].tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    # the same value 0.5 names a different token in a longer sentence
    assert posenc.normalized_positions(101)[50, 0].item() == 0.5
    assert posenc.normalized_positions(1).tolist() == [[0.0]]


def test_learned_embedding_looks_up_rows_and_refuses_unseen_positions():
    torch.manual_seed(0)
    table = posenc.LearnedPositionalEmbedding(max_len=16, dim=8)
    out = table(5)
    assert out.shape == (5, 8)
    torch.testing.assert_close(out, table.table.weight[:5])
    torch.testing.assert_close(table(torch.tensor([15, 3])), table.table.weight[[15, 3]])
    with pytest.raises(ValueError, match="no vector for position 16"):
        table(17)
    with pytest.raises(ValueError, match="no vector for position -1"):
        table(torch.tensor([0, -1]))


# --- the similarity, shift-residual, pair-column, cosine and learned-table helpers of the sinusoidal page ---

from posenc.absolute import (  # noqa: E402
    embedding_pe_cosines,
    seeded_learned_embedding,
    sinusoid_dot_by_offset,
    sinusoid_offset_similarity,
    sinusoid_pair_columns,
    sinusoidal_shift_residual,
    sinusoidal_similarity,
    sinusoidal_similarity_row,
)


@pytest.mark.parametrize("dim", [2, 6, 32])
@pytest.mark.parametrize("layout", ["interleaved", "concat"])
def test_pair_columns_point_at_the_sine_and_cosine_of_each_pair(dim, layout):
    expected = sinusoid_by_loop(20, dim, 10000.0)  # interleaved: sin at 2i, cos at 2i + 1
    table = posenc.sinusoidal(20, dim, layout=layout, dtype=torch.float64).numpy()
    columns = sinusoid_pair_columns(dim, layout).numpy()
    assert columns.shape == (dim // 2, 2)
    assert sorted(columns.flatten().tolist()) == list(range(dim))
    np.testing.assert_allclose(table[:, columns[:, 0]], expected[:, 0::2], atol=1e-12)
    np.testing.assert_allclose(table[:, columns[:, 1]], expected[:, 1::2], atol=1e-12)


def block_mean_gram_by_loop(length: int, dim: int, base: float, block: int) -> np.ndarray:
    """Mean of PE(p)·PE(q) over each block × block square, summing every dot product one by one."""
    table = sinusoid_by_loop(length, dim, base)
    count = math.ceil(length / block)
    out = np.zeros((count, count))
    for a in range(count):
        for b in range(count):
            rows, cols = range(a * block, min((a + 1) * block, length)), range(b * block, min((b + 1) * block, length))
            out[a, b] = np.mean([table[p] @ table[q] for p in rows for q in cols])
    return out


@pytest.mark.parametrize("length, dim, block", [(1, 2, 1), (12, 8, 1), (13, 8, 3), (40, 16, 7), (30, 4, 30)])
@pytest.mark.parametrize("base", [100.0, 10000.0])
def test_similarity_is_the_block_mean_of_every_dot_product(length, dim, block, base):
    got = sinusoidal_similarity(length, dim, base, block=block)
    assert got.dtype == torch.float32 and got.shape == (math.ceil(length / block),) * 2
    np.testing.assert_allclose(got.numpy(), block_mean_gram_by_loop(length, dim, base, block), rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("position, length", [(0, 10), (7, 30), (29, 30), (45, 20)])
@pytest.mark.parametrize("dim, base", [(8, 10000.0), (64, 100.0)])
def test_similarity_row_by_dot_products_equals_the_offset_formula(position, length, dim, base):
    table = sinusoid_by_loop(max(length, position + 1), dim, base)
    by_dots = sinusoidal_similarity_row(position, length, dim, base)
    by_offset = sinusoid_offset_similarity(position, length, dim, base)
    assert by_dots.shape == by_offset.shape == (length,)
    np.testing.assert_allclose(by_dots.numpy(), table[:length] @ table[position], atol=1e-10)
    np.testing.assert_allclose(by_offset.numpy(), table[:length] @ table[position], atol=1e-10)
    assert by_dots[min(position, length - 1)].item() <= dim / 2 + 1e-9  # at most |PE|² = D/2


@pytest.mark.parametrize("dim, base", [(2, 10.0), (16, 10000.0), (64, 500000.0)])
def test_dot_by_offset_is_the_dot_product_at_every_position(dim, base):
    """s(k) = PE(p)·PE(p + k), whatever p: checked by dot products of the table at several p."""
    offsets = [0, 1, 5, 37, 120]
    table = sinusoid_by_loop(200, dim, base)
    got = sinusoid_dot_by_offset(offsets, dim, base)
    assert got.dtype == torch.float64 and got.shape == (len(offsets),)
    for p in (0, 3, 79):
        np.testing.assert_allclose(got.numpy(), [table[p] @ table[p + k] for k in offsets], atol=1e-10)
    assert got[0].item() == pytest.approx(dim / 2)  # |PE(p)|² = D/2


def test_similarity_row_depends_only_on_the_offset():
    rows = [sinusoid_offset_similarity(p, 200, 32).numpy() for p in (50, 51)]
    np.testing.assert_allclose(rows[0][:-1], rows[1][1:], atol=1e-12)  # shift p by one: the row shifts by one
    assert sinusoid_offset_similarity(50, 200, 32)[50].item() == pytest.approx(16.0)


@pytest.mark.parametrize("offset", [0, 1, 7, 100])
@pytest.mark.parametrize("layout", ["interleaved", "concat"])
@pytest.mark.parametrize("dim, base", [(2, 10000.0), (64, 10000.0), (128, 500000.0)])
def test_one_shift_matrix_serves_every_position(offset, layout, dim, base):
    exact = sinusoidal_shift_residual(offset, 300, dim, base, layout, dtype=torch.float64)
    rounded = sinusoidal_shift_residual(offset, 300, dim, base, layout)
    assert exact.shape == rounded.shape == (300,)
    assert exact.max().item() < 1e-12
    assert rounded.max().item() < 1e-6  # float32 rounding only
    if offset == 0:
        assert rounded.max().item() == 0.0  # M_0 is the identity


@pytest.mark.parametrize("dims", [(2,), (4, 64), (8, 256, 1024)])
def test_cosines_are_deterministic_bounded_and_shrink_like_one_over_sqrt_dim(dims):
    cosines = embedding_pe_cosines(dims, samples=3000, max_position=512, seed=3)
    assert cosines.shape == (len(dims), 3000)
    torch.testing.assert_close(cosines, embedding_pe_cosines(dims, samples=3000, max_position=512, seed=3))
    assert not torch.equal(cosines, embedding_pe_cosines(dims, samples=3000, max_position=512, seed=4))
    # each dim's words are the first D features of one draw: a row is the same whatever other dims are asked for
    torch.testing.assert_close(cosines[-1], embedding_pe_cosines(dims[-1:], 3000, 512, seed=3)[0], rtol=0, atol=0)
    assert cosines.abs().max().item() <= 1.0 + 1e-12
    for row, dim in zip(cosines, dims, strict=True):
        # for a Gaussian w the cosine with any fixed unit vector has mean 0 and variance exactly 1/D
        assert row.mean().item() == pytest.approx(0.0, abs=4 / math.sqrt(3000 * dim))
        assert row.std().item() == pytest.approx(1 / math.sqrt(dim), rel=0.08)


def test_seeded_learned_embedding_is_reproducible_and_still_refuses_unseen_positions():
    first, second = seeded_learned_embedding(64, 16, seed=1), seeded_learned_embedding(64, 16, seed=1)
    torch.testing.assert_close(first.table.weight, second.table.weight)
    assert not torch.equal(first.table.weight, seeded_learned_embedding(64, 16, seed=2).table.weight)
    assert first.table.weight.std().item() == pytest.approx(0.02, rel=0.1)
    with pytest.raises(ValueError, match="no vector for position 64"):
        first(torch.tensor([64]))


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: sinusoid_pair_columns(5), "dim must be even"),
        (lambda: sinusoid_pair_columns(4, "half"), "layout must be one of"),
        (lambda: sinusoidal_similarity(10, 8, block=0), "block must be a positive whole number"),
        (lambda: sinusoidal_similarity_row(-1, 10, 8), "position must be 0 or more"),
        (lambda: sinusoid_offset_similarity(0, 0, 8), "length must be a positive whole number"),
        (lambda: sinusoidal_shift_residual(-2, 10, 8), "offset must be 0 or more"),
        (lambda: embedding_pe_cosines((7,)), "dim must be even"),
        (lambda: embedding_pe_cosines((8,), samples=0), "samples must be a positive whole number"),
        (lambda: seeded_learned_embedding(8, 4, seed=-1), "seed must be 0 or more"),
    ],
)
def test_new_helpers_reject_bad_input_with_a_sentence(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_the_sinusoids_dot_product_is_blind_to_direction_and_a_projection_breaks_offset_only():
    """sinusoidal.similarity_notice: PE(p)·PE(q) = Σ_i cos((q − p)·ω_i) is even in the offset, so p + k and p − k
    look alike; with W_qᵀW_k between them (random, as in the XL section's term (d)) the score of one offset changes
    along the diagonal. The closed form in float64 against the table."""
    length, dim = 64, 32
    pe = posenc.sinusoidal(length, dim, dtype=torch.float64)  # [L, D]
    omega = 10000.0 ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    offsets = torch.arange(-(length - 1), length, dtype=torch.float64)
    closed = torch.cos(offsets[:, None] * omega).sum(-1)  # [2L − 1]
    gram = pe @ pe.T
    p, q = torch.meshgrid(torch.arange(length), torch.arange(length), indexing="ij")
    torch.testing.assert_close(gram, closed[q - p + length - 1], rtol=0, atol=1e-10)
    torch.testing.assert_close(closed, closed.flip(0), rtol=0, atol=1e-10)  # even: offset k and −k score alike
    generator = torch.Generator().manual_seed(0)
    w_q, w_k = torch.randn(2, dim, dim, generator=generator, dtype=torch.float64) / math.sqrt(dim)
    projected = (pe @ w_q) @ (pe @ w_k).T  # U_pᵀ W_qᵀ W_k U_q
    along_offset_3 = torch.diagonal(projected, offset=3)
    assert (along_offset_3.max() - along_offset_3.min()) > 0.5
