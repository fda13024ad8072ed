"""The layer stack of a config.json (posenc.layer_stack) against transformers' own configuration classes, built from the
same dict: their layer_types and no_rope_layers are the truth; the masks' reach against masking_utils; Llama 4's
temperature against Llama4TextAttention's formula; Gemma 4's proportional RoPE against ROPE_INIT_FUNCTIONS and
Gemma4TextRotaryEmbedding."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
import torch
from transformers import (
    Gemma3TextConfig,
    Gemma4TextConfig,
    GptOssConfig,
    Llama4TextConfig,
    LlamaConfig,
    SmolLM3Config,
)
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.gemma4.modeling_gemma4 import Gemma4TextRotaryEmbedding

from posenc.layer_stack import extension_need, layer_stack, temperature_scale
from posenc.model_config import ConfigError, model_rope_inv_freq, rope_config_from_dict, rope_config_to_dict

PRESETS = {
    preset["id"]: preset["config"]
    for preset in json.loads((Path(__file__).resolve().parents[1] / "assets" / "model_configs.json").read_text())[
        "presets"
    ]
}
CLASSES = {  # preset -> transformers' configuration class of its text model
    "llama-3.1-8b": LlamaConfig,
    "llama-4-scout": Llama4TextConfig,
    "gemma-3-4b": Gemma3TextConfig,
    "gemma-4-31b": Gemma4TextConfig,
    "smollm3-3b": SmolLM3Config,
    "gpt-oss-20b": GptOssConfig,
}


def hf_config(preset: str, **changes):
    fields = json.loads(json.dumps(PRESETS[preset])) | changes  # a copy: transformers edits rope blocks in place
    fields.pop("model_type")
    fields.pop("original_max_position_embeddings", None) if preset == "gemma-3-4b" else None
    return CLASSES[preset](**fields)


def hf_layer_types(hf) -> list[str]:
    """transformers' layer_types, or all full attention for a class that keeps none (Llama)."""
    kinds = getattr(hf, "layer_types", None) or ["full_attention"] * hf.num_hidden_layers
    return [kind.removesuffix("_attention") for kind in kinds]


@pytest.mark.parametrize("preset", CLASSES)
def test_layer_kinds_and_nope_layers_are_transformers(preset):
    hf = hf_config(preset)
    stack = layer_stack(PRESETS[preset])
    assert [layer.attention for layer in stack] == hf_layer_types(hf)
    flags = getattr(hf, "no_rope_layers", None) or [1] * hf.num_hidden_layers  # 1: the layer uses RoPE
    assert [int(layer.rope) for layer in stack] == list(flags)


@pytest.mark.parametrize(
    "preset, changes",
    [
        ("llama-4-scout", {"num_hidden_layers": 10, "no_rope_layer_interval": 3}),
        ("llama-4-scout", {"attention_chunk_size": None}),  # no chunks: every layer full
        ("gemma-3-4b", {"num_hidden_layers": 13, "sliding_window_pattern": 4}),
        ("gemma-4-31b", {"num_hidden_layers": 8, "layer_types": None}),  # the pattern, and the last layer forced full
        ("smollm3-3b", {"use_sliding_window": True, "sliding_window": 2048}),  # NoPE layers slide
        ("gpt-oss-20b", {"num_hidden_layers": 5, "layer_types": None}),
    ],
)
def test_layer_kinds_built_by_default_are_transformers(preset, changes):
    ours = json.loads(json.dumps(PRESETS[preset])) | changes
    if changes.get("layer_types", 0) is None:
        ours.pop("layer_types")  # left out: both build their own
    if "no_rope_layers" in ours and (preset == "smollm3-3b" or "num_hidden_layers" in changes):
        ours.pop("no_rope_layers")
        changes = changes | {"no_rope_layers": None}
    hf = hf_config(preset, **changes)
    stack = layer_stack(ours)
    assert [layer.attention for layer in stack] == hf_layer_types(hf)
    assert [int(layer.rope) for layer in stack] == list(getattr(hf, "no_rope_layers", None) or [1] * len(stack))


