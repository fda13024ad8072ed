"""The "RoPE layer by layer" page (pages/rope_layers.py) in AppTest: the six stacks drawn from the presets as
transformers' configuration classes read them, the table's sentences for each kind of layer, both predict-first
questions, the allocation chart's counts against a by-hand formula, and the page in every language."""

from __future__ import annotations

import math

import pytest
from conftest import decode, figure_by_key, tables
from streamlit.testing.v1 import AppTest

from ui.i18n import LANGUAGES, text

PAGE = "pages/rope_layers.py"


def open_layers(open_page, **state) -> AppTest:
    at = open_page(PAGE, state=state)
    assert not at.exception
    return at


def table_text(at: AppTest, index: int = 0) -> str:
    """Every header and cell of the page's table ``index``, one text."""
    shown = tables(at)[index]
    return "\n".join([*shown.columns, *(cell for row in shown.rows for cell in row)])


def test_the_stack_chart_draws_every_layer_of_six_models_in_its_kind(open_page):
    at = open_layers(open_page)
    assert at.title[0].value == "RoPE layer by layer"
    figure = figure_by_key(at, "rope_layers_stack_chart")
    dots = {}
    for trace in figure["data"]:
        for x, (name, _) in zip(decode(trace["x"]), trace["customdata"], strict=True):
            dots[(name, int(x))] = trace["name"]
    rows = dict(zip(figure["layout"]["yaxis"]["ticktext"], figure["layout"]["yaxis"]["tickvals"], strict=True))
    assert rows["Llama 3.1 8B"] > rows["Llama 4 Scout"] > rows["gpt-oss 20B"]  # in the order listed, from the top
    layers = {"Llama 3.1 8B": 32, "Llama 4 Scout": 48, "Gemma 3 4B": 34, "Gemma 4 31B": 60, "SmolLM3 3B": 36,
              "gpt-oss 20B": 24}  # fmt: skip
    assert {name: sum(y == name for y, _ in dots) for name in layers} == layers
    assert dots[("Llama 4 Scout", 3)] == "full attention, no RoPE" and dots[("Llama 4 Scout", 4)] == "chunks, RoPE"
    assert dots[("Gemma 4 31B", 5)] == "full attention, proportional RoPE"
    assert dots[("Gemma 3 4B", 33)] == "sliding window, RoPE"  # 34 layers: the last is not a 6th
    assert dots[("gpt-oss 20B", 0)] == "sliding window, RoPE" and dots[("gpt-oss 20B", 1)] == "full attention, RoPE"
    assert {dots[("SmolLM3 3B", index)] for index in (3, 7, 35)} == {"full attention, no RoPE"}


def test_a_list_of_layers_is_joined_as_each_language_joins_a_list(open_page):
    """Chinese joins a list with the enumeration comma 、, English and Korean with ", "."""
    for lang, expected in (("zh", "除第 3、7、…、47 层外的所有层"), ("ko", "3, 7, …, 47번을 뺀 모든 층")):
        at = open_page(PAGE, query={"lang": lang}, state={"rope_layers_model": "llama-4-scout"})
        assert not at.exception
        assert expected in table_text(at), lang


def test_the_table_says_what_a_longer_context_asks_of_each_kind_of_layer(open_page):
    at = open_layers(open_page, rope_layers_model="llama-4-scout")
    shown = table_text(at)
    assert "all but 3, 7, …, 47" in shown and "chunks of 8,192" in shown and "up to 8,191 tokens back" in shown
    assert "no farther than in training" in shown and "8,192 training tokens" not in shown  # Scout: 256K sequences
    assert "1.481 at m = 1,000,000" in shown  # 1 + 0.1·ln(1 + ⌊1 000 001/8 192⌋) = 1 + 0.1·ln 123
    assert f"{1 + 0.1 * math.log(123):.3f}" == "1.481"
    at = open_layers(open_page, rope_layers_model="gemma-4-31b")
    shown = table_text(at)
    assert "No new angles" in shown and "wavelength of 188 positions" in shown and "5, 11, …, 59" in shown
    at = open_layers(open_page, rope_layers_model="llama-3.1-8b")
    assert "the config's llama3 scaling (factor 8)" in table_text(at) and "all 32" in table_text(at)
    at = open_layers(open_page, rope_layers_model="smollm3-3b")
    assert "this config sets no rope_scaling" in table_text(at) and "nothing in this config counters" in table_text(at)


def test_the_reach_question_is_answered_by_the_nope_layers(open_page):
    at = open_layers(open_page)
    assert any("Llama 4 Scout has 48 layers" in markdown.value for markdown in at.markdown)
    at.radio(key="cp_layers_reach_choice").set_value(12)
    at.button(key="cp_layers_reach_check").click().run()
    assert any("12: only its 12 NoPE layers" in element.value for element in at.success)


