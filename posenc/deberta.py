"""DeBERTa's disentangled attention: content and relative position kept as two vectors, scored three ways.

Shape letters: "..." = batch dims, H = heads, Q = query length, K = key length, D = per-head dimension,
k = the maximum relative distance, 2k = rows of the relative table P.

Paper (He et al. 2020, arXiv 2006.03654 §3.1, eqs. 2–4): with content projections Q^c = H W_{q,c}, K^c = H W_{k,c}
and relative-position projections Q^r = P W_{q,r}, K^r = P W_{k,r} of a shared table P [2k, d],

    Ã_ij = Q^c_i·K^c_j  +  Q^c_i·K^r_{δ(i,j)}  +  K^c_j·Q^r_{δ(j,i)},     softmax over j of Ã_ij / √(3D)
           content→content   content→position     position→content

    δ(i, j) = 0 if i − j ≤ −k;  2k − 1 if i − j ≥ k;  i − j + k otherwise   (= clamp(i − j + k, 0, 2k − 1)).

Note the sign: δ uses i − j (query minus key), the opposite of the j − i of :mod:`posenc.relative`, and in the
paper the position→content term looks the *key*'s distance up, δ(j, i). The √(3D) scale (not √D) keeps the sum of
three terms at the usual size. Each returned term is already scaled by 1/√(3D), so the three terms add up exactly to
the returned total.

This is DeBERTa v1 as the paper writes it: a plain clipped table of 2k rows and position projections W_{q,r},
W_{k,r} of their own. (DeBERTa v2/v3 share the content projections for positions, ``share_att_key``, and bucket
long distances logarithmically, ``position_buckets``; neither is modelled here.)

Hugging Face's ``DisentangledSelfAttention`` differs in the p2c index. c2p gathers ``c2p_pos = clamp(r + k)`` with
r[i, j] = i − j, row δ(i, j) as in eq. 4. p2c gathers ``p2c_pos = clamp(−r + k)`` from the [key j, row] table
K^c_j·Q^r_row and then transposes: entry [j, i] reads row clamp(−(j − i) + k) = δ(i, j), so after the transpose
HF's p2c term is K^c_j·Q^r_{δ(i,j)}, the same index as c2p, where eq. 4 has δ(j, i) = clamp(j − i + k). Example,
k = 4, query i = 2, key j = 5: the paper reads row δ(5, 2) = 7, HF reads row δ(2, 5) = 1. ``convention`` picks one.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from posenc import _checks
from posenc._random import BLOCK_DIM, BLOCK_ROWS, leading_views, padded

DEBERTA_TERM_LABELS = ("content → content", "content → position", "position → content")
DEBERTA_CONVENTIONS = ("paper", "huggingface")  # which row the position → content term reads: δ(j, i) or δ(i, j)


@dataclass(frozen=True)
class DebertaTerms:
    """The three disentangled terms and their sum ``total``, each [..., H, Q, K], already scaled by 1/√(3D)."""

    c2c: torch.Tensor
    c2p: torch.Tensor
    p2c: torch.Tensor
    total: torch.Tensor

    def terms(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(content→content, content→position, position→content) in order."""
        return self.c2c, self.c2p, self.p2c


def deberta_delta(relative: torch.Tensor, max_distance: int) -> torch.Tensor:
    """δ = clamp(r + k, 0, 2k − 1) for offsets r = i − j: 0 if r ≤ −k, 2k − 1 if r ≥ k, else r + k.

    Shapes: relative [...] (whole numbers i − j) -> [...] long in 0 … 2k − 1. Source: arXiv 2006.03654 §3.1, eq. 3.
    """
    k = _checks.positive_int("max_distance k", max_distance)
    relative = torch.as_tensor(relative)
    if relative.is_floating_point():
        raise ValueError("relative must hold whole numbers (an integer tensor of query − key offsets i − j).")
    # δ(i, j) = i − j + k, clipped to the 2k rows of P
    return (relative.long() + k).clamp(0, 2 * k - 1)


def deberta_relative_index(q_len: int, max_distance: int, k_len: int | None = None) -> torch.Tensor:
    """The row δ(i, j) of the relative table used by query i and key j. Returns: [Q, K] long in 0 … 2k − 1.

    Source: arXiv 2006.03654 §3.1, eq. 3.
    """
    q_len = _checks.positive_int("q_len", q_len)
    k_len = q_len if k_len is None else _checks.positive_int("k_len", k_len)
    distance = torch.arange(q_len)[:, None] - torch.arange(k_len)[None, :]  # i − j, [Q, K]
    return deberta_delta(distance, max_distance)


