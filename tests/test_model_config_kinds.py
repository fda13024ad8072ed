"""Today's config.json kinds against transformers (a test-only dependency): LongRoPE (Phi-3.5), YaRN with DeepSeek's
mscale, NoPE layers (SmolLM3, Llama 4), Gemma 3's local and global bases, and Qwen2-VL's M-RoPE — each preset read
as transformers' own config classes, ROPE_INIT_FUNCTIONS or model code read it; a malformed field is named."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from transformers import DeepseekV3Config, Gemma3TextConfig, LlamaConfig, Phi3Config, SmolLM3Config
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3Attention
from transformers.models.gemma3.modeling_gemma3 import Gemma3RotaryEmbedding
from transformers.models.qwen2_vl.configuration_qwen2_vl import Qwen2VLTextConfig
from transformers.models.qwen2_vl.modeling_qwen2_vl import Qwen2VLRotaryEmbedding
from transformers.models.smollm3.modeling_smollm3 import SmolLM3Attention

from posenc.model_config import (
    ConfigError,
    model_rope_inv_freq,
    rope_config_from_dict,
    rope_config_to_dict,
    softmax_scale_factor,
)
from posenc.mrope import image_positions, mrope_angles
from posenc.rope import rope_inv_freq

PRESETS = {
    preset["id"]: preset["config"]
    for preset in json.loads((Path(__file__).resolve().parents[1] / "assets" / "model_configs.json").read_text())[
        "presets"
    ]
}


def fields(config: dict) -> dict:
    """A config's keys for a transformers config class (a copy: transformers edits rope_scaling in place)."""
    out = json.loads(json.dumps(config))
    out.pop("model_type")
    return out


def test_longrope_uses_the_short_list_up_to_training_and_the_long_list_past_it():
    preset = PRESETS["phi-3.5-mini"]
    ours = rope_config_from_dict(preset)
    hf = Phi3Config(**fields(preset))
    short, attention = ROPE_INIT_FUNCTIONS["longrope"](hf, "cpu", seq_len=None)
    long, _ = ROPE_INIT_FUNCTIONS["longrope"](hf, "cpu", seq_len=4097)
    for seq_len, reference in ((None, short), (4096, short), (4097, long), (131072, long)):
        theta, factor = model_rope_inv_freq(ours, seq_len=seq_len)
        torch.testing.assert_close(theta, reference, rtol=2e-6, atol=0)
    assert factor == pytest.approx(attention, rel=1e-9)
    assert factor == pytest.approx(math.sqrt(1 + math.log(32) / math.log(4096)))  # s = 131072 / 4096
    assert ours.training_length == 4096 and ours.extended_length == 131072
    assert rope_config_from_dict(rope_config_to_dict(ours)) == ours


def test_deepseek_yarn_mscale_leaves_cos_and_sin_and_scales_the_softmax():
    preset = PRESETS["deepseek-v3"]
    ours = rope_config_from_dict(preset)
    hf = DeepseekV3Config(**fields(preset))
    inv_freq, attention = ROPE_INIT_FUNCTIONS["yarn"](hf, "cpu")
    theta, factor = model_rope_inv_freq(ours)
    torch.testing.assert_close(theta, inv_freq, rtol=2e-5, atol=0)
    assert (ours.head_dim, ours.rotary_dim) == (192, 64)
    assert factor == pytest.approx(attention)
    # the model code's softmax scale, on a small DeepSeek with the same rope_scaling
    small = DeepseekV3Config(**fields(preset) | {"hidden_size": 64, "num_attention_heads": 2, "q_lora_rank": 16,
                                                  "kv_lora_rank": 16, "n_routed_experts": 4})  # fmt: skip
    attention_layer = DeepseekV3Attention(small, layer_idx=0)
    assert attention_layer.scaling == pytest.approx(softmax_scale_factor(ours) / math.sqrt(192), rel=1e-12)
    assert softmax_scale_factor(ours) == pytest.approx((0.1 * math.log(40) + 1) ** 2)


@pytest.mark.parametrize("mscale, mscale_all_dim", [(0.707, 0.707), (1.0, 0.5), (0.5, 1.0)])
def test_yarn_attention_factor_with_mscale_matches_transformers(mscale, mscale_all_dim):
    config = json.loads(json.dumps(PRESETS["deepseek-v3"]))
    config["rope_scaling"] |= {"mscale": mscale, "mscale_all_dim": mscale_all_dim}
    _, attention = ROPE_INIT_FUNCTIONS["yarn"](DeepseekV3Config(**fields(config)), "cpu")
    assert model_rope_inv_freq(rope_config_from_dict(config))[1] == pytest.approx(attention, rel=1e-12)


