"""RoPE as real models use it: the Llama weight conversion, partial rotary, unrotated values, the sign of the angle.

Shape letters: L = sequence length, D = head dimension (even), P = D/2 pairs, H = heads, C = model width (the input
of a projection), R_rot = rotated features (even, ≤ D), "..." = any leading dims.

- Meta's Llama code (``precompute_freqs_cis``, ``apply_rotary_emb``) rotates *interleaved* pairs (x_2i, x_2i+1) as
  complex numbers. Hugging Face's Llama port rotates *half* pairs (x_i, x_{i+D/2}) with ``rotate_half``, and
  ``convert_llama_weights_to_hf.py`` reorders the rows of W_q and W_k once, per head, so that the same checkpoint
  gives the same scores: :func:`hf_llama_permute`.
- Partial rotary (GPT-NeoX ``rotary_pct``, GPT-J ``rotary_dim``, Phi ``partial_rotary_factor``): only the first
  R_rot features of each head are rotated, with frequencies θ_i = base^(−2i/R_rot); the rest carry content only.
- Values are never rotated: RoPE changes q and k, so position reaches the output only through the weights.
- The sign of the angle: implementations rotate by +m·θ or −m·θ. Scores depend on the choice only through a fixed
  reflection of each pair, which the projections can absorb; rotating q and k with opposite signs breaks RoPE.

Sources: Su et al., "RoFormer", arXiv 2104.09864 §3.2; meta-llama/llama ``model.py``; Hugging Face transformers
``convert_llama_weights_to_hf.py`` (``permute``), ``modeling_llama.py`` (``rotate_half``), ``modeling_gpt_neox.py``
(``rotary_pct``), ``modeling_gptj.py`` (``rotary_dim``), ``modeling_phi.py`` (``partial_rotary_factor``).
"""

from __future__ import annotations

import torch

from posenc import _checks
from posenc.attention import attention_weights
from posenc.rope import ROPE_LAYOUTS, apply_rope, rope_inv_freq

ROPE_SIGNS = (1, -1)


