"""Relative encodings: hand-checked T5 buckets, an independent bucket formula, Shaw's clipped index, ALiBi."""

import math

import pytest
import torch

import posenc


def t5_bucket_by_hand(relative: int, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """T5 bucketing for one offset, written from the paper's description with Python's math module."""
    bucket = 0
    if bidirectional:
        num_buckets //= 2
        if relative > 0:
            bucket = num_buckets
        n = abs(relative)
    else:
        n = max(-relative, 0)
    max_exact = num_buckets // 2
    if n < max_exact:
        return bucket + n
    log_part = math.log(n / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    return bucket + min(max_exact + int(log_part), num_buckets - 1)


def test_t5_buckets_hand_checked_bidirectional():
    buckets = posenc.t5_relative_bucket(torch.arange(-200, 201), bidirectional=True, num_buckets=32, max_distance=128)
    at = dict(zip(range(-200, 201), buckets.tolist(), strict=True))
    # keys in the past (r < 0): distances 0–7 are exact buckets 0–7
    assert [at[-d] for d in range(8)] == list(range(8))
    # keys in the future take the upper half: r = +1 … +7 -> 17 … 23, r = 0 -> 0
    assert [at[d] for d in range(1, 8)] == list(range(17, 24))
    # 8–11 share bucket 8; then log-spaced up to 128; everything farther shares bucket 15
    assert {at[-d] for d in range(8, 12)} == {8}
    assert at[-12] == 9
    assert at[-127] == 15 and at[-128] == 15 and at[-200] == 15
    assert at[200] == 31


def test_t5_buckets_hand_checked_causal():
    buckets = posenc.t5_relative_bucket(-torch.arange(0, 300), bidirectional=False, num_buckets=32, max_distance=128)
    assert buckets[:16].tolist() == list(range(16))
    assert buckets[112].item() == 30
    assert set(buckets[113:].tolist()) == {31}
    # the future is invisible to a causal model: every key ahead falls in bucket 0
    future = posenc.t5_relative_bucket(torch.arange(1, 50), bidirectional=False)
    assert set(future.tolist()) == {0}


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize("num_buckets, max_distance", [(32, 128), (16, 64), (8, 20), (64, 1000)])
def test_t5_buckets_match_independent_formula(bidirectional, num_buckets, max_distance):
    offsets = range(-1500, 1501)
    got = posenc.t5_relative_bucket(torch.tensor(list(offsets)), bidirectional, num_buckets, max_distance).tolist()
    expected = [t5_bucket_by_hand(r, bidirectional, num_buckets, max_distance) for r in offsets]
    assert got == expected


def test_t5_bias_is_a_per_head_lookup_of_the_bucket():
    torch.manual_seed(0)
    bias_module = posenc.T5RelativeBias(n_heads=3, num_buckets=16, max_distance=32)
    bias = bias_module(10, 12)
    assert bias.shape == (3, 10, 12)
    table = bias_module.table.weight  # [buckets, heads]
    for i in (0, 4, 9):
        for j in (0, 7, 11):
            bucket = t5_bucket_by_hand(j - i, True, 16, 32)
            torch.testing.assert_close(bias[:, i, j], table[bucket])


def test_shaw_index_clips_offsets():
    index = posenc.shaw_relative_index(6, max_relative_position=2)
    expected = [[min(max(j - i, -2), 2) + 2 for j in range(6)] for i in range(6)]
    assert index.tolist() == expected
    assert index.dtype == torch.long


def test_shaw_tables_follow_the_index():
    torch.manual_seed(0)
    shaw = posenc.ShawRelativeEmbeddings(max_relative_position=3, dim=4)
    keys, values = shaw(5, 7)
    assert keys.shape == values.shape == (5, 7, 4)
    assert shaw.keys.weight.shape == (7, 4)
    torch.testing.assert_close(keys[0, 6], shaw.keys.weight[6])  # offset +6 clipped to +3 -> row 6
    torch.testing.assert_close(values[4, 0], shaw.values.weight[0])  # offset −4 clipped to −3 -> row 0
    torch.testing.assert_close(keys[2, 2], shaw.keys.weight[3])  # offset 0 -> row k


def test_alibi_slopes_power_of_two():
    slopes = posenc.alibi_slopes(8, dtype=torch.float64)
    assert slopes.tolist() == [1 / 2**h for h in range(1, 9)]
    assert posenc.alibi_slopes(16, dtype=torch.float64).tolist() == pytest.approx([2 ** (-h / 2) for h in range(1, 17)])


def test_alibi_slopes_not_power_of_two():
    # 12 heads: the 8 slopes of 8 heads, then every other slope of 16 heads (2^-0.5, 2^-1.5, …)
    slopes = posenc.alibi_slopes(12, dtype=torch.float64).tolist()
    assert slopes[:8] == [1 / 2**h for h in range(1, 9)]
    assert slopes[8:] == pytest.approx([2 ** (-0.5), 2 ** (-1.5), 2 ** (-2.5), 2 ** (-3.5)])
    assert len(posenc.alibi_slopes(5)) == 5
    assert posenc.alibi_slopes(1).tolist() == [2.0**-8]


def test_alibi_bias_is_linear_in_distance():
    bias = posenc.alibi_bias(6, 4, causal=True, dtype=torch.float64)
    slopes = posenc.alibi_slopes(4, dtype=torch.float64)
    assert bias.shape == (4, 6, 6)
    for h in range(4):
        for i in range(6):
            for j in range(6):
                expected = -slopes[h].item() * (i - j) if j <= i else -math.inf
                assert bias[h, i, j].item() == expected
    symmetric = posenc.alibi_bias(6, 4, causal=False, dtype=torch.float64)
    torch.testing.assert_close(symmetric, symmetric.transpose(-1, -2))
    assert symmetric[1, 0, 5].item() == pytest.approx(-5 * slopes[1].item())
