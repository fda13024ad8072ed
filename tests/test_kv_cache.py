"""posenc.kv_cache against transformers: a Llama rotary embedding with ``dynamic`` scaling rotates keys for a short
prompt, its frequencies grow once the positions pass max_position_embeddings, and the query is rotated with the
grown ones; the scores against the keys cached before are posenc's cached_scores with the two sets of frequencies.
A cache filled as generation fills it (a prompt prefilled in one pass, then one token per step) carries each key's
own step's base, and posenc's dynamic_ntk_cache_inv_freq reproduces it. And the consistent cache is translation-free:
scores depend on m − n only. LongRoPE's short → long switch against Phi-3's rotary embedding, and moving cached keys
by Δ (rotations compose) against 2×2 rotations written out and against transformers' recomputed keys."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from transformers import LlamaConfig  # test-only: requirements-dev.txt
from transformers.models.llama.modeling_llama import LlamaRotaryEmbedding, apply_rotary_pos_emb

from posenc.kv_cache import (
    cached_scores,
    decoder_params,
    dynamic_ntk_cache_inv_freq,
    longrope_cache_inv_freq,
    move_cached_keys,
    recompute_flops,
    rerotate_keys,
    rerotation_flops,
)
from posenc.rope import apply_rope, rope_inv_freq
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


# ---- LongRoPE: the short → long switch inside a cache ----

LONGROPE_PAIRS = 16  # d = 32
SHORT = [1.0 + 0.05 * i for i in range(LONGROPE_PAIRS)]
LONG = [1.0 + 4.0 * i for i in range(LONGROPE_PAIRS)]  # not capped at s, as Phi-3.5's are not


def phi3_rotary(original: int = 64):
    """transformers' Phi-3 rotary embedding with LongRoPE: d = 32, base 10 000, L_orig = ``original``, 4× longer."""
    from transformers import Phi3Config
    from transformers.models.phi3.modeling_phi3 import Phi3RotaryEmbedding

    config = Phi3Config(hidden_size=64, num_attention_heads=2, num_key_value_heads=2, rope_theta=10000.0,
                        max_position_embeddings=4 * original, original_max_position_embeddings=original,
                        rope_scaling={"rope_type": "longrope", "short_factor": SHORT, "long_factor": LONG})  # fmt: skip
    return config, Phi3RotaryEmbedding(config)


def test_longrope_short_and_long_sets_are_transformers():
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config, _ = phi3_rotary()
    short, _ = ROPE_INIT_FUNCTIONS["longrope"](config, "cpu", seq_len=64)  # at L_orig: still short
    long, _ = ROPE_INIT_FUNCTIONS["longrope"](config, "cpu", seq_len=65)
    per_key = longrope_cache_inv_freq(32, 10000.0, SHORT, LONG, 64, 10, torch.tensor([63, 64]))
    torch.testing.assert_close(per_key[0].float(), short)  # key 63: a pass of length 64
    torch.testing.assert_close(per_key[1].float(), long)  # key 64: a pass of length 65, past L_orig


@pytest.mark.parametrize("prompt", [40, 100])  # within L_orig (short keys until the switch), and past it (all long)
def test_a_longrope_cache_keeps_the_short_factors_it_was_written_with(prompt):
    """Phi-3's rotary embedding run as generation runs it: prefill, then one token per pass up to the query at m.
    Its scores (over its attention factor², on cos and sin of both) are posenc's cached_scores with
    longrope_cache_inv_freq; the keys cached before the switch are off by n·(θ_long − θ_short), the others exact."""
    _, rotary = phi3_rotary()
    dim, later = 32, 150
    generator = torch.Generator().manual_seed(3)
    keys = torch.randn(1, 1, later, dim, generator=generator)
    query = torch.randn(1, 1, 1, dim, generator=generator)
    cos, sin = rotary(keys[:, :, :prompt], torch.arange(prompt)[None])
    cached = [apply_rotary_pos_emb(keys[:, :, :prompt], keys[:, :, :prompt], cos, sin)[1]]
    for n in range(prompt, later):
        cos, sin = rotary(keys[:, :, n : n + 1], torch.tensor([[n]]))
        cached.append(apply_rotary_pos_emb(keys[:, :, n : n + 1], keys[:, :, n : n + 1], cos, sin)[1])
    cos_q, sin_q = rotary(query, torch.tensor([[later]]))
    rotated_query, _ = apply_rotary_pos_emb(query, query, cos_q, sin_q)
    hf = (torch.cat(cached, dim=2)[0, 0] @ rotated_query[0, 0, 0]).double() / rotary.attention_scaling**2

    positions = torch.arange(later)
    per_key = longrope_cache_inv_freq(dim, 10000.0, SHORT, LONG, 64, prompt, positions)
    long = per_key[-1]
    ours = cached_scores(query[0, 0, 0], keys[0, 0], later, positions, long, per_key)
    torch.testing.assert_close(ours, hf, rtol=1e-4, atol=2e-3)
    recomputed = cached_scores(query[0, 0, 0], keys[0, 0], later, positions, long, long)
    short_keys = 64 if prompt <= 64 else 0  # keys 0 … 63 were written by passes of length ≤ 64
    torch.testing.assert_close(ours[short_keys:], recomputed[short_keys:])
    if short_keys:
        assert (ours[:short_keys] - recomputed[:short_keys]).abs().max() > 1.0


