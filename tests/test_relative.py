"""Relative encodings: hand-checked T5 buckets, T5's bucket edges in exact integers, Shaw's clipped index, ALiBi."""

import math

import pytest
import torch

import posenc
from posenc.relative import (
    alibi_bias_per_offset,
    alibi_power_of_two_heads,
    alibi_slope_exponents,
    relative_offsets,
    shaw_clip_index,
    t5_bias_per_offset,
    t5_bucket_ranges,
    t5_illustrative_bias,
    t5_max_exact,
)


def t5_bucket_from_edges(relative: int, bidirectional: bool, num_buckets: int, max_distance: int) -> int:
    """T5's bucket of one offset from the definition of its edges, in exact integer arithmetic: an independent form
    of the log-and-floor code it checks (no logarithm, no float, no tensor).

    Per direction there are B' buckets (B/2 bidirectional, the sign picking the half; B causal, the future in bucket
    0). A distance n < E = B'/2 is its own bucket; the other B' − E buckets are log-spaced: bucket E + k starts at
    the distance E·(max_distance / E)^(k / (B' − E)), the last one reaching to infinity. So n is in bucket E + k for
    the largest k < B' − E with (n / E)^(B' − E) ≥ (max_distance / E)^k, that is
    n^(B'−E) · E^k ≥ max_distance^k · E^(B'−E).
    """
    per_direction = num_buckets // 2 if bidirectional else num_buckets
    bucket = per_direction if bidirectional and relative > 0 else 0
    n = abs(relative) if bidirectional else max(-relative, 0)
    exact = per_direction // 2
    if n < exact:
        return bucket + n
    steps = per_direction - exact
    k = 0
    while k + 1 < steps and n**steps * exact ** (k + 1) >= max_distance ** (k + 1) * exact**steps:
        k += 1
    return bucket + exact + k


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
def test_t5_buckets_match_their_exact_edges(bidirectional, num_buckets, max_distance):
    offsets = range(-1500, 1501)
    got = posenc.t5_relative_bucket(torch.tensor(list(offsets)), bidirectional, num_buckets, max_distance).tolist()
    expected = [t5_bucket_from_edges(r, bidirectional, num_buckets, max_distance) for r in offsets]
    assert got == expected


def test_t5_bias_is_a_per_head_lookup_of_the_bucket():
    torch.manual_seed(0)
    bias_module = posenc.T5RelativeBias(n_heads=3, num_buckets=16, max_distance=32)
    bias = bias_module(10, 12)
    assert bias.shape == (3, 10, 12)
    table = bias_module.table.weight  # [buckets, heads]
    for i in (0, 4, 9):
        for j in (0, 7, 11):
            bucket = t5_bucket_from_edges(j - i, True, 16, 32)
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


# --- helpers for the "Relative positions" page: offsets, Shaw clip, T5 ranges and bias, ALiBi exponents ---------


@pytest.mark.parametrize("length", [1, 2, 7, 64])
def test_relative_offsets_are_every_offset_of_a_sequence_once(length):
    offsets = relative_offsets(length - 1).tolist()
    assert offsets == sorted({j - i for i in range(length) for j in range(length)})
    assert relative_offsets(length - 1, past_only=True).tolist() == [-d for d in range(length - 1, -1, -1)]


@pytest.mark.parametrize("k", [0, 1, 3, 10])
def test_shaw_clip_index_matches_the_clip_rule_and_the_matrix(k):
    offsets = relative_offsets(12)
    assert shaw_clip_index(offsets, k).tolist() == [max(-k, min(k, r)) + k for r in range(-12, 13)]
    matrix = posenc.shaw_relative_index(13, k)
    for i, j in [(0, 0), (0, 12), (12, 0), (5, 7), (7, 5)]:
        assert matrix[i, j].item() == shaw_clip_index(torch.tensor(j - i), k).item()


def test_shaw_clip_index_rejects_fractions():
    with pytest.raises(ValueError, match="relative must hold whole numbers"):
        shaw_clip_index(torch.tensor([0.5]), 2)


@pytest.mark.parametrize(
    "bidirectional, num_buckets, expected", [(True, 32, 8), (True, 4, 1), (False, 32, 16), (False, 2, 1)]
)
def test_t5_max_exact_is_half_the_buckets_per_direction(bidirectional, num_buckets, expected):
    assert t5_max_exact(bidirectional, num_buckets) == expected
    # property: every distance below it is its own bucket, by the exact edges
    assert [t5_bucket_from_edges(-n, bidirectional, num_buckets, 10 * num_buckets) for n in range(expected)] == list(
        range(expected)
    )


@pytest.mark.parametrize("bidirectional, num_buckets", [(True, 31), (True, 2), (False, 1)])
def test_t5_max_exact_rejects_impossible_bucket_counts(bidirectional, num_buckets):
    with pytest.raises(ValueError, match="num_buckets must be"):
        t5_max_exact(bidirectional, num_buckets)


def brute_force_ranges(bidirectional, num_buckets, max_distance):
    """Bucket every offset in ±4·max_distance by the exact edges; a bucket reaching that far edge is open (±inf)."""
    reach = 4 * max_distance
    found = {}
    for r in range(-reach, reach + 1):
        found.setdefault(t5_bucket_from_edges(r, bidirectional, num_buckets, max_distance), []).append(r)
    rows = []
    for bucket in range(num_buckets):
        if bucket not in found:
            rows.append((math.nan, math.nan))
            continue
        low, high = min(found[bucket]), max(found[bucket])
        rows.append((-math.inf if low == -reach else low, math.inf if high == reach else high))
    return torch.tensor(rows, dtype=torch.float64)


