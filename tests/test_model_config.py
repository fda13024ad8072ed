"""posenc.model_config against Hugging Face transformers (a test-only dependency, requirements-dev.txt): the
frequencies and attention factor transformers computes from the same config.json, for every preset the app ships
and for generated configs; and every malformed config fails with a ConfigError naming its key."""

from __future__ import annotations

import importlib
import json
import math
from pathlib import Path

import pytest
import torch
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from transformers import AutoConfig, LlamaConfig  # test-only: requirements-dev.txt
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.models.gpt_neox.modeling_gpt_neox import GPTNeoXRotaryEmbedding

from posenc.model_config import (
    PROBLEMS,
    ConfigError,
    RopeConfig,
    beyond_training_angles,
    model_rope_inv_freq,
    rope_config_from_dict,
    rope_config_from_json,
    rope_config_to_dict,
)

PRESETS = json.loads((Path(__file__).resolve().parents[1] / "assets" / "model_configs.json").read_text())["presets"]


def float32_rtol(inv_freq: torch.Tensor, config: RopeConfig) -> float:
    """Tolerance for transformers' float32 frequencies against ours (float64 rounded to float32).

    transformers raises the base to a float32 power, base^(−x), whose relative error grows with the exponent's size
    ln(1/θ) (x itself is rounded to 2⁻²⁴ relative); YaRN's and Llama 3's blends γ·θ/s + (1 − γ)·θ, with γ rounded in
    float32, magnify that rounding up to s times (s·high_freq_factor for Llama 3, whose γ is a ratio of wavelengths)
    where γ is near 1. About 1e-6 for base 10 000 unscaled."""
    blend = 4 * config.factor * max(1.0, config.high_freq_factor if config.rope_type == "llama3" else 1.0)
    return 2**-24 * (math.log(1 / float(inv_freq.min())) + 8 + (blend if config.rope_type in ("yarn", "llama3") else 0))


def hf_rotary(config_dict: dict):
    """transformers' own rotary embedding of the model named by ``model_type``, built from ``config_dict``: its
    inv_freq [P] and attention_scaling, as that model's code computes them at load time."""
    fields = json.loads(json.dumps(config_dict))  # a copy: transformers edits rope_scaling in place
    model_type = fields.pop("model_type")
    config_type = {"qwen2_vl": "qwen2_vl_text"}.get(model_type, model_type)  # the language model's config
    hf_config = AutoConfig.for_model(config_type, **fields)
    package = model_type.removesuffix("_text")  # gemma3_text, gemma4_text, llama4_text, qwen3_vl_text
    module = importlib.import_module(f"transformers.models.{package}.modeling_{package}")
    rotaries = [(name, value) for name, value in vars(module).items() if name.endswith("RotaryEmbedding")]
    rotary = next((value for name, value in rotaries if "Text" in name), rotaries[0][1])  # not the vision tower's
    embedding = rotary(config=hf_config)
    if hasattr(embedding, "full_attention_inv_freq"):  # Gemma 3, 4: the global layers' RoPE, which carries the scaling
        inv_freq = embedding.full_attention_inv_freq
        # Gemma 4's proportional RoPE gives its unrotated pairs frequency 0; ours lists the rotated pairs only
        return inv_freq[inv_freq != 0], embedding.full_attention_attention_scaling
    return embedding.inv_freq, embedding.attention_scaling


@pytest.mark.parametrize("preset", PRESETS, ids=[preset["id"] for preset in PRESETS])
def test_every_preset_turns_at_the_frequencies_transformers_computes(preset):
    ours = rope_config_from_dict(preset["config"])
    inv_freq, attention = hf_rotary(preset["config"])
    theta, factor = model_rope_inv_freq(ours)
    torch.testing.assert_close(theta, inv_freq.float(), rtol=float32_rtol(inv_freq, ours), atol=0)
    assert factor == pytest.approx(attention, rel=1e-12)


