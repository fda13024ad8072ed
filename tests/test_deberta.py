"""DeBERTa's disentangled attention against the paper's formulas (arXiv 2006.03654 §3.1), as float64 loops."""

from __future__ import annotations

import math

import pytest
import torch

from posenc._random import BLOCK_DIM, BLOCK_ROWS, leading_blocks, leading_views, padded
from posenc.deberta import deberta_delta, deberta_illustration, deberta_relative_index, deberta_scores


def paper_delta(i: int, j: int, k: int) -> int:
    """Eq. 3, case by case."""
    if i - j <= -k:
        return 0
    if i - j >= k:
        return 2 * k - 1
    return i - j + k


def test_delta_matches_hand_written_table_for_k_2():
    # rows: query i = 0 … 4, columns: key j = 0 … 4; i − j ≤ −2 -> 0, i − j ≥ 2 -> 3, else i − j + 2
    want = torch.tensor(
        [
            [2, 1, 0, 0, 0],
            [3, 2, 1, 0, 0],
            [3, 3, 2, 1, 0],
            [3, 3, 3, 2, 1],
            [3, 3, 3, 3, 2],
        ]
    )
    assert torch.equal(deberta_relative_index(5, 2), want)


def test_delta_for_k_1_uses_two_rows():
    assert torch.equal(deberta_delta(torch.arange(-3, 4), 1), torch.tensor([0, 0, 0, 1, 1, 1, 1]))


@pytest.mark.parametrize("k", [1, 2, 3, 8])
@pytest.mark.parametrize(("q_len", "k_len"), [(6, 6), (3, 9), (9, 2)])
def test_delta_matches_paper_cases(k, q_len, k_len):
    got = deberta_relative_index(q_len, k, k_len)
    want = torch.tensor([[paper_delta(i, j, k) for j in range(k_len)] for i in range(q_len)])
    assert torch.equal(got, want)
    assert int(got.min()) >= 0 and int(got.max()) <= 2 * k - 1


def random_inputs(heads: int, q_len: int, k_len: int, dim: int, k: int, seed: int = 0):
    generator = torch.Generator().manual_seed(seed)
    qc = torch.randn(heads, q_len, dim, generator=generator, dtype=torch.float64)
    kc = torch.randn(heads, k_len, dim, generator=generator, dtype=torch.float64)
    qr = torch.randn(heads, 2 * k, dim, generator=generator, dtype=torch.float64)
    kr = torch.randn(heads, 2 * k, dim, generator=generator, dtype=torch.float64)
    return qc, kc, qr, kr


@pytest.mark.parametrize(("heads", "q_len", "k_len", "dim", "k"), [(1, 5, 5, 4, 2), (2, 4, 7, 6, 3), (3, 6, 3, 2, 1)])
def test_each_term_matches_loop(heads, q_len, k_len, dim, k):
    qc, kc, qr, kr = random_inputs(heads, q_len, k_len, dim, k)
    got = deberta_scores(qc, kc, qr, kr, k)
    s = 1 / math.sqrt(3 * dim)
    for h in range(heads):
        for i in range(q_len):
            for j in range(k_len):
                c2c = float(qc[h, i] @ kc[h, j])
                c2p = float(qc[h, i] @ kr[h, paper_delta(i, j, k)])
                p2c = float(kc[h, j] @ qr[h, paper_delta(j, i, k)])
                assert float(got.c2c[h, i, j]) == pytest.approx(s * c2c, abs=1e-10)
                assert float(got.c2p[h, i, j]) == pytest.approx(s * c2p, abs=1e-10)
                assert float(got.p2c[h, i, j]) == pytest.approx(s * p2c, abs=1e-10)
                assert float(got.total[h, i, j]) == pytest.approx(s * (c2c + c2p + p2c), abs=1e-10)


def test_terms_sum_to_total_with_batch_dims():
    qc, kc, qr, kr = random_inputs(2, 4, 4, 4, 2)
    got = deberta_scores(torch.stack([qc, -qc]), torch.stack([kc, kc]), qr, kr, 2)
    assert got.total.shape == (2, 2, 4, 4)
    torch.testing.assert_close(got.c2c + got.c2p + got.p2c, got.total)