def test_each_layer_s_reach_is_the_mask_s():
    """A sliding window of W lets a query see m − n < W (masking_utils); a chunk of C its own chunk: at most C − 1."""
    scout = layer_stack(PRESETS["llama-4-scout"])
    gemma = layer_stack(PRESETS["gemma-3-4b"])
    assert {layer.reach for layer in scout if layer.rope} == {8191}
    assert {layer.reach for layer in scout if not layer.rope} == {None}  # the NoPE layers see every earlier token
    assert {layer.reach for layer in gemma if layer.attention == "sliding"} == {1023}
    assert [layer.index for layer in gemma if layer.reach is None] == [5, 11, 17, 23, 29]


def test_window_layers_use_their_own_base_and_head():
    """Gemma 3 and 4 turn their sliding layers at base 10 000, unscaled; Gemma 4's sliding heads have 256 features
    (128 pairs), its global heads 512, of which proportional RoPE rotates 64 pairs; gpt-oss's sliding layers share
    the full layers' YaRN."""
    gemma4 = layer_stack(PRESETS["gemma-4-31b"])
    local = {(layer.base, layer.rope_type, layer.head_dim, layer.rotated_pairs) for layer in gemma4
             if layer.attention == "sliding"}  # fmt: skip
    full = {(layer.base, layer.rope_type, layer.head_dim, layer.rotated_pairs) for layer in gemma4
            if layer.attention == "full"}  # fmt: skip
    assert local == {(10000.0, "default", 256, 128)} and full == {(1e6, "proportional", 512, 64)}
    hf = hf_config("gemma-4-31b")
    assert hf.per_layer_config[5].head_dim == 512 and hf.per_layer_config[0].head_dim == 256
    oss = layer_stack(PRESETS["gpt-oss-20b"])
    assert {(layer.attention, layer.rope_type, layer.base) for layer in oss} == {
        ("sliding", "yarn", 150000.0), ("full", "yarn", 150000.0)}  # fmt: skip


def test_what_a_longer_context_asks_of_each_kind_of_layer():
    """Window layers: nothing (distances stay below the span); full RoPE layers with pairs that never turn in
    training: new frequencies; proportional RoPE's layers: no new angle (all 64 rotated pairs turn within 189
    tokens); full NoPE layers: the softmax, not frequencies."""
    needs = {}
    for preset in ("llama-3.1-8b", "llama-4-scout", "gemma-3-4b", "gemma-4-31b", "smollm3-3b", "gpt-oss-20b"):
        rope = rope_config_from_dict(PRESETS[preset])
        needs[preset] = {(layer.kind, extension_need(layer, rope)) for layer in layer_stack(PRESETS[preset])}
    assert needs["llama-3.1-8b"] == {("full_rope", "frequencies")}
    assert needs["llama-4-scout"] == {("chunked_rope", "nothing_window"), ("full_nope", "nope")}
    assert needs["gemma-3-4b"] == {("sliding_rope", "nothing_window"), ("full_rope", "frequencies")}
    assert needs["gemma-4-31b"] == {("sliding_rope", "nothing_window"), ("full_prope", "no_new_angles")}
    assert needs["smollm3-3b"] == {("full_rope", "frequencies"), ("full_nope", "nope")}
    assert needs["gpt-oss-20b"] == {("sliding_rope", "nothing_window"), ("full_rope", "frequencies")}
    slowest = 2 * math.pi * 1e6 ** (126 / 512)  # proportional's slowest rotated pair, λ = 2π·base^(2·63/512)
    assert 188 < slowest < 189


def test_llama4_temperature_is_on_its_nope_layers_only_with_transformers_formula():
    stack = layer_stack(PRESETS["llama-4-scout"])
    assert [layer.index for layer in stack if layer.temperature] == [3, 7, 11, 15, 19, 23, 27, 31, 35, 39, 43, 47]
    off = layer_stack(PRESETS["llama-4-scout"] | {"attn_temperature_tuning": False})
    assert not any(layer.temperature for layer in off)
    for position in (0, 8190, 8191, 10**6):  # Llama4TextAttention: log1p(floor((m + 1)/floor_scale))·attn_scale + 1
        expected = (torch.log1p(torch.floor(torch.tensor(position + 1.0) / 8192)) * 0.1 + 1.0).item()
        assert temperature_scale(position) == pytest.approx(expected, rel=1e-6)
    assert temperature_scale(8190) == 1.0 and temperature_scale(8191) == pytest.approx(1 + 0.1 * math.log(2))