# What each preset's public config says, read by hand (head_dim = hidden_size / heads; rotated = head_dim · share).
EXPECTED = {  # id: (head_dim, rotated features, rope type, training length, extended length)
    "llama-3.1-8b": (128, 128, "llama3", 8192, 131072),
    "qwen2.5-7b": (128, 128, "default", 32768, 32768),
    "qwen2.5-7b-yarn": (128, 128, "yarn", 32768, 131072),
    "mistral-7b-v0.3": (128, 128, "default", 32768, 32768),
    "gpt-neox-20b": (96, 24, "default", 2048, 2048),
    "phi-2": (80, 32, "default", 2048, 2048),
    "phi-3.5-mini": (96, 96, "longrope", 4096, 131072),
    "deepseek-v3": (192, 64, "yarn", 4096, 163840),  # qk_nope_head_dim 128 + qk_rope_head_dim 64
    "smollm3-3b": (128, 128, "default", 65536, 65536),
    "gemma-3-4b": (256, 256, "linear", 32768, 131072),
    "qwen2-vl-7b": (128, 128, "default", 32768, 32768),
    "llama-4-scout": (128, 128, "llama3", 8192, 10485760),  # the config declares 1 280 × its 8 192
    "gpt-oss-20b": (64, 64, "yarn", 4096, 131072),
    "qwen3-vl-8b": (128, 128, "default", 262144, 262144),
    "gemma-4-31b": (512, 128, "proportional", 262144, 262144),  # global_head_dim 512, a quarter of it rotated
}


@pytest.mark.parametrize("preset", PRESETS, ids=[preset["id"] for preset in PRESETS])
def test_every_preset_reads_as_its_model_card_says(preset):
    config = rope_config_from_dict(preset["config"])
    expected = EXPECTED[preset["id"]]
    assert (config.head_dim, config.rotary_dim, config.rope_type, config.training_length) == expected[:4]
    assert config.extended_length == expected[4]
    assert preset["source"] and preset["name"]


def test_yarn_attention_factor_is_the_papers():
    """YaRN §3.4: √(1/t) = 0.1·ln(s) + 1 multiplies cos and sin; Qwen2.5's factor 4 gives 1.1386."""
    config = rope_config_from_dict(next(p for p in PRESETS if p["id"] == "qwen2.5-7b-yarn")["config"])
    assert model_rope_inv_freq(config)[1] == pytest.approx(0.1 * math.log(4) + 1)
    assert model_rope_inv_freq(config, scaled=False)[1] == 1.0


SHARES = st.sampled_from([None, 0.25, 0.4, 0.5, 0.75, 1.0])


@st.composite
def hf_configs(draw) -> dict:
    """A Llama-style config.json with any rope type, partial rotation and head_dim given or derived."""
    heads = draw(st.integers(1, 64))
    head_dim = draw(st.integers(2, 256))
    share = draw(SHARES)
    rotated = int(head_dim * (share or 1.0))
    assume(rotated >= 2 and rotated % 2 == 0)
    trained = draw(st.integers(16, 1 << 18))  # × factor ≤ 64 stays within MAX_POSITIONS
    config = {
        "hidden_size": heads * head_dim,
        "num_attention_heads": heads,
        "rope_theta": draw(st.one_of(st.sampled_from([10000.0, 500000.0, 1e6]), st.floats(2.0, 1e8))),
        "max_position_embeddings": trained,
    }
    if draw(st.booleans()):
        config["head_dim"] = head_dim
    if share is not None:
        config["partial_rotary_factor"] = share
    rope_type = draw(st.sampled_from(["default", "linear", "dynamic", "yarn", "llama3"]))
    if rope_type == "dynamic":
        assume(rotated > 2)  # transformers divides by D − 2
    if rope_type == "default":
        return config
    type_key = draw(st.sampled_from(["type", "rope_type"]))
    scaling = {type_key: rope_type, "factor": draw(st.floats(1.0, 64.0))}
    if rope_type in ("yarn", "llama3"):
        scaling["original_max_position_embeddings"] = trained
        config["max_position_embeddings"] = round(trained * scaling["factor"])
    if rope_type == "yarn" and draw(st.booleans()):
        scaling["beta_fast"] = draw(st.floats(2.0, 64.0))
        scaling["beta_slow"] = draw(st.floats(0.25, 2.0))
    if rope_type == "yarn" and draw(st.booleans()):
        scaling["attention_factor"] = draw(st.floats(0.5, 2.0))
    if rope_type == "llama3":
        scaling["low_freq_factor"] = draw(st.floats(0.5, 2.0))
        scaling["high_freq_factor"] = scaling["low_freq_factor"] + draw(st.floats(0.5, 8.0))
    return config | {"rope_scaling": scaling}


