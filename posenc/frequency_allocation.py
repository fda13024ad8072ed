"""How a head's features are given rotation frequencies: full RoPE, NeoX-style partial rotary, proportional RoPE
(Gemma 4) and MLA's decoupled RoPE dimensions (DeepSeek-V2/V3), and how each pair's wavelength compares with a
context of L tokens.

Shape letters: H = features per head (the query–key dot product), P = H/2 feature pairs. Every allocation returns
one frequency per pair of the head, [P]: a pair that is not rotated gets θ = 0 (it carries no position; its
contribution to q·k is the same at every distance).

- full RoPE: θ_i = base^(−2i/H), i < H/2 (RoFormer, arXiv 2104.09864 §3.2.2);
- NeoX-style partial rotary: the first D = int(H·p) features rotate at θ_i = base^(−2i/D), i < D/2, the other
  H − D features not at all: the whole range of frequencies, 1 … base^(−(D−2)/D), squeezed into fewer pairs
  (GPT-NeoX's ``rotary_pct``, arXiv 2204.06745 §2.1.1; Phi's ``partial_rotary_factor``);
- proportional RoPE: the first int(p·H/2) pairs rotate at θ_i = base^(−2i/H), computed over the whole head, the
  others not at all: full RoPE with its slowest pairs set to 0, the "p-RoPE" of Barbero et al., "Round and Round
  We Go! What makes Rotary Positional Encodings useful?", ICLR 2025, arXiv 2410.06205 (transformers'
  ``rope_type: "proportional"``, ``_compute_proportional_rope_parameters``, used by Gemma 4's global layers);
- MLA's decoupled RoPE (DeepSeek-V2, arXiv 2405.04434 §2.1.3): each head's query and key have
  ``qk_nope_head_dim`` features without position and ``qk_rope_head_dim`` rotated ones, θ_i = base^(−2i/d_R),
  i < d_R/2; the rotated key is one vector per token shared by all heads, cached beside the compressed latent c^KV
  from which keys and values are rebuilt (a position-dependent rotation between W^Q and W^UK would keep W^UK from
  being absorbed into W^Q, the absorption that lets MLA attend to its compressed cache directly). In transformers'
  DeepSeek-V3 code the rotated features come last in the head.

Barbero et al. find that Gemma 7B builds its positional attention patterns on the fastest pairs and uses the slowest
pairs, which barely turn over the context, as semantic channels, and that these are not robust over very long
contexts (they do turn, eventually); p-RoPE sets them to frequency 0, which keeps them position-free at any length
(it improved Gemma 2B's perplexity in their experiments). The line this module draws between "barely turns" and
"turns" is its own and exact: pair i adds |q_i||k_i|·cos(α_i + (m − n)θ_i) to q·k, α_i the angle between the
query's and the key's pair, and while (m − n)θ_i < π/2 the rotation's factor cos((m − n)θ_i) stays positive, so a
key whose pair points like the query's (α_i = 0) adds a positive term at every distance in the context.
"""

from __future__ import annotations

import math

import torch

from posenc import _checks
from posenc.rope import rope_inv_freq

ALLOCATIONS = ("full", "partial", "proportional", "mla")
PAIR_KINDS = ("turns", "arc", "meaning", "unrotated")  # see pair_kinds


def allocation_inv_freq(
    kind: str, head_dim: int, base: float, share: float = 1.0, dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """The frequency of every pair of a head of ``head_dim`` features under one allocation (``kind`` in
    :data:`ALLOCATIONS`); ``share`` p is the rotated share of the head (for "mla": d_R / H, the ``qk_rope_head_dim``
    of ``qk_nope_head_dim + qk_rope_head_dim``).

    full: θ_i = base^(−2i/H). partial and mla: θ_i = base^(−2i/D) for i < D/2, D = int(H·p), then 0.
    proportional: θ_i = base^(−2i/H) for i < int(p·H/2) (transformers' rounding: int(p·H // 2)), then 0.
    Returns: [H/2], rotated pairs first.
    """
    head_dim = _checks.even_dim("head_dim", head_dim)
    if kind not in ALLOCATIONS:
        raise ValueError(f"kind must be one of {', '.join(ALLOCATIONS)}; got {kind!r}.")
    if not 0 < share <= 1:
        raise ValueError(f"share must be more than 0 and at most 1 (the rotated share of the head); got {share:g}.")
    pairs = head_dim // 2
    if kind == "full":
        return rope_inv_freq(head_dim, base, dtype=dtype)
    if kind == "proportional":
        rotated = int(share * head_dim // 2)  # transformers: int(rope_proportion * head_dim // 2)
        freq = rope_inv_freq(head_dim, base, dtype=torch.float64)[:rotated]  # base^(−2i/H): the whole head's range
    else:  # partial (NeoX, Phi) and mla (DeepSeek): the rotated features get a RoPE of their own
        # partial: transformers' int(); mla: DeepSeek names its rotated features (d_R/H · H may fall just short)
        rotary = round(head_dim * share) if kind == "mla" else int(head_dim * share)
        if rotary < 2 or rotary % 2:
            raise ValueError(f"int(head_dim · share) must be even and at least 2; got {rotary}.")
        freq = rope_inv_freq(rotary, base, dtype=torch.float64)  # base^(−2i/D)
    unrotated = torch.zeros(pairs - freq.numel(), dtype=torch.float64)
    return torch.cat([freq, unrotated]).to(dtype)


def proportional_inv_freq(
    head_dim: int, base: float, share: float, factor: float = 1.0, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """Proportional RoPE as transformers computes it: θ_i = base^(−2i/H) / factor for i < int(p·H // 2), 0 for the
    rest of the H/2 pairs. Returns: [H/2]. Source: transformers ``_compute_proportional_rope_parameters``."""
    return (allocation_inv_freq("proportional", head_dim, base, share) / factor).to(dtype)


def pair_kinds(inv_freq: torch.Tensor, length: int) -> list[str]:
    """What each pair does over a context of ``length`` tokens, from its largest angle φ = (L − 1)·θ_i:

    "turns" (φ ≥ 2π: at least one full turn, every angle seen), "arc" (π/2 ≤ φ < 2π: part of a turn),
    "meaning" (0 < φ < π/2: cos φ > 0, so a key whose pair points like the query's adds a positive term at
    every distance within the context, a semantic channel in Barbero et al.'s sense), "unrotated" (θ = 0: no
    position at any length).
    Shapes: inv_freq [P] -> P strings of :data:`PAIR_KINDS`.
    """
    length = _checks.positive_int("length", length)
    angles = (length - 1) * torch.as_tensor(inv_freq, dtype=torch.float64)  # φ_i = (L − 1)·θ_i, [P]
    kinds = []
    for angle in angles.tolist():
        if angle == 0:
            kinds.append("unrotated")
        elif angle < math.pi / 2:
            kinds.append("meaning")
        elif angle < 2 * math.pi:
            kinds.append("arc")
        else:
            kinds.append("turns")
    return kinds


def allocation_counts(inv_freq: torch.Tensor, length: int) -> dict[str, int]:
    """How many pairs of each kind (:func:`pair_kinds`) a head has over ``length`` tokens: {kind: count}."""
    kinds = pair_kinds(inv_freq, length)
    return {kind: kinds.count(kind) for kind in PAIR_KINDS}
