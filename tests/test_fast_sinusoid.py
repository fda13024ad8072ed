"""The sinusoidal page's faster forms in posenc.fast against the textbook functions of posenc.absolute and
posenc.embedding_scale: the same values (to rounding), the same seeded draws, and the very same float32 numbers
where the page draws rounding itself (the shift residual) or the table's own columns and rows."""

import numpy as np
import pytest
import torch

from posenc import fast
from posenc.absolute import (
    embedding_pe_cosines,
    sinusoid_offset_similarity,
    sinusoidal,
    sinusoidal_shift_residual,
    sinusoidal_similarity_row,
)
from posenc.embedding_scale import word_position_mix

SIZES = [(1, 2), (2, 8), (5, 2), (35, 16), (37, 64), (1000, 128), (4096, 1024)]
BASES = [10.0, 10000.0, 1e6]


@pytest.mark.parametrize("length, dim", SIZES)
@pytest.mark.parametrize("layout", ["interleaved", "concat"])
def test_columns_and_a_row_are_those_of_the_whole_table(length, dim, layout):
    """The waves and the learned section's sine row: the table's float32 numbers exactly, and posenc's to ~1e-7."""
    table = fast.sinusoidal_by_blocks(length, dim, 10000.0, layout)
    textbook = sinusoidal(length, dim, 10000.0, layout)
    columns = sorted({0, 1, dim // 4, dim // 2, dim - 1})
    got = fast.sinusoidal_columns(length, dim, columns, 10000.0, layout)
    assert got.dtype == torch.float32 and got.shape == (length, len(columns))
    assert torch.equal(got, table[:, columns])
    torch.testing.assert_close(got, textbook[:, columns], rtol=0, atol=2e-6)
    assert torch.equal(fast.sinusoidal_columns(length, dim, [3 % dim, 0], 10000.0, layout), table[:, [3 % dim, 0]])
    for position in {0, length // 2, length - 1}:
        row = fast.sinusoidal_row_by_blocks(position, dim, 10000.0, layout)
        assert torch.equal(row, fast.sinusoidal_by_blocks(position + 1, dim, 10000.0, layout)[-1])
        torch.testing.assert_close(row, textbook[position], rtol=0, atol=2e-6)


@pytest.mark.parametrize("offset, length, dim", [(0, 10, 2), (4, 100, 64), (37, 300, 64), (256, 2000, 256)])
@pytest.mark.parametrize("layout", ["interleaved", "concat"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_the_shift_residual_is_the_same_numbers_whatever_the_step(monkeypatch, offset, length, dim, layout, dtype):
    """Block by block or the whole table in one step: the residual (rounding itself, drawn as it is) does not move
    by one bit; and it is posenc's residual to rounding."""
    steps = []
    for step_bytes in (1, 2**20, 2**40):  # one block per step, the app's ~1 MB, the whole table at once
        monkeypatch.setattr(fast, "_STEP_BYTES", step_bytes)
        steps.append(fast.sinusoidal_shift_residual_by_pairs(offset, length, dim, 10000.0, layout, dtype))
    assert all(torch.equal(steps[0], other) for other in steps[1:])
    rounding = 2e-6 if dtype == torch.float32 else 1e-12
    expected = sinusoidal_shift_residual(offset, length, dim, 10000.0, layout, dtype)
    torch.testing.assert_close(steps[1], expected, rtol=0, atol=rounding)


@pytest.mark.parametrize("length, dim", [*SIZES[:-1], (1500, 512)])
@pytest.mark.parametrize("base", BASES)
def test_shift_dots_are_the_tables_dot_products(monkeypatch, length, dim, base):
    table = sinusoidal(length, dim, base, dtype=torch.float64)  # the textbook table
    for offset in sorted({0, 1, min(4, length - 1), length - 1, length}):
        expected = (table[: length - offset] * table[offset:]).sum(dim=-1)  # PE(p)·PE(p+k), [L − k]
        for step_bytes in (1, 2**20):
            monkeypatch.setattr(fast, "_STEP_BYTES", step_bytes)
            got = fast.sinusoid_shift_dots_by_blocks(offset, length, dim, base)
            assert got.dtype == torch.float64 and got.shape == expected.shape
            torch.testing.assert_close(got, expected, rtol=0, atol=1e-12 * dim)


@pytest.mark.parametrize("length, dim", SIZES)
@pytest.mark.parametrize("base", BASES)
def test_a_row_of_the_similarity_and_its_closed_form_are_posencs(length, dim, base):
    for position in sorted({0, length // 2, length - 1, length + 3}):
        row = fast.sinusoidal_similarity_row_by_blocks(position, length, dim, base)
        expected = sinusoidal_similarity_row(position, length, dim, base)
        assert row.dtype == torch.float64 and row.shape == (length,)
        torch.testing.assert_close(row, expected, rtol=0, atol=1e-12 * dim)
        closed = fast.sinusoid_offset_similarity_by_blocks(position, length, dim, base)
        assert closed.dtype == torch.float64 and closed.shape == (length,)
        torch.testing.assert_close(closed, sinusoid_offset_similarity(position, length, dim, base), rtol=0,
                                   atol=1e-12 * dim)  # fmt: skip
        if position < length:  # the diagonal: |PE(p)|² = D/2, one sin² + cos² = 1 per pair
            assert row[position].item() == pytest.approx(dim / 2, rel=1e-12)


def test_cosines_are_posencs_draws_and_histogram():
    dims = (2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 6, 1000)
    got = fast.embedding_pe_cosines_by_chunks(dims, 4000, 512, 10000.0, seed=0)
    expected = embedding_pe_cosines(dims, 4000, 512, 10000.0, seed=0)
    assert got.dtype == torch.float64 and got.shape == expected.shape
    torch.testing.assert_close(got, expected, rtol=0, atol=1e-13)
    edges = np.linspace(-1, 1, 101)  # the page's bins: not one sample moves to another
    for ours, theirs in zip(got.numpy(), expected.numpy(), strict=True):
        np.testing.assert_array_equal(np.histogram(ours, edges)[0], np.histogram(theirs, edges)[0])
    other = fast.embedding_pe_cosines_by_chunks((16, 8), samples=300, max_position=100, base=100.0, seed=5)
    torch.testing.assert_close(other, embedding_pe_cosines((16, 8), 300, 100, 100.0, seed=5), rtol=0, atol=1e-13)


@pytest.mark.parametrize("call, message", [
    (lambda: fast.embedding_pe_cosines_by_chunks((7,)), "dim must be even"),
    (lambda: fast.embedding_pe_cosines_by_chunks((8,), samples=0), "samples must be a positive whole number"),
    (lambda: fast.sinusoid_shift_dots_by_blocks(-1, 8, 4), "offset"),
    (lambda: fast.sinusoidal_row_by_blocks(-1, 4), "position"),
    (lambda: fast.word_position_mix_by_dots(7, True), "dim must be even"),
])  # fmt: skip
def test_bad_input_gets_posencs_messages(call, message):
    with pytest.raises(ValueError, match=message):
        call()


@pytest.mark.parametrize("dim", [2, 8, 64, 512, 1024])
@pytest.mark.parametrize("scaled", [False, True])
def test_the_word_position_mix_is_posencs(dim, scaled):
    got, expected = fast.word_position_mix_by_dots(dim, scaled), word_position_mix(dim, scaled)
    assert got.keys() == expected.keys()
    for key in expected:
        assert got[key] == pytest.approx(expected[key], rel=1e-12)
    other = fast.word_position_mix_by_dots(16, scaled, words=10, length=7, base=100.0, seed=3)
    reference = word_position_mix(16, scaled, words=10, length=7, base=100.0, seed=3)
    assert other == pytest.approx(reference, rel=1e-12)
