"""RoPE and the KV cache: keys are cached after rotation, each at its own position and with the frequencies of the
moment it was cached; a later query is rotated at its position with the frequencies of its own moment.

The score of the query at m against cached key n is s_n = (R_m(θ') q)·(R_n(θ) k_n). When θ' = θ and the positions
are counted the same way for the cache and the query, s_n depends on m − n only, exactly as if everything were
recomputed. Two ways to break that: position ids counted differently (a left-padded batch whose cache counted the
pads and whose new token does not: every key looks p positions closer), and dynamic NTK, whose base grows with the
length while the cache fills (transformers does not re-rotate its cache). With dynamic NTK, transformers grows the
base whenever a forward pass reaches a longer sequence than any before it, so a prompt of P tokens prefilled in one
pass is rotated with the base for length P (the original one while P ≤ L_train) and each token decoded after it with
the base of its own step, length n + 1 (:func:`dynamic_ntk_cache_lengths`). Sources: RoFormer, arXiv 2104.09864
§3.4; transformers ``dynamic_rope_update`` and ``Cache`` (keys stored after ``apply_rotary_pos_emb``).
"""

from __future__ import annotations

import torch

from posenc.rope import apply_rope, from_complex_pairs, to_complex_pairs
from posenc.rope_scaling import rope_scaled_inv_freq


def cached_scores(
    query: torch.Tensor,
    keys: torch.Tensor,
    query_position: int,
    key_positions: torch.Tensor,
    query_inv_freq: torch.Tensor,
    key_inv_freq: torch.Tensor,
) -> torch.Tensor:
    """s_n = (R_m(θ') q)·(R_n(θ) k_n): a query rotated at ``query_position`` m with θ' = ``query_inv_freq`` against
    keys rotated when they were cached, at ``key_positions`` with θ = ``key_inv_freq``: one set for every key [D/2],
    or each key's own [N, D/2] (the frequencies of the step that cached it).
    Shapes: query [D], keys [N, D], key_positions [N], inv_freqs [D/2] or [N, D/2] -> [N] (float64)."""
    q = apply_rope(query.to(torch.float64)[None], torch.tensor([query_position]), inv_freq=query_inv_freq)[0]
    if key_inv_freq.dim() == 1:
        k = apply_rope(keys.to(torch.float64), key_positions, inv_freq=key_inv_freq)
    else:  # key n's pair i turns by n·θ_i^(n), with the frequencies of its own step
        angles = torch.as_tensor(key_positions, dtype=torch.float64)[:, None] * key_inv_freq.to(torch.float64)
        turns = torch.polar(torch.ones_like(angles), angles)  # e^{i·n·θ_i^(n)}, [N, D/2]
        k = from_complex_pairs(to_complex_pairs(keys.to(torch.float64)) * turns)  # [N, D/2] complex -> [N, D]
    return k @ q


def dynamic_ntk_cache_lengths(key_positions: torch.Tensor, prompt_length: int) -> torch.Tensor:
    """The sequence length transformers' dynamic NTK had grown its base for when it rotated key n: the prompt's P
    tokens are prefilled in one forward pass (its largest position P − 1, so length P), each later token is decoded
    in a pass of its own (length n + 1); the base only grows. L_n = max(n + 1, P).
    Shapes: key_positions [N] -> [N] int64. Source: transformers ``dynamic_rope_update`` (seq_len = max(position_ids)
    + 1; new frequencies when seq_len exceeds the longest so far)."""
    return torch.clamp(torch.as_tensor(key_positions, dtype=torch.int64) + 1, min=prompt_length)


def dynamic_ntk_cache_inv_freq(
    dim: int, base: float, factor: float, training_length: int, prompt_length: int, key_positions: torch.Tensor
) -> torch.Tensor:
    """Each cached key's frequencies under dynamic NTK, as transformers fills the cache (prefill of ``prompt_length``
    tokens, then one token per step): θ^(n) = the dynamic-NTK frequencies for length L_n
    (:func:`dynamic_ntk_cache_lengths`; the original θ while L_n ≤ L_train).
    Shapes: key_positions [N] -> [N, D/2] float64."""
    lengths = dynamic_ntk_cache_lengths(key_positions, prompt_length)
    by_length = {}  # one set of frequencies per length: the prompt's keys share one
    for length in lengths.unique().tolist():
        by_length[length], _ = rope_scaled_inv_freq(dim, base, "dynamic", factor, training_length, seq_len=length,
                                                    dtype=torch.float64)  # fmt: skip
    return torch.stack([by_length[length] for length in lengths.tolist()])