def test_smollm3_and_plain_models_have_no_temperature():
    for preset in ("smollm3-3b", "llama-3.1-8b", "gemma-4-31b"):
        assert not any(layer.temperature for layer in layer_stack(PRESETS[preset]))


@pytest.mark.parametrize(
    "change, field, problem",
    [
        ({"num_hidden_layers": None}, "num_hidden_layers", "missing_layers"),
        ({"layer_types": ["full_attention"] * 3}, "layer_types", "not_layer_types"),
        ({"layer_types": ["mamba"] * 24}, "layer_types", "not_layer_types"),
        ({"sliding_window": "128"}, "sliding_window", "not_number"),
    ],
)
def test_a_bad_layer_field_is_named(change, field, problem):
    with pytest.raises(ConfigError) as error:
        layer_stack(PRESETS["gpt-oss-20b"] | change)
    assert (error.value.field, error.value.problem) == (field, problem)


def test_gemma4_proportional_rope_is_transformers():
    """Gemma 4's global layers: ROPE_INIT_FUNCTIONS["proportional"] and the model's rotary embedding give 256
    frequencies for a 512-feature head, the first 64 base^(−2i/512), the other 192 zero; ours are those 64 (the
    unrotated pairs carry no position); its sliding layers turn all 128 pairs at 10 000^(−2i/256)."""
    ours = rope_config_from_dict(PRESETS["gemma-4-31b"])
    hf = hf_config("gemma-4-31b")
    rotary = Gemma4TextRotaryEmbedding(hf)
    reference, attention = ROPE_INIT_FUNCTIONS["proportional"](hf.per_layer_config["full_attention"], "cpu",
                                                               layer_type="full_attention")  # fmt: skip
    torch.testing.assert_close(rotary.full_attention_inv_freq, reference)
    assert reference.shape == (256,) and int((reference == 0).sum()) == 192
    theta, factor = model_rope_inv_freq(ours)
    torch.testing.assert_close(theta, reference[:64], rtol=1e-6, atol=0)
    assert (ours.head_dim, ours.rotary_dim, ours.pairs, factor) == (512, 128, 64, attention)
    expected = torch.tensor([1e6 ** (-2 * i / 512) for i in range(64)], dtype=torch.float64)
    torch.testing.assert_close(theta.double(), expected, rtol=1e-6, atol=0)
    local = torch.tensor([1e4 ** (-2 * i / 256) for i in range(128)], dtype=torch.float64)
    torch.testing.assert_close(rotary.sliding_attention_inv_freq.double(), local, rtol=1e-6, atol=0)
    assert (ours.local_head_dim, ours.local_rotary_dim, ours.sliding_window) == (256, 256, 1024)
    assert not ours.is_scaled and ours.extended_length == ours.training_length == 262144
    assert rope_config_from_dict(rope_config_to_dict(ours)) == ours


@pytest.mark.parametrize("share, factor", [(0.25, 1.0), (0.5, 2.0), (0.3, 1.0)])
def test_proportional_rope_of_any_share_and_factor_is_transformers(share, factor):
    config = {"model_type": "gemma4_text", "head_dim": 64, "global_head_dim": 128, "num_attention_heads": 4,
              "hidden_size": 256, "num_hidden_layers": 6, "max_position_embeddings": 4096,
              "rope_parameters": {"full_attention": {"rope_type": "proportional", "rope_theta": 1e6,
                                                     "partial_rotary_factor": share, "factor": factor},
                                  "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}}  # fmt: skip
    ours = rope_config_from_dict(config)
    hf = Gemma4TextConfig(**{key: value for key, value in json.loads(json.dumps(config)).items()
                             if key != "model_type"})  # fmt: skip
    reference, _ = ROPE_INIT_FUNCTIONS["proportional"](hf.per_layer_config["full_attention"], "cpu",
                                                       layer_type="full_attention")  # fmt: skip
    rotated = int(share * 128 // 2)
    assert ours.pairs == rotated and int((reference != 0).sum()) == rotated
    theta, _ = model_rope_inv_freq(ours)
    torch.testing.assert_close(theta, reference[:rotated], rtol=1e-6, atol=0)
    assert ours.is_scaled == (factor != 1)
    assert rope_config_from_dict(rope_config_to_dict(ours)) == ours