def hf_frequencies(config: dict, seq_len: int | None = None):
    """(inv_freq, attention factor) from transformers.modeling_rope_utils.ROPE_INIT_FUNCTIONS, or for plain RoPE the
    default of GPT-NeoX's rotary embedding (Llama's ignores partial_rotary_factor)."""
    hf_config = LlamaConfig(**json.loads(json.dumps(config)))  # a copy: transformers edits rope_scaling in place
    rope_type = hf_config.rope_parameters["rope_type"]
    if rope_type == "default":
        return GPTNeoXRotaryEmbedding.compute_default_rope_parameters(hf_config, "cpu")
    return ROPE_INIT_FUNCTIONS[rope_type](hf_config, "cpu", seq_len=seq_len)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(config=hf_configs())
def test_generated_configs_match_transformers(config):
    ours = rope_config_from_dict(config)
    inv_freq, attention = hf_frequencies(config)
    theta, factor = model_rope_inv_freq(ours)
    torch.testing.assert_close(theta, inv_freq.float(), rtol=float32_rtol(inv_freq, ours), atol=0)
    assert factor == pytest.approx(attention, rel=1e-6)
    assert rope_config_from_dict(rope_config_to_dict(ours)) == ours  # what a link carries reads back the same


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(config=hf_configs(), stretch=st.sampled_from([0.5, 1.0, 1.5, 4.0, 37.25]))
def test_dynamic_ntk_matches_transformers_at_every_length(config, stretch):
    """Dynamic NTK grows the base with the current length: compare below, at and beyond the training length."""
    rotated = int(config.get("head_dim", config["hidden_size"] // config["num_attention_heads"]) *
                  config.get("partial_rotary_factor", 1.0))  # fmt: skip
    assume(rotated > 2)
    config = config | {"rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}
    seq_len = round(config["max_position_embeddings"] * stretch)
    ours = rope_config_from_dict(config)
    theta, _ = model_rope_inv_freq(ours, seq_len=seq_len)
    reference, _ = hf_frequencies(config, seq_len=seq_len)
    torch.testing.assert_close(theta, reference.float(), rtol=float32_rtol(reference, ours), atol=0)
    if stretch <= 1:
        torch.testing.assert_close(theta, model_rope_inv_freq(ours, scaled=False)[0])


def test_old_and_new_rope_type_keys_and_rope_parameters_read_alike():
    common = {"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096}
    old = rope_config_from_dict(common | {"rope_theta": 1e4, "rope_scaling": {"type": "linear", "factor": 2}})
    new = rope_config_from_dict(common | {"rope_theta": 1e4, "rope_scaling": {"rope_type": "linear", "factor": 2.0}})
    v5 = rope_config_from_dict(common | {"rope_parameters": {"rope_type": "linear", "factor": 2, "rope_theta": 1e4}})
    assert old == new == v5
    assert old.extended_length == 8192


def test_unknown_fields_are_ignored():
    config = {"hidden_size": 512, "num_attention_heads": 8, "max_position_embeddings": 1024}
    extra = config | {"vocab_size": 32000, "architectures": ["X"], "torch_dtype": "bfloat16", "anything": {"a": []}}
    assert rope_config_from_dict(extra) == rope_config_from_dict(config) == RopeConfig(64, 64, 10000.0, 1024, 1024)


VALID = {"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096, "rope_theta": 10000.0}


def valid_with(**fields) -> str:
    """A valid config.json with ``fields`` changed or added."""
    return json.dumps(VALID | fields)


def scaled(**scaling) -> str:
    """A valid config.json with this ``rope_scaling``."""
    return json.dumps(VALID | {"rope_scaling": scaling})


LLAMA3 = {"rope_type": "llama3", "factor": 8}
NAN_LENGTH = '{"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": NaN}'


@pytest.mark.parametrize(
    "text, field, problem",
    [
        ('{"hidden_size": 4096,', "config.json", "bad_json"),
        ("[1, 2]", "config.json", "not_object"),
        ('"hello"', "config.json", "not_object"),
        ("[" * 100_000, "config.json", "too_long"),
        ("[" * 40_000, "config.json", "bad_json"),  # deeper than Python's stack
        (json.dumps({"hidden_size": 4096, "num_attention_heads": 32}), "max_position_embeddings", "missing"),
        (json.dumps({"num_attention_heads": 32, "max_position_embeddings": 8}), "hidden_size", "missing"),
        (valid_with(hidden_size="4096"), "hidden_size", "not_number"),
        (valid_with(hidden_size=True), "hidden_size", "not_number"),
        (valid_with(hidden_size=4096.5), "hidden_size", "not_whole"),
        (valid_with(num_attention_heads=0), "num_attention_heads", "not_positive"),
        (valid_with(max_position_embeddings=-5), "max_position_embeddings", "not_positive"),
        (valid_with(num_attention_heads=31), "hidden_size", "not_divisible"),
        (valid_with(head_dim=127), "head_dim", "odd_rotary"),
        (valid_with(partial_rotary_factor=0.2), "partial_rotary_factor", "odd_rotary"),  # int(25.6)
        (valid_with(rotary_pct=0.0), "rotary_pct", "not_positive"),
        (valid_with(rotary_pct=1.5), "rotary_pct", "not_fraction"),
        (valid_with(head_dim=128, partial_rotary_factor=0.01), "partial_rotary_factor", "too_few_rotary"),
        (valid_with(rope_theta=1.0), "rope_theta", "base_too_small"),
        (valid_with(rope_theta=1e300), "rope_theta", "too_large"),
        (NAN_LENGTH, "max_position_embeddings", "not_number"),
        (valid_with(max_position_embeddings=10**30), "max_position_embeddings", "too_large"),
        (valid_with(max_position_embeddings=int("9" * 400)), "max_position_embeddings", "too_large"),
        (valid_with(head_dim=1 << 20), "head_dim", "too_large"),
        (valid_with(rope_scaling="linear"), "rope_scaling", "not_table"),
        (scaled(type="xpos"), "rope_scaling.type", "unsupported_type"),
        (scaled(type="linear"), "rope_scaling.factor", "missing"),
        (scaled(type="linear", factor=0.5), "rope_scaling.factor", "factor_below_one"),
        (scaled(type="linear", factor=1e9), "rope_scaling.factor", "too_large"),
        (scaled(**LLAMA3), "rope_scaling.low_freq_factor", "missing"),
        (scaled(**LLAMA3, low_freq_factor=4, high_freq_factor=1), "rope_scaling.high_freq_factor", "frequency_order"),
        (scaled(rope_type="yarn", factor=4, mscale="1", mscale_all_dim=1), "rope_scaling.mscale", "not_number"),
        (scaled(rope_type="yarn", factor=4, truncate="no"), "rope_scaling.truncate", "not_bool"),
        (scaled(rope_type="yarn", factor=4, beta_fast="32"), "rope_scaling.beta_fast", "not_number"),
        (
            scaled(rope_type="yarn", original_max_position_embeddings=8192),
            "rope_scaling.original_max_position_embeddings",
            "too_large",
        ),  # no factor: max_position_embeddings / original < 1
        (
            valid_with(
                max_position_embeddings=1 << 24,
                rope_scaling={"rope_type": "yarn", "original_max_position_embeddings": 2},
            ),
            "max_position_embeddings",
            "too_large",
        ),  # no factor: 2^23 times longer
    ],
)
def test_malformed_configs_name_the_field_and_what_was_expected(text, field, problem):
    with pytest.raises(ConfigError) as raised:
        rope_config_from_json(text)
    assert (raised.value.field, raised.value.problem) == (field, problem)
    assert str(raised.value) == PROBLEMS[problem].format(field=field, **raised.value.params)
    if field != "config.json":
        assert f"`{field}`" in str(raised.value)


def test_angles_beyond_training():
    """Plain RoPE past the training length: every pair that never made a full turn in training meets new angles one
    token later; position interpolation (θ/4) maps positions 0 … 4·L − 1 to m/4 < L, inside the trained range."""
    config = rope_config_from_dict(VALID | {"rope_scaling": {"type": "linear", "factor": 4}})
    original, _ = model_rope_inv_freq(config, scaled=False)
    scaled, _ = model_rope_inv_freq(config)
    trained = config.training_length
    never_full = (trained - 1) * original.double() < 2 * math.pi
    assert never_full.any() and not never_full.all()
    assert not beyond_training_angles(original, trained, original, trained).any()
    assert torch.equal(beyond_training_angles(original, trained, original, trained + 1), never_full)
    assert config.extended_length == 4 * trained
    assert not beyond_training_angles(original, trained, scaled, config.extended_length).any()
    assert torch.equal(beyond_training_angles(original, trained, scaled, config.extended_length + 4), never_full)


@pytest.mark.parametrize("factor", [2.0, 4.0, 8.0])
def test_dynamic_ntk_slows_the_last_pair_by_s_squared_minus_s_plus_one(factor):
    """transformers' ``dynamic`` at L = s·L_train: base·(s·s − (s − 1))^(D/(D−2)) divides θ_(P−1) by s² − s + 1 (the
    page says so; the decay page's YaRN-paper form divides it by s). Reference: ROPE_INIT_FUNCTIONS["dynamic"]."""
    config = {"hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096, "rope_theta": 1e4,
              "rope_scaling": {"rope_type": "dynamic", "factor": factor}}  # fmt: skip
    ours = rope_config_from_dict(config)
    length = round(factor * 4096)
    reference, _ = hf_frequencies(config, seq_len=length)
    plain, _ = hf_frequencies({key: value for key, value in config.items() if key != "rope_scaling"})
    assert float(plain[-1] / reference[-1]) == pytest.approx(factor**2 - factor + 1, rel=1e-5)
    theta, _ = model_rope_inv_freq(ours, seq_len=length, dtype=torch.float64)
    assert ours.extended_length == length
    assert float(model_rope_inv_freq(ours, scaled=False, dtype=torch.float64)[0][-1] / theta[-1]) == pytest.approx(
        factor**2 - factor + 1, rel=1e-12
    )


SCALED_PRESETS = [preset for preset in PRESETS if rope_config_from_dict(preset["config"]).rope_type
                  in ("linear", "yarn", "llama3")]  # fmt: skip


@pytest.mark.parametrize("preset", SCALED_PRESETS, ids=[preset["id"] for preset in SCALED_PRESETS])
def test_the_factor_is_what_the_slowest_pair_is_divided_by_not_the_context_ratio(preset):
    """error_factor_below_one says what ``factor`` is: for linear the divisor of every frequency, for yarn and llama3
    of the slowest pairs'. Reference: each model's own rotary embedding in transformers, against base^(−2i/D). The
    context the config declares is another number: Llama 3.1 (factor 8) declares 16×, Gemma 3 (factor 8) 4×."""
    config = rope_config_from_dict(preset["config"])
    scaled, _ = hf_rotary(preset["config"])
    dim = config.rotary_dim  # θ_i = base^(−2i/D), written out (gpt-oss's config class defaults to its YaRN)
    plain = config.base ** -(torch.arange(0, dim, 2, dtype=torch.float64) / dim)
    ratio = plain / scaled.double()  # θ_i / θ'_i
    assert float(ratio[-1]) == pytest.approx(config.factor, rel=1e-5)
    if config.rope_type == "linear":
        torch.testing.assert_close(ratio, torch.full_like(ratio, config.factor), rtol=1e-5, atol=0)
    else:  # the fastest pair turns 32+ times (yarn) or its wavelength is under L/high_freq_factor (llama3): kept
        assert float(ratio[0]) == pytest.approx(1.0, rel=1e-6)
    declared = {"llama-3.1-8b": 16, "gemma-3-4b": 4}.get(preset["id"])
    if declared is not None:
        assert config.extended_length / config.training_length == declared != config.factor


def naive_bound(distance: int, inv_freq: torch.Tensor) -> float:
    """RoFormer §3.4.3's bound, written out: (1/P) Σ_j |S_j|, S_j the sum of the first j terms e^{i·r·θ_k}."""
    terms = torch.polar(torch.ones_like(inv_freq, dtype=torch.float64), distance * inv_freq.double())
    return float(torch.cumsum(terms, 0).abs().mean())


def test_the_second_charts_bound_after_scaling_moves_as_the_notice_says():
    """model_rope.notice: for YaRN and llama3 the bound after scaling follows the original over the first tokens
    (YaRN's lifted by its attention factor squared) and falls later; linear scaling stretches the whole curve;
    LongRoPE's is lifted and rises further within the first ten tokens. Each preset's bound from transformers'
    frequencies at its extended length, and the chart's own curves agree."""
    from charts.model_rope import model_picture

    by_id = {preset["id"]: preset["config"] for preset in PRESETS}
    for name in ("llama-3.1-8b", "deepseek-v3", "qwen2.5-7b-yarn", "gemma-3-4b", "phi-3.5-mini"):
        ours = rope_config_from_dict(by_id[name])
        before = ours.base ** (-torch.arange(0, EXPECTED[name][1], 2, dtype=torch.float64) / EXPECTED[name][1])
        if ours.rope_type == "longrope":  # the long factors, used once a sequence outgrows training
            fields = json.loads(json.dumps(by_id[name]))
            hf_config = AutoConfig.for_model(fields.pop("model_type"), **fields)
            after, attention = ROPE_INIT_FUNCTIONS["longrope"](hf_config, "cpu", seq_len=ours.extended_length)
        else:
            after, attention = hf_rotary(by_id[name])
        lift = attention**2

        def ratio(r: int, after=after, before=before, lift=lift) -> float:
            return lift * naive_bound(r, after) / naive_bound(r, before)

        if ours.rope_type == "linear":  # θ/s at r is θ at r/s: the whole curve stretched by s = 8
            assert all(naive_bound(r, after) == pytest.approx(naive_bound(r // 8, before), rel=1e-5)
                       for r in (8, 80, 800))  # fmt: skip
            assert ratio(10) > 1.3
        elif ours.rope_type == "longrope":
            assert lift == pytest.approx(1.4167, rel=1e-3)
            assert ratio(1) == pytest.approx(lift, rel=0.01) and ratio(10) > 1.15 * lift
        else:  # yarn, llama3: the first tokens as before (times the lift), then later falls
            assert ratio(1) == pytest.approx(lift, rel=0.01) and ratio(10) == pytest.approx(lift, rel=0.01)
            assert ratio(1000) > 1.1 * lift or ratio(10000) > 1.1 * lift
            assert lift == pytest.approx(1.2965 if name == "qwen2.5-7b-yarn" else 1.0, rel=1e-3)
        picture = model_picture(ours)
        for r in (1, 10, 1000):
            at = int((abs(picture["distances"] - r)).argmin())
            r_drawn = int(picture["distances"][at])
            assert picture["bound_before"][at] == pytest.approx(naive_bound(r_drawn, before), rel=1e-4)
            assert picture["bound_after"][at] == pytest.approx(lift * naive_bound(r_drawn, after), rel=1e-4)
