"""Transformer-XL's relative attention: the score split into four terms, with a sinusoid of the distance i − j.

Shape letters: "..." = batch dims, H = heads, Q = query length, K = key length, D = per-head dimension,
D_R = dimension of the relative encoding R, N = number of distinct distances, L = sequence length.

Paper (Dai et al. 2019, arXiv 1901.02860 §3.3, the equation for A^rel): for query i and key j,

    A^rel_ij = q_i·k_j  +  q_i·W_{k,R} R_{i−j}  +  u·k_j  +  v·W_{k,R} R_{i−j}
                 (a)            (b)                 (c)          (d)

with q_i = W_q E_{x_i}, k_j = W_{k,E} E_{x_j}. (a) content–content, (b) content–position, (c) a global content bias
(one learned vector u per head, the same for every query), (d) a global position bias (one learned v per head).
Compare adding PE to the input, (E_{x_i} + U_i)ᵀ W_qᵀ W_k (E_{x_j} + U_j), which also splits into four terms but
uses the absolute U_j in (b) and (d) and the query's own U_i in (c) and (d) (:func:`absolute_input_terms`).

The distance is i − j (query minus key: positive = the key lies in the past), as in the paper's R_{i−j}.
R follows the reference ``PositionalEmbedding`` of kimiyoung/transformer-xl (``pytorch/mem_transformer.py``):
R_r = [sin(r·ω_0) … sin(r·ω_{D_R/2−1}) ‖ cos(r·ω_0) … cos(r·ω_{D_R/2−1})], the *concat* layout (all sines, then
all cosines), ω_i = base^(−2i/D_R) as in :func:`posenc.absolute.sinusoid_inv_freq`. The reference scales the summed
logits by 1/√D; here each term is scaled, so the four returned terms add up exactly to the returned total.
XLNet (Yang et al. 2019, arXiv 1906.08237 §2.4) uses the same score; its bidirectional attention also needs
negative distances, which the formula covers (sin(−x) = −sin x).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from posenc import _checks
from posenc._random import BLOCK_DIM, BLOCK_ROWS, leading_blocks, leading_views, padded
from posenc.absolute import sinusoid_inv_freq, sinusoidal

XL_TERM_LABELS = (
    "(a) content–content",
    "(b) content–position",
    "(c) global content bias u",
    "(d) global position bias v",
)
ABSOLUTE_TERM_LABELS = (
    "(a) content–content",
    "(b) content → key position U_j",
    "(c) query position U_i → content",
    "(d) position–position",
)


@dataclass(frozen=True)
class ScoreTerms:
    """Four terms (a)–(d) of an attention logit and their sum ``total``, each [..., H, Q, K]."""

    a: torch.Tensor
    b: torch.Tensor
    c: torch.Tensor
    d: torch.Tensor
    total: torch.Tensor

    def terms(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
        """(a, b, c, d) in order."""
        return self.a, self.b, self.c, self.d


def xl_relative_encoding(
    distances: torch.Tensor, dim: int, base: float = 10000.0, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """R_r = [sin(r·ω) ‖ cos(r·ω)], ω_i = base^(−2i/D_R): the reference ``PositionalEmbedding`` (concat layout).

    For r = 0, 1, 2, … this is ``posenc.sinusoidal(…, layout="concat")``; negative r are allowed.
    Shapes: distances [N] (whole numbers i − j) -> [N, D_R]. Source: arXiv 1901.02860 §3.3; kimiyoung/transformer-xl.
    """
    distances = torch.as_tensor(distances)
    if distances.is_floating_point():
        raise ValueError("distances must hold whole numbers (an integer tensor of query − key offsets i − j).")
    if distances.dim() != 1:
        raise ValueError(f"distances must be a 1-D tensor of offsets; got shape {tuple(distances.shape)}.")
    inv_freq = sinusoid_inv_freq(dim, base)  # ω_i, [D_R/2] float64
    # r·ω_i for every distance and frequency: [N] ⊗ [D_R/2] -> [N, D_R/2]
    angles = torch.outer(distances.to(torch.float64), inv_freq)
    # concat layout: all sines, then all cosines
    return torch.cat((torch.sin(angles), torch.cos(angles)), dim=-1).to(dtype)


def _positions(name: str, positions: torch.Tensor | None, length: int) -> torch.Tensor:
    if positions is None:
        return torch.arange(length)
    positions = torch.as_tensor(positions)
    if positions.is_floating_point() or positions.shape != (length,):
        raise ValueError(f"{name} must be an integer tensor of shape [{length}]; got {tuple(positions.shape)}.")
    return positions.long()


def transformer_xl_scores(
    q: torch.Tensor,
    k: torch.Tensor,
    w_kr: torch.Tensor,
    u: torch.Tensor,
    v: torch.Tensor,
    *,
    base: float = 10000.0,
    scale: float | None = None,
    q_positions: torch.Tensor | None = None,
    k_positions: torch.Tensor | None = None,
) -> ScoreTerms:
    """A^rel_ij = s·(q_i·k_j + q_i·W_{k,R}R_{i−j} + u·k_j + v·W_{k,R}R_{i−j}), each term returned, s = 1/√D.

    ``q`` = W_q E_x (queries), ``k`` = W_{k,E} E_x (content keys), ``w_kr`` = W_{k,R} (maps R to a key per head),
    ``u``, ``v`` the per-head global biases. Positions default to 0 … Q−1 and 0 … K−1 (with Transformer-XL's memory of
    M cached tokens, pass q_positions = M … M+Q−1). Causal masking is left to the caller.
    Shapes: q [..., H, Q, D], k [..., H, K, D], w_kr [H, D, D_R] (D_R even), u, v [H, D] -> terms [..., H, Q, K].
    Source: arXiv 1901.02860 §3.3.
    """
    heads, q_len, k_len, dim = _checks.qk_shapes(q, k)
    if w_kr.dim() != 3 or w_kr.shape[:2] != (heads, dim):
        raise ValueError(f"w_kr (W_k,R) must have shape [{heads}, {dim}, D_R]; got {tuple(w_kr.shape)}.")
    rel_dim = _checks.even_dim("the relative encoding's dimension (last dim of w_kr)", w_kr.shape[-1])
    for name, bias in (("u", u), ("v", v)):
        if bias.shape != (heads, dim):
            raise ValueError(f"{name} must have shape [{heads}, {dim}] (one vector per head); got {tuple(bias.shape)}.")
    scale = 1.0 / math.sqrt(dim) if scale is None else _checks.finite_float("scale", scale)
    dtype = q.dtype

    qp, kp = _positions("q_positions", q_positions, q_len), _positions("k_positions", k_positions, k_len)
    distance = qp[:, None] - kp[None, :]  # i − j, [Q, K]
    low = int(distance.min())
    offsets = torch.arange(low, int(distance.max()) + 1)  # every distance that occurs, once: [N]
    index = distance - low  # which row of the per-distance tables entry (i, j) uses, [Q, K]
    # W_{k,R} R_r for every distance: [H, D, D_R] x [N, D_R] -> [H, N, D]
    rel_keys = torch.einsum("hdr,nr->hnd", w_kr.to(dtype), xl_relative_encoding(offsets, rel_dim, base, dtype))

    # (a) q_i · k_j: [..., H, Q, D] x [..., H, D, K] -> [..., H, Q, K]
    a = torch.matmul(q, k.transpose(-1, -2)) * scale
    # (b) q_i · W_{k,R} R_{i−j}: all distances first, [..., H, Q, D] x [H, D, N] -> [..., H, Q, N], then pick i − j
    by_distance = torch.matmul(q, rel_keys.transpose(-1, -2))
    b = torch.gather(by_distance, -1, index.expand(*by_distance.shape[:-1], k_len)) * scale
    # (c) u · k_j: the same for every query i, [H, D] with [..., H, K, D] -> [..., H, 1, K]
    c = torch.einsum("hd,...hkd->...hk", u.to(dtype), k)[..., None, :].expand_as(a) * scale
    # (d) v · W_{k,R} R_{i−j}: one number per (head, distance), [H, N] -> laid along the diagonals [H, Q, K]
    per_distance = torch.einsum("hd,hnd->hn", v.to(dtype), rel_keys)
    d = per_distance[:, index].expand_as(a) * scale
    # A^rel = (a) + (b) + (c) + (d)
    return ScoreTerms(a, b, c, d, a + b + c + d)


def absolute_input_terms(
    x: torch.Tensor, pe: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor, scale: float | None = None
) -> ScoreTerms:
    """The vanilla score with PE added to the input, expanded: s·(W_q(x_i + U_i))·(W_k(x_j + U_j)) = (a)+(b)+(c)+(d).

    (a) W_q x_i · W_k x_j, (b) W_q x_i · W_k U_j, (c) W_q U_i · W_k x_j, (d) W_q U_i · W_k U_j; s = 1/√D.
    Shapes: x (token embeddings) and pe (U) [L, d_model], w_q and w_k [H, D, d_model] -> terms [H, L, L].
    Source: arXiv 1901.02860 §3.3 (the A^abs expansion the paper starts from).
    """
    if x.dim() != 2 or pe.shape != x.shape:
        raise ValueError(f"x and pe must both be [length, d_model]; got {tuple(x.shape)} and {tuple(pe.shape)}.")
    if w_q.dim() != 3 or w_k.shape != w_q.shape or w_q.shape[-1] != x.shape[-1]:
        raise ValueError(
            f"w_q and w_k must both be [heads, head_dim, {x.shape[-1]}]; got {tuple(w_q.shape)} and {tuple(w_k.shape)}."
        )
    scale = 1.0 / math.sqrt(w_q.shape[1]) if scale is None else _checks.finite_float("scale", scale)
    # project content and position separately: [H, D, d_model] x [L, d_model] -> [H, L, D]
    q_content, q_position = torch.einsum("hdm,lm->hld", w_q, x), torch.einsum("hdm,lm->hld", w_q, pe)
    k_content, k_position = torch.einsum("hdm,lm->hld", w_k, x), torch.einsum("hdm,lm->hld", w_k, pe)
    a = q_content @ k_content.transpose(-1, -2) * scale  # [H, L, D] x [H, D, L] -> [H, L, L]
    b = q_content @ k_position.transpose(-1, -2) * scale
    c = q_position @ k_content.transpose(-1, -2) * scale
    d = q_position @ k_position.transpose(-1, -2) * scale
    return ScoreTerms(a, b, c, d, a + b + c + d)


def diagonal_spread(matrix: torch.Tensor) -> float:
    """max over diagonals of (max − min) along it: 0 exactly when matrix[i, j] depends only on i − j.

    Shapes: matrix [Q, K] (or [..., Q, K]: the largest spread over the leading dims) -> a float.
    """
    if matrix.dim() < 2:
        raise ValueError(f"matrix must have at least 2 dims [Q, K]; got shape {tuple(matrix.shape)}.")
    q_len, k_len = matrix.shape[-2:]
    # the diagonal each entry lies on, j − i, numbered 0 … Q + K − 2 (from the bottom-left corner): [Q, K]
    diagonal = torch.arange(k_len) - torch.arange(q_len)[:, None] + (q_len - 1)
    values = matrix.reshape(-1, q_len * k_len)  # one row per leading index: [B, Q·K]
    index = diagonal.flatten().expand_as(values)
    per_diagonal = values.new_zeros(values.shape[0], q_len + k_len - 1)  # [B, Q + K − 1]
    # the largest and the smallest entry of each diagonal (each has at least one entry: the zeros are never read)
    largest = per_diagonal.scatter_reduce(-1, index, values, "amax", include_self=False)
    smallest = per_diagonal.scatter_reduce(-1, index, values, "amin", include_self=False)
    return float((largest - smallest).max())


@dataclass(frozen=True)
class XLIllustration:
    """One head of random (untrained) weights scored both ways: Transformer-XL and x + PE, each [1, L, L]."""

    tokens: torch.Tensor  # [L] token ids
    relative: ScoreTerms  # Transformer-XL's four terms
    absolute: ScoreTerms  # the four terms of (x + U) W_qᵀ W_k (x + U)


def xl_illustration(length: int, dim: int, base: float = 10000.0, seed: int = 0, vocab: int = 8) -> XLIllustration:
    """Random token embeddings, W_q, W_{k,E} (= W_k), W_{k,R}, u, v, all N(0, 1) or N(0, 1/D), seeded; one head.

    Both scores use the same tokens and the same W_q, W_k; the absolute one adds U = sinusoid (concat layout) to the
    input, Transformer-XL uses R_{i−j} (same sinusoid, of the distance) in (b) and (d). The global random state is
    left as it was. Returns ScoreTerms of shape [1, L, L] each. Source: arXiv 1901.02860 §3.3.
    """
    embeddings, w_q, w_k, w_kr, u, v, tokens = illustration_draws(length, dim, seed, vocab)
    x = embeddings[tokens]  # [L, D]
    q = torch.einsum("hdm,lm->hld", w_q, x)  # q_i = W_q E_{x_i}, [1, L, D]
    k = torch.einsum("hdm,lm->hld", w_k, x)  # k_j = W_{k,E} E_{x_j}, [1, L, D]
    relative = transformer_xl_scores(q, k, w_kr, u, v, base=base)
    pe = sinusoidal(length, dim, base, layout="concat", dtype=torch.float64)  # U, [L, D]
    return XLIllustration(tokens, relative, absolute_input_terms(x, pe, w_q, w_k))


def illustration_draws(
    length: int, dim: int, seed: int = 0, vocab: int = 8, weights_scaled: bool = True
) -> tuple[torch.Tensor, ...]:
    """The seeded draws of :func:`xl_illustration`: E [V, D], W_q, W_k, W_{k,R} [1, D, D] (N(0, 1/D)), u, v [1, D],
    then the tokens [L] (ids below V). Each is the leading block of a draw at the app's largest dim and length
    (posenc._random.leading_blocks): a larger dim adds rows and columns to the same weights, a longer length adds
    tokens (up to BLOCK_ROWS). ``weights_scaled=False``: every value N(0, 1), a read-only view of the remembered
    draw (posenc._random.leading_views), the weights' 1/√D left to the caller. The global random state is left as
    it was."""
    length = _checks.positive_int("length", length)
    dim = _checks.even_dim("dim", dim)
    seed = _checks.non_negative_int("seed", seed)
    vocab = _checks.positive_int("vocab", vocab)
    m = padded(dim, BLOCK_DIM)
    draws = ((vocab, m), *[(1, m, m)] * 3, (1, m), (1, m))
    blocks = ((vocab, dim), *[(1, dim, dim)] * 3, (1, dim), (1, dim))
    if weights_scaled:
        embeddings, w_q, w_k, w_kr, u, v = leading_blocks(seed, draws, blocks, (1.0, *[dim**-0.5] * 3, 1.0, 1.0))
    else:
        embeddings, w_q, w_k, w_kr, u, v = leading_views(seed, draws, blocks)
    tokens_from = torch.Generator().manual_seed(seed + 1)  # the tokens' own generator
    tokens = torch.randint(vocab, (padded(length, BLOCK_ROWS),), generator=tokens_from)[:length]  # [L]
    return embeddings, w_q, w_k, w_kr, u, v, tokens