def test_smollm3_nope_layers_are_the_ones_transformers_leaves_unrotated():
    preset = PRESETS["smollm3-3b"]
    ours = rope_config_from_dict(preset)
    small = SmolLM3Config(**fields(preset) | {"hidden_size": 32, "num_attention_heads": 2, "num_key_value_heads": 1})
    unrotated = tuple(layer for layer in range(36) if not SmolLM3Attention(small, layer).use_rope)
    assert ours.nope_layers == unrotated == (3, 7, 11, 15, 19, 23, 27, 31, 35)
    without_list = {key: value for key, value in preset.items() if key != "no_rope_layers"}  # transformers' default
    assert rope_config_from_dict(without_list).nope_layers == unrotated
    assert rope_config_from_dict(rope_config_to_dict(ours)) == ours


def test_gemma3_local_layers_turn_at_the_local_base_and_global_ones_are_scaled():
    preset = PRESETS["gemma-3-4b"]
    ours = rope_config_from_dict(preset)
    hf = Gemma3TextConfig(**fields(preset))
    rotary = Gemma3RotaryEmbedding(hf)
    local = tuple(layer for layer, kind in enumerate(hf.layer_types) if kind == "sliding_attention")
    assert ours.local_layers == local and len(local) == 29
    torch.testing.assert_close(model_rope_inv_freq(ours)[0], rotary.full_attention_inv_freq, rtol=2e-6, atol=0)
    local_theta = rope_inv_freq(ours.rotary_dim, ours.local_base)
    torch.testing.assert_close(local_theta, rotary.sliding_attention_inv_freq, rtol=2e-6, atol=0)
    assert ours.training_length == 32768 and ours.extended_length == 131072  # 128K = 8 × the 32K pre-training
    assert rope_config_from_dict(rope_config_to_dict(ours)) == ours


def test_mrope_angles_are_qwen2_vl_s():
    preset = PRESETS["qwen2-vl-7b"]
    ours = rope_config_from_dict(preset)
    assert ours.mrope_section == (16, 24, 24)
    text = torch.arange(5).expand(3, 5)
    positions = torch.cat([text, image_positions(5, 2, 3, 4)], dim=1)  # [3, 29]
    rotary = Qwen2VLRotaryEmbedding(Qwen2VLTextConfig(**fields(preset)))
    cos, sin = rotary(torch.zeros(1, dtype=torch.float32), positions[:, None, :])
    theta, _ = model_rope_inv_freq(ours)
    angles = mrope_angles(theta.double(), positions, ours.mrope_section)
    torch.testing.assert_close(cos[0, :, :64], angles.cos().float(), atol=2e-5, rtol=0)
    torch.testing.assert_close(sin[0, :, :64], angles.sin().float(), atol=2e-5, rtol=0)
    # text tokens: all three positions equal, plain RoPE
    torch.testing.assert_close(angles[:5], torch.arange(5.0, dtype=torch.float64)[:, None] * theta.double())