# ---- Moving cached keys: R_{p+Δ} = R_Δ R_p ----


def rotation_by_hand(k: np.ndarray, position: float, theta: np.ndarray) -> np.ndarray:
    """Pair i = (k_i, k_{i+D/2}) times the 2×2 matrix [[cos, −sin], [sin, cos]] of the angle position·θ_i."""
    half = len(theta)
    a, b, angle = k[:half], k[half:], position * theta
    return np.concatenate([a * np.cos(angle) - b * np.sin(angle), a * np.sin(angle) + b * np.cos(angle)])


def test_rotations_compose_so_rerotating_by_delta_moves_a_key_exactly():
    rng = np.random.default_rng(4)
    theta = 10000.0 ** (-np.arange(16) / 16)
    for p, delta in ((0, 5), (37, 1000), (5000, -4000)):
        k = rng.standard_normal(32)
        twice = rotation_by_hand(rotation_by_hand(k, p, theta), delta, theta)
        np.testing.assert_allclose(twice, rotation_by_hand(k, p + delta, theta), atol=1e-12)
        moved = rerotate_keys(torch.from_numpy(rotation_by_hand(k, p, theta))[None], delta, torch.from_numpy(theta))
        np.testing.assert_allclose(moved[0].numpy(), rotation_by_hand(k, p + delta, theta), atol=1e-12)


def test_rerotated_float32_keys_match_transformers_recomputed_ones():
    """Keys rotated by transformers at p, moved by Δ with posenc in float32, against transformers at p + Δ: the two
    differ by float32's rounding of the angles (transformers forms p·θ_i in float32: about p·θ·2⁻²⁴), not more."""
    config = LlamaConfig(hidden_size=128, num_attention_heads=2, max_position_embeddings=4096, rope_theta=10000.0)
    rotary = LlamaRotaryEmbedding(config)
    keys = torch.randn(1, 1, 64, 64, generator=torch.Generator().manual_seed(5))
    positions, delta = torch.arange(64), 1000
    cos, sin = rotary(keys, positions[None])
    cached = apply_rotary_pos_emb(keys, keys, cos, sin)[1][0, 0]
    cos, sin = rotary(keys, (positions + delta)[None])
    recomputed = apply_rotary_pos_emb(keys, keys, cos, sin)[1][0, 0]
    moved = rerotate_keys(cached, delta, rope_inv_freq(64, 10000.0, dtype=torch.float64))
    assert moved.dtype == torch.float32
    torch.testing.assert_close(moved, recomputed, rtol=0, atol=1e-3 * keys.abs().max().item())
    exact = apply_rope(keys[0, 0].double(), positions + delta, inv_freq=rope_inv_freq(64, dtype=torch.float64))
    assert (moved.double() - exact).abs().max() < 1e-5  # posenc's float64 angles: float32 rounding of k only