def test_zero_position_tables_leave_content_only_scaled_by_root_3d():
    qc, kc, qr, kr = random_inputs(1, 5, 5, 8, 2)
    got = deberta_scores(qc, kc, torch.zeros_like(qr), torch.zeros_like(kr), 2)
    torch.testing.assert_close(got.total, qc @ kc.transpose(-1, -2) / math.sqrt(24))


def test_far_keys_share_the_edge_row():
    qc, kc, qr, kr = random_inputs(1, 10, 10, 4, 2)
    got = deberta_scores(qc, kc, qr, kr, 2)
    # query 9: keys 0 … 8 all have i − j ≥ 1 = k − 1, so they all use row 2k − 1 in content → position
    want = (kr[0, 3] @ qc[0, 9]) / math.sqrt(12)
    torch.testing.assert_close(got.c2p[0, 9, :9], want.expand(9))


@pytest.mark.parametrize(("length", "dim", "k"), [(1, 2, 1), (16, 8, 4), (40, 32, 64)])
def test_illustration_shape_and_reproducible(length, dim, k):
    first, second = deberta_illustration(length, dim, k, seed=2), deberta_illustration(length, dim, k, seed=2)
    assert first.total.shape == (1, length, length)
    torch.testing.assert_close(first.total, second.total)


@pytest.mark.parametrize(("length", "dim", "k"), [(5, 6, 2), (49, 256, 16), (64, 1024, 64)])
def test_illustration_is_the_scores_of_its_scaled_draws(length, dim, k):
    """deberta_illustration reads its N(0, 1) weights in place and scales the products by 1/√D: the same scores as
    weights drawn N(0, 1/D) (each block scaled, then applied), to rounding."""
    m = padded(dim, BLOCK_DIM)
    draws = (*[(m, m)] * 4, (padded(length, BLOCK_ROWS), m), (padded(2 * k, BLOCK_ROWS), m))
    blocks = (*[(dim, dim)] * 4, (length, dim), (2 * k, dim))
    w_qc, w_kc, w_qr, w_kr, h, p = leading_blocks(3, draws, blocks, (*[dim**-0.5] * 4, 1.0, 1.0))
    want = deberta_scores((h @ w_qc)[None], (h @ w_kc)[None], (p @ w_qr)[None], (p @ w_kr)[None], k)
    got = deberta_illustration(length, dim, k, seed=3)
    for name in ("c2c", "c2p", "p2c", "total"):
        torch.testing.assert_close(getattr(got, name), getattr(want, name), rtol=1e-12, atol=1e-12)


def test_leading_views_are_the_unscaled_blocks_without_a_copy():
    draws, blocks = ((8, 8), (4, 6)), ((3, 5), (2, 6))
    views = leading_views(1, draws, blocks)
    copies = leading_blocks(1, draws, blocks, (1.0, 1.0))
    for view, copy in zip(views, copies, strict=True):
        assert view.dtype == torch.float64 and torch.equal(view, copy)
    assert all(view._base is not None for view in views)  # a view of the draw, not a copy
    with pytest.raises(ValueError, match="fit"):
        leading_views(1, draws, ((9, 1), (1, 1)))