def deberta_scores(
    q_content: torch.Tensor,
    k_content: torch.Tensor,
    q_position: torch.Tensor,
    k_position: torch.Tensor,
    max_distance: int,
    scale: float | None = None,
    convention: str = "paper",
) -> DebertaTerms:
    """Ã_ij / √(3D) = s·(Q^c_i·K^c_j + Q^c_i·K^r_{δ(i,j)} + K^c_j·Q^r_{δ(j,i)}), each term returned, s = 1/√(3D).

    ``q_position`` = Q^r = P W_{q,r} and ``k_position`` = K^r = P W_{k,r}, one row per δ = 0 … 2k − 1.
    ``convention="huggingface"``: the position → content term reads row δ(i, j) instead, K^c_j·Q^r_{δ(i,j)}, as
    Hugging Face's ``DisentangledSelfAttention`` does after its gather and transpose (module docstring).
    Shapes: q_content [..., H, Q, D], k_content [..., H, K, D], q_position and k_position [H, 2k, D]
    -> terms [..., H, Q, K]. Source: arXiv 2006.03654 §3.1, eqs. 2–4.
    """
    k = _checks.positive_int("max_distance k", max_distance)
    convention = _checks.choice("convention", convention, DEBERTA_CONVENTIONS)
    if q_content.dim() < 3 or k_content.dim() < 3:
        raise ValueError(
            f"q_content and k_content must have shape [..., heads, seq, dim]; got {tuple(q_content.shape)} and "
            f"{tuple(k_content.shape)}."
        )
    heads, q_len, dim = q_content.shape[-3:]
    k_len = k_content.shape[-2]
    if k_content.shape[-3] != heads or k_content.shape[-1] != dim:
        raise ValueError(f"k_content must be [..., {heads}, K, {dim}] like q_content; got {tuple(k_content.shape)}.")
    for name, table in (("q_position", q_position), ("k_position", k_position)):
        if table.shape != (heads, 2 * k, dim):
            raise ValueError(
                f"{name} must have shape [{heads}, {2 * k}, {dim}] (one row per δ = 0 … 2k − 1 for k = {k}); "
                f"got {tuple(table.shape)}."
            )
    scale = 1.0 / math.sqrt(3 * dim) if scale is None else _checks.finite_float("scale", scale)
    dtype = q_content.dtype

    # content → content: Q^c_i · K^c_j, [..., H, Q, D] x [..., H, D, K] -> [..., H, Q, K]
    c2c = torch.matmul(q_content, k_content.transpose(-1, -2)) * scale
    # content → position: Q^c_i · K^r_δ for every row δ, [..., H, Q, D] x [H, D, 2k] -> [..., H, Q, 2k] …
    query_rows = torch.matmul(q_content, k_position.to(dtype).transpose(-1, -2))
    index = deberta_relative_index(q_len, k, k_len)  # δ(i, j), [Q, K]
    # … then pick row δ(i, j) for each key j
    c2p = torch.gather(query_rows, -1, index.expand(*query_rows.shape[:-1], k_len)) * scale
    # position → content: K^c_j · Q^r_δ for every row δ, [..., H, K, D] x [H, D, 2k] -> [..., H, K, 2k] …
    key_rows = torch.matmul(k_content, q_position.to(dtype).transpose(-1, -2))
    # paper: δ(j, i), [K, Q]; Hugging Face: δ(i, j) transposed to [K, Q]
    index_t = deberta_relative_index(k_len, k, q_len) if convention == "paper" else index.T
    # … pick that row for each query i, [..., H, K, Q], then transpose to [..., H, Q, K]
    p2c = torch.gather(key_rows, -1, index_t.expand(*key_rows.shape[:-1], q_len)).transpose(-1, -2) * scale
    # Ã / √(3D) = c2c + c2p + p2c
    return DebertaTerms(c2c, c2p, p2c, c2c + c2p + p2c)


def deberta_illustration(
    length: int, dim: int, max_distance: int, seed: int = 0, convention: str = "paper"
) -> DebertaTerms:
    """One head of random (untrained) DeBERTa weights: content H, W_{q,c}, W_{k,c}, table P, W_{q,r}, W_{k,r}, seeded.

    H ~ N(0, 1) [L, D], P ~ N(0, 1) [2k, D], projections ~ N(0, 1/D) [D, D], each the leading block of a draw at the
    app's largest sizes (posenc._random.leading_blocks): a larger dim, length or k adds rows and columns to the same
    values. The global random state is left as it was. Returns DebertaTerms of shape [1, L, L] each.
    Source: arXiv 2006.03654 §3.1.
    """
    length = _checks.positive_int("length", length)
    dim = _checks.positive_int("dim", dim)
    k = _checks.positive_int("max_distance k", max_distance)
    seed = _checks.non_negative_int("seed", seed)
    m = padded(dim, BLOCK_DIM)
    draws = (*[(m, m)] * 4, (padded(length, BLOCK_ROWS), m), (padded(2 * k, BLOCK_ROWS), m))
    blocks = (*[(dim, dim)] * 4, (length, dim), (2 * k, dim))
    # W_{q,c}, W_{k,c}, W_{q,r}, W_{k,r} [D, D] each, N(0, 1) here: their 1/√D is applied to the products
    # (H·(W/√D) = (H·W)/√D, up to rounding), so the weights are read where they are drawn, not copied; H [L, D];
    # P [2k, D], shared by every layer in DeBERTa
    w_qc, w_kc, w_qr, w_kr, content, table = leading_views(seed, draws, blocks)
    std = dim**-0.5
    q_content, k_content = (content @ w_qc * std)[None], (content @ w_kc * std)[None]  # [1, L, D]
    q_position, k_position = (table @ w_qr * std)[None], (table @ w_kr * std)[None]  # Q^r, K^r, [1, 2k, D]
    return deberta_scores(q_content, k_content, q_position, k_position, k, convention=convention)
