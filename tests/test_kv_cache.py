"""posenc.kv_cache against transformers: a Llama rotary embedding with ``dynamic`` scaling rotates keys for a short
prompt, its frequencies grow once the positions pass max_position_embeddings, and the query is rotated with the
grown ones; the scores against the keys cached before are posenc's cached_scores with the two sets of frequencies.
A cache filled as generation fills it (a prompt prefilled in one pass, then one token per step) carries each key's
own step's base, and posenc's dynamic_ntk_cache_inv_freq reproduces it. And the consistent cache is translation-free:
scores depend on m − n only."""

from __future__ import annotations

import pytest
import torch
from transformers import LlamaConfig  # test-only: requirements-dev.txt
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

from posenc.kv_cache import cached_scores, dynamic_ntk_cache_inv_freq
from posenc.rope import rope_inv_freq
from posenc.rope_scaling import rope_scaled_inv_freq


def test_cached_keys_keep_the_rotation_of_the_base_they_were_cached_with():
    dim, trained, factor = 64, 256, 2.0
    config = LlamaConfig(hidden_size=dim * 2, num_attention_heads=2, max_position_embeddings=trained,
                         rope_theta=10000.0, rope_scaling={"rope_type": "dynamic", "factor": factor})  # fmt: skip
    rotary = LlamaRotaryEmbedding(config)
    generator = torch.Generator().manual_seed(0)
    keys = torch.randn(1, 1, 200, dim, generator=generator)
    query = torch.randn(1, 1, 1, dim, generator=generator)
    cos, sin = rotary(keys, torch.arange(200)[None])  # the prompt: within training, base unchanged
    _, cached = apply_rotary_pos_emb(keys, keys, cos, sin)
    later = 600  # decoding past max_position_embeddings: transformers grows the base for seq_len = 601
    cos_q, sin_q = rotary(query, torch.tensor([[later]]))
    rotated_query, _ = apply_rotary_pos_emb(query, query, cos_q, sin_q)
    hf = (cached[0, 0] @ rotated_query[0, 0, 0]).double()
    old = rope_inv_freq(dim, 10000.0, dtype=torch.float64)
    grown, _ = rope_scaled_inv_freq(dim, 10000.0, "dynamic", factor, trained, seq_len=later + 1, dtype=torch.float64)
    ours = cached_scores(query[0, 0, 0], keys[0, 0], later, torch.arange(200), grown, old)
    torch.testing.assert_close(ours, hf, rtol=1e-4, atol=2e-3)
    recomputed = cached_scores(query[0, 0, 0], keys[0, 0], later, torch.arange(200), grown, grown)
    assert (ours - recomputed).abs().max() > 1.0  # the stale cache is not what recomputing would give


def test_a_consistent_cache_depends_on_the_offset_only_and_a_shifted_one_on_the_shift():
    dim = 32
    theta = rope_inv_freq(dim, 10000.0, dtype=torch.float64)
    generator = torch.Generator().manual_seed(1)
    query, keys = torch.randn(dim, generator=generator), torch.randn(50, dim, generator=generator)
    positions = torch.arange(50)
    base = cached_scores(query, keys, 60, positions, theta, theta)
    torch.testing.assert_close(cached_scores(query, keys, 60 + 1000, positions + 1000, theta, theta), base)
    shifted = cached_scores(query, keys, 60, positions + 7, theta, theta)  # cache counted 7 pads, the query not
    torch.testing.assert_close(shifted, cached_scores(query, keys, 60 - 7, positions, theta, theta))


@pytest.mark.parametrize("prompt", [48, 100])  # within the training length (original base), and past it
def test_a_cache_filled_by_prefill_then_decoding_keeps_each_steps_base(prompt):
    """transformers' dynamic LlamaRotaryEmbedding run as generation runs it: one pass over the prompt's positions,
    then one pass per decoded token (its grown base rotates that token's key), then the query at m. Its scores are
    posenc's cached_scores with dynamic_ntk_cache_inv_freq: each key with the base of length max(n + 1, P)."""
    dim, trained, factor, later = 32, 64, 2.0, 160
    config = LlamaConfig(hidden_size=dim * 2, num_attention_heads=2, max_position_embeddings=trained,
                         rope_theta=10000.0, rope_scaling={"rope_type": "dynamic", "factor": factor})  # fmt: skip
    rotary = LlamaRotaryEmbedding(config)
    generator = torch.Generator().manual_seed(2)
    keys = torch.randn(1, 1, later, dim, generator=generator)
    query = torch.randn(1, 1, 1, dim, generator=generator)
    cos, sin = rotary(keys[:, :, :prompt], torch.arange(prompt)[None])  # prefill
    cached = [apply_rotary_pos_emb(keys[:, :, :prompt], keys[:, :, :prompt], cos, sin)[1]]
    for n in range(prompt, later):  # decoding: one token per forward pass
        cos, sin = rotary(keys[:, :, n : n + 1], torch.tensor([[n]]))
        cached.append(apply_rotary_pos_emb(keys[:, :, n : n + 1], keys[:, :, n : n + 1], cos, sin)[1])
    cos_q, sin_q = rotary(query, torch.tensor([[later]]))
    rotated_query, _ = apply_rotary_pos_emb(query, query, cos_q, sin_q)
    hf = (torch.cat(cached, dim=2)[0, 0] @ rotated_query[0, 0, 0]).double()

    positions = torch.arange(later)
    per_key = dynamic_ntk_cache_inv_freq(dim, 10000.0, factor, trained, prompt, positions)
    now, _ = rope_scaled_inv_freq(dim, 10000.0, "dynamic", factor, trained, seq_len=later + 1, dtype=torch.float64)
    ours = cached_scores(query[0, 0, 0], keys[0, 0], later, positions, now, per_key)
    torch.testing.assert_close(ours, hf, rtol=1e-4, atol=2e-3)
    if prompt <= trained:  # the prompt's keys carry the original base
        original = rope_inv_freq(dim, 10000.0, dtype=torch.float64)
        torch.testing.assert_close(per_key[:prompt], original.expand(prompt, -1))
    recomputed = cached_scores(query[0, 0, 0], keys[0, 0], later, positions, now, now)
    assert (ours[-1] - recomputed[-1]).abs() < 0.05 * recomputed.abs().max()  # the newest key: nearly today's base
    assert (ours - recomputed).abs().max() > 1.0  # older keys do not
