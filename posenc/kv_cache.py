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

LongRoPE (Phi-3, Phi-3.5) switches rather than grows: a forward pass whose max(position_ids) + 1 exceeds
original_max_position_embeddings L_orig turns pair i at θ_i/long_i, any other at θ_i/short_i (transformers
``longrope_frequency_update``). Key n is cached with the long factors iff max(n + 1, P) > L_orig
(:func:`longrope_cache_inv_freq`): a prompt within L_orig leaves its keys, and those of the tokens decoded up to
L_orig, on the short factors, while every query after the switch turns with the long ones. (Phi-3's ``generate()``
drops its cache when the text first passes L_orig and prefills it all again; turning the short keys to the long
factors would give the first layer's keys of that prefill, not the deeper layers'.)

Moving cached keys (a prompt or RAG chunk reused at another offset): rotations compose, R_{p+Δ}(θ) k = R_Δ(θ) R_p(θ) k,
so a key cached at p is moved to p + Δ by turning pair i by Δ·θ_i, O(N·D) work and no projection
(:func:`rerotate_keys`). That is exact only while θ is the same at both places; when the frequencies depend on the
length (dynamic NTK, LongRoPE), pair i must turn by p'·θ'_i − p·θ_i instead (:func:`move_cached_keys`), which needs
the frequencies each key was cached with. A constant attention factor (YaRN's on cos and sin) is already in the
cached key and must not be applied again: the move is a pure rotation. The keys are then those a prefill of the chunk
alone at its new place gives, not those of a prefill with the new prefix before it (deeper layers saw other tokens).
"""

from __future__ import annotations

import torch

from posenc import _checks
from posenc.rope import apply_rope, from_complex_pairs, rope_inv_freq, to_complex_pairs
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
        # (R k)·(R q) = Re Σ_i k̃_i·conj(q̃_i) over the pairs (either layout pairs both alike): no real [N, D] copy
        turned = to_complex_pairs(keys.to(torch.float64)) * turns  # [N, D/2] complex
        return (turned * to_complex_pairs(q[None]).conj()).real.sum(dim=-1)
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
    distinct, which = lengths.unique(return_inverse=True)  # one set of frequencies per length: the prompt's share one
    # the frequencies of the longest length through the reference, which also checks every argument
    last, _ = rope_scaled_inv_freq(dim, base, "dynamic", factor, training_length, seq_len=int(distinct[-1]),
                                   dtype=torch.float64)  # fmt: skip
    if dim == 2:  # θ_0 = base'^0 = 1 at every length
        return last.expand(len(lengths), 1).clone()
    # base'(L) = base·((s·L/L_train) − (s − 1))^(D/(D−2)) for L ≥ L_train (rope_scaled_inv_freq's formula), then
    # θ_i = base'^(−2i/D) for every length at once, [distinct, D/2]
    grown = [base * ((factor * max(length, training_length) / training_length) - (factor - 1)) ** (dim / (dim - 2))
             for length in distinct.tolist()]  # fmt: skip
    exponents = torch.arange(0, dim, 2, dtype=torch.float64) / dim
    table = torch.pow(torch.tensor(grown, dtype=torch.float64)[:, None], -exponents)
    return table[which]


def longrope_cache_inv_freq(
    dim: int,
    base: float,
    short_factor,
    long_factor,
    original_length: int,
    prompt_length: int,
    key_positions: torch.Tensor,
) -> torch.Tensor:
    """Each cached key's frequencies under LongRoPE as transformers fills the cache (prefill of ``prompt_length``
    tokens, then one token per step): θ_i^(n) = θ_i / long_i if L_n = max(n + 1, P) > L_orig, else θ_i / short_i,
    θ_i = base^(−2i/D) (:func:`dynamic_ntk_cache_lengths` gives L_n).
    Shapes: short_factor, long_factor [D/2]; key_positions [N] -> [N, D/2] float64. Sources: transformers
    ``_compute_longrope_parameters`` and ``longrope_frequency_update``; Ding et al. 2024, arXiv 2402.13753."""
    theta = rope_inv_freq(dim, base, dtype=torch.float64)
    short = theta / torch.as_tensor(short_factor, dtype=torch.float64)
    long = theta / torch.as_tensor(long_factor, dtype=torch.float64)
    if short.shape != theta.shape or long.shape != theta.shape:
        raise ValueError(f"short_factor and long_factor must have {dim // 2} values each, one per pair.")
    switched = dynamic_ntk_cache_lengths(key_positions, prompt_length) > original_length  # [N]
    return torch.where(switched[:, None], long, short)


def rerotate_keys(keys: torch.Tensor, delta: int, inv_freq: torch.Tensor, layout: str = "half") -> torch.Tensor:
    """R_Δ k: rotated keys moved Δ positions on by turning pair i by Δ·θ_i, since R_{p+Δ} = R_Δ R_p (rotations
    compose). Exact for keys cached with the same θ; O(N·D). Shapes: keys [..., N, D], inv_freq [D/2] -> keys' shape
    and dtype (float32 math, float64 for float64 keys)."""
    positions = torch.full((keys.shape[-2],), int(delta), dtype=torch.int64)
    return apply_rope(keys, positions, layout=layout, inv_freq=inv_freq)


def move_cached_keys(
    keys: torch.Tensor,
    positions: torch.Tensor,
    new_positions: torch.Tensor,
    inv_freq: torch.Tensor,
    new_inv_freq: torch.Tensor | None = None,
    layout: str = "half",
) -> torch.Tensor:
    """Keys cached at p_n with θ (``inv_freq``: [D/2], or each key's own [N, D/2]) moved to p'_n with θ'
    (``new_inv_freq``, default θ): pair i turned by p'_n·θ'_i − p_n·θ_i, so R_{p'}(θ') k = e^{i(p'θ' − pθ)} R_p(θ) k
    exactly. Shapes: keys [..., N, D], positions [N] -> keys' shape and dtype (angles in float64)."""
    new_inv_freq = inv_freq if new_inv_freq is None else new_inv_freq
    old = torch.as_tensor(positions, dtype=torch.float64)[:, None] * inv_freq.to(torch.float64)
    new = torch.as_tensor(new_positions, dtype=torch.float64)[:, None] * new_inv_freq.to(torch.float64)
    angles = new - old  # [N, D/2]
    z = to_complex_pairs(keys, layout)  # complex64, or complex128 for float64 keys
    turns = torch.complex(torch.cos(angles), torch.sin(angles)).to(z.dtype)
    return from_complex_pairs(z * turns, layout).to(keys.dtype)


def rerotation_flops(tokens: int, layers: int, kv_heads: int, head_dim: int) -> int:
    """Moving N cached tokens' keys: each pair of each key head in each layer is one complex product (4
    multiplications, 2 additions): 3·N·layers·kv_heads·head_dim floating-point operations."""
    for name, value in (("tokens", tokens), ("layers", layers), ("kv_heads", kv_heads), ("head_dim", head_dim)):
        _checks.positive_int(name, value)
    return 3 * tokens * layers * kv_heads * head_dim


def decoder_params(hidden: int, layers: int, heads: int, kv_heads: int, head_dim: int, intermediate: int) -> int:
    """Non-embedding weights of a Llama-style decoder (grouped-query attention, gated MLP, norms left out):
    N = layers·(hidden·head_dim·(2·heads + 2·kv_heads) + 3·hidden·intermediate)."""
    return layers * (hidden * head_dim * (2 * heads + 2 * kv_heads) + 3 * hidden * intermediate)


def recompute_flops(tokens: int, params: int, layers: int, attention_width: int, context: float) -> float:
    """Recomputing N tokens' keys means running them through the model: ≈ N·(2·params + 2·layers·context·d_attn)
    floating-point operations (Kaplan et al. 2020, arXiv 2001.08361, Table 1: the forward pass per token), with
    ``context`` the mean number of tokens each one attends to and d_attn = heads·head_dim."""
    return tokens * (2.0 * params + 2.0 * layers * context * attention_width)