def test_the_allocation_chart_counts_pairs_as_the_formula_does(open_page):
    at = open_layers(open_page, rope_layers_head=128, rope_layers_base=10_000.0, rope_layers_length=4096)
    figure = figure_by_key(at, "rope_layers_allocation_chart")
    rows = {}
    for trace in figure["data"]:
        for (name,) in trace["customdata"]:
            rows.setdefault(name, {}).setdefault(trace["name"], 0)
            rows[name][trace["name"]] += 1
    full = next(value for key, value in rows.items() if key.startswith("full RoPE (64 pairs)"))
    meaning = sum(4095 * 1e4 ** (-2 * i / 128) < math.pi / 2 for i in range(64))  # by hand: (L − 1)·θ_i < π/2
    assert full["under a quarter turn"] == meaning == 9
    assert (
        "proportional (16 rotated, 48 not)" in rows
        and "under a quarter turn" not in rows["proportional (16 rotated, 48 not)"]
    )
    wavelengths = []
    for trace in figure["data"]:
        pairs = zip(decode(trace["x"]), trace["customdata"], strict=True)
        wavelengths += [value for value, (name,) in pairs if name.startswith("full")]
    wavelengths.sort()
    assert wavelengths[-1] == pytest.approx(2 * math.pi * 1e4 ** (126 / 128), rel=1e-6)
    assert "DeepSeek-V3" in table_text(at, 1) and "Gemma 4 31B" in table_text(at, 1)


def test_with_a_large_share_proportional_rope_keeps_slow_rotated_pairs_and_the_notice_says_so(open_page):
    """p = 0.75 of a 128-feature head at base 10⁶: transformers' proportional RoPE rotates 48 pairs, the slowest at
    10⁶^(−94/128) ≈ 3.9·10⁻⁵, under a quarter turn over 4 096 tokens; so the notice counts the rotated pairs that
    turn fully instead of claiming that proportional RoPE has no slow rotating pair."""
    from transformers import Gemma4TextConfig
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    blocks = {"full_attention": {"rope_type": "proportional", "rope_theta": 1e6, "partial_rotary_factor": 0.75},
              "sliding_attention": {"rope_type": "default", "rope_theta": 1e4}}  # fmt: skip
    config = Gemma4TextConfig(head_dim=128, global_head_dim=128, num_hidden_layers=6, rope_parameters=blocks)
    freq, _ = ROPE_INIT_FUNCTIONS["proportional"](config.per_layer_config["full_attention"], "cpu",
                                                  layer_type="full_attention")  # fmt: skip
    rotated = freq[freq > 0].double()
    turns_fully = int((4095 * rotated >= 2 * math.pi).sum())
    assert len(rotated) == 48 and 4095 * rotated[-1].item() < math.pi / 2  # a slow rotated pair
    at = open_layers(open_page, rope_layers_head=128, rope_layers_base=1_000_000.0, rope_layers_share=0.75,
                     rope_layers_length=4096)  # fmt: skip
    words = " ".join(element.value for element in at.caption)
    assert f"({turns_fully} of its 48 rotated pairs turn fully here)" in words and turns_fully < 48
    assert "no slow rotating pair" not in words and "never changes sign" not in words


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang != "en"])
def test_the_page_reads_in_another_language(open_page, lang):
    at = open_page(PAGE, query={"lang": lang})
    assert not at.exception
    assert at.title[0].value == text(lang, "rope_layers.title")
    names = {trace["name"] for trace in figure_by_key(at, "rope_layers_stack_chart")["data"]}
    assert text(lang, "rope_layers.kind_full_nope") in names


def test_a_pasted_config_gets_its_own_row_and_table(open_page):
    """A Llama 4 text config of 8 layers with a NoPE layer every 2nd: its row on top, its table below."""
    pasted = ('{"model_type": "llama4_text", "hidden_size": 1024, "num_attention_heads": 8, "num_hidden_layers": 8,'
              ' "max_position_embeddings": 65536, "rope_theta": 500000.0, "no_rope_layer_interval": 2,'
              ' "attention_chunk_size": 4096}')  # fmt: skip
    at = open_layers(open_page, rope_layers_model="custom")
    assert any("Paste a model's config.json" in info.value for info in at.info)
    at.text_area(key="rope_layers_text").input(pasted).run()
    assert not at.exception and not at.error
    figure = figure_by_key(at, "rope_layers_stack_chart")
    assert figure["layout"]["yaxis"]["ticktext"][-1] == "Your model"  # the top row
    ours = {}
    for trace in figure["data"]:
        for x, (name, _) in zip(decode(trace["x"]), trace["customdata"], strict=True):
            if name == "Your model":
                ours[int(x)] = trace["name"]
    assert [ours[index] for index in range(8)] == ["chunks, RoPE", "full attention, no RoPE"] * 4
    shown = table_text(at)
    assert "1, 3, 5, 7" in shown and "chunks of 4,096" in shown and "up to 4,095 tokens back" in shown


@pytest.mark.parametrize(
    "pasted, field",
    [
        ('{"hidden_size": 1024, "num_attention_heads": 8, "max_position_embeddings": 4096}', "num_hidden_layers"),
        ('{"hidden_size": 1024, "num_attention_heads": 8, "max_position_embeddings": 4096, "num_hidden_layers": 2,'
         ' "layer_types": ["full_attention"]}', "layer_types"),
        ("{not json", None),
    ],
)  # fmt: skip
def test_a_pasted_config_that_cannot_be_read_names_its_field(open_page, pasted, field):
    at = open_layers(open_page, rope_layers_model="custom")
    at.text_area(key="rope_layers_text").input(pasted).run()
    assert not at.exception
    assert len(at.error) == 1
    assert f"`{field}`" in at.error[0].value if field else "not valid JSON" in at.error[0].value
    assert len(figure_by_key(at, "rope_layers_stack_chart")["layout"]["yaxis"]["ticktext"]) == 6  # the presets