def test_interleaved_mrope_angles_are_qwen3_vl_s():
    """Qwen3-VL's text config (head_dim 128, base 5 000 000, mrope_section [24, 20, 20], mrope_interleaved: true):
    transformers' Qwen3VLTextRotaryEmbedding puts height on pairs 1, 4, …, 58 and width on 2, 5, …, 59; our angles
    for text and an image match its cos and sin."""
    from transformers.models.qwen3_vl.configuration_qwen3_vl import Qwen3VLTextConfig
    from transformers.models.qwen3_vl.modeling_qwen3_vl import Qwen3VLTextRotaryEmbedding

    from posenc.mrope import mrope_axis_of_pairs

    scaling = {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": True}
    config = {"model_type": "qwen3_vl_text", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128,
              "max_position_embeddings": 262144, "rope_theta": 5000000.0, "rope_scaling": scaling}  # fmt: skip
    ours = rope_config_from_dict(config)
    assert ours.mrope_section == (24, 20, 20) and ours.mrope_interleaved
    assert rope_config_from_dict(rope_config_to_dict(ours)) == ours
    axis = mrope_axis_of_pairs(ours.mrope_section, interleaved=True)
    assert axis[:6].tolist() == [0, 1, 2, 0, 1, 2] and axis[58:].tolist() == [1, 2, 0, 0, 0, 0]
    assert [int((axis == a).sum()) for a in range(3)] == [24, 20, 20]
    positions = torch.cat([torch.arange(5).expand(3, 5), image_positions(5, 2, 3, 4)], dim=1)  # [3, 29]
    fields_hf = fields(config)
    fields_hf["rope_parameters"] = fields_hf.pop("rope_scaling") | {"rope_theta": 5000000.0}
    rotary = Qwen3VLTextRotaryEmbedding(Qwen3VLTextConfig(**fields_hf))
    cos, sin = rotary(torch.zeros(1, dtype=torch.float32), positions[:, None, :])
    theta, _ = model_rope_inv_freq(ours)
    angles = mrope_angles(theta.double(), positions, ours.mrope_section, interleaved=True)
    torch.testing.assert_close(cos[0, :, :64], angles.cos().float(), atol=2e-5, rtol=0)
    torch.testing.assert_close(sin[0, :, :64], angles.sin().float(), atol=2e-5, rtol=0)
    chunked = mrope_angles(theta.double(), positions, ours.mrope_section)  # Qwen2-VL's layout: not the same
    assert (chunked - angles).abs().max() > 0.1


@pytest.mark.parametrize(
    "change, field",
    [
        (("phi-3.5-mini", "rope_scaling", {"type": "longrope", "short_factor": [1.0] * 48, "long_factor": [1.0]}),
         "rope_scaling.long_factor"),
        (("phi-3.5-mini", "rope_scaling", {"type": "longrope", "long_factor": [1.0] * 48}),
         "rope_scaling.short_factor"),
        (("smollm3-3b", "no_rope_layers", [1, 0, 2]), "no_rope_layers"),
        (("qwen2-vl-7b", "rope_scaling", {"type": "mrope", "mrope_section": [16, 24, 23]}),
         "rope_scaling.mrope_section"),
        (("gemma-3-4b", "rope_local_base_freq", 0.5), "rope_local_base_freq"),
        (("deepseek-v3", "rope_scaling", {"type": "yarn", "factor": 40, "mscale": "1",
                                          "original_max_position_embeddings": 4096}), "rope_scaling.mscale"),
    ],
)  # fmt: skip
def test_a_malformed_field_of_each_kind_is_named(change, field):
    preset, key, value = change
    with pytest.raises(ConfigError) as raised:
        rope_config_from_dict(PRESETS[preset] | {key: value})
    assert raised.value.field == field


def test_llama4_scouts_equal_freq_factors_are_a_step_as_transformers_computes_them():
    """Llama 4 Scout's rope_scaling (factor 16, low_freq_factor = high_freq_factor = 1, original 8 192, base 500 000):
    transformers only warns and divides every pair whose wavelength passes 8 192 by 16, keeping the rest; so do we,
    and the page says there is no blend band."""
    config = {"model_type": "llama", "hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128,
              "max_position_embeddings": 10485760, "rope_theta": 500000.0,
              "rope_scaling": {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0, "high_freq_factor": 1.0,
                               "original_max_position_embeddings": 8192}}  # fmt: skip
    ours = rope_config_from_dict(config)
    reference, attention = ROPE_INIT_FUNCTIONS["llama3"](LlamaConfig(**fields(config)), "cpu")
    theta, factor = model_rope_inv_freq(ours)
    torch.testing.assert_close(theta, reference, rtol=1e-5, atol=0)
    assert factor == attention == 1.0
    plain = rope_inv_freq(128, 500000.0, dtype=torch.float64)
    long = 2 * math.pi / plain > 8192
    assert int(long.sum()) == 29  # pairs 35 … 63
    torch.testing.assert_close(theta.double(), torch.where(long, plain / 16, plain), rtol=1e-6, atol=0)
    with pytest.raises(ConfigError) as error:
        rope_config_from_dict(config | {"rope_scaling": config["rope_scaling"] | {"high_freq_factor": 0.5}})
    assert error.value.problem == "frequency_order"


def test_gpt_oss_yarn_without_truncation_is_transformers_unrounded_ramp():
    """gpt-oss's rope_scaling (YaRN, factor 32, original 4 096, base 150 000, truncate: false): the ramp's ends stay
    fractional; our frequencies are transformers' for its own config class, and differ from the rounded ramp's."""
    from transformers import GptOssConfig

    config = {"model_type": "gpt_oss", "hidden_size": 2880, "num_attention_heads": 64, "head_dim": 64,
              "num_key_value_heads": 8, "max_position_embeddings": 131072, "rope_theta": 150000.0,
              "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
                               "original_max_position_embeddings": 4096, "truncate": False}}  # fmt: skip
    ours = rope_config_from_dict(config)
    assert not ours.truncate and rope_config_from_dict(rope_config_to_dict(ours)) == ours
    reference, attention = ROPE_INIT_FUNCTIONS["yarn"](GptOssConfig(**fields(config)), "cpu")
    theta, factor = model_rope_inv_freq(ours)
    torch.testing.assert_close(theta, reference, rtol=2e-5, atol=0)
    assert factor == pytest.approx(attention) == pytest.approx(0.1 * math.log(32) + 1)
    rounded = json.loads(json.dumps(config))
    rounded["rope_scaling"]["truncate"] = True
    rounded_theta, _ = model_rope_inv_freq(rope_config_from_dict(rounded))
    assert (theta / rounded_theta - 1).abs().max() > 0.05  # the ends of the ramp moved