def test_when_frequencies_depend_on_the_length_only_the_full_move_is_exact():
    """Dynamic NTK: a chunk cached alone (original base) reused at an offset that pushes the text past L_train, where
    transformers' base has grown. R_Δ with the grown base leaves pair i off by p·(θ_i − θ'_i); move_cached_keys,
    turning by (p + Δ)·θ'_i − p·θ_i, gives transformers' recomputed keys."""
    dim, trained, factor, delta = 32, 64, 2.0, 200
    config = LlamaConfig(hidden_size=dim * 2, num_attention_heads=2, max_position_embeddings=trained,
                         rope_theta=10000.0, rope_scaling={"rope_type": "dynamic", "factor": factor})  # fmt: skip
    keys = torch.randn(1, 1, 48, dim, generator=torch.Generator().manual_seed(6)).double()
    positions = torch.arange(48)
    rotary = LlamaRotaryEmbedding(config)
    cos, sin = rotary(keys, positions[None])  # the chunk alone: 48 ≤ 64 tokens, original base
    cached = apply_rotary_pos_emb(keys, keys, cos.double(), sin.double())[1][0, 0]
    cos, sin = LlamaRotaryEmbedding(config)(keys, (positions + delta)[None])  # the new text: length 248, grown base
    recomputed = apply_rotary_pos_emb(keys, keys, cos.double(), sin.double())[1][0, 0]
    old = rope_inv_freq(dim, 10000.0, dtype=torch.float64)
    grown, _ = rope_scaled_inv_freq(dim, 10000.0, "dynamic", factor, trained, seq_len=delta + 48, dtype=torch.float64)
    moved = move_cached_keys(cached, positions, positions + delta, old, grown)
    torch.testing.assert_close(moved, recomputed, rtol=0, atol=1e-4)
    naive = rerotate_keys(cached, delta, grown)
    assert (naive - recomputed).abs().max() > 0.5


def test_yarn_keys_move_by_a_pure_rotation_not_by_transformers_cos_and_sin():
    """YaRN's frequencies do not depend on the length, so R_Δ moves its keys exactly; its attention factor is already
    in the cached key. Applying transformers' cos and sin of Δ (which carry the factor) would scale it twice."""
    dim = 32
    yarn = {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 64}
    config = LlamaConfig(hidden_size=dim * 2, num_attention_heads=2, max_position_embeddings=256, rope_theta=10000.0,
                         rope_scaling=yarn)  # fmt: skip
    rotary = LlamaRotaryEmbedding(config)
    keys = torch.randn(1, 1, 40, dim, generator=torch.Generator().manual_seed(7)).double()
    positions, delta = torch.arange(40), 100
    cos, sin = rotary(keys, positions[None])
    cached = apply_rotary_pos_emb(keys, keys, cos.double(), sin.double())[1]
    cos, sin = rotary(keys, (positions + delta)[None])
    recomputed = apply_rotary_pos_emb(keys, keys, cos.double(), sin.double())[1][0, 0]
    theta, factor = rope_scaled_inv_freq(dim, 10000.0, "yarn", 4.0, 64, dtype=torch.float64)
    assert rotary.attention_scaling == pytest.approx(factor) and factor > 1.1
    torch.testing.assert_close(rerotate_keys(cached[0, 0], delta, theta), recomputed, rtol=0, atol=1e-4)
    cos, sin = rotary(keys, torch.full((1, 40), delta))
    twice = apply_rotary_pos_emb(cached, cached, cos.double(), sin.double())[1][0, 0]
    torch.testing.assert_close(twice, factor * recomputed, rtol=0, atol=1e-4)


def test_decoder_params_counts_a_llama_models_weights():
    """Against a small LlamaModel's own non-embedding weights (norms aside), and Llama 3.1 8B's published total
    (8.03 B with its 128 256 × 4 096 input and output embeddings)."""
    from transformers import LlamaModel

    config = LlamaConfig(hidden_size=64, intermediate_size=96, num_hidden_layers=3, num_attention_heads=4,
                         num_key_value_heads=2, vocab_size=50)  # fmt: skip
    model = LlamaModel(config)
    weights = sum(p.numel() for name, p in model.named_parameters() if "norm" not in name and "embed" not in name)
    assert decoder_params(64, 3, 4, 2, 16, 96) == weights
    llama = decoder_params(4096, 32, 32, 8, 128, 14336) + 2 * 128256 * 4096
    assert llama == pytest.approx(8.03e9, rel=2e-3)


