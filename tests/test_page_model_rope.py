"""The "Your model's RoPE" page under AppTest: every preset, a pasted config, malformed configs named by their field,
links that carry the view, and the page in Korean and Chinese."""

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from conftest import decode, figure_by_key, figures, open_code, written_source

from posenc.model_config import PROBLEMS, ConfigError, rope_config_from_json
from ui.i18n import LANGUAGES, text

PAGE = "pages/model_rope.py"
PRESETS = json.loads((Path(__file__).resolve().parents[1] / "assets" / "model_configs.json").read_text())["presets"]
BY_ID = {preset["id"]: preset for preset in PRESETS}
CHARTS = ("model_rope_wavelength_chart", "model_rope_bound_chart")


def open_model(open_page, query=None, state=None):
    at = open_page(PAGE, query=query, state=state)
    assert not at.exception, at.exception
    return at


def paste(at, config_text: str):
    """Choose "paste your own" and paste ``config_text``."""
    at.selectbox(key="model_rope_choice_widget").set_value("custom").run()
    at.text_area(key="model_rope_text_widget").set_value(config_text).run()
    assert not at.exception, at.exception
    return at


def summary(at) -> str:
    return next(element.value for element in at.markdown if element.value.startswith("- "))


def wavelengths_drawn(at) -> np.ndarray:
    """The wavelengths of the plain-RoPE points (both colour groups), in pair order."""
    traces = figure_by_key(at, "model_rope_wavelength_chart")["data"][:2]
    pairs = np.concatenate([decode(trace["x"]) for trace in traces])
    values = np.concatenate([decode(trace["y"]) for trace in traces])
    return values[np.argsort(pairs)]


