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