def test_moving_keys_costs_far_less_than_recomputing_them():
    """Per token, 3·layers·kv_heads·head_dim against ≥ 2·params (Llama 3.1 8B: 98 304 against 14 billion)."""
    assert rerotation_flops(1, 32, 8, 128) == 3 * 32 * 8 * 128
    params = decoder_params(4096, 32, 32, 8, 128, 14336)
    assert recompute_flops(1000, params, 32, 4096, 0) / rerotation_flops(1000, 32, 8, 128) > 100_000


def tiny_phi3():
    """A 2-layer Phi-3 with random weights and LongRoPE: d = 32, L_orig = 16 (SHORT and LONG factors)."""
    from transformers import Phi3Config, Phi3ForCausalLM

    torch.manual_seed(8)
    config = Phi3Config(vocab_size=40, hidden_size=64, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
                        num_key_value_heads=2, max_position_embeddings=64, original_max_position_embeddings=16,
                        rope_scaling={"rope_type": "longrope", "short_factor": SHORT, "long_factor": LONG},
                        pad_token_id=0, eos_token_id=None, bos_token_id=None)  # fmt: skip
    return Phi3ForCausalLM(config).eval()


def test_phi3_generate_prefills_again_at_the_switch_and_a_plain_cached_loop_does_not():
    """The page's claim about transformers: Phi-3's generate() drops its cache the first time the text passes L_orig
    and prefills everything with the long factors, so its logits are those of a full pass at every step; a loop that
    passes the cache back itself keeps the short-factor keys and its logits after the switch differ."""
    model = tiny_phi3()
    prompt = torch.randint(1, 40, (1, 10), generator=torch.Generator().manual_seed(9))
    with torch.no_grad():
        out = model.generate(prompt, max_new_tokens=12, do_sample=False, output_logits=True,
                             return_dict_in_generate=True)  # fmt: skip
        tokens = out.sequences
        fresh = [model(tokens[:, : n + 1]).logits[0, -1] for n in range(tokens.shape[1] - 1)]  # no cache: each pass
        for step, logits in enumerate(out.logits):  # step s predicts token 10 + s from the first 10 + s tokens
            torch.testing.assert_close(logits[0], fresh[9 + step], rtol=1e-4, atol=1e-4)
        loop, cache = [], None
        for n in range(tokens.shape[1] - 1):  # one token per pass, the cache kept throughout
            step = model(tokens[:, n : n + 1], cache=cache, use_cache=True)
            cache = step.cache
            loop.append(step.logits[0, -1])
    loop, fresh = torch.stack(loop), torch.stack(fresh)  # [21, vocab]: position n predicts token n + 1
    torch.testing.assert_close(loop[:16], fresh[:16], rtol=1e-4, atol=1e-4)  # positions ≤ 15: passes of ≤ 16 tokens
    assert (loop[16:] - fresh[16:]).abs().max(dim=-1).values.min() > 1e-3  # past the switch: long queries, short keys


def test_rotating_short_keys_to_long_fixes_the_first_layer_only():
    """The page's claim: after a cached loop crosses L_orig = 16, turning each short-factor key by n·(θ_long − θ_short)
    (move_cached_keys) gives the first layer's keys of a single pass over the text, but not the second layer's, which
    were computed from an attention that used the short factors."""
    model = tiny_phi3()
    tokens = torch.randint(1, 40, (1, 20), generator=torch.Generator().manual_seed(10))
    with torch.no_grad():
        cache = None
        for n in range(20):
            cache = model(tokens[:, n : n + 1], cache=cache, use_cache=True).cache
        single = model(tokens, use_cache=True).cache  # one pass of 20 tokens: long factors throughout
    positions = torch.arange(16)
    per_key = longrope_cache_inv_freq(32, 10000.0, SHORT, LONG, 16, 1, positions)  # the short set, every key
    long = longrope_cache_inv_freq(32, 10000.0, SHORT, LONG, 16, 1, torch.tensor([16]))[0]
    moved = [
        move_cached_keys(layer.keys[0, :, :16].double(), positions, positions, per_key, long) for layer in cache.layers
    ]
    torch.testing.assert_close(moved[0], single.layers[0].keys[0, :, :16].double(), rtol=1e-4, atol=1e-4)
    assert (moved[1] - single.layers[1].keys[0, :, :16].double()).abs().max() > 1e-3
