"""Relative positional encodings: Shaw et al.'s clipped table, T5's log buckets, and ALiBi's linear bias.

Shape letters: H = heads, Q = query length, K = key length, D = per-head dimension.
Throughout, the relative position of key j seen from query i is ``j − i`` (negative: the key is in the past).

Sources: Shaw, Uszkoreit & Vaswani 2018, arXiv 1803.02155 §3; Raffel et al. 2020 (T5), arXiv 1910.10683 §2.1 and
the reference ``_relative_position_bucket`` in Mesh TensorFlow / Hugging Face ``modeling_t5.py``; Press, Smith &
Lewis 2021 (ALiBi), arXiv 2108.12409 §3 and the reference ``get_slopes`` in ofirpress/attention_with_linear_biases.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from posenc import _checks


def relative_positions(q_len: int, k_len: int | None = None, device: torch.device | str | None = None) -> torch.Tensor:
    """Relative position of every key from every query: r[i, j] = j − i. Returns: [Q, K] long."""
    q_len = _checks.positive_int("q_len", q_len)
    k_len = q_len if k_len is None else _checks.positive_int("k_len", k_len)
    query = torch.arange(q_len, device=device)
    key = torch.arange(k_len, device=device)
    return key[None, :] - query[:, None]  # [1, K] − [Q, 1] -> [Q, K]


def shaw_relative_index(length: int, max_relative_position: int, k_len: int | None = None) -> torch.Tensor:
    """Row of the learned table used for (i, j): clip(j − i, −k, k) + k, with k = ``max_relative_position``.

    Offsets beyond ±k share the edge row, so the model cannot tell "k + 1 apart" from "k + 100 apart".
    Returns: [Q, K] long in 0 … 2k. Source: arXiv 1803.02155 §3.2 (clip(x, k) = max(−k, min(k, x))).
    """
    return shaw_clip_index(relative_positions(length, k_len), max_relative_position)


class ShawRelativeEmbeddings(nn.Module):
    """The two learned tables of Shaw et al.: w^K and w^V, each [2k + 1, D].

    ``forward(q_len, k_len)`` returns (a^K, a^V) with a_ij = w[clip(j − i, −k, k) + k], each [Q, K, D]; attention
    uses e_ij = x_i W^Q · (x_j W^K + a^K_ij) / √D and z_i = Σ_j α_ij (x_j W^V + a^V_ij).
    Source: arXiv 1803.02155 §3.1–3.2.
    """

    def __init__(self, max_relative_position: int, dim: int) -> None:
        super().__init__()
        self.max_relative_position = _checks.non_negative_int("max_relative_position", max_relative_position)
        self.dim = _checks.positive_int("dim", dim)
        rows = 2 * self.max_relative_position + 1
        self.keys = nn.Embedding(rows, self.dim)  # w^K
        self.values = nn.Embedding(rows, self.dim)  # w^V

    def forward(self, q_len: int, k_len: int | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        index = shaw_relative_index(q_len, self.max_relative_position, k_len).to(self.keys.weight.device)
        return self.keys(index), self.values(index)  # [Q, K] -> [Q, K, D] each


def t5_relative_bucket(
    relative_position: torch.Tensor,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> torch.Tensor:
    """T5's bucket for each relative position r = key − query.

    Bidirectional: the sign takes half the buckets (r > 0 adds B/2), then |r| is bucketed into B' = B/2 buckets.
    Causal: only the past counts, n = max(−r, 0), into all B' = B buckets. In both, n < B'/2 is its own bucket
    (exact), larger n goes to B'/2 + ⌊log(n / (B'/2)) / log(max_distance / (B'/2)) · (B' − B'/2)⌋, capped at B' − 1.
    Computed in float32 like the reference, so every bucket boundary matches it.

    Shapes: relative_position [...] (any integer tensor) -> [...] long in 0 … B − 1.
    Source: arXiv 1910.10683 §2.1; Hugging Face ``T5Attention._relative_position_bucket``.
    """
    num_buckets = _checks.positive_int("num_buckets", num_buckets)
    max_distance = _checks.positive_int("max_distance", max_distance)
    relative_position = torch.as_tensor(relative_position)
    if relative_position.is_floating_point():
        raise ValueError("relative_position must hold whole numbers (an integer tensor of key − query offsets).")
    relative_position = relative_position.long()
    if bidirectional:
        if num_buckets < 4 or num_buckets % 2:
            raise ValueError(f"num_buckets must be an even number ≥ 4 when bidirectional; got {num_buckets}.")
        num_buckets //= 2
        bucket = (relative_position > 0).long() * num_buckets  # keys after the query use the upper half
        distance = relative_position.abs()
    else:
        if num_buckets < 2:
            raise ValueError(f"num_buckets must be ≥ 2 when causal; got {num_buckets}.")
        bucket = torch.zeros_like(relative_position)
        distance = (-relative_position).clamp(min=0)  # only the past: future keys fall in bucket 0
    max_exact = num_buckets // 2
    if max_distance <= max_exact:
        raise ValueError(
            f"max_distance must be larger than the exact range ({max_exact} positions for {num_buckets} "
            f"buckets per direction); got {max_distance}."
        )
    # log-spaced buckets from max_exact up to max_distance, then everything farther shares the last bucket
    scaled = torch.log(distance.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
    if_large = (max_exact + scaled.to(torch.long)).clamp(max=num_buckets - 1)
    return bucket + torch.where(distance < max_exact, distance, if_large)


class T5RelativeBias(nn.Module):
    """T5's learned bias: one scalar per (bucket, head), added to the attention logits.

    ``forward(q_len, k_len)`` -> [H, Q, K] with bias[h, i, j] = table[bucket(j − i), h]. In T5 the first layer owns
    this table and every other layer reuses its output: one table shared by all layers, a column per head.
    Source: arXiv 1910.10683 §2.1; Hugging Face ``T5Attention.compute_bias``.
    """

    def __init__(
        self, n_heads: int, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True
    ) -> None:
        super().__init__()
        self.n_heads = _checks.positive_int("n_heads", n_heads)
        self.num_buckets = _checks.positive_int("num_buckets", num_buckets)
        self.max_distance = _checks.positive_int("max_distance", max_distance)
        self.bidirectional = bool(bidirectional)
        t5_relative_bucket(torch.zeros(1, dtype=torch.long), self.bidirectional, num_buckets, max_distance)
        self.table = nn.Embedding(self.num_buckets, self.n_heads)

    def forward(self, q_len: int, k_len: int | None = None) -> torch.Tensor:
        relative = relative_positions(q_len, k_len, device=self.table.weight.device)  # [Q, K]
        buckets = t5_relative_bucket(relative, self.bidirectional, self.num_buckets, self.max_distance)
        return self.table(buckets).permute(2, 0, 1)  # [Q, K, H] -> [H, Q, K]


def relative_offsets(max_offset: int, past_only: bool = False) -> torch.Tensor:
    """Every relative position r = j − i from −max_offset to +max_offset (to 0 when ``past_only``), in order.

    A sequence of L tokens holds the offsets −(L − 1) … L − 1, so ``relative_offsets(L − 1)`` lists them all once:
    one value per diagonal of the [L, L] matrices above. Returns: [2·max_offset + 1] (or [max_offset + 1]) long.
    """
    max_offset = _checks.non_negative_int("max_offset", max_offset)
    return torch.arange(-max_offset, 1 if past_only else max_offset + 1)


def shaw_clip_index(relative: torch.Tensor, max_relative_position: int) -> torch.Tensor:
    """Shaw et al.'s table row for any offsets r = j − i: clip(r, −k, k) + k (``shaw_relative_index`` on a sequence).

    Shapes: relative [...] (integer key − query offsets) -> [...] long in 0 … 2k. Source: arXiv 1803.02155 §3.2.
    """
    k = _checks.non_negative_int("max_relative_position", max_relative_position)
    relative = torch.as_tensor(relative)
    if relative.is_floating_point():
        raise ValueError("relative must hold whole numbers (an integer tensor of key − query offsets).")
    # clip(x, k) = max(−k, min(k, x)), shifted by k so that row 0 is "k or more to the left"
    return relative.long().clamp(-k, k) + k


def t5_max_exact(bidirectional: bool = True, num_buckets: int = 32) -> int:
    """How many distances n = 0, 1, …, n_exact − 1 get a bucket of their own: n_exact = B'/2.

    B' = B/2 buckets per direction when bidirectional (so n_exact = B/4), B' = B when causal (n_exact = B/2).
    Source: arXiv 1910.10683 §2.1; Hugging Face ``T5Attention._relative_position_bucket`` (``max_exact``).
    """
    num_buckets = _checks.positive_int("num_buckets", num_buckets)
    if bidirectional:
        if num_buckets < 4 or num_buckets % 2:
            raise ValueError(f"num_buckets must be an even number ≥ 4 when bidirectional; got {num_buckets}.")
        return num_buckets // 2 // 2
    if num_buckets < 2:
        raise ValueError(f"num_buckets must be ≥ 2 when causal; got {num_buckets}.")
    return num_buckets // 2


def t5_bucket_ranges(bidirectional: bool = True, num_buckets: int = 32, max_distance: int = 128) -> torch.Tensor:
    """The relative positions each T5 bucket covers: ranges[b] = (lowest r, highest r) with bucket(r) = b.

    Computed by bucketing every r = key − query in −max_distance … +max_distance with ``t5_relative_bucket``.
    The buckets of ±max_distance are open-ended (−inf / +inf): every farther offset falls in them too. A bucket
    that no offset reaches is (nan, nan): e.g. bidirectional bucket B/2 ("0 positions ahead" cannot happen), or log
    buckets skipped when max_distance is close to the exact range. Returns: [B, 2] float64.
    Source: arXiv 1910.10683 §2.1.
    """
    max_distance = _checks.positive_int("max_distance", max_distance)
    offsets = relative_offsets(max_distance)  # [R], −max_distance … max_distance
    buckets = t5_relative_bucket(offsets, bidirectional, num_buckets, max_distance)  # [R], validates the arguments
    values = offsets.to(torch.float64)
    low = torch.full((num_buckets,), math.inf, dtype=torch.float64).scatter_reduce(0, buckets, values, "amin")
    high = torch.full((num_buckets,), -math.inf, dtype=torch.float64).scatter_reduce(0, buckets, values, "amax")
    ranges = torch.stack([low, high], dim=1)  # [B, 2]; unused buckets still hold (inf, −inf)
    ranges[low > high] = math.nan
    # everything beyond ±max_distance shares the bucket of ±max_distance
    ranges[buckets[0], 0] = -math.inf
    ranges[buckets[-1], 1] = math.inf
    return ranges


def t5_illustrative_bias(
    n_heads: int, num_buckets: int = 32, max_distance: int = 128, bidirectional: bool = True, seed: int = 0
) -> T5RelativeBias:
    """A ``T5RelativeBias`` with a reproducible random (untrained) table: N(0, 1) from ``seed``.

    Only the bucket structure is T5's; a trained model learns the values. The global random state is left as it was.
    """
    seed = _checks.non_negative_int("seed", seed)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return T5RelativeBias(n_heads, num_buckets, max_distance, bidirectional)


def t5_bias_per_offset(bias: T5RelativeBias, relative: torch.Tensor) -> torch.Tensor:
    """Each head's T5 bias as a function of the offset: out[h, r] = table[bucket(r), h].

    The [H, Q, K] bias of ``T5RelativeBias`` is this row laid along the diagonals (entry (i, j) uses r = j − i).
    Shapes: relative [R] integer offsets -> [H, R]. Source: arXiv 1910.10683 §2.1.
    """
    buckets = t5_relative_bucket(relative, bias.bidirectional, bias.num_buckets, bias.max_distance)  # [R]
    return bias.table(buckets.to(bias.table.weight.device)).T  # [R, H] -> [H, R]


def alibi_power_of_two_heads(n_heads: int) -> int:
    """p = 2^⌊log2 n⌋, the largest power of two ≤ n: how many heads take the plain geometric ALiBi sequence."""
    n_heads = _checks.positive_int("n_heads", n_heads)
    return 1 << (n_heads.bit_length() - 1)


def alibi_slope_exponents(n_heads: int) -> torch.Tensor:
    """The exponents e_h of ALiBi's slopes m_h = 2^(−e_h): e_h = 8h/n for n heads, n a power of two.

    Otherwise, with p = 2^⌊log2 n⌋: e = 8h/p for h = 1 … p, then 8h/(2p) for h = 1, 3, 5, … (every other exponent
    of the 2p-head sequence) for the remaining n − p heads. Returns: [H] float64.
    Source: arXiv 2108.12409 §3; ``get_slopes`` in ofirpress/attention_with_linear_biases.
    """
    n_heads = _checks.positive_int("n_heads", n_heads)
    p = alibi_power_of_two_heads(n_heads)
    first = 8.0 * torch.arange(1, p + 1, dtype=torch.float64) / p  # 8h/p, h = 1 … p
    odd = 2.0 * torch.arange(n_heads - p, dtype=torch.float64) + 1.0  # h = 1, 3, 5, …: n − p of them
    return torch.cat([first, 8.0 * odd / (2 * p)])


def alibi_slopes(n_heads: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """ALiBi head slopes m_h = 2^(−e_h): for n a power of two, m_h = 2^(−8h/n), h = 1 … n (8 heads: 1/2 … 1/256).

    Otherwise the 2^⌊log2 n⌋ slopes of the nearest smaller power of two, then every other slope of the next power
    of two for the rest, as the reference code does (:func:`alibi_slope_exponents`). Returns: [H].
    Source: arXiv 2108.12409 §3; ``get_slopes`` in the authors' repository.
    """
    return torch.pow(2.0, -alibi_slope_exponents(n_heads)).to(dtype)


def alibi_bias_per_offset(
    relative: torch.Tensor, n_heads: int, causal: bool = True, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """ALiBi's additive logit bias for key − query offsets r = j − i: bias[h, r] = −m_h · (i − j) = m_h · r.

    ``causal=True`` (the paper's decoder): keys in the future (r > 0) get −inf, the causal mask itself.
    ``causal=False`` (the symmetric form used by bidirectional encoders): −m_h · |r| for every r.
    Shapes: relative [...] integer offsets -> [H, ...]. Source: arXiv 2108.12409 §3, Figure 3.
    """
    relative = torch.as_tensor(relative)
    if relative.is_floating_point():
        raise ValueError("relative must hold whole numbers (an integer tensor of key − query offsets).")
    distance = relative.to(torch.float64)  # r = j − i, [...]
    slopes = alibi_slopes(n_heads, dtype=torch.float64).view(-1, *[1] * distance.dim())  # m_h, [H, 1, …]
    if causal:
        return (slopes * distance).masked_fill(distance > 0, -math.inf).to(dtype)  # m_h · r, future masked, [H, ...]
    return (-slopes * distance.abs()).to(dtype)  # −m_h · |r|, [H, ...]


def alibi_bias(length: int, n_heads: int, causal: bool = True, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """ALiBi's bias for a sequence of L tokens: bias[h, i, j] = −m_h · (i − j), :func:`alibi_bias_per_offset` at
    r[i, j] = j − i. Returns: [H, L, L]. Source: arXiv 2108.12409 §3, Figure 3.
    """
    return alibi_bias_per_offset(relative_positions(length), n_heads, causal, dtype)
