"""RoPE and the KV cache: keys are cached after rotation, each at its own position and with the frequencies of the
moment it was cached; a later query is rotated at its position with the frequencies of its own moment.

The score of the query at m against cached key n is s_n = (R_m(θ') q)·(R_n(θ) k_n). When θ' = θ and the positions
are counted the same way for the cache and the query, s_n depends on m − n only, exactly as if everything were
recomputed. Two ways to break that: position ids counted differently (a left-padded batch whose cache counted the
pads and whose new token does not: every key looks p positions further away), and dynamic NTK, whose base grows
with the length after the keys were cached (transformers does not re-rotate its cache). Sources: RoFormer,
arXiv 2104.09864 §3.4; transformers ``dynamic_rope_update`` and ``Cache`` (keys stored after ``apply_rotary_pos_emb``).
"""

from __future__ import annotations

import torch

from posenc.rope import apply_rope


def cached_scores(
    query: torch.Tensor,
    keys: torch.Tensor,
    query_position: int,
    key_positions: torch.Tensor,
    query_inv_freq: torch.Tensor,
    key_inv_freq: torch.Tensor,
) -> torch.Tensor:
    """s_n = (R_m(θ') q)·(R_n(θ) k_n): a query rotated at ``query_position`` m with θ' = ``query_inv_freq`` against
    keys rotated when they were cached, at ``key_positions`` with θ = ``key_inv_freq``.
    Shapes: query [D], keys [N, D], key_positions [N], inv_freqs [D/2] -> [N] (float64)."""
    q = apply_rope(query.to(torch.float64)[None], torch.tensor([query_position]), inv_freq=query_inv_freq)[0]
    k = apply_rope(keys.to(torch.float64), key_positions, inv_freq=key_inv_freq)
    return k @ q