def hf_llama_permute(weight: torch.Tensor, n_heads: int) -> torch.Tensor:
    """Hugging Face's reordering of Meta's W_q / W_k rows: within each head, row 2i + c moves to row c·P + i.

    ``w.view(n_heads, dim1 // n_heads // 2, 2, dim2).transpose(1, 2).reshape(dim1, dim2)``, as in
    ``convert_llama_weights_to_hf.py``. Then (W' x) in the half layout is (W x) in the interleaved layout with its
    features reordered, so ``apply_rope(W' x, layout="half")`` = ``apply_rope(W x, layout="interleaved")`` reordered
    the same way, and every score q·k is unchanged.
    Shapes: weight [H·D, C] (an ``nn.Linear`` weight: output rows, input columns) -> [H·D, C].
    """
    n_heads = _checks.positive_int("n_heads", n_heads)
    if weight.dim() != 2 or weight.shape[0] % (2 * n_heads):
        raise ValueError(
            f"weight must be [n_heads · head_dim, width] with an even head_dim; got {tuple(weight.shape)} for "
            f"{n_heads} heads."
        )
    rows, width = weight.shape
    # [H·D, C] -> [H, P, 2, C] (pair i, component c) -> [H, 2, P, C] (component c, pair i) -> [H·D, C]
    return weight.view(n_heads, rows // n_heads // 2, 2, width).transpose(1, 2).reshape(rows, width)


def partial_rotary_dim(dim: int, fraction: float) -> int:
    """The rotated features of a head of ``dim`` features when a ``fraction`` of them is rotated: int(D · fraction),
    rounded down to an even number (features rotate in pairs), at least 2. GPT-NeoX writes int(D · rotary_pct);
    25 %, 40 % and 100 % of the heads of GPT-NeoX, Phi-2 and Llama are already even."""
    dim = _checks.even_dim("dim", dim)
    return max(2, int(dim * fraction) // 2 * 2)


def apply_partial_rope(
    x: torch.Tensor,
    rotary_dim: int,
    positions: torch.Tensor | None = None,
    base: float = 10000.0,
    layout: str = "half",
) -> torch.Tensor:
    """Rotate the first ``rotary_dim`` features of each head and pass the others through unchanged.

    x_rot = apply_rope(x[..., :R_rot], θ_i = base^(−2i/R_rot)), x_pass = x[..., R_rot:]; result = [x_rot, x_pass].
    The frequencies are those of an R_rot-dimensional RoPE, as GPT-NeoX, GPT-J and Phi compute them.
    Shapes: x [..., L, D], positions [L] -> [..., L, D]. Source: HF ``modeling_gpt_neox.py`` (``rotary_ndims``).
    """
    dim = x.shape[-1]
    rotary_dim = _checks.even_dim("rotary_dim", rotary_dim)
    if rotary_dim > dim:
        raise ValueError(f"rotary_dim ({rotary_dim}) must not exceed the head dimension ({dim}).")
    rotated = apply_rope(x[..., :rotary_dim], positions, base, layout)  # [..., L, R_rot]
    return torch.cat((rotated, x[..., rotary_dim:]), dim=-1)  # [..., L, D]


def partial_rope_score_parts(
    q: torch.Tensor, k: torch.Tensor, rotary_dim: int, distances: torch.Tensor, base: float = 10000.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """The score of partially rotated q, k at each distance r, split into its two parts:
    s(r) = ⟨R_r q_rot, k_rot⟩ (changes with r) + ⟨q_pass, k_pass⟩ (the same at every r).

    Shapes: q, k [D], distances [R] -> (rotated [R], passed [R]) float64. Source: :func:`apply_partial_rope`.
    """
    q, k = torch.as_tensor(q, dtype=torch.float64), torch.as_tensor(k, dtype=torch.float64)
    if q.dim() != 1 or q.shape != k.shape:
        raise ValueError(f"q and k must be vectors of one shape [D]; got {tuple(q.shape)} and {tuple(k.shape)}.")
    distances = torch.as_tensor(distances)
    count = distances.shape[0]
    rotated_q = apply_partial_rope(q.expand(count, -1), rotary_dim, distances, base)  # q at position r, [R, D]
    rotated_k = apply_partial_rope(k.expand(count, -1), rotary_dim, torch.zeros_like(distances), base)  # at 0
    products = rotated_q * rotated_k  # [R, D]
    return products[:, :rotary_dim].sum(-1), products[:, rotary_dim:].sum(-1)


def rope_attention_output(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, positions: torch.Tensor, base: float = 10000.0
) -> tuple[torch.Tensor, torch.Tensor]:
    """One RoPE attention: α = softmax(⟨R_m q_m, R_n k_n⟩ / √D), o_m = Σ_n α_mn v_n — the values are not rotated.

    The output still depends on where each token stands, because the weights α do.
    Shapes: q, k [L, D], v [L, D_v], positions [L] -> (weights [L, L], outputs [L, D_v]) float64.
    Source: arXiv 2104.09864 §3.4.2 (eq. 19: only q and k are rotated).
    """
    q, k, v = (torch.as_tensor(t, dtype=torch.float64) for t in (q, k, v))
    if q.dim() != 2 or q.shape != k.shape or v.shape[0] != q.shape[0]:
        raise ValueError(
            f"q and k must be [L, D] and v [L, D_v]; got {tuple(q.shape)}, {tuple(k.shape)}, {tuple(v.shape)}."
        )
    scores = apply_rope(q, positions, base) @ apply_rope(k, positions, base).T / q.shape[-1] ** 0.5  # [L, L]
    weights = attention_weights(scores)
    return weights, weights @ v  # [L, L] x [L, D_v] -> [L, D_v]


def rope_reflect_pairs(x: torch.Tensor, layout: str = "half") -> torch.Tensor:
    """Reflect every pair (a, b) -> (a, −b), i.e. conjugate x̃_i = a + i·b: negate the second feature of each pair.

    A fixed linear map, so a model gets it for free by negating the matching rows of W_q and W_k.
    Shapes: [..., D] -> [..., D].
    """
    layout = _checks.choice("layout", layout, ROPE_LAYOUTS)
    dim = _checks.even_dim("the last dimension of x", x.shape[-1])
    sign = torch.ones(dim, dtype=x.dtype, device=x.device)
    if layout == "half":
        sign[dim // 2 :] = -1  # b_i = x_{i+P}
    else:
        sign[1::2] = -1  # b_i = x_{2i+1}
    return x * sign


def rope_signed_scores(
    q: torch.Tensor,
    k: torch.Tensor,
    q_positions: torch.Tensor,
    k_positions: torch.Tensor,
    q_sign: int = 1,
    k_sign: int = 1,
    base: float = 10000.0,
    layout: str = "half",
) -> torch.Tensor:
    """s_t = ⟨R(σ_q·m_t) q, R(σ_k·n_t) k⟩ = Re Σ_i q̃_i conj(k̃_i) e^{i(σ_q m_t − σ_k n_t) θ_i}, σ = ±1.

    σ_q = σ_k = +1 is RoFormer's convention; σ_q = σ_k = −1 (rotating the other way, or conjugating) gives the +1
    score at distance −(m − n), and equals the +1 score of the reflected vectors (:func:`rope_reflect_pairs`).
    σ_q = −σ_k (one side rotated each way) gives a score of m + n: no longer relative.
    Shapes: q, k [D], q_positions [T], k_positions [T] -> [T] float64. Source: arXiv 2104.09864 §3.2.
    """
    q, k, q_positions, k_positions, q_sign, k_sign = signed_inputs(q, k, q_positions, k_positions, q_sign, k_sign)
    inv_freq = rope_inv_freq(q.shape[0], base, dtype=torch.float64)  # θ_i, [P]
    count = q_positions.shape[0]
    # rotating by σ·m·θ_i = rotating by m·(σθ_i): the frequencies carry the sign
    rotated_q = apply_rope(q.expand(count, -1), q_positions, layout=layout, inv_freq=q_sign * inv_freq)  # [T, D]
    rotated_k = apply_rope(k.expand(count, -1), k_positions, layout=layout, inv_freq=k_sign * inv_freq)  # [T, D]
    return (rotated_q * rotated_k).sum(dim=-1)  # [T]


def signed_inputs(q, k, q_positions, k_positions, q_sign, k_sign) -> tuple:
    """The arguments of :func:`rope_signed_scores`, checked: q, k as float64 vectors of one shape [D], the positions
    as two 1-D tensors of one length [T], each sign +1 or −1."""
    q_sign, k_sign = _sign("q_sign", q_sign), _sign("k_sign", k_sign)
    q, k = torch.as_tensor(q, dtype=torch.float64), torch.as_tensor(k, dtype=torch.float64)
    if q.dim() != 1 or q.shape != k.shape:
        raise ValueError(f"q and k must be vectors of one shape [D]; got {tuple(q.shape)} and {tuple(k.shape)}.")
    q_positions, k_positions = torch.as_tensor(q_positions), torch.as_tensor(k_positions)
    if q_positions.dim() != 1 or q_positions.shape != k_positions.shape:
        raise ValueError("q_positions and k_positions must be 1-D and of the same length.")
    return q, k, q_positions, k_positions, q_sign, k_sign


def _sign(name: str, value: object) -> int:
    if value not in ROPE_SIGNS or isinstance(value, bool):
        raise ValueError(f"{name} must be +1 or −1 (the direction of the rotation); got {value!r}.")
    return int(value)
