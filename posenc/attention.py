"""Attention logits with every kind of positional information, in one function.

Shape letters: "..." = batch dims, H = heads, Q = query length, K = key length, D = per-head dimension.

Where position enters:
- ``"none"``: nowhere — scores q·kᵀ/√D see only content, so attention is permutation-equivariant.
- ``"sinusoidal"``, ``"learned"``: in the input, before the projections (x + PE); the scores are then plain q·kᵀ/√D.
- ``"shaw"``: a learned vector per clipped offset added to the keys: q_i·(k_j + a^K_ij)/√D (arXiv 1803.02155 eq. 4).
- ``"t5"``: a learned scalar per (head, bucket) added to the logits (arXiv 1910.10683 §2.1).
- ``"alibi"``: a fixed −m_h·distance added to the logits (arXiv 2108.12409 §3).
- ``"rope"``: q and k rotated by their positions before the dot product (arXiv 2104.09864 §3.4.2).
"""

from __future__ import annotations

import math

import torch

from posenc import _checks
from posenc.relative import alibi_bias_per_offset, relative_positions
from posenc.rope import apply_rope

ATTENTION_METHODS = ("none", "sinusoidal", "learned", "shaw", "t5", "alibi", "rope")


def attention_scores(
    q: torch.Tensor,
    k: torch.Tensor,
    method: str = "none",
    *,
    scale: float | None = None,
    causal: bool = False,
    position_bias: torch.Tensor | None = None,
    relative_keys: torch.Tensor | None = None,
    q_positions: torch.Tensor | None = None,
    k_positions: torch.Tensor | None = None,
    rope_base: float = 10000.0,
    rope_layout: str = "half",
    rope_inv_freq: torch.Tensor | None = None,
) -> torch.Tensor:
    """Pre-softmax attention logits: e_ij = scale · q_i·k_j + (the method's positional term).

    ``scale`` defaults to 1/√D (the T5 reference uses 1: pass ``scale=1.0`` to match it exactly).
    ``causal=True`` sets logits of keys after their query to −inf.
    Method-specific inputs: ``position_bias`` [H, Q, K] for ``"t5"`` (from :class:`posenc.T5RelativeBias`);
    ``relative_keys`` [Q, K, D] for ``"shaw"`` (a^K from :class:`posenc.ShawRelativeEmbeddings`);
    ``q_positions`` [Q] / ``k_positions`` [K] (default 0 … Q−1 / 0 … K−1) for ``"rope"`` and ``"alibi"``.

    Shapes: q [..., H, Q, D], k [..., H, K, D] -> [..., H, Q, K]. Sources: module docstring.
    """
    method = _checks.choice("method", method, ATTENTION_METHODS)
    heads, q_len, k_len, dim = _checks.qk_shapes(q, k)
    scale = 1.0 / math.sqrt(dim) if scale is None else _checks.finite_float("scale", scale)

    if method == "rope":
        q = apply_rope(q, q_positions, rope_base, rope_layout, rope_inv_freq)
        k = apply_rope(k, k_positions, rope_base, rope_layout, rope_inv_freq)
    scores = torch.matmul(q, k.transpose(-1, -2)) * scale  # [..., H, Q, D] x [..., H, D, K] -> [..., H, Q, K]

    if method == "shaw":
        if relative_keys is None or relative_keys.shape != (q_len, k_len, dim):
            raise ValueError(
                f"method 'shaw' needs relative_keys of shape [{q_len}, {k_len}, {dim}] (a^K from "
                f"ShawRelativeEmbeddings); got {None if relative_keys is None else tuple(relative_keys.shape)}."
            )
        # q_i · a^K_ij for every (i, j): [..., H, Q, D] with [Q, K, D] -> [..., H, Q, K]
        scores = scores + torch.einsum("...qd,qkd->...qk", q, relative_keys.to(q.dtype)) * scale
    elif method == "t5":
        if position_bias is None or position_bias.shape[-3:] != (heads, q_len, k_len):
            raise ValueError(
                f"method 't5' needs position_bias of shape [{heads}, {q_len}, {k_len}] (from T5RelativeBias); "
                f"got {None if position_bias is None else tuple(position_bias.shape)}."
            )
        scores = scores + position_bias.to(scores.dtype)
    elif method == "alibi":
        scores = scores + _alibi_for(heads, q_len, k_len, causal, q_positions, k_positions).to(scores.dtype)

    if causal:
        scores = scores.masked_fill(causal_mask(q_len, k_len, device=scores.device), -math.inf)
    return scores


def attention_weights(scores: torch.Tensor, causal: bool = False) -> torch.Tensor:
    """Softmax over keys: α_ij = exp(e_ij) / Σ_j' exp(e_ij'), keys after the query masked out if ``causal``.

    Shapes: [..., Q, K] -> [..., Q, K], each row summing to 1.
    """
    if causal:
        scores = scores.masked_fill(causal_mask(scores.shape[-2], scores.shape[-1], device=scores.device), -math.inf)
    return torch.softmax(scores.float() if scores.dtype in (torch.float16, torch.bfloat16) else scores, dim=-1).to(
        scores.dtype
    )


def causal_mask(q_len: int, k_len: int | None = None, device: torch.device | str | None = None) -> torch.Tensor:
    """True where key j lies after query i (j > i): the entries a decoder may not see. Returns: [Q, K] bool."""
    return relative_positions(q_len, k_len, device=device) > 0


def _alibi_for(
    heads: int,
    q_len: int,
    k_len: int,
    causal: bool,
    q_positions: torch.Tensor | None,
    k_positions: torch.Tensor | None,
) -> torch.Tensor:
    """ALiBi bias at possibly different query/key positions: posenc's bias at the offsets r = j − i. [H, Q, K]."""
    qp = torch.arange(q_len) if q_positions is None else torch.as_tensor(q_positions)
    kp = torch.arange(k_len) if k_positions is None else torch.as_tensor(k_positions)
    return alibi_bias_per_offset(kp[None, :] - qp[:, None], heads, causal, dtype=torch.float64)  # [Q, K] -> [H, Q, K]