@pytest.mark.parametrize("preset_id", list(BY_ID))
def test_every_preset_renders_its_wavelengths_and_bound(open_page, preset_id):
    at = open_model(open_page, query={"model": preset_id})
    assert at.title[0].value == "Your model's RoPE"
    assert at.selectbox(key="model_rope_choice_widget").value == preset_id
    assert not at.error and not at.warning
    assert [len(figure["data"]) for figure in figures(at)][1] >= 1
    config = BY_ID[preset_id]["config"]
    # λ_i = 2π·base^(2i/D), D = head_dim · share: written out from the public config, not read from posenc
    head_dim = config.get("head_dim") or config["hidden_size"] // config["num_attention_heads"]
    rotated = int(head_dim * config.get("partial_rotary_factor", config.get("rotary_pct", 1.0)))
    rotated = config.get("qk_rope_head_dim", rotated)  # DeepSeek names its rotated features
    base = config.get("rope_theta", config.get("rotary_emb_base"))
    denominator = rotated
    full = (config.get("rope_parameters") or {}).get("full_attention", {})
    if full.get("rope_type") == "proportional":  # Gemma 4's global heads: the exponent over the whole (wider) head
        denominator = config["global_head_dim"]
        rotated, base = 2 * int(full["partial_rotary_factor"] * denominator // 2), full["rope_theta"]
    expected = 2 * math.pi * base ** (np.arange(0, rotated, 2) / denominator)
    np.testing.assert_allclose(wavelengths_drawn(at), expected, rtol=1e-6)
    assert f"({rotated // 2} " in summary(at) and BY_ID[preset_id]["name"] in summary(at)
    assert BY_ID[preset_id]["source"] in at.caption[0].value
    assert at.query_params["model"] == preset_id and "rope" not in at.query_params


def test_default_is_llama_3_1_with_its_llama3_scaling(open_page):
    at = open_model(open_page)
    assert at.selectbox(key="model_rope_choice_widget").value == "llama-3.1-8b"
    words = summary(at)
    config = BY_ID["llama-3.1-8b"]["config"]  # 8 × 8 192 = 65 536: the declared 131 072 is not factor × training
    declared = config["max_position_embeddings"] / config["rope_scaling"]["original_max_position_embeddings"]
    assert config["rope_scaling"]["factor"] == 8 and declared == 16
    assert "Trained on 8,192 tokens; its Llama 3.1 (llama3) scaling has factor 8, and the config declares" in words
    assert "131,072 tokens (16× the training length)" in words and "stretches that" not in words
    assert "35 of the 64 pairs" in words  # λ_i ≤ 8191 ⇔ i ≤ 34 for base 500 000, D = 128
    wavelength = figure_by_key(at, "model_rope_wavelength_chart")
    assert [shape["y0"] for shape in wavelength["layout"]["shapes"]] == [8192, 131072]
    scaled = decode(wavelength["data"][2]["y"])
    plain = wavelengths_drawn(at)
    np.testing.assert_allclose(scaled[plain < 8192 / 4], plain[plain < 8192 / 4], rtol=1e-6)  # fast pairs kept
    np.testing.assert_allclose(scaled[plain > 8192], 8 * plain[plain > 8192], rtol=1e-6)  # slow pairs × 8
    bound = figure_by_key(at, "model_rope_bound_chart")
    distances = decode(bound["data"][0]["x"])
    assert distances[0] == 0 and distances[-1] == 131072
    assert decode(bound["data"][0]["y"])[0] == pytest.approx(32.5)  # (1/64)·Σ_{j=1}^{64} j at r = 0


def test_llama_3_1s_slowest_pair_answer_names_where_new_angles_start(open_page):
    """llama3 divides the slowest pair by s = 8, but the config declares 16 × 8 192: at 131 072 tokens θ/8 turns
    about twice as far as θ did in 8 192 (transformers' own frequencies), so the answer names s·L_train = 65 536 as
    the length up to which no angle is new, not the declared 131 072."""
    from transformers import LlamaConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = BY_ID["llama-3.1-8b"]["config"]
    hf = LlamaConfig(**{key: value for key, value in config.items() if key != "model_type"})
    scaled, _ = ROPE_INIT_FUNCTIONS["llama3"](hf, "cpu")
    plain = 1.0 / config["rope_theta"] ** (np.arange(0, 128, 2) / 128)
    assert scaled[-1].item() / plain[-1] == pytest.approx(1 / 8, rel=1e-6)
    assert 131071 * scaled[-1].item() > 1.9 * 8191 * plain[-1]  # the declared length meets new angles
    assert (8 * 8192 - 8) * scaled[-1].item() <= 8191 * plain[-1] * (1 + 1e-6)  # s·L_train − s + 1 does not
    at = open_model(open_page)
    at.radio(key="cp_model_slowest_choice").set_value("divides")
    at.button(key="cp_model_slowest_check").click().run()
    right = " ".join(s.value for s in at.success)
    assert "divides it by s = 8 (θ'/θ = 0.125): up to about s·8,192 = 65,536 tokens" in right
    assert "only past that does it meet new angles" in right and "131,072 tokens then cover" not in right


def test_llama4_scouts_answers_say_its_rope_layers_never_meet_a_new_angle(open_page):
    """transformers' Llama4TextConfig makes every RoPE layer of Scout chunked (attention_chunk_size 8 192): no query
    there meets a distance of 8 192 at any length, so llama3's θ/16 brings no new angle anywhere, and Scout was trained
    on far longer sequences than 8 192. The turns question names the chunk, not a training length, and the slowest
    pair's answer does not say that new angles start past s·8 192 (as it rightly does for Llama 3.1)."""
    from transformers import Llama4TextConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = BY_ID["llama-4-scout"]["config"]
    hf = Llama4TextConfig(**{key: value for key, value in config.items() if key != "model_type"})
    rope_layers = [kind for kind, rope in zip(hf.layer_types, hf.no_rope_layers, strict=True) if rope]
    assert len(rope_layers) == 36 and set(rope_layers) == {"chunked_attention"} and hf.attention_chunk_size == 8192
    scaled, _ = ROPE_INIT_FUNCTIONS["llama3"](hf, "cpu")
    plain = 1.0 / config["rope_theta"] ** (np.arange(0, 128, 2) / 128)
    assert scaled[-1].item() / plain[-1] == pytest.approx(1 / 16, rel=1e-6)
    at = open_model(open_page, query={"model": "llama-4-scout"})
    questions = " ".join(m.value for m in at.markdown if m.value.startswith("**"))
    assert "its RoPE layers attend within chunks of 8,192 tokens" in questions
    assert "trained on 8,192" not in questions
    at.radio(key="cp_model_slowest_choice").set_value("divides")
    at.button(key="cp_model_slowest_check").click().run()
    right = " ".join(s.value for s in at.success)
    assert "divides it by s = 16 (θ'/θ = 0.0625), but at no length does a query meet a new angle" in right
    assert "chunks of 8,192 tokens" in right and "only past that" not in right


def test_yarn_preset_quotes_its_attention_factor(open_page):
    at = open_model(open_page, query={"model": "qwen2.5-7b-yarn"})
    assert "(factor 4) stretches that to 131,072 tokens" in summary(at)  # 4 × 32 768: the config declares as much
    factor = 0.1 * math.log(4) + 1
    assert f"{factor:.4f}" in summary(at) and f"{factor**2:.4f}" in summary(at)
    bound = figure_by_key(at, "model_rope_bound_chart")["data"]
    assert decode(bound[1]["y"])[0] == pytest.approx(32.5 * factor**2, rel=1e-6)  # r = 0: every term is 1


GPT_J_LIKE = {  # a config nobody ships, pasted by a student: 16 heads of 256, half rotated, linear ×4
    "architectures": ["SomethingForCausalLM"],
    "hidden_size": 4096,
    "num_attention_heads": 16,
    "partial_rotary_factor": 0.5,
    "rope_theta": 10000,
    "max_position_embeddings": 2048,
    "rope_scaling": {"type": "linear", "factor": 4},
    "vocab_size": 50400,
}


def test_a_pasted_config_is_read_and_drawn(open_page):
    at = paste(open_model(open_page), json.dumps(GPT_J_LIKE, indent=2))
    assert not at.error
    words = summary(at)
    assert "**Your model** rotates 128 of the 256 features" in words and "64 pairs" in words
    assert "2,048" in words and "8,192" in words
    scaled = decode(figure_by_key(at, "model_rope_wavelength_chart")["data"][2]["y"])
    np.testing.assert_allclose(scaled, 4 * wavelengths_drawn(at), rtol=1e-6)  # linear: θ/4 for every pair
    assert at.query_params["model"] == "custom" and at.query_params["rope"]
    assert "vocab_size" not in at.json[0].value and json.loads(at.json[0].value)["head_dim"] == 256


def test_llama4_scouts_step_scaling_is_read_and_said(open_page):
    """Llama 4 Scout's text_config: low_freq_factor = high_freq_factor = 1 (transformers only warns): accepted, no
    blend band; 2π·500000^(2i/128) > 8 192 for i ≥ 35, so those pairs turn 16 times slower, the rest as before."""
    scaling = {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0, "high_freq_factor": 1.0,
               "original_max_position_embeddings": 8192}  # fmt: skip
    scout = {"text_config": {"model_type": "llama4_text", "hidden_size": 5120, "num_attention_heads": 40,
                             "head_dim": 128, "max_position_embeddings": 10485760, "rope_theta": 500000.0,
                             "rope_scaling": scaling}}  # fmt: skip
    at = paste(open_model(open_page), json.dumps(scout))
    assert not at.error
    words = summary(at)
    assert "both 1, so there is no blend band: every pair whose wavelength is longer than 8,192 tokens" in words
    # Meta trained Scout on up to 256K tokens; 8 192 is where llama3 counts from and its RoPE layers' chunk
    assert "Trained on" not in words
    assert "Its RoPE counts from 8,192 tokens (`original_max_position_embeddings`)" in words
    assert "trained on sequences of up to 256K tokens, but its RoPE layers attend within chunks of 8,192" in words
    assert "the 10,485,760 tokens the config declares are read whole only by its NoPE layers" in words
    assert "plain RoPE would take" not in words  # no RoPE layer of Scout meets a distance of 8 192
    plain, scaled = wavelengths_drawn(at), decode(figure_by_key(at, "model_rope_wavelength_chart")["data"][2]["y"])
    expected = 2 * math.pi * 500000.0 ** (np.arange(0, 128, 2) / 128)
    np.testing.assert_allclose(plain, expected, rtol=1e-6)
    np.testing.assert_allclose(scaled, np.where(expected > 8192, 16 * expected, expected), rtol=1e-6)


def test_gpt_oss_yarn_without_truncation_is_read_and_said(open_page):
    """gpt-oss's `truncate: false` (transformers' unrounded YaRN ramp) is accepted and named in the summary."""
    scaling = {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0, "beta_slow": 1.0,
               "original_max_position_embeddings": 4096, "truncate": False}  # fmt: skip
    gpt_oss = {"model_type": "gpt_oss", "hidden_size": 2880, "num_attention_heads": 64, "head_dim": 64,
               "max_position_embeddings": 131072, "rope_theta": 150000.0, "rope_scaling": scaling}  # fmt: skip
    at = paste(open_model(open_page), json.dumps(gpt_oss))
    assert not at.error
    assert "Its YaRN ramp is not rounded (`truncate: false`)" in summary(at)
    assert "(factor 32) stretches that to 131,072 tokens" in summary(at)


def test_qwen3_vl_interleaved_mrope_is_said_as_interleaved(open_page):
    """Qwen3-VL's mrope_interleaved: height on pairs 1, 4, … below 60, width on 2, 5, … below 60 (transformers'
    Qwen3VLTextRotaryEmbedding), not Qwen2-VL's contiguous blocks."""
    scaling = {"rope_type": "default", "mrope_section": [24, 20, 20], "mrope_interleaved": True}
    qwen3_vl = {"text_config": {"model_type": "qwen3_vl_text", "hidden_size": 4096, "num_attention_heads": 32,
                                "head_dim": 128, "max_position_embeddings": 262144, "rope_theta": 5000000.0,
                                "rope_scaling": scaling}}  # fmt: skip
    at = paste(open_model(open_page), json.dumps(qwen3_vl))
    assert not at.error
    words = summary(at)
    assert "The height turns pairs 1, 4, 7, … below 60 (20 pairs), the width pairs 2, 5, 8, … below 60" in words
    assert "Pairs 0–23 turn with the time" not in words


def test_a_dynamic_config_says_which_dynamic_ntk_it_draws(open_page):
    """transformers' ``dynamic`` slows the slowest pair by s² − s + 1 at s·L_train (7 for s = 3), not by s."""
    config = {"head_dim": 128, "max_position_embeddings": 4096, "rope_scaling": {"type": "dynamic", "factor": 3}}
    at = paste(open_model(open_page), json.dumps(config))
    words = summary(at)
    assert '(`rope_type: "dynamic"`, factor s = 3)' in words and "12,288 tokens" in words
    assert "turns 7 times slower" in words
    scaled = decode(figure_by_key(at, "model_rope_wavelength_chart")["data"][2]["y"])
    assert scaled[-1] / wavelengths_drawn(at)[-1] == pytest.approx(7, rel=1e-5)


def test_gemma4s_rotated_features_are_the_first_64_pairs_of_rotate_half():
    """transformers rotates Gemma 4's 512-feature global head with rotate_half over cos/sin of cat(θ, θ), θ from
    ``proportional`` (64 frequencies, 192 zeros): the features that move are 0–63 and 256–319, not the first 128."""
    import torch
    from transformers import Gemma4TextConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    from transformers.models.gemma4.modeling_gemma4 import apply_rotary_pos_emb

    full = BY_ID["gemma-4-31b"]["config"]["rope_parameters"]
    config = Gemma4TextConfig(head_dim=256, global_head_dim=512, num_hidden_layers=6, rope_parameters=full)
    freq, _ = ROPE_INIT_FUNCTIONS["proportional"](config.per_layer_config["full_attention"], "cpu",
                                                  layer_type="full_attention")  # fmt: skip
    angles = torch.cat([freq, freq]) * 1000.0  # position 1 000
    x = torch.arange(1.0, 513.0).reshape(1, 1, 1, 512)
    moved = (apply_rotary_pos_emb(x, angles.cos()[None, None], angles.sin()[None, None]) != x).flatten()
    assert moved.nonzero().flatten().tolist() == list(range(64)) + list(range(256, 320))


def test_gemma4_proportional_rope_is_read_and_said(open_page):
    """Gemma 4 31B's global layers: 64 of 256 pairs of a 512-feature head, θ_i = 10⁶^(−2i/512): all turn within
    2π·10⁶^(126/512) ≈ 188 positions, far inside 262 144; the 192 others are not rotated; its 50 sliding layers turn
    71 of their 128 pairs (base 10 000, 256 features) within 1 024 tokens; nothing is scaled: no crosses, one bound."""
    at = open_model(open_page, query={"model": "gemma-4-31b"})
    assert not at.error and not at.warning
    words = summary(at)
    assert "only 128 are rotated (64 pairs, the head's first 64; in transformers' rotate_half layout pair i" in words
    assert "is features i and i + 256), at θᵢ = 1,000,000^(−2i/512)" in words
    assert "down to a wavelength of 188 positions; the other 192 pairs are not rotated" in words
    assert "All 64 pairs turn at least once within the training context" in words
    assert "50 of its 60 layers are local (sliding window of 1,024 tokens)" in words and "71 of their 128" in words
    assert "with the scaling below" not in words and "rope_scaling" in words  # "with no `rope_scaling`"
    assert [len(figure["data"]) for figure in figures(at)] == [2, 1]  # pairs that turn or not, no crosses; one bound
    assert max(wavelengths_drawn(at)) == pytest.approx(2 * math.pi * 1e6 ** (126 / 512), rel=1e-6)
    turns = 262143 / (2 * math.pi * 1e6 ** (126 / 512))  # the slowest rotated pair's turns in training: 1 392.5
    question = next(m.value for m in at.markdown if "slowest rotated pair (pair 63)" in m.value)
    assert f"already turns {turns:,.0f} times in training" in question
    at.radio(key="cp_model_slowest_choice").set_value("keeps")
    at.button(key="cp_model_slowest_check").click().run()
    assert any("Even the slowest rotated pair turns fully in training" in s.value for s in at.success)


@pytest.mark.parametrize(
    "preset_id, words",
    [
        ("phi-3.5-mini", ["LongRoPE gives every pair its own factor", "1 … 2.84", "1.08 … 64.8", "1.1902"]),
        ("deepseek-v3", ["rotates 64 of the 192 features", "mscale = 1", "= 1.8739", "163,840"]),
        ("smollm3-3b", ["9 of its 36 layers apply no RoPE", "3, 7, 11, 15, 19, 23, 27, 31, 35"]),
        ("gemma-3-4b", ["29 of its 34 layers are local", "window of 1,024 tokens", "base 10,000", "32,768", "131,072"]),
        ("qwen2-vl-7b", ["Pairs 0–15 turn with the time position, 16–39 with the height", "up to 63"]),
    ],
)
def test_todays_config_kinds_say_what_differs(open_page, preset_id, words):
    """Each new kind's sentence, its numbers worked out from the published config by hand: Phi-3.5's
    √(1 + ln 32 / ln 4096) = 1.1902; DeepSeek's (0.1·ln 40 + 1)² = 1.8739; SmolLM3's every 4th layer; Gemma 3's
    sliding_window_pattern 6 (layers 5, 11, …, 29 global); Qwen2-VL's [16, 24, 24]."""
    at = open_model(open_page, query={"model": preset_id})
    assert not at.error
    shown = summary(at)
    assert all(word in shown for word in words), shown
    assert len(figures(at)) == 2


@pytest.mark.parametrize(
    "preset_id, key, value, field",
    [
        ("phi-3.5-mini", "rope_scaling", {"type": "longrope", "short_factor": [1.0] * 48, "long_factor": [1.0] * 47},
         "rope_scaling.long_factor"),
        ("smollm3-3b", "no_rope_layers", [1, 1, 1, 0], "no_rope_layers"),
        ("qwen2-vl-7b", "rope_scaling", {"type": "mrope", "mrope_section": [16, 24]}, "rope_scaling.mrope_section"),
        ("gemma-3-4b", "rope_local_base_freq", "10000", "rope_local_base_freq"),
        ("deepseek-v3", "qk_rope_head_dim", 63, "qk_rope_head_dim"),
    ],
)  # fmt: skip
def test_a_pasted_config_of_each_new_kind_names_its_bad_field(open_page, preset_id, key, value, field):
    at = paste(open_model(open_page), json.dumps(BY_ID[preset_id]["config"] | {key: value}))
    assert len(at.error) == 1 and f"`{field}`" in at.error[0].value
    assert not figures(at)


@pytest.mark.parametrize(
    "config_text, field",
    [
        ('{"hidden_size": 4096, "num_attention_heads": 32,', "config.json"),  # invalid JSON
        ("[4096, 32]", "config.json"),  # not an object
        ('{"hidden_size": 4096, "num_attention_heads": 32}', "max_position_embeddings"),  # missing
        ('{"hidden_size": "4096", "num_attention_heads": 32, "max_position_embeddings": 8}', "hidden_size"),
        ('{"head_dim": 64, "max_position_embeddings": 8, "rope_scaling": {"type": "xpos"}}', "rope_scaling.type"),
        ('{"head_dim": 63, "max_position_embeddings": 8}', "head_dim"),  # odd
        ('{"head_dim": 64, "max_position_embeddings": 0}', "max_position_embeddings"),  # zero
        ('{"head_dim": 64, "max_position_embeddings": 1e400}', "max_position_embeddings"),  # huge
        ('{"head_dim": 64, "max_position_embeddings": 8, "rope_theta": -3}', "rope_theta"),  # negative
    ],
)
def test_a_malformed_config_is_explained_naming_its_field(open_page, config_text, field):
    at = paste(open_model(open_page), config_text)
    assert len(at.error) == 1
    message = at.error[0].value
    with pytest.raises(ConfigError) as raised:
        rope_config_from_json(config_text)
    expected = raised.value
    assert expected.field == field
    assert message == text("en", f"model_rope.error_{expected.problem}", field=field, **expected.params)
    if field != "config.json":
        assert f"`{field}`" in message
    assert not figures(at) and "Traceback" not in message
    assert "rope" not in at.query_params  # nothing to carry


def test_an_empty_paste_asks_for_a_config(open_page):
    at = paste(open_model(open_page), "   ")
    assert [info.value for info in at.info] == [text("en", "model_rope.paste_hint")]
    assert not at.error and not figures(at)


def test_choosing_paste_starts_from_the_model_shown(open_page):
    at = open_model(open_page, query={"model": "phi-2"})
    at.selectbox(key="model_rope_choice_widget").set_value("custom").run()
    assert json.loads(at.text_area(key="model_rope_text_widget").value) == BY_ID["phi-2"]["config"]
    assert "**Your model** rotates 32 of the 80 features" in summary(at)


def test_a_pasted_config_travels_in_the_link_and_reopens_the_same_view(open_page):
    first = paste(open_model(open_page), json.dumps(GPT_J_LIKE))
    link = {"model": first.query_params["model"], "rope": first.query_params["rope"]}
    assert len(link["rope"]) < 400
    second = open_model(open_page, query=link)
    assert second.selectbox(key="model_rope_choice_widget").value == "custom"
    assert summary(second) == summary(first)
    assert figures(second) == figures(first)
    assert second.query_params["rope"] == link["rope"]


def test_a_pasted_longrope_config_travels_in_the_link_too(open_page):
    """Phi-3.5's 2 × 48 per-pair factors make the longest link a published config needs (about 2 650 characters)."""
    first = paste(open_model(open_page), json.dumps(BY_ID["phi-3.5-mini"]["config"]))
    link = {"model": "custom", "rope": first.query_params["rope"]}
    second = open_model(open_page, query=link)
    assert not second.warning and summary(second) == summary(first).replace("Phi-3.5 mini (LongRoPE)", "Your model")


def test_a_preset_link_roundtrips_and_follows_the_choice(open_page):
    at = open_model(open_page, query={"model": "gpt-neox-20b"})
    assert "24 of the 96 features" in summary(at)
    at.selectbox(key="model_rope_choice_widget").set_value("mistral-7b-v0.3").run()
    assert at.query_params["model"] == "mistral-7b-v0.3"
    again = open_model(open_page, query={"model": at.query_params["model"]})
    assert summary(again) == summary(at)


def test_the_choice_survives_a_page_switch(open_page):
    at = open_model(open_page, query={"model": "phi-2"})
    at.switch_page("pages/home.py").run()
    at.switch_page(PAGE).run()
    assert at.selectbox(key="model_rope_choice_widget").value == "phi-2"


@pytest.mark.parametrize(
    "query, notice",
    [
        ({"model": "<script>alert(1)</script>"}, "link_unknown_model"),
        ({"model": "custom", "rope": "not base64 at all!"}, "link_bad_config"),
        ({"model": "custom", "rope": "eyJoZWFkX2RpbSI6IDYzfQ"}, "link_bad_config"),  # {"head_dim": 63}: odd
        ({"model": "custom", "rope": "A" * 5000}, "link_bad_config"),
    ],
)
def test_a_bad_link_opens_the_default_model_with_a_notice(open_page, query, notice):
    at = open_model(open_page, query=query)
    assert [warning.value for warning in at.warning] == [text("en", f"model_rope.{notice}")]
    assert at.selectbox(key="model_rope_choice_widget").value == "llama-3.1-8b"
    assert at.query_params["model"] == "llama-3.1-8b" and "rope" not in at.query_params


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_page_reads_in_another_language(open_page, lang):
    at = open_model(open_page, query={"lang": lang, "model": "qwen2.5-7b-yarn"})
    assert at.title[0].value == text(lang, "model_rope.title")
    shown = [element.value for kind in ("markdown", "caption", "title", "latex") for element in at.get(kind)]
    shown += [at.selectbox(key="model_rope_choice_widget").label]
    assert not [value for value in shown if "⟦" in value]
    assert [figure["layout"]["title"]["text"] for figure in figures(at)] == [
        text(lang, "model_rope.wavelength_title"),
        text(lang, "model_rope.decay_title"),
    ]
    assert sum(text(lang, "common.what_to_notice") in caption.value for caption in at.caption) == 1


@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("problem", list(PROBLEMS))
def test_every_config_problem_has_a_sentence_in_every_language(lang, problem):
    """The page shows model_rope.error_<problem>, a key the catalog scan cannot see: each exists, and the English one
    is posenc's own sentence."""
    params = {"limit": 1000, "line": 1, "column": 2, "rotated": 25, "count": 48, "pairs": 64, "layers": 24}
    shown = text(lang, f"model_rope.error_{problem}", field="rope_scaling.factor", **params)
    assert "⟦" not in shown
    if re.search(r"\{field\}", PROBLEMS[problem]):
        assert "`rope_scaling.factor`" in shown
    if lang == "en":
        assert shown == PROBLEMS[problem].format(field="rope_scaling.factor", **params)


def test_show_the_code_holds_the_exact_source_of_each_named_function(open_page):
    block = open_code(open_model(open_page)).code[0].value
    parts = re.split(r"^# (\w+(?:\.\w+)+)\n", block, flags=re.M)
    names = parts[1::2]
    assert "posenc.model_config.rope_config_from_dict" in names and "posenc.decay.rope_decay_bound_at" in names
    for name, source in zip(names, parts[2::2], strict=True):
        module_name, _, attribute = name.rpartition(".")
        assert source.rstrip("\n") == written_source(module_name, attribute).rstrip("\n"), name


# The words that may stay Latin inside a preset's description in Korean and Chinese: names of methods and fields,
# and base (Korean keeps it in Latin letters, as the term base says).
LATIN_TERMS = {"base", "yarn", "mscale", "nope", "rope", "longrope", "text_config", "processing", "long", "texts",
               "gemma", "instruct", "scout", "llama", "qwen"}  # fmt: skip


@pytest.mark.parametrize("lang", ["ko", "zh"])
def test_the_model_picker_and_its_source_speak_the_pages_language(open_page, lang):
    """A preset whose name or source carries an English description ("local and global bases", "its text_config; the
    32K pre-training length…") shows it in the page's language: no English word outside the method and field names
    in any option of the picker, nor in the source line of each such preset."""
    at = open_model(open_page, query={"lang": lang})
    picker = at.selectbox(key="model_rope_choice_widget")
    english = re.compile(r"[A-Za-z_]{4,}")

    def english_words(text: str) -> set[str]:
        inside = " ".join(re.findall(r"[(（]([^)）]*)[)）]", text))  # only what the parentheses describe
        return {word for word in english.findall(inside) if word.lower() not in LATIN_TERMS}

    options = list(picker.options)  # the labels the student reads
    assert len(options) == len(PRESETS) + 1
    assert not {option: words for option in options if (words := english_words(option))}
    for preset in PRESETS:
        if "(" not in preset["source"]:
            continue
        at.selectbox(key="model_rope_choice_widget").set_value(preset["id"]).run()
        line = next(c.value for c in at.caption if "config.json" in c.value)
        assert preset["source"].split(" (")[0] in line  # the repository, as published
        assert not english_words(line), line