zeros = torch.zeros


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: deberta_delta(torch.arange(3), 0), "positive"),
        (lambda: deberta_delta(torch.arange(3), -2), "positive"),
        (lambda: deberta_delta(torch.tensor([0.5]), 2), "whole numbers"),
        (lambda: deberta_relative_index(-3, 2), "positive"),
        (lambda: deberta_illustration(4, 4, 0), "positive"),
        (lambda: deberta_illustration(-1, 4, 2), "positive"),
        (lambda: deberta_scores(*random_inputs(1, 3, 3, 4, 2), 3), "one row per"),
        (
            lambda: deberta_scores(zeros(3, 4), zeros(3, 4), zeros(1, 4, 4), zeros(1, 4, 4), 2),
            "must have shape",
        ),
        (
            lambda: deberta_scores(
                torch.zeros(1, 3, 4), torch.zeros(1, 3, 2), torch.zeros(1, 4, 4), torch.zeros(1, 4, 4), 2
            ),
            "k_content",
        ),
    ],
)
def test_bad_input_raises_clear_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def hf_p2c(key_layer: torch.Tensor, pos_query_layer: torch.Tensor, k: int) -> torch.Tensor:
    """Hugging Face ``DisentangledSelfAttention.disentangled_att_bias``'s p2c lines, rewritten here for one head with
    equal query and key lengths and att_span = k: ``build_relative_position``, ``p2c_pos = clamp(−r_pos + att_span,
    0, 2·att_span − 1)``, ``gather(key_layer @ pos_query_layerᵀ, −1, p2c_pos).transpose(−1, −2)``."""
    length = key_layer.shape[-2]
    ids = torch.arange(length)
    r_pos = ids[:, None] - ids[None, :]  # build_relative_position: q_ids[:, None] − k_ids[None, :]
    p2c_pos = torch.clamp(-r_pos + k, 0, k * 2 - 1)
    p2c_att = torch.matmul(key_layer, pos_query_layer.transpose(-1, -2))  # [K, 2k]
    return torch.gather(p2c_att, dim=-1, index=p2c_pos).transpose(-1, -2)  # [Q, K]


@pytest.mark.parametrize("k", [1, 2, 4])
@pytest.mark.parametrize("length", [3, 7])
def test_huggingface_convention_matches_hf_gather_and_transpose(k, length):
    g = torch.Generator().manual_seed(3)
    q_c, k_c = (torch.randn(1, length, 4, generator=g, dtype=torch.float64) for _ in range(2))
    q_r, k_r = (torch.randn(1, 2 * k, 4, generator=g, dtype=torch.float64) for _ in range(2))
    terms = deberta_scores(q_c, k_c, q_r, k_r, k, scale=1.0, convention="huggingface")
    torch.testing.assert_close(terms.p2c[0], hf_p2c(k_c[0], q_r[0], k), rtol=0, atol=1e-12)
    # HF's p2c index is δ(i, j), the c2p index, entry by entry
    for i in range(length):
        for j in range(length):
            want = k_c[0, j] @ q_r[0, paper_delta(i, j, k)]
            torch.testing.assert_close(terms.p2c[0, i, j], want, rtol=0, atol=1e-12)


def test_paper_and_huggingface_p2c_differ_off_the_diagonal_only():
    """δ(j, i) and δ(i, j) agree where i = j; with k = 4, query 2 and key 5 read rows 7 (paper) and 1 (HF)."""
    assert paper_delta(5, 2, 4) == 7 and paper_delta(2, 5, 4) == 1
    paper = deberta_illustration(6, 8, 4, convention="paper")
    hf = deberta_illustration(6, 8, 4, convention="huggingface")
    torch.testing.assert_close(torch.diagonal(paper.p2c, dim1=-2, dim2=-1), torch.diagonal(hf.p2c, dim1=-2, dim2=-1))
    assert not torch.allclose(paper.p2c, hf.p2c)
    torch.testing.assert_close(paper.c2p, hf.c2p)
    torch.testing.assert_close(paper.c2c, hf.c2c)


def test_a_longer_window_and_a_larger_k_keep_the_same_tokens():
    """The content H and table P are leading blocks of one draw: a shorter window's scores are the top-left block of
    a longer one's, and c2c (no table) is the same for every k."""
    short, long = deberta_illustration(6, 32, 3, seed=4), deberta_illustration(20, 32, 3, seed=4)
    for got, wider in zip((*short.terms(), short.total), (*long.terms(), long.total), strict=True):
        torch.testing.assert_close(got, wider[:, :6, :6], rtol=1e-12, atol=1e-14)
    torch.testing.assert_close(deberta_illustration(20, 32, 9, seed=4).c2c, long.c2c, rtol=0, atol=0)
    assert not torch.equal(deberta_illustration(20, 32, 3, seed=5).c2c, long.c2c)  # the seed draws anew
