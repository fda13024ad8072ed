"""posenc.frequency_allocation against independent formulas and transformers (a test-only dependency): full RoPE's
wavelengths are 2π·base^(2i/H); NeoX partial rotary is transformers' default RoPE with partial_rotary_factor;
proportional RoPE is ROPE_INIT_FUNCTIONS["proportional"]; MLA's decoupled dimensions are DeepSeek-V3's rotary
embedding; and each pair's kind follows its largest angle (L − 1)·θ_i."""

from __future__ import annotations

import math

import pytest
import torch
from transformers import DeepseekV3Config, Gemma4TextConfig, GPTNeoXConfig
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3RotaryEmbedding
from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding

from posenc.decay import rope_wavelengths
from posenc.frequency_allocation import (
    ALLOCATIONS,
    allocation_counts,
    allocation_inv_freq,
    pair_kinds,
    proportional_inv_freq,
)


@pytest.mark.parametrize("head_dim, base", [(64, 10_000.0), (128, 500_000.0), (256, 1e6), (512, 1e6)])
def test_full_rope_wavelengths_are_two_pi_base_to_the_two_i_over_h(head_dim, base):
    freq = allocation_inv_freq("full", head_dim, base)
    expected = torch.tensor(
        [2 * math.pi * base ** (2 * i / head_dim) for i in range(head_dim // 2)], dtype=torch.float64
    )
    torch.testing.assert_close(rope_wavelengths(freq), expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("head_dim, share", [(128, 0.25), (96, 0.25), (80, 0.4), (128, 0.5), (256, 0.75)])
def test_neox_partial_is_transformers_default_rope_with_partial_rotary_factor(head_dim, share):
    """transformers' default RoPE with partial_rotary_factor p (GPT-NeoX's code): base^(−2i/D) over D = int(H·p)."""
    config = GPTNeoXConfig(hidden_size=head_dim * 4, num_attention_heads=4,
                           rope_parameters={"rope_type": "default", "rope_theta": 10_000.0,
                                            "partial_rotary_factor": share})  # fmt: skip
    reference = GPTNeoXRotaryEmbedding(config).inv_freq.double()
    ours = allocation_inv_freq("partial", head_dim, 10_000.0, share)
    rotated = int(head_dim * share) // 2
    torch.testing.assert_close(ours[:rotated], reference, rtol=2e-6, atol=0)
    assert ours.shape == (head_dim // 2,) and not ours[rotated:].any()


@pytest.mark.parametrize("head_dim, share, factor", [(512, 0.25, 1.0), (256, 0.5, 1.0), (128, 0.3, 4.0)])
def test_proportional_is_transformers_and_full_rope_with_its_slow_pairs_zeroed(head_dim, share, factor):
    blocks = {"full_attention": {"rope_type": "proportional", "rope_theta": 1e6, "partial_rotary_factor": share,
                                 "factor": factor},
              "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}  # fmt: skip
    config = Gemma4TextConfig(head_dim=head_dim, global_head_dim=head_dim, num_hidden_layers=6, rope_parameters=blocks)
    reference, _ = ROPE_INIT_FUNCTIONS["proportional"](config.per_layer_config["full_attention"], "cpu",
                                                       layer_type="full_attention")  # fmt: skip
    torch.testing.assert_close(proportional_inv_freq(head_dim, 1e6, share, factor), reference, rtol=2e-6, atol=0)
    full = allocation_inv_freq("full", head_dim, 1e6)
    ours = allocation_inv_freq("proportional", head_dim, 1e6, share)
    kept = int(share * head_dim // 2)
    torch.testing.assert_close(ours[:kept], full[:kept], rtol=0, atol=0)  # the fastest pairs, unchanged
    assert not ours[kept:].any()


def test_mla_decoupled_dimensions_are_deepseek_v3s_rotary_embedding():
    """DeepSeek-V3: 64 rotated of 128 + 64 features per head, base^(−2i/64)."""
    config = DeepseekV3Config(qk_nope_head_dim=128, qk_rope_head_dim=64, rope_theta=10_000.0)
    reference = DeepseekV3RotaryEmbedding(config).inv_freq.double()
    ours = allocation_inv_freq("mla", 192, 10_000.0, 64 / 192)
    torch.testing.assert_close(ours[:32], reference, rtol=2e-6, atol=0)
    assert not ours[32:].any()


def test_the_same_share_gives_mla_and_neox_the_same_frequencies():
    for head_dim, share in ((128, 0.25), (192, 0.5)):
        torch.testing.assert_close(allocation_inv_freq("mla", head_dim, 1e4, share),
                                   allocation_inv_freq("partial", head_dim, 1e4, share))  # fmt: skip


def test_pair_kinds_follow_the_largest_angle():
    """φ = (L − 1)·θ: at least 2π turns, π/2 … 2π part of a turn, below π/2 under a quarter turn, 0 unrotated."""
    length = 101  # φ = 100·θ
    freq = torch.tensor([2 * math.pi / 100, 2 * math.pi / 100 * 0.999, math.pi / 200, math.pi / 200 * 0.999, 0.0])
    assert pair_kinds(freq, length) == ["turns", "arc", "arc", "meaning", "unrotated"]


@pytest.mark.parametrize("kind", ALLOCATIONS)
@pytest.mark.parametrize("length", [1024, 4096, 131072])
def test_counts_add_up_to_the_head_and_match_a_loop(kind, length):
    head_dim, base, share = 128, 10_000.0, 0.25
    counts = allocation_counts(allocation_inv_freq(kind, head_dim, base, share), length)
    assert sum(counts.values()) == head_dim // 2
    if kind == "full":  # by hand: pair i under a quarter turn when (L − 1)·base^(−2i/H) < π/2
        by_hand = sum((length - 1) * base ** (-2 * i / head_dim) < math.pi / 2 for i in range(head_dim // 2))
        assert counts["meaning"] == by_hand and counts["unrotated"] == 0
    else:
        assert counts["unrotated"] == head_dim // 2 - int(head_dim * share) // 2


def test_a_larger_base_keeps_more_pairs_under_a_quarter_turn():
    counts = [allocation_counts(allocation_inv_freq("full", 128, base), 8192)["meaning"] for base in (1e4, 5e5, 1e6)]
    assert counts == sorted(counts) and counts[0] < counts[-1]


@pytest.mark.parametrize("kind, share", [("partial", 0.01), ("full", 0.0), ("full", 1.5)])
def test_bad_allocations_are_refused(kind, share):
    with pytest.raises(ValueError):
        allocation_inv_freq(kind, 128, 1e4, share)
    with pytest.raises(ValueError):
        allocation_inv_freq("mystery", 128, 1e4)