@pytest.mark.parametrize(
    "bidirectional, num_buckets, max_distance",
    [
        *[(bidirectional, 32, 128) for bidirectional in (True, False)],
        *[(bidirectional, 16, 64) for bidirectional in (True, False)],
        *[(bidirectional, 8, 20) for bidirectional in (True, False)],
        *[(bidirectional, 64, 1000) for bidirectional in (True, False)],
        (True, 64, 20),  # max_distance just past the exact range: skipped buckets
        (False, 64, 40),
        (True, 4, 2),  # the smallest settings the page allows
        (False, 4, 3),
    ],
)
def test_t5_bucket_ranges_match_a_brute_force_scan(bidirectional, num_buckets, max_distance):
    got = t5_bucket_ranges(bidirectional, num_buckets, max_distance)
    assert got.shape == (num_buckets, 2)
    torch.testing.assert_close(got, brute_force_ranges(bidirectional, num_buckets, max_distance), equal_nan=True)


def test_t5_bucket_ranges_hand_checked():
    ranges = t5_bucket_ranges(True, 32, 128).tolist()
    assert ranges[0] == [0, 0] and ranges[7] == [-7, -7]
    assert ranges[8] == [-11, -8]  # the first log bucket: 8 … 11 back
    assert ranges[15] == [-math.inf, -91]  # the last past bucket: 91 back and everything farther
    assert all(math.isnan(v) for v in ranges[16])  # "0 positions ahead" cannot happen
    assert ranges[17] == [1, 1] and ranges[31] == [91, math.inf]
    causal = t5_bucket_ranges(False, 8, 20).tolist()
    assert causal[0] == [0, math.inf]  # the query itself and every key ahead
    assert causal[7][0] == -math.inf


def test_t5_bucket_ranges_show_skipped_buckets():
    # 32 buckets per direction but max_distance just past the exact range: the log step skips buckets
    ranges = t5_bucket_ranges(True, 64, 20)
    unused = torch.isnan(ranges[:, 0]).nonzero().flatten().tolist()
    assert 17 in unused and 32 in unused


def test_t5_illustrative_bias_is_reproducible_and_leaves_the_global_rng_alone():
    torch.manual_seed(123)
    expected_next = torch.rand(3)
    torch.manual_seed(123)
    first = t5_illustrative_bias(4, 16, 32, seed=0).table.weight.detach().clone()
    assert torch.equal(torch.rand(3), expected_next)
    again = t5_illustrative_bias(4, 16, 32, seed=0).table.weight
    other = t5_illustrative_bias(4, 16, 32, seed=1).table.weight
    assert torch.equal(first, again) and not torch.equal(first, other)
    assert first.shape == (16, 4)


@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_bias_per_offset_is_the_diagonal_of_the_bias_matrix(bidirectional):
    module = t5_illustrative_bias(3, 16, 32, bidirectional)
    length = 40
    per_offset = t5_bias_per_offset(module, relative_offsets(length - 1))  # [H, 2L − 1]
    matrix = module(length)  # [H, L, L]
    assert per_offset.shape == (3, 2 * length - 1)
    for i, j in [(0, 0), (0, 39), (39, 0), (10, 25), (25, 10)]:
        torch.testing.assert_close(per_offset[:, j - i + length - 1], matrix[:, i, j])
        bucket = t5_bucket_from_edges(j - i, bidirectional, 16, 32)
        torch.testing.assert_close(per_offset[:, j - i + length - 1], module.table.weight[bucket])


@pytest.mark.parametrize("n_heads", range(1, 17))
def test_alibi_slope_exponents_give_the_slopes(n_heads):
    exponents = alibi_slope_exponents(n_heads)
    assert exponents.shape == (n_heads,)
    torch.testing.assert_close(2.0**-exponents, posenc.alibi_slopes(n_heads, dtype=torch.float64))


def test_alibi_slope_exponents_hand_checked():
    assert alibi_slope_exponents(8).tolist() == [1, 2, 3, 4, 5, 6, 7, 8]
    assert alibi_slope_exponents(6).tolist() == [2, 4, 6, 8, 1, 3]  # 4-head sequence, then odd ones of 8 heads
    assert alibi_slope_exponents(1).tolist() == [8]


@pytest.mark.parametrize("n_heads", [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 100])
def test_alibi_power_of_two_heads_is_the_largest_power_below(n_heads):
    assert alibi_power_of_two_heads(n_heads) == max(2**e for e in range(10) if 2**e <= n_heads)


@pytest.mark.parametrize("causal", [True, False])
def test_alibi_bias_per_offset_is_the_diagonal_of_the_bias(causal):
    length, heads = 9, 5
    per_offset = alibi_bias_per_offset(relative_offsets(length - 1), heads, causal=causal).to(torch.float64)
    slopes = posenc.alibi_slopes(heads, dtype=torch.float64).tolist()
    matrix = posenc.alibi_bias(length, heads, causal=causal, dtype=torch.float64)
    for h in range(heads):
        for r in range(-(length - 1), length):
            expected = -math.inf if causal and r > 0 else -slopes[h] * abs(r)
            assert per_offset[h, r + length - 1].item() == pytest.approx(expected)
    for i, j in [(0, 0), (8, 0), (0, 8), (4, 6)]:
        torch.testing.assert_close(per_offset[:, j - i + length - 1], matrix[:, i, j].float().double())
